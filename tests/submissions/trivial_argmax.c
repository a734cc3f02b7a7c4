/* CATALOGUE
 * bug: trivial: hard attention: one-hot weights at the largest score (ties shared) instead of softmax; zeros elsewhere
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

/* ---- trivial bodies: hard attention (one-hot at the largest score) ---- */

/* One-hot at the largest visible entry of a row, ties shared equally. */
static void one_hot(float *w, const float *score, size_t n, const unsigned char *vis)
{
    float best = -INFINITY;
    size_t ties = 0;

    for (size_t j = 0; j < n; j++)
        if ((vis == NULL || vis[j]) && score[j] > best)
            best = score[j];
    for (size_t j = 0; j < n; j++)
        ties += (vis == NULL || vis[j]) && score[j] == best;
    for (size_t j = 0; j < n; j++)
        w[j] = (vis == NULL || vis[j]) && score[j] == best ? 1.0f / (float)ties : 0.0f;
}

static int t_softmax(float *x, size_t rows, size_t cols)
{
    float w[4096];

    if (cols > sizeof w / sizeof *w)
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++) {
        one_hot(w, x + r * cols, cols, NULL);
        memcpy(x + r * cols, w, cols * sizeof *w);
    }
    return ATTN_OK;
}

static int t_sdpa(const float *Q, const float *K, const float *V, size_t n_q, size_t n_k,
                  size_t d_k, size_t d_v, const unsigned char *mask, float *out, float *weights)
{
    float s[4096], w[4096];

    if (n_k > sizeof s / sizeof *s)
        return ATTN_EINVAL;
    for (size_t i = 0; i < n_q; i++) {
        for (size_t j = 0; j < n_k; j++) {
            s[j] = 0.0f;
            for (size_t t = 0; t < d_k; t++)
                s[j] += Q[i * d_k + t] * K[j * d_k + t];
        }
        one_hot(w, s, n_k, mask ? mask + i * n_k : NULL);
        for (size_t c = 0; c < d_v; c++) {
            out[i * d_v + c] = 0.0f;
            for (size_t j = 0; j < n_k; j++)
                out[i * d_v + c] += w[j] * V[j * d_v + c];
        }
        if (weights)
            memcpy(weights + i * n_k, w, n_k * sizeof *w);
    }
    return ATTN_OK;
}

static int t_pe(float *pe, size_t n, size_t d)
{
    memset(pe, 0, n * d * sizeof *pe);
    return ATTN_OK;
}

static int t_mha(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv, size_t d_model,
                 size_t heads, const unsigned char *mask, float *out, float *weights)
{
    (void)Xq, (void)Xkv, (void)mask;
    memset(out, 0, n_q * d_model * sizeof *out);
    if (weights)
        memset(weights, 0, heads * n_q * n_kv * sizeof *weights);
    return ATTN_OK;
}

static int t_layernorm(float *x, size_t rows, size_t cols, float eps)
{
    (void)eps;
    memset(x, 0, rows * cols * sizeof *x);
    return ATTN_OK;
}

static int t_block(float *X, size_t n, size_t d_model, const unsigned char *mask)
{
    (void)mask;
    memset(X, 0, n * d_model * sizeof *X);
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
