/*
 * prop_block.c -- the properties of attn_transformer_block ("block").
 *
 * Fault isolation: the expected block comes from the oracle (orc_block,
 * oracle.h: in double in the staff build, golden data in the student
 * build); the submission's own attn_multi_head and attn_layer_norm are
 * never called.
 * Inputs: X ~ N(0, scale^2); Wq..Wo and W1 ~ N(0, 1/d_model), W2 ~
 * N(0, 1/d_ff), b1 and b2 ~ N(0, 0.5^2), so every sublayer is O(1) and a
 * missing bias, relu or residual moves the output by ~0.1 or more.
 *
 * Default tolerance 1e-3, relative above 1: a float block accumulates the
 * multi-head error (<= 1e-4 at d_model <= 64, see prop_mha.c), two layer
 * norms (each amplifies absolute errors by 1/sigma of its input, and
 * sigma >= ~1 here since X + sublayer has variance >= var(X)), and the FFN
 * products (gamma_d * sum|y w| ~ d*u*0.64*sqrt(d) ~ 2e-5 each): about 3e-4
 * worst case.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "props/prop_common.h"
#include "props/prop_defs.h"
#include "oracle/oracle.h"
#include "props/prop_util.h"

#define FN "attn_transformer_block"

struct blk_data {
    size_t n, d, heads, d_ff, nd;
    double eps;
    const char *mask_kind;
    float *x0;                 /* the input (kept) */
    float *x;                  /* the submission's in-place result */
    float *w[4], *w1, *b1, *w2, *b2;
    unsigned char *mask;       /* NULL for "none" */
    double *want;
    struct orc *orc;           /* where expected values come from */
    char label[200];
};

static void blk_free(struct blk_data *d)
{
    free(d->x0);
    free(d->x);
    for (int i = 0; i < 4; i++)
        free(d->w[i]);
    free(d->w1);
    free(d->b1);
    free(d->w2);
    free(d->b2);
    free(d->mask);
    free(d->want);
    memset(d, 0, sizeof *d);
}

static int blk_shape(struct blk_data *d, const struct spec_test *t,
                     const struct spec_case *c)
{
    d->n = pu_size(c, "n", 4);
    d->d = pu_size(c, "d_model", 8);
    d->heads = pu_size(c, "heads", 2);
    d->d_ff = pu_size(c, "d_ff", 16);
    d->eps = (double)(float)spec_num(c, "eps", 1e-5);
    d->mask_kind = spec_str(c, "mask", "none");
    d->nd = d->n * d->d;
    snprintf(d->label, sizeof d->label, "case %zu (n=%zu, d_model=%zu, "
             "heads=%zu, d_ff=%zu, eps=%g, mask=%s)", (size_t)(c - t->cases) + 1,
             d->n, d->d, d->heads, d->d_ff, d->eps, d->mask_kind);
    if (!d->n || !d->d || !d->heads || !d->d_ff || d->d % d->heads ||
        d->n > 4096 || d->d > 4096 || d->d_ff > 16384)
        return -1;
    return 0;
}

static int blk_alloc(struct blk_data *d)
{
    int ok = 1;

    d->x0 = pu_floats(d->nd);
    d->x = pu_floats(d->nd);
    for (int i = 0; i < 4; i++)
        ok = (d->w[i] = pu_floats(d->d * d->d)) != NULL && ok;
    d->w1 = pu_floats(d->d * d->d_ff);
    d->b1 = pu_floats(d->d_ff);
    d->w2 = pu_floats(d->d_ff * d->d);
    d->b2 = pu_floats(d->d);
    if (strcmp(d->mask_kind, "none") != 0)
        ok = (d->mask = pu_bytes(d->n * d->n)) != NULL && ok;
    d->want = calloc(d->nd, sizeof *d->want);
    return ok && d->x0 && d->x && d->w1 && d->b1 && d->w2 && d->b2 && d->want
               ? 0 : -1;
}

static int blk_fill(struct blk_data *d, const struct spec_case *c,
                    struct pu_rng *r)
{
    const double wd = 1.0 / sqrt((double)d->d);

    pu_fill_gauss(d->x0, d->nd, r, spec_num(c, "scale", 1.0));
    for (int i = 0; i < 4; i++)
        pu_fill_gauss(d->w[i], d->d * d->d, r, wd);
    pu_fill_gauss(d->w1, d->d * d->d_ff, r, wd);
    pu_fill_gauss(d->b1, d->d_ff, r, 0.5);
    pu_fill_gauss(d->w2, d->d_ff * d->d, r, 1.0 / sqrt((double)d->d_ff));
    pu_fill_gauss(d->b2, d->d, r, 0.5);
    if (d->mask == NULL)
        return 0;
    return pu_fill_mask(d->mask, d->n, d->n, d->mask_kind, r);
}

/* 0, or -1 with e set (nothing to free). */
static int blk_build(struct blk_data *d, const struct prop_env *env,
                     const struct spec_test *t, const struct spec_case *c,
                     struct err *e)
{
    struct pu_rng r;

    memset(d, 0, sizeof *d);
    if (blk_shape(d, t, c) < 0)
        return err_set(e, t->file, c->line, c->col, "'%s': %s is not a valid "
                       "block shape", t->id, d->label);
    if (blk_alloc(d) < 0) {
        blk_free(d);
        return err_set(e, NULL, 0, 0, "out of memory in '%s'", t->id);
    }
    d->orc = env->orc;
    pu_rng_seed(&r, pu_case_seed(env, t, c));
    if (blk_fill(d, c, &r) < 0) {
        blk_free(d);
        return err_set(e, t->file, c->line, c->col, "'%s': unknown mask kind "
                       "'%s'", t->id, d->mask_kind);
    }
    return 0;
}

/* Call the submission on a copy of x0. -1 grader error, 0 the call failed
 * (verdict filled), 1 it returned ATTN_OK. */
static int blk_call(const struct prop_ctx *x, struct blk_data *d)
{
    struct impl_result r;

    memcpy(d->x, d->x0, d->nd * sizeof *d->x);
    if (x->env->student.ops->transformer_block(
            x->env->student.self, d->x, d->n, d->d, d->heads, d->d_ff, d->w[0],
            d->w[1], d->w[2], d->w[3], d->w1, d->b1, d->w2, d->b2, d->mask,
            (float)d->eps, &r, x->e) < 0)
        return -1;
    return pu_returned_ok(x->v, &r, FN);
}

/* ---- the expected block and its wrong variants (oracle.h) ------------- */

static struct orc_block blk_inputs(const struct blk_data *d)
{
    struct orc_block b = {d->n, d->d, d->heads, d->d_ff, d->eps, d->x0,
                          {d->w[0], d->w[1], d->w[2], d->w[3]},
                          d->w1, d->b1, d->w2, d->b2, d->mask};
    return b;
}

/* The right block's output of d's current inputs into d->want: 0,
 * ORC_MISSING, or -1 (e set). */
static int blk_expect(struct blk_data *d, struct err *e)
{
    const struct orc_block b = blk_inputs(d);
    int rc = orc_block(d->orc, &b, NULL, d->want);

    return rc < 0 ? err_set(e, NULL, 0, 0, "out of memory in the trusted block") : rc;
}

/* blk_expect, then blk_call: -1, 0 (x->v failed: no expected value in the
 * golden data, or the call failed), 1 (returned ATTN_OK). */
static int blk_expect_call(const struct prop_ctx *x, struct blk_data *d)
{
    int ok = blk_expect(d, x->e);

    if (ok != 0)
        return ok < 0 ? -1 : pu_no_oracle(x->v, d->label);
    return blk_call(x, d);
}

struct bguess {
    struct orc_bvariant va;
    const char *hint;
};

static const struct bguess bguesses[] = {
    {{0, 0, 0, 0, 1}, "the output matches the block without its residual "
     "connections: the sublayer's output is added to its input rather than "
     "replacing it, X <- LN(X + sublayer(X))"},
    {{1, 0, 0, 0, 0}, "the output matches a pre-norm block X + "
     "sublayer(LN(X)): this block is post-norm, X <- LN(X + sublayer(X))"},
    {{0, 1, 0, 0, 0}, "the output matches the block without the relu: "
     "FFN(x) = relu(x.W1 + b1).W2 + b2"},
    {{0, 0, 1, 0, 0}, "the output matches the block without b1: FFN(x) = "
     "relu(x.W1 + b1).W2 + b2"},
    {{0, 0, 0, 1, 0}, "the output matches the block without b2: FFN(x) = "
     "relu(x.W1 + b1).W2 + b2"},
};

/* Set a hint naming the wrong variant the output follows, if one does. */
static void diagnose(const struct blk_data *d, struct prop_verdict *v)
{
    double *tmp = calloc(d->nd, sizeof *tmp);
    const struct orc_block b = blk_inputs(d);

    for (size_t g = 0; tmp && g < sizeof bguesses / sizeof bguesses[0]; g++) {
        size_t i = 0;
        int rc = orc_block(d->orc, &b, &bguesses[g].va, tmp);
        if (rc < 0)
            break;
        if (rc == ORC_MISSING)
            continue;
        while (i < d->nd && pu_close(tmp[i], d->x[i], 1e-3 * fmax(1, fabs(tmp[i])), 0))
            i++;
        if (i == d->nd) {
            pu_hint(v, "%s", bguesses[g].hint);
            break;
        }
    }
    free(tmp);
}

/* Fail at the first output far from want; 1 when all are close. */
static int check_want(const struct blk_data *d, const char *what, double tol,
                      struct prop_verdict *v)
{
    for (size_t i = 0; i < d->nd; i++) {
        if (pu_close(d->want[i], d->x[i], tol * fmax(1.0, fabs(d->want[i])), 0))
            continue;
        pu_fail(v, "%s%s: X[%zu][%zu] is %.7g after the block, expected %.7g "
                "(tolerance %g, relative above 1)", d->label, what, i / d->d,
                i % d->d, (double)d->x[i], d->want[i], tol);
        diagnose(d, v);
        return 0;
    }
    return 1;
}

/* One property body between build and free: it makes its calls
 * (blk_call) and checks them with the test's tolerance tol; -1, 0 (x->v
 * failed) or 1 (passed). */
typedef int (*blk_body)(const struct prop_ctx *x, struct blk_data *d, double tol);

/* The runner of every block property: build, body, free. */
static int blk_run(const struct prop_ctx *x, blk_body body)
{
    struct blk_data d;
    int ok;

    if (blk_build(&d, x->env, x->t, x->c, x->e) < 0)
        return -1;
    ok = body(x, &d, pc_tol(x));
    blk_free(&d);
    return pu_outcome(ok, x->v);
}

/* ---- residual_path ------------------------------------------------------ */

/* Wo = 0, W2 = 0 and b2 = 0 silence both sublayers: only the residual
 * path is left, and the block is LN(LN(X)). */
static int residual_body(const struct prop_ctx *x, struct blk_data *d, double tol)
{
    int ok;

    memset(d->w[3], 0, d->d * d->d * sizeof(float));
    memset(d->w2, 0, d->d_ff * d->d * sizeof(float));
    memset(d->b2, 0, d->d * sizeof(float));
    ok = blk_expect_call(x, d);
    if (ok != 1 || check_want(d, " with Wo = 0, W2 = 0, b2 = 0 (expected "
                              "LN(LN(X)))", tol, x->v))
        return ok;
    if (x->v->hint[0] == '\0')
        pu_hint(x->v, "with both sublayers silenced only the residual connection "
            "carries X through: the sublayer's output is added to its input "
            "rather than replacing it, X <- LN(X + sublayer(X))");
    return 0;
}

static int run_residual(const struct prop_ctx *x)
{
    return blk_run(x, residual_body);
}

/* ---- post_norm ------------------------------------------------------- */

/* Row i's mean and variance against 0 and 1 (eps/var is far below tol for
 * the small eps of these cases). */
static int check_row_norm(const struct blk_data *d, size_t i, double tol,
                          struct prop_verdict *v)
{
    const float *row = d->x + i * d->d;
    double m = 0.0, var = 0.0;

    for (size_t j = 0; j < d->d; j++)
        m += row[j];
    m /= (double)d->d;
    for (size_t j = 0; j < d->d; j++)
        var += (row[j] - m) * (row[j] - m);
    var /= (double)d->d;
    if (fabs(m) <= tol && fabs(var - 1.0) <= tol)
        return 1;
    pu_fail(v, "%s: row %zu of the block's output has mean %.6g and variance "
            "%.6g (expected 0 and 1, each within %g)", d->label, i, m, var, tol);
    pu_hint(v, "the block is post-norm: its last step is X <- LN(X + FFN(X)), "
            "so every output row is normalised. A pre-norm block (X + "
            "sublayer(LN(X))) leaves the rows unnormalised");
    return 0;
}

static int post_norm_body(const struct prop_ctx *x, struct blk_data *d, double tol)
{
    int ok = blk_call(x, d);
    size_t at;

    if (ok != 1)
        return ok;
    at = pu_first_nonfinite(d->x, d->nd);
    if (at < d->nd)
        return pu_fail(x->v, "%s: X[%zu][%zu] is %g after the block; every "
                       "output must be finite", d->label, at / d->d,
                       at % d->d, (double)d->x[at]);
    for (size_t i = 0; i < d->n; i++)
        if (!check_row_norm(d, i, tol, x->v))
            return 0;
    return 1;
}

static int run_post_norm(const struct prop_ctx *x)
{
    return blk_run(x, post_norm_body);
}

/* ---- permutation_equivariance ---------------------------------------- */

static int check_block_perm(const struct blk_data *d, const float *out1,
                            const size_t *p, double tol, struct prop_verdict *v)
{
    for (size_t i = 0; i < d->n; i++)
        for (size_t c = 0; c < d->d; c++) {
            double want = out1[p[i] * d->d + c], got = d->x[i * d->d + c];
            if (pu_close(want, got, tol * fmax(1.0, fabs(want)), 0))
                continue;
            pu_fail(v, "%s: with the rows of X permuted, X[%zu][%zu] is %.7g "
                    "but row %zu of the unpermuted output has %.7g there "
                    "(tolerance %g)", d->label, i, c, got, p[i], want, tol);
            pu_hint(v, "without a mask the block is equivariant to any "
                    "permutation of the words (attention is an operation over "
                    "a set; the norms and the MLP act on each word): does "
                    "something mix rows, e.g. a norm over columns or heads cut "
                    "across rows?");
            return 0;
        }
    return 1;
}

static int perm_body(const struct prop_ctx *x, struct blk_data *d, double tol)
{
    float *out1 = pu_floats(d->nd), *x0 = pu_floats(d->nd);
    size_t *p = calloc(d->n, sizeof *p);
    struct pu_rng r;
    int ok = -1;

    if (!out1 || !x0 || !p)
        err_set(x->e, NULL, 0, 0, "out of memory");
    else if ((ok = blk_call(x, d)) == 1) {
        memcpy(out1, d->x, d->nd * sizeof *out1);
        memcpy(x0, d->x0, d->nd * sizeof *x0);
        pu_rng_seed(&r, (uint64_t)d->nd * 31337u + d->d_ff);
        pu_permutation(p, d->n, &r);
        for (size_t i = 0; i < d->n; i++)
            memcpy(d->x0 + i * d->d, x0 + p[i] * d->d, d->d * sizeof *x0);
        pc_fresh(&x->env->student);
        ok = blk_call(x, d);
        if (ok == 1)
            ok = check_block_perm(d, out1, p, tol, x->v);
    }
    free(out1);
    free(x0);
    free(p);
    return ok;
}

static int run_permutation(const struct prop_ctx *x)
{
    return blk_run(x, perm_body);
}

/* ---- full_vs_trusted ------------------------------------------------- */

static int full_body(const struct prop_ctx *x, struct blk_data *d, double tol)
{
    int ok;

    ok = blk_expect_call(x, d);
    if (ok != 1 || check_want(d, "", tol, x->v))
        return ok;
    if (x->v->hint[0] == '\0')
        pu_hint(x->v, "X <- LN(X + MHA(X, X)), then X <- LN(X + FFN(X)) with "
                "FFN(x) = relu(x.W1 + b1).W2 + b2; the same mask for every "
                "head");
    return 0;
}

static int run_full(const struct prop_ctx *x)
{
    return blk_run(x, full_body);
}

/* ---- the table ------------------------------------------------------- */

static const char *const blk_keys[] = {"n", "d_model", "heads", "d_ff", "eps",
                                       "scale", "mask", NULL};
static const char *const nomask_keys[] = {"n", "d_model", "heads", "d_ff",
                                          "eps", "scale", NULL};

const struct prop_def prop_block_defs[] = {
    /* Not a value test: with Wo = W2 = b2 = 0 the block is LN(LN(X)),
     * which a block computing only LN(X) also gives. */
    {"block", "residual_path", run_residual, nomask_keys, 1e-3, 0,
     "with Wo, W2, b2 = 0 the block is LN(LN(X)): the residual path", NULL, PROP_INVARIANT},
    {"block", "post_norm", run_post_norm, blk_keys, 1e-3, 0,
     "every output row has mean 0 and variance 1", NULL, PROP_INVARIANT},
    {"block", "permutation_equivariance", run_permutation, nomask_keys, 1e-3,
     0, "permuting the rows of X permutes the output rows", NULL, PROP_INVARIANT},
    {"block", "full_vs_trusted", run_full, blk_keys, 1e-3, 0,
     "the whole block against a trusted double computation", NULL, PROP_VALUE_TEST},
    /* the generic properties (prop_common.h) */
    {"block", "inputs_unchanged", pc_run_inputs_unchanged, pc_generic_keys,
     0, 0, "the const inputs are byte-equal after the call", NULL, PROP_INVARIANT},
    {"block", "einval", pc_run_einval, pc_generic_keys, 0, 0,
     "every bad argument gives ATTN_EINVAL and writes nothing", NULL, PROP_INVARIANT},
    {"block", "deterministic", pc_run_deterministic, pc_generic_keys, 0, 0,
     "two calls on the same inputs give bit-identical outputs", NULL, PROP_INVARIANT},
    {"block", "no_leaks", pc_run_no_leaks, pc_generic_keys, 0, 0,
     "everything allocated is freed before returning", NULL, PROP_INVARIANT},
    {"block", "speed", pc_run_speed, pc_generic_keys, 0, 1,
     "at most `factor` times slower than the reference (+ floor_ms)", NULL, PROP_INVARIANT},
    {"block", "matches_reference", pc_run_matches_reference, pc_generic_keys,
     1e-3, 1, "elementwise agreement with the reference solution", NULL, PROP_VALUE_TEST},
};
const size_t prop_block_count =
    sizeof prop_block_defs / sizeof prop_block_defs[0];
