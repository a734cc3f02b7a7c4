/*
 * prop_layernorm.c -- the properties of attn_layer_norm ("layernorm").
 *
 * Every property builds rows of offset + scale * N(0, 1) (row scales vary
 * between 0.5 and 1.5 times `scale`), calls the submission once on a copy,
 * and judges the copy against statistics computed in double from the
 * untouched input. On a failure, diagnose() compares the output with the
 * usual wrong formulas so that the hint names the likely mistake.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "props/prop_common.h"
#include "props/prop_defs.h"
#include "oracle/oracle.h"
#include "props/prop_util.h"

#define FN "attn_layer_norm"

struct ln_data {
    size_t rows, cols, n;
    double eps, scale, offset;
    float *in;   /* what the submission was given (kept) */
    float *x;    /* the submission's in-place result */
    double *drow, *dwant; /* one row of scratch each, for trusted math */
    struct orc *orc;      /* where expected rows come from (oracle.h) */
    char label[160];
};

static void ln_free(struct ln_data *d)
{
    free(d->in);
    free(d->x);
    free(d->drow);
    free(d->dwant);
    d->in = d->x = NULL;
    d->drow = d->dwant = NULL;
}

/* Shapes and magnitudes of a case; buffers allocated (zeroed). 0 or -1. */
static int ln_alloc(struct ln_data *d, const struct spec_test *t,
                    const struct spec_case *c, size_t rows, size_t cols,
                    struct err *e)
{
    memset(d, 0, sizeof *d);
    d->rows = rows;
    d->cols = cols;
    d->eps = (double)(float)spec_num(c, "eps", 0.0); /* what is passed */
    d->scale = spec_num(c, "scale", 1.0);
    d->offset = spec_num(c, "offset", 0.0);
    if (rows == 0 || cols == 0 || pu_mul(rows, cols, &d->n) < 0)
        return err_set(e, NULL, c->line, c->col, "'%s': bad shape %zu x %zu",
                       t->id, rows, cols);
    d->in = pu_floats(d->n);
    d->x = pu_floats(d->n);
    d->drow = calloc(cols, sizeof *d->drow);
    d->dwant = calloc(cols, sizeof *d->dwant);
    if (!d->in || !d->x || !d->drow || !d->dwant) {
        ln_free(d);
        return err_set(e, NULL, 0, 0, "out of memory in '%s'", t->id);
    }
    snprintf(d->label, sizeof d->label, "case %zu (rows=%zu, cols=%zu, eps=%g)",
             (size_t)(c - t->cases) + 1, rows, cols, d->eps);
    return 0;
}

/* Random rows: offset + s_r * N(0, 1), s_r in [0.5, 1.5) * scale. */
static void ln_fill(struct ln_data *d, struct pu_rng *r)
{
    for (size_t i = 0; i < d->rows; i++) {
        double s = d->scale * (0.5 + pu_rng_uniform(r));
        for (size_t j = 0; j < d->cols; j++)
            d->in[i * d->cols + j] = (float)(d->offset + s * pu_rng_gauss(r));
    }
}

/* The standard random case: rows, cols (defaults 4 x 8), filled. */
static int ln_build(const struct prop_ctx *x, struct ln_data *d)
{
    struct pu_rng r;

    if (ln_alloc(d, x->t, x->c, pu_size(x->c, "rows", 4), pu_size(x->c, "cols", 8),
                 x->e) < 0)
        return -1;
    pu_rng_seed(&r, pu_case_seed(x->env, x->t, x->c));
    ln_fill(d, &r);
    return 0;
}

/* Call the submission on a copy of d->in. -1: grader error; 0: the call
 * failed (verdict filled); 1: it returned ATTN_OK. */
static int ln_call(const struct prop_ctx *x, struct ln_data *d)
{
    const struct impl *im = &x->env->student;
    struct impl_result r;

    memcpy(d->x, d->in, d->n * sizeof *d->x);
    if (im->ops->layer_norm(im->self, d->x, d->rows, d->cols, (float)d->eps, &r, x->e) < 0)
        return -1;
    return pu_returned_ok(x->v, &r, FN);
}

/* Build a case, call the submission on it, check the result: 1 to go on,
 * 0 with x->v failed, -1 (x->e set); a build returns 0 or -1 and leaves
 * nothing to free on failure. */
typedef int (*ln_step)(const struct prop_ctx *x, struct ln_data *d);

/* The runner of every property here: build, call, check, free. */
static int ln_run(const struct prop_ctx *x, ln_step build, ln_step check)
{
    struct ln_data d;
    int ok;

    if (build(x, &d) < 0)
        return -1;
    d.orc = x->env->orc;
    ok = ln_call(x, &d);
    if (ok == 1)
        ok = check(x, &d);
    ln_free(&d);
    return pu_outcome(ok, x->v);
}

/* Mean and population variance of n floats, two passes in double. */
static void stats_f(const float *x, size_t n, double *mean, double *var)
{
    double m = 0.0, s = 0.0;

    for (size_t j = 0; j < n; j++)
        m += x[j];
    m /= (double)n;
    for (size_t j = 0; j < n; j++)
        s += ((double)x[j] - m) * ((double)x[j] - m);
    *mean = m;
    *var = s / (double)n;
}

/* The usual wrong formulas for one row (orc_ln order, after the right one). */
static const char *const guess_hint[] = {
    "variance looks like the sample variance (divided by cols-1): layer norm "
    "uses the population variance, divide by cols",
    "the output matches (x - mean) / (sqrt(var) + eps): eps belongs inside "
    "the square root, sqrt(var + eps)",
    "the output matches x / sqrt(var + eps): is the row's mean subtracted?",
    "the output matches (x - mean) / (var + eps): divide by the standard "
    "deviation sqrt(var + eps), not by the variance",
};

/* Whether row i of the output matches wrong formula g (to 1e-3); 0 also
 * when the oracle has no value for it. Uses d's scratch rows. */
static int row_matches(const struct ln_data *d, size_t i, enum orc_ln g)
{
    const float *in = d->in + i * d->cols, *out = d->x + i * d->cols;
    double m, var;

    stats_f(in, d->cols, &m, &var);
    if (var + d->eps <= 0.0)
        return 0;
    for (size_t j = 0; j < d->cols; j++)
        d->drow[j] = in[j];
    if (orc_layernorm(d->orc, g, d->drow, d->dwant, d->cols, d->eps) != 0)
        return 0;
    for (size_t j = 0; j < d->cols; j++)
        if (!pu_close(d->dwant[j], out[j], 1e-3, 1e-3))
            return 0;
    return 1;
}

/* Set a hint naming the wrong formula row i follows, if any. */
static void diagnose(const struct ln_data *d, size_t i, struct prop_verdict *v)
{
    for (enum orc_ln g = ORC_LN_SAMPLE; g < ORC_LN_COUNT; g++)
        if (row_matches(d, i, g)) {
            pu_hint(v, "%s", guess_hint[g - ORC_LN_SAMPLE]);
            return;
        }
}

/* Fail on the first non-finite output. 1 when all are finite. */
static int ln_finite(const struct ln_data *d, struct prop_verdict *v)
{
    size_t at = pu_first_nonfinite(d->x, d->n);

    if (at == d->n)
        return 1;
    pu_fail(v, "%s: output[%zu][%zu] is %g (input %g); every output must be "
            "finite", d->label, at / d->cols, at % d->cols, (double)d->x[at],
            (double)d->in[at]);
    pu_hint(v, "a row whose variance is 0 divides 0 by sqrt(0 + eps): with "
            "eps = 0 a constant row must give zeros, not 0/0 = NaN");
    return 0;
}

/* Elementwise against the oracle's layer norm: |s - e| <= tol * max(1, |e|).
 * 1 when close, 0 failed, -1 out of memory. */
static int ln_vs_trusted(const struct ln_data *d, double tol,
                         struct prop_verdict *v)
{
    for (size_t i = 0; i < d->rows; i++) {
        const float *row = d->in + i * d->cols, *got = d->x + i * d->cols;
        int rc;
        for (size_t j = 0; j < d->cols; j++)
            d->drow[j] = row[j];
        if ((rc = orc_layernorm(d->orc, ORC_LN_RIGHT, d->drow, d->dwant, d->cols, d->eps)) != 0)
            return rc < 0 ? -1 : pu_no_oracle(v, d->label);
        for (size_t j = 0; j < d->cols; j++) {
            double want = d->dwant[j];
            if (pu_close(want, got[j], tol * fmax(1.0, fabs(want)), 0))
                continue;
            pu_fail(v, "%s: output[%zu][%zu] is %.7g, expected %.7g = "
                    "(x - mean) / sqrt(var + eps) (tolerance %g)", d->label,
                    i, j, (double)got[j], want, tol);
            diagnose(d, i, v);
            return 0;
        }
    }
    return 1;
}

/* ---- mean_zero_var_one ------------------------------------------------ */

/*
 * Default tolerance 2e-4 on the mean and on the variance of each output row.
 * Derivation: a float implementation's mean carries an absolute error of at
 * most gamma_n * sum|x_j| / n <= n*u*(|offset| + 4*scale) for n = cols;
 * with cols <= 256, u = 2^-24 and |offset| <= 3*scale this is <= 256 * 6e-8
 * * 7 * scale ~= 1.1e-4 * scale, i.e. 1.1e-4 after dividing by the row's
 * standard deviation (>= scale/2 here, but then the offset is relatively
 * larger: we keep offset/scale <= 3). The output variance moves by about
 * twice the per-element error. Sample variance changes the variance by a
 * factor (n-1)/n <= 0.996 at n = 256: 20 times the tolerance.
 */
static int check_row_moments(const struct ln_data *d, size_t i, double tol,
                             struct prop_verdict *v)
{
    double m_in, v_in, m, var, want;

    stats_f(d->in + i * d->cols, d->cols, &m_in, &v_in);
    stats_f(d->x + i * d->cols, d->cols, &m, &var);
    want = v_in + d->eps > 0.0 ? v_in / (v_in + d->eps) : 0.0;
    if (fabs(m) <= tol && fabs(var - want) <= tol)
        return 1;
    pu_fail(v, "%s: row %zu of the output has mean %.6g and variance %.6g "
            "(expected 0 and %.6g, each within %g)", d->label, i, m, var,
            want, tol);
    if (fabs(m) > tol)
        pu_hint(v, "the row's mean is not 0: is the mean of the same row "
                "(not of a column or of the whole matrix) subtracted?");
    else
        pu_hint(v, "the variance is off: divide each deviation by "
                "sqrt(var + eps) with the population variance of the row");
    diagnose(d, i, v);
    return 0;
}

/* Each row's moments; 1 when all are right (verdict failed otherwise). */
static int check_moments(const struct ln_data *d, double tol,
                         struct prop_verdict *v)
{
    if (!ln_finite(d, v))
        return 0;
    for (size_t i = 0; i < d->rows; i++)
        if (!check_row_moments(d, i, tol, v))
            return 0;
    return 1;
}

static int moments_step(const struct prop_ctx *x, struct ln_data *d)
{
    return check_moments(d, pc_tol(x), x->v);
}

static int run_mean_zero_var_one(const struct prop_ctx *x)
{
    return ln_run(x, ln_build, moments_step);
}

/* ---- constant_row ----------------------------------------------------- */

static const double default_constants[] = {0.0, 2.5, -3.0, 1024.0};

/*
 * Rows of one constant each (key `values`, one per row). The constants
 * must be dyadic with few significant bits (0, 2.5, -3, 1024): then every
 * summation order, in float or double, one pass or two, gives the mean
 * exactly, the deviations are exactly 0, and a correct implementation
 * writes exactly 0. Default tolerance 1e-6 is only a guard.
 */
static int const_build(const struct prop_ctx *x, struct ln_data *d)
{
    const struct spec_param *p = spec_param(x->c, "values");
    const double *vals = p ? p->list : default_constants;
    size_t rows = p ? p->list_len : 4;

    if (ln_alloc(d, x->t, x->c, rows, pu_size(x->c, "cols", 8), x->e) < 0)
        return -1;
    for (size_t i = 0; i < d->n; i++)
        d->in[i] = (float)vals[i / d->cols];
    return 0;
}

static int check_zeros(const struct ln_data *d, double tol,
                       struct prop_verdict *v)
{
    if (!ln_finite(d, v))
        return 0;
    for (size_t i = 0; i < d->n; i++)
        if (fabs(d->x[i]) > tol) {
            pu_fail(v, "%s: a constant row of %g gives output[%zu][%zu] = "
                    "%.7g (expected 0 within %g)", d->label, (double)d->in[i],
                    i / d->cols, i % d->cols, (double)d->x[i], tol);
            pu_hint(v, "every deviation x - mean of a constant row is 0, so "
                    "its output is 0 whatever eps is: is the mean computed "
                    "over exactly the row's cols values?");
            return 0;
        }
    return 1;
}

static int zeros_step(const struct prop_ctx *x, struct ln_data *d)
{
    return check_zeros(d, pc_tol(x), x->v);
}

static int run_constant_row(const struct prop_ctx *x)
{
    return ln_run(x, const_build, zeros_step);
}

/* ---- population_variance ---------------------------------------------- */

/*
 * With eps = 0 every output row has population variance exactly 1 in
 * exact arithmetic. Few columns (2..5) make the sample variance's factor
 * (cols-1)/cols between 0.5 and 0.8: unmistakable. Default tolerance 1e-4:
 * with cols <= 5 the float error of any correct order is ~ 10 u ~ 1e-6.
 */
static int check_unit_variance(const struct ln_data *d, double tol,
                               struct prop_verdict *v)
{
    double n = (double)d->cols, m, var, m_in, v_in;

    for (size_t i = 0; i < d->rows; i++) {
        stats_f(d->in + i * d->cols, d->cols, &m_in, &v_in);
        stats_f(d->x + i * d->cols, d->cols, &m, &var);
        if (v_in + d->eps <= 0.0 || fabs(var - v_in / (v_in + d->eps)) <= tol)
            continue;
        if (fabs(var - (n - 1.0) / n) <= tol) {
            pu_fail(v, "%s: variance looks like the sample variance (divided "
                    "by cols-1): row %zu of the output has variance %.6g = "
                    "(cols-1)/cols, expected 1 within %g", d->label, i, var,
                    tol);
            pu_hint(v, "%s", guess_hint[ORC_LN_SAMPLE - ORC_LN_SAMPLE]);
        } else {
            pu_fail(v, "%s: row %zu of the output has variance %.6g, "
                    "expected 1 within %g", d->label, i, var, tol);
            diagnose(d, i, v);
        }
        return 0;
    }
    return 1;
}

static int unit_variance_step(const struct prop_ctx *x, struct ln_data *d)
{
    return ln_finite(d, x->v) && check_unit_variance(d, pc_tol(x), x->v);
}

static int run_population_variance(const struct prop_ctx *x)
{
    return ln_run(x, ln_build, unit_variance_step);
}

/* ---- values ----------------------------------------------------------- */

/* Hand-computed rows from the spec: `values` in, `expected` out, `cols`
 * per row. Default tolerance 1e-4 (relative above 1): the spec writes
 * expected values to 6 decimals. */
static int values_build(const struct prop_ctx *x, struct ln_data *d)
{
    const struct spec_test *t = x->t;
    const struct spec_case *c = x->c;
    const struct spec_param *in = spec_param(c, "values");
    const struct spec_param *ex = spec_param(c, "expected");
    size_t cols = pu_size(c, "cols", 0);

    if (!in || !ex || in->kind != SPEC_LIST || ex->kind != SPEC_LIST ||
        cols == 0 || in->list_len != ex->list_len || in->list_len % cols)
        return err_set(x->e, t->file, c->line, c->col, "'%s': a values case needs "
                       "lists 'values' and 'expected' of equal length, a "
                       "multiple of 'cols'", t->id);
    if (ln_alloc(d, t, c, in->list_len / cols, cols, x->e) < 0)
        return -1;
    for (size_t i = 0; i < d->n; i++)
        d->in[i] = (float)in->list[i];
    return 0;
}

static int check_values(const struct ln_data *d, const double *want,
                        double tol, struct prop_verdict *v)
{
    for (size_t i = 0; i < d->n; i++)
        if (!pu_close(want[i], d->x[i], tol * fmax(1.0, fabs(want[i])), 0)) {
            pu_fail(v, "%s: output[%zu][%zu] is %.7g, expected %.7g "
                    "(tolerance %g)", d->label, i / d->cols, i % d->cols,
                    (double)d->x[i], want[i], tol);
            diagnose(d, i / d->cols, v);
            return 0;
        }
    return 1;
}

/* The spec's expected rows (values_build checked them), then the
 * seeded check. */
static int values_step(const struct prop_ctx *x, struct ln_data *d)
{
    if (!check_values(d, spec_param(x->c, "expected")->list, pc_tol(x), x->v))
        return 0;
    return pc_check_seeded(x);
}

static int run_values(const struct prop_ctx *x)
{
    return ln_run(x, values_build, values_step);
}

/* ---- eps_used --------------------------------------------------------- */

/*
 * A large eps (1.0) against (x - mean) / sqrt(var + eps) in double. Default
 * tolerance 2e-4, relative above 1, for the reasons of mean_zero_var_one;
 * eps outside the root changes outputs by ~30% at var ~ 1.
 */
static int eps_step(const struct prop_ctx *x, struct ln_data *d)
{
    int ok = ln_finite(d, x->v);

    if (ok == 1 && (ok = ln_vs_trusted(d, pc_tol(x), x->v)) < 0)
        err_set(x->e, NULL, 0, 0, "out of memory");
    return ok;
}

static int run_eps_used(const struct prop_ctx *x)
{
    return ln_run(x, ln_build, eps_step);
}

/* ---- the table -------------------------------------------------------- */

static const char *const random_keys[] = {"rows", "cols", "eps", "scale",
                                          "offset", NULL};
static const char *const const_keys[] = {"cols", "eps", "values", NULL};
static const char *const values_keys[] = {"cols", "eps", "values", "expected",
                                          NULL};

const struct prop_def prop_layernorm_defs[] = {
    {"layernorm", "mean_zero_var_one", run_mean_zero_var_one, random_keys,
     2e-4, 0, "each output row has mean 0 and variance var/(var+eps)", NULL, PROP_INVARIANT},
    {"layernorm", "constant_row", run_constant_row, const_keys, 1e-6, 0,
     "a constant row becomes zeros (not NaN), even with eps = 0", NULL, PROP_INVARIANT},
    {"layernorm", "population_variance", run_population_variance,
     random_keys, 1e-4, 0,
     "with few columns the output variance is 1, not (cols-1)/cols", NULL, PROP_INVARIANT},
    {"layernorm", "values", run_values, values_keys, 1e-4, 0,
     "hand-computed rows from the spec", NULL, PROP_VALUE_TEST},
    {"layernorm", "eps_used", run_eps_used, random_keys, 2e-4, 0,
     "a large eps is used as (x - mean) / sqrt(var + eps)", NULL, PROP_VALUE_TEST},
    /* the generic properties (prop_common.h) */
    {"layernorm", "einval", pc_run_einval, pc_generic_keys, 0, 0,
     "every bad argument gives ATTN_EINVAL and writes nothing", NULL, PROP_INVARIANT},
    {"layernorm", "deterministic", pc_run_deterministic, pc_generic_keys, 0, 0,
     "two calls on the same inputs give bit-identical outputs", NULL, PROP_INVARIANT},
    {"layernorm", "no_leaks", pc_run_no_leaks, pc_generic_keys, 0, 0,
     "everything allocated is freed before returning", NULL, PROP_INVARIANT},
    {"layernorm", "speed", pc_run_speed, pc_generic_keys, 0, 1,
     "at most `factor` times slower than the reference (+ floor_ms)", NULL, PROP_INVARIANT},
    {"layernorm", "matches_reference", pc_run_matches_reference, pc_generic_keys,
     2e-4, 1, "elementwise agreement with the reference solution", NULL, PROP_VALUE_TEST},
};
const size_t prop_layernorm_count =
    sizeof prop_layernorm_defs / sizeof prop_layernorm_defs[0];
