/* hostile: writes 100 MB to stdout */
#include "attention.h"
#include "good_softmax.h"
#include <stdio.h>
#include <string.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    static char block[1 << 16];
    int i;

    (void)n, (void)d;
    memset(block, 'y', sizeof block);
    for (i = 0; i < 1600; i++)
        fwrite(block, 1, sizeof block, stdout);
    pe[0] = 0.0f;
    return ATTN_OK;
}
