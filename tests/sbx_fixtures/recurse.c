/* hostile: unbounded recursion (stack overflow) */
#include "attention.h"
#include "good_softmax.h"

static int deep(volatile char *prev, size_t depth)
{
    volatile char frame[4096];

    frame[0] = prev ? prev[0] : 1;
    frame[4095] = (char)depth;
    return deep(frame, depth + 1) + frame[4095];
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)n, (void)d;
    pe[0] = (float)deep(NULL, 0);
    return ATTN_OK;
}
