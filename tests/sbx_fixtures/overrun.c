/* hostile: writes one element past the end of pe */
#include "attention.h"
#include "good_softmax.h"

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    size_t i;

    for (i = 0; i <= n * d; i++)
        pe[i] = 0.0f;
    return ATTN_OK;
}
