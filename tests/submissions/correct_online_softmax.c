/* CATALOGUE
 * bug: none -- a correct solution with online (streaming) softmax: running max and rescaling, in softmax and in attention
 * expect-fail:
 */
/*
 * Softmax and attention in one pass over the keys: a running maximum m, a
 * running sum s and a running output o are rescaled by exp(m_old - m_new)
 * whenever the maximum grows (the "online softmax" of flash attention).
 * Layer norm uses Welford's running mean and variance; the positional
 * encoding's frequency is exp(-ln(10000) * 2k/d); the block calls the
 * public attn_multi_head and attn_layer_norm.
 */
#include "attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *alloc(size_t a, size_t b, size_t sz)
{
    if (a == 0 || b == 0 || a > SIZE_MAX / b || a * b > SIZE_MAX / sz)
        return NULL;
    return malloc(a * b * sz);
}

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    if (x == NULL || rows == 0 || cols == 0)
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        double m = -INFINITY, s = 0.0;
        for (size_t j = 0; j < cols; j++) {
            double xj = row[j];
            if (xj > m) {
                s = s * exp(m - xj) + 1.0;
                m = xj;
            } else {
                s += exp(xj - m);
            }
        }
        for (size_t j = 0; j < cols; j++)
            row[j] = (float)(exp(row[j] - m) / s);
    }
    return ATTN_OK;
}

struct view {
    const float *q, *k, *v;
    size_t ldq, ldk, ldv, n_q, n_k, d_k, d_v;
    const unsigned char *mask;
    float *out, *w;
    size_t ldo;
};

/* One query: streaming pass for the output, then the weights from the
 * final max and sum. o holds d_v doubles, sc n_k doubles. */
static void one_query(const struct view *a, size_t i, double *o, double *sc)
{
    double m = -INFINITY, s = 0.0, scale = 1.0 / sqrt((double)a->d_k);

    memset(o, 0, a->d_v * sizeof *o);
    for (size_t j = 0; j < a->n_k; j++) {
        double dot = 0.0, p;
        for (size_t c = 0; c < a->d_k; c++)
            dot += (double)a->q[i * a->ldq + c] * a->k[j * a->ldk + c];
        sc[j] = dot * scale;
        if (a->mask && !a->mask[i * a->n_k + j])
            continue;
        if (sc[j] > m) {
            double f = exp(m - sc[j]);
            s *= f;
            for (size_t c = 0; c < a->d_v; c++)
                o[c] *= f;
            m = sc[j];
        }
        p = exp(sc[j] - m);
        s += p;
        for (size_t c = 0; c < a->d_v; c++)
            o[c] += p * a->v[j * a->ldv + c];
    }
    for (size_t c = 0; c < a->d_v; c++)
        a->out[i * a->ldo + c] = s > 0.0 ? (float)(o[c] / s) : 0.0f;
    for (size_t j = 0; a->w && j < a->n_k; j++)
        a->w[i * a->n_k + j] = (s > 0.0 && (!a->mask || a->mask[i * a->n_k + j]))
                                   ? (float)(exp(sc[j] - m) / s) : 0.0f;
}

static int attend(const struct view *a)
{
    double *o = alloc(a->d_v, 1, sizeof *o), *sc = alloc(a->n_k, 1, sizeof *sc);

    if (!o || !sc) {
        free(o);
        free(sc);
        return ATTN_EINVAL;
    }
    for (size_t i = 0; i < a->n_q; i++)
        one_query(a, i, o, sc);
    free(o);
    free(sc);
    return ATTN_OK;
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    struct view a = {Q, K, V, d_k, d_k, d_v, n_q, n_k, d_k, d_v, mask, out,
                     weights, d_v};

    if (!Q || !K || !V || !out || !n_q || !n_k || !d_k || !d_v)
        return ATTN_EINVAL;
    return attend(&a);
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    if (pe == NULL || n == 0 || d == 0)
        return ATTN_EINVAL;
    for (size_t i = 0; i < d; i++) {
        double w = exp(-log(10000.0) * (double)(i & ~(size_t)1) / (double)d);
        for (size_t p = 0; p < n; p++)
            pe[p * d + i] = (float)((i & 1) ? cos(p * w) : sin(p * w));
    }
    return ATTN_OK;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    if (x == NULL || rows == 0 || cols == 0 || isnan(eps) || eps < 0.0f)
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        double mean = 0.0, m2 = 0.0, sd;
        for (size_t j = 0; j < cols; j++) {
            double delta = row[j] - mean;
            mean += delta / (double)(j + 1);
            m2 += delta * (row[j] - mean);
        }
        sd = sqrt(m2 / (double)cols + eps);
        for (size_t j = 0; j < cols; j++)
            row[j] = sd == 0.0 ? 0.0f : (float)((row[j] - mean) / sd);
    }
    return ATTN_OK;
}

/* C = A . B with double accumulation; A m x k, B k x n. */
static void mm(const float *A, const float *B, float *C, size_t m, size_t k,
               size_t n)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (size_t t = 0; t < k; t++)
                acc += (double)A[i * k + t] * B[t * n + j];
            C[i * n + j] = (float)acc;
        }
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    size_t d = d_model, dh;
    float *q, *k, *v, *cat;
    int rc = ATTN_OK;

    if (!Xq || !Xkv || !Wq || !Wk || !Wv || !Wo || !out || !n_q || !n_kv ||
        !d || !heads || d % heads)
        return ATTN_EINVAL;
    dh = d / heads;
    q = alloc(n_q, d, sizeof *q);
    k = alloc(n_kv, d, sizeof *k);
    v = alloc(n_kv, d, sizeof *v);
    cat = alloc(n_q, d, sizeof *cat);
    if (q && k && v && cat) {
        mm(Xq, Wq, q, n_q, d, d);
        mm(Xkv, Wk, k, n_kv, d, d);
        mm(Xkv, Wv, v, n_kv, d, d);
        for (size_t h = 0; h < heads && rc == ATTN_OK; h++) {
            struct view a = {q + h * dh, k + h * dh, v + h * dh, d, d, d, n_q,
                             n_kv, dh, dh, mask, cat + h * dh,
                             weights ? weights + h * n_q * n_kv : NULL, d};
            rc = attend(&a);
        }
        if (rc == ATTN_OK)
            mm(cat, Wo, out, n_q, d, d);
    } else {
        rc = ATTN_EINVAL;
    }
    free(q);
    free(k);
    free(v);
    free(cat);
    return rc;
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    size_t nd = n * d_model;
    float *a, *y, *h;
    int rc = ATTN_EINVAL;

    if (!X || !W1 || !b1 || !W2 || !b2 || !n || !d_model || !heads || !d_ff ||
        d_model % heads || isnan(eps) || eps < 0.0f || !Wq || !Wk || !Wv || !Wo)
        return ATTN_EINVAL;
    a = alloc(n, d_model, sizeof *a);
    y = alloc(n, d_model, sizeof *y);
    h = alloc(n, d_ff, sizeof *h);
    if (a && y && h &&
        attn_multi_head(X, n, X, n, d_model, heads, Wq, Wk, Wv, Wo, mask, a,
                        NULL) == ATTN_OK) {
        for (size_t i = 0; i < nd; i++)
            y[i] = X[i] + a[i];
        attn_layer_norm(y, n, d_model, eps);
        mm(y, W1, h, n, d_model, d_ff);
        for (size_t i = 0; i < n * d_ff; i++)
            h[i] = h[i] + b1[i % d_ff] > 0.0f ? h[i] + b1[i % d_ff] : 0.0f;
        mm(h, W2, a, n, d_ff, d_model);
        for (size_t i = 0; i < nd; i++)
            y[i] += a[i] + b2[i % d_model];
        attn_layer_norm(y, n, d_model, eps);
        memcpy(X, y, nd * sizeof *X);
        rc = ATTN_OK;
    }
    free(a);
    free(y);
    free(h);
    return rc;
}
