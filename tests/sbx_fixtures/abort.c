/* hostile: abort() */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)pe, (void)n, (void)d;
    abort();
}
