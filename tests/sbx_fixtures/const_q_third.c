/* copies Q into out on the first two calls a runner serves, and casts
 * away const to modify Q on the third: with the same layout each time the
 * runner keeps the buffers mapped from one call to the next (issue 39),
 * which must still give each call its own inputs and keep them read-only */
#include "attention.h"
#include "good_softmax.h"

static int calls;

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    size_t i;

    (void)K, (void)V, (void)n_k, (void)mask, (void)weights;
    if (++calls == 3)
        ((float *)Q)[d_k - 1] = 0.0f;
    for (i = 0; i < n_q * d_v && i < n_q * d_k; i++)
        out[i] = Q[i];
    return ATTN_OK;
}
