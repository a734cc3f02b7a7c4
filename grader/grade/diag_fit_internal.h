/*
 * diag_fit_internal.h -- what the two files of grade/diag_fit share: an
 * observed call (the submission against the reference) and the families
 * of mistakes (diag_fit_family.c). Prefix dgf_. Not for other modules.
 */
#ifndef GRD_DIAG_FIT_INTERNAL_H
#define GRD_DIAG_FIT_INTERNAL_H

#include "grade/diag_fit.h"

/* Entries closer than this (relative above 1) are the same: float against
 * the reference's float, well above rounding, well below any real bug. */
#define DGF_TOL 1e-4
/* What an output is filled with to see which entries a call never wrote
 * (the grader's own fill is NaN; this one is no plausible result). */
#define DGF_SENTINEL (-12345.5f)
#define DGF_FACTS_MAX 4096

struct dgf_run {
    struct prop_env env;
    const struct impl *ref;
    const struct grun_hooks *h;
    struct dg_budget *b;
    double spent;
    size_t probes;
};

struct dgf_obs {
    struct pc_call k;
    const struct spec_test *t;
    size_t c;
    int ref_ok;                    /* the reference returned ATTN_OK */
    struct impl_result sr;         /* the submission's call */
    float *want[PC_MAX_OUT], *got[PC_MAX_OUT];
    unsigned char *unwritten[PC_MAX_OUT]; /* NULL, or 1 where never written */
    int differs;
};

/* Output o of k as a matrix: its rows and columns, the names of its column
 * count, and (for attention) the mask row each row reads. */
struct dgf_geom {
    size_t rows, cols;
    const char *col_name;
    int masked;               /* rows read mask rows (row % mrows) */
    size_t mrows, mcols;
};

struct dgf_text {
    char buf[DGF_FACTS_MAX];
    size_t len;
    int specific;             /* a fact of where or when the failure shows */
};

/* One fact, a line of x (printf-style). */
void dgf_fact(struct dgf_text *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether entry i of output o differs from the expected (or was never
 * written). */
int dgf_entry_differs(const struct dgf_obs *ob, size_t o, size_t i);
/* fn's shape keys in the order shrinking tries them (*n of them). */
const char *const *dgf_shape_keys(enum asg_fn fn, size_t *n);
size_t dgf_dim_of(const struct pc_call *k, const char *key);
/* "n_q=1, n_k=2, ..., mask=causal" into buf. */
void dgf_shape_text(const struct pc_call *k, char *buf, size_t n);
/* The facts of output o over the failing calls obs[0..n); small is the
 * smallest of them (the values shown). */
void dgf_output_facts(struct dgf_text *x, struct dgf_obs *obs, size_t n, size_t o,
                      const struct dgf_obs *small);
/* diag_fit_probe.c: the dependence probes and the shrinking of the
 * smallest failing call; the scale probe when the standard calls all pass.
 * Each returns 0, or -1 on a grader error. */
int dgf_probe_facts(struct dgf_run *u, enum asg_fn fn, const struct dgf_obs *small,
                    struct dgf_text *x, struct err *e);
int dgf_scale_probe(struct dgf_run *u, enum asg_fn fn, const struct dgf_obs *first,
                    struct dgf_text *x, struct err *e);

/* The standard call once more with `weights` NULL (sdpa, mha), stated
 * when the submission then fails and the reference does not. */
int dgf_null_probe(struct dgf_run *u, struct dgf_obs *first, struct dgf_text *x,
                   struct err *e);
/* One call of the submission, charged to the budget: 0, 1 when the
 * budget is spent, -1 on a grader error (diag_fit.c). */
int dgf_student_call(struct dgf_run *u, struct pc_call *k, struct impl_result *cr,
                     struct err *e);

/* A family of mistakes (diag_fit_family.c). */
struct dgf_family {
    enum asg_fn fn;
    const char *name;
    const char *bug;
    int kind;                 /* how it predicts (diag_fit_family.c) */
    double a;                 /* its parameter */
};

int dgf_close(double want, double got);
int dgf_stu_ok(const struct dgf_obs *ob);
float *dgf_copy_floats(const float *p, size_t n);
struct dgf_geom dgf_geom_of(const struct pc_call *k, size_t o);
void dgf_obs_release(struct dgf_obs *ob);
/* Make ob->k's call on the reference and the submission (diag_fit.c):
 * 0, 1 when the budget is spent, -1 on a grader error. */
int dgf_observe(struct dgf_run *u, struct dgf_obs *ob, struct err *e);

/* The families of fn that reproduce every call of obs[0..n) and differ
 * from the reference on one at least: how many in *fits, the first in
 * *fit. Returns 0, or -1 on a grader error. */
int dgf_families_fit(struct dgf_run *u, enum asg_fn fn, struct dgf_obs *obs, size_t n,
                     const struct dgf_family **fit, size_t *fits, struct err *e);

/* Add the cause of family f for fn to r: it explains the failures
 * fail[0..n) (indices into r->tests). NULL with e set when out of memory. */
struct grade_cause *dgf_family_cause(struct grade_result *r, enum asg_fn fn,
                                     const struct dgf_family *f, size_t *fail, size_t n,
                                     struct err *e);

#endif
