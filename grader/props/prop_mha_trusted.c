/*
 * prop_mha_trusted.c -- the trusted double-precision multi-head attention
 * of prop_mha.h, and its usual wrong variants (for diagnosing a failure).
 */
#include "props/prop_mha.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- trusted multi-head attention and its wrong variants --------------- */

/* Where element (i, c) of head h lives in an n x d matrix under `sl`. */
static size_t head_at(enum pmha_slicing sl, size_t n, size_t d, size_t heads,
                      size_t h, size_t i, size_t c)
{
    size_t dh = d / heads;

    if (sl == PMHA_SL_INTERLEAVED)
        return i * d + c * heads + h;
    if (sl == PMHA_SL_ROWS) /* the matrix read as heads x n x dh chunks */
        return h * n * dh + i * dh + c;
    return i * d + h * dh + c;
}

void pmha_matmul_d(const double *X, const float *W, size_t n, size_t k,
                   size_t m, double *Y)
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

static int fwd_alloc(struct fwd *f, const struct pmha_dims *s)
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
static void fwd_query(const struct pmha_dims *s, const struct pmha_variant *va,
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
    pu_softmax_d(f->s, f->p, s->n_kv, mask ? mask + i * s->n_kv : NULL);
    for (size_t c = 0; c < dh; c++) {
        double acc = 0.0;
        for (size_t j = 0; j < s->n_kv; j++)
            acc += f->p[j] * f->v[head_at(va->sl, s->n_kv, d, s->heads, h, j, c)];
        f->cat[head_at(va->cat_sl, s->n_q, d, s->heads, h, i, c)] = acc;
    }
    if (w_row != NULL)
        memcpy(w_row, f->p, s->n_kv * sizeof *w_row);
}

int pmha_forward_variant(const struct pmha_dims *s, const struct pmha_variant *va,
                           const double *xq, const double *xkv,
                           const float *const w[4], const unsigned char *mask,
                           double *out, double *weights)
{
    struct fwd f;
    const size_t d = s->d_model;

    if (fwd_alloc(&f, s) < 0)
        return -1;
    pmha_matmul_d(xq, w[0], s->n_q, d, d, f.q);
    pmha_matmul_d(xkv, w[1], s->n_kv, d, d, f.k);
    pmha_matmul_d(xkv, w[2], s->n_kv, d, d, f.v);
    for (size_t h = 0; h < s->heads; h++)
        for (size_t i = 0; i < s->n_q; i++)
            fwd_query(s, va, &f, mask, h, i,
                      weights ? weights + (h * s->n_q + i) * s->n_kv : NULL);
    if (va->no_wo)
        memcpy(out, f.cat, s->n_q * d * sizeof *out);
    else
        pmha_matmul_d(f.cat, w[3], s->n_q, d, d, out);
    fwd_free(&f);
    return 0;
}

int pmha_forward_d(const struct pmha_dims *s, const double *xq,
                   const double *xkv, const float *wq, const float *wk,
                   const float *wv, const float *wo, const unsigned char *mask,
                   double *out, double *weights)
{
    const float *const w[4] = {wq, wk, wv, wo};
    const struct pmha_variant right = {PMHA_SL_BLOCKS, PMHA_SL_BLOCKS, 0, 0};

    return pmha_forward_variant(s, &right, xq, xkv, w, mask, out, weights);
}

int pmha_fill_mask(unsigned char *m, size_t n_q, size_t n_kv,
                   const char *kind, struct pu_rng *r)
{
    int causal = strcmp(kind, "causal") == 0, bytes = strcmp(kind, "bytes") == 0;

    if (!causal && !bytes && strcmp(kind, "random") != 0 && strcmp(kind, "full_row") != 0)
        return -1;
    for (size_t i = 0; i < n_q; i++)
        for (size_t j = 0; j < n_kv; j++)
            m[i * n_kv + j] = causal ? j <= i
                                     : (j == 0 || pu_rng_uniform(r) < 0.7);
    /* any nonzero byte means visible (attention.h): 255, 2, 128, ... */
    for (size_t i = 0; bytes && i < n_q * n_kv; i++)
        if (m[i])
            m[i] = (unsigned char)(i % 3 == 0 ? 255 : i % 3 == 1 ? 2 : 1 + pu_rng_below(r, 255));
    if (strcmp(kind, "full_row") == 0)
        memset(m, 0, n_kv);
    return 0;
}

