/* hostile: integer division by zero */
#include "attention.h"
#include "good_softmax.h"

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    volatile int zero = 0, big = 1000;

    pe[0] = (float)(big / zero);  /* not 1 / x: gcc compiles that to a test */
    (void)n, (void)d;
    return ATTN_OK;
}
