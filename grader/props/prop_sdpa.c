/* prop_sdpa.c -- the properties of attn_scaled_dot_product: shared helpers,
 * weights, masks, permutations and metamorphic checks, and the table. The
 * checks against trusted attention and the spec's values are in
 * prop_sdpa_values.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_common.h"
#include "props/prop_defs.h"
#include "props/prop_premise.h"
#include "props/prop_sdpa.h"
#include "oracle/oracle.h"
#include "props/prop_util.h"

#define U 0x1p-24

static const char *const keys_shape[] = {"n_q", "n_k", "d_k", "d_v", "scale", "mask", NULL};
static const char *const keys_affine[] = {"n_q", "n_k", "d_k", "d_v", "scale", "mask", "a", NULL};
static const char *const keys_cq[] = {"n_q", "n_k", "d_k", "d_v", "scale", "mask", "c", NULL};
static const char *const keys_retrieval[] = {"n_q", "n_k", "d_k", "d_v", "strength", NULL};
static const char *const keys_scale_d[] = {"n_q", "n_k", "d_list", NULL};
static const char *const keys_values[] = {"n_q", "n_k", "d_k", "d_v", "q", "k", "v",
                                          "expected", "expected_weights", NULL};

/* ---- shared helpers ------------------------------------------------------ */

static double max_abs(const float *x, size_t n)
{
    double m = 0.0;

    for (size_t i = 0; i < n; i++)
        if (fabs((double)x[i]) > m)
            m = fabs((double)x[i]);
    return m;
}

/*
 * Absolute tolerance on an output. A logit is a float dot product of d_k
 * terms: error <~ d_k*u*sum|q_t k_t|/sqrt(d_k), i.e. ~d_k*u for unit-scale
 * inputs, and softmax turns a logit error into the same relative weight
 * error. The output sums n_k weighted values: n_k*u*max|V| more. So
 * atol = max(1, max|V|) * (tol + 4*(n_k + d_k)*u).
 */
double psd_out_atol(const struct pc_call *k, double tol)
{
    double vmax = max_abs(k->in[2], k->in_len[2]);

    return (vmax > 1 ? vmax : 1) * (tol + 4.0 * (double)(k->n_k + k->d_k) * U);
}

/* Weights are in [0, 1]: the same bound without the value scale. */
static double w_atol(const struct pc_call *k, double tol)
{
    return tol + 4.0 * (double)(k->n_k + k->d_k) * U;
}

int psd_trusted(const struct pc_call *k, const unsigned char *mask, double scale,
                double **out, double **w, struct err *e)
{
    int rc = -1;

    *out = calloc(k->n_q * k->d_v, sizeof **out);
    *w = calloc(k->n_q * k->n_k, sizeof **w);
    if (*out != NULL && *w != NULL)
        rc = orc_sdpa(k->orc, k->in[0], k->in[1], k->in[2], k->n_q, k->n_k, k->d_k,
                      k->d_v, mask, scale, *out, *w);
    if (rc == 0)
        return 0;
    free(*out);
    free(*w);
    *out = *w = NULL;
    return rc == ORC_MISSING ? ORC_MISSING
                             : err_set(e, NULL, 0, 0, "out of memory computing trusted attention");
}

double psd_api_scale(const struct pc_call *k)
{
    return 1.0 / sqrt((double)k->d_k);
}

/* Compare a float matrix (rows x cols) with doubles; 1 when close. */
int psd_close_matrix(const float *got, const double *want, size_t rows, size_t cols,
                     double atol, const char *name, struct prop_verdict *v,
                     const char *label)
{
    for (size_t i = 0; i < rows * cols; i++) {
        if (pu_close(want[i], got[i], atol, 0))
            continue;
        pu_fail(v, "%s (%zu, %zu) is %.9g, expected %.9g +- %.2e in %s", name, i / cols,
                i % cols, (double)got[i], want[i], atol, label);
        return 0;
    }
    return 1;
}

/* out and weights of k against trusted attention with k's mask. */
int psd_matches_trusted(const struct pc_call *k, double tol, struct prop_verdict *v,
                        const char *label, struct err *e)
{
    double *out, *w;
    int ok;

    if ((ok = psd_trusted(k, k->mask, psd_api_scale(k), &out, &w, e)) != 0)
        return ok < 0 ? -1 : pu_no_oracle(v, label);
    ok = psd_close_matrix(k->out[1], w, k->n_q, k->n_k, w_atol(k, tol), "weight", v, label) &&
         psd_close_matrix(k->out[0], out, k->n_q, k->d_v, psd_out_atol(k, tol), "out", v, label);
    free(out);
    free(w);
    return ok;
}

static int visible(const struct pc_call *k, size_t i, size_t j)
{
    return k->mask == NULL || k->mask[i * k->n_k + j] != 0;
}

static int row_hidden(const struct pc_call *k, size_t i)
{
    for (size_t j = 0; j < k->n_k; j++)
        if (visible(k, i, j))
            return 0;
    return 1;
}

/* ---- weights_rows_sum_to_one --------------------------------------------- */

static int check_rows(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    double tol = pc_tol(x) + 2.0 * (double)k->n_k * U;

    for (size_t i = 0; i < k->n_q; i++) {
        const float *w = k->out[1] + i * k->n_k;
        double sum = 0.0;
        for (size_t j = 0; j < k->n_k; j++) {
            if (!(w[j] >= 0.0f && w[j] <= 1.0f + 2 * U))
                return pu_fail(x->v, "weight (%zu, %zu) is %.9g, outside [0, 1], in %s", i,
                               j, (double)w[j], label);
            sum += w[j];
        }
        if (!row_hidden(k, i) && fabs(sum - 1.0) > tol) {
            pu_fail(x->v, "row %zu of the weights sums to %.6f (expected 1 +- %.1e) in %s", i,
                    sum, tol, label);
            /* An unwritten weight is NaN (outside [0, 1] above): a row of
             * zeros was written, as for a query that sees no key. */
            if (sum == 0.0)
                pu_hint(x->v, "row %zu's weights are all 0, as if every key were hidden, "
                        "though %s", i, k->mask ? "the mask shows it some" :
                        "there is no mask (NULL: every key is visible)");
            else
                pu_hint(x->v, "softmax along the row of Q K^T/sqrt(d_k): each query's "
                        "weights over the keys sum to one");
            return 0;
        }
    }
    return 1;
}

static const struct pc_prop steps_rows_sum = {ASG_SDPA, NULL, NULL, NULL, check_rows};

/* ---- masked_weights_zero, fully_masked_row, causal ---------------------- */

/* Every hidden key has weight exactly 0 (not merely small). */
static int masked_exact_zero(const struct pc_call *k, struct prop_verdict *v,
                             const char *label)
{
    for (size_t i = 0; i < k->n_q; i++)
        for (size_t j = 0; j < k->n_k; j++) {
            float w = k->out[1][i * k->n_k + j];
            if (visible(k, i, j) || w == 0.0f)
                continue;
            pu_fail(v, "key %zu is hidden from query %zu (mask 0) but its weight is "
                    "%.9g, not exactly 0, in %s", j, i, (double)w, label);
            pu_hint(v, "mask[i*n_k + j] == 0 hides key j: give it weight exactly 0 "
                    "(leave it out of the max and the sum). Is the mask test inverted?");
            return 0;
        }
    return 1;
}

/* masked_exact_zero in a check: its hint ("is the mask test inverted?")
 * only when the premise mask holds on this call (a NaN weight, a scale or
 * an index wrong everywhere is no mask read the wrong way). 1, 0, -1. */
static int hidden_keys_zero(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    int holds;

    if (masked_exact_zero(k, x->v, label))
        return 1;
    if ((holds = ppr_holds("mask", x, k)) == 0)
        x->v->hint[0] = '\0';
    return holds < 0 ? -1 : 0;
}

static int check_masked(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    int ok;

    if ((ok = hidden_keys_zero(x, k, label)) != 1)
        return ok;
    return psd_matches_trusted(k, pc_tol(x), x->v, label, x->e);
}

static const struct pc_prop steps_masked = {ASG_SDPA, NULL, NULL, NULL, check_masked};

/* Whether row i's weights are all 1/n_k. */
static int uniform_row(const struct pc_call *k, size_t i)
{
    for (size_t j = 0; j < k->n_k; j++)
        if (fabs(k->out[1][i * k->n_k + j] - 1.0 / (double)k->n_k) > 1e-6)
            return 0;
    return 1;
}

/* A query with every key hidden: weights 0, output 0, never NaN. */
static int hidden_rows_zero(const struct pc_call *k, struct prop_verdict *v,
                            const char *label)
{
    for (size_t i = 0; i < k->n_q; i++) {
        if (!row_hidden(k, i))
            continue;
        for (size_t j = 0; j < k->n_k + k->d_v; j++) {
            int is_w = j < k->n_k;
            float x = is_w ? k->out[1][i * k->n_k + j] : k->out[0][i * k->d_v + j - k->n_k];
            if (x == 0.0f)
                continue;
            pu_fail(v, "query %zu sees no key (its mask row is all 0) but %s %zu is %.9g, "
                    "expected exactly 0, in %s", i, is_w ? "weight" : "output column",
                    is_w ? j : j - k->n_k, (double)x, label);
            /* Facts only: a NaN is 0/0 or a row never written (the grader
             * fills outputs with NaN), uniform weights come from -1e9 or
             * from a fallback written on purpose. */
            if (isnan(x))
                pu_hint(v, "when every key is hidden the sum of exponentials is 0: write "
                        "zero weights and a zero output for such a query (a NaN here is "
                        "0/0, or a row never written: the grader fills outputs with NaN)");
            else if (uniform_row(k, i))
                pu_hint(v, "query %zu sees no key, and its weights are all 1/n_k: it must "
                        "get zero weights and a zero output, not uniform ones", i);
            else
                pu_hint(v, "a query that sees no key gets zero weights and a zero output");
            return 0;
        }
    }
    return 1;
}

static int check_full(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    int ok;

    if (!hidden_rows_zero(k, x->v, label)) {
        /* its hints speak of the queries that see no key: shown only when
         * the failure is in those alone (an index wrong everywhere leaves
         * NaN there too) */
        int holds = ppr_holds("hidden_rows", x, k);
        if (holds == 0)
            x->v->hint[0] = '\0';
        return holds < 0 ? -1 : 0;
    }
    if ((ok = hidden_keys_zero(x, k, label)) != 1)
        return ok;
    return psd_matches_trusted(k, pc_tol(x), x->v, label, x->e);
}

static const struct pc_prop steps_full = {ASG_SDPA, NULL, NULL, NULL, check_full};

/* Causal: query i's output depends only on keys 0..i. Redraw the keys and
 * values from h = n_k/2 on; outputs of queries before h must not move. */
static int check_causal_future(const struct prop_ctx *x, struct pc_call *k,
                               double tol, const char *label)
{
    size_t h = k->n_k / 2, nq = k->n_q < h ? k->n_q : h;
    double atol = psd_out_atol(k, tol);
    float *before = pu_floats(k->out_len[0]);
    struct pu_rng rng;
    int ok;

    if (before == NULL)
        return err_set(x->e, NULL, 0, 0, "out of memory");
    memcpy(before, k->out[0], k->out_len[0] * sizeof *before);
    pu_rng_seed(&rng, 0xca05a1);
    pu_fill_gauss(k->in[1] + h * k->d_k, (k->n_k - h) * k->d_k, &rng, 3.0);
    pu_fill_gauss(k->in[2] + h * k->d_v, (k->n_k - h) * k->d_v, &rng, 3.0);
    ok = pc_call_again(x, k);
    for (size_t i = 0; ok == 1 && i < nq * k->d_v; i++)
        if (!pu_close(before[i], k->out[0][i], atol, 0)) {
            ok = pu_fail(x->v, "with a causal mask, changing keys/values %zu.. moved the output "
                         "of query %zu (column %zu: %.9g became %.9g) in %s", h,
                         i / k->d_v, i % k->d_v, (double)before[i], (double)k->out[0][i],
                         label);
            pu_hint(x->v, "query i may only see keys 0..i: the future must not leak");
        }
    free(before);
    return ok;
}

static int check_causal(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    int ok;

    if (strcmp(k->mask_kind, "causal") != 0)
        return err_set(x->e, NULL, 0, 0, "'%s' needs mask: causal", x->t->id);
    if ((ok = hidden_keys_zero(x, k, label)) != 1)
        return ok;
    ok = psd_matches_trusted(k, pc_tol(x), x->v, label, x->e);
    if (ok != 1)
        return ok;
    return check_causal_future(x, k, pc_tol(x), label);
}

static const struct pc_prop steps_causal = {ASG_SDPA, NULL, NULL, NULL, check_causal};

/* ---- permutations ------------------------------------------------------- */

/* Rows of M (rows x cols) permuted in place: new row i = old row p[i]. */
static int permute_rows(float *M, size_t rows, size_t cols, const size_t *p)
{
    float *tmp = pu_floats(rows * cols);

    if (tmp == NULL)
        return -1;
    for (size_t i = 0; i < rows; i++)
        memcpy(tmp + i * cols, M + p[i] * cols, cols * sizeof *M);
    memcpy(M, tmp, rows * cols * sizeof *M);
    free(tmp);
    return 0;
}

/* Mask rows (queries) or columns (keys) permuted likewise. */
static int permute_mask(struct pc_call *k, const size_t *p, int by_key)
{
    unsigned char *m = k->mask, *tmp;

    if (m == NULL)
        return 0;
    if ((tmp = pu_bytes(k->n_q * k->n_k)) == NULL)
        return -1;
    for (size_t i = 0; i < k->n_q; i++)
        for (size_t j = 0; j < k->n_k; j++)
            tmp[i * k->n_k + j] = by_key ? m[i * k->n_k + p[j]] : m[p[i] * k->n_k + j];
    memcpy(m, tmp, k->n_q * k->n_k);
    free(tmp);
    return 0;
}

/* got (rows x cols) vs want with rows (by_row) or columns remapped by p
 * (NULL: not remapped). */
static int close_permuted(const float *got, const float *want, size_t rows, size_t cols,
                          const size_t *p, int by_row, double atol, const char *name,
                          struct prop_verdict *v, const char *label)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            double w = p == NULL ? want[i * cols + j] :
                       by_row ? want[p[i] * cols + j] : want[i * cols + p[j]];
            double g = got[i * cols + j];
            if (pu_close(w, g, atol, 0))
                continue;
            return pu_fail(v, "after the permutation %s (%zu, %zu) is %.9g, expected %.9g "
                           "+- %.2e in %s", name, i, j, g, w, atol, label);
        }
    return 1;
}

/* Snapshot out/weights, permute (queries or keys+values), call again, and
 * compare; 1 when the outputs moved exactly as the permutation says. */
static int permuted_call(const struct prop_ctx *x, struct pc_call *k, int by_key,
                         const char *label)
{
    size_t n = by_key ? k->n_k : k->n_q, *p = calloc(n, sizeof *p);
    float *o1 = pu_floats(k->out_len[0]), *w1 = pu_floats(k->out_len[1]);
    struct pu_rng rng;
    int ok = -1;

    if (!p || !o1 || !w1)
        goto done;
    memcpy(o1, k->out[0], k->out_len[0] * sizeof *o1);
    memcpy(w1, k->out[1], k->out_len[1] * sizeof *w1);
    pu_rng_seed(&rng, 0x9e3779b9u + n);
    pu_permutation(p, n, &rng);
    if ((by_key ? permute_rows(k->in[1], k->n_k, k->d_k, p) ||
                  permute_rows(k->in[2], k->n_k, k->d_v, p) :
                  permute_rows(k->in[0], k->n_q, k->d_k, p)) ||
        permute_mask(k, p, by_key) < 0)
        goto done;
    if ((ok = pc_call_again(x, k)) != 1)
        goto done;
    ok = close_permuted(k->out[0], o1, k->n_q, k->d_v, by_key ? NULL : p, 1,
                        psd_out_atol(k, pc_tol(x)), "out", x->v, label) &&
         close_permuted(k->out[1], w1, k->n_q, k->n_k, p, !by_key, w_atol(k, pc_tol(x)),
                        "weight", x->v, label);
done:
    if (ok < 0 && !(p && o1 && w1))
        err_set(x->e, NULL, 0, 0, "out of memory");
    free(p);
    free(o1);
    free(w1);
    return ok;
}

static int check_qperm(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    int ok = permuted_call(x, k, 0, label);

    if (ok == 0)
        pu_hint(x->v, "each query is answered on its own: reordering the queries must only "
                "reorder the output rows. Is a query's position (or a mask you did not "
                "get) used?");
    return ok;
}

static int check_kvperm(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    int ok = permuted_call(x, k, 1, label);

    if (ok == 0)
        pu_hint(x->v, "attention is a weighted average over the (key, value) pairs: their "
                "order must not matter. Is V_j paired with the wrong key, or a causal "
                "mask applied that the caller did not ask for?");
    return ok;
}

static const struct pc_prop steps_qperm = {ASG_SDPA, NULL, NULL, NULL, check_qperm};
static const struct pc_prop steps_kvperm = {ASG_SDPA, NULL, NULL, NULL, check_kvperm};

/* ---- affine_in_v, output_in_value_range ---------------------------------- */

/* out' for V' = a V + b must be a out + b: the weights sum to one. */
static int check_affine(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    double a = spec_num(x->c, "a", 2.0), *b = calloc(k->d_v, sizeof *b), atol;
    float *o1 = pu_floats(k->out_len[0]);
    struct pu_rng rng;
    int ok;

    if (!b || !o1) {
        free(b);
        free(o1);
        return err_set(x->e, NULL, 0, 0, "out of memory");
    }
    pu_rng_seed(&rng, 0xaff1e);
    for (size_t j = 0; j < k->d_v; j++)
        b[j] = 4.0 * pu_rng_gauss(&rng);
    memcpy(o1, k->out[0], k->out_len[0] * sizeof *o1);
    for (size_t i = 0; i < k->in_len[2]; i++)
        k->in[2][i] = (float)(a * k->in[2][i] + b[i % k->d_v]);
    atol = psd_out_atol(k, pc_tol(x));  /* on the new V: covers |a V + b| */
    ok = pc_call_again(x, k);
    for (size_t i = 0; ok == 1 && i < k->out_len[0]; i++) {
        size_t r = i / k->d_v;
        double want = row_hidden(k, r) ? 0.0 : a * o1[i] + b[i % k->d_v];
        if (!pu_close(want, k->out[0][i], atol, 0)) {
            ok = pu_fail(x->v, "with V' = %g V + b, out (%zu, %zu) is %.9g, expected %g*%.9g "
                         "+ %.6g = %.9g +- %.2e in %s", a, r, i % k->d_v,
                         (double)k->out[0][i], a, (double)o1[i], b[i % k->d_v], want, atol,
                         label);
            pu_hint(x->v, "a weighted average moves with its values: Attn(Q, K, aV + b) = "
                    "a Attn(Q, K, V) + b only when each query's weights sum to one");
        }
    }
    free(b);
    free(o1);
    return ok;
}

static const struct pc_prop steps_affine = {ASG_SDPA, NULL, NULL, NULL, check_affine};

/* out[i][c] lies between the smallest and largest visible V[j][c]. */
static int check_range(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    double atol = psd_out_atol(k, pc_tol(x));

    for (size_t i = 0; i < k->n_q; i++)
        for (size_t col = 0; col < k->d_v && !row_hidden(k, i); col++) {
            double lo = INFINITY, hi = -INFINITY, o = k->out[0][i * k->d_v + col];
            for (size_t j = 0; j < k->n_k; j++)
                if (visible(k, i, j)) {
                    lo = fmin(lo, k->in[2][j * k->d_v + col]);
                    hi = fmax(hi, k->in[2][j * k->d_v + col]);
                }
            if (o >= lo - atol && o <= hi + atol)
                continue;
            pu_fail(x->v, "out (%zu, %zu) is %.9g, outside the range [%.6g, %.6g] of column "
                    "%zu of the visible values (tolerance %.2e) in %s", i, col, o, lo, hi,
                    col, atol, label);
            pu_hint(x->v, "a weighted average of values cannot leave their range: are the "
                    "weights normalised (divided by the row's sum of exponentials)?");
            return 0;
        }
    return 1;
}

static const struct pc_prop steps_range = {ASG_SDPA, NULL, NULL, NULL, check_range};

/* ---- cq_k_over_c_invariance --------------------------------------------- */

/* Q K^T is unchanged by Q -> cQ, K -> K/c. Scaling rounds each input once
 * (none for a power of two), which moves a logit by ~2u relatively:
 * within out_atol. */
static int check_cq(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    double s = spec_num(x->c, "c", 4.0);
    float *o1 = pu_floats(k->out_len[0]);
    double atol;
    int ok;

    if (o1 == NULL)
        return err_set(x->e, NULL, 0, 0, "out of memory");
    memcpy(o1, k->out[0], k->out_len[0] * sizeof *o1);
    for (size_t i = 0; i < k->in_len[0]; i++)
        k->in[0][i] = (float)(s * k->in[0][i]);
    for (size_t i = 0; i < k->in_len[1]; i++)
        k->in[1][i] = (float)(k->in[1][i] / s);
    ok = pc_call_again(x, k);
    atol = psd_out_atol(k, pc_tol(x));
    for (size_t i = 0; ok == 1 && i < k->out_len[0]; i++)
        if (!pu_close(o1[i], k->out[0][i], atol, 0)) {
            ok = pu_fail(x->v, "with Q*%g and K/%g, out (%zu, %zu) changed from %.9g to %.9g in "
                         "%s", s, s, i / k->d_v, i % k->d_v, (double)o1[i],
                         (double)k->out[0][i], label);
            pu_hint(x->v, "the scores are the dot products Q_i . K_j: scaling Q up and K down "
                    "by the same factor must change nothing. Are Q and K both used, each "
                    "once, in the score?");
        }
    free(o1);
    return ok;
}

static const struct pc_prop steps_cq = {ASG_SDPA, NULL, NULL, NULL, check_cq};

/* ---- the table ----------------------------------------------------------- */

/*
 * Default tolerances: see psd_out_atol() and specs/README.md "Tolerances /
 * sdpa". matches_reference 1e-4 * max(1, |ref|): a float logit errs by
 * <= d_k*u*sum|q_t k_t|/sqrt(d_k) ~ 2e-5 at d_k = 64 (worst case), the
 * weighted sum by n_k*u*max|V|; 1e-4 covers d_k, n_k <= 128 at unit scale.
 */
const struct prop_def psd_defs[] = {
    {"sdpa", "weights_rows_sum_to_one", pc_run_def, keys_shape, 1e-5, 0,
     "each query's weights are in [0, 1] and sum to 1", &steps_rows_sum, PROP_INVARIANT},
    {"sdpa", "masked_weights_zero", pc_run_def, keys_shape, 1e-5, 0,
     "hidden keys get weight exactly 0; the output still matches",
     &steps_masked, PROP_VALUE_TEST},
    {"sdpa", "fully_masked_row", pc_run_def, keys_shape, 1e-5, 0,
     "a query with every key hidden gets zero weights and output, never NaN",
     &steps_full, PROP_VALUE_TEST},
    {"sdpa", "causal", pc_run_def, keys_shape, 1e-5, 0,
     "with a causal mask the future does not leak into the past",
     &steps_causal, PROP_VALUE_TEST},
    {"sdpa", "query_permutation_equivariance", pc_run_def, keys_shape, 1e-5, 0,
     "permuting the queries permutes the output rows", &steps_qperm, PROP_INVARIANT},
    {"sdpa", "kv_permutation_invariance", pc_run_def, keys_shape, 1e-5, 0,
     "permuting keys and values together changes nothing", &steps_kvperm, PROP_INVARIANT},
    {"sdpa", "affine_in_v", pc_run_def, keys_affine, 1e-5, 0,
     "Attn(Q, K, aV + b) = a Attn(Q, K, V) + b", &steps_affine, PROP_INVARIANT},
    {"sdpa", "output_in_value_range", pc_run_def, keys_shape, 1e-5, 0,
     "each output lies within its column's range of values", &steps_range, PROP_INVARIANT},
    {"sdpa", "cq_k_over_c_invariance", pc_run_def, keys_cq, 1e-5, 0,
     "Attn(cQ, K/c, V) = Attn(Q, K, V)", &steps_cq, PROP_INVARIANT},
    {"sdpa", "retrieval", pc_run_def, keys_retrieval, 1e-5, 0,
     "a query equal to a one-hot key returns that key's value",
     &psd_retrieval, PROP_INVARIANT},
    {"sdpa", "scale_across_d", psd_run_scale_d, keys_scale_d, 1e-3, 0,
     "the mean max weight follows the 1/sqrt(d_k) scale as d_k grows", NULL, PROP_INVARIANT},
    {"sdpa", "non_square", pc_run_def, keys_shape, 1e-5, 0,
     "n_q != n_k and d_k != d_v against trusted attention",
     &psd_non_square, PROP_VALUE_TEST},
    {"sdpa", "null_weights_and_mask", pc_run_def, keys_shape, 1e-5, 0,
     "weights = NULL and mask = NULL are accepted", &psd_null, PROP_VALUE_TEST},
    {"sdpa", "values", pc_run_def, keys_values, 1e-5, 0,
     "a small hand-computed case written in the spec", &psd_values, PROP_VALUE_TEST},
    {"sdpa", "einval", pc_run_einval, pc_generic_keys, 0, 0,
     "NULL Q/K/V/out or a zero size returns ATTN_EINVAL and writes nothing",
     NULL, PROP_INVARIANT},
    {"sdpa", "inputs_unchanged", pc_run_inputs_unchanged, pc_generic_keys, 0, 0,
     "Q, K, V and the mask are not modified", NULL, PROP_INVARIANT},
    {"sdpa", "deterministic", pc_run_deterministic, pc_generic_keys, 0, 0,
     "two calls give bit-identical results", NULL, PROP_INVARIANT},
    {"sdpa", "no_leaks", pc_run_no_leaks, pc_generic_keys, 0, 0,
     "every allocation freed before returning", NULL, PROP_INVARIANT},
    {"sdpa", "speed", pc_run_speed, pc_generic_keys, 0, 1,
     "not much slower than the reference on a large input", NULL, PROP_INVARIANT},
    {"sdpa", "matches_reference", pc_run_matches_reference, pc_generic_keys, 1e-4, 1,
     "elementwise agreement with the reference", NULL, PROP_VALUE_TEST},
};
const size_t psd_count = sizeof psd_defs / sizeof psd_defs[0];
