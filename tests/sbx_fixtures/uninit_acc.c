/*
 * uninit_acc.c -- a buggy submission: it sums into a block from malloc
 * that it never cleared. The heap file's fresh pages are zeros, so the
 * sum would come out right in the runner and wrong wherever the C
 * library hands out a used block; the runner's malloc fills fresh
 * blocks with NaN bytes, and the outputs are NaN. calloc's are zeros.
 */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>
#include <string.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    double *acc = malloc(n * d * sizeof *acc);     /* the bug: not cleared */
    double *zero = calloc(n * d, sizeof *zero);

    if (acc == NULL || zero == NULL) {
        free(acc);
        free(zero);
        return ATTN_EINVAL;
    }
    for (size_t i = 0; i < n * d; i++) {
        acc[i] += 1.0;
        pe[i] = (float)acc[i];
    }
    pe[0] = (float)zero[n * d - 1]; /* 0: calloc clears */
    free(acc);
    free(zero);
    return ATTN_OK;
}
