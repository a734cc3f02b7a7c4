/*
 * prop_mha_data.c -- one case of attn_multi_head's properties: its data
 * (built from the spec case), the trusted result, the call of the
 * submission, and the diagnosis of a mismatch; see prop_mha_data.h.
 */
#include "props/prop_mha_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_common.h"
#include "oracle/oracle.h"
#include "props/prop_util.h"

#define FN "attn_multi_head"

/* ---- one case's data --------------------------------------------------- */

static void mha_free(struct pmha_data *d)
{
    if (d->xkv != d->xq)
        free(d->xkv);
    if (d->dxkv != d->dxq)
        free(d->dxkv);
    free(d->xq);
    free(d->dxq);
    for (int i = 0; i < 4; i++)
        free(d->w[i]);
    free(d->mask);
    free(d->out);
    free(d->weights);
    free(d->want);
    free(d->want_w);
    memset(d, 0, sizeof *d);
}

/* Shapes from the case; `self` and `heads` defaults come from the
 * property. 0, or -1 with e set for shapes the API refuses. */
static int mha_shape(struct pmha_data *d, const struct spec_test *t,
                     const struct spec_case *c, int self, size_t heads)
{
    d->s.n_q = pu_size(c, "n_q", 4);
    d->self = (int)spec_num(c, "self", self);
    d->s.n_kv = d->self ? d->s.n_q : pu_size(c, "n_kv", d->s.n_q);
    d->s.d_model = pu_size(c, "d_model", 8);
    d->s.heads = pu_size(c, "heads", heads);
    d->mask_kind = spec_str(c, "mask", "none");
    snprintf(d->label, sizeof d->label, "case %zu (n_q=%zu, n_kv=%zu, "
             "d_model=%zu, heads=%zu, mask=%s%s)", (size_t)(c - t->cases) + 1,
             d->s.n_q, d->s.n_kv, d->s.d_model, d->s.heads, d->mask_kind,
             d->self ? ", self-attention" : "");
    if (!d->s.n_q || !d->s.n_kv || !d->s.d_model || !d->s.heads ||
        d->s.d_model % d->s.heads || d->s.d_model > 4096 ||
        d->s.n_q > 4096 || d->s.n_kv > 4096 || d->s.heads > 4096)
        return -1;
    return 0;
}

static int mha_alloc(struct pmha_data *d)
{
    const size_t d2 = d->s.d_model * d->s.d_model;
    const size_t nq = d->s.n_q * d->s.d_model, nkv = d->s.n_kv * d->s.d_model;
    const size_t nw = d->s.heads * d->s.n_q * d->s.n_kv;
    int ok = 1;

    d->xq = pu_floats(nq);
    d->dxq = calloc(nq, sizeof(double));
    d->xkv = d->self ? d->xq : pu_floats(nkv);
    d->dxkv = d->self ? d->dxq : calloc(nkv, sizeof(double));
    for (int i = 0; i < 4; i++)
        ok = (d->w[i] = pu_floats(d2)) != NULL && ok;
    if (strcmp(d->mask_kind, "none") != 0)
        ok = (d->mask = pu_bytes(d->s.n_q * d->s.n_kv)) != NULL && ok;
    d->out = pu_floats(nq);
    d->weights = pu_floats(nw);
    d->want = calloc(nq, sizeof(double));
    d->want_w = calloc(nw, sizeof(double));
    return ok && d->xq && d->dxq && d->xkv && d->dxkv && d->out &&
           d->weights && d->want && d->want_w ? 0 : -1;
}

/* Copy the float inputs to their double twins (after any change). */
void pmha_widen(struct pmha_data *d)
{
    for (size_t i = 0; i < d->s.n_q * d->s.d_model; i++)
        d->dxq[i] = d->xq[i];
    if (!d->self)
        for (size_t i = 0; i < d->s.n_kv * d->s.d_model; i++)
            d->dxkv[i] = d->xkv[i];
}

static int mha_fill(struct pmha_data *d, const struct spec_case *c,
                    struct pu_rng *r)
{
    const double xs = spec_num(c, "scale", 1.0);
    const double ws = spec_num(c, "wscale", 1.0) / sqrt((double)d->s.d_model);

    pu_fill_gauss(d->xq, d->s.n_q * d->s.d_model, r, xs);
    if (!d->self)
        pu_fill_gauss(d->xkv, d->s.n_kv * d->s.d_model, r, xs);
    for (int i = 0; i < 4; i++)
        pu_fill_gauss(d->w[i], d->s.d_model * d->s.d_model, r, ws);
    pmha_widen(d);
    if (d->mask == NULL)
        return 0;
    return pu_fill_mask(d->mask, d->s.n_q, d->s.n_kv, d->mask_kind, r);
}

/* Build a case's data; 0 or -1 (e set, nothing to free). */
static int mha_build(struct pmha_data *d, const struct prop_env *env,
                     const struct spec_test *t, const struct spec_case *c,
                     int self, size_t heads, struct err *e)
{
    struct pu_rng r;

    memset(d, 0, sizeof *d);
    if (mha_shape(d, t, c, self, heads) < 0)
        return err_set(e, t->file, c->line, c->col, "'%s': %s is not a valid "
                       "multi-head shape", t->id, d->label);
    if (mha_alloc(d) < 0) {
        mha_free(d);
        return err_set(e, NULL, 0, 0, "out of memory in '%s'", t->id);
    }
    d->orc = env->orc;
    pu_rng_seed(&r, pu_case_seed(env, t, c));
    if (mha_fill(d, c, &r) < 0) {
        mha_free(d);
        return err_set(e, t->file, c->line, c->col, "'%s': unknown mask kind "
                       "'%s'", t->id, spec_str(c, "mask", ""));
    }
    return 0;
}

int pmha_expect(struct pmha_data *d, struct err *e)
{
    static const struct orc_mha_variant right = {ORC_SL_BLOCKS, ORC_SL_BLOCKS, 0, 0};
    const float *const w[4] = {d->w[0], d->w[1], d->w[2], d->w[3]};
    int rc = orc_mha(d->orc, &d->s, &right, d->dxq, d->dxkv, w, d->mask, d->want,
                     d->want_w);

    return rc < 0 ? err_set(e, NULL, 0, 0, "out of memory in trusted attention") : rc;
}

/* Call the submission with d's inputs (weights NULL unless `with_w`).
 * -1 grader error, 0 call failed (verdict filled), 1 returned ATTN_OK. */
int pmha_call(const struct prop_ctx *x, struct pmha_data *d, int with_w)
{
    struct impl_result r;

    memset(d->out, 0, d->s.n_q * d->s.d_model * sizeof *d->out);
    memset(d->weights, 0, d->s.heads * d->s.n_q * d->s.n_kv * sizeof(float));
    if (x->env->student.ops->multi_head(x->env->student.self, d->xq, d->s.n_q,
                                     d->xkv, d->s.n_kv, d->s.d_model,
                                     d->s.heads, d->w[0], d->w[1], d->w[2],
                                     d->w[3], d->mask, d->out,
                                     with_w ? d->weights : NULL, &r, x->e) < 0)
        return -1;
    return pu_returned_ok(x->v, &r, FN);
}

int pmha_expect_call(const struct prop_ctx *x, struct pmha_data *d, int with_w)
{
    int ok = pmha_expect(d, x->e);

    if (ok != 0)
        return ok < 0 ? -1 : pu_no_oracle(x->v, d->label);
    return pmha_call(x, d, with_w);
}

/* First index where |got - want| > tol * max(1, |want|), or n. */
size_t pmha_first_far(const float *got, const double *want, size_t n,
                     double tol)
{
    for (size_t i = 0; i < n; i++)
        if (!pu_close(want[i], got[i], tol * fmax(1.0, fabs(want[i])), 0))
            return i;
    return n;
}

/* ---- diagnosis ----------------------------------------------------------- */

struct guess {
    struct orc_mha_variant va;
    int kv_from_xq;
    const char *hint;
};

static const struct guess guesses[] = {
    {{ORC_SL_BLOCKS, ORC_SL_BLOCKS, 1, 0}, 0, "the output matches the scale 1/sqrt(d_model): "
     "each head scales its logits by 1/sqrt(d_head), d_head = d_model/heads"},
    {{ORC_SL_INTERLEAVED, ORC_SL_BLOCKS, 0, 0}, 0, "head h looks like it used "
     "interleaved columns h, h+heads, h+2*heads, ... of Q, K and V: head h "
     "uses the column block [h*d_head, (h+1)*d_head)"},
    {{ORC_SL_INTERLEAVED, ORC_SL_INTERLEAVED, 0, 0}, 0, "head h looks like it used "
     "interleaved columns h, h+heads, h+2*heads, ...: head h uses (and "
     "writes) the column block [h*d_head, (h+1)*d_head)"},
    {{ORC_SL_ROWS, ORC_SL_ROWS, 0, 0}, 0, "head h looks like it used rows (Q read as heads "
     "chunks of n_q x d_head) instead of the column block [h*d_head, "
     "(h+1)*d_head) of Q, K and V"},
    {{ORC_SL_BLOCKS, ORC_SL_BLOCKS, 0, 1}, 0, "the output matches concat(head_0, ..., head_H-1) "
     "without the final projection: multiply the concatenation by Wo"},
    {{ORC_SL_BLOCKS, ORC_SL_BLOCKS, 0, 0}, 1, "the output matches K and V computed from Xq: in "
     "attention between two sequences K = Xkv.Wk and V = Xkv.Wv"},
};

/* Whether the submission's output follows guess g (to 1e-3). */
static int follows(const struct pmha_data *d, const struct guess *g,
                   double *tmp)
{
    const float *const w[4] = {d->w[0], d->w[1], d->w[2], d->w[3]};
    const size_t n = d->s.n_q * d->s.d_model;

    if (g->kv_from_xq && (d->self || d->s.n_kv > d->s.n_q))
        return 0;
    if (g->va.sl != ORC_SL_BLOCKS && d->s.heads == 1)
        return 0;
    if (orc_mha(d->orc, &d->s, &g->va, d->dxq, g->kv_from_xq ? d->dxq : d->dxkv, w,
                d->mask, tmp, NULL) != 0)
        return 0;
    return pmha_first_far(d->out, tmp, n, 1e-3) == n;
}

/* Set a hint naming the wrong variant the output follows, if one does. */
static void diagnose(const struct pmha_data *d, struct prop_verdict *v)
{
    double *tmp = calloc(d->s.n_q * d->s.d_model, sizeof *tmp);

    for (size_t i = 0; tmp && i < sizeof guesses / sizeof guesses[0]; i++)
        if (follows(d, &guesses[i], tmp)) {
            pu_hint(v, "%s", guesses[i].hint);
            break;
        }
    free(tmp);
}

/* Fail at the first output far from want; 1 when all are close. */
int pmha_check_out(const struct pmha_data *d, const char *what, double tol,
                  struct prop_verdict *v)
{
    const size_t n = d->s.n_q * d->s.d_model;
    size_t at = pmha_first_far(d->out, d->want, n, tol);

    if (at == n)
        return 1;
    pu_fail(v, "%s%s: out[%zu][%zu] is %.7g, expected %.7g (tolerance %g, "
            "relative above 1)", d->label, what, at / d->s.d_model,
            at % d->s.d_model, (double)d->out[at], d->want[at], tol);
    diagnose(d, v);
    return 0;
}

int pmha_run(const struct prop_ctx *x, int self, size_t heads, pmha_body body)
{
    struct pmha_data d;
    int ok;

    if (mha_build(&d, x->env, x->t, x->c, self, heads, x->e) < 0)
        return -1;
    ok = body(x, &d, pc_tol(x));
    mha_free(&d);
    return pu_outcome(ok, x->v);
}
