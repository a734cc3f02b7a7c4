/* hostile: an endless loop (expect a timeout) */
#include "attention.h"
#include "good_softmax.h"

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    volatile unsigned long k = 0;

    (void)pe, (void)n, (void)d;
    for (;;)
        k++;
}
