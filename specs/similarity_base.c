/*
 * similarity_base.c -- base code for `grader similar` (docs/TA.md): the
 * argument checks attention.h forces on every solution, written the two
 * ways students write them (`x == NULL || n == 0` and `!x || !n`), each
 * after its function's signature as it opens the function. Token
 * sequences found here never count as shared between two submissions.
 * This file is read as tokens only; it is not meant to compile.
 */
#include "attention.h"

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    if (x == NULL || rows == 0 || cols == 0)
        return ATTN_EINVAL;
}

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    if (!x || !rows || !cols)
        return ATTN_EINVAL;
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    if (Q == NULL || K == NULL || V == NULL || out == NULL ||
        n_q == 0 || n_k == 0 || d_k == 0 || d_v == 0)
        return ATTN_EINVAL;
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    if (!Q || !K || !V || !out || !n_q || !n_k || !d_k || !d_v)
        return ATTN_EINVAL;
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    if (pe == NULL || n == 0 || d == 0)
        return ATTN_EINVAL;
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    if (!pe || !n || !d)
        return ATTN_EINVAL;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    if (x == NULL || rows == 0 || cols == 0 || eps < 0.0f || isnan(eps))
        return ATTN_EINVAL;
    if (x == NULL || rows == 0 || cols == 0 || !(eps >= 0.0f))
        return ATTN_EINVAL;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    if (!x || !rows || !cols || !(eps >= 0.0f))
        return ATTN_EINVAL;
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    if (Xq == NULL || Xkv == NULL || Wq == NULL || Wk == NULL || Wv == NULL ||
        Wo == NULL || out == NULL || n_q == 0 || n_kv == 0 || d_model == 0 ||
        heads == 0 || d_model % heads != 0)
        return ATTN_EINVAL;
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    if (!Xq || !Xkv || !Wq || !Wk || !Wv || !Wo || !out || !n_q || !n_kv ||
        !d_model || !heads || d_model % heads)
        return ATTN_EINVAL;
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    if (X == NULL || Wq == NULL || Wk == NULL || Wv == NULL || Wo == NULL ||
        W1 == NULL || b1 == NULL || W2 == NULL || b2 == NULL || n == 0 ||
        d_model == 0 || heads == 0 || d_ff == 0 || d_model % heads != 0 || eps < 0.0f)
        return ATTN_EINVAL;
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    if (!X || !Wq || !Wk || !Wv || !Wo || !W1 || !b1 || !W2 || !b2 || !n ||
        !d_model || !heads || !d_ff || d_model % heads || !(eps >= 0.0f))
        return ATTN_EINVAL;
}
