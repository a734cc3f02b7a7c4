/*
 * trusted.c -- the trusted double-precision math of trusted.h (staff build
 * only; never shipped): softmax, attention, layer norm and its wrong
 * formulas, multi-head attention and its wrong variants, the block and its
 * wrong variants, the positional encoding.
 */
#include "oracle/trusted.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- softmax, attention, layer norm ------------------------------------ */

/* Softmax of n values; entries with mask[j] == 0 get exactly 0, and an
 * all-masked row is all 0. mask may be NULL. */
static void softmax_d(const double *in, double *out, size_t n, const unsigned char *mask)
{
    double mx = -INFINITY, sum = 0.0;

    for (size_t j = 0; j < n; j++)
        if ((!mask || mask[j]) && in[j] > mx)
            mx = in[j];
    for (size_t j = 0; j < n; j++) {
        out[j] = (!mask || mask[j]) ? exp(in[j] - mx) : 0.0;
        sum += out[j];
    }
    for (size_t j = 0; j < n; j++)
        out[j] = sum > 0.0 ? out[j] / sum : 0.0;
}

int trm_sdpa(const float *Q, const float *K, const float *V, size_t n_q, size_t n_k,
             size_t d_k, size_t d_v, const unsigned char *mask, double scale,
             double *out, double *w)
{
    double *s = calloc(n_k ? n_k : 1, sizeof *s), *p = calloc(n_k ? n_k : 1, sizeof *p);

    if (s == NULL || p == NULL) {
        free(s);
        free(p);
        return -1;
    }
    for (size_t i = 0; i < n_q; i++) {
        for (size_t j = 0; j < n_k; j++) {
            double dot = 0.0;
            for (size_t t = 0; t < d_k; t++)
                dot += (double)Q[i * d_k + t] * (double)K[j * d_k + t];
            s[j] = dot * scale;
        }
        softmax_d(s, p, n_k, mask ? mask + i * n_k : NULL);
        for (size_t c = 0; c < d_v; c++) {
            double acc = 0.0;
            for (size_t j = 0; j < n_k; j++)
                acc += p[j] * (double)V[j * d_v + c];
            out[i * d_v + c] = acc;
        }
        if (w != NULL)
            memcpy(w + i * n_k, p, n_k * sizeof *p);
    }
    free(s);
    free(p);
    return 0;
}

/* x's layer norm under formula g, given the row's mean m and population
 * variance var; 0 where the denominator is 0. */
static double ln_value(enum orc_ln g, double x, double m, double var, double eps, size_t n)
{
    double den;

    switch (g) {
    case ORC_LN_SAMPLE:
        den = n > 1 ? sqrt(var * (double)n / (double)(n - 1) + eps) : 0.0;
        break;
    case ORC_LN_EPS_OUTSIDE:
        den = sqrt(var) + eps;
        break;
    case ORC_LN_NO_MEAN:
        return var + eps > 0.0 ? x / sqrt(var + eps) : 0.0;
    case ORC_LN_BY_VAR:
        den = var + eps;
        break;
    default:
        den = var + eps > 0.0 ? sqrt(var + eps) : 0.0;
        break;
    }
    return den > 0.0 ? (x - m) / den : 0.0;
}

int trm_layernorm(enum orc_ln g, const double *in, double *out, size_t cols, double eps)
{
    double mean = 0.0, var = 0.0;

    for (size_t j = 0; j < cols; j++)
        mean += in[j];
    mean /= (double)cols;
    for (size_t j = 0; j < cols; j++)
        var += (in[j] - mean) * (in[j] - mean);
    var /= (double)cols;
    for (size_t j = 0; j < cols; j++)
        out[j] = ln_value(g, in[j], mean, var, eps, cols);
    return 0;
}

/* ---- the positional encoding ------------------------------------------- */

int trm_pe(enum orc_pe g, size_t n, size_t d, double *out)
{
    for (size_t p = 0; p < n; p++)
        for (size_t i = 0; i < d; i++) {
            double ex = g == ORC_PE_EXPONENT_I ? (double)i : (double)(2 * (i / 2));
            double w = pow(10000.0, -ex / (double)d);
            out[p * d + i] = i % 2 == 0 ? sin((double)p * w) : cos((double)p * w);
        }
    return 0;
}

/* ---- multi-head attention and its wrong variants ----------------------- */
/* Where element (i, c) of head h lives in an n x d matrix under `sl`. */
static size_t head_at(enum orc_mha_slicing sl, size_t n, size_t d, size_t heads,
                      size_t h, size_t i, size_t c)
{
    size_t dh = d / heads;

    if (sl == ORC_SL_INTERLEAVED)
        return i * d + c * heads + h;
    if (sl == ORC_SL_ROWS) /* the matrix read as heads x n x dh chunks */
        return h * n * dh + i * dh + c;
    return i * d + h * dh + c;
}

/* Y (n x m) = X (n x k) . W (k x m), accumulated in double. */
static void matmul_d(const double *X, const float *W, size_t n, size_t k, size_t m,
                     double *Y)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            double acc = 0.0;
            for (size_t t = 0; t < k; t++)
                acc += X[i * k + t] * (double)W[t * m + j];
            Y[i * m + j] = acc;
        }
}

struct fwd {
    double *q, *k, *v, *cat, *s, *p;
};

static void fwd_free(struct fwd *f)
{
    free(f->q);
    free(f->k);
    free(f->v);
    free(f->cat);
    free(f->s);
    free(f->p);
}

static int fwd_alloc(struct fwd *f, const struct orc_mha_dims *s)
{
    f->q = calloc(s->n_q * s->d_model, sizeof(double));
    f->k = calloc(s->n_kv * s->d_model, sizeof(double));
    f->v = calloc(s->n_kv * s->d_model, sizeof(double));
    f->cat = calloc(s->n_q * s->d_model, sizeof(double));
    f->s = calloc(s->n_kv, sizeof(double));
    f->p = calloc(s->n_kv, sizeof(double));
    if (f->q && f->k && f->v && f->cat && f->s && f->p)
        return 0;
    fwd_free(f);
    return -1;
}

/* Query i of head h: its weights into f->p (and w_row), its output into
 * f->cat. */
static void fwd_query(const struct orc_mha_dims *s, const struct orc_mha_variant *va,
                      struct fwd *f, const unsigned char *mask, size_t h,
                      size_t i, double *w_row)
{
    const size_t d = s->d_model, dh = d / s->heads;
    const double scale = 1.0 / sqrt((double)(va->scale_by_dmodel ? d : dh));

    for (size_t j = 0; j < s->n_kv; j++) {
        double dot = 0.0;
        for (size_t c = 0; c < dh; c++)
            dot += f->q[head_at(va->sl, s->n_q, d, s->heads, h, i, c)] *
                   f->k[head_at(va->sl, s->n_kv, d, s->heads, h, j, c)];
        f->s[j] = dot * scale;
    }
    softmax_d(f->s, f->p, s->n_kv, mask ? mask + i * s->n_kv : NULL);
    for (size_t c = 0; c < dh; c++) {
        double acc = 0.0;
        for (size_t j = 0; j < s->n_kv; j++)
            acc += f->p[j] * f->v[head_at(va->sl, s->n_kv, d, s->heads, h, j, c)];
        f->cat[head_at(va->cat_sl, s->n_q, d, s->heads, h, i, c)] = acc;
    }
    if (w_row != NULL)
        memcpy(w_row, f->p, s->n_kv * sizeof *w_row);
}

int trm_mha(const struct orc_mha_dims *s, const struct orc_mha_variant *va, const double *xq,
            const double *xkv, const float *const w[4], const unsigned char *mask,
            double *out, double *weights)
{
    struct fwd f;
    const size_t d = s->d_model;

    if (fwd_alloc(&f, s) < 0)
        return -1;
    matmul_d(xq, w[0], s->n_q, d, d, f.q);
    matmul_d(xkv, w[1], s->n_kv, d, d, f.k);
    matmul_d(xkv, w[2], s->n_kv, d, d, f.v);
    for (size_t h = 0; h < s->heads; h++)
        for (size_t i = 0; i < s->n_q; i++)
            fwd_query(s, va, &f, mask, h, i,
                      weights ? weights + (h * s->n_q + i) * s->n_kv : NULL);
    if (va->no_wo)
        memcpy(out, f.cat, s->n_q * d * sizeof *out);
    else
        matmul_d(f.cat, w[3], s->n_q, d, d, out);
    fwd_free(&f);
    return 0;
}


/* ---- the transformer block and its wrong variants ---------------------- */

struct btmp {
    double *y, *a, *h, *ln;
};

static void btmp_free(struct btmp *b)
{
    free(b->y);
    free(b->a);
    free(b->h);
    free(b->ln);
}

static void ln_rows(const double *in, double *out, size_t n, size_t d, double eps)
{
    for (size_t i = 0; i < n; i++)
        trm_layernorm(ORC_LN_RIGHT, in + i * d, out + i * d, d, eps);
}

/* a = FFN(in) = relu(in W1 + b1) W2 + b2, with the variant's omissions. */
static void ffn_d(const struct orc_block *d, const struct orc_bvariant *va,
                  const double *in, struct btmp *b)
{
    const size_t nd = d->n * d->d;

    matmul_d(in, d->w1, d->n, d->d, d->d_ff, b->h);
    for (size_t i = 0; i < d->n * d->d_ff; i++) {
        double z = b->h[i] + (va->no_b1 ? 0.0 : d->b1[i % d->d_ff]);
        b->h[i] = va->no_relu || z > 0.0 ? z : 0.0;
    }
    matmul_d(b->h, d->w2, d->n, d->d_ff, d->d, b->a);
    for (size_t i = 0; i < nd; i++)
        b->a[i] += va->no_b2 ? 0.0 : d->b2[i % d->d];
}

/* y <- LN(y + sub(y)) (post-norm) or y + sub(LN(y)) (pre-norm), where the
 * sublayer's output is already in b->a (computed from the right input). */
static void residual_d(const struct orc_block *d, const struct orc_bvariant *va,
                       struct btmp *b)
{
    for (size_t i = 0; i < d->n * d->d; i++)
        b->y[i] = (va->no_residual ? 0.0 : b->y[i]) + b->a[i];
    if (!va->prenorm)
        ln_rows(b->y, b->y, d->n, d->d, d->eps);
}

int trm_block(const struct orc_block *d, const struct orc_bvariant *va, double *out)
{
    const struct orc_mha_dims s = {d->n, d->n, d->d, d->heads};
    const struct orc_mha_variant right = {ORC_SL_BLOCKS, ORC_SL_BLOCKS, 0, 0};
    const size_t nd = d->n * d->d;
    struct btmp b = {calloc(nd, sizeof(double)), calloc(nd, sizeof(double)),
                     calloc(d->n * d->d_ff, sizeof(double)), calloc(nd, sizeof(double))};
    const double *src;
    int rc = -1;

    if (b.y && b.a && b.h && b.ln) {
        for (size_t i = 0; i < nd; i++)
            b.y[i] = d->x0[i];
        src = va->prenorm ? (ln_rows(b.y, b.ln, d->n, d->d, d->eps), b.ln) : b.y;
        rc = trm_mha(&s, &right, src, src, d->w, d->mask, b.a, NULL);
        residual_d(d, va, &b);
        src = va->prenorm ? (ln_rows(b.y, b.ln, d->n, d->d, d->eps), b.ln) : b.y;
        ffn_d(d, va, src, &b);
        residual_d(d, va, &b);
        memcpy(out, b.y, nd * sizeof *out);
    }
    btmp_free(&b);
    return rc;
}
