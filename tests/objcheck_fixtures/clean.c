/* A correct, reference-like submission: every function written, helpers
 * static, only malloc/free, <math.h> and <string.h>. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"

static int mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > (size_t)-1 / a)
        return 0;
    *out = a * b;
    return 1;
}

static void matmul(const float *A, const float *B, float *C, size_t n, size_t k, size_t m)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            double s = 0.0;
            for (size_t t = 0; t < k; t++)
                s += (double)A[i * k + t] * B[t * m + j];
            C[i * m + j] = (float)s;
        }
}

static void softmax_row(float *x, size_t cols, const unsigned char *mask)
{
    float mx = -INFINITY;
    double sum = 0.0;

    for (size_t j = 0; j < cols; j++)
        if (!mask || mask[j])
            mx = fmaxf(mx, x[j]);
    for (size_t j = 0; j < cols; j++) {
        double v = (!mask || mask[j]) ? exp((double)x[j] - mx) : 0.0;
        x[j] = (float)v;
        sum += v;
    }
    for (size_t j = 0; j < cols; j++)
        x[j] = sum > 0.0 ? (float)(x[j] / sum) : 0.0f;
}

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    if (!x || !rows || !cols)
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++)
        softmax_row(x + r * cols, cols, NULL);
    return ATTN_OK;
}

static int sdpa(const float *Q, size_t ldq, const float *K, size_t ldk, const float *V,
                size_t ldv, size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                const unsigned char *mask, float *out, size_t ldo, float *weights)
{
    float *w = malloc(n_k * sizeof *w);
    float scale = 1.0f / sqrtf((float)d_k);

    if (!w)
        return ATTN_EINVAL;
    for (size_t i = 0; i < n_q; i++) {
        for (size_t j = 0; j < n_k; j++) {
            float s = 0.0f;
            for (size_t t = 0; t < d_k; t++)
                s += Q[i * ldq + t] * K[j * ldk + t];
            w[j] = s * scale;
        }
        softmax_row(w, n_k, mask ? mask + i * n_k : NULL);
        for (size_t c = 0; c < d_v; c++) {
            float s = 0.0f;
            for (size_t j = 0; j < n_k; j++)
                s += w[j] * V[j * ldv + c];
            out[i * ldo + c] = s;
        }
        if (weights)
            memcpy(weights + i * n_k, w, n_k * sizeof *w);
    }
    free(w);
    return ATTN_OK;
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    if (!Q || !K || !V || !out || !n_q || !n_k || !d_k || !d_v)
        return ATTN_EINVAL;
    return sdpa(Q, d_k, K, d_k, V, d_v, n_q, n_k, d_k, d_v, mask, out, d_v, weights);
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    if (!pe || !n || !d)
        return ATTN_EINVAL;
    for (size_t p = 0; p < n; p++)
        for (size_t i = 0; i < d; i++) {
            double a = (double)p / pow(10000.0, (double)(2 * (i / 2)) / (double)d);
            pe[p * d + i] = (float)(i % 2 ? cos(a) : sin(a));
        }
    return ATTN_OK;
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    size_t nq, nk, dh;
    float *Q, *K, *V, *cat;
    int rc = ATTN_OK;

    if (!Xq || !Xkv || !Wq || !Wk || !Wv || !Wo || !out || !n_q || !n_kv || !d_model ||
        !heads || d_model % heads || !mul_ok(n_q, d_model, &nq) || !mul_ok(n_kv, d_model, &nk))
        return ATTN_EINVAL;
    dh = d_model / heads;
    Q = malloc(nq * sizeof *Q);
    K = malloc(nk * sizeof *K);
    V = malloc(nk * sizeof *V);
    cat = calloc(nq, sizeof *cat);
    if (!Q || !K || !V || !cat) {
        rc = ATTN_EINVAL;
        goto done;
    }
    matmul(Xq, Wq, Q, n_q, d_model, d_model);
    matmul(Xkv, Wk, K, n_kv, d_model, d_model);
    matmul(Xkv, Wv, V, n_kv, d_model, d_model);
    for (size_t h = 0; h < heads && rc == ATTN_OK; h++)
        rc = sdpa(Q + h * dh, d_model, K + h * dh, d_model, V + h * dh, d_model, n_q, n_kv,
                  dh, dh, mask, cat + h * dh, d_model, weights ? weights + h * n_q * n_kv : NULL);
    if (rc == ATTN_OK)
        matmul(cat, Wo, out, n_q, d_model, d_model);
done:
    free(Q);
    free(K);
    free(V);
    free(cat);
    return rc;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    if (!x || !rows || !cols || !(eps >= 0.0f))
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        double mean = 0.0, var = 0.0;
        for (size_t c = 0; c < cols; c++)
            mean += row[c];
        mean /= (double)cols;
        for (size_t c = 0; c < cols; c++)
            var += (row[c] - mean) * (row[c] - mean);
        var /= (double)cols;
        for (size_t c = 0; c < cols; c++)
            row[c] = var + eps > 0.0 ? (float)((row[c] - mean) / sqrt(var + eps)) : 0.0f;
    }
    return ATTN_OK;
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    float *a, *h;
    int rc;

    if (!X || !n || !d_model || !heads || !d_ff || d_model % heads || !W1 || !b1 || !W2 ||
        !b2 || !(eps >= 0.0f))
        return ATTN_EINVAL;
    a = malloc(n * d_model * sizeof *a);
    h = malloc(n * d_ff * sizeof *h);
    if (!a || !h) {
        free(a);
        free(h);
        return ATTN_EINVAL;
    }
    rc = attn_multi_head(X, n, X, n, d_model, heads, Wq, Wk, Wv, Wo, mask, a, NULL);
    if (rc == ATTN_OK) {
        for (size_t i = 0; i < n * d_model; i++)
            X[i] += a[i];
        attn_layer_norm(X, n, d_model, eps);
        matmul(X, W1, h, n, d_model, d_ff);
        for (size_t i = 0; i < n * d_ff; i++)
            h[i] = fmaxf(h[i] + b1[i % d_ff], 0.0f);
        matmul(h, W2, a, n, d_ff, d_model);
        for (size_t i = 0; i < n * d_model; i++)
            X[i] += a[i] + b2[i % d_model];
        attn_layer_norm(X, n, d_model, eps);
    }
    free(a);
    free(h);
    return rc;
}
