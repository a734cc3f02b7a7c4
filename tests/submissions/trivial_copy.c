/* CATALOGUE
 * bug: trivial: a copy of the input: softmax, layer norm and the block leave x as it is; attention copies a row of V; PE is the position; multi-head copies Xq
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

/* ---- trivial bodies: a copy of the input ---- */

static int t_softmax(float *x, size_t rows, size_t cols)
{
    (void)x, (void)rows, (void)cols;   /* in place: the input stays */
    return ATTN_OK;
}

/* out[i] = V[i mod n_k] (its first d_v columns), weights one-hot there. */
static int t_sdpa(const float *Q, const float *K, const float *V, size_t n_q, size_t n_k,
                  size_t d_k, size_t d_v, const unsigned char *mask, float *out, float *weights)
{
    (void)Q, (void)K, (void)d_k, (void)mask;
    for (size_t i = 0; i < n_q; i++) {
        memcpy(out + i * d_v, V + (i % n_k) * d_v, d_v * sizeof *out);
        for (size_t j = 0; weights && j < n_k; j++)
            weights[i * n_k + j] = j == i % n_k ? 1.0f : 0.0f;
    }
    return ATTN_OK;
}

static int t_pe(float *pe, size_t n, size_t d)
{
    for (size_t p = 0; p < n; p++)
        for (size_t i = 0; i < d; i++)
            pe[p * d + i] = (float)p;
    return ATTN_OK;
}

static int t_mha(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv, size_t d_model,
                 size_t heads, const unsigned char *mask, float *out, float *weights)
{
    (void)Xkv, (void)mask;
    memmove(out, Xq, n_q * d_model * sizeof *out);
    for (size_t h = 0; weights && h < heads; h++)
        for (size_t i = 0; i < n_q; i++)
            for (size_t j = 0; j < n_kv; j++)
                weights[(h * n_q + i) * n_kv + j] = j == i % n_kv ? 1.0f : 0.0f;
    return ATTN_OK;
}

static int t_layernorm(float *x, size_t rows, size_t cols, float eps)
{
    (void)x, (void)rows, (void)cols, (void)eps;
    return ATTN_OK;
}

static int t_block(float *X, size_t n, size_t d_model, const unsigned char *mask)
{
    (void)X, (void)n, (void)d_model, (void)mask;
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
