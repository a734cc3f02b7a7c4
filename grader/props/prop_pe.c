/* prop_pe.c -- the properties of attn_positional_encoding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_common.h"
#include "props/prop_defs.h"
#include "oracle/oracle.h"
#include "props/prop_util.h"

#define U 0x1p-24
/*
 * Error per position of a float PE. The angle p*w is formed in float: w
 * from powf/expf carries a few u relative (expf(-ln(10000)*2k/d) has an
 * argument up to 9.2 in size, so up to ~10u), the product one more u, so
 * the angle errs by ~16u*p absolutely and sinf/cosf pass that on. 32u*p
 * doubles it; at p = 2047 that is 3.9e-3, still far below the O(1)
 * errors of a wrong formula.
 */
#define PE_PER_POS (32.0 * U)

static const char *const keys_shape[] = {"n", "d", NULL};
static const char *const keys_formula[] = {"n", "d", "per_position", NULL};
static const char *const keys_offset[] = {"n", "d", "offsets", NULL};
static const char *const keys_perm[] = {"n", "d", "scale", NULL};
static const char *const keys_values[] = {"n", "d", "expected", NULL};

/* k's n x d encoding by formula g from the oracle, fresh in *tab: 0,
 * ORC_MISSING (nothing allocated) or -1 (e set). */
static int pe_table(const struct pc_call *k, enum orc_pe g, double **tab, struct err *e)
{
    int rc;

    if ((*tab = calloc(k->n * k->d + 1, sizeof **tab)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    if ((rc = orc_pe(k->orc, g, k->n, k->d, *tab)) != 0) {
        free(*tab);
        *tab = NULL;
    }
    return rc < 0 ? err_set(e, NULL, 0, 0, "out of memory") : rc;
}

/* The tolerance on a PE entry at position p. */
static double pe_atol(double tol, double per_pos, size_t p)
{
    return tol + per_pos * (double)p;
}

/* ---- formula, bounded ---------------------------------------------------- */

/* The wrong-exponent (i/d) encoding's entry (p, i) of k, or NaN when the
 * oracle has none. */
static double exponent_i_at(const struct pc_call *k, size_t p, size_t i)
{
    double *tab, x = NAN;
    struct err e;

    if (pe_table(k, ORC_PE_EXPONENT_I, &tab, &e) != 0)
        return x;
    x = tab[p * k->d + i];
    free(tab);
    return x;
}

/* The premise of "sin and cos swapped?": row 0 measured as the swap gives
 * it, cos(0) = 1 in every even column and sin(0) = 0 in every odd one, over
 * the (sin, cos) pairs (a PE stored transposed, say, fails at row 0 without
 * it). With odd d the last column has no partner: a cosine there alone (d
 * = 1) is the odd-d mistake, not a swap. A NaN (an infinite angle) is none. */
static int swapped_at_row_0(const struct pc_call *k)
{
    size_t paired = k->d - k->d % 2;

    for (size_t i = 0; i < paired; i++)
        if (!(fabs(k->out[0][i] - (i % 2 == 0 ? 1.0 : 0.0)) <= 1e-4))
            return 0;
    return paired > 0;
}

static void formula_hint(struct prop_verdict *v, const struct pc_call *k, size_t p,
                         size_t i, double got)
{
    const size_t d = k->d;

    if (p == 0 && swapped_at_row_0(k))
        pu_hint(v, "at position 0 every angle is 0: sin columns (even i) are 0 and cos "
                "columns (odd i) are 1. Are sin and cos swapped?");
    else if (i % 2 == 1 && fabs(got - exponent_i_at(k, p, i)) < 1e-4)
        pu_hint(v, "columns 2k and 2k+1 share the frequency 1/10000^(2k/d): the exponent "
                "is 2*floor(i/2)/d, not i/d");
    else if (d % 2 == 1 && i == d - 1)
        pu_hint(v, "with odd d the last column (even index %zu) is a sine", i);
    else
        pu_hint(v, "PE[p][i] = sin or cos of p / 10000^(2*floor(i/2)/d) (the exponent "
                "is %zu/%zu here); with integers, 2*(i/2)/d is integer division",
                2 * (i / 2), d);
}

static int check_formula(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    double per_pos = spec_num(x->c, "per_position", PE_PER_POS), tol = pc_tol(x), *tab;
    int rc = pe_table(k, ORC_PE_RIGHT, &tab, x->e);

    if (rc != 0)
        return rc < 0 ? -1 : pu_no_oracle(x->v, label);
    for (size_t p = 0; p < k->n; p++)
        for (size_t i = 0; i < k->d; i++) {
            double want = tab[p * k->d + i], got = k->out[0][p * k->d + i];
            double atol = pe_atol(tol, per_pos, p);
            if (pu_close(want, got, atol, 0))
                continue;
            pu_fail(x->v, "PE[%zu][%zu] is %.9g, expected %s(...) = %.9g +- %.2e in %s", p, i,
                    got, i % 2 ? "cos" : "sin", want, atol, label);
            formula_hint(x->v, k, p, i, got);
            free(tab);
            return 0;
        }
    free(tab);
    return 1;
}

static const struct pc_prop steps_formula = {ASG_PE, NULL, NULL, NULL, check_formula};

static int check_bounded(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    for (size_t i = 0; i < k->out_len[0]; i++) {
        float y = k->out[0][i];
        if (y >= -1.0f && y <= 1.0f)
            continue;
        pu_fail(x->v, "PE[%zu][%zu] is %.9g, outside [-1, 1], in %s", i / k->d, i % k->d,
                (double)y, label);
        pu_hint(x->v, "every entry is a sine or a cosine: is the angle itself stored "
                "somewhere instead of sin(angle)?");
        return 0;
    }
    return 1;
}

static const struct pc_prop steps_bounded = {ASG_PE, NULL, NULL, NULL, check_bounded};

/* ---- rows_distinct ------------------------------------------------------- */

static double row_dist(const float *a, const float *b, size_t d)
{
    double m = 0.0;

    for (size_t i = 0; i < d; i++)
        m = fmax(m, fabs((double)a[i] - b[i]));
    return m;
}

/* Every two positions differ somewhere by more than tol (the first pair
 * of columns alone, at frequency 1, separates positions by >= 2|sin(1/2)|
 * for neighbours). */
static int check_distinct(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    const double tol = pc_tol(x);

    for (size_t p = 0; p < k->n; p++)
        for (size_t q = p + 1; q < k->n; q++) {
            double dist = row_dist(k->out[0] + p * k->d, k->out[0] + q * k->d, k->d);
            if (dist > tol)
                continue;
            pu_fail(x->v, "positions %zu and %zu get encodings that differ by at most %.3g "
                    "(need > %g) in %s", p, q, dist, tol, label);
            pu_hint(x->v, "the encoding must tell positions apart: is the angle built from "
                    "the position p (not the column i)?");
            return 0;
        }
    return 1;
}

static const struct pc_prop steps_distinct = {ASG_PE, NULL, NULL, NULL, check_distinct};

/* ---- relative_offset ----------------------------------------------------- */

/* PE(p) . PE(p + off) over the sin/cos pairs, in double from the floats.
 * Each pair contributes cos(off * w): p cancels. An odd d's last column is
 * a lone sine, which does depend on p, so it is left out. */
static double pair_dot(const struct pc_call *k, size_t p, size_t off)
{
    const float *a = k->out[0] + p * k->d, *b = k->out[0] + (p + off) * k->d;
    double s = 0.0;

    for (size_t i = 0; i + 1 < k->d; i += 2)
        s += (double)a[i] * b[i] + (double)a[i + 1] * b[i + 1];
    return s;
}

/* Entries err by pe_atol each; a dot of d terms in [-1, 1] errs by at
 * most d * (atol(p) + atol(p + off)). */
static int check_offset_one(const struct prop_ctx *x, const struct pc_call *k,
                            size_t off, const char *label)
{
    double d0 = pair_dot(k, 0, off), tol = pc_tol(x);

    for (size_t p = 1; p + off < k->n; p++) {
        double dp = pair_dot(k, p, off);
        double atol = (double)k->d * (pe_atol(tol, PE_PER_POS, p + off) +
                                      pe_atol(tol, PE_PER_POS, off));
        if (fabs(dp - d0) <= atol)
            continue;
        pu_fail(x->v, "PE(%zu) . PE(%zu) = %.6f but PE(0) . PE(%zu) = %.6f: the same offset "
                "%zu gives different dot products (tolerance %.2e) in %s", p, p + off, dp,
                off, d0, off, atol, label);
        pu_hint(x->v, "within a pair (sin, cos) of one frequency the dot product depends only "
                "on the offset: both columns of a pair must use the same frequency, "
                "1/10000^(2*floor(i/2)/d)");
        return 0;
    }
    return 1;
}

static int check_offset(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    static const double def[] = {1, 3, 7};
    const struct spec_param *p = spec_param(x->c, "offsets");
    const double *offs = p && p->kind == SPEC_LIST ? p->list : def;
    size_t n = p && p->kind == SPEC_LIST ? p->list_len : 3;

    for (size_t i = 0; i < n; i++) {
        if (!(offs[i] >= 1 && offs[i] < (double)k->n))
            return err_set(x->e, NULL, x->c->line, x->c->col, "offsets must be in 1..n-1");
        if (!check_offset_one(x, k, (size_t)offs[i], label))
            return 0;
    }
    return 1;
}

static const struct pc_prop steps_offset = {ASG_PE, NULL, NULL, NULL, check_offset};

/* ---- breaks_permutation_symmetry ----------------------------------------- */

/* Self-attention of rows (n x d) from the oracle; out n x d. 0,
 * ORC_MISSING or -1. */
static int self_attn(struct orc *o, const float *x, size_t n, size_t d, double *out)
{
    return orc_sdpa(o, x, x, x, n, n, d, d, NULL, 1.0 / sqrt((double)d), out, NULL);
}

/* max |b[i] - a[p[i]]| over rows: how far b is from a's rows permuted. */
static double perm_gap(const double *a, const double *b, const size_t *p, size_t n,
                       size_t d)
{
    double m = 0.0;

    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            m = fmax(m, fabs(b[i * d + j] - a[p[i] * d + j]));
    return m;
}

/* x1 = X + PE, x2 = PX + PE (pe may be NULL: no encoding). */
static void add_pe(const float *X, const float *pe, const size_t *p, size_t n, size_t d,
                   float *x1, float *x2)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) {
            double add = pe ? pe[i * d + j] : 0.0;
            x1[i * d + j] = (float)(X[i * d + j] + add);
            x2[i * d + j] = (float)(X[p[i] * d + j] + add);
        }
}

/* The gap between attn(PX + PE) and P attn(X + PE) into *gap: 0,
 * ORC_MISSING or -1 (out of memory). */
static int symmetry_gap(struct orc *o, const float *X, const float *pe, const size_t *p,
                        size_t n, size_t d, double *gap)
{
    float *x1 = pu_floats(n * d), *x2 = pu_floats(n * d);
    double *o1 = calloc(n * d, sizeof *o1), *o2 = calloc(n * d, sizeof *o2);
    int rc = -1;

    if (x1 && x2 && o1 && o2) {
        add_pe(X, pe, p, n, d, x1, x2);
        if ((rc = self_attn(o, x1, n, d, o1)) == 0 && (rc = self_attn(o, x2, n, d, o2)) == 0)
            *gap = perm_gap(o1, o2, p, n, d);
    }
    free(x1);
    free(x2);
    free(o1);
    free(o2);
    return rc;
}

/*
 * The student build's version of the gap (no attention there: it would be
 * an answer key, and the student's own encoding is not in the golden
 * data): attention is exactly permutation-equivariant, so the symmetry
 * stays unbroken unless PE differs between the positions that p swaps;
 * the largest such difference.
 */
static double swapped_rows_gap(const float *pe, const size_t *p, size_t n, size_t d)
{
    double m = 0.0;

    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            m = fmax(m, fabs((double)pe[i * d + j] - pe[p[i] * d + j]));
    return m;
}

static int judge_symmetry(const struct prop_ctx *x, const struct pc_call *k,
                          const float *X, const size_t *p, const char *label)
{
    double bare = 0, with = 0;
    int rc = symmetry_gap(k->orc, X, NULL, p, k->n, k->d, &bare);

    if (rc == 0 && orc_can_compute()) /* computed, never recorded: its input is
                                          the submission's own encoding */
        rc = symmetry_gap(NULL, X, k->out[0], p, k->n, k->d, &with);
    else if (rc == 0)
        with = swapped_rows_gap(k->out[0], p, k->n, k->d);
    if (rc != 0)
        return rc < 0 ? err_set(x->e, NULL, 0, 0, "out of memory") : pu_no_oracle(x->v, label);
    if (bare > 1e-9)  /* the test's own premise: attention alone is blind to order */
        return err_set(x->e, NULL, 0, 0, "pe symmetry check: trusted attention is not "
                       "permutation-equivariant (gap %g)", bare);
    if (with > pc_tol(x))
        return 1;
    pu_fail(x->v, "self-attention over X + PE with X's rows reordered only reorders the "
            "output (largest difference %.3g, need > %g): the encoding does not mark "
            "positions, in %s", with, pc_tol(x), label);
    pu_hint(x->v, "attention on its own does not know the order of words; PE must differ "
            "from position to position so that the same word at two places enters the "
            "attention differently");
    return 0;
}

/* Self-attention over X + PE, X's rows permuted, against the same
 * without PE. */
static int check_perm(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    struct pu_rng rng;
    float *X = pu_floats(k->out_len[0]);
    size_t *p = calloc(k->n, sizeof *p);
    int ok;

    if (!X || !p || k->n < 2) {
        ok = err_set(x->e, NULL, 0, 0, k->n < 2 ? "'%s' needs n >= 2" : "out of memory",
                     x->t->id);
    } else {
        pu_rng_seed(&rng, pu_case_seed(x->env, x->t, x->c) ^ 0x9e37);
        pu_fill_gauss(X, k->out_len[0], &rng, spec_num(x->c, "scale", 1.0));
        pu_permutation(p, k->n, &rng);
        if (p[0] == 0 && p[1] == 1) { p[0] = 1; p[1] = 0; } /* never the identity */
        ok = judge_symmetry(x, k, X, p, label);
    }
    free(X);
    free(p);
    return ok;
}

static const struct pc_prop steps_perm = {ASG_PE, NULL, NULL, NULL, check_perm};

/* ---- values -------------------------------------------------------------- */

static int check_seeded(const struct prop_ctx *x);

static int check_values(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    const struct spec_param *ex = spec_param(x->c, "expected");

    if (ex == NULL || ex->kind != SPEC_LIST || ex->list_len != k->out_len[0])
        return err_set(x->e, NULL, x->c->line, x->c->col, "pe 'values' case needs a list "
                       "'expected' of n*d = %zu numbers", k->out_len[0]);
    for (size_t i = 0; i < k->out_len[0]; i++) {
        if (pu_close(ex->list[i], k->out[0][i], pc_tol(x), 0))
            continue;
        pu_fail(x->v, "PE[%zu][%zu] is %.9g, expected %.9g +- %g in %s", i / k->d, i % k->d,
                (double)k->out[0][i], ex->list[i], pc_tol(x), label);
        formula_hint(x->v, k, i / k->d, i % k->d, k->out[0][i]);
        return 0;
    }
    return check_seeded(x);
}

/* One PE call of n x d into a fresh buffer (*out, caller frees): 1 when it
 * returned ATTN_OK, 0 (v failed; only for the student), -1 (e set). */
static int pe_call(const struct impl *im, size_t n, size_t d, float **out,
                   struct prop_verdict *v, struct err *e)
{
    struct impl_result r;

    if ((*out = calloc(n * d, sizeof **out)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    if (im->ops->positional_encoding(im->self, *out, n, d, &r, e) < 0)
        return -1;
    return pu_returned_ok(v, &r, "attn_positional_encoding");
}

/*
 * The spec's values cases are the whole input of PE (n, d), answers
 * included, so a submission can write them from memory. In the staff
 * build the same test also compares the function with the reference on a
 * shape drawn from the run's seed, which the student's tree never holds.
 */
static int check_seeded(const struct prop_ctx *x)
{
    struct pu_rng rng;
    float *ref = NULL, *got = NULL;
    size_t n, d;
    int ok;

    if (x->env->reference == NULL)
        return 1;
    pu_rng_seed(&rng, pu_case_seed(x->env, x->t, x->c) ^ 0x5eede0u);
    /* an even d, as in the spec's cases (an odd d is pe.formula's) */
    n = 3 + (size_t)(pu_rng_u64(&rng) % 30);
    d = 2 * (2 + (size_t)(pu_rng_u64(&rng) % 15));
    ok = pe_call(x->env->reference, n, d, &ref, x->v, x->e);
    if (ok == 0)
        ok = err_set(x->e, NULL, 0, 0, "the reference failed on pe (n=%zu, d=%zu)", n, d);
    if (ok == 1)
        ok = pe_call(&x->env->student, n, d, &got, x->v, x->e);
    for (size_t i = 0; ok == 1 && i < n * d; i++) {
        if (pu_close(ref[i], got[i], 1e-4, 0))
            continue;
        pu_fail(x->v, "PE[%zu][%zu] is %.9g, the reference gives %.9g at (n=%zu, d=%zu), "
                "a shape drawn from the course seed", i / d, i % d, (double)got[i],
                (double)ref[i], n, d);
        pu_hint(x->v, "the spec's values matched, but another shape did not: the values "
                "must be computed, not remembered");
        ok = 0;
    }
    free(ref);
    free(got);
    return ok;
}

static const struct pc_prop steps_values = {ASG_PE, NULL, NULL, NULL, check_values};

/* ---- the table ----------------------------------------------------------- */

/*
 * Default tolerances: formula tol + 32u*p (PE_PER_POS above); values 1e-6
 * (small p: a few u); rows_distinct and breaks_permutation_symmetry are
 * margins, not rounding bounds; matches_reference 1e-4 covers n <= 128
 * (32u*128 = 2.4e-4 is the worst case, realistic errors are 10x below).
 */
const struct prop_def prop_pe_defs[] = {
    {"pe", "formula", pc_run_def, keys_formula, 2e-6, 0,
     "every entry matches the sinusoid formula (tolerance grows with p)",
     &steps_formula, PROP_VALUE_TEST},
    {"pe", "bounded", pc_run_def, keys_shape, 0, 0,
     "every entry is in [-1, 1]", &steps_bounded, PROP_INVARIANT},
    {"pe", "rows_distinct", pc_run_def, keys_shape, 1e-3, 0,
     "no two positions get the same encoding", &steps_distinct, PROP_INVARIANT},
    {"pe", "relative_offset", pc_run_def, keys_offset, 2e-6, 0,
     "PE(p) . PE(p+k) depends only on k", &steps_offset, PROP_INVARIANT},
    {"pe", "breaks_permutation_symmetry", pc_run_def, keys_perm, 1e-2, 0,
     "with PE added, self-attention is no longer blind to word order",
     &steps_perm, PROP_INVARIANT},
    {"pe", "values", pc_run_def, keys_values, 1e-6, 0,
     "hand-computed values written in the spec", &steps_values, PROP_VALUE_TEST},
    {"pe", "einval", pc_run_einval, pc_generic_keys, 0, 0,
     "NULL pe or a zero size returns ATTN_EINVAL and writes nothing", NULL, PROP_INVARIANT},
    {"pe", "deterministic", pc_run_deterministic, pc_generic_keys, 0, 0,
     "two calls give bit-identical results", NULL, PROP_INVARIANT},
    {"pe", "no_leaks", pc_run_no_leaks, pc_generic_keys, 0, 0,
     "every allocation freed before returning", NULL, PROP_INVARIANT},
    {"pe", "matches_reference", pc_run_matches_reference, pc_generic_keys, 1e-4, 1,
     "elementwise agreement with the reference", NULL, PROP_VALUE_TEST},
};
const size_t prop_pe_count = sizeof prop_pe_defs / sizeof prop_pe_defs[0];
