/*
 * block_eps_zero_defaulted.c -- a held-out realistic bug (issue 36):
 * tests/solutions/plain_double.c whose transformer block takes eps = 0 for
 * "no eps given" and uses 1e-5 instead (a guard against dividing by zero
 * that attn_layer_norm already has): right wherever the rows' variance is
 * far above 1e-5 (the other tests' rows have variance about 1, eps = 0
 * included), wrong for rows of variance 1e-7 with eps 0, which the first
 * norm then shrinks. No spec was tuned on it: every test but the `domain`
 * ones passes, and block.domain (rows of almost no variance, eps 0) fails
 * (tests/test_catalogue.c, catalogue::heldout_bugs_fail_only_domain).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"

static void row_softmax(float *r, size_t n)
{
    double m = -INFINITY, s = 0.0;
    size_t j;

    for (j = 0; j < n; j++)
        if (r[j] > m)
            m = r[j];
    for (j = 0; j < n; j++)
        s += exp(r[j] - m);
    s = 1.0 / s;
    for (j = 0; j < n; j++)
        r[j] = (float)(exp(r[j] - m) * s);
}

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    if (!x || !rows || !cols)
        return ATTN_EINVAL;
    for (size_t i = 0; i < rows; i++)
        row_softmax(x + i * cols, cols);
    return ATTN_OK;
}

/* One query against n_k keys, strided: the core of both attentions. */
static void attend(const float *q, const float *K, size_t ldk, const float *V, size_t ldv,
                   size_t n_k, size_t d_k, size_t d_v, const unsigned char *mrow,
                   double root_dk, double *w, float *o, float *wout)
{
    double m = -INFINITY, s = 0.0;

    for (size_t j = 0; j < n_k; j++) {
        double acc = 0.0;
        if (mrow && !mrow[j])
            continue;
        for (size_t c = 0; c < d_k; c++)
            acc += (double)q[c] * (double)K[j * ldk + c];
        w[j] = acc / root_dk;
        if (w[j] > m)
            m = w[j];
    }
    for (size_t j = 0; j < n_k; j++) {
        if (m == -INFINITY || (mrow && !mrow[j])) {
            w[j] = 0.0;
            continue;
        }
        w[j] = exp(w[j] - m);
        s += w[j];
    }
    for (size_t c = 0; c < d_v; c++) {
        double acc = 0.0;
        for (size_t j = 0; j < n_k; j++)
            if (w[j] != 0.0)
                acc += w[j] * (double)V[j * ldv + c];
        o[c] = m == -INFINITY ? 0.0f : (float)(acc / s);
    }
    if (wout)
        for (size_t j = 0; j < n_k; j++)
            wout[j] = w[j] != 0.0 ? (float)(w[j] / s) : 0.0f;
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    double *w;

    if (!Q || !K || !V || !out || !n_q || !n_k || !d_k || !d_v)
        return ATTN_EINVAL;
    w = malloc(n_k * sizeof *w);
    if (!w)
        return ATTN_EINVAL;
    for (size_t i = 0; i < n_q; i++)
        attend(Q + i * d_k, K, d_k, V, d_v, n_k, d_k, d_v, mask ? mask + i * n_k : NULL,
               sqrt((double)d_k), w, out + i * d_v, weights ? weights + i * n_k : NULL);
    free(w);
    return ATTN_OK;
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    if (!pe || !n || !d)
        return ATTN_EINVAL;
    for (size_t p = 0; p < n; p++)
        for (size_t i = 0; i < d; i++) {
            double a = (double)p / pow(10000.0, (double)(i - i % 2) / (double)d);
            pe[p * d + i] = (float)(i % 2 ? cos(a) : sin(a));
        }
    return ATTN_OK;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    if (!x || !rows || !cols || !(eps >= 0.0f))
        return ATTN_EINVAL;
    for (size_t i = 0; i < rows; i++) {
        float *r = x + i * cols;
        double mu = 0.0, v = 0.0, sd;
        for (size_t j = 0; j < cols; j++)
            mu += r[j];
        mu /= (double)cols;
        for (size_t j = 0; j < cols; j++)
            v += (r[j] - mu) * (r[j] - mu);
        v /= (double)cols;
        sd = sqrt(v + (double)eps);
        sd = sd > 0.0 ? 1.0 / sd : 0.0;
        for (size_t j = 0; j < cols; j++)
            r[j] = (float)((r[j] - mu) * sd);
    }
    return ATTN_OK;
}

/* C (m x n) = A (m x k) B (k x n), sums in double. */
static void mm(const float *A, const float *B, float *C, size_t m, size_t k, size_t n)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0.0;
            for (size_t t = 0; t < k; t++)
                s += (double)A[i * k + t] * (double)B[t * n + j];
            C[i * n + j] = (float)s;
        }
}

static int mha(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv, size_t d,
               size_t h, const float *Wq, const float *Wk, const float *Wv, const float *Wo,
               const unsigned char *mask, float *out, float *weights)
{
    size_t dh = d / h;
    float *q = malloc(n_q * d * sizeof *q), *k = malloc(n_kv * d * sizeof *k);
    float *v = malloc(n_kv * d * sizeof *v), *cat = malloc(n_q * d * sizeof *cat);
    double *w = malloc(n_kv * sizeof *w);
    int rc = ATTN_EINVAL;

    if (q && k && v && cat && w) {
        mm(Xq, Wq, q, n_q, d, d);
        mm(Xkv, Wk, k, n_kv, d, d);
        mm(Xkv, Wv, v, n_kv, d, d);
        for (size_t hh = 0; hh < h; hh++)
            for (size_t i = 0; i < n_q; i++)
                attend(q + i * d + hh * dh, k + hh * dh, d, v + hh * dh, d, n_kv, dh, dh,
                       mask ? mask + i * n_kv : NULL, sqrt((double)dh), w,
                       cat + i * d + hh * dh,
                       weights ? weights + (hh * n_q + i) * n_kv : NULL);
        mm(cat, Wo, out, n_q, d, d);
        rc = ATTN_OK;
    }
    free(q);
    free(k);
    free(v);
    free(cat);
    free(w);
    return rc;
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    if (!Xq || !Xkv || !Wq || !Wk || !Wv || !Wo || !out || !n_q || !n_kv || !d_model ||
        !heads || d_model % heads)
        return ATTN_EINVAL;
    return mha(Xq, n_q, Xkv, n_kv, d_model, heads, Wq, Wk, Wv, Wo, mask, out, weights);
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    size_t d = d_model;
    float *a, *hid, *f;
    int rc = ATTN_EINVAL;

    if (!X || !Wq || !Wk || !Wv || !Wo || !W1 || !b1 || !W2 || !b2 || !n || !d || !heads ||
        !d_ff || d % heads || !(eps >= 0.0f))
        return ATTN_EINVAL;
    if (eps == 0.0f)
        eps = 1e-5f; /* no eps given: the usual default, never a division by 0 */
    a = malloc(n * d * sizeof *a);
    hid = malloc(n * d_ff * sizeof *hid);
    f = malloc(n * d * sizeof *f);
    if (a && hid && f && mha(X, n, X, n, d, heads, Wq, Wk, Wv, Wo, mask, a, NULL) == ATTN_OK) {
        for (size_t i = 0; i < n * d; i++)
            X[i] = (float)((double)X[i] + a[i]);
        attn_layer_norm(X, n, d, eps);
        mm(X, W1, hid, n, d, d_ff);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < d_ff; j++) {
                double z = (double)hid[i * d_ff + j] + b1[j];
                hid[i * d_ff + j] = z > 0.0 ? (float)z : 0.0f;
            }
        mm(hid, W2, f, n, d_ff, d);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < d; j++)
                X[i * d + j] = (float)((double)X[i * d + j] + ((double)f[i * d + j] + b2[j]));
        attn_layer_norm(X, n, d, eps);
        rc = ATTN_OK;
    }
    free(a);
    free(hid);
    free(f);
    return rc;
}
