/* CATALOGUE
 * bug: trivial: argument checks, then 0.5 in every output
 *
 * A submission that does no real work: it must score at most 2 of 100 on
 * public + hidden (tests/test_catalogue.c, catalogue.trivial).
 */
#include "attention.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* The argument checks of attention.h, exactly as the reference makes them. */
static int bad_softmax(const float *x, size_t rows, size_t cols)
{
    return x == NULL || rows == 0 || cols == 0;
}

static int bad_sdpa(const float *Q, const float *K, const float *V, size_t n_q, size_t n_k,
                    size_t d_k, size_t d_v, const float *out)
{
    return !Q || !K || !V || !out || !n_q || !n_k || !d_k || !d_v;
}

static int bad_pe(const float *pe, size_t n, size_t d)
{
    return pe == NULL || n == 0 || d == 0;
}

static int bad_eps(float eps)
{
    return isnan(eps) || eps < 0.0f;
}

static int bad_mha(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv, size_t d_model,
                   size_t heads, const float *Wq, const float *Wk, const float *Wv,
                   const float *Wo, const float *out)
{
    return !Xq || !Xkv || !Wq || !Wk || !Wv || !Wo || !out || !n_q || !n_kv || !d_model ||
           !heads || d_model % heads != 0;
}

static int bad_block(const float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                     const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                     const float *W1, const float *b1, const float *W2, const float *b2,
                     float eps)
{
    return !X || !Wq || !Wk || !Wv || !Wo || !W1 || !b1 || !W2 || !b2 || !n || !d_model ||
           !heads || !d_ff || d_model % heads != 0 || bad_eps(eps);
}

/* ---- trivial bodies: one constant in every output ---- */

#define C 0.5f

static void fill(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = C;
}

static int t_softmax(float *x, size_t rows, size_t cols)
{
    fill(x, rows * cols);
    return ATTN_OK;
}

static int t_sdpa(const float *Q, const float *K, const float *V, size_t n_q, size_t n_k,
                  size_t d_k, size_t d_v, const unsigned char *mask, float *out, float *weights)
{
    (void)Q, (void)K, (void)V, (void)d_k, (void)mask;
    fill(out, n_q * d_v);
    if (weights)
        fill(weights, n_q * n_k);
    return ATTN_OK;
}

static int t_pe(float *pe, size_t n, size_t d)
{
    fill(pe, n * d);
    return ATTN_OK;
}

static int t_mha(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv, size_t d_model,
                 size_t heads, const unsigned char *mask, float *out, float *weights)
{
    (void)Xq, (void)Xkv, (void)mask;
    fill(out, n_q * d_model);
    if (weights)
        fill(weights, heads * n_q * n_kv);
    return ATTN_OK;
}

static int t_layernorm(float *x, size_t rows, size_t cols, float eps)
{
    (void)eps;
    fill(x, rows * cols);
    return ATTN_OK;
}

static int t_block(float *X, size_t n, size_t d_model, const unsigned char *mask)
{
    (void)mask;
    fill(X, n * d_model);
    return ATTN_OK;
}

/* ---- the API: the checks, then the trivial bodies above ---- */

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    if (bad_softmax(x, rows, cols))
        return ATTN_EINVAL;
    return t_softmax(x, rows, cols);
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    if (bad_sdpa(Q, K, V, n_q, n_k, d_k, d_v, out))
        return ATTN_EINVAL;
    return t_sdpa(Q, K, V, n_q, n_k, d_k, d_v, mask, out, weights);
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    if (bad_pe(pe, n, d))
        return ATTN_EINVAL;
    return t_pe(pe, n, d);
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    if (bad_mha(Xq, n_q, Xkv, n_kv, d_model, heads, Wq, Wk, Wv, Wo, out))
        return ATTN_EINVAL;
    return t_mha(Xq, n_q, Xkv, n_kv, d_model, heads, mask, out, weights);
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    if (bad_softmax(x, rows, cols) || bad_eps(eps))
        return ATTN_EINVAL;
    return t_layernorm(x, rows, cols, eps);
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    if (bad_block(X, n, d_model, heads, d_ff, Wq, Wk, Wv, Wo, W1, b1, W2, b2, eps))
        return ATTN_EINVAL;
    return t_block(X, n, d_model, mask);
}
