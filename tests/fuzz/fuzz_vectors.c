/*
 * fuzz_vectors.c -- libFuzzer harness for the VECTORS parser of the
 * self-check (sc_vectors_parse), which reads the file a student's
 * answers.yaml names: any bytes must give a table or NULL with a message.
 */
#include <stddef.h>
#include <stdint.h>

#include "selfcheck/selfcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct err e;
    struct sc_vectors *vs = sc_vectors_parse("VECTORS", (const char *)data, size, &e);

    if (vs != NULL)
        sc_vectors_free(vs);
    else if (e.msg[0] == '\0')
        __builtin_trap();
    return 0;
}
