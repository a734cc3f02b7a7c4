/* CATALOGUE
 * bug: the block replaces X by each sublayer's output instead of adding it (no residual connections)
 * names: block.residual_path
 * expect-fail: block.residual_path block.full_vs_trusted block.full_vs_trusted.larger block.matches_reference block.domain
 * expect-withheld: block.post_norm block.permutation_equivariance block.einval
 * expect-withheld: block.inputs_unchanged block.deterministic block.no_leaks block.speed
 *
 * Catalogue entry by diagnosis: reference/attention.c with one function
 * rewritten on top of the student's own attn_multi_head and attn_layer_norm, the FFN in float, carrying the bug above: a second,
 * independent entry of this known mistake for the diagnosis's
 * cross-validation (tests/test_diag.c).
 */
#include "attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- sizes and allocation ---------------------------------------------- */

/* a * b into *out; 0, or -1 when it overflows size_t. */
static int mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

/* malloc of rows * cols elements of `size` bytes; NULL on overflow or OOM. */
static void *alloc_mat(size_t rows, size_t cols, size_t size)
{
    size_t n, bytes;

    if (mul_ok(rows, cols, &n) != 0 || mul_ok(n, size, &bytes) != 0)
        return NULL;
    return malloc(bytes ? bytes : 1);
}

static int eps_ok(float eps)
{
    return !isnan(eps) && eps >= 0.0f;
}

/* ---- dense algebra ----------------------------------------------------- */

/* C (m x n) = A (m x k) . B (k x n), double accumulation. */
static void matmul(const float *A, const float *B, float *C,
                   size_t m, size_t k, size_t n)
{
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (size_t t = 0; t < k; t++)
                acc += (double)A[i * k + t] * B[t * n + j];
            C[i * n + j] = (float)acc;
        }
    }
}

/* x (rows x cols) += bias broadcast over rows. */
static void add_bias(float *x, const float *bias, size_t rows, size_t cols)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            x[i * cols + j] = (float)((double)x[i * cols + j] + bias[j]);
}

/* y += x, elementwise over n values. */
static void add_into(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (float)((double)y[i] + x[i]);
}

static void relu(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0.0f))
            x[i] = 0.0f;
}

/* ---- softmax ----------------------------------------------------------- */

/* One row in place: subtracting the row's maximum keeps exp() <= 1, so
 * logits of +-1e4 neither overflow nor produce Inf/Inf = NaN. */
static void softmax_row(float *x, size_t cols)
{
    double max = x[0], sum = 0.0;

    for (size_t j = 1; j < cols; j++)
        if (x[j] > max)
            max = x[j];
    for (size_t j = 0; j < cols; j++)
        sum += exp((double)x[j] - max);
    for (size_t j = 0; j < cols; j++)
        x[j] = (float)(exp((double)x[j] - max) / sum);
}

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    size_t n;

    if (x == NULL || rows == 0 || cols == 0 || mul_ok(rows, cols, &n) != 0)
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++)
        softmax_row(x + r * cols, cols);
    return ATTN_OK;
}

/* ---- scaled dot-product attention -------------------------------------- */

/*
 * One attention problem over strided matrices, so that multi-head attention
 * can point it at a head's column block without copying. Row i of Q starts
 * at q + i * ldq, and so on. `scratch` holds n_k + d_v doubles.
 */
struct sdpa_job {
    const float *q, *k, *v;
    size_t ldq, ldk, ldv;
    size_t n_q, n_k, d_k, d_v;
    const unsigned char *mask;   /* n_q x n_k, or NULL */
    float *out;                  /* n_q rows of d_v, stride ldo */
    size_t ldo;
    float *weights;              /* n_q x n_k, or NULL */
    double *scratch;
};

static int visible(const struct sdpa_job *j, size_t i, size_t t)
{
    return j->mask == NULL || j->mask[i * j->n_k + t] != 0;
}

/* Weights of query i into w[0..n_k). When every key is hidden, w is all
 * zero (and so is the query's output): never 0/0 = NaN. */
static void sdpa_weights(const struct sdpa_job *j, size_t i, double *w)
{
    const double scale = 1.0 / sqrt((double)j->d_k);
    const float *qi = j->q + i * j->ldq;
    double max = -INFINITY, sum = 0.0;

    for (size_t t = 0; t < j->n_k; t++) {
        const float *kt = j->k + t * j->ldk;
        double dot = 0.0;
        for (size_t c = 0; c < j->d_k; c++)
            dot += (double)qi[c] * kt[c];
        w[t] = dot * scale;
        if (visible(j, i, t) && w[t] > max)
            max = w[t];
    }
    if (max == -INFINITY) {
        memset(w, 0, j->n_k * sizeof *w);
        return;
    }
    for (size_t t = 0; t < j->n_k; t++) {
        w[t] = visible(j, i, t) ? exp(w[t] - max) : 0.0;
        sum += w[t];
    }
    for (size_t t = 0; t < j->n_k; t++)
        w[t] /= sum;
}

/* out[i] = sum_t w[t] * V_t, accumulated in acc (d_v doubles). */
static void sdpa_mix(const struct sdpa_job *j, size_t i, const double *w,
                     double *acc)
{
    float *oi = j->out + i * j->ldo;

    memset(acc, 0, j->d_v * sizeof *acc);
    for (size_t t = 0; t < j->n_k; t++) {
        const float *vt = j->v + t * j->ldv;
        if (w[t] == 0.0)
            continue; /* a hidden key's value must not leak, even if Inf */
        for (size_t c = 0; c < j->d_v; c++)
            acc[c] += w[t] * vt[c];
    }
    for (size_t c = 0; c < j->d_v; c++)
        oi[c] = (float)acc[c];
}

/* Cannot fail: everything it needs is in the job. */
static void sdpa_run(const struct sdpa_job *j)
{
    double *w = j->scratch, *acc = j->scratch + j->n_k;

    for (size_t i = 0; i < j->n_q; i++) {
        sdpa_weights(j, i, w);
        sdpa_mix(j, i, w, acc);
        if (j->weights != NULL)
            for (size_t t = 0; t < j->n_k; t++)
                j->weights[i * j->n_k + t] = (float)w[t];
    }
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    struct sdpa_job j = {
        .q = Q, .k = K, .v = V, .ldq = d_k, .ldk = d_k, .ldv = d_v,
        .n_q = n_q, .n_k = n_k, .d_k = d_k, .d_v = d_v,
        .mask = mask, .out = out, .ldo = d_v, .weights = weights,
    };

    if (Q == NULL || K == NULL || V == NULL || out == NULL ||
        n_q == 0 || n_k == 0 || d_k == 0 || d_v == 0 || n_k > SIZE_MAX - d_v)
        return ATTN_EINVAL;
    j.scratch = alloc_mat(n_k + d_v, 1, sizeof(double));
    if (j.scratch == NULL)
        return ATTN_EINVAL;
    sdpa_run(&j);
    free(j.scratch);
    return ATTN_OK;
}

/* ---- positional encoding ----------------------------------------------- */

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    size_t cells;

    if (pe == NULL || n == 0 || d == 0 || mul_ok(n, d, &cells) != 0)
        return ATTN_EINVAL;
    for (size_t i = 0; i < d; i++) {
        /* columns 2k and 2k+1 share the frequency 1 / 10000^(2k/d) */
        double freq = pow(10000.0, -(double)(2 * (i / 2)) / (double)d);
        for (size_t p = 0; p < n; p++) {
            double angle = (double)p * freq;
            pe[p * d + i] = (float)(i % 2 == 0 ? sin(angle) : cos(angle));
        }
    }
    return ATTN_OK;
}

/* ---- layer normalisation ----------------------------------------------- */

/* Two passes (mean, then the mean squared deviation) avoid the
 * cancellation of E[x^2] - E[x]^2 when the mean is large. */
static void layer_norm_row(float *x, size_t cols, float eps)
{
    double mean = 0.0, var = 0.0, denom;

    for (size_t j = 0; j < cols; j++)
        mean += x[j];
    mean /= (double)cols;
    for (size_t j = 0; j < cols; j++)
        var += ((double)x[j] - mean) * ((double)x[j] - mean);
    var /= (double)cols;
    denom = sqrt(var + eps);
    /* a constant row with eps = 0 has denom 0: its deviations are 0 too */
    for (size_t j = 0; j < cols; j++)
        x[j] = denom > 0.0 ? (float)(((double)x[j] - mean) / denom) : 0.0f;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    size_t n;

    if (x == NULL || rows == 0 || cols == 0 || !eps_ok(eps) ||
        mul_ok(rows, cols, &n) != 0)
        return ATTN_EINVAL;
    for (size_t r = 0; r < rows; r++)
        layer_norm_row(x + r * cols, cols, eps);
    return ATTN_OK;
}

/* ---- multi-head attention ---------------------------------------------- */

/* The temporaries of one multi-head call, allocated all at once. */
struct mha_work {
    float *q, *k, *v;   /* projections: n_q x d, n_kv x d, n_kv x d */
    float *cat;         /* heads' outputs side by side: n_q x d */
    double *scratch;    /* n_kv + d doubles for sdpa_run */
};

static void mha_work_free(struct mha_work *w)
{
    free(w->q);
    free(w->k);
    free(w->v);
    free(w->cat);
    free(w->scratch);
}

/* 0 with every buffer allocated, or -1 with none (w zeroed). */
static int mha_work_alloc(struct mha_work *w, size_t n_q, size_t n_kv, size_t d)
{
    memset(w, 0, sizeof *w);
    if (n_kv > SIZE_MAX - d)
        return -1;
    w->q = alloc_mat(n_q, d, sizeof(float));
    w->k = alloc_mat(n_kv, d, sizeof(float));
    w->v = alloc_mat(n_kv, d, sizeof(float));
    w->cat = alloc_mat(n_q, d, sizeof(float));
    w->scratch = alloc_mat(n_kv + d, 1, sizeof(double));
    if (!w->q || !w->k || !w->v || !w->cat || !w->scratch) {
        mha_work_free(w);
        memset(w, 0, sizeof *w);
        return -1;
    }
    return 0;
}

/* The arguments of attn_multi_head, so helpers can share them. */
struct mha_args {
    const float *xq, *xkv;
    size_t n_q, n_kv, d, heads;
    const float *wq, *wk, *wv, *wo;
    const unsigned char *mask;
    float *out, *weights;
};

static int mha_valid(const struct mha_args *a)
{
    return a->xq && a->xkv && a->wq && a->wk && a->wv && a->wo && a->out &&
           a->n_q && a->n_kv && a->d && a->heads && a->d % a->heads == 0;
}

/* Cannot fail. Head h attends with columns [h*dh, (h+1)*dh) of Q, K, V
 * and writes the same columns of `cat`; then out = cat . Wo. */
static void mha_run(const struct mha_args *a, struct mha_work *w)
{
    const size_t dh = a->d / a->heads;

    matmul(a->xq, a->wq, w->q, a->n_q, a->d, a->d);
    matmul(a->xkv, a->wk, w->k, a->n_kv, a->d, a->d);
    matmul(a->xkv, a->wv, w->v, a->n_kv, a->d, a->d);
    for (size_t h = 0; h < a->heads; h++) {
        struct sdpa_job j = {
            .q = w->q + h * dh, .k = w->k + h * dh, .v = w->v + h * dh,
            .ldq = a->d, .ldk = a->d, .ldv = a->d,
            .n_q = a->n_q, .n_k = a->n_kv, .d_k = dh, .d_v = dh,
            .mask = a->mask, .out = w->cat + h * dh, .ldo = a->d,
            .weights = a->weights ? a->weights + h * a->n_q * a->n_kv : NULL,
            .scratch = w->scratch,
        };
        sdpa_run(&j);
    }
    matmul(w->cat, a->wo, a->out, a->n_q, a->d, a->d);
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    const struct mha_args a = {
        .xq = Xq, .xkv = Xkv, .n_q = n_q, .n_kv = n_kv, .d = d_model,
        .heads = heads, .wq = Wq, .wk = Wk, .wv = Wv, .wo = Wo,
        .mask = mask, .out = out, .weights = weights,
    };
    struct mha_work w;

    if (!mha_valid(&a) || mha_work_alloc(&w, n_q, n_kv, d_model) != 0)
        return ATTN_EINVAL;
    mha_run(&a, &w);
    mha_work_free(&w);
    return ATTN_OK;
}

/* ---- transformer block ------------------------------------------------- */

/* Written on top of the student's own attn_multi_head and attn_layer_norm,
 * the FFN in float with the k loop outside the column loop. */
static void ffn(const float *x, float *y, size_t n, size_t d, size_t d_ff, const float *W1,
                const float *b1, const float *W2, const float *b2, float *hid)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t f = 0; f < d_ff; f++)
            hid[i * d_ff + f] = 0.0f;
        for (size_t k = 0; k < d; k++)
            for (size_t f = 0; f < d_ff; f++)
                hid[i * d_ff + f] += x[i * d + k] * W1[k * d_ff + f];
        add_bias(hid + i * d_ff, b1, 1, d_ff);
        relu(hid + i * d_ff, d_ff);
        for (size_t c = 0; c < d; c++)
            y[i * d + c] = b2[c];
        for (size_t f = 0; f < d_ff; f++)
            for (size_t c = 0; c < d; c++)
                y[i * d + c] += hid[i * d_ff + f] * W2[f * d + c];
    }
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    float *x, *sub, *hid, *ln;
    size_t nd;
    int rc;

    if (!X || !Wq || !Wk || !Wv || !Wo || !W1 || !b1 || !W2 || !b2 || n == 0 ||
        d_model == 0 || heads == 0 || d_ff == 0 || d_model % heads != 0 || !eps_ok(eps))
        return ATTN_EINVAL;
    if (n > SIZE_MAX / d_model || n > SIZE_MAX / d_ff)
        return ATTN_EINVAL;
    nd = n * d_model;
    x = malloc(nd * sizeof *x);
    sub = malloc(nd * sizeof *sub);
    hid = malloc(n * d_ff * sizeof *hid);
    ln = malloc(nd * sizeof *ln);
    if (!x || !sub || !hid || !ln) {
        free(x), free(sub), free(hid), free(ln);
        return ATTN_EINVAL;
    }
    memcpy(x, X, nd * sizeof *x);
    rc = attn_multi_head(x, n, x, n, d_model, heads, Wq, Wk, Wv, Wo, mask, sub, NULL);
    if (rc == ATTN_OK) {
        (void)add_into;
        memcpy(x, sub, nd * sizeof *x);
        rc = attn_layer_norm(x, n, d_model, eps);
    }
    if (rc == ATTN_OK)
        ffn(x, sub, n, d_model, d_ff, W1, b1, W2, b2, hid);
    if (rc == ATTN_OK) {
        memcpy(x, sub, nd * sizeof *x);
        rc = attn_layer_norm(x, n, d_model, eps);
    }
    if (rc == ATTN_OK)
        memcpy(X, x, nd * sizeof *X);
    free(x), free(sub), free(hid), free(ln);
    return rc;
}
