/* prop_softmax.c -- the properties of attn_softmax_rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_common.h"
#include "props/prop_defs.h"
#include "props/prop_util.h"

/* float32 unit roundoff */
#define U 0x1p-24

static const char *const keys_shape[] = {"rows", "cols", "scale", NULL};
static const char *const keys_stable[] = {"rows", "cols", "magnitude", NULL};
static const char *const keys_shift[] = {"rows", "cols", "scale", "shift", NULL};
static const char *const keys_values[] = {"cols", "values", "expected", NULL};

/* ---- rows_sum_to_one ----------------------------------------------------- */

/*
 * A row sum of `cols` float terms carries at most ~cols*u of rounding
 * (gamma_n), and each entry one division; so a row may miss 1 by
 * tol + 2*cols*u. An entry may exceed 1 by one rounding when x/s is done
 * as x*(1/s).
 */
static int check_rows(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    const double row_tol = pc_tol(x) + 2.0 * (double)k->cols * U;

    for (size_t r = 0; r < k->rows; r++) {
        const float *y = k->out[0] + r * k->cols;
        double sum = 0.0;
        for (size_t j = 0; j < k->cols; j++) {
            if (!(y[j] >= 0.0f && y[j] <= 1.0f + 2 * U))
                return pu_fail(x->v, "entry (%zu, %zu) is %.9g, outside [0, 1], in %s", r, j,
                               (double)y[j], label);
            sum += y[j];
        }
        if (fabs(sum - 1.0) > row_tol) {
            pu_fail(x->v, "row %zu sums to %.6f (expected 1 +- %.1e) in %s", r, sum,
                    row_tol, label);
            pu_hint(x->v, "each row sums to %.4g on a %zu-column input: normalising over the "
                    "wrong axis, or forgetting to divide by the sum?", sum, k->cols);
            return 0;
        }
    }
    return 1;
}

static const struct pc_prop steps_rows_sum = {ASG_SOFTMAX, NULL, NULL, NULL, check_rows};

/* ---- stable -------------------------------------------------------------- */

/*
 * Rows of huge logits: row 0 all +m, row 1 all -m (both uniform), the others
 * uniform in [-m, m] with one entry at m + 100 (in the first column in row
 * 2, the last in row 3, the second in row 4, anywhere after), which must
 * come out one-hot (the runner-up weighs at most e^-100). Without the max
 * shift exp(+m) overflows to Inf and exp(-m) underflows to 0, so Inf/Inf
 * or 0/0 is NaN.
 */
static void fill_stable(struct pc_call *k, double m, struct pu_rng *rng, size_t *hot)
{
    for (size_t r = 0; r < k->rows; r++) {
        float *x = k->init[0] + r * k->cols;
        hot[r] = k->cols;
        for (size_t j = 0; j < k->cols; j++) {
            double u = 2 * pu_rng_uniform(rng) - 1;
            /* row 4's others are <= 0: a maximum that misses its dominant
             * entry is short by m + 100 at least, past what exp() of a
             * double holds once m > 610 */
            x[j] = (float)(r == 0 ? m : r == 1 ? -m : r == 4 ? m * (u - 1) / 2 : m * u);
        }
        if (r >= 2) {
            hot[r] = pu_rng_below(rng, k->cols);
            /* rows 2, 3 and 4 put the dominant logit at the edges and next
             * to the first column, where an off-by-one in the search for
             * the maximum (its start or its end) misses it */
            if (r == 2 || r == 3 || (r == 4 && k->cols > 1))
                hot[r] = r == 2 ? 0 : r == 3 ? k->cols - 1 : 1;
            x[hot[r]] = (float)(m + 100.0);
        }
    }
}

/* The expected value of (r, j) for fill_stable. */
static double stable_expected(const struct pc_call *k, const size_t *hot, size_t r,
                              size_t j)
{
    if (hot[r] == k->cols)
        return 1.0 / (double)k->cols;
    return j == hot[r] ? 1.0 : 0.0;
}

/* The run's state: the magnitude and each row's dominant column. */
struct stable {
    double m;
    size_t *hot;
};

static int fill_stable_step(const struct prop_ctx *x, struct pc_call *k)
{
    struct stable *st = k->arg;
    struct pu_rng rng;

    if ((st->hot = calloc(k->rows, sizeof *st->hot)) == NULL)
        return err_set(x->e, NULL, 0, 0, "out of memory");
    pu_rng_seed(&rng, pu_case_seed(x->env, x->t, x->c) ^ 0x5717ab1e);
    fill_stable(k, st->m, &rng, st->hot);
    return 1;
}

/* Whether row r (one dominant entry) came out right: the premise of "the
 * search for the maximum skips a column" is that some such row did (the
 * skipped column is not where its dominant entry is). */
static int stable_row_right(const struct pc_call *k, const size_t *hot, size_t r, double tol)
{
    for (size_t j = 0; j < k->cols; j++)
        if (!pu_close(stable_expected(k, hot, r, j), k->out[0][r * k->cols + j],
                      tol + 2.0 * (double)k->cols * U, 0))
            return 0;
    return 1;
}

static int check_stable(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    const struct stable *st = k->arg;
    const size_t *hot = st->hot;
    const double tol = pc_tol(x), m = st->m;
    struct prop_verdict *v = x->v;

    for (size_t r = 0; r < k->rows; r++)
        for (size_t j = 0; j < k->cols; j++) {
            double want = stable_expected(k, hot, r, j), got = k->out[0][r * k->cols + j];
            if (pu_close(want, got, tol + 2.0 * (double)k->cols * U, 0))
                continue;
            pu_fail(v, "entry (%zu, %zu) is %.9g, expected %.9g, for logits of magnitude "
                    "%g (row %zu: %s) in %s", r, j, got, want, m, r,
                    r == 0 ? "all +m" : r == 1 ? "all -m" : "one dominant entry", label);
            if (isfinite(got)) {
                pu_hint(v, "large logits must still give the exact softmax");
            } else if (r >= 2) {  /* rows 0 and 1 passed: something is subtracted */
                int some_right = 0;
                for (size_t r2 = 2; r2 < k->rows; r2++)
                    some_right |= stable_row_right(k, hot, r2, tol);
                if (some_right)
                    pu_hint(v, "the maximum subtracted is not the row's: its largest entry, "
                            "in column %zu, overflowed exp(). Does the search for the "
                            "maximum visit every column?", hot[r]);
                else    /* every dominant entry overflowed, wherever it was */
                    pu_hint(v, "what is subtracted from a row is not its maximum: rows "
                            "of equal logits come out right, but a row's one dominant "
                            "entry overflowed exp()");
            }
            else
                pu_hint(v, "exp() of a large logit overflows to Inf (or underflows to 0, "
                        "giving 0/0): subtract the row's maximum before exponentiating");
            return 0;
        }
    return 1;
}

static int run_stable(const struct prop_ctx *x)
{
    static const struct pc_prop p = {ASG_SOFTMAX, NULL, fill_stable_step, NULL,
                                     check_stable};
    struct stable st = {spec_num(x->c, "magnitude", 1e4), NULL};
    int ok = pc_steps(x, &p, &st);

    free(st.hot);
    return pu_outcome(ok, x->v);
}

/* ---- shift_invariance ---------------------------------------------------- */

/* Row r is shifted by shift * (r + 1) / rows: a different constant per row,
 * so that normalising down the columns shows. */
static double row_shift(const struct pc_call *k, double shift, size_t r)
{
    return shift * (double)(r + 1) / (double)k->rows;
}

/*
 * x + c is rounded to float: each logit moves by up to u*|x + c|, which
 * exp() turns into a relative change of the same size; so entries may
 * differ by tol + 2*u*(|c| + max|x|) + 2*cols*u.
 */
static int check_shift(const struct pc_call *k, const float *base, double shift,
                       double tol, struct prop_verdict *v, const char *label)
{
    for (size_t r = 0; r < k->rows; r++) {
        double c = row_shift(k, shift, r);
        double atol = tol + 2 * U * (fabs(c) + 10.0) + 2.0 * (double)k->cols * U;
        for (size_t j = 0; j < k->cols; j++) {
            size_t i = r * k->cols + j;
            if (pu_close(base[i], k->out[0][i], atol, 0))
                continue;
            pu_fail(v, "adding %g to row %zu changed entry (%zu, %zu) from %.9g to %.9g "
                    "(tolerance %.2e) in %s", c, r, r, j, (double)base[i],
                    (double)k->out[0][i], atol, label);
            pu_hint(v, "softmax(x + c) = softmax(x) for a constant c per row: %s",
                    isfinite(k->out[0][i]) ? "is the sum taken over the row?" :
                    "exp() overflows; subtract the row's maximum first");
            return 0;
        }
    }
    return 1;
}

/* The first call's output, then the shifted call checked against it. */
static int shift_step(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    double shift = spec_num(x->c, "shift", 100.0);
    float *base = pu_floats(k->out_len[0]);
    int ok;

    if (base == NULL)
        return err_set(x->e, NULL, 0, 0, "out of memory");
    memcpy(base, k->out[0], k->out_len[0] * sizeof *base);
    for (size_t i = 0; i < k->out_len[0]; i++)
        k->init[0][i] = (float)(k->init[0][i] + row_shift(k, shift, i / k->cols));
    ok = pc_call_again(x, k);
    if (ok == 1)
        ok = check_shift(k, base, shift, pc_tol(x), x->v, label);
    free(base);
    return ok;
}

static const struct pc_prop steps_shift = {ASG_SOFTMAX, NULL, NULL, NULL, shift_step};

/* ---- monotonic ----------------------------------------------------------- */

/* Within a row a larger logit never gets a smaller weight (exp is
 * increasing and every entry shares the row's divisor); rounding can only
 * make two weights equal, so the check is exact. */
static int check_monotonic(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    for (size_t r = 0; r < k->rows; r++) {
        const float *in = k->init[0] + r * k->cols, *y = k->out[0] + r * k->cols;
        for (size_t a = 0; a < k->cols; a++)
            for (size_t b = 0; b < k->cols; b++) {
                if (!(in[a] < in[b]) || y[a] <= y[b])
                    continue;
                pu_fail(x->v, "row %zu: logit %zu (%.6g) < logit %zu (%.6g) but weight %.6g > "
                        "%.6g in %s", r, a, (double)in[a], b, (double)in[b], (double)y[a],
                        (double)y[b], label);
                pu_hint(x->v, "softmax keeps the order of a row: each entry is exp(x_j) over "
                        "the same row sum. Is the sum taken over the row?");
                return 0;
            }
    }
    return 1;
}

static const struct pc_prop steps_monotonic = {ASG_SOFTMAX, NULL, NULL,
                                               NULL, check_monotonic};

/* ---- values -------------------------------------------------------------- */

/* Logits written in the spec (build step; check_values reads the expected
 * weights). */
static int values_setup(const struct prop_ctx *x, struct pc_call *k)
{
    const struct spec_case *c = x->c;
    const struct spec_param *in = spec_param(c, "values");
    const struct spec_param *exp = spec_param(c, "expected");
    struct err *e = x->e;

    k->fn = ASG_SOFTMAX;
    k->mask_kind = "none";
    k->cols = pu_size(c, "cols", in && in->kind == SPEC_LIST ? in->list_len : 1);
    if (!in || !exp || in->kind != SPEC_LIST || exp->kind != SPEC_LIST ||
        in->list_len != exp->list_len || k->cols == 0 || in->list_len % k->cols)
        return err_set(e, NULL, c->line, c->col, "softmax 'values' case needs lists "
                       "'values' and 'expected' of equal length, a multiple of 'cols'");
    k->rows = in->list_len / k->cols;
    k->out[0] = pu_floats(in->list_len);
    k->init[0] = pu_floats(in->list_len);
    k->out_len[0] = in->list_len;
    k->out_name[0] = "x";
    k->n_out = 1;
    if (!k->out[0] || !k->init[0])
        return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < in->list_len; i++)
        k->init[0][i] = (float)in->list[i];
    return 0;
}

static int check_values(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    const double *want = spec_param(x->c, "expected")->list, tol = pc_tol(x);
    struct prop_verdict *v = x->v;

    for (size_t i = 0; i < k->out_len[0]; i++) {
        if (pu_close(want[i], k->out[0][i], tol, 0))
            continue;
        pu_fail(v, "entry (%zu, %zu) is %.9g, expected %.9g +- %g (logit %.9g) in %s",
                i / k->cols, i % k->cols, (double)k->out[0][i], want[i], tol,
                (double)k->init[0][i], label);
        return 0;
    }
    return pc_check_seeded(x);
}

static const struct pc_prop steps_values = {ASG_SOFTMAX, values_setup, NULL,
                                            NULL, check_values};

/* ---- the table ----------------------------------------------------------- */

/*
 * Default tolerances (absolute, on weights in [0, 1]); derivations in
 * specs/README.md "Tolerances / softmax". matches_reference: a float
 * implementation's entry errs by <= y*(u*(|x_j - max| + 1) + cols*u), and
 * y*|x_j - max| <= 1/e, so cols*u dominates: 2e-5 covers cols <= 256 at
 * the worst-case bound (realistic sqrt(cols)*u is 20x smaller).
 */
const struct prop_def prop_softmax_defs[] = {
    {"softmax", "rows_sum_to_one", pc_run_def, keys_shape, 1e-5, 0,
     "every entry in [0, 1] and every row sums to 1", &steps_rows_sum, PROP_INVARIANT},
    {"softmax", "stable", run_stable, keys_stable, 1e-6, 0,
     "logits of +-1e4: no NaN/Inf, a dominant entry gives one-hot", NULL, PROP_INVARIANT},
    {"softmax", "shift_invariance", pc_run_def, keys_shift, 1e-6, 0,
     "adding a constant to a row changes nothing", &steps_shift, PROP_INVARIANT},
    {"softmax", "monotonic", pc_run_def, keys_shape, 0, 0,
     "a larger logit never gets a smaller weight", &steps_monotonic, PROP_INVARIANT},
    {"softmax", "values", pc_run_def, keys_values, 1e-6, 0,
     "hand-computed values written in the spec", &steps_values, PROP_VALUE_TEST},
    {"softmax", "einval", pc_run_einval, pc_generic_keys, 0, 0,
     "NULL x or a zero size returns ATTN_EINVAL and writes nothing", NULL, PROP_INVARIANT},
    {"softmax", "deterministic", pc_run_deterministic, pc_generic_keys, 0, 0,
     "two calls give bit-identical results", NULL, PROP_INVARIANT},
    {"softmax", "no_leaks", pc_run_no_leaks, pc_generic_keys, 0, 0,
     "every allocation freed before returning", NULL, PROP_INVARIANT},
    {"softmax", "speed", pc_run_speed, pc_generic_keys, 0, 1,
     "not much slower than the reference on a large input", NULL, PROP_INVARIANT},
    {"softmax", "matches_reference", pc_run_matches_reference, pc_generic_keys, 2e-5, 1,
     "elementwise agreement with the reference", NULL, PROP_VALUE_TEST},
};
const size_t prop_softmax_count = sizeof prop_softmax_defs / sizeof prop_softmax_defs[0];
