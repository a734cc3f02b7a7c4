/* prop_sdpa_values.c -- the properties of attn_scaled_dot_product checked
 * against trusted attention or the spec's values: retrieval,
 * scale_across_d, non_square, null_weights_and_mask, values. The table is
 * in prop_sdpa.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_common.h"
#include "props/prop_sdpa.h"
#include "props/prop_util.h"


/* ---- retrieval ----------------------------------------------------------- */

/*
 * K_j = e_j (one-hot), Q_i = strength*sqrt(d_k)*e_{i mod n_k}: after the
 * 1/sqrt(d_k) scale the matching key scores `strength` and every other 0,
 * so the others weigh < n_k*e^-strength and out_i = V_{i mod n_k}.
 */
static void fill_retrieval(struct pc_call *k, double strength)
{
    memset(k->in[0], 0, k->in_len[0] * sizeof(float));
    memset(k->in[1], 0, k->in_len[1] * sizeof(float));
    for (size_t j = 0; j < k->n_k; j++)
        k->in[1][j * k->d_k + j] = 1.0f;
    for (size_t i = 0; i < k->n_q; i++)
        k->in[0][i * k->d_k + i % k->n_k] = (float)(strength * sqrt((double)k->d_k));
}

/* Check the shape and write the one-hot keys and matching queries. */
static int retrieval_fill(const struct prop_ctx *x, struct pc_call *k)
{
    if (k->n_k > k->d_k)
        return err_set(x->e, NULL, x->c->line, x->c->col, "'%s' needs n_k <= d_k", x->t->id);
    fill_retrieval(k, spec_num(x->c, "strength", 30.0));
    return 1;
}

static int check_retrieval(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    double atol = psd_out_atol(k, pc_tol(x));
    int ok = 1;

    for (size_t i = 0; ok == 1 && i < k->out_len[0]; i++) {
        size_t q = i / k->d_v, j = q % k->n_k;
        double want = k->in[2][j * k->d_v + i % k->d_v];
        if (!pu_close(want, k->out[0][i], atol, 0)) {
            ok = pu_fail(x->v, "query %zu equals key %zu (one-hot, large) but out (%zu, %zu) "
                         "is %.9g, expected that key's value %.9g in %s", q, j, q,
                         i % k->d_v, (double)k->out[0][i], want, label);
            pu_hint(x->v, "a query that resembles one key far more than the others must "
                    "return that key's value: check the indexing of K (row j is K[j*d_k + "
                    "t]) and the scale 1/sqrt(d_k)");
        }
    }
    return ok;
}

const struct pc_prop psd_retrieval = {ASG_SDPA, NULL, retrieval_fill,
                                      NULL, check_retrieval};

/* ---- scale_across_d ----------------------------------------------------- */

/* Mean over queries of the largest weight, from float or double weights. */
static double mean_max_f(const float *w, size_t n_q, size_t n_k)
{
    double s = 0.0;

    for (size_t i = 0; i < n_q; i++) {
        double m = 0.0;
        for (size_t j = 0; j < n_k; j++)
            m = fmax(m, w[i * n_k + j]);
        s += m;
    }
    return s / (double)n_q;
}

static double mean_max_d(const double *w, size_t n_q, size_t n_k)
{
    double s = 0.0;

    for (size_t i = 0; i < n_q; i++) {
        double m = 0.0;
        for (size_t j = 0; j < n_k; j++)
            m = fmax(m, w[i * n_k + j]);
        s += m;
    }
    return s / (double)n_q;
}

/* Trusted mean max weights for the scales 1, 1/sqrt(d), 1/d into mm[3]:
 * 0, ORC_MISSING or -1 (e set). */
static int trusted_mean_max(const struct pc_call *k, double mm[3], struct err *e)
{
    const double scales[3] = {1.0, 1.0 / sqrt((double)k->d_k), 1.0 / (double)k->d_k};

    for (int s = 0; s < 3; s++) {
        double *out, *w;
        int rc = psd_trusted(k, NULL, scales[s], &out, &w, e);
        if (rc != 0)
            return rc;
        mm[s] = mean_max_d(w, k->n_q, k->n_k);
        free(out);
        free(w);
    }
    return 0;
}

static int judge_scale(const struct pc_call *k, double got, const double mm[3],
                       double tol, struct prop_verdict *v, const char *label)
{
    static const char *const names[3] = {"1 (no division)", "1/sqrt(d_k)", "1/d_k"};
    int near = 0;

    if (fabs(got - mm[1]) <= tol)
        return 1;
    for (int s = 1; s < 3; s++)
        if (fabs(got - mm[s]) < fabs(got - mm[near]))
            near = s;
    pu_fail(v, "at d_k=%zu the mean max weight over %zu queries is %.4f, expected %.4f +- "
            "%g (scale 1/sqrt(d_k)); scale 1 gives %.4f and 1/d_k gives %.4f: closest to "
            "%s, in %s", k->d_k, k->n_q, got, mm[1], tol, mm[0], mm[2], names[near], label);
    if (near == 0)
        pu_hint(v, "the mean max weight creeps towards 1 as d_k grows: the division by "
                "sqrt(d_k) looks missing. Without it the softmax saturates");
    else if (near == 2)
        pu_hint(v, "too flat as d_k grows (close to 1/n_k = %.3f): divided by d_k instead "
                "of sqrt(d_k)?", 1.0 / (double)k->n_k);
    else
        pu_hint(v, "the weights are near the right sharpness but not equal: check the "
                "scale 1/sqrt(d_k) and the softmax");
    return 0;
}

/* One d_k of the sweep and the trusted mean largest weight there. */
struct scale_at {
    size_t d;
    double mm[3];
};

/* One d_k of the sweep: unit Gaussian Q, K; d_v = 1. */
static int scale_fill(const struct prop_ctx *x, struct pc_call *k)
{
    struct scale_at *sa = k->arg;
    const size_t d = sa->d;
    struct pu_rng rng;
    char label[160];
    int ok;

    k->d_k = d;
    k->d_v = 1;
    free(k->in[0]);
    free(k->in[1]);
    k->in[0] = pu_floats(k->n_q * d);
    k->in[1] = pu_floats(k->n_k * d);
    k->in_len[0] = k->n_q * d;
    k->in_len[1] = k->n_k * d;
    if (!k->in[0] || !k->in[1])
        return err_set(x->e, NULL, 0, 0, "out of memory");
    pu_rng_seed(&rng, pu_case_seed(x->env, x->t, x->c) + d);
    pu_fill_gauss(k->in[0], k->in_len[0], &rng, 1.0);
    pu_fill_gauss(k->in[1], k->in_len[1], &rng, 1.0);
    ok = trusted_mean_max(k, sa->mm, x->e);
    if (ok != 0)
        return ok < 0 ? -1 : pu_no_oracle(x->v, pc_label(x->t, x->c, k, label, sizeof label));
    return 1;
}

static int check_scale(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    const struct scale_at *sa = k->arg;

    return judge_scale(k, mean_max_f(k->out[1], k->n_q, k->n_k), sa->mm, pc_tol(x), x->v,
                       label);
}

int psd_run_scale_d(const struct prop_ctx *x)
{
    static const struct pc_prop steps = {ASG_SDPA, NULL, scale_fill, NULL, check_scale};
    static const double def[] = {4, 16, 64, 256, 512};
    const struct spec_case *c = x->c;
    const struct spec_param *p = spec_param(c, "d_list");
    const double *ds = p && p->kind == SPEC_LIST ? p->list : def;
    size_t n = p && p->kind == SPEC_LIST ? p->list_len : 5;

    for (size_t i = 0; i < n; i++) {
        struct scale_at sa = {0, {0}};
        int ok;
        if (!(ds[i] >= 1 && ds[i] <= 4096))
            return err_set(x->e, NULL, c->line, c->col, "d_list values must be in 1..4096");
        sa.d = (size_t)ds[i];
        ok = pc_steps(x, &steps, &sa);
        if (ok != 1)
            return ok;
    }
    return pu_pass(x->v);
}

/* ---- non_square, null_weights_and_mask ---------------------------------- */

static int check_trusted(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    int ok;

    ok = psd_matches_trusted(k, pc_tol(x), x->v, label, x->e);
    if (ok == 0)
        pu_hint(x->v, "with n_q != n_k and d_k != d_v every index must use the right size: "
                "Q_i is Q[i*d_k + t], K_j is K[j*d_k + t], V_j is V[j*d_v + c], the "
                "weights are n_q x n_k");
    return ok;
}

const struct pc_prop psd_non_square = {ASG_SDPA, NULL, NULL, NULL, check_trusted};

static int check_null(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    struct impl_result r;
    double *out, *w;
    int ok;

    memset(k->out[0], 0, k->out_len[0] * sizeof(float));
    if (x->env->student.ops->scaled_dot_product(x->env->student.self, k->in[0], k->in[1],
                                             k->in[2], k->n_q, k->n_k, k->d_k, k->d_v,
                                             NULL, k->out[0], NULL, &r, x->e) < 0)
        return -1;
    if (!pu_returned_ok(x->v, &r, asg_fn_cname(ASG_SDPA))) {
        pu_hint(x->v, "weights and mask may both be NULL: test each before using it");
        return 0;
    }
    if ((ok = psd_trusted(k, NULL, psd_api_scale(k), &out, &w, x->e)) != 0)
        return ok < 0 ? -1 : pu_no_oracle(x->v, label);
    ok = psd_close_matrix(k->out[0], out, k->n_q, k->d_v, psd_out_atol(k, pc_tol(x)), "out", x->v,
                          label);
    free(out);
    free(w);
    return ok;
}

const struct pc_prop psd_null = {ASG_SDPA, NULL, NULL, NULL, check_null};

/* ---- values -------------------------------------------------------------- */

static int list_into(const struct spec_case *c, const char *key, float *dst, size_t n,
                     struct err *e)
{
    const struct spec_param *p = spec_param(c, key);

    if (p == NULL || p->kind != SPEC_LIST || p->list_len != n)
        return err_set(e, NULL, c->line, c->col, "sdpa 'values' case needs a list '%s' "
                       "of %zu numbers", key, n);
    for (size_t i = 0; i < n; i++)
        dst[i] = (float)p->list[i];
    return 0;
}

static int check_values(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    const struct spec_param *ew = spec_param(x->c, "expected_weights");
    double *want = calloc(k->out_len[0] + k->out_len[1], sizeof *want);
    int ok;

    if (want == NULL)
        return err_set(x->e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < k->out_len[0]; i++)  /* list_into checked "expected" */
        want[i] = spec_param(x->c, "expected")->list[i];
    ok = psd_close_matrix(k->out[0], want, k->n_q, k->d_v, pc_tol(x), "out", x->v, label);
    if (ok == 1 && ew != NULL && ew->kind == SPEC_LIST && ew->list_len == k->out_len[1])
        ok = psd_close_matrix(k->out[1], ew->list, k->n_q, k->n_k, pc_tol(x), "weight", x->v,
                              label);
    free(want);
    return ok == 1 ? pc_check_seeded(x) : ok;
}

/* The spec's Q, K, V (and a check of its expected output's length). */
static int values_fill(const struct prop_ctx *x, struct pc_call *k)
{
    if (list_into(x->c, "q", k->in[0], k->in_len[0], x->e) < 0 ||
        list_into(x->c, "k", k->in[1], k->in_len[1], x->e) < 0 ||
        list_into(x->c, "v", k->in[2], k->in_len[2], x->e) < 0 ||
        list_into(x->c, "expected", k->out[0], k->out_len[0], x->e) < 0)
        return -1;
    return 1;
}

const struct pc_prop psd_values = {ASG_SDPA, NULL, values_fill, NULL, check_values};
