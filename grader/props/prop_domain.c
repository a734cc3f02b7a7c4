/*
 * prop_domain.c -- `domain`: the header's whole contract, drawn on purpose
 * (softmax, sdpa, pe, layer norm, multi-head attention, transformer block).
 *
 * The other properties check the shapes and values a spec's author thought
 * of; a bug that lives elsewhere in the header's domain (a running maximum
 * started at 0, a max shift skipped above some row length, a row "too flat
 * to normalise" left at 0, hidden keys taking part in the max, a head's own
 * softmax left unshifted, eps = 0 taken for a missing eps) keeps full
 * marks there. `domain` draws cases from families that cover attention.h's
 * promises on purpose. Draw i of a case uses family i mod PDOM_FAMILIES, so
 * a case of `draws` >= that count reaches every family:
 *
 *   softmax    Gaussian logits of scale 1e-6 to 1e4; long rows up to `max`
 *              of logits up to +-1e4; every logit very negative; ties and
 *              tiny logits; one dominant logit among very negative ones;
 *              65 to 160 rows of 1 to 3 columns
 *   sdpa       any small shape and mask; n_k >> n_q; n_q >> n_k; every
 *              visible score very negative; hidden keys holding the largest
 *              scores; odd and even d_k with byte and full-row masks
 *   pe         n and d from 1 to 64; d = 1 or 2 over long sequences; odd d
 *              to 1025; large positions (angles up to `max` radians); wide
 *              encodings; one position or one column
 *   layernorm  Gaussian rows of any scale and offset; constant rows with
 *              eps 0 or small; variance 1e-30 to 1e-6 with eps 0 or 1e-12;
 *              magnitudes up to 1e4; long rows; many rows of 1 to 3 columns
 *   mha        any small shape, heads, mask, self- or cross-attention;
 *              n_kv >> n_q; n_q >> n_kv; heads = 1 or heads = d_model with
 *              odd d_model; self-attention through one pointer with scores
 *              up to +-1e4; hidden keys holding the largest scores
 *   block      any small shape, heads, d_ff, eps and mask (half of them with
 *              pre-activations below 1e-6, the same outputs); d_model 1 or 2
 *              with eps 0 or tiny; long sequences with d_ff from 1 to 4
 *              d_model; heads = 1 or d_model, odd d_model, d_ff below
 *              d_model; activations up to 1e2 (scores up to ~1e4) with
 *              byte and full-row masks; rows of variance 1e-8 to 1e-4
 *              before the first norm with eps 0
 *
 * Each draw is seeded from the case's seed (pu_case_seed: the run's seed
 * mixed in) and the draw's index: a grade and its reproduce line draw the
 * same cases. The student's outputs are compared with the reference's
 * within the test's tolerance x max(1, |ref|) plus a bound of the
 * arithmetic of a float implementation on that very input (each function's
 * `bound`, below and in prop_domain_mha.c). A failing draw is shrunk: its
 * shapes are halved, drawn again from the same seed and family, while it
 * still fails; the smallest failing one is reported.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_defs.h"
#include "props/prop_domain.h"

#define U PDOM_U
#define DOM_FAMILIES PDOM_FAMILIES
#define DOM_SHRINK_MAX 12

static const char *const keys_domain[] = {"seed", "draws", "max", NULL};

/* ---- drawing ------------------------------------------------------------- */

/*
 * 10^x from square roots alone: 10^floor(x) by multiplication, then one
 * factor 10^(2^-k) per set bit of the fraction. The student build ships
 * this file and must hold no exp/pow (tests/template.sh: no answer key);
 * sqrt is correctly rounded everywhere, so the draws are the same on
 * every platform, a few ulps from pow.
 */
double pdom_pow10(double x)
{
    double n = floor(x), f = x - n, r = 1.0, root = 10.0;

    for (; n > 0; n--)
        r *= 10.0;
    for (; n < 0; n++)
        r /= 10.0;
    for (int k = 0; k < 52 && f > 0; k++) {
        root = sqrt(root);
        f *= 2.0;
        if (f >= 1.0) {
            r *= root;
            f -= 1.0;
        }
    }
    return r;
}

double pdom_log_uniform(struct pu_rng *r, double lo, double hi)
{
    return pdom_pow10(lo + (hi - lo) * pu_rng_uniform(r));
}

size_t pdom_between(struct pu_rng *r, size_t lo, size_t hi)
{
    return lo + pu_rng_below(r, hi - lo + 1);
}

size_t pdom_shrunk(size_t n, int shrink)
{
    n >>= shrink;
    return n ? n : 1;
}

void pdom_num(struct pdom_case *d, const char *key, double v)
{
    struct spec_param *p = &d->p[d->n++];
    memset(p, 0, sizeof *p);
    p->key = key;
    p->kind = SPEC_NUM;
    p->num = v;
}

void pdom_str(struct pdom_case *d, const char *key, const char *v)
{
    struct spec_param *p = &d->p[d->n++];
    memset(p, 0, sizeof *p);
    p->key = key;
    p->kind = SPEC_STR;
    p->str = v;
}

int pdom_build(const struct prop_ctx *x, enum asg_fn fn, struct pdom_case *d,
               struct pc_call *k)
{
    d->c.params = d->p;
    d->c.n_params = d->n;
    d->c.line = x->c->line;
    d->c.col = x->c->col;
    return pc_build(fn, x->env, x->t, &d->c, k, x->e);
}

/* ---- softmax --------------------------------------------------------------- */

static const char *const sm_family[DOM_FAMILIES] = {
    "Gaussian logits, scale 1e-6 to 1e4", "long rows of logits up to +-1e4",
    "every logit very negative (-1e4 to -1000)",
    "ties, tiny logits, rows of every decade from 1e-7 to 1e4 and 0",
    "one dominant logit among very negative ones", "65 to 160 rows of 1 to 3 columns",
};

static int sm_draw(const struct prop_ctx *x, int fam, size_t max, int shrink,
                   struct pu_rng *r, struct pc_call *k)
{
    struct pdom_case d = {0};
    size_t rows, cols;
    double m;

    switch (fam) {
    case 1: rows = pdom_between(r, 1, 4), cols = pdom_between(r, max / 8 + 1, max); break;
    case 5: rows = pdom_between(r, 65, 160), cols = pdom_between(r, 1, 3); break;
    default: rows = pdom_between(r, 1, 8), cols = pdom_between(r, 1, 256); break;
    }
    pdom_num(&d, "rows", (double)pdom_shrunk(rows, shrink));
    pdom_num(&d, "cols", (double)pdom_shrunk(cols, shrink));
    if (pdom_build(x, ASG_SOFTMAX, &d, k) < 0)
        return -1;
    m = fam == 0 ? pdom_log_uniform(r, -6, 4) : fam == 3 ? 1e-6 : pdom_log_uniform(r, 2, 4);
    for (size_t i = 0; i < k->rows; i++) {
        float *row = k->init[0] + i * k->cols;
        double base = -pdom_log_uniform(r, 3, 4);
        int tie = pu_rng_below(r, 2) == 0;
        for (size_t j = 0; j < k->cols; j++) {
            double g = pu_rng_gauss(r), u = pu_rng_uniform(r);
            row[j] = (float)(fam == 0 || fam == 5 ? m * g
                             : fam == 1             ? m * (2 * u - 1)
                             : fam == 2             ? base + 50 * u
                             : fam == 3             ? (tie ? 0.0 : m * g)
                                                    : base + 50 * u);
        }
        if (fam == 3 && i % 2 == 1) /* every decade in one row, and zeros:
                                       a maximum left at a tiny first logit
                                       overflows exp on a later large one */
            for (size_t j = 0; j < k->cols; j++) {
                size_t dec = pu_rng_below(r, 13); /* 1e-7 .. 1e4, or 0 */
                double sign = pu_rng_below(r, 2) ? 1.0 : -1.0;
                row[j] = dec == 12 ? 0.0f : (float)(sign * pdom_pow10((double)dec - 7.0) *
                                                     (1 + pu_rng_uniform(r)) / 2);
            }
        if (fam == 4) /* at the first or last column, or anywhere */
            row[i % 3 == 0 ? 0 : i % 3 == 1 ? k->cols - 1 : pu_rng_below(r, k->cols)] =
                (float)(base + 100 + m);
    }
    return 0;
}

/* A float softmax entry errs by at most ~cols*u (specs/README.md,
 * "Tolerances / softmax"), whatever the logits' size: x_j - max is exact
 * enough, and exp's relative error is u*|x_j - max| on weights
 * e^(x_j - max) that are tiny where it is large. */
static int sm_bound(const struct prop_ctx *x, const struct pc_call *k,
                    double *const b[PC_MAX_OUT])
{
    (void)x;
    for (size_t j = 0; j < k->out_len[0]; j++)
        b[0][j] = 2.0 * (double)k->cols * U;
    return 0;
}

/* ---- sdpa ------------------------------------------------------------------ */

static const char *const sd_family[DOM_FAMILIES] = {
    "any small shape and mask, a first key of zeros, then keys of every decade from 1e-7 to 1e3",
    "many more keys than queries, or one key about 14 above many (weights below 1e-6)",
    "many more queries than keys", "every visible score very negative (-1e4 to -800)",
    "hidden keys holding the largest scores", "odd and even sizes with byte and full-row masks",
};

static const char *const sd_masks[] = {"none", "causal", "random", "bytes", "full_row"};

static int sd_draw(const struct prop_ctx *x, int fam, size_t max, int shrink,
                   struct pu_rng *r, struct pc_call *k)
{
    struct pdom_case d = {0};
    size_t n_q = pdom_between(r, 1, 16), n_k = pdom_between(r, 1, 16);
    size_t d_k = pdom_between(r, 1, 64), d_v = pdom_between(r, 1, 64);
    const char *mask = sd_masks[pu_rng_below(r, 5)];
    double scale = pdom_log_uniform(r, -3, 0.5);
    int peaked = fam == 1 && pu_rng_below(r, 4) != 0; /* 3 in 4 */

    if (peaked)
        n_q = pdom_between(r, 1, 4), n_k = pdom_between(r, 3 * max / 4 + 1, max),
        d_k = pdom_between(r, 1, 8), mask = "none";
    else if (fam == 1)
        n_q = pdom_between(r, 1, 4), n_k = pdom_between(r, max / 4 + 1, max);
    else if (fam == 2)
        n_q = pdom_between(r, max / 4 + 1, max), n_k = pdom_between(r, 1, 4);
    else if (fam == 3 || fam == 4)
        mask = fam == 4 ? "random" : pu_rng_below(r, 2) ? "random" : "none";
    else if (fam == 5)
        d_k = 2 * pdom_between(r, 0, 4) + 1 + pu_rng_below(r, 2) * 63, /* 1..9 or 64..72 */
            mask = pu_rng_below(r, 2) ? "bytes" : "full_row";
    pdom_num(&d, "n_q", (double)pdom_shrunk(n_q, shrink));
    pdom_num(&d, "n_k", (double)pdom_shrunk(n_k, shrink));
    pdom_num(&d, "d_k", (double)pdom_shrunk(d_k, shrink));
    pdom_num(&d, "d_v", (double)pdom_shrunk(d_v, shrink));
    pdom_str(&d, "mask", mask);
    pdom_num(&d, "seed", (double)pu_rng_below(r, 1u << 20));
    if (pdom_build(x, ASG_SDPA, &d, k) < 0)
        return -1;
    float *Q = k->in[0], *K = k->in[1];
    const double rd = sqrt((double)k->d_k);
    if (fam == 0 || fam == 1 || fam == 2 || fam == 5)
        for (size_t i = 0; i < k->in_len[0]; i++)
            Q[i] *= (float)scale;
    if (fam == 0) {
        /* key 0 all zeros (its score 0), every other key of a decade of
         * its own, 1e-7 to 1e3, or 0, and Gaussian queries of scale 1 to
         * 3: a query's first score 0, a later one in the hundreds or
         * thousands (a running maximum left at a tiny first score
         * overflows exp, in float or in double) */
        for (size_t i = 0; i < k->in_len[0]; i++)
            Q[i] = (float)(Q[i] * (1 + 2 * pu_rng_uniform(r)) / scale);
        for (size_t j = 0; j < k->n_k; j++) {
            /* key 1 of 1e3: its scores in the thousands for about a
             * third of the queries, past exp's double range (709) too */
            size_t dec = j == 0 ? 11 : j == 1 ? 10 : pu_rng_below(r, 12); /* 1e-7 .. 1e3, or 0 */
            for (size_t t = 0; t < k->d_k; t++)
                K[j * k->d_k + t] *= dec == 11 ? 0.0f : (float)pdom_pow10((double)dec - 7.0);
        }
    } else if (peaked) {
        /* one query repeated; key `top` scores L in [13.85, 14.05] (K = L
         * sqrt(d_k) q / |q|^2), every other key 0 (K = 0): each other
         * weight is e^-L / (1 + (n_k - 1) e^-L), 7e-7 to 9.7e-7, and their
         * values 50 to 100, so that a step skipping weights below 1e-6
         * drops n_k * 8e-7 * 75, far above the tolerance. `top` among
         * the first sixteenth of the keys: an online softmax that meets the
         * top key first leaves every later weight out of its running sum
         * when it skips the tiny ones, and the top key's own weight is
         * then off by about n_k * 8e-7, above a weight's bound */
        double L = 13.85 + 0.2 * pu_rng_uniform(r), qq = 0.0;
        size_t top = pu_rng_below(r, k->n_k / 16 + 1);
        for (size_t t = 0; t < k->d_k; t++)
            qq += (double)Q[t] * Q[t];
        for (size_t i = 1; i < k->n_q; i++)
            memcpy(Q + i * k->d_k, Q, k->d_k * sizeof *Q);
        for (size_t j = 0; j < k->n_k; j++)
            for (size_t t = 0; t < k->d_k; t++)
                K[j * k->d_k + t] = j == top && qq > 0 ? (float)(L * rd * Q[t] / qq) : 0.0f;
        for (size_t j = 0; j < k->n_k; j++)
            for (size_t t = 0; j != top && t < k->d_v; t++)
                k->in[2][j * k->d_v + t] = (float)(50 + 50 * pu_rng_uniform(r));
    }
    if (fam == 3) {
        /* Q = -a, K in [5, 6]: scores -a * 5.5 * sqrt(d_k), between about
         * -1e4 and -800 (attention.h's example: Q = [-100], K = [5, 6]) */
        double a = pdom_log_uniform(r, log10(800.0), 4) / (5.5 * rd);
        for (size_t i = 0; i < k->in_len[0]; i++)
            Q[i] = (float)(-a * (1 + 0.01 * pu_rng_uniform(r)));
        for (size_t i = 0; i < k->in_len[1]; i++)
            K[i] = (float)(5 + pu_rng_uniform(r));
    } else if (fam == 4) {
        /* Q in [1, 1.1]; each key hidden from every query with p = 0.4
         * (one kept visible), K of a hidden key c: its scores c * mean(q) *
         * sqrt(d_k) lie between S and 1.1 S, S in [1000, 5000], far above
         * any visible key's (Gaussian K) */
        double c = pdom_log_uniform(r, 3, log10(5000.0)) / rd;
        size_t keep = pu_rng_below(r, k->n_k);
        for (size_t i = 0; i < k->in_len[0]; i++)
            Q[i] = (float)(1 + 0.1 * pu_rng_uniform(r));
        for (size_t j = 0; j < k->n_k; j++) {
            if (j == keep || pu_rng_uniform(r) >= 0.4)
                continue;
            for (size_t i = 0; i < k->n_q; i++)
                k->mask[i * k->n_k + j] = 0;
            for (size_t t = 0; t < k->d_k; t++)
                K[j * k->d_k + t] = (float)c;
        }
    }
    return 0;
}

static int sd_visible(const struct pc_call *k, size_t i, size_t j)
{
    return k->mask == NULL || k->mask[i * k->n_k + j] != 0;
}

/*
 * A float logit of query i errs by delta_i <= (d_k + 2) u max_j sum_t
 * |q_t k_t| / sqrt(d_k) over its visible keys (gamma_(d_k), the scale);
 * softmax is 1-Lipschitz from logits to log-weights, so a weight errs by
 * <= 2 delta_i plus the row sum's n_k u, and an output by that times
 * max |V| plus its own sum's (n_k + 1) u max |V|.
 */
static void sd_row_bound(const struct pc_call *k, size_t i, double *b_out, double *b_w)
{
    const float *q = k->in[0] + i * k->d_k;
    double delta = 0.0, vmax = 0.0, w;

    for (size_t j = 0; j < k->n_k; j++) {
        double s = 0.0;
        if (!sd_visible(k, i, j))
            continue;
        for (size_t t = 0; t < k->d_k; t++)
            s += fabs((double)q[t] * k->in[1][j * k->d_k + t]);
        delta = fmax(delta, s);
        for (size_t t = 0; t < k->d_v; t++)
            vmax = fmax(vmax, fabs((double)k->in[2][j * k->d_v + t]));
    }
    delta *= (double)(k->d_k + 2) * U / sqrt((double)k->d_k);
    w = 2 * delta + 2.0 * (double)k->n_k * U;
    for (size_t j = 0; j < k->n_k; j++)
        b_w[j] = w;
    for (size_t t = 0; t < k->d_v; t++)
        b_out[t] = (w + (double)(k->n_k + 1) * U) * vmax;
}

static int sd_bound(const struct prop_ctx *x, const struct pc_call *k,
                    double *const b[PC_MAX_OUT])
{
    (void)x;
    for (size_t i = 0; i < k->n_q; i++)
        sd_row_bound(k, i, b[0] + i * k->d_v, b[1] + i * k->n_k);
    return 0;
}

/* ---- layer norm ------------------------------------------------------------ */

static const char *const ln_family[DOM_FAMILIES] = {
    "Gaussian rows of any scale and offset",
    "constant rows (variance 0) and rows one float step from constant, eps 0 or small",
    "rows of tiny variance (1e-30 to 1e-6), eps 0 or 1e-12",
    "magnitudes up to 1e4", "long rows", "65 to 160 rows of 1 to 3 columns",
};

static int ln_draw(const struct prop_ctx *x, int fam, size_t max, int shrink,
                   struct pu_rng *r, struct pc_call *k)
{
    static const double eps_of[] = {0, 1e-12, 1e-5, 1e-3, 1};
    struct pdom_case d = {0};
    size_t rows = pdom_between(r, 1, 8), cols = pdom_between(r, 1, 256);
    double eps = eps_of[pu_rng_below(r, 5)];

    if (fam == 1)
        cols = pdom_between(r, 1, max / 2), eps = eps_of[pu_rng_below(r, 3)];
    else if (fam == 2)
        eps = pu_rng_below(r, 2) ? 0 : 1e-12;
    else if (fam == 4)
        cols = pdom_between(r, max / 4 + 1, max), eps = 1e-5;
    else if (fam == 5)
        rows = pdom_between(r, 65, 160), cols = pdom_between(r, 1, 3), eps = pu_rng_below(r, 2) ? 0 : 1e-5;
    pdom_num(&d, "rows", (double)pdom_shrunk(rows, shrink));
    pdom_num(&d, "cols", (double)pdom_shrunk(cols, shrink));
    pdom_num(&d, "eps", eps);
    if (pdom_build(x, ASG_LAYERNORM, &d, k) < 0)
        return -1;
    for (size_t i = 0; i < k->rows; i++) {
        float *row = k->init[0] + i * k->cols;
        /* constant rows hold integers of +-1e4 over at most 1024 columns:
         * their sums are exact even in float, so the mean is the value
         * and every deviation 0 (attention.h: "a constant row with eps =
         * 0 becomes all zeros") */
        double c = (double)pdom_between(r, 0, 20000) - 10000.0;
        /* tiny rows down to 1e-15 (a variance of 1e-30, still a
         * normal float): a mean that starts at 1, not at the row's first
         * value, then loses the row to rounding */
        double m = fam == 2 ? pdom_log_uniform(r, -15, -3) : fam == 3 ? pdom_log_uniform(r, 0, 4)
                                                               : pdom_log_uniform(r, -3, 3);
        double off = fam == 2 ? 0 : fam == 3 ? (1e4 - m) * (2 * pu_rng_uniform(r) - 1)
                                             : 4 * m * pu_rng_gauss(r);
        for (size_t j = 0; j < k->cols; j++)
            row[j] = (float)(fam == 1 ? c : off + m * pu_rng_gauss(r));
        /* every other such row one float step from constant: its true
         * variance is far below what E[x^2] - E[x]^2 can resolve at 1e4,
         * so a one-pass variance may come out negative; whatever the
         * rounding makes of it, a NaN (sqrt of a negative) is wrong. Not
         * a row of zeros: a step from 0 is a denormal whose square is 0 in
         * float, where a correct float solution rightly sees a constant */
        if (fam == 1 && i % 2 == 1 && k->cols > 1 && row[0] != 0.0f)
            row[k->cols - 1] = nextafterf(row[0], INFINITY);
    }
    return 0;
}

/*
 * Two-pass float layer norm: the mean errs by <= cols u max|x|, the
 * deviations by that again, and the variance relatively by ~cols u; so an
 * output (x - mean)/s errs by <= 2 (cols + 2) u max|x| / s + (cols + 2) u
 * |y|, s = sqrt(var + eps). A constant row (its expected outputs 0) has
 * exact sums by construction: no rounding there.
 */
static void ln_row_bound(const struct pc_call *k, size_t i, double *b)
{
    const float *row = k->init[0] + i * k->cols, *ref = k->out[0] + i * k->cols;
    double mean = 0.0, var = 0.0, amax = 0.0, n = (double)k->cols;
    int constant = 1;

    for (size_t j = 0; j < k->cols; j++) {
        mean += row[j];
        amax = fmax(amax, fabs((double)row[j]));
        constant &= row[j] == row[0];
    }
    mean /= n;
    for (size_t j = 0; j < k->cols; j++)
        var += ((double)row[j] - mean) * ((double)row[j] - mean);
    var = var / n + k->eps;
    for (size_t j = 0; j < k->cols; j++)
        b[j] = constant || !(var > 0)
                   ? 0.0
                   : (n + 2) * U * (2 * amax / sqrt(var) + fabs((double)ref[j]));
}

static int ln_bound(const struct prop_ctx *x, const struct pc_call *k,
                    double *const b[PC_MAX_OUT])
{
    (void)x;
    for (size_t i = 0; i < k->rows; i++)
        ln_row_bound(k, i, b[0] + i * k->cols);
    return 0;
}

/* ---- positional encoding --------------------------------------------------- */

static const char *const pe_family[DOM_FAMILIES] = {
    "n and d from 1 to 64", "d = 1 or 2 over long sequences", "odd d from 1 to 1025",
    "large positions (angles up to max radians)", "wide encodings (d from max/8 to max/4)",
    "one position or one column",
};

static int pe_draw(const struct prop_ctx *x, int fam, size_t max, int shrink,
                   struct pu_rng *r, struct pc_call *k)
{
    struct pdom_case d = {0};
    size_t n = pdom_between(r, 1, 64), dd = pdom_between(r, 1, 64);

    if (fam == 1)
        n = pdom_between(r, max / 4 + 1, max), dd = pdom_between(r, 1, 2);
    else if (fam == 2)
        n = pdom_between(r, 1, 32), dd = 2 * pdom_between(r, 0, 512) + 1;
    else if (fam == 3)
        n = pdom_between(r, max / 2, max), dd = pdom_between(r, 1, 4);
    else if (fam == 4)
        n = pdom_between(r, 1, 8), dd = pdom_between(r, max / 8, max / 4);
    else if (fam == 5 && pu_rng_below(r, 2))
        n = 1, dd = pdom_between(r, 1, max / 4);
    else if (fam == 5)
        n = pdom_between(r, 1, max), dd = 1;
    pdom_num(&d, "n", (double)pdom_shrunk(n, shrink));
    pdom_num(&d, "d", (double)pdom_shrunk(dd, shrink));
    return pdom_build(x, ASG_PE, &d, k);
}

/*
 * Entry (p, i) of a float encoding errs by <= 48 u a + 2 u, a = p w the
 * angle, w = 10000^(-2 floor(i/2) / d): w from powf errs by ~10 u (ln 10000
 * = 9.2 times the exponent's u, plus powf's own ulp), from expf(-(2k/d) ln
 * 10000) by <= ~40 u (four roundings of an argument up to 9.2, ~37 u
 * absolutely, then expf's); p is exact in float (p < 2^24) and p w adds u;
 * sinf/cosf reduce any argument exactly and round once, the reference
 * (double) once more. The formula property's 32 u p is the same bound at a
 * row's worst column; this one is the element's own.
 */
static int pe_bound(const struct prop_ctx *x, const struct pc_call *k,
                    double *const b[PC_MAX_OUT])
{
    (void)x;
    for (size_t i = 0; i < k->d; i++) {
        double w = pdom_pow10(-4.0 * (double)(2 * (i / 2)) / (double)k->d);
        for (size_t p = 0; p < k->n; p++)
            b[0][p * k->d + i] = 48 * U * (double)p * w + 2 * U;
    }
    return 0;
}

/* ---- the property ---------------------------------------------------------- */

static const char hint_rows[] =
    "the header's whole domain: long rows, scores all very negative, hidden keys with the "
    "largest scores, rows of (almost) no variance, magnitudes up to 1e4";

static const struct pdom_fn pdom_softmax = {ASG_SOFTMAX, sm_family, 2048, sm_draw, sm_bound,
                                            hint_rows};
static const struct pdom_fn pdom_sdpa = {ASG_SDPA, sd_family, 256, sd_draw, sd_bound,
                                         hint_rows};
static const struct pdom_fn pdom_layernorm = {ASG_LAYERNORM, ln_family, 2048, ln_draw,
                                              ln_bound, hint_rows};
static const struct pdom_fn pdom_pe = {
    ASG_PE, pe_family, 8192, pe_draw, pe_bound,
    "the header's whole domain: d = 1 and 2, odd d, positions in the thousands (large "
    "angles), wide encodings: sin(p w) and cos(p w), w = 1/10000^(2*floor(i/2)/d), for any "
    "p and d"};

static const struct pdom_fn *const dom_fns[] = {
    &pdom_softmax, &pdom_sdpa, &pdom_pe, &pdom_layernorm, &pdom_mha, &pdom_block,
};

/* The row of x's function, or NULL with x->e set. */
static const struct pdom_fn *dom_fn_of(const struct prop_ctx *x)
{
    enum asg_fn fn;

    if (pc_fn(x->t, &fn) < 0) {
        err_set(x->e, NULL, 0, 0, "unknown function '%s'", x->t->function);
        return NULL;
    }
    for (size_t i = 0; i < sizeof dom_fns / sizeof *dom_fns; i++)
        if (dom_fns[i]->fn == fn)
            return dom_fns[i];
    err_set(x->e, NULL, 0, 0, "no domain property for '%s'", x->t->function);
    return NULL;
}

static char *shape_of(const struct pc_call *k, char *buf, size_t n)
{
    if (k->fn == ASG_SDPA)
        snprintf(buf, n, "n_q=%zu, n_k=%zu, d_k=%zu, d_v=%zu, mask=%s", k->n_q, k->n_k,
                 k->d_k, k->d_v, k->mask_kind);
    else if (k->fn == ASG_LAYERNORM)
        snprintf(buf, n, "rows=%zu, cols=%zu, eps=%g", k->rows, k->cols, (double)k->eps);
    else if (k->fn == ASG_PE)
        snprintf(buf, n, "n=%zu, d=%zu", k->n, k->d);
    else if (k->fn == ASG_MHA)
        snprintf(buf, n, "n_q=%zu, n_kv=%zu, d_model=%zu, heads=%zu, mask=%s%s", k->n_q,
                 k->n_k, k->d_model, k->heads, k->mask_kind,
                 k->in[0] == k->in[1] ? ", Xkv the same pointer as Xq" : "");
    else if (k->fn == ASG_BLOCK)
        snprintf(buf, n, "n=%zu, d_model=%zu, heads=%zu, d_ff=%zu, eps=%g, mask=%s", k->n,
                 k->d_model, k->heads, k->d_ff, (double)k->eps, k->mask_kind);
    else
        snprintf(buf, n, "rows=%zu, cols=%zu", k->rows, k->cols);
    return buf;
}

/* A buffer a draw passed as two inputs (self-attention) is freed once. */
static void release_draw(struct pc_call *k)
{
    for (size_t i = 1; i < PC_MAX_IN; i++)
        for (size_t j = 0; j < i && k->in[i] != NULL; j++)
            if (k->in[i] == k->in[j])
                k->in[i] = NULL;
    pc_release(k);
}

/* The reference's call on k, then f's bounds into b (out_len doubles each):
 * 1, or -1 with x->e set. */
static int reference_and_bounds(const struct prop_ctx *x, const struct pdom_fn *f,
                                struct pc_call *k, double *b[PC_MAX_OUT], const char *shape)
{
    struct impl_result res;

    if (pc_invoke(x->env->reference, k, &res, x->e) < 0)
        return -1;
    if (res.status != CALL_RETURNED || res.rc != ATTN_OK)
        return err_set(x->e, NULL, 0, 0, "the reference %s (rc %d) on %s",
                       impl_status_name(res.status), res.rc, shape);
    for (size_t i = 0; i < k->n_out; i++)
        if ((b[i] = calloc(k->out_len[i], sizeof(double))) == NULL)
            return err_set(x->e, NULL, 0, 0, "out of memory");
    return f->bound(x, k, b) < 0 ? -1 : 1;
}

/* got against the reference's outputs in k within tol x max(1, |ref|) +
 * b: 1, or 0 with x->v failed. */
static int compare(const struct prop_ctx *x, const struct pdom_fn *f, const struct pc_call *k,
                   float *const got[PC_MAX_OUT], double *const b[PC_MAX_OUT], uint64_t draw,
                   const char *shape)
{
    for (size_t i = 0; i < k->n_out; i++)
        for (size_t j = 0; j < k->out_len[i]; j++) {
            double ref = k->out[i][j], tol = pc_tol(x) * fmax(1.0, fabs(ref)) + b[i][j];
            if (pu_close(ref, got[i][j], tol, 0))
                continue;
            return pu_fail(x->v, "draw %llu (%s; %s): '%s'[%zu] is %.9g, the reference "
                           "gives %.9g (tolerance %.3g from the arithmetic)",
                           (unsigned long long)draw + 1, f->family[draw % DOM_FAMILIES],
                           shape, k->out_name[i], j, (double)got[i][j], ref, tol);
        }
    return 1;
}

/* Draw `draw` of the case, its shapes halved `shrink` times: 1 when the
 * student agrees with the reference, 0 with x->v failed (*returned: the
 * call returned, so its values were wrong), -1 on a grader error. */
static int one_draw(const struct prop_ctx *x, const struct pdom_fn *f, size_t max,
                    uint64_t draw, int shrink, int *returned, char *shape_out, size_t n)
{
    struct pu_rng r;
    struct pc_call k;
    float *got[PC_MAX_OUT] = {0};
    double *b[PC_MAX_OUT] = {0};
    char shape[200];
    const int fam = (int)(draw % DOM_FAMILIES);
    int ok;

    uint64_t s = pu_case_seed(x->env, x->t, x->c) ^ (0x9e3779b97f4a7c15ull * (draw + 1));
    pu_rng_seed(&r, s);
    memset(&k, 0, sizeof k);
    *returned = 0;
    if (f->draw(x, fam, max, shrink, &r, &k) < 0) {
        release_draw(&k);
        return -1;
    }
    shape_of(&k, shape, sizeof shape);
    snprintf(shape_out, n, "%s", shape);
    ok = pc_call_ok(x, &k);
    for (size_t i = 0; ok == 1 && i < k.n_out; i++) {
        if ((got[i] = pu_floats(k.out_len[i])) == NULL)
            ok = err_set(x->e, NULL, 0, 0, "out of memory");
        else
            memcpy(got[i], k.out[i], k.out_len[i] * sizeof(float));
    }
    if (ok == 1)
        ok = reference_and_bounds(x, f, &k, b, shape);
    if (ok == 1 && (ok = compare(x, f, &k, got, b, draw, shape)) == 0)
        *returned = 1;
    if (ok == 0 && !*returned) { /* crashed, timed out, refused: say where */
        size_t len = strlen(x->v->msg);
        snprintf(x->v->msg + len, sizeof x->v->msg - len, " on draw %llu (%s; %s)",
                 (unsigned long long)draw + 1, f->family[fam], shape);
    }
    for (size_t i = 0; i < PC_MAX_OUT; i++) {
        free(got[i]);
        free(b[i]);
    }
    release_draw(&k);
    return ok;
}

/* The case's `max`: at least 8, so that every family's ranges hold. */
static size_t dom_max(const struct prop_ctx *x, const struct pdom_fn *f)
{
    size_t max = pu_size(x->c, "max", f->max);

    return max < 8 ? 8 : max;
}

static int run_domain(const struct prop_ctx *x, const struct pdom_fn *f)
{
    size_t draws = pu_size(x->c, "draws", DOM_FAMILIES), max = dom_max(x, f);
    int returned;

    for (uint64_t d = 0; d < draws; d++) {
        char shape[200];
        int ok = one_draw(x, f, max, d, 0, &returned, shape, sizeof shape);
        if (ok != 1)
            return ok < 0 ? -1 : 0;
    }
    return pu_pass(x->v);
}

/* run_domain with the failing draw shrunk: the verdict of the smallest
 * shapes that still fail (halved from the draw's, same seed and family),
 * while halving changes them. */
static int run_domain_shrunk(const struct prop_ctx *x)
{
    struct prop_verdict *best;
    int rc, returned;
    unsigned long long draw;
    const struct pdom_fn *f;
    char first[200] = "", last[200] = "", shape[200];

    if (x->env->reference == NULL)
        return err_set(x->e, NULL, 0, 0, "'%s' needs the reference solution", x->t->id);
    if ((f = dom_fn_of(x)) == NULL)
        return -1;
    rc = run_domain(x, f);
    if (rc < 0 || x->v->passed || sscanf(x->v->msg, "draw %llu (", &draw) != 1)
        return rc;
    if ((best = malloc(sizeof *best)) == NULL)
        return rc;
    *best = *x->v;
    for (int s = 1; s <= DOM_SHRINK_MAX; s++) {
        int ok = one_draw(x, f, dom_max(x, f), draw - 1, s, &returned, shape, sizeof shape);
        if (ok < 0) {
            free(best);
            return -1;
        }
        if (ok == 1 || !returned || strcmp(shape, last) == 0)
            break; /* passes, fails otherwise, or no smaller than the last */
        if (s == 1) { /* the draw's own shapes, before any halving */
            char *p = strchr(best->msg, ';');
            char *q = p ? strstr(p, "): ") : NULL;
            if (p && q)
                snprintf(first, sizeof first, "%.*s", (int)(q - p - 2), p + 2);
        }
        *best = *x->v;
        snprintf(last, sizeof last, "%s", shape);
    }
    *x->v = *best;
    free(best);
    if (first[0] != '\0') {
        size_t len = strlen(x->v->msg);
        snprintf(x->v->msg + len, sizeof x->v->msg - len,
                 "; shrunk from %s: the smallest of its halvings that still fails", first);
    }
    pu_hint(x->v, "%s", f->hint);
    return 0;
}

/* ---- the table ----------------------------------------------------------- */

/* Default tolerances: each function's matches_reference default, plus the
 * bound of the draw's own arithmetic (each row's `bound`). */
const struct prop_def pdom_defs[] = {
    {"softmax", "domain", run_domain_shrunk, keys_domain, 2e-5, 1,
     "cases drawn across the header's whole domain, against the reference",
     NULL, PROP_VALUE_TEST},
    {"sdpa", "domain", run_domain_shrunk, keys_domain, 1e-4, 1,
     "cases drawn across the header's whole domain, against the reference",
     NULL, PROP_VALUE_TEST},
    {"pe", "domain", run_domain_shrunk, keys_domain, 1e-4, 1,
     "cases drawn across the header's whole domain, against the reference",
     NULL, PROP_VALUE_TEST},
    {"layernorm", "domain", run_domain_shrunk, keys_domain, 2e-4, 1,
     "cases drawn across the header's whole domain, against the reference",
     NULL, PROP_VALUE_TEST},
    {"mha", "domain", run_domain_shrunk, keys_domain, 5e-4, 1,
     "cases drawn across the header's whole domain, against the reference",
     NULL, PROP_VALUE_TEST},
    {"block", "domain", run_domain_shrunk, keys_domain, 1e-3, 1,
     "cases drawn across the header's whole domain, against the reference",
     NULL, PROP_VALUE_TEST},
};
const size_t pdom_count = sizeof pdom_defs / sizeof pdom_defs[0];
