/*
 * prop_domain_mha.c -- the `domain` rows of multi-head attention and the
 * transformer block (prop_domain.h): their families, how a draw is made,
 * and how far a correct float implementation may err on it.
 *
 * The bounds are worst-case rounding analysis (Higham's gamma_n = n u for
 * a float sum of n products, with |x||y| in place of x y), followed stage
 * by stage through the computation with the magnitudes of this very draw;
 * every quantity they need is a product, a maximum or a square root of the
 * draw's inputs and of the reference's outputs (the student build ships
 * this file too and holds no exp). A correct float implementation lies
 * within the bound of the exact result, and so does the reference (double
 * sums, its intermediates rounded to float once each), so the two differ
 * by at most twice the bound.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_domain.h"

#define U PDOM_U

static const char *const dm_masks[] = {"none", "causal", "random", "bytes", "full_row"};

/* ---- shared arithmetic ----------------------------------------------------- */

/* C (n x m) = |A| |B|, A (n x k) and B (k x m) float, in double. */
static void abs_mm(const float *A, const float *B, size_t n, size_t k, size_t m, double *C)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            double acc = 0.0;
            for (size_t t = 0; t < k; t++)
                acc += fabs((double)A[i * k + t]) * fabs((double)B[t * m + j]);
            C[i * m + j] = acc;
        }
}

/* The largest |Q_i . K_j| / sqrt(d_head) over every head, query and key, Q
 * = Xq Wq and K = Xkv Wk: the size of the scores a draw makes (0 when out
 * of memory: the draw is then left at its own scale). */
static double max_score(const float *xq, size_t n_q, const float *xkv, size_t n_kv,
                        const float *wq, const float *wk, size_t d, size_t heads)
{
    double *q = calloc(n_q * d, sizeof *q), *kk = calloc(n_kv * d, sizeof *kk), m = 0.0;
    const size_t dh = d / heads;

    if (q == NULL || kk == NULL) {
        free(q);
        free(kk);
        return 0.0;
    }
    pu_matmul_d(xq, wq, n_q, d, d, q);
    pu_matmul_d(xkv, wk, n_kv, d, d, kk);
    for (size_t g = 0; g < heads; g++)
        for (size_t i = 0; i < n_q; i++)
            for (size_t j = 0; j < n_kv; j++) {
                double s = 0.0;
                for (size_t t = g * dh; t < (g + 1) * dh; t++)
                    s += q[i * d + t] * kk[j * d + t];
                m = fmax(m, fabs(s) / sqrt((double)dh));
            }
    free(q);
    free(kk);
    return m;
}

static void scale_floats(float *x, size_t n, double c)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(x[i] * c);
}

/* A multi-head call as its bound reads it. */
struct mha_view {
    const float *xq, *xkv, *w[4];
    const unsigned char *mask;
    size_t n_q, n_kv, d, heads;
    const float *weights;       /* the reference's, heads x n_q x n_kv */
};

static int visible(const struct mha_view *m, size_t i, size_t j)
{
    return m->mask == NULL || m->mask[i * m->n_kv + j] != 0;
}

/* A multi-head call's projections in double, exact (q, k, v) and as the
 * bound of their float rounding (aq = |Xq||Wq|, ak, av): n x d each. */
struct mha_proj {
    double *q, *k, *v, *aq, *ak, *av;
};

/*
 * Head g, query i, as a float implementation computes it, against exact.
 * Q, K, V are float sums of d products: |dQ| <= (d + 1) u AQ, AQ =
 * |Xq||Wq| (AK, AV likewise). A score sums d_head products of those and is
 * scaled: it errs by delta <= ((d + 1) u sum_t (AQ_it |K_jt| + |Q_it|
 * AK_jt) + (d_head + 3) u sum_t |Q_it K_jt|) / sqrt(d_head) over the
 * visible keys. Softmax moves a log-weight by at most twice its logits'
 * largest error, so every weight errs relatively by <= e^(2 delta) - 1 <=
 * x + x^2 (x = 2 delta <= 1.5; beyond, the weights are anything and a mix
 * errs by <= 2 max|V|), plus 2 (n_kv + 2) u for exp, the sum and the
 * division. A head's output sum_j w_j V_jt then errs by <= rel (WV_t + (d +
 * 1) u WA_t) + (3 n_kv + 6) u WV_t + (d + 1) u WA_t, WV_t = sum_j w_j
 * |V_jt| and WA_t its AV twin; out = cat Wo carries that through |Wo| and
 * adds (d + 1) u sum_t |cat_it| |Wo_tc| of its own, |cat_it| <= WV_t. Into
 * c (n_q x d: a column's error before Wo, with the product's own) and ew
 * (heads x n_q: a weight's).
 */
static void head_error(const struct mha_view *m, const struct mha_proj *p, size_t g,
                       size_t i, double *c, double *ew)
{
    const size_t d = m->d, dh = d / m->heads;
    const float *w = m->weights + (g * m->n_q + i) * m->n_kv;
    double delta = 0.0, x, rel;

    for (size_t j = 0; j < m->n_kv; j++) {
        double cross = 0.0, own = 0.0;
        for (size_t t = g * dh; t < (g + 1) * dh && visible(m, i, j); t++) {
            cross += p->aq[i * d + t] * fabs(p->k[j * d + t]) +
                     fabs(p->q[i * d + t]) * p->ak[j * d + t];
            own += fabs(p->q[i * d + t] * p->k[j * d + t]);
        }
        delta = fmax(delta, (double)(d + 1) * U * cross + (double)(dh + 3) * U * own);
    }
    x = 2.0 * delta / sqrt((double)dh);
    rel = x <= 1.5 ? x + x * x : HUGE_VAL;
    ew[g * m->n_q + i] = fmin(rel, 1.0) + 2.0 * (double)(m->n_kv + 2) * U;
    for (size_t t = g * dh; t < (g + 1) * dh; t++) {
        double wv = 0.0, wa = 0.0, vm = 0.0;
        for (size_t j = 0; j < m->n_kv; j++) {
            wv += fabs((double)w[j]) * fabs(p->v[j * d + t]);
            wa += fabs((double)w[j]) * p->av[j * d + t];
            if (visible(m, i, j))
                vm = fmax(vm, fabs(p->v[j * d + t]) + (double)(d + 1) * U * p->av[j * d + t]);
        }
        c[i * d + t] = (rel <= 2.0 ? fmin(rel * (wv + (double)(d + 1) * U * wa), 2.0 * vm)
                                   : 2.0 * vm) +
                       (double)(3 * m->n_kv + d + 10) * U * wv + (double)(d + 2) * U * wa;
    }
}

/* The bound of a float implementation's out (eout, n_q x d) and weights
 * (ew, one per head and query) on m's call against exact: 0, or -1 when
 * out of memory. */
static int mha_error(const struct mha_view *m, double *eout, double *ew)
{
    const size_t d = m->d, nq = m->n_q * d, nkv = m->n_kv * d;
    double *buf = calloc(3 * nq + 4 * nkv, sizeof *buf), *c;
    struct mha_proj p;

    if (buf == NULL)
        return -1;
    p.q = buf, p.aq = p.q + nq, p.k = p.aq + nq, p.ak = p.k + nkv;
    p.v = p.ak + nkv, p.av = p.v + nkv, c = p.av + nkv;
    pu_matmul_d(m->xq, m->w[0], m->n_q, d, d, p.q);
    pu_matmul_d(m->xkv, m->w[1], m->n_kv, d, d, p.k);
    pu_matmul_d(m->xkv, m->w[2], m->n_kv, d, d, p.v);
    abs_mm(m->xq, m->w[0], m->n_q, d, d, p.aq);
    abs_mm(m->xkv, m->w[1], m->n_kv, d, d, p.ak);
    abs_mm(m->xkv, m->w[2], m->n_kv, d, d, p.av);
    for (size_t g = 0; g < m->heads; g++)
        for (size_t i = 0; i < m->n_q; i++)
            head_error(m, &p, g, i, c, ew);
    for (size_t i = 0; i < m->n_q; i++)
        for (size_t col = 0; col < d; col++) {
            double e = 0.0;
            for (size_t t = 0; t < d; t++)
                e += c[i * d + t] * fabs((double)m->w[3][t * d + col]);
            eout[i * d + col] = e;
        }
    free(buf);
    return 0;
}

/* ---- multi-head attention -------------------------------------------------- */

static const char *const mha_family[PDOM_FAMILIES] = {
    "any small shape, heads and mask, self- or cross-attention",
    "many more keys than queries", "many more queries than keys",
    "heads = 1 or heads = d_model (d_head = 1), odd d_model",
    "self-attention through one pointer, near-identical tokens, scores up to +-1e4",
    "hidden keys holding the largest scores, byte and full-row masks",
};

struct mha_shape {
    size_t n_q, n_kv, heads, dh;
    const char *mask;
    int self;
};

static void mha_shape_of(int fam, size_t max, struct pu_rng *r, struct mha_shape *s)
{
    s->n_q = pdom_between(r, 1, 16), s->n_kv = pdom_between(r, 1, 16);
    s->heads = pdom_between(r, 1, 4), s->dh = pdom_between(r, 1, 16);
    s->mask = dm_masks[pu_rng_below(r, 5)];
    s->self = pu_rng_below(r, 2) == 0;
    if (fam == 1)
        s->n_q = pdom_between(r, 1, 4), s->n_kv = pdom_between(r, max / 4 + 1, max),
        s->dh = pdom_between(r, 1, 8), s->self = 0;
    else if (fam == 2)
        s->n_q = pdom_between(r, max / 4 + 1, max), s->n_kv = pdom_between(r, 1, 4),
        s->dh = pdom_between(r, 1, 8), s->self = 0;
    else if (fam == 3 && pu_rng_below(r, 2))
        s->heads = 1, s->dh = 2 * pdom_between(r, 0, 16) + 1;
    else if (fam == 3)
        s->heads = 2 * pdom_between(r, 0, 16) + 1, s->dh = 1;
    else if (fam == 4)
        s->self = 1, s->mask = pu_rng_below(r, 2) ? "causal" : "none";
    else if (fam == 5)
        s->self = 0, s->mask = pu_rng_below(r, 2) ? "bytes" : "full_row";
}

/* Tokens x0 + 0.01 g (x0 the first row), scaled so that the largest score
 * is S in [1e2, 1e4]: every score of a head is then about as large, of one
 * sign -- all very negative in some heads, all very positive in others. */
static void mha_big_scores(struct pc_call *k, struct pu_rng *r)
{
    float *x = k->in[0];
    double m, target = pdom_log_uniform(r, 2, 4);

    for (size_t i = 1; i < k->n_q; i++)
        for (size_t t = 0; t < k->d_model; t++)
            x[i * k->d_model + t] = (float)(x[t] + 0.01 * x[i * k->d_model + t]);
    m = max_score(x, k->n_q, x, k->n_q, k->in[2], k->in[3], k->d_model, k->heads);
    if (m > 0)
        scale_floats(x, k->in_len[0], sqrt(target / m));
}

/* Each key hidden from every query with p = 0.4 (one kept visible), its Xkv
 * row scaled by 300 to 3000: its scores, hundreds to thousands, are far
 * the largest (in the heads where they are positive), and its values too. */
static void mha_hidden_keys(struct pc_call *k, struct pu_rng *r)
{
    const double c = pdom_log_uniform(r, 2.5, 3.5);
    const size_t keep = pu_rng_below(r, k->n_k);

    for (size_t j = 0; j < k->n_k; j++) {
        if (j == keep || pu_rng_uniform(r) >= 0.4)
            continue;
        for (size_t i = 0; i < k->n_q; i++)
            k->mask[i * k->n_k + j] = 0;
        scale_floats(k->in[1] + j * k->d_model, k->d_model, c);
    }
}

static int mha_draw(const struct prop_ctx *x, int fam, size_t max, int shrink,
                    struct pu_rng *r, struct pc_call *k)
{
    struct pdom_case d = {0};
    struct mha_shape s;
    size_t heads, n_q;

    mha_shape_of(fam, max, r, &s);
    heads = pdom_shrunk(s.heads, shrink), n_q = pdom_shrunk(s.n_q, shrink);
    pdom_num(&d, "n_q", (double)n_q);
    pdom_num(&d, "n_kv", (double)(s.self ? n_q : pdom_shrunk(s.n_kv, shrink)));
    pdom_num(&d, "d_model", (double)(heads * pdom_shrunk(s.dh, shrink)));
    pdom_num(&d, "heads", (double)heads);
    pdom_str(&d, "mask", s.mask);
    pdom_num(&d, "seed", (double)pu_rng_below(r, 1u << 20));
    if (pdom_build(x, ASG_MHA, &d, k) < 0)
        return -1;
    if (s.self) { /* attention.h: "the same pointer is allowed" */
        free(k->in[1]);
        k->in[1] = k->in[0];
    }
    if (fam == 4)
        mha_big_scores(k, r);
    else if (fam == 5)
        mha_hidden_keys(k, r);
    else {
        double c = pdom_log_uniform(r, -1.5, 0.5);
        scale_floats(k->in[0], k->in_len[0], c);
        if (!s.self)
            scale_floats(k->in[1], k->in_len[1], c);
    }
    return 0;
}

/* mha_error's bounds, doubled (the student's and the reference's errors). */
static int mha_bound(const struct prop_ctx *x, const struct pc_call *k,
                     double *const b[PC_MAX_OUT])
{
    const struct mha_view m = {k->in[0], k->in[1], {k->in[2], k->in[3], k->in[4], k->in[5]},
                               k->mask, k->n_q, k->n_k, k->d_model, k->heads, k->out[1]};
    double *ew = calloc(k->heads * k->n_q, sizeof *ew);

    if (ew == NULL || mha_error(&m, b[0], ew) < 0) {
        free(ew);
        return err_set(x->e, NULL, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < k->out_len[0]; i++)
        b[0][i] *= 2.0;
    for (size_t i = 0; i < k->out_len[1]; i++)
        b[1][i] = 2.0 * ew[i / k->n_k];
    free(ew);
    return 0;
}

const struct pdom_fn pdom_mha = {
    ASG_MHA, mha_family, 128, mha_draw, mha_bound,
    "the header's whole domain: n_q != n_kv both ways, heads = 1 and heads = d_model, Xkv "
    "the same pointer as Xq, scores up to +-1e4 (each head's softmax shifted by its row's "
    "maximum over the visible keys), hidden keys with the largest scores"};

/* ---- transformer block ----------------------------------------------------- */

static const char *const blk_family[PDOM_FAMILIES] = {
    "any small shape, heads, d_ff, eps and mask (half with pre-activations below 1e-6)",
    "d_model 1 or 2, eps 0 or tiny",
    "long sequences, d_ff from 1 to 4 d_model",
    "heads = 1 or heads = d_model, odd d_model, d_ff up to d_model",
    "large activations (scores up to +-1e4), byte and full-row masks",
    "rows of variance 1e-7 to 1e-5 before the first norm, eps 0",
};

struct blk_shape {
    size_t n, heads, dh, d_ff;
    double eps;
    const char *mask;
};

static void blk_shape_of(int fam, size_t max, struct pu_rng *r, struct blk_shape *s)
{
    static const double eps_of[] = {0, 1e-12, 1e-5, 1e-3, 1};

    s->n = pdom_between(r, 1, 12), s->heads = pdom_between(r, 1, 4);
    s->dh = pdom_between(r, 1, 8), s->d_ff = pdom_between(r, 1, 32);
    s->eps = eps_of[pu_rng_below(r, 5)], s->mask = dm_masks[pu_rng_below(r, 5)];
    if (fam == 1) {
        s->dh = pdom_between(r, 1, 2), s->heads = 1, s->d_ff = pdom_between(r, 1, 8);
        s->eps = eps_of[pu_rng_below(r, 2)];
        if (s->dh == 2 && pu_rng_below(r, 2))
            s->heads = 2, s->dh = 1;
    } else if (fam == 2) {
        s->n = pdom_between(r, max / 4 + 1, max);
        s->d_ff = pdom_between(r, 1, 4 * s->heads * s->dh);
    } else if (fam == 3) {
        size_t odd = 2 * pdom_between(r, 0, 8) + 1;
        s->heads = pu_rng_below(r, 2) ? 1 : odd, s->dh = s->heads == 1 ? odd : 1;
        s->d_ff = pdom_between(r, 1, odd);
    } else if (fam == 4) {
        s->mask = pu_rng_below(r, 2) ? "bytes" : "full_row";
    } else if (fam == 5) {
        s->eps = 0;
    }
}

/* Rows c_i + sigma g (c_i half the row's first value, sigma 3e-4 to
 * 3e-3), the attention's Wo scaled by sigma / 10 so that X + MHA(X) keeps
 * a variance about sigma^2; W1 scaled by 1e-2 and b1, b2 of size 1, so
 * that the FFN adds an almost constant vector: the first norm's output
 * scale then shows through the second norm (which would undo a scale
 * alone), and the first norm's rounding is not carried through |W1| |W2|. */
static void blk_flat_rows(struct pc_call *k, struct pu_rng *r)
{
    const double sigma = pdom_log_uniform(r, -3.5, -2.5);
    float *x = k->init[0];

    for (size_t i = 0; i < k->n; i++) {
        float *row = x + i * k->d_model;
        double c = 0.5 * row[0];
        for (size_t t = 0; t < k->d_model; t++)
            row[t] = (float)(c + sigma * (t == 0 ? pu_rng_gauss(r) : row[t]));
    }
    scale_floats(k->in[3], k->in_len[3], sigma / 10);
    scale_floats(k->in[4], k->in_len[4], 1e-2);
    scale_floats(k->in[5], k->in_len[5], 10.0);
    scale_floats(k->in[7], k->in_len[7], 10.0);
}

static int blk_draw(const struct prop_ctx *x, int fam, size_t max, int shrink,
                    struct pu_rng *r, struct pc_call *k)
{
    struct pdom_case d = {0};
    struct blk_shape s;
    size_t heads;

    blk_shape_of(fam, max, r, &s);
    heads = pdom_shrunk(s.heads, shrink);
    pdom_num(&d, "n", (double)pdom_shrunk(s.n, shrink));
    pdom_num(&d, "d_model", (double)(heads * pdom_shrunk(s.dh, shrink)));
    pdom_num(&d, "heads", (double)heads);
    pdom_num(&d, "d_ff", (double)pdom_shrunk(s.d_ff, shrink));
    pdom_num(&d, "eps", s.eps);
    pdom_str(&d, "mask", s.mask);
    pdom_num(&d, "seed", (double)pu_rng_below(r, 1u << 20));
    if (pdom_build(x, ASG_BLOCK, &d, k) < 0)
        return -1;
    if (fam == 5) {
        blk_flat_rows(k, r);
    } else if (fam == 4) {
        double m = max_score(k->init[0], k->n, k->init[0], k->n, k->in[0], k->in[1],
                             k->d_model, k->heads);
        if (m > 0)
            scale_floats(k->init[0], k->out_len[0], sqrt(pdom_log_uniform(r, 2, 4) / m));
    } else {
        scale_floats(k->init[0], k->out_len[0], pdom_log_uniform(r, -1, 0.3));
    }
    if (fam == 0 && pu_rng_below(r, 2)) {
        /* W1 and b1 times 2^-24, W2 times 2^24: relu(z s) / s = relu(z)
         * and a power of two scales a float exactly, so the block's
         * outputs are those of the unscaled weights, bit for bit, while
         * every pre-activation lies below 1e-6 (a step skipping "tiny"
         * pre-activations, or their bias, is seen) */
        scale_floats(k->in[4], k->in_len[4], 0x1p-24);
        scale_floats(k->in[5], k->in_len[5], 0x1p-24);
        scale_floats(k->in[6], k->in_len[6], 0x1p24);
    }
    return 0;
}

/*
 * A float layer norm of a row (d values) whose input lies within e of x:
 * into y the centre LN(x) and into b its outputs' bound. With |x' - x| <=
 * M the mean moves by <= M, every deviation by <= 2M and so the root mean
 * square (with eps) by <= 2M: |y' - y| <= 2M (1 + |y|) / (s - 2M), s =
 * sqrt(var + eps). The float arithmetic adds to M the mean's and the
 * deviations' rounding, 2 (d + 2) u max|x|, and the variance's, sqrt's and
 * division's (d + 4) u |y|. No output exceeds sqrt(d - 1) in size, so the
 * bound is capped at sqrt(d) + |y|; one column is exactly 0 (x - x).
 */
static void ln_stage(const double *x, const double *e, size_t d, double eps, double *y,
                     double *b)
{
    double mean = 0.0, var = 0.0, m = 0.0, amax = 0.0, s;

    for (size_t j = 0; j < d; j++) {
        mean += x[j];
        m = fmax(m, e[j]);
        amax = fmax(amax, fabs(x[j]) + e[j]);
    }
    mean /= (double)d;
    for (size_t j = 0; j < d; j++)
        var += (x[j] - mean) * (x[j] - mean);
    s = sqrt(var / (double)d + eps);
    m += 2.0 * (double)(d + 2) * U * amax;
    for (size_t j = 0; j < d; j++) {
        double cap;
        y[j] = s > 0 && d > 1 ? (x[j] - mean) / s : 0.0;
        cap = sqrt((double)d) + fabs(y[j]);
        b[j] = d == 1 ? 0.0
               : s > 2 * m ? fmin(2 * m * (1 + fabs(y[j])) / (s - 2 * m) +
                                       (double)(d + 4) * U * fabs(y[j]), cap)
                           : cap;
    }
}

/* out (n x m) = v W + bias and its bound eo, v (n x k) known within e: a
 * float product carries e through |W| and adds (k + 2) u (|v| + e) |W| +
 * |bias| of its own (the sum, the bias, the rounding). */
static void affine_stage(const double *v, const double *e, const float *W, const float *bias,
                         size_t n, size_t k, size_t m, double *out, double *eo)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            double acc = bias[j], carried = 0.0, own = fabs((double)bias[j]);
            for (size_t t = 0; t < k; t++) {
                double w = W[t * m + j];
                acc += v[i * k + t] * w;
                carried += e[i * k + t] * fabs(w);
                own += (fabs(v[i * k + t]) + e[i * k + t]) * fabs(w);
            }
            out[i * m + j] = acc;
            eo[i * m + j] = carried + (double)(k + 2) * U * own;
        }
}

/* The attention sublayer of k's block on the reference: a (n x d) and its
 * weights wt (heads x n x n). 0, or -1 with x->e set. */
static int blk_ref_mha(const struct prop_ctx *x, const struct pc_call *k, float *a, float *wt)
{
    const struct impl *ref = x->env->reference;
    struct impl_result res;

    if (ref->ops->multi_head(ref->self, k->init[0], k->n, k->init[0], k->n, k->d_model,
                             k->heads, k->in[0], k->in[1], k->in[2], k->in[3], k->mask, a,
                             wt, &res, x->e) < 0)
        return -1;
    if (res.status != CALL_RETURNED || res.rc != ATTN_OK)
        return err_set(x->e, NULL, 0, 0, "the reference's multi-head attention %s (rc %d)",
                       impl_status_name(res.status), res.rc);
    return 0;
}

/* The block's buffers for its bound: n x d (nd) and n x d_ff (nf) each. */
struct blk_work {
    float *a, *wt;
    double *ea, *ew, *y1, *t1, *z1, *e1, *h, *eh, *f, *ef, *z2;
};

static int blk_work_alloc(struct blk_work *w, const struct pc_call *k)
{
    const size_t nd = k->n * k->d_model, nf = k->n * k->d_ff;

    w->a = calloc(nd, sizeof *w->a);
    w->wt = calloc(k->heads * k->n * k->n, sizeof *w->wt);
    w->ea = calloc(8 * nd + 2 * nf + k->heads * k->n, sizeof *w->ea);
    if (w->a == NULL || w->wt == NULL || w->ea == NULL)
        return -1;
    w->y1 = w->ea + nd, w->t1 = w->y1 + nd, w->z1 = w->t1 + nd, w->e1 = w->z1 + nd;
    w->f = w->e1 + nd, w->ef = w->f + nd, w->z2 = w->ef + nd;
    w->h = w->z2 + nd, w->eh = w->h + nf, w->ew = w->eh + nf;
    return 0;
}

static void blk_work_free(struct blk_work *w)
{
    free(w->a);
    free(w->wt);
    free(w->ea);
}

/*
 * The block stage by stage, each centre from the reference's attention
 * and exact arithmetic after it, each bound from the one before: X + MHA(X)
 * within 2 ea (the student's attention and the reference's each within
 * ea of exact) plus its sum's rounding; LN (ln_stage); relu(. W1 + b1)
 * (affine_stage; relu moves nothing further); . W2 + b2; the residual
 * sum; LN. Its final bound, doubled (the reference's own error), into b.
 */
static int blk_bound(const struct prop_ctx *x, const struct pc_call *k,
                     double *const b[PC_MAX_OUT])
{
    const size_t n = k->n, d = k->d_model, nd = n * d;
    struct blk_work w = {0};
    struct mha_view m = {k->init[0], k->init[0], {k->in[0], k->in[1], k->in[2], k->in[3]},
                         k->mask, n, n, d, k->heads, NULL};
    int rc = -1;

    if (blk_work_alloc(&w, k) < 0) {
        blk_work_free(&w);
        return err_set(x->e, NULL, 0, 0, "out of memory");
    }
    m.weights = w.wt;
    if (blk_ref_mha(x, k, w.a, w.wt) < 0)
        goto out;
    if (mha_error(&m, w.ea, w.ew) < 0) {
        err_set(x->e, NULL, 0, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nd; i++) {
        w.y1[i] = (double)k->init[0][i] + w.a[i];
        w.t1[i] = 2.0 * w.ea[i] + U * fabs(w.y1[i]);
    }
    for (size_t i = 0; i < n; i++)
        ln_stage(w.y1 + i * d, w.t1 + i * d, d, k->eps, w.z1 + i * d, w.e1 + i * d);
    affine_stage(w.z1, w.e1, k->in[4], k->in[5], n, d, k->d_ff, w.h, w.eh);
    for (size_t i = 0; i < n * k->d_ff; i++)
        w.h[i] = w.h[i] > 0.0 ? w.h[i] : 0.0;
    affine_stage(w.h, w.eh, k->in[6], k->in[7], n, k->d_ff, d, w.f, w.ef);
    for (size_t i = 0; i < nd; i++) {
        w.f[i] += w.z1[i]; /* the residual sum, Y2 */
        w.ef[i] += w.e1[i] + U * (fabs(w.f[i]) + w.e1[i] + w.ef[i]);
    }
    for (size_t i = 0; i < n; i++)
        ln_stage(w.f + i * d, w.ef + i * d, d, k->eps, w.z2 + i * d, b[0] + i * d);
    for (size_t i = 0; i < nd; i++)
        b[0][i] *= 2.0;
    rc = 0;
out:
    blk_work_free(&w);
    return rc;
}

const struct pdom_fn pdom_block = {
    ASG_BLOCK, blk_family, 64, blk_draw, blk_bound,
    "the header's whole domain: d_model = 1 and 2, d_ff below d_model, heads = 1 and "
    "heads = d_model, eps = 0 with rows of (almost) no variance, large activations: "
    "X <- LN(X + MHA(X, X)), then X <- LN(X + FFN(X)), with the caller's eps whatever it is"};
