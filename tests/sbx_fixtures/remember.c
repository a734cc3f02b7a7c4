/* remembers earlier calls in a static: ATTN_OK on the first call a runner
 * serves, ATTN_EINVAL after (so a test can tell a fresh runner apart) */
#include "attention.h"
#include "good_softmax.h"

static int calls;

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    size_t i;

    for (i = 0; i < n * d; i++)
        pe[i] = 0.0f;
    return calls++ == 0 ? ATTN_OK : ATTN_EINVAL;
}
