/* hostile: writes through a NULL pointer */
#include "attention.h"
#include "good_softmax.h"

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    volatile float *p = NULL;

    (void)pe, (void)n, (void)d;
    *p = 1.0f;
    return ATTN_OK;
}
