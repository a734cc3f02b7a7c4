/* hostile: makes 4,096 allocations (the runner once kept a table of 49,152
 * pointers), leaks one buffer while it is full, frees the fillers */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>

#define FILLERS 4096u

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    static void *volatile leaked;
    void **fill = malloc(FILLERS * sizeof *fill);
    size_t i;

    if (fill == NULL)
        return ATTN_EINVAL;
    for (i = 0; i < FILLERS; i++)
        fill[i] = malloc(1);
    leaked = malloc(16);
    for (i = 0; i < FILLERS; i++)
        free(fill[i]);
    free(fill);
    for (i = 0; i < n * d; i++)
        pe[i] = 0.0f;
    return ATTN_OK;
}
