/*
 * redzone_bomb.c -- hostile (issue 35): leaks three 24 MiB blocks whose
 * headers it rewrites to claim 0 bytes, each filled with the redzone
 * pattern, so that a live check trusting the header compares 72 MiB
 * after every call and finds nothing. The header layout and the pattern
 * are the grader's (runner_proto.h), copied as a student would find them.
 */
#include "attention.h"
#include "good_softmax.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 3
#define BLOCK_BYTES ((size_t)24 << 20)

static unsigned char pattern(uint64_t at, uint64_t k)
{
    uint64_t salt = (at * 0x9E3779B97F4A7C15ull) >> 48;

    if (k % 4 == 3)
        return 0xbfu;
    if (k % 4 == 2)
        return (unsigned char)(0xe0u | ((k / 4) & 0x0fu));
    return (unsigned char)(0xA5u ^ (k * 0x3Bu) ^ (salt >> (8 * (k % 2))));
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    static int done;

    if (!done) {
        for (int i = 0; i < BLOCKS; i++) {
            unsigned char *p = malloc(BLOCK_BYTES);
            volatile uint64_t *hdr = (volatile uint64_t *)p - 4; /* tag, size, off, np */
            uint64_t room;
            if (p == NULL)
                return ATTN_EINVAL;
            room = hdr[3] * 4096 - 4 * sizeof(uint64_t);
            hdr[1] = 0;
            for (uint64_t k = 0; k < room; k++)
                p[k] = pattern(hdr[2], k);
        }
        done = 1;
    }
    memset(pe, 0, n * d * sizeof *pe);
    return ATTN_OK;
}
