/* buggy: allocates and never frees */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    float *tmp = malloc(n * d * sizeof *tmp);
    float *kept = calloc(4, sizeof *kept);
    size_t i;

    if (tmp == NULL || kept == NULL)
        return ATTN_EINVAL;
    tmp = realloc(tmp, 2 * n * d * sizeof *tmp);
    for (i = 0; i < n * d; i++)
        pe[i] = 0.0f;
    free(tmp);
    return ATTN_OK;   /* `kept` leaks */
}
