/* CATALOGUE
 * bug: trivial: every function returns ATTN_OK and writes nothing
 *
 * A submission that does no real work: it must score at most 2 of 100 on
 * public + hidden (tests/test_catalogue.c, catalogue.trivial).
 */
#include "attention.h"

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    (void)x, (void)rows, (void)cols;
    return ATTN_OK;
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    (void)Q, (void)K, (void)V, (void)n_q, (void)n_k, (void)d_k, (void)d_v, (void)mask;
    (void)out, (void)weights;
    return ATTN_OK;
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)pe, (void)n, (void)d;
    return ATTN_OK;
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    (void)Xq, (void)n_q, (void)Xkv, (void)n_kv, (void)d_model, (void)heads;
    (void)Wq, (void)Wk, (void)Wv, (void)Wo, (void)mask, (void)out, (void)weights;
    return ATTN_OK;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    (void)x, (void)rows, (void)cols, (void)eps;
    return ATTN_OK;
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    (void)X, (void)n, (void)d_model, (void)heads, (void)d_ff, (void)Wq, (void)Wk, (void)Wv;
    (void)Wo, (void)W1, (void)b1, (void)W2, (void)b2, (void)mask, (void)eps;
    return ATTN_OK;
}
