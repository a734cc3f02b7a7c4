/*
 * heap_overrun_live.c -- a buggy submission: a block it keeps between
 * calls (grown in place by realloc) is written one float past its new
 * end. Never freed, so only the check of the live blocks after the call
 * sees it.
 */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    static float *volatile kept;    /* volatile: the stores stay */
    float *grown;
    size_t i;

    if ((kept = malloc(sizeof *kept)) == NULL)
        return ATTN_EINVAL;
    if ((grown = realloc(kept, n * d * sizeof *kept)) == NULL)
        return ATTN_EINVAL;
    kept = grown;
    for (i = 0; i <= n * d; i++)
        kept[i] = 1.0f;
    for (i = 0; i < n * d; i++)
        pe[i] = kept[i] - 1.0f;
    return ATTN_OK;
}
