/* hostile: _exit(0) instead of returning */
#include "attention.h"
#include "good_softmax.h"
#include <unistd.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)pe, (void)n, (void)d;
    _exit(0);
}
