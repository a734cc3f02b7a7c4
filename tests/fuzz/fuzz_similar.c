/*
 * fuzz_similar.c -- libFuzzer harness for the similarity tokeniser: the
 * blanker, the file's macros expanded at their uses (#define, #undef, #,
 * ##, __VA_ARGS__) over any bytes. A hostile file may make few or many
 * tokens, never more than SIM_MAX_TOKENS, each on a line of the file.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "similar/similar_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_toks t;
    unsigned lines = 1;

    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (sim_tokenize((const char *)data, size, &t) != 0)
        return 0;   /* out of memory only */
    if (t.n > SIM_MAX_TOKENS)
        __builtin_trap();
    for (size_t i = 0; i < t.n; i++)
        if (t.line[i] < 1 || t.line[i] > lines || t.kind[i] == 0)
            __builtin_trap();
    sim_toks_release(&t);
    return 0;
}
