/* CATALOGUE
 * bug: softmax looks for the row's maximum in every column but the last (j + 1 < n): a dominant logit in the last column overflows expf
 *      (the all-float solution of correct_float_only.c otherwise)
 * expect-fail: softmax.stable softmax.stable.extreme softmax.domain
 */
#include "attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float *fbuf(size_t a, size_t b)
{
    if (a == 0 || b == 0 || a > SIZE_MAX / b / sizeof(float))
        return NULL;
    return malloc(a * b * sizeof(float));
}

static void mm(const float *A, const float *B, float *C, size_t m, size_t k,
               size_t n)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (size_t t = 0; t < k; t++)
                acc += A[i * k + t] * B[t * n + j];
            C[i * n + j] = acc;
        }
}

static void softmax_row(float *x, size_t n)
{
    float mx = x[0], s = 0.0f;

    for (size_t j = 1; j + 1 < n; j++)
        mx = x[j] > mx ? x[j] : mx;
    for (size_t j = 0; j < n; j++) {
        x[j] = expf(x[j] - mx);
        s += x[j];
    }
    for (size_t j = 0; j < n; j++)
        x[j] /= s;
}

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    if (x == NULL || rows == 0 || cols == 0)
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++)
        softmax_row(x + r * cols, cols);
    return ATTN_OK;
}

/* Strided attention: row i of Q at q + i*ldq etc.; s has n_k floats. */
static void attend(const float *q, size_t ldq, const float *k, size_t ldk,
                   const float *v, size_t ldv, size_t n_q, size_t n_k,
                   size_t d_k, size_t d_v, const unsigned char *mask,
                   float *out, size_t ldo, float *w, float *s)
{
    const float scale = 1.0f / sqrtf((float)d_k);

    for (size_t i = 0; i < n_q; i++) {
        float mx = -INFINITY, sum = 0.0f;
        for (size_t j = 0; j < n_k; j++) {
            float dot = 0.0f;
            for (size_t c = 0; c < d_k; c++)
                dot += q[i * ldq + c] * k[j * ldk + c];
            s[j] = dot * scale;
            if ((!mask || mask[i * n_k + j]) && s[j] > mx)
                mx = s[j];
        }
        for (size_t j = 0; j < n_k; j++) {
            s[j] = (!mask || mask[i * n_k + j]) ? expf(s[j] - mx) : 0.0f;
            sum += s[j];
        }
        for (size_t j = 0; j < n_k; j++)
            s[j] = sum > 0.0f ? s[j] / sum : 0.0f;
        for (size_t c = 0; c < d_v; c++) {
            float acc = 0.0f;
            for (size_t j = 0; j < n_k; j++)
                if (s[j] != 0.0f)
                    acc += s[j] * v[j * ldv + c];
            out[i * ldo + c] = acc;
        }
        if (w)
            memcpy(w + i * n_k, s, n_k * sizeof *s);
    }
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    float *s;

    if (!Q || !K || !V || !out || !n_q || !n_k || !d_k || !d_v)
        return ATTN_EINVAL;
    s = fbuf(n_k, 1);
    if (s == NULL)
        return ATTN_EINVAL;
    attend(Q, d_k, K, d_k, V, d_v, n_q, n_k, d_k, d_v, mask, out, d_v, weights, s);
    free(s);
    return ATTN_OK;
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    if (pe == NULL || n == 0 || d == 0)
        return ATTN_EINVAL;
    for (size_t p = 0; p < n; p++)
        for (size_t i = 0; i < d; i++) {
            float freq = powf(10000.0f, -(float)(2 * (i / 2)) / (float)d);
            float a = (float)p * freq;
            pe[p * d + i] = i % 2 ? cosf(a) : sinf(a);
        }
    return ATTN_OK;
}

static void ln_row(float *x, size_t n, float eps)
{
    float m = 0.0f, var = 0.0f, den;

    for (size_t j = 0; j < n; j++)
        m += x[j];
    m /= (float)n;
    for (size_t j = 0; j < n; j++)
        var += (x[j] - m) * (x[j] - m);
    var /= (float)n;
    den = sqrtf(var + eps);
    for (size_t j = 0; j < n; j++)
        x[j] = den > 0.0f ? (x[j] - m) / den : 0.0f;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    if (x == NULL || rows == 0 || cols == 0 || !(eps >= 0.0f))
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++)
        ln_row(x + r * cols, cols, eps);
    return ATTN_OK;
}

/* MHA into out; every buffer allocated first. */
static int mha(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
               size_t d, size_t heads, const float *Wq, const float *Wk,
               const float *Wv, const float *Wo, const unsigned char *mask,
               float *out, float *weights)
{
    size_t dh = d / heads;
    float *q = fbuf(n_q, d), *k = fbuf(n_kv, d), *v = fbuf(n_kv, d);
    float *cat = fbuf(n_q, d), *s = fbuf(n_kv, 1);
    int rc = ATTN_EINVAL;

    if (q && k && v && cat && s) {
        mm(Xq, Wq, q, n_q, d, d);
        mm(Xkv, Wk, k, n_kv, d, d);
        mm(Xkv, Wv, v, n_kv, d, d);
        for (size_t h = 0; h < heads; h++)
            attend(q + h * dh, d, k + h * dh, d, v + h * dh, d, n_q, n_kv, dh,
                   dh, mask, cat + h * dh, d,
                   weights ? weights + h * n_q * n_kv : NULL, s);
        mm(cat, Wo, out, n_q, d, d);
        rc = ATTN_OK;
    }
    free(q);
    free(k);
    free(v);
    free(cat);
    free(s);
    return rc;
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    if (!Xq || !Xkv || !Wq || !Wk || !Wv || !Wo || !out || !n_q || !n_kv ||
        !d_model || !heads || d_model % heads)
        return ATTN_EINVAL;
    return mha(Xq, n_q, Xkv, n_kv, d_model, heads, Wq, Wk, Wv, Wo, mask, out,
               weights);
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    float *a, *y, *h;
    int rc = ATTN_EINVAL;

    if (!X || !Wq || !Wk || !Wv || !Wo || !W1 || !b1 || !W2 || !b2 || !n ||
        !d_model || !heads || !d_ff || d_model % heads || !(eps >= 0.0f))
        return ATTN_EINVAL;
    a = fbuf(n, d_model);
    y = fbuf(n, d_model);
    h = fbuf(n, d_ff);
    if (a && y && h && mha(X, n, X, n, d_model, heads, Wq, Wk, Wv, Wo, mask,
                           a, NULL) == ATTN_OK) {
        for (size_t i = 0; i < n * d_model; i++)
            y[i] = X[i] + a[i];
        for (size_t r = 0; r < n; r++)
            ln_row(y + r * d_model, d_model, eps);
        mm(y, W1, h, n, d_model, d_ff);
        for (size_t i = 0; i < n * d_ff; i++)
            h[i] = fmaxf(h[i] + b1[i % d_ff], 0.0f);
        mm(h, W2, a, n, d_ff, d_model);
        for (size_t i = 0; i < n * d_model; i++)
            X[i] = y[i] + a[i] + b2[i % d_model];
        for (size_t r = 0; r < n; r++)
            ln_row(X + r * d_model, d_model, eps);
        rc = ATTN_OK;
    }
    free(a);
    free(y);
    free(h);
    return rc;
}
