/* hostile: casts away const and modifies Q */
#include "attention.h"
#include "good_softmax.h"

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    (void)K, (void)V, (void)n_q, (void)n_k, (void)d_v, (void)mask;
    (void)out, (void)weights;
    ((float *)Q)[d_k - 1] = 0.0f;
    return ATTN_OK;
}
