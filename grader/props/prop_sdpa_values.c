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

#define FN "attn_scaled_dot_product"

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

int psd_run_retrieval(const struct prop_env *env, const struct spec_test *t,
                      const struct spec_case *c, struct prop_verdict *v,
                      struct grd_err *e)
{
    struct pc_call k;
    char label[160];
    double atol;
    int ok;

    if (psd_build(env, t, c, &k, e) < 0)
        return -1;
    pc_label(t, c, &k, label, sizeof label);
    if (k.n_k > k.d_k) {
        pc_release(&k);
        return err_set(e, NULL, c->line, c->col, "'%s' needs n_k <= d_k", t->id);
    }
    fill_retrieval(&k, spec_num(c, "strength", 30.0));
    ok = pc_call_ok(env, &k, FN, v, e);
    atol = psd_out_atol(&k, pc_tol(t));
    for (size_t i = 0; ok == 1 && i < k.out_len[0]; i++) {
        size_t q = i / k.d_v, j = q % k.n_k;
        double want = k.in[2][j * k.d_v + i % k.d_v];
        if (!pu_close(want, k.out[0][i], atol, 0)) {
            ok = pu_fail(v, "query %zu equals key %zu (one-hot, large) but out (%zu, %zu) is "
                         "%.9g, expected that key's value %.9g in %s", q, j, q, i % k.d_v,
                         (double)k.out[0][i], want, label);
            pu_hint(v, "a query that resembles one key far more than the others must "
                    "return that key's value: check the indexing of K (row j is K[j*d_k + "
                    "t]) and the scale 1/sqrt(d_k)");
        }
    }
    return pc_finish(&k, ok, v);
}

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
static int trusted_mean_max(const struct pc_call *k, double mm[3], struct grd_err *e)
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

/* One d_k of the sweep: unit Gaussian Q, K; d_v = 1. */
static int scale_at(const struct prop_env *env, const struct spec_test *t,
                    const struct spec_case *c, size_t d, struct prop_verdict *v,
                    struct grd_err *e)
{
    struct pc_call k;
    struct pu_rng rng;
    double mm[3];
    char label[160];
    int ok;

    if (psd_build(env, t, c, &k, e) < 0)
        return -1;
    k.d_k = d;
    k.d_v = 1;
    free(k.in[0]);
    free(k.in[1]);
    k.in[0] = pu_floats(k.n_q * d);
    k.in[1] = pu_floats(k.n_k * d);
    k.in_len[0] = k.n_q * d;
    k.in_len[1] = k.n_k * d;
    if (!k.in[0] || !k.in[1])
        return pc_finish(&k, err_set(e, NULL, 0, 0, "out of memory"), v);
    pu_rng_seed(&rng, pu_case_seed(env, t, c) + d);
    pu_fill_gauss(k.in[0], k.in_len[0], &rng, 1.0);
    pu_fill_gauss(k.in[1], k.in_len[1], &rng, 1.0);
    ok = trusted_mean_max(&k, mm, e);
    pc_label(t, c, &k, label, sizeof label);
    if (ok != 0)
        return pc_finish(&k, ok < 0 ? -1 : pu_no_oracle(v, label), v);
    ok = pc_call_ok(env, &k, FN, v, e);
    if (ok == 1)
        ok = judge_scale(&k, mean_max_f(k.out[1], k.n_q, k.n_k), mm, pc_tol(t), v, label);
    pc_release(&k);
    return ok;
}

int psd_run_scale_d(const struct prop_env *env, const struct spec_test *t,
                    const struct spec_case *c, struct prop_verdict *v,
                    struct grd_err *e)
{
    static const double def[] = {4, 16, 64, 256, 512};
    const struct spec_param *p = spec_param(c, "d_list");
    const double *ds = p && p->kind == SPEC_LIST ? p->list : def;
    size_t n = p && p->kind == SPEC_LIST ? p->list_len : 5;

    for (size_t i = 0; i < n; i++) {
        int ok;
        if (!(ds[i] >= 1 && ds[i] <= 4096))
            return err_set(e, NULL, c->line, c->col, "d_list values must be in 1..4096");
        ok = scale_at(env, t, c, (size_t)ds[i], v, e);
        if (ok != 1)
            return ok;
    }
    return pu_pass(v);
}

/* ---- non_square, null_weights_and_mask ---------------------------------- */

static int check_trusted(const struct prop_env *env, const struct spec_test *t,
                         const struct spec_case *c, struct pc_call *k,
                         struct prop_verdict *v, const char *label, struct grd_err *e)
{
    int ok;

    (void)env, (void)c;
    ok = psd_matches_trusted(k, pc_tol(t), v, label, e);
    if (ok == 0)
        pu_hint(v, "with n_q != n_k and d_k != d_v every index must use the right size: "
                "Q_i is Q[i*d_k + t], K_j is K[j*d_k + t], V_j is V[j*d_v + c], the "
                "weights are n_q x n_k");
    return ok;
}

int psd_run_non_square(const struct prop_env *env, const struct spec_test *t,
                       const struct spec_case *c, struct prop_verdict *v,
                       struct grd_err *e)
{
    return psd_run_with(env, t, c, v, e, check_trusted);
}

static int check_null(const struct prop_env *env, const struct spec_test *t,
                      const struct spec_case *c, struct pc_call *k,
                      struct prop_verdict *v, const char *label, struct grd_err *e)
{
    struct call_result r;
    double *out, *w;
    int ok;

    (void)c;
    memset(k->out[0], 0, k->out_len[0] * sizeof(float));
    if (env->student.ops->scaled_dot_product(env->student.self, k->in[0], k->in[1],
                                             k->in[2], k->n_q, k->n_k, k->d_k, k->d_v,
                                             NULL, k->out[0], NULL, &r, e) < 0)
        return -1;
    if (!pu_returned_ok(v, &r, FN)) {
        pu_hint(v, "weights and mask may both be NULL: test each before using it");
        return 0;
    }
    if ((ok = psd_trusted(k, NULL, psd_api_scale(k), &out, &w, e)) != 0)
        return ok < 0 ? -1 : pu_no_oracle(v, label);
    ok = psd_close_matrix(k->out[0], out, k->n_q, k->d_v, psd_out_atol(k, pc_tol(t)), "out", v,
                          label);
    free(out);
    free(w);
    return ok;
}

int psd_run_null(const struct prop_env *env, const struct spec_test *t,
                 const struct spec_case *c, struct prop_verdict *v,
                 struct grd_err *e)
{
    return psd_run_with(env, t, c, v, e, check_null);
}

/* ---- values -------------------------------------------------------------- */

static int list_into(const struct spec_case *c, const char *key, float *dst, size_t n,
                     struct grd_err *e)
{
    const struct spec_param *p = spec_param(c, key);

    if (p == NULL || p->kind != SPEC_LIST || p->list_len != n)
        return err_set(e, NULL, c->line, c->col, "sdpa 'values' case needs a list '%s' "
                       "of %zu numbers", key, n);
    for (size_t i = 0; i < n; i++)
        dst[i] = (float)p->list[i];
    return 0;
}

static int check_values(const struct prop_env *env, const struct spec_test *t,
                        const struct spec_case *c, struct pc_call *k,
                        struct prop_verdict *v, const char *label, struct grd_err *e)
{
    const struct spec_param *ew = spec_param(c, "expected_weights");
    double *want = calloc(k->out_len[0] + k->out_len[1], sizeof *want);
    int ok;

    if (want == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < k->out_len[0]; i++)  /* list_into checked "expected" */
        want[i] = spec_param(c, "expected")->list[i];
    ok = pc_call_ok(env, k, FN, v, e);
    if (ok == 1)
        ok = psd_close_matrix(k->out[0], want, k->n_q, k->d_v, pc_tol(t), "out", v, label);
    if (ok == 1 && ew != NULL && ew->kind == SPEC_LIST && ew->list_len == k->out_len[1])
        ok = psd_close_matrix(k->out[1], ew->list, k->n_q, k->n_k, pc_tol(t), "weight", v,
                              label);
    free(want);
    return ok;
}

int psd_run_values(const struct prop_env *env, const struct spec_test *t,
                   const struct spec_case *c, struct prop_verdict *v,
                   struct grd_err *e)
{
    struct pc_call k;
    char label[160];
    int ok;

    if (psd_build(env, t, c, &k, e) < 0)
        return -1;
    pc_label(t, c, &k, label, sizeof label);
    if (list_into(c, "q", k.in[0], k.in_len[0], e) < 0 ||
        list_into(c, "k", k.in[1], k.in_len[1], e) < 0 ||
        list_into(c, "v", k.in[2], k.in_len[2], e) < 0 ||
        list_into(c, "expected", k.out[0], k.out_len[0], e) < 0)
        return pc_finish(&k, -1, v);
    ok = check_values(env, t, c, &k, v, label, e);
    if (ok == 1)
        ok = pc_check_seeded(env, t, c, v, e);
    return pc_finish(&k, ok, v);
}
