/*
 * prop_mha.c -- the properties of attn_multi_head ("mha"). One case's
 * data, its expected result and the diagnosis of a mismatch are in
 * prop_mha_data.c; the expected values come from the oracle (orc_mha,
 * oracle.h: oracle/trusted.c in the staff build, golden data in the
 * student build).
 *
 * Inputs: X ~ N(0, scale^2), each W ~ N(0, wscale^2 / d_model), so that
 * the projections are O(1) and the logits q.k/sqrt(d_head) ~ N(0, 1): the
 * softmax stays soft and every head's weights matter. On a mismatch,
 * diagnose() recomputes the usual wrong variants (wrong head slicing, wrong
 * scale, no Wo, K/V from Xq) in double and names the one the output
 * follows.
 *
 * Tolerance of the comparisons with trusted math (default 5e-4, relative
 * above 1): a float implementation rounds the projections (error <=
 * gamma_d * sum|x w| ~ d*u*0.64*sqrt(d), 2e-5 at d = 64), the logits and
 * the weights (relative ~ the logit error, ~ 1e-5), each head's mix, and
 * the final product with Wo (another ~ 2e-5): about 1e-4 worst case at
 * d_model <= 64, n <= 32; realistic errors are ~ 1e-6. A wrong scale,
 * slicing or missing Wo moves outputs by 1e-1.
 */
#include "oracle/oracle.h"
#include "props/prop_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_common.h"
#include "props/prop_defs.h"
#include "props/prop_mha_data.h"

#define FN "attn_multi_head"

/* ---- one_head_equals_attention ------------------------------------------ */

/* X . W rounded to float, as a submission's projection would be; NULL on
 * OOM. The caller frees. */
static float *proj_f(const float *X, const float *W, size_t n, size_t d)
{
    double *acc = calloc(n * d, sizeof *acc);
    float *y = pu_floats(n * d);

    if (acc && y) {
        pu_matmul_d(X, W, n, d, d, acc);
        for (size_t i = 0; i < n * d; i++)
            y[i] = (float)acc[i];
    }
    free(acc);
    if (!acc) {
        free(y);
        return NULL;
    }
    return y;
}

/* With heads = 1, MHA is Attention(Xq Wq, Xkv Wk, Xkv Wv) Wo: expected via
 * pu_matmul_d and orc_sdpa (scale 1/sqrt(d_model)), independently of
 * orc_mha. 0, ORC_MISSING or -1 (e set). */
static int one_head_expect(struct pmha_data *d, struct err *e)
{
    const size_t nq = d->s.n_q, nkv = d->s.n_kv, dm = d->s.d_model;
    float *q = proj_f(d->xq, d->w[0], nq, dm);
    float *k = proj_f(d->xkv, d->w[1], nkv, dm);
    float *val = proj_f(d->xkv, d->w[2], nkv, dm);
    float *attf = pu_floats(nq * dm);
    double *att = calloc(nq * dm, sizeof *att);
    int rc = -1;

    if (q && k && val && attf && att &&
        (rc = orc_sdpa(d->orc, q, k, val, nq, nkv, dm, dm, d->mask,
                       1.0 / sqrt((double)dm), att, d->want_w)) == 0) {
        for (size_t i = 0; i < nq * dm; i++)
            attf[i] = (float)att[i];
        pu_matmul_d(attf, d->w[3], nq, dm, dm, d->want);
        rc = 0;
    }
    free(q);
    free(k);
    free(val);
    free(attf);
    free(att);
    return rc < 0 ? err_set(e, NULL, 0, 0, "out of memory") : rc;
}

/* Fail at the first weight far from want_w (absolute tol). */
static int check_weights(const struct pmha_data *d, double tol,
                         struct prop_verdict *v)
{
    const size_t n = d->s.heads * d->s.n_q * d->s.n_kv, per = d->s.n_q * d->s.n_kv;
    size_t at = pmha_first_far(d->weights, d->want_w, n, tol);

    if (at == n)
        return 1;
    pu_fail(v, "%s: weights[%zu][%zu][%zu] (head, query, key) is %.7g, "
            "expected %.7g (tolerance %g)", d->label, at / per,
            at % per / d->s.n_kv, at % d->s.n_kv, (double)d->weights[at],
            d->want_w[at], tol);
    return 0;
}

static int one_head_body(const struct prop_ctx *x, struct pmha_data *d, double tol)
{
    int ok;

    if ((ok = one_head_expect(d, x->e)) != 0)
        return ok < 0 ? -1 : pu_no_oracle(x->v, d->label);
    ok = pmha_call(x, d, 1);
    if (ok != 1)
        return ok;
    if (!pmha_check_out(d, "", tol, x->v))
        return 0;
    if (check_weights(d, tol, x->v))
        return 1;
    pu_hint(x->v, "with one head the weights are softmax(Q K^T / sqrt(d_model)) "
            "of the projections Q = Xq.Wq and K = Xkv.Wk");
    return 0;
}

static int run_one_head(const struct prop_ctx *x)
{
    return pmha_run(x, 1, 1, one_head_body);
}

/* ---- head_split_column_blocks ------------------------------------------- */

/* Head h's columns of Wq scaled by 1 + h: every head gets its own
 * sharpness, so a head that reads another's columns cannot pass. */
static void sharpen_heads(struct pmha_data *d)
{
    const size_t dm = d->s.d_model, dh = dm / d->s.heads;

    for (size_t r = 0; r < dm; r++)
        for (size_t col = 0; col < dm; col++)
            d->w[0][r * dm + col] *= (float)(1 + col / dh);
}

static int head_split_body(const struct prop_ctx *x, struct pmha_data *d, double tol)
{
    int ok;

    sharpen_heads(d);
    ok = pmha_expect_call(x, d, 0);
    if (ok != 1)
        return ok;
    if (pmha_check_out(d, "", tol, x->v))
        return 1;
    if (x->v->hint[0] == '\0')
        pu_hint(x->v, "head h uses columns [h*d_head, (h+1)*d_head) of Q, K and "
                "V with the scale 1/sqrt(d_head), and writes the same columns "
                "of the concatenation");
    return 0;
}

static int run_head_split(const struct prop_ctx *x)
{
    return pmha_run(x, 1, 2, head_split_body);
}

/* ---- additive_over_heads_through_wo ------------------------------------- */

/* Wo kept only in the rows of head h (from the saved full Wo). */
static void wo_only_head(struct pmha_data *d, const float *wo_full, size_t h)
{
    const size_t dm = d->s.d_model, dh = dm / d->s.heads;

    for (size_t r = 0; r < dm; r++)
        for (size_t col = 0; col < dm; col++)
            d->w[3][r * dm + col] = r / dh == h ? wo_full[r * dm + col] : 0.0f;
}

static int additive_head(const struct prop_ctx *x, struct pmha_data *d,
                         size_t h, double tol)
{
    const size_t dh = d->s.d_model / d->s.heads;
    char what[96];
    int ok;

    ok = pmha_expect_call(x, d, 0);
    if (ok != 1)
        return ok;
    snprintf(what, sizeof what, " with Wo zero outside rows [%zu, %zu) "
             "(head %zu's contribution only)", h * dh, (h + 1) * dh, h);
    if (pmha_check_out(d, what, tol, x->v))
        return 1;
    if (x->v->hint[0] == '\0')
        pu_hint(x->v, "out = concat(head_0, ..., head_H-1) . Wo, so rows "
                "[h*d_head, (h+1)*d_head) of Wo multiply head h's output: "
                "are the heads concatenated in order, each in its own "
                "column block?");
    return 0;
}

static int additive_body(const struct prop_ctx *x, struct pmha_data *d, double tol)
{
    const size_t n = d->s.d_model * d->s.d_model;
    float *wo = pu_floats(n);
    int ok = 1;

    if (wo == NULL)
        return err_set(x->e, NULL, 0, 0, "out of memory");
    memcpy(wo, d->w[3], n * sizeof *wo);
    for (size_t h = 0; ok == 1 && h < d->s.heads; h++) {
        wo_only_head(d, wo, h);
        ok = additive_head(x, d, h, tol);
    }
    free(wo);
    return ok;
}

static int run_additive(const struct prop_ctx *x)
{
    return pmha_run(x, 1, 2, additive_body);
}

/* ---- self_attention_permutation_equivariance ----------------------------- */

/* Rows of an n x d matrix reordered: dst[i] = src[p[i]]. */
static void permute_rows(float *dst, const float *src, const size_t *p,
                         size_t n, size_t d)
{
    for (size_t i = 0; i < n; i++)
        memcpy(dst + i * d, src + p[i] * d, d * sizeof *dst);
}

/* out2 (on P X) against out1 (on X): out2[i] must be out1[p[i]]. */
static int check_permuted(const struct pmha_data *d, const float *out1,
                          const size_t *p, double tol, struct prop_verdict *v)
{
    const size_t dm = d->s.d_model;

    for (size_t i = 0; i < d->s.n_q; i++)
        for (size_t c = 0; c < dm; c++) {
            double want = out1[p[i] * dm + c], got = d->out[i * dm + c];
            if (pu_close(want, got, tol * fmax(1.0, fabs(want)), 0))
                continue;
            pu_fail(v, "%s: with the rows of X permuted, out[%zu][%zu] is "
                    "%.7g but out[%zu][%zu] of the unpermuted call was %.7g "
                    "(tolerance %g)", d->label, i, c, got, p[i], c, want, tol);
            pu_hint(v, "attention is an operation over a set: permuting the "
                    "words permutes the output rows the same way. Does row i "
                    "of the output depend on anything but row i of Q and the "
                    "set of rows of K and V (e.g. heads cut across rows)?");
            return 0;
        }
    return 1;
}

/* Scratch of the permutation test: out1, X copy, permutation. */
struct perm_scratch {
    float *out1, *x0;
    size_t *p;
};

static int perm_body(const struct prop_ctx *x, struct pmha_data *d, double tol)
{
    const size_t n = d->s.n_q * d->s.d_model;
    struct perm_scratch s = {pu_floats(n), pu_floats(n),
                             calloc(d->s.n_q, sizeof(size_t))};
    struct pu_rng r;
    int ok = -1;

    if (s.out1 && s.x0 && s.p && (ok = pmha_call(x, d, 0)) == 1) {
        memcpy(s.out1, d->out, n * sizeof *s.out1);
        memcpy(s.x0, d->xq, n * sizeof *s.x0);
        pu_rng_seed(&r, (uint64_t)n * 7919u + d->s.heads);
        pu_permutation(s.p, d->s.n_q, &r);
        permute_rows(d->xq, s.x0, s.p, d->s.n_q, d->s.d_model);
        pc_fresh(&x->env->student);
        ok = pmha_call(x, d, 0);
        if (ok == 1)
            ok = check_permuted(d, s.out1, s.p, tol, x->v);
    }
    if (ok < 0 && !(s.out1 && s.x0 && s.p))
        err_set(x->e, NULL, 0, 0, "out of memory");
    free(s.out1);
    free(s.x0);
    free(s.p);
    return ok;
}

static int run_permutation(const struct prop_ctx *x)
{
    return pmha_run(x, 1, 2, perm_body);
}

/* ---- cross_attention --------------------------------------------------- */

/* Permute the rows of Xkv and the columns of the mask alike; the trusted
 * output does not change (in exact arithmetic). */
static int permute_kv(struct pmha_data *d, struct err *e)
{
    const size_t nkv = d->s.n_kv, dm = d->s.d_model;
    float *x0 = pu_floats(nkv * dm);
    unsigned char *m0 = d->mask ? pu_bytes(d->s.n_q * nkv) : NULL;
    size_t *p = calloc(nkv, sizeof *p);
    struct pu_rng r;
    int rc = -1;

    if (x0 && p && (m0 || !d->mask)) {
        pu_rng_seed(&r, (uint64_t)nkv * 104729u + dm);
        pu_permutation(p, nkv, &r);
        memcpy(x0, d->xkv, nkv * dm * sizeof *x0);
        permute_rows(d->xkv, x0, p, nkv, dm);
        for (size_t i = 0; m0 && i < d->s.n_q; i++)
            for (size_t j = 0; j < nkv; j++)
                m0[i * nkv + j] = d->mask[i * nkv + p[j]];
        if (m0)
            memcpy(d->mask, m0, d->s.n_q * nkv);
        pmha_widen(d);
        rc = 0;
    }
    free(x0);
    free(m0);
    free(p);
    return rc < 0 ? err_set(e, NULL, 0, 0, "out of memory") : 0;
}

static int cross_body(const struct prop_ctx *x, struct pmha_data *d, double tol)
{
    int ok;

    ok = pmha_expect_call(x, d, 0);
    if (ok != 1 || !pmha_check_out(d, "", tol, x->v))
        return ok == 1 ? 0 : ok;
    if (permute_kv(d, x->e) < 0)
        return -1;
    if ((ok = pmha_expect(d, x->e)) != 0)
        return ok < 0 ? -1 : pu_no_oracle(x->v, d->label);
    pc_fresh(&x->env->student);
    ok = pmha_call(x, d, 0);
    if (ok != 1 || pmha_check_out(d, " after permuting the rows of Xkv", tol, x->v))
        return ok;
    if (x->v->hint[0] == '\0')
        pu_hint(x->v, "the order of the keys/values does not matter to a query: "
                "is row j of Xkv paired with anything but key j?");
    return 0;
}

static int run_cross(const struct prop_ctx *x)
{
    return pmha_run(x, 0, 2, cross_body);
}

/* ---- einval_heads_not_dividing ----------------------------------------- */

#define SENTINEL (-12345.5f)

/* Whether every float of x is still SENTINEL. */
static int untouched(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&x[i], &(float){SENTINEL}, sizeof(float)) != 0)
            return 0;
    return 1;
}

/* Judge a call that had to return ATTN_EINVAL without writing. */
static int judge_einval(const struct impl_result *r, const float *out,
                        size_t n_out, const float *w, size_t n_w,
                        const char *label, struct prop_verdict *v)
{
    v->call = *r;
    if (r->status != CALL_RETURNED)
        return pu_fail(v, "%s: %s %s%s%s", label, FN,
                       impl_status_name(r->status), r->detail[0] ? ": " : "",
                       r->detail);
    if (r->rc == ATTN_ENOTIMPL) {
        v->not_implemented = 1;
        return pu_fail(v, "%s is not implemented yet (returned "
                       "ATTN_ENOTIMPL)", FN);
    }
    if (r->rc != ATTN_EINVAL)
        return pu_fail(v, "%s: returned %d, expected ATTN_EINVAL (-1)",
                       label, r->rc);
    if (!untouched(out, n_out) || !untouched(w, n_w))
        return pu_fail(v, "%s: returned ATTN_EINVAL but wrote to %s", label,
                       untouched(out, n_out) ? "weights" : "out");
    return 1;
}

static int einval_heads_call(const struct prop_env *env, const float *x,
                             const float *w, float *out, float *wts,
                             size_t nq, size_t nkv, size_t dm, size_t heads,
                             struct impl_result *r, struct err *e)
{
    return env->student.ops->multi_head(env->student.self, x, nq, x, nkv, dm,
                                        heads, w, w, w, w, NULL, out, wts, r,
                                        e);
}

/* A fresh buffer of n SENTINELs; NULL on OOM. */
static float *sentinels(size_t n)
{
    float *x = pu_floats(n);

    for (size_t i = 0; x && i < n; i++)
        x[i] = SENTINEL;
    return x;
}

static int run_einval_heads(const struct prop_ctx *x)
{
    size_t nq = pu_size(x->c, "n_q", 3), nkv = pu_size(x->c, "n_kv", nq);
    size_t dm = pu_size(x->c, "d_model", 6), heads = pu_size(x->c, "heads", 4);
    size_t nmax = (nq > nkv ? nq : nkv) * dm, nw = (heads ? heads : 1) * nq * nkv;
    float *in = pu_floats(nmax), *w = pu_floats(dm * dm);
    float *out = sentinels(nq * dm), *wts = sentinels(nw);
    struct impl_result r;
    char label[160];
    int rc = -1;

    snprintf(label, sizeof label, "case %zu (d_model=%zu, heads=%zu)",
             (size_t)(x->c - x->t->cases) + 1, dm, heads);
    if (nq && nkv && dm && nmax <= (1u << 20) && in && w && out && wts &&
        einval_heads_call(x->env, in, w, out, wts, nq, nkv, dm, heads, &r, x->e) == 0)
        rc = judge_einval(&r, out, nq * dm, wts, nw, label, x->v);
    if (rc == 0)
        pu_hint(x->v, "d_head = d_model / heads must be a whole number: check "
                "heads != 0 and d_model %% heads == 0 before writing anything");
    free(in);
    free(w);
    free(out);
    free(wts);
    if (rc < 0)
        return x->e && x->e->msg[0] ? -1 : err_set(x->e, NULL, 0, 0, "'%s': bad case "
                                             "or out of memory", x->t->id);
    return rc ? pu_pass(x->v) : 0;
}

/* ---- weights_rows_sum_to_one -------------------------------------------- */

/* Default tolerance 1e-5: a float row of n_kv <= 64 weights sums with
 * error <= n_kv * u ~ 4e-6 plus one rounding per weight. */
static int check_weight_row(const struct pmha_data *d, size_t h, size_t i,
                            double tol, struct prop_verdict *v)
{
    const float *w = d->weights + (h * d->s.n_q + i) * d->s.n_kv;
    const unsigned char *m = d->mask ? d->mask + i * d->s.n_kv : NULL;
    double sum = 0.0, want = 0.0;

    for (size_t j = 0; j < d->s.n_kv; j++) {
        if (!(w[j] >= -tol && w[j] <= 1.0 + tol) || (m && !m[j] && w[j] != 0.0f))
            return pu_fail(v, "%s: weights[%zu][%zu][%zu] (head, query, key) "
                           "is %.7g; expected a value in [0, 1]%s", d->label,
                           h, i, j, (double)w[j],
                           m && !m[j] ? ", exactly 0 for a hidden key" : "");
        sum += w[j];
        want = (!m || m[j]) ? 1.0 : want;
    }
    if (fabs(sum - want) <= tol)
        return 1;
    pu_fail(v, "%s: weights[%zu][%zu] (head %zu, query %zu) sums to %.7g "
            "(expected %g ± %g)", d->label, h, i, h, i, sum, want, tol);
    if (sum == 0.0)
        pu_hint(v, "head %zu's weights are all 0: are all heads' weights "
                "written, head h's at offset h * n_q * n_kv?", h);
    return 0;
}

static int rows_sum_body(const struct prop_ctx *x, struct pmha_data *d, double tol)
{
    int ok = pmha_call(x, d, 1);

    for (size_t h = 0; ok == 1 && h < d->s.heads; h++)
        for (size_t i = 0; ok == 1 && i < d->s.n_q; i++)
            ok = check_weight_row(d, h, i, tol, x->v);
    return ok;
}

static int run_rows_sum(const struct prop_ctx *x)
{
    return pmha_run(x, 1, 2, rows_sum_body);
}

/* ---- weights_layout ---------------------------------------------------- */

/* Whether the weights are the trusted ones stored n_q x heads x n_kv. */
static int layout_swapped(const struct pmha_data *d, double tol)
{
    const size_t H = d->s.heads, nq = d->s.n_q, nkv = d->s.n_kv;

    for (size_t h = 0; h < H; h++)
        for (size_t i = 0; i < nq; i++)
            for (size_t j = 0; j < nkv; j++)
                if (!pu_close(d->want_w[(h * nq + i) * nkv + j],
                              d->weights[(i * H + h) * nkv + j], tol, 0))
                    return 0;
    return 1;
}

static int layout_body(const struct prop_ctx *x, struct pmha_data *d, double tol)
{
    int ok;

    ok = pmha_expect_call(x, d, 1);
    if (ok != 1 || check_weights(d, tol, x->v))
        return ok;
    if (layout_swapped(d, tol))
        pu_hint(x->v, "the weights are written n_q x heads x n_kv: the buffer "
                "is heads x n_q x n_kv, weights[h][i][j] at (h * n_q + i) * "
                "n_kv + j");
    else
        pu_hint(x->v, "weights[h][i][j] is head h's softmax weight of key j for "
                "query i, from head h's column block of Q and K and the "
                "scale 1/sqrt(d_head)");
    return 0;
}

static int run_layout(const struct prop_ctx *x)
{
    return pmha_run(x, 1, 2, layout_body);
}

/* ---- the table --------------------------------------------------------- */

static const char *const one_head_keys[] = {"n_q", "n_kv", "d_model", "mask",
                                            "self", "scale", "wscale", NULL};
static const char *const mha_keys[] = {"n_q", "n_kv", "d_model", "heads",
                                       "mask", "self", "scale", "wscale", NULL};
static const char *const perm_keys[] = {"n_q", "d_model", "heads", "scale",
                                        "wscale", NULL};
static const char *const einval_keys[] = {"n_q", "n_kv", "d_model", "heads",
                                          NULL};

const struct prop_def pmha_defs[] = {
    {"mha", "one_head_equals_attention", run_one_head, one_head_keys, 5e-4, 0,
     "heads = 1 is scaled dot-product attention of the projections, then Wo",
     NULL, PROP_VALUE_TEST},
    {"mha", "head_split_column_blocks", run_head_split, mha_keys, 5e-4, 0,
     "head h uses the column block [h*d_head, (h+1)*d_head) of Q, K, V",
     NULL, PROP_VALUE_TEST},
    {"mha", "additive_over_heads_through_wo", run_additive, mha_keys, 5e-4, 0,
     "out is the sum over heads of head_h . (head h's rows of Wo)", NULL, PROP_VALUE_TEST},
    {"mha", "self_attention_permutation_equivariance", run_permutation,
     perm_keys, 5e-4, 0, "permuting the rows of X (Xq == Xkv) permutes out",
     NULL, PROP_INVARIANT},
    {"mha", "cross_attention", run_cross, mha_keys, 5e-4, 0,
     "Q from Xq, K and V from Xkv (n_q != n_kv), invariant to Xkv's order",
     NULL, PROP_VALUE_TEST},
    {"mha", "einval_heads_not_dividing", run_einval_heads, einval_keys, 0, 0,
     "heads = 0 or not dividing d_model gives ATTN_EINVAL, nothing written",
     NULL, PROP_INVARIANT},
    {"mha", "weights_rows_sum_to_one", run_rows_sum, mha_keys, 1e-5, 0,
     "each head's weight rows are in [0, 1] and sum to one", NULL, PROP_INVARIANT},
    {"mha", "weights_layout", run_layout, mha_keys, 5e-4, 0,
     "weights[h][i][j] is head h's weight, heads x n_q x n_kv", NULL, PROP_VALUE_TEST},
    /* the generic properties (prop_common.h) */
    {"mha", "inputs_unchanged", pc_run_inputs_unchanged, pc_generic_keys,
     0, 0, "the const inputs are byte-equal after the call", NULL, PROP_INVARIANT},
    {"mha", "einval", pc_run_einval, pc_generic_keys, 0, 0,
     "every bad argument gives ATTN_EINVAL and writes nothing", NULL, PROP_INVARIANT},
    {"mha", "deterministic", pc_run_deterministic, pc_generic_keys, 0, 0,
     "two calls on the same inputs give bit-identical outputs", NULL, PROP_INVARIANT},
    {"mha", "no_leaks", pc_run_no_leaks, pc_generic_keys, 0, 0,
     "everything allocated is freed before returning", NULL, PROP_INVARIANT},
    {"mha", "speed", pc_run_speed, pc_generic_keys, 0, 1,
     "at most `factor` times slower than the reference (+ floor_ms)", NULL, PROP_INVARIANT},
    {"mha", "matches_reference", pc_run_matches_reference, pc_generic_keys,
     5e-4, 1, "elementwise agreement with the reference solution", NULL, PROP_VALUE_TEST},
};
const size_t pmha_count = sizeof pmha_defs / sizeof pmha_defs[0];
