/* hostile: a static array larger than the runner's address-space limit
 * (the object check refuses it in the pipeline; here it is linked
 * directly, so the runner cannot start) */
#include "attention.h"
#include "good_softmax.h"

static volatile unsigned char big[(size_t)512 << 20];

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    size_t i;

    big[n] = 1;
    for (i = 0; i < n * d; i++)
        pe[i] = 0.0f;
    return ATTN_OK;
}
