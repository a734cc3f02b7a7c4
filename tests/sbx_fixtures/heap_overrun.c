/*
 * heap_overrun.c -- a buggy submission: its temporary is one float too
 * short for the loop that fills it (an off-by-one bound), then freed. The
 * write lands in the block's last page, which no guard page catches: the
 * runner's redzone check at free does.
 */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    float *tmp = malloc(n * d * sizeof *tmp);
    size_t i;

    if (tmp == NULL)
        return ATTN_EINVAL;
    for (i = 0; i <= n * d; i++)
        tmp[i] = 0.0f;
    for (i = 0; i < n * d; i++)
        pe[i] = tmp[i];
    free(tmp);
    return ATTN_OK;
}
