/* CATALOGUE
 * bug: trivial: pseudo-random numbers: weight rows normalised, layer norm, block and multi-head rows of mean 0 and variance 1
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

/* ---- trivial bodies: pseudo-random numbers, normalised where it shows ----
 *
 * The generator restarts at the same seed on every call, so two calls give
 * the same numbers (as a cheat would arrange). */

struct rng {
    unsigned long s;
};

static float uniform01(struct rng *g)
{
    g->s = g->s * 6364136223846793005UL + 1442695040888963407UL;
    return (float)((g->s >> 40) & 0xFFFFFF) / 16777216.0f + 1e-3f;
}

/* A random distribution over the visible entries of a row (0 elsewhere). */
static void random_weights(struct rng *g, float *w, size_t n, const unsigned char *vis)
{
    float sum = 0.0f;

    for (size_t j = 0; j < n; j++) {
        w[j] = vis == NULL || vis[j] ? uniform01(g) : 0.0f;
        sum += w[j];
    }
    for (size_t j = 0; j < n; j++)
        w[j] = sum > 0.0f ? w[j] / sum : 0.0f;
}

/* Random numbers with mean 0 and variance 1. */
static void random_standard(struct rng *g, float *x, size_t n)
{
    double mean = 0.0, var = 0.0;

    for (size_t j = 0; j < n; j++)
        mean += (x[j] = uniform01(g) - 0.5f);
    mean /= (double)n;
    for (size_t j = 0; j < n; j++)
        var += (x[j] - mean) * (x[j] - mean);
    var /= (double)n;
    for (size_t j = 0; j < n; j++)
        x[j] = var > 0.0 ? (float)((x[j] - mean) / sqrt(var)) : 0.0f;
}

static int t_softmax(float *x, size_t rows, size_t cols)
{
    struct rng g = {1};

    for (size_t r = 0; r < rows; r++)
        random_weights(&g, x + r * cols, cols, NULL);
    return ATTN_OK;
}

/* Random weights over the visible keys, and the output they give. */
static int t_sdpa(const float *Q, const float *K, const float *V, size_t n_q, size_t n_k,
                  size_t d_k, size_t d_v, const unsigned char *mask, float *out, float *weights)
{
    struct rng g = {2};
    float w[4096];

    (void)Q, (void)K, (void)d_k;
    if (n_k > sizeof w / sizeof *w)
        return ATTN_EINVAL;
    for (size_t i = 0; i < n_q; i++) {
        random_weights(&g, w, n_k, mask ? mask + i * n_k : NULL);
        for (size_t c = 0; c < d_v; c++) {
            float acc = 0.0f;
            for (size_t j = 0; j < n_k; j++)
                acc += w[j] * V[j * d_v + c];
            out[i * d_v + c] = acc;
        }
        if (weights)
            memcpy(weights + i * n_k, w, n_k * sizeof *w);
    }
    return ATTN_OK;
}

static int t_pe(float *pe, size_t n, size_t d)
{
    struct rng g = {3};

    for (size_t i = 0; i < n * d; i++)
        pe[i] = 2.0f * uniform01(&g) - 1.0f;
    return ATTN_OK;
}

static int t_mha(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv, size_t d_model,
                 size_t heads, const unsigned char *mask, float *out, float *weights)
{
    struct rng g = {4};

    (void)Xq, (void)Xkv;
    for (size_t i = 0; i < n_q; i++)
        random_standard(&g, out + i * d_model, d_model);
    for (size_t h = 0; weights && h < heads; h++)
        for (size_t i = 0; i < n_q; i++)
            random_weights(&g, weights + (h * n_q + i) * n_kv, n_kv,
                           mask ? mask + i * n_kv : NULL);
    return ATTN_OK;
}

static int t_layernorm(float *x, size_t rows, size_t cols, float eps)
{
    struct rng g = {5};

    (void)eps;
    for (size_t r = 0; r < rows; r++)
        random_standard(&g, x + r * cols, cols);
    return ATTN_OK;
}

static int t_block(float *X, size_t n, size_t d_model, const unsigned char *mask)
{
    struct rng g = {6};

    (void)mask;
    for (size_t r = 0; r < n; r++)
        random_standard(&g, X + r * d_model, d_model);
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
