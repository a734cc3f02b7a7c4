/* hostile: burns CPU until RLIMIT_CPU stops it (the deadline is long) */
#include "attention.h"
#include "good_softmax.h"

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    volatile unsigned long k = 0;

    (void)pe, (void)n, (void)d;
    for (;;)
        k++;
}
