/* hostile: allocates up to 4 GiB in 256 MiB chunks and touches it */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>
#include <string.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    size_t chunk = (size_t)256 << 20;
    int i;

    (void)pe, (void)n, (void)d;
    for (i = 0; i < 16; i++)
        memset(malloc(chunk), 1, chunk);   /* no NULL check: crashes */
    return ATTN_OK;
}
