/*
 * oracle.h -- an independent, plain double-precision model of the six
 * attn_* functions, for tests/test_reference.c (and any test that wants a
 * second opinion without trusting reference/attention.c).
 *
 * Written deliberately unlike the reference so that a shared mistake is
 * unlikely: everything is double from the first step (no float
 * intermediates), softmax exponentiates without the max shift (fine in
 * double for the small logits tests feed it), masked keys are removed by
 * multiplying by 0/1, the PE frequency is exp(-ln(10000) * 2k/d) instead of
 * pow, layer norm uses one pass over long double sums, and multi-head
 * attention copies each head into its own dense matrices. Slow and simple.
 *
 * Every function is `static inline` (no unused-function warnings for a
 * test that uses only some) and prefixed `orc_`. Functions that allocate
 * return 0, or -1 on allocation failure (outputs then unspecified).
 */
#ifndef TESTS_ORACLE_H
#define TESTS_ORACLE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic random numbers (splitmix64 + Box-Muller) ------------ */

struct orc_rng {
    uint64_t s;
};

static inline uint64_t orc_next(struct orc_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform in (0, 1): never 0, so log() below is finite */
static inline double orc_uniform(struct orc_rng *r)
{
    return ((double)(orc_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static inline double orc_gauss(struct orc_rng *r)
{
    double u1 = orc_uniform(r), u2 = orc_uniform(r);

    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* in [lo, hi] */
static inline size_t orc_range(struct orc_rng *r, size_t lo, size_t hi)
{
    return lo + (size_t)(orc_next(r) % (uint64_t)(hi - lo + 1));
}

/* ---- conversions ------------------------------------------------------- */

/* A new double copy of n floats; NULL on OOM. Caller frees. */
static inline double *orc_widen(const float *x, size_t n)
{
    double *y = malloc((n ? n : 1) * sizeof *y);

    if (y != NULL)
        for (size_t i = 0; i < n; i++)
            y[i] = x[i];
    return y;
}

/* C (m x n) = A (m x k) . B (k x n), all double. */
static inline void orc_matmul(const double *A, const double *B, double *C,
                              size_t m, size_t k, size_t n)
{
    for (size_t i = 0; i < m * n; i++)
        C[i] = 0.0;
    for (size_t i = 0; i < m; i++)
        for (size_t t = 0; t < k; t++)
            for (size_t j = 0; j < n; j++)
                C[i * n + j] += A[i * k + t] * B[t * n + j];
}

/* ---- the six functions ------------------------------------------------- */

/* y = softmax of each row of x (rows x cols), no max shift. */
static inline void orc_softmax(const double *x, size_t rows, size_t cols,
                               double *y)
{
    for (size_t r = 0; r < rows; r++) {
        double z = 0.0;
        for (size_t j = 0; j < cols; j++)
            z += exp(x[r * cols + j]);
        for (size_t j = 0; j < cols; j++)
            y[r * cols + j] = exp(x[r * cols + j]) / z;
    }
}

/*
 * out (n_q x d_v) and w (n_q x n_k, may be NULL) of attention; mask as in
 * attention.h. A fully hidden row gets w = 0 and out = 0.
 */
static inline int orc_sdpa(const double *Q, const double *K, const double *V,
                           size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                           const unsigned char *mask, double *out, double *w)
{
    double *e = malloc(n_q * n_k * sizeof *e);

    if (e == NULL)
        return -1;
    for (size_t i = 0; i < n_q; i++) {
        double z = 0.0;
        for (size_t j = 0; j < n_k; j++) {
            double s = 0.0, keep = (!mask || mask[i * n_k + j]) ? 1.0 : 0.0;
            for (size_t c = 0; c < d_k; c++)
                s += Q[i * d_k + c] * K[j * d_k + c];
            e[i * n_k + j] = keep * exp(s / sqrt((double)d_k));
            z += e[i * n_k + j];
        }
        for (size_t j = 0; j < n_k; j++)
            e[i * n_k + j] = z > 0.0 ? e[i * n_k + j] / z : 0.0;
    }
    orc_matmul(e, V, out, n_q, n_k, d_v);
    if (w != NULL)
        memcpy(w, e, n_q * n_k * sizeof *e);
    free(e);
    return 0;
}

static inline void orc_pe(size_t n, size_t d, double *pe)
{
    for (size_t p = 0; p < n; p++) {
        for (size_t i = 0; i < d; i++) {
            double k2 = (double)(i - i % 2);
            double a = (double)p * exp(-log(10000.0) * k2 / (double)d);
            pe[p * d + i] = (i % 2) ? cos(a) : sin(a);
        }
    }
}

/* In place; one pass, long double sums; constant row with eps 0 -> 0. */
static inline void orc_layer_norm(double *x, size_t rows, size_t cols,
                                  double eps)
{
    for (size_t r = 0; r < rows; r++) {
        double *row = x + r * cols;
        long double s = 0, s2 = 0, mean, var;
        for (size_t j = 0; j < cols; j++) {
            s += row[j];
            s2 += (long double)row[j] * row[j];
        }
        mean = s / cols;
        var = s2 / cols - mean * mean;
        if (var < 0)
            var = 0;
        for (size_t j = 0; j < cols; j++)
            row[j] = (var + eps > 0) ? (double)((row[j] - mean) / sqrtl(var + eps))
                                     : 0.0;
    }
}

/* Copy column block [c0, c0 + w) of M (rows x ld) into a dense rows x w. */
static inline void orc_cols(const double *M, size_t rows, size_t ld,
                            size_t c0, size_t w, double *dst)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < w; c++)
            dst[r * w + c] = M[r * ld + c0 + c];
}

/* Multi-head attention, all double; weights (heads x n_q x n_kv) may be NULL. */
static inline int orc_mha(const double *Xq, size_t n_q, const double *Xkv,
                          size_t n_kv, size_t d, size_t heads,
                          const double *Wq, const double *Wk, const double *Wv,
                          const double *Wo, const unsigned char *mask,
                          double *out, double *weights)
{
    size_t dh = d / heads, big = (n_q > n_kv ? n_q : n_kv) * d;
    double *q = malloc(big * sizeof *q), *k = malloc(big * sizeof *k);
    double *v = malloc(big * sizeof *v), *cat = malloc(big * sizeof *cat);
    double *hq = malloc(big * sizeof *hq), *hk = malloc(big * sizeof *hk);
    double *hv = malloc(big * sizeof *hv), *ho = malloc(big * sizeof *ho);
    int rc = -1;

    if (!q || !k || !v || !cat || !hq || !hk || !hv || !ho)
        goto done;
    orc_matmul(Xq, Wq, q, n_q, d, d);
    orc_matmul(Xkv, Wk, k, n_kv, d, d);
    orc_matmul(Xkv, Wv, v, n_kv, d, d);
    for (size_t h = 0; h < heads; h++) {
        orc_cols(q, n_q, d, h * dh, dh, hq);
        orc_cols(k, n_kv, d, h * dh, dh, hk);
        orc_cols(v, n_kv, d, h * dh, dh, hv);
        if (orc_sdpa(hq, hk, hv, n_q, n_kv, dh, dh, mask, ho,
                     weights ? weights + h * n_q * n_kv : NULL) != 0)
            goto done;
        for (size_t r = 0; r < n_q; r++)
            for (size_t c = 0; c < dh; c++)
                cat[r * d + h * dh + c] = ho[r * dh + c];
    }
    orc_matmul(cat, Wo, out, n_q, d, d);
    rc = 0;
done:
    free(q); free(k); free(v); free(cat);
    free(hq); free(hk); free(hv); free(ho);
    return rc;
}

/* The post-norm block, in place on X (n x d), all double. */
static inline int orc_block(double *X, size_t n, size_t d, size_t heads,
                            size_t d_ff, const double *Wq, const double *Wk,
                            const double *Wv, const double *Wo,
                            const double *W1, const double *b1,
                            const double *W2, const double *b2,
                            const unsigned char *mask, double eps)
{
    double *a = malloc(n * d * sizeof *a), *h = malloc(n * d_ff * sizeof *h);
    int rc = -1;

    if (!a || !h || orc_mha(X, n, X, n, d, heads, Wq, Wk, Wv, Wo, mask, a, NULL))
        goto done;
    for (size_t i = 0; i < n * d; i++)
        X[i] += a[i];
    orc_layer_norm(X, n, d, eps);
    orc_matmul(X, W1, h, n, d, d_ff);
    for (size_t i = 0; i < n * d_ff; i++)
        h[i] = fmax(h[i] + b1[i % d_ff], 0.0);
    orc_matmul(h, W2, a, n, d_ff, d);
    for (size_t i = 0; i < n * d; i++)
        X[i] += a[i] + b2[i % d];
    orc_layer_norm(X, n, d, eps);
    rc = 0;
done:
    free(a);
    free(h);
    return rc;
}

#endif
