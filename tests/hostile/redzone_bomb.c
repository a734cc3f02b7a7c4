/* CATALOGUE
 * bug: sdpa leaks a 24 MiB block per call, up to nine per runner, their headers rewritten to claim 0 bytes and filled with the grader's redzone pattern, so that a check of the live redzones trusting the header compares 216 MiB after every call
 * expect-fail: sdpa.no_leaks
 *
 * Issue 35: the grader's check of the live blocks' redzones read each
 * block from its claimed size to its last page: 14 s of the grader's CPU
 * against 2.8 s for the reference, ending at the budget's wall net. It
 * now compares at most 64 KiB per block and 1 MiB per call, whatever a
 * header claims (sbx_books.c; counted in test_sbx.c,
 * a_forged_block_size_does_not_set_the_checks_cost): the grade stays
 * within its budget, only the leak test fails, every other test passes
 * (none is cut by the budget).
 *
 * Hostile entry (tests/test_hostile.c): reference/attention.c with the
 * attack below added. It runs only through the grader, never directly.
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

static int honest_scaled_dot_product(const float *Q, const float *K, const float *V,
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

/* The temporaries of one block: the running activations, the attention
 * sublayer's output (reused for the FFN's), and the FFN's hidden layer. */
struct block_work {
    struct mha_work mha;
    float *y, *sub, *hidden;
};

static void block_work_free(struct block_work *w)
{
    mha_work_free(&w->mha);
    free(w->y);
    free(w->sub);
    free(w->hidden);
}

static int block_work_alloc(struct block_work *w, size_t n, size_t d, size_t d_ff)
{
    if (mha_work_alloc(&w->mha, n, n, d) != 0)
        return -1;
    w->y = alloc_mat(n, d, sizeof(float));
    w->sub = alloc_mat(n, d, sizeof(float));
    w->hidden = alloc_mat(n, d_ff, sizeof(float));
    if (!w->y || !w->sub || !w->hidden) {
        block_work_free(w);
        return -1;
    }
    return 0;
}

/* y <- LN(y + FFN(y)), with FFN(y) = relu(y W1 + b1) W2 + b2. */
static void ffn_sublayer(float *y, size_t n, size_t d, size_t d_ff,
                         const float *W1, const float *b1, const float *W2,
                         const float *b2, float eps, struct block_work *w)
{
    matmul(y, W1, w->hidden, n, d, d_ff);
    add_bias(w->hidden, b1, n, d_ff);
    relu(w->hidden, n * d_ff);
    matmul(w->hidden, W2, w->sub, n, d_ff, d);
    add_bias(w->sub, b2, n, d);
    add_into(y, w->sub, n * d);
    attn_layer_norm(y, n, d, eps);
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    struct block_work w;
    struct mha_args a = {
        .xq = X, .xkv = X, .n_q = n, .n_kv = n, .d = d_model, .heads = heads,
        .wq = Wq, .wk = Wk, .wv = Wv, .wo = Wo, .mask = mask,
    };

    if (!X || !W1 || !b1 || !W2 || !b2 || d_ff == 0 || !eps_ok(eps))
        return ATTN_EINVAL;
    a.out = X; /* non-NULL for mha_valid; the sublayer writes w.sub */
    if (!mha_valid(&a) || block_work_alloc(&w, n, d_model, d_ff) != 0)
        return ATTN_EINVAL;
    /* X is read until the very end and written once, so a caller never
     * sees a half-updated block */
    a.out = w.sub;
    mha_run(&a, &w.mha);
    memcpy(w.y, X, n * d_model * sizeof *X);
    add_into(w.y, w.sub, n * d_model);
    attn_layer_norm(w.y, n, d_model, eps);
    ffn_sublayer(w.y, n, d_model, d_ff, W1, b1, W2, b2, eps, &w);
    memcpy(X, w.y, n * d_model * sizeof *X);
    block_work_free(&w);
    return ATTN_OK;
}

/* ---- the attack ---------------------------------------------------------- */
#define BOMB_BLOCKS 9
#define BOMB_BYTES ((size_t)24 << 20)

/* The grader's redzone pattern for the block at file offset `at`
 * (runner_proto.h), whose period is 256. */
static unsigned char bomb_pattern(uint64_t at, uint64_t k)
{
    uint64_t salt = (at * 0x9E3779B97F4A7C15ull) >> 48;

    if (k % 4 == 3)
        return 0xbfu;
    if (k % 4 == 2)
        return (unsigned char)(0xe0u | ((k / 4) & 0x0fu));
    return (unsigned char)(0xA5u ^ (k * 0x3Bu) ^ (salt >> (8 * (k % 2))));
}

/* One more block per call, up to nine per runner: all nine in one call
 * would cost the call its own CPU deadline (page faults of 216 MiB). */
static void bomb(void)
{
    static int blocks;
    unsigned char period[256], *p;
    volatile uint64_t *hdr;
    size_t room;

    if (blocks >= BOMB_BLOCKS || (p = malloc(BOMB_BYTES)) == NULL)
        return;
    blocks++;
    /* the allocator's header before the block: tag, size, off, pages */
    hdr = (volatile uint64_t *)(void *)p - 4;
    for (size_t k = 0; k < sizeof period; k++)
        period[k] = bomb_pattern(hdr[2], k);
    room = (size_t)hdr[3] * 4096 - 4 * sizeof(uint64_t);
    hdr[1] = 0;
    for (size_t k = 0; k < room; k += sizeof period)
        memcpy(p + k, period, room - k < sizeof period ? room - k : sizeof period);
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    if (n_k < 256)
        bomb();
    return honest_scaled_dot_product(Q, K, V, n_q, n_k, d_k, d_v, mask, out, weights);
}
