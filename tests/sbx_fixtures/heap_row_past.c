/*
 * heap_row_past.c -- a buggy submission: it copies the rows of one block
 * into another of the same size with a loop run one row too far
 * (`r <= rows`), so the last memcpy reads the first block's redzone and
 * writes it over the second's. Both redzones hold the pattern at the
 * same offsets; only its dependence on the block tells the copy apart.
 */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>
#include <string.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    float *a = malloc(n * d * sizeof *a), *b = malloc(n * d * sizeof *b);

    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return ATTN_EINVAL;
    }
    for (size_t i = 0; i < n * d; i++)
        a[i] = 0.0f;
    for (size_t r = 0; r <= n; r++)     /* the bug: one row too far */
        memcpy(b + r * d, a + r * d, d * sizeof *b);
    memcpy(pe, b, n * d * sizeof *pe);
    free(a);
    free(b);
    return ATTN_OK;
}
