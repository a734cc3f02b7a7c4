/* hostile: signals "done" on the result pipe (fd 4) without returning,
 * then keeps running. */
#include <unistd.h>

#include "attention.h"
#include "good_softmax.h"

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    volatile unsigned long k = 0;

    (void)pe, (void)n, (void)d;
    if (write(4, "x", 1) != 1)
        return ATTN_EINVAL;
    for (;;)
        k++;
}
