/* hostile: reads one element past the end of K */
#include "attention.h"
#include "good_softmax.h"

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    size_t i;

    (void)Q, (void)V, (void)mask, (void)weights;
    for (i = 0; i < n_q * d_v; i++)
        out[i] = K[n_k * d_k];
    return ATTN_OK;
}
