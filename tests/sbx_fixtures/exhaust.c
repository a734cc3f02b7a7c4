/* hostile: after answering, takes all the address space the runner has
 * left (1 MiB blocks down to 64 bytes, never freed), so that a larger
 * next call finds no room for its buffers */
#include "attention.h"
#include "good_softmax.h"
#include <stdlib.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    static void *volatile last;
    size_t i, size;

    for (i = 0; i < n * d; i++)
        pe[i] = 0.0f;
    for (size = (size_t)1 << 20; size >= 64; size /= 2)
        for (i = 0; i < 4096; i++) {
            void *p = malloc(size);
            if (p == NULL)
                break;
            last = p;
        }
    return ATTN_OK;
}
