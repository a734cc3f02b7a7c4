/* diag_fit_probe.c -- grade/diag_fit.h's probes: the smallest failing call
 * made again with one thing changed (no mask, scale 1, an odd size one
 * larger, larger inputs) and shrunk size by size while it still fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/diag_fit_internal.h"

#define DGF_MAX_PROBES 36

/* A case like c with some keys changed: params copied, then set. */
struct dgf_case {
    struct spec_case c;
    struct spec_param p[48];
};

static int case_from(struct dgf_case *dc, const struct spec_case *c)
{
    if (c->n_params > 40)
        return -1;
    memcpy(dc->p, c->params, c->n_params * sizeof *dc->p);
    dc->c = *c;
    dc->c.params = dc->p;
    return 0;
}

static void case_set(struct dgf_case *dc, const char *key, double num, const char *str)
{
    size_t i;

    for (i = 0; i < dc->c.n_params && strcmp(dc->p[i].key, key) != 0; i++)
        ;
    if (i == dc->c.n_params) {
        if (i >= sizeof dc->p / sizeof dc->p[0])
            return;
        memset(&dc->p[i], 0, sizeof dc->p[i]);
        dc->p[i].key = key;
        dc->c.n_params++;
    }
    dc->p[i].kind = str ? SPEC_STR : SPEC_NUM;
    dc->p[i].num = num;
    dc->p[i].str = str;
}

/* Every shape key set explicitly from k (defaults included), so that
 * changing one changes nothing else. */
static void case_pin(struct dgf_case *dc, const struct pc_call *k)
{
    size_t nk;
    const char *const *keys = dgf_shape_keys(k->fn, &nk);

    for (size_t i = 0; i < nk; i++)
        case_set(dc, keys[i], (double)dgf_dim_of(k, keys[i]), NULL);
}

/* Build and dgf_observe the case dc of test t: 1 it fails (differs), 0 it
 * passes or the reference refuses the shape, 2 the budget is spent or no
 * more probes are allowed, -1 on a grader error. */
static int probe(struct dgf_run *u, enum asg_fn fn, const struct spec_test *t,
                 const struct dgf_case *dc, struct dgf_obs *keep, struct err *e)
{
    struct dgf_obs ob;
    struct err ignored;
    int rc;

    if (u->probes >= DGF_MAX_PROBES)
        return 2;
    memset(&ob, 0, sizeof ob);
    if (pc_build(fn, &u->env, t, &dc->c, &ob.k, &ignored) < 0)
        return 0;
    u->probes++;
    rc = dgf_observe(u, &ob, e);
    if (rc == 0 && keep && ob.differs) {
        dgf_obs_release(keep);
        *keep = ob;
        return 1;
    }
    rc = rc < 0 ? -1 : rc == 1 ? 2 : ob.differs;
    dgf_obs_release(&ob);
    return rc;
}

/* The dependence probes and the shrinking of the smallest failing call. */
int dgf_probe_facts(struct dgf_run *u, enum asg_fn fn, const struct dgf_obs *small,
                       struct dgf_text *x, struct err *e)
{
    struct dgf_case dc;
    struct dgf_obs cur;
    size_t nk;
    const char *const *keys = dgf_shape_keys(fn, &nk);
    char before[160], after[160];
    int rc, changed = 0;

    if (case_from(&dc, &small->t->cases[small->c]) < 0)
        return 0;
    case_pin(&dc, &small->k);
    dgf_shape_text(&small->k, before, sizeof before);
    /* a mask: the same call without it */
    if (small->k.mask) {
        case_set(&dc, "mask", 0, "none");
        if ((rc = probe(u, fn, small->t, &dc, NULL, e)) < 0)
            return -1;
        if (rc == 0) {
            dgf_fact(x, "the failure depends on the mask: the failing call (%s) passes without a "
                 "mask", before);
            x->specific = 1;
        } else if (rc == 1) {
            dgf_fact(x, "the failure does not depend on the mask: the failing call (%s) fails "
                 "without one too", before);
        }
        case_set(&dc, "mask", 0, small->k.mask_kind);
    }
    /* large inputs: the same call at scale 1 */
    if (spec_num(&small->t->cases[small->c], "scale", 1.0) > 4.0) {
        double sc = spec_num(&small->t->cases[small->c], "scale", 1.0);
        case_set(&dc, "scale", 1.0, NULL);
        if ((rc = probe(u, fn, small->t, &dc, NULL, e)) < 0)
            return -1;
        if (rc == 0) {
            dgf_fact(x, "the failure depends on the size of the inputs: it shows at scale %g and "
                 "not at scale 1", sc);
            x->specific = 1;
        }
        case_set(&dc, "scale", sc, NULL);
    }
    /* an odd size: the even neighbours pass and the next odd size fails
     * (one even size passing may be a coincidence, e.g. n_k = d_k) */
    for (size_t i = 0; i < nk; i++) {
        size_t v = dgf_dim_of(&small->k, keys[i]);
        const size_t try_[3] = {v + 1, v > 1 ? v - 1 : v + 3, v + 2};
        int verdict = 1;
        if (v % 2 == 0)
            continue;
        for (size_t j = 0; j < 3 && verdict == 1; j++) {
            case_set(&dc, keys[i], (double)try_[j], NULL);
            rc = probe(u, fn, small->t, &dc, NULL, e);
            if (rc < 0)
                return -1;
            /* even sizes must pass (0), the odd one fail (1) */
            verdict = rc == 2 ? 0 : (size_t)rc == try_[j] % 2;
        }
        case_set(&dc, keys[i], (double)v, NULL);
        if (verdict) {
            dgf_fact(x, "the failure depends on %s being odd: %s=%zu and %zu fail, %zu and %zu "
                     "pass", keys[i], keys[i], v, v + 2, try_[1], v + 1);
            x->specific = 1;
        }
    }
    /* shrink each size while the call still fails */
    memset(&cur, 0, sizeof cur);
    for (int pass = 0; pass < 3; pass++) {
        int moved = 0;
        for (size_t i = 0; i < nk; i++) {
            size_t v = (size_t)spec_num(&dc.c, keys[i], 1.0), cand[4] = {1, 2, v / 2, v - 1};
            for (size_t j = 0; j < 4; j++) {
                if (cand[j] < 1 || cand[j] >= v)
                    continue;
                case_set(&dc, keys[i], (double)cand[j], NULL);
                if ((rc = probe(u, fn, small->t, &dc, &cur, e)) < 0) {
                    dgf_obs_release(&cur);
                    return -1;
                }
                if (rc == 1) {
                    moved = changed = 1;
                    break;
                }
                case_set(&dc, keys[i], (double)v, NULL);
                if (rc == 2)
                    break;
            }
        }
        if (!moved)
            break;
    }
    if (changed) {
        dgf_shape_text(&cur.k, after, sizeof after);
        dgf_fact(x, "smallest failing shape found: %s (from %s)", after, before);
        x->specific = 1;
    } else if (u->probes < DGF_MAX_PROBES) {
        dgf_fact(x, "smallest failing shape found: %s (no smaller size fails)", before);
        x->specific = 1;
    }
    dgf_obs_release(&cur);
    return 0;
}

/* The failing calls all pass: the same first call with larger inputs (the
 * size of the logits), stated with the facts of the first that fails. */
int dgf_scale_probe(struct dgf_run *u, enum asg_fn fn, const struct dgf_obs *first,
                       struct dgf_text *x, struct err *e)
{
    static const double scales[] = {30.0, 1000.0};
    struct dgf_case dc;
    struct dgf_obs big;
    double s0;
    int rc = 0;

    if (first == NULL || case_from(&dc, &first->t->cases[first->c]) < 0)
        return 0;
    s0 = spec_num(&first->t->cases[first->c], "scale", 1.0);
    memset(&big, 0, sizeof big);
    for (size_t i = 0; i < sizeof scales / sizeof scales[0] && rc == 0; i++) {
        char shape[160];
        case_set(&dc, "scale", s0 * scales[i], NULL);
        if ((rc = probe(u, fn, first->t, &dc, &big, e)) < 0)
            break;
        if (rc != 1)
            continue;
        dgf_shape_text(&big.k, shape, sizeof shape);
        dgf_fact(x, "the failure depends on the size of the inputs: the call (%s) passes at "
             "scale %g and fails at scale %g", shape, s0, s0 * scales[i]);
        x->specific = 1;
        for (size_t o = 0; o < big.k.n_out; o++)
            dgf_output_facts(x, &big, 1, o, &big);
    }
    dgf_obs_release(&big);
    return rc < 0 ? -1 : 0;
}


int dgf_null_probe(struct dgf_run *u, struct dgf_obs *first, struct dgf_text *x, struct err *e)
{
    struct pc_call *k = first ? &first->k : NULL;
    struct impl_result rr, sr;
    float *w, *want = NULL;
    int rc, same;

    if (k == NULL || (k->fn != ASG_SDPA && k->fn != ASG_MHA) || k->n_out < 2)
        return 0;
    w = k->out[1];
    k->out[1] = NULL; /* weights == NULL, as attention.h allows */
    k->n_out = 1;
    rc = pc_invoke(u->ref, k, &rr, e);
    if (rc == 0 && (want = dgf_copy_floats(k->out[0], k->out_len[0])) == NULL)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    if (rc == 0)
        rc = dgf_student_call(u, k, &sr, e);
    same = rc != 0 || sr.status == CALL_RETURNED;
    if (rc == 0 && same && rr.status == CALL_RETURNED && rr.rc == 0) {
        same = sr.rc == 0;
        for (size_t i = 0; same && i < k->out_len[0]; i++)
            same = dgf_close(want[i], k->out[0][i]);
    }
    k->out[1] = w;
    k->n_out = 2;
    free(want);
    if (rc == 0 && !same) {
        dgf_fact(x, "with `weights` NULL (as " ASG_HEADER " allows) the same call fails: your "
                 "function %s", sr.status == CALL_RETURNED ? "returns other outputs or an error"
                 : sr.status == CALL_CRASHED ? "crashes" : "does not return");
        x->specific = 1;
    }
    return rc < 0 ? -1 : 0;
}
