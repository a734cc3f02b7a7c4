/* diag.c -- see diag.h. */
#include "grade/diag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/diag_record.h"
#include "oracle/golden.h"
#include "props/prop_common.h"
#include "props/prop_premise.h"
#include "core/util.h"

#define DG_TOL 1e-3

/* A property check that failed (not withheld points, not a stub). */
static int is_failure(enum grade_test_status st)
{
    return st == TEST_FAILED || st == TEST_CRASHED || st == TEST_TIMED_OUT;
}

/* The submission's sample of one case. */
struct dg_case {
    int made;
    unsigned char key[GOLD_KEY_LEN];
    double v[DGR_MAX_VALUES];
    size_t n;
};

static int close_value(double want, double got)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got))
        return want == got;
    return fabs(want - got) <= DG_TOL * fmax(1.0, fabs(want));
}

/*
 * The variant's sample a and the submission's b: the same ending and return
 * code; then, unless a is just the ending, the same lengths and close
 * entries, with one allowance: the same overflow at another threshold
 * (float's expf overflows where double's exp does not). Entries where one
 * side is NaN or Inf and the other finite are allowed when they are all on
 * the same side and both sides are non-finite at one entry at least: the
 * same failure reached by fewer entries, never two different ones.
 */
static int samples_match(const double *a, size_t na, const double *b, size_t nb)
{
    size_t shared = 0, only_a = 0, only_b = 0;

    if (na < 2 || nb < 2 || a[0] != b[0] || a[1] != b[1])
        return 0;
    if (na == 2)
        return 1;
    if (na != nb)
        return 0;
    for (size_t i = 2; i < na; i++) {
        int fa = isfinite(a[i]), fb = isfinite(b[i]);
        if (fa && fb && !close_value(a[i], b[i]))
            return 0;
        shared += !fa && !fb;
        only_a += !fa && fb;
        only_b += fa && !fb;
    }
    return (only_a == 0 && only_b == 0) || (shared > 0 && (only_a == 0 || only_b == 0));
}

static int fails_test(const struct gold_variant *V, const char *id)
{
    for (size_t i = 0; i < V->n_fails; i++)
        if (strcmp(V->fails[i], id) == 0)
            return 1;
    return 0;
}

/* Whether the property of test tr failed with a NaN or Inf at the place
 * V's failed, on the same inputs (message_key). */
static int same_overflow(const struct gold *g, const struct gold_variant *V,
                         const struct grade_test *tr)
{
    unsigned char m[GOLD_KEY_LEN], key[GOLD_KEY_LEN];
    size_t n;

    if (tr->message == NULL || dgr_message_key(tr->test->id, tr->message, m) == 0)
        return 0;
    dgr_variant_key(V->name, m, key);
    return gold_get(g, key, &n) != NULL;
}

/*
 * V explains the failure of tr's test t: V fails t too, the submission
 * follows V on every case of t that V has data for, and there is evidence
 * that it makes V's mistake: on at least one of those cases V is wrong
 * (its sample is not the reference's: agreeing with a variant where it
 * computes the right answer is no evidence), or, when the standard calls
 * do not show V's mistake (an overflow shows only on the property's own
 * large inputs), t's property failed with a NaN or Inf at the very place
 * V's did (same_overflow). Otherwise it explains nothing.
 */
static int explains(const struct gold *g, const struct gold_variant *V,
                    const struct grade_test *tr, const struct dg_case *cs)
{
    const struct spec_test *t = tr->test;
    size_t telling = 0;

    if (!fails_test(V, t->id))
        return 0;
    for (size_t c = 0; c < t->n_cases; c++) {
        unsigned char key[GOLD_KEY_LEN];
        const double *vs, *ref;
        size_t nv, nr;
        if (!cs[c].made)
            continue;
        dgr_variant_key(V->name, cs[c].key, key);
        if ((vs = gold_get(g, key, &nv)) == NULL)
            continue;
        if (!samples_match(vs, nv, cs[c].v, cs[c].n))
            return 0;
        dgr_variant_key(DGR_REFERENCE, cs[c].key, key);
        ref = gold_get(g, key, &nr);
        telling += ref == NULL || !samples_match(ref, nr, vs, nv);
    }
    return telling > 0 || same_overflow(g, V, tr);
}

/* What the diagnosis may still spend: CPU ms of the submission's budget
 * and the wall-clock end. */
struct dg_spend {
    const struct grun_hooks *h;
    struct dg_budget *b;
    double spent;
};

static double runner_cpu(const struct grun_hooks *h)
{
    return h && h->cpu_used ? h->cpu_used(h->self) : 0.0;
}

/* 1 when the budget still allows a call, with its deadline set. */
static int may_call(struct dg_spend *sp)
{
    double left = sp->b->left_ms - sp->spent;

    if (left < 1.0 || ut_now_ms() - grun_not_spent_ms(sp->h, sp->b->queued0) >= sp->b->wall_end)
        return 0;
    if (sp->h && sp->h->set_deadline)
        sp->h->set_deadline(sp->h->self, fmin(DGR_DEADLINE_MS, left));
    return 1;
}

/* The submission's samples on t's cases into cs (t->n_cases entries): 0,
 * 1 when the budget ran out, -1 on a grader error. Every call is charged
 * to the budget: the runner's CPU time and the grader thread's. */
static int student_samples(const struct prop_env *env, enum asg_fn fn, struct dg_spend *sp,
                           const struct spec_test *t, struct dg_case *cs, struct err *e)
{
    for (size_t c = 0; c < t->n_cases; c++) {
        double cpu0 = runner_cpu(sp->h) + ut_thread_cpu_ms();
        int rc;
        if (!may_call(sp))
            return 1;
        rc = dgr_call_sample(env, fn, t, &t->cases[c], 0, cs[c].key, cs[c].v, &cs[c].n, e);
        sp->spent += runner_cpu(sp->h) + ut_thread_cpu_ms() - cpu0;
        if (rc < 0)
            return -1;
        cs[c].made = rc;
    }
    return 0;
}

/* Per function: its failing tests and which variant explains which. */
struct dg_fn {
    enum asg_fn fn;
    size_t *fail;            /* indices into r->tests */
    size_t n_fail;
    unsigned char *ex;       /* ex[j * n_vars + v]: variant v explains fail[j] */
    size_t n_vars;
    const char *exclude;     /* a variant to ignore (cross-validation), or NULL */
};

static int usable(const struct gold_variant *V, const struct dg_fn *f)
{
    return strcmp(V->function, asg_fn_name(f->fn)) == 0 &&
           (f->exclude == NULL || strcmp(V->name, f->exclude) != 0);
}

/* 0, 1 when the budget ran out, -1 on a grader error. */
static int explain_all(const struct gold *g, const struct prop_env *env, struct dg_spend *sp,
                       const struct grade_result *r, struct dg_fn *f, struct err *e)
{
    for (size_t j = 0; j < f->n_fail; j++) {
        const struct grade_test *tr = &r->tests[f->fail[j]];
        struct dg_case *cs;
        int rc;
        if (tr->status == TEST_TIMED_OUT) /* calling it again would only wait */
            continue;
        if ((cs = calloc(tr->test->n_cases, sizeof *cs)) == NULL)
            return err_set(e, NULL, 0, 0, "out of memory");
        if ((rc = student_samples(env, f->fn, sp, tr->test, cs, e)) != 0) {
            free(cs);
            return rc;
        }
        for (size_t v = 0; v < f->n_vars; v++) {
            const struct gold_variant *V = gold_variant_at(g, v);
            f->ex[j * f->n_vars + v] = usable(V, f) && explains(g, V, tr, cs);
        }
        free(cs);
    }
    return 0;
}

/* How many of f's failures variant v explains. */
static size_t explained_count(const struct dg_fn *f, size_t v)
{
    size_t n = 0;

    for (size_t j = 0; j < f->n_fail; j++)
        n += f->ex[j * f->n_vars + v];
    return n;
}

/* Two variants are the same known mistake when their bug lines are the
 * same words (independent catalogue entries of one mistake). */
static int same_mistake(const struct gold *g, size_t a, size_t b)
{
    return strcmp(gold_variant_at(g, a)->bug, gold_variant_at(g, b)->bug) == 0;
}

/*
 * The variant explaining most failures (first in catalogue order among
 * entries of the same mistake), or n_vars when none explains any or two
 * different mistakes explain as many (a tie names nothing). *strong: it
 * explains every failure (see diag.h).
 */
static size_t best_variant(const struct gold *g, const struct dg_fn *f, size_t *count,
                           int *strong)
{
    size_t best = f->n_vars, best_n = 0;
    int tie = 0;

    for (size_t v = 0; v < f->n_vars; v++) {
        size_t n = explained_count(f, v);
        if (n == 0 || n < best_n)
            continue;
        if (n > best_n) {
            best = v, best_n = n, tie = 0;
        } else if (!same_mistake(g, best, v)) {
            tie = 1;
        }
    }
    *count = best_n;
    *strong = best_n == f->n_fail;
    return tie ? f->n_vars : best;
}

/* Among the failures v explains: the one its catalogue entry says names it
 * ("names:"), else the one the fewest variants fail. */
static size_t lead_of(const struct gold *g, const struct grade_result *r,
                      const struct dg_fn *f, size_t v)
{
    const struct gold_variant *V = gold_variant_at(g, v);
    size_t lead = 0, lead_n = (size_t)-1;

    for (size_t j = 0; j < f->n_fail; j++)
        if (f->ex[j * f->n_vars + v] && strcmp(r->tests[f->fail[j]].test->id, V->names) == 0)
            return f->fail[j];
    for (size_t j = 0; j < f->n_fail; j++) {
        size_t n = 0;
        if (!f->ex[j * f->n_vars + v])
            continue;
        for (size_t w = 0; w < f->n_vars; w++)
            n += fails_test(gold_variant_at(g, w), r->tests[f->fail[j]].test->id);
        if (n < lead_n) {
            lead = f->fail[j];
            lead_n = n;
        }
    }
    return lead;
}

static struct grade_cause *new_cause(struct grade_result *r, const struct dg_fn *f,
                                     struct err *e)
{
    struct grade_cause *nc = realloc(r->causes, (r->n_causes + 1) * sizeof *nc), *c;

    if (nc == NULL) {
        err_set(e, NULL, 0, 0, "out of memory");
        return NULL;
    }
    r->causes = nc;
    c = &nc[r->n_causes++];
    memset(c, 0, sizeof *c);
    snprintf(c->function, sizeof c->function, "%s", asg_fn_name(f->fn));
    c->failures = f->n_fail;
    c->lead = f->fail[0];
    return c;
}

static int add_cause(const struct gold *g, struct grade_result *r, const struct dg_fn *f,
                     size_t v, size_t count, int strong, struct err *e)
{
    const struct gold_variant *V = gold_variant_at(g, v);
    struct grade_cause *c = new_cause(r, f, e);

    if (c == NULL)
        return -1;
    if ((c->bug = strdup(V->bug)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    snprintf(c->variant, sizeof c->variant, "%s", V->name);
    c->explained = count;
    c->strong = strong;
    c->lead = lead_of(g, r, f, v);
    {   /* a premise still stored passed refuse(): it held */
        unsigned char key[GOLD_KEY_LEN];
        size_t n;
        dgr_premise_key(V->name, key);
        c->confirmed = gold_get(g, key, &n) != NULL;
    }
    for (size_t j = 0; j < f->n_fail; j++)
        if (f->ex[j * f->n_vars + v])
            r->tests[f->fail[j]].explained_by = r->n_causes;
    return 0;
}

/* Whether function fn has a failing test in r. */
static int has_failure(const struct grade_result *r, enum asg_fn fn)
{
    for (size_t i = 0; i < r->n_tests; i++) {
        enum asg_fn tf;
        if (is_failure(r->tests[i].status) && pc_fn(r->tests[i].test, &tf) == 0 && tf == fn)
            return 1;
    }
    return 0;
}

/* An assignment function f calls (the object's relocations say so) that
 * fails too: its index + 1, or 0. The known mistakes were recorded with
 * correct callees, so a failing callee is the cause to fix first. */
static int failing_callee(const struct grade_result *r, enum asg_fn fn)
{
    for (int g = 0; g < ASG_FN_COUNT; g++)
        if (g != (int)fn && r->calls[fn][g] && has_failure(r, (enum asg_fn)g))
            return g + 1;
    return 0;
}

/* Whether a test of an assignment function failed (what dg_diagnose
 * explains; a rubric without one shows no diagnosis). */
static int any_failure(const struct grade_result *r)
{
    enum asg_fn fn;

    for (size_t i = 0; i < r->n_tests; i++)
        if (is_failure(r->tests[i].status) && pc_fn(r->tests[i].test, &fn) == 0)
            return 1;
    return 0;
}

/* A variant whose catalogue entry states a premise (prop_premise.h)
 * explains nothing when the submission refutes it: its outputs on the
 * standard calls are another mistake's too. 0, 1 when the budget ran out,
 * -1 on a grader error. */
static int refuse(const struct gold *g, const struct prop_env *env, struct dg_spend *sp,
                  struct dg_fn *f, struct err *e)
{
    for (size_t v = 0; v < f->n_vars; v++) {
        unsigned char key[GOLD_KEY_LEN];
        char premise[GOLD_MAX_NAME + 1];
        const double *p;
        size_t n, k;
        int holds;
        if (explained_count(f, v) == 0)
            continue;
        dgr_premise_key(gold_variant_at(g, v)->name, key);
        if ((p = gold_get(g, key, &n)) == NULL)
            continue;
        for (k = 0; k < n && k < GOLD_MAX_NAME; k++)
            premise[k] = (char)p[k];
        premise[k] = '\0';
        if (!may_call(sp))
            return 1;
        if ((holds = ppr_cause_holds(premise, &env->student, e)) < 0)
            return -1;
        for (size_t j = 0; !holds && j < f->n_fail; j++)
            f->ex[j * f->n_vars + v] = 0;
    }
    return 0;
}

/* 0, 1 when the budget ran out, -1 on a grader error. */
static int diagnose_fn(const struct gold *g, const struct prop_env *env, struct dg_spend *sp,
                       struct grade_result *r, struct dg_fn *f, struct err *e)
{
    size_t v, count;
    int strong, callee, rc;

    for (size_t i = 0; i < r->n_tests; i++) {
        enum asg_fn tf;
        if (is_failure(r->tests[i].status) && pc_fn(r->tests[i].test, &tf) == 0 && tf == f->fn)
            f->fail[f->n_fail++] = i;
    }
    if (f->n_fail == 0)
        return 0;
    if ((callee = failing_callee(r, f->fn)) != 0) {
        struct grade_cause *c = new_cause(r, f, e);
        if (c != NULL)
            c->callee = callee;
        return c ? 0 : -1;
    }
    if ((f->ex = calloc(f->n_fail * f->n_vars + 1, 1)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    if ((rc = explain_all(g, env, sp, r, f, e)) != 0 || (rc = refuse(g, env, sp, f, e)) != 0)
        return rc;
    v = best_variant(g, f, &count, &strong);
    /* fewer than half of the failures: too weak to show */
    if (v == f->n_vars || 2 * count < f->n_fail)
        return 0;
    return add_cause(g, r, f, v, count, strong, e);
}

int dg_diagnose(const struct spec_set *s, struct impl student, const struct grun_hooks *h,
                const struct grade_opts *o, struct dg_budget *b, struct grade_result *r,
                struct err *e)
{
    const struct gold *g;
    struct prop_env env = {student, NULL, o->seed, DGR_DEADLINE_MS, NULL, o->orc};
    struct dg_spend sp = {h, b, 0.0};
    int rc = 0;

    (void)s;
    r->diag = GRADE_DIAG_NO_DATA;
    if (!any_failure(r)) /* nothing to diagnose: the data is not read */
        return 0;
    if (o->before_diag && o->before_diag(o->diag_ctx, e) < 0)
        return -1;
    g = o->orc ? o->orc->store : NULL;
    if (gold_variant_count(g) == 0)
        return 0;
    for (int fn = 0; rc == 0 && fn < ASG_FN_COUNT; fn++) {
        struct dg_fn f = {(enum asg_fn)fn, calloc(r->n_tests, sizeof(size_t)), 0, NULL,
                          gold_variant_count(g), o->diag_exclude};
        if (f.fail == NULL)
            return err_set(e, NULL, 0, 0, "out of memory");
        if (h && h->reset)
            h->reset(h->self);
        rc = diagnose_fn(g, &env, &sp, r, &f, e);
        free(f.fail);
        free(f.ex);
    }
    r->diag_ms = sp.spent;
    r->diag = rc == 1 ? GRADE_DIAG_CUT : o->only ? GRADE_DIAG_SELECTED : GRADE_DIAG_DONE;
    return rc < 0 ? -1 : 0;
}
