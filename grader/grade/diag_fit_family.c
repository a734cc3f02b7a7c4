/* diag_fit_family.c -- the families of mistakes of grade/diag_fit.h:
 * each predicts a call's outputs from the reference's on changed inputs or
 * from the expected outputs under an index map. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/diag_fit_internal.h"

/* ---- families ---------------------------------------------------------- */

/*
 * A family predicts the submission's outputs of a call from the
 * reference's on changed inputs, or from the expected outputs under an
 * index map. predict fills pred[o] (k->out_len[o] floats each) and returns
 * 1, 0 when the family says nothing of this call, -1 on a grader error.
 */

enum {
    FK_QSCALE,      /* sdpa: Q times a(d_k, n_k, d_v): another scale */
    FK_WQSCALE,     /* mha: Wq times a factor: another scale */
    FK_WO_ID,       /* mha: Wo the identity: no output projection */
    FK_ZERO_IN,     /* input number a set to 0: a missing bias */
    FK_OUTMAP,      /* the expected outputs under index map a (mapped_equal's) */
    FK_WHOLE,       /* softmax, layernorm: over the whole matrix as one row */
    FK_COLUMNS,     /* softmax, layernorm: over each column */
    FK_ORC_LN,      /* layernorm: the trusted math's formula a (enum orc_ln) */
    FK_ORC_BLOCK,   /* block: the trusted math's variant a (below) */
    FK_ORC_PE,      /* pe: the trusted math's formula a (enum orc_pe) */
};

static const struct dgf_family families[] = {
    {ASG_SDPA, "sdpa_scale_dk", "attention divides the scores by d_k instead of sqrt(d_k)",
     FK_QSCALE, 1},
    {ASG_SDPA, "sdpa_scale_none", "attention forgets the division by sqrt(d_k)", FK_QSCALE, 2},
    {ASG_SDPA, "sdpa_scale_nk", "the scores are divided by sqrt(n_k) instead of sqrt(d_k)",
     FK_QSCALE, 3},
    {ASG_SDPA, "sdpa_scale_dv", "the scores are divided by sqrt(d_v) instead of sqrt(d_k)",
     FK_QSCALE, 4},
    {ASG_SDPA, "sdpa_weights_transposed", "`weights` is written transposed (n_k x n_q)",
     FK_OUTMAP, 1},
    {ASG_MHA, "mha_scale_dmodel",
     "multi-head scales each head by 1/sqrt(d_model) instead of 1/sqrt(d_head)", FK_WQSCALE, 1},
    {ASG_MHA, "mha_scale_none", "each head's scores are not divided by sqrt(d_head)",
     FK_WQSCALE, 2},
    {ASG_MHA, "mha_no_wo", "multi-head returns concat(heads) without the final projection by Wo", FK_WO_ID, 0},
    {ASG_BLOCK, "block_no_b1", "the bias b1 of the feed-forward layer is left out",
     FK_ZERO_IN, 5},
    {ASG_BLOCK, "block_no_b2", "the block's FFN leaves out b2: relu(x.W1 + b1).W2",
     FK_ZERO_IN, 7},
    {ASG_SOFTMAX, "softmax_whole", "the softmax normalises over the whole matrix, not each "
     "row", FK_WHOLE, 0},
    {ASG_SOFTMAX, "softmax_columns", "softmax normalises down the columns instead of along the rows",
     FK_COLUMNS, 0},
    {ASG_SOFTMAX, "softmax_transposed", "the result is written transposed", FK_OUTMAP, 1},
    {ASG_LAYERNORM, "layernorm_whole", "the mean and variance are taken over the whole "
     "matrix, not each row", FK_WHOLE, 0},
    {ASG_LAYERNORM, "layernorm_columns", "the mean and variance are taken over each column, "
     "not each row", FK_COLUMNS, 0},
    {ASG_PE, "pe_transposed", "the encoding is stored transposed (pe[i * n + p])",
     FK_OUTMAP, 1},
    {ASG_PE, "pe_shifted", "positions start at 1 instead of 0 (row p holds position p + 1)",
     FK_OUTMAP, 5},
    {ASG_LAYERNORM, "layernorm_sample", "layer norm divides the variance by cols - 1 (sample "
     "variance) instead of cols", FK_ORC_LN, ORC_LN_SAMPLE},
    {ASG_LAYERNORM, "layernorm_eps_outside", "layer norm divides by sqrt(var) + eps instead "
     "of sqrt(var + eps)", FK_ORC_LN, ORC_LN_EPS_OUTSIDE},
    {ASG_LAYERNORM, "layernorm_no_mean", "layer norm does not subtract the row's mean",
     FK_ORC_LN, ORC_LN_NO_MEAN},
    {ASG_LAYERNORM, "layernorm_by_var", "layer norm divides by the variance, not its square "
     "root", FK_ORC_LN, ORC_LN_BY_VAR},
    {ASG_BLOCK, "block_prenorm", "the block is pre-norm, X + sublayer(LN(X)), instead of "
     "post-norm LN(X + sublayer(X))", FK_ORC_BLOCK, 1},
    {ASG_BLOCK, "block_no_relu", "the block's FFN has no relu: (x.W1 + b1).W2 + b2",
     FK_ORC_BLOCK, 2},
    {ASG_BLOCK, "block_no_residual", "the block replaces X by each sublayer's output instead "
     "of adding it (no residual connections)", FK_ORC_BLOCK, 3},
    {ASG_PE, "pe_exponent_i", "exponent i/d instead of 2*floor(i/2)/d: the cos column of a "
     "pair gets its own frequency", FK_ORC_PE, ORC_PE_EXPONENT_I},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

/* The reference's outputs on k with its inputs as they are now into pred. */
static int ref_into(struct dgf_run *u, struct pc_call *k, float **pred, struct err *e)
{
    struct impl_result rr;

    if (pc_invoke(u->ref, k, &rr, e) < 0)
        return -1;
    if (rr.status != CALL_RETURNED || rr.rc != 0)
        return 0;
    for (size_t o = 0; o < k->n_out; o++)
        memcpy(pred[o], k->out[o], k->out_len[o] * sizeof(float));
    return 1;
}

static void scale_floats(float *p, size_t n, double a)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (float)(p[i] * a);
}

/* The reference on the transposed matrix (columns), or on one row of all
 * entries (whole): k's in-place buffer changed, then put back. */
static int ref_reshaped(struct dgf_run *u, struct pc_call *k, int columns, float **pred,
                        struct err *e)
{
    size_t R = k->rows, C = k->cols, len = R * C;
    float *save = dgf_copy_floats(k->init[0], len);
    int rc;

    if (save == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    if (columns)
        for (size_t r = 0; r < R; r++)
            for (size_t c = 0; c < C; c++)
                k->init[0][c * R + r] = save[r * C + c];
    k->rows = columns ? C : 1;
    k->cols = columns ? R : len;
    rc = ref_into(u, k, pred, e);
    k->rows = R, k->cols = C;
    memcpy(k->init[0], save, len * sizeof *save);
    if (rc == 1 && columns) {
        memcpy(save, pred[0], len * sizeof *save);
        for (size_t r = 0; r < R; r++)
            for (size_t c = 0; c < C; c++)
                pred[0][r * C + c] = save[c * R + r];
    }
    free(save);
    return rc;
}

/* The trusted math's variant of f (staff build: it computes) into pred:
 * 1, 0 when it cannot say, -1 on a grader error. */
static int orc_predict(const struct dgf_family *f, struct pc_call *k, float **pred,
                       struct err *e)
{
    struct orc oc = {ORC_COMPUTE, NULL};
    size_t len = k->out_len[0];
    double *in = malloc((len + 1) * sizeof *in), *out = malloc((len + 1) * sizeof *out);
    int rc = 0;

    if (in == NULL || out == NULL) {
        free(in);
        free(out);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    if (!orc_can_compute()) {
        rc = 0;
    } else if (f->kind == FK_ORC_LN) {
        for (size_t i = 0; i < len; i++)
            in[i] = k->init[0][i];
        for (size_t r = 0; rc >= 0 && r < k->rows; r++)
            rc = orc_layernorm(&oc, (enum orc_ln)f->a, in + r * k->cols, out + r * k->cols,
                               k->cols, (double)k->eps) == 0 ? 1 : -1;
    } else if (f->kind == FK_ORC_PE) {
        rc = orc_pe(&oc, (enum orc_pe)f->a, k->n, k->d, out) == 0 ? 1 : -1;
    } else {
        struct orc_block b = {k->n, k->d_model, k->heads, k->d_ff, (double)k->eps, k->init[0],
                              {k->in[0], k->in[1], k->in[2], k->in[3]}, k->in[4], k->in[5],
                              k->in[6], k->in[7], k->mask};
        struct orc_bvariant va = {f->a == 1, f->a == 2, 0, 0, f->a == 3};
        rc = orc_block(&oc, &b, &va, out) == 0 ? 1 : -1;
    }
    for (size_t i = 0; rc == 1 && i < len; i++)
        pred[0][i] = (float)out[i];
    free(in);
    free(out);
    return rc < 0 ? err_set(e, NULL, 0, 0, "out of memory computing a family") : rc;
}

static int predict(struct dgf_run *u, const struct dgf_family *f, struct dgf_obs *ob,
                   float **pred, struct err *e)
{
    struct pc_call *k = &ob->k;
    float *save = NULL;
    size_t which = 0;
    double a = 1.0;
    int rc;

    switch (f->kind) {
    case FK_QSCALE: {
        double dk = (double)k->d_k;
        a = f->a == 1 ? 1.0 / sqrt(dk) : f->a == 2 ? sqrt(dk)
          : f->a == 3 ? sqrt(dk / (double)k->n_k) : sqrt(dk / (double)k->d_v);
        which = 0;
        break;
    }
    case FK_WQSCALE:
        a = f->a == 1 ? sqrt(1.0 / (double)k->heads) : sqrt((double)k->d_model / (double)k->heads);
        which = 2;
        break;
    case FK_WO_ID:
    case FK_ZERO_IN:
        which = f->kind == FK_WO_ID ? 5 : (size_t)f->a;
        break;
    case FK_OUTMAP: {
        size_t o = k->fn == ASG_SDPA ? 1 : 0;
        struct dgf_geom g = dgf_geom_of(k, o);
        size_t R = g.rows, C = g.cols;
        if (R < 2 || (f->a == 1 && C < 2))
            return 0;
        for (size_t p = 0; p < k->n_out; p++)
            memcpy(pred[p], ob->want[p], k->out_len[p] * sizeof(float));
        if (f->a == 1) {
            for (size_t r = 0; r < R; r++)
                for (size_t c = 0; c < C; c++)
                    pred[o][c * R + r] = ob->want[o][r * C + c];
            return 1;
        }
        /* row p holds position p + 1: the reference's n + 1 rows, shifted */
        {
            size_t n = k->n;
            float *big;
            k->n = n + 1;
            big = malloc((n + 1) * k->d * sizeof *big);
            if (big == NULL)
                return err_set(e, NULL, 0, 0, "out of memory");
            {
                struct impl_result rr;
                float *keep = k->out[0];
                k->out[0] = big;
                rc = u->ref->ops->positional_encoding(u->ref->self, big, n + 1, k->d, &rr, e);
                k->out[0] = keep;
                k->n = n;
                if (rc == 0 && rr.status == CALL_RETURNED && rr.rc == 0)
                    memcpy(pred[0], big + k->d, n * k->d * sizeof *big);
                free(big);
                return rc < 0 ? -1 : rr.status == CALL_RETURNED && rr.rc == 0;
            }
        }
    }
    case FK_ORC_LN:
    case FK_ORC_BLOCK:
    case FK_ORC_PE:
        return orc_predict(f, k, pred, e);
    case FK_WHOLE:
    case FK_COLUMNS:
        return ref_reshaped(u, k, f->kind == FK_COLUMNS, pred, e);
    default:
        return 0;
    }
    if (which >= k->n_in || (save = dgf_copy_floats(k->in[which], k->in_len[which])) == NULL)
        return which >= k->n_in ? 0 : err_set(e, NULL, 0, 0, "out of memory");
    if (f->kind == FK_WO_ID) {
        size_t d = k->d_model;
        memset(k->in[which], 0, k->in_len[which] * sizeof(float));
        for (size_t i = 0; i < d; i++)
            k->in[which][i * d + i] = 1.0f;
    } else if (f->kind == FK_ZERO_IN) {
        memset(k->in[which], 0, k->in_len[which] * sizeof(float));
    } else {
        scale_floats(k->in[which], k->in_len[which], a);
    }
    rc = ref_into(u, k, pred, e);
    memcpy(k->in[which], save, k->in_len[which] * sizeof *save);
    free(save);
    return rc;
}

/* Whether family f reproduces every observed call (and differs from the
 * reference on one at least): 1, 0, -1 on a grader error. */
static int family_fits(struct dgf_run *u, const struct dgf_family *f, struct dgf_obs *obs,
                       size_t n, struct err *e)
{
    size_t evidence = 0;

    for (size_t i = 0; i < n; i++) {
        struct dgf_obs *ob = &obs[i];
        float *pred[PC_MAX_OUT] = {NULL, NULL};
        int rc = 0, same = 1, off_ref = 0;
        if (!ob->ref_ok)
            continue;
        if (!dgf_stu_ok(ob))
            return 0;
        for (size_t o = 0; o < ob->k.n_out; o++)
            if ((pred[o] = malloc((ob->k.out_len[o] + 1) * sizeof(float))) == NULL)
                rc = err_set(e, NULL, 0, 0, "out of memory");
        if (rc == 0)
            rc = predict(u, f, ob, pred, e);
        for (size_t o = 0; rc == 1 && o < ob->k.n_out; o++)
            for (size_t j = 0; j < ob->k.out_len[o]; j++) {
                if ((ob->unwritten[o] && ob->unwritten[o][j]) ||
                    !dgf_close(pred[o][j], ob->got[o][j]))
                    same = 0;
                off_ref |= !dgf_close(ob->want[o][j], pred[o][j]);
            }
        for (size_t o = 0; o < PC_MAX_OUT; o++)
            free(pred[o]);
        if (rc < 0)
            return -1;
        if (rc == 0 || !same)
            return 0;
        evidence += (size_t)off_ref;
    }
    return evidence > 0;
}

int dgf_families_fit(struct dgf_run *u, enum asg_fn fn, struct dgf_obs *obs, size_t n,
                     const struct dgf_family **fit, size_t *fits, struct err *e)
{
    *fits = 0;
    *fit = NULL;
    for (size_t f = 0; f < N_FAMILIES; f++) {
        int ok;
        if (families[f].fn != fn)
            continue;
        if ((ok = family_fits(u, &families[f], obs, n, e)) < 0)
            return -1;
        if (ok && (*fits)++ == 0)
            *fit = &families[f];
    }
    return 0;
}

int dgf_family_agrees(const char *name, const struct impl *im, const struct impl *reference,
                      struct pc_call *k, struct err *e)
{
    const struct dgf_family *f = NULL;
    struct dg_budget b = {1e12, 1e300, 0.0};
    struct dgf_run u;
    struct dgf_obs ob;
    float *pred[PC_MAX_OUT] = {NULL, NULL};
    int rc;

    for (size_t i = 0; i < N_FAMILIES; i++)
        if (strcmp(families[i].name, name) == 0)
            f = &families[i];
    if (f == NULL)
        return err_set(e, NULL, 0, 0, "no family '%s'", name);
    memset(&u, 0, sizeof u);
    u.env.student = *im;
    u.env.reference = reference;
    u.ref = reference;
    u.b = &b;
    memset(&ob, 0, sizeof ob);
    ob.k = *k;
    rc = dgf_observe(&u, &ob, e);
    for (size_t o = 0; rc == 0 && o < ob.k.n_out; o++)
        if ((pred[o] = malloc((ob.k.out_len[o] + 1) * sizeof(float))) == NULL)
            rc = err_set(e, NULL, 0, 0, "out of memory");
    if (rc == 0 && !ob.ref_ok)
        rc = 2;
    else if (rc == 0 && (rc = predict(&u, f, &ob, pred, e)) == 1) {
        rc = dgf_stu_ok(&ob);
        for (size_t o = 0; rc == 1 && o < ob.k.n_out; o++)
            for (size_t j = 0; rc == 1 && j < ob.k.out_len[o]; j++)
                rc = !(ob.unwritten[o] && ob.unwritten[o][j]) &&
                     dgf_close(pred[o][j], ob.got[o][j]);
    } else if (rc == 0) {
        rc = 2;
    }
    for (size_t o = 0; o < PC_MAX_OUT; o++)
        free(pred[o]);
    *k = ob.k; /* the caller's again (its outputs hold the last call's) */
    memset(&ob.k, 0, sizeof ob.k);
    dgf_obs_release(&ob);
    return rc;
}

/* A cause of fn from family f, explaining every failure fail[0..n). */
struct grade_cause *dgf_family_cause(struct grade_result *r, enum asg_fn fn,
                                     const struct dgf_family *f, size_t *fail, size_t n,
                                        struct err *e)
{
    struct grade_cause *nc = realloc(r->causes, (r->n_causes + 1) * sizeof *nc), *c;

    if (nc == NULL || (nc[r->n_causes].bug = strdup(f->bug)) == NULL) {
        if (nc)
            r->causes = nc;
        err_set(e, NULL, 0, 0, "out of memory");
        return NULL;
    }
    r->causes = nc;
    c = &nc[r->n_causes++];
    snprintf(c->function, sizeof c->function, "%s", asg_fn_name(fn));
    snprintf(c->variant, sizeof c->variant, "%s%s", DGF_FAMILY_PREFIX, f->name);
    c->strong = 1;
    c->callee = 0;
    c->failures = c->explained = n;
    c->lead = fail[0];
    for (size_t j = 0; j < n; j++)
        r->tests[fail[j]].explained_by = r->n_causes;
    return c;
}

