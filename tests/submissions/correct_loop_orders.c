/* CATALOGUE
 * bug: none -- a correct solution with other loop orders: i-k-j products, K transposed first, one-pass E[x^2]-E[x]^2 layer norm in double, multi-head via per-head copies
 * expect-fail:
 */
/*
 * Products run i-k-j (a row of B at a time, accumulated in a double row);
 * attention transposes K once so that the logits are a plain product;
 * layer norm takes E[x^2] - E[x]^2 in one pass (double, clamped at 0);
 * multi-head attention copies each head's columns into dense matrices and
 * calls attn_scaled_dot_product; the positional encoding runs position by
 * position with the frequencies computed once.
 */
#include "attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *mk(size_t a, size_t b, size_t sz)
{
    if (a == 0 || b == 0 || a > SIZE_MAX / b || a * b > SIZE_MAX / sz)
        return NULL;
    return calloc(a * b, sz);
}

/* C (m x n) = A (m x k) . B (k x n), i-k-j order; acc holds n doubles. */
static void mm(const float *A, const float *B, float *C, size_t m, size_t k,
               size_t n, double *acc)
{
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++)
            acc[j] = 0.0;
        for (size_t t = 0; t < k; t++) {
            double a = A[i * k + t];
            for (size_t j = 0; j < n; j++)
                acc[j] += a * B[t * n + j];
        }
        for (size_t j = 0; j < n; j++)
            C[i * n + j] = (float)acc[j];
    }
}

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    if (x == NULL || rows == 0 || cols == 0)
        return ATTN_EINVAL;
    for (size_t r = rows; r-- > 0;) {
        float *row = x + r * cols, mx = row[cols - 1];
        double sum = 0.0;
        for (size_t j = cols; j-- > 0;)
            if (row[j] > mx)
                mx = row[j];
        for (size_t j = cols; j-- > 0;)
            sum += exp((double)row[j] - mx);
        for (size_t j = 0; j < cols; j++)
            row[j] = (float)(exp((double)row[j] - mx) / sum);
    }
    return ATTN_OK;
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    float *kt, *s;
    double *acc;
    size_t big;

    if (!Q || !K || !V || !out || !n_q || !n_k || !d_k || !d_v)
        return ATTN_EINVAL;
    big = n_k > d_v ? n_k : d_v;
    kt = mk(d_k, n_k, sizeof *kt);
    s = mk(n_q, n_k, sizeof *s);
    acc = mk(big, 1, sizeof *acc);
    if (!kt || !s || !acc) {
        free(kt);
        free(s);
        free(acc);
        return ATTN_EINVAL;
    }
    for (size_t j = 0; j < n_k; j++)
        for (size_t c = 0; c < d_k; c++)
            kt[c * n_k + j] = K[j * d_k + c];
    mm(Q, kt, s, n_q, d_k, n_k, acc);
    for (size_t i = 0; i < n_q; i++) {
        float *row = s + i * n_k, mx = -INFINITY;
        double sum = 0.0;
        for (size_t j = 0; j < n_k; j++) {
            row[j] = (float)((double)row[j] / sqrt((double)d_k));
            if ((!mask || mask[i * n_k + j]) && row[j] > mx)
                mx = row[j];
        }
        for (size_t j = 0; j < n_k; j++) {
            acc[j] = (!mask || mask[i * n_k + j]) ? exp((double)row[j] - mx) : 0.0;
            sum += acc[j];
        }
        for (size_t j = 0; j < n_k; j++)
            row[j] = sum > 0.0 ? (float)(acc[j] / sum) : 0.0f;
    }
    mm(s, V, out, n_q, n_k, d_v, acc);
    if (weights)
        memcpy(weights, s, n_q * n_k * sizeof *s);
    free(kt);
    free(s);
    free(acc);
    return ATTN_OK;
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    double *freq;

    if (pe == NULL || n == 0 || d == 0)
        return ATTN_EINVAL;
    freq = mk(d, 1, sizeof *freq);
    if (freq == NULL)
        return ATTN_EINVAL;
    for (size_t i = 0; i < d; i += 2) {
        freq[i] = 1.0 / pow(10000.0, (double)i / (double)d);
        if (i + 1 < d)
            freq[i + 1] = freq[i];
    }
    for (size_t p = 0; p < n; p++)
        for (size_t i = 0; i < d; i++)
            pe[p * d + i] = (float)(i % 2 ? cos(p * freq[i]) : sin(p * freq[i]));
    free(freq);
    return ATTN_OK;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    if (x == NULL || rows == 0 || cols == 0 || !(eps >= 0.0f))
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        double s = 0.0, s2 = 0.0, mean, var;
        for (size_t j = 0; j < cols; j++) {
            s += row[j];
            s2 += (double)row[j] * row[j];
        }
        mean = s / (double)cols;
        var = s2 / (double)cols - mean * mean;
        if (var < 0.0)
            var = 0.0;
        for (size_t j = 0; j < cols; j++)
            row[j] = var + eps > 0.0
                         ? (float)((row[j] - mean) / sqrt(var + (double)eps))
                         : 0.0f;
    }
    return ATTN_OK;
}

/* The per-head scratch: dense copies of one head's Q, K, V and output. */
struct heads {
    float *q, *k, *v, *hq, *hk, *hv, *ho, *cat;
    double *acc;
};

static void heads_free(struct heads *w)
{
    free(w->q); free(w->k); free(w->v); free(w->hq); free(w->hk);
    free(w->hv); free(w->ho); free(w->cat); free(w->acc);
}

static int heads_alloc(struct heads *w, size_t n_q, size_t n_kv, size_t d)
{
    w->q = mk(n_q, d, sizeof(float));
    w->k = mk(n_kv, d, sizeof(float));
    w->v = mk(n_kv, d, sizeof(float));
    w->hq = mk(n_q, d, sizeof(float));
    w->hk = mk(n_kv, d, sizeof(float));
    w->hv = mk(n_kv, d, sizeof(float));
    w->ho = mk(n_q, d, sizeof(float));
    w->cat = mk(n_q, d, sizeof(float));
    w->acc = mk(d, 1, sizeof(double));
    return w->q && w->k && w->v && w->hq && w->hk && w->hv && w->ho &&
           w->cat && w->acc ? 0 : -1;
}

static void take_cols(const float *M, size_t rows, size_t d, size_t c0,
                      size_t dh, float *dst)
{
    for (size_t r = 0; r < rows; r++)
        memcpy(dst + r * dh, M + r * d + c0, dh * sizeof *dst);
}

static int mha(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
               size_t d, size_t heads, const float *const W[4],
               const unsigned char *mask, float *out, float *weights)
{
    size_t dh = d / heads;
    struct heads w;
    int rc = ATTN_OK;

    if (heads_alloc(&w, n_q, n_kv, d) < 0) {
        heads_free(&w);
        return ATTN_EINVAL;
    }
    mm(Xq, W[0], w.q, n_q, d, d, w.acc);
    mm(Xkv, W[1], w.k, n_kv, d, d, w.acc);
    mm(Xkv, W[2], w.v, n_kv, d, d, w.acc);
    for (size_t h = 0; h < heads && rc == ATTN_OK; h++) {
        take_cols(w.q, n_q, d, h * dh, dh, w.hq);
        take_cols(w.k, n_kv, d, h * dh, dh, w.hk);
        take_cols(w.v, n_kv, d, h * dh, dh, w.hv);
        rc = attn_scaled_dot_product(w.hq, w.hk, w.hv, n_q, n_kv, dh, dh, mask,
                                     w.ho, weights ? weights + h * n_q * n_kv : NULL);
        for (size_t r = 0; r < n_q; r++)
            memcpy(w.cat + r * d + h * dh, w.ho + r * dh, dh * sizeof(float));
    }
    if (rc == ATTN_OK)
        mm(w.cat, W[3], out, n_q, d, d, w.acc);
    heads_free(&w);
    return rc;
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    const float *const W[4] = {Wq, Wk, Wv, Wo};

    if (!Xq || !Xkv || !Wq || !Wk || !Wv || !Wo || !out || !n_q || !n_kv ||
        !d_model || !heads || d_model % heads)
        return ATTN_EINVAL;
    return mha(Xq, n_q, Xkv, n_kv, d_model, heads, W, mask, out, weights);
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    const float *const W[4] = {Wq, Wk, Wv, Wo};
    size_t d = d_model, big = d > d_ff ? d : d_ff;
    float *a, *y, *h;
    double *acc;
    int rc = ATTN_EINVAL;

    if (!X || !Wq || !Wk || !Wv || !Wo || !W1 || !b1 || !W2 || !b2 || !n ||
        !d || !heads || !d_ff || d % heads || !(eps >= 0.0f))
        return ATTN_EINVAL;
    a = mk(n, d, sizeof *a);
    y = mk(n, d, sizeof *y);
    h = mk(n, d_ff, sizeof *h);
    acc = mk(big, 1, sizeof *acc);
    if (a && y && h && acc && mha(X, n, X, n, d, heads, W, mask, a, NULL) == ATTN_OK) {
        for (size_t i = 0; i < n * d; i++)
            y[i] = X[i] + a[i];
        attn_layer_norm(y, n, d, eps);
        mm(y, W1, h, n, d, d_ff, acc);
        for (size_t r = 0; r < n; r++)
            for (size_t j = 0; j < d_ff; j++)
                h[r * d_ff + j] = fmaxf(h[r * d_ff + j] + b1[j], 0.0f);
        mm(h, W2, a, n, d_ff, d, acc);
        for (size_t r = 0; r < n; r++)
            for (size_t j = 0; j < d; j++)
                y[r * d + j] += a[r * d + j] + b2[j];
        attn_layer_norm(y, n, d, eps);
        memcpy(X, y, n * d * sizeof *X);
        rc = ATTN_OK;
    }
    free(a);
    free(y);
    free(h);
    free(acc);
    return rc;
}
