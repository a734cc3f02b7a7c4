/*
 * fuzz_golden.c -- libFuzzer harness for the golden data reader
 * (gold_load): specs/public.golden ships in the student's tree, where
 * anyone can edit it. Any bytes must give the data or NULL with a message.
 * gold_load reads a file, so each input is written to one first, with the
 * closing "end <SHA-256>" line that makes the reader parse it (random
 * bytes never match a hash: without it only the hash check would run).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/sha256.h"
#include "oracle/golden.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *input_file(void)
{
    static char path[64];

    if (path[0] == '\0') {
        int fd;
        snprintf(path, sizeof path, "/tmp/fuzz-golden-XXXXXX");
        if ((fd = mkstemp(path)) < 0)
            abort();
        close(fd);
    }
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = input_file();
    FILE *f = fopen(path, "wb");
    char hex[SHA256_HEX_LEN];
    struct err e;
    struct gold *g;

    sha256_hex(data, size, hex);
    if (f == NULL || fwrite(data, 1, size, f) != size ||
        fprintf(f, "end %.64s\n", hex) < 0 || fclose(f) != 0)
        abort();
    if ((g = gold_load(path, &e)) != NULL)
        gold_free(g);
    else if (e.msg[0] == '\0')
        __builtin_trap();
    return 0;
}
