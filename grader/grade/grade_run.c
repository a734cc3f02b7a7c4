/* grade_run.c -- the test loop; see grade_run.h. */
#include "grade/grade_run.h"
#include "grade/diag.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade_deadline.h"
#include "grade/grade_gate.h"
#include "grade/grade_lanes.h"
#include "grade/grade_ledger.h"
#include "grade/grade_props.h"
#include "grade/grade_repro.h"
#include "grade/diag_fit.h"
#include "props/prop.h"
#include "core/util.h"

/* A call's deadline is CPU time (grade_deadline.h). The budget is CPU
 * time too: the grader's own (the reference, trusted math) plus the
 * runners'. The wall clock is a safety net at
 * BUDGET_WALL_FACTOR x it, for calls that sleep or a machine so loaded
 * that nothing runs; time the runners spent waiting for a CPU does not
 * count against it (the kernel's count, grun_hooks.stalled). */
#define BUDGET_DEFAULT_MS 15000.0
#define BUDGET_WALL_FACTOR 2.0
#define OUTPUT_SHOWN 400        /* bytes of the submission's output shown */

static int pattern_matches(pcre2_code *re, pcre2_match_data *md, const char *s)
{
    return pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL) >= 0;
}

static int select_test(const struct spec_test *t, pcre2_code *re,
                       pcre2_match_data *md, unsigned char *cases)
{
    char buf[256];
    int any = 0;

    for (size_t k = 0; k < t->n_cases; k++) {
        snprintf(buf, sizeof buf, "%s#%zu", t->id, k + 1);
        cases[k] = re == NULL || pattern_matches(re, md, t->id) ||
                   pattern_matches(re, md, buf);
        any |= cases[k];
    }
    return any;
}

static pcre2_code *compile_only(const char *only, struct err *e)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)only, PCRE2_ZERO_TERMINATED, 0,
                                   &code, &off, NULL);
    if (re == NULL) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(code, msg, sizeof msg);
        err_set(e, NULL, 0, 0, "bad --only pattern '%s' at offset %zu: %s",
                only, (size_t)off, (const char *)msg);
    }
    return re;
}

int grun_select(const struct spec_set *s, const char *only, struct grun_sel *sel,
                struct err *e)
{
    pcre2_code *re = NULL;
    pcre2_match_data *md = NULL;

    sel->n_tests = spec_test_count(s);
    sel->cases = calloc(sel->n_tests ? sel->n_tests : 1, sizeof *sel->cases);
    if (sel->cases == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    if (only != NULL && (re = compile_only(only, e)) == NULL)
        goto fail;
    if (re != NULL && (md = pcre2_match_data_create_from_pattern(re, NULL)) == NULL)
        goto oom;
    for (size_t i = 0; i < sel->n_tests; i++) {
        const struct spec_test *t = spec_test_at(s, i);
        if ((sel->cases[i] = calloc(t->n_cases, 1)) == NULL)
            goto oom;
        if (!select_test(t, re, md, sel->cases[i])) {
            free(sel->cases[i]);
            sel->cases[i] = NULL;
        }
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    /* An empty selection would print "0 of 0 tests passed" and exit 0: a
     * mistyped pattern (or a hidden test's id) must not look like success. */
    if (only != NULL && grun_selected_tests(sel) == 0) {
        err_set(e, NULL, 0, 0, "no test matches --only '%s'", only);
        grun_select_release(sel);
        return -1;
    }
    return 0;
oom:
    err_set(e, NULL, 0, 0, "out of memory");
fail:
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    grun_select_release(sel);
    return -1;
}

void grun_select_release(struct grun_sel *sel)
{
    if (sel->cases != NULL)
        for (size_t i = 0; i < sel->n_tests; i++)
            free(sel->cases[i]);
    free(sel->cases);
    sel->cases = NULL;
    sel->n_tests = 0;
}

size_t grun_selected_tests(const struct grun_sel *sel)
{
    size_t n = 0;

    for (size_t i = 0; i < sel->n_tests; i++)
        n += sel->cases[i] != NULL;
    return n;
}

static size_t selected_cases(const struct spec_test *t, const unsigned char *sel)
{
    size_t n = 0;

    for (size_t k = 0; k < t->n_cases; k++)
        n += sel[k];
    return n;
}

/* The state of one lane: its implementation, and the CPU time of its
 * thread and runners when the running test started. */
struct loop {
    const struct spec_set *s;
    struct impl student;
    const struct impl *reference;
    const struct grun_hooks *h;
    const struct grade_opts *o;
    const char *submission_dir;
    double t0, budget_ms;        /* the whole submission's */
    double cpu0, runners0;       /* when the running test started */
    double queued0;              /* the lane thread's wait for a CPU at t0
                                    or its start (ut_thread_queued_ms) */
    int *wall_out;               /* set when the wall clock ran out */
};

/* What one test accumulated over its cases. */
struct tally {
    size_t run, passed, first_fail;
    int have_fail;
    int not_run;                 /* skipped whole: no output to show (the
                                    runner's is an earlier test's) */
    struct prop_verdict fail;    /* the smallest failing case's verdict */
    double elapsed_ms;
};

/* The CPU time (ms) the lane's runners used so far. */
static double runners_ms(const struct grun_hooks *h)
{
    return h && h->cpu_used ? h->cpu_used(h->self) : 0.0;
}

/* The CPU time (ms) the running test cost so far: the grader's thread
 * (the reference, trusted math) and the runners of its lane. What the
 * tests cost goes into the ledger (grade_ledger.h). */
static double charged_ms(const struct loop *L)
{
    return ut_thread_cpu_ms() - L->cpu0 + runners_ms(L->h) - L->runners0;
}

/* One try of case c under `deadline`, capped by the budget less what the
 * test cost so far: napping just under every deadline cannot make one
 * test outlast the budget (and the ledger cuts every test after the one
 * that spent it). */
static int try_case(struct loop *L, const struct prop_def *d, const struct spec_test *t,
                    const struct spec_case *c, double deadline, struct prop_verdict *v,
                    struct err *e)
{
    double left = L->budget_ms - charged_ms(L);
    struct prop_env env = {L->student, L->reference, L->o->seed, deadline,
                           L->submission_dir, L->o->orc};
    const struct prop_ctx x = {&env, t, c, d, v, e};

    if (deadline > left)
        deadline = fmax(left, 1.0);
    if (L->h && L->h->set_deadline)
        L->h->set_deadline(L->h->self, deadline);
    memset(v, 0, sizeof *v);
    return d->run(&x);
}

/*
 * Run case k. The case is tried under the floor first, and timed against
 * the reference only when it timed out there: every real deadline is at
 * least the floor, so a call that ends within it ends within its real
 * deadline too, and the verdict is the same as with the real deadline set
 * from the start. Timing the reference up front cost the staff grade
 * 40 % of its CPU time (it runs the whole property, trusted math too).
 */
static int run_case(struct loop *L, const struct prop_def *d,
                    const struct spec_test *t, size_t k, struct tally *ty,
                    struct err *e)
{
    const struct spec_case *c = &t->cases[k];
    double deadline = gdl_first(t, L->reference != NULL), real;
    struct prop_verdict v;
    double t0 = ut_now_ms();

    if (try_case(L, d, t, c, deadline, &v, e) < 0)
        return -1;
    if (v.call.status == CALL_TIMEOUT && t->timeout_ms <= 0 && L->reference != NULL) {
        if ((real = gdl_measured(L->reference, L->o, L->submission_dir, d, t, c, e)) < 0)
            return -1;
        if (real > deadline) {
            if (L->h && L->h->reset) /* as if the first try never was */
                L->h->reset(L->h->self);
            if (try_case(L, d, t, c, real, &v, e) < 0)
                return -1;
        }
    }
    ty->elapsed_ms += ut_now_ms() - t0;
    ty->run++;
    if (v.passed) {
        ty->passed++;
    } else if (!ty->have_fail) {
        ty->have_fail = 1;
        ty->first_fail = k;
        ty->fail = v;
    }
    return 0;
}

static enum grade_test_status failure_status(const struct prop_verdict *v)
{
    if (v->manual_pending)
        return TEST_MANUAL_PENDING;
    if (v->not_implemented)
        return TEST_NOT_IMPLEMENTED;
    switch (v->call.status) {
    case CALL_RETURNED:
        return TEST_FAILED;
    case CALL_TIMEOUT:
        return TEST_TIMED_OUT;
    case CALL_SKIPPED:
        return TEST_NOT_RUN;
    default:
        return TEST_CRASHED;
    }
}

static void case_label(const struct spec_test *t, size_t k, char *buf, size_t n)
{
    const struct spec_case *c = &t->cases[k];
    size_t j = (size_t)snprintf(buf, n, "case %zu of %zu", k + 1, t->n_cases);
    const char *sep = " (";

    for (size_t i = 0; i < c->n_params && j + 2 < n; i++, sep = ", ") {
        const struct spec_param *p = &c->params[i];
        if (p->kind == SPEC_NUM)
            j += (size_t)snprintf(buf + j, n - j, "%s%s=%g", sep, p->key, p->num);
        else if (p->kind == SPEC_STR)
            j += (size_t)snprintf(buf + j, n - j, "%s%s=%s", sep, p->key, p->str);
        else
            j += (size_t)snprintf(buf + j, n - j, "%s%s=[%zu values]", sep,
                                  p->key, p->list_len);
    }
    if (c->n_params > 0 && j + 2 < n)
        snprintf(buf + j, n - j, ")");
}

/* The failure text: the case, the property's message, and what the
 * submission printed (capped), so that a student sees their own debug
 * output next to the failure it explains. */
static char *failure_message(struct loop *L, const struct spec_test *t,
                             const struct tally *ty)
{
    char label[256], *msg;
    size_t outlen = 0, n;
    const char *out = !ty->not_run && L->h && L->h->output
                          ? L->h->output(L->h->self, &outlen) : NULL;

    /* Properties usually name the case with its full shape themselves,
     * at the start ("case 2 (...): ...") or the end ("... in case 2 (...)"). */
    if (strncmp(ty->fail.msg, "case ", 5) == 0 || strstr(ty->fail.msg, " in case ") != NULL)
        label[0] = '\0';
    else
        case_label(t, ty->first_fail, label, sizeof label);
    if (outlen > OUTPUT_SHOWN)
        outlen = OUTPUT_SHOWN;
    n = strlen(label) + strlen(ty->fail.msg) + outlen + 64;
    if ((msg = malloc(n)) == NULL)
        return NULL;
    snprintf(msg, n, "%s%s%s%s%.*s", label, label[0] ? ": " : "", ty->fail.msg,
             outlen ? "\nyour code printed: " : "", (int)outlen, out ? out : "");
    return msg;
}

/* Points in whole hundredths (the loader refuses finer points). */
static long long cents_of(double points)
{
    return llround(points * 100.0);
}

/* A test's score: `passed` of `ncases` cases earn that share of max_cents,
 * rounded half up, in integers (no float sum to drift by 0.0001). */
static void set_score(struct grade_test *tr, long long cents)
{
    tr->score_cents = cents;
    tr->score = (double)cents / 100.0;
}

static long long partial_cents(long long max, size_t passed, size_t ncases)
{
    if (ncases == 0)
        return 0;
    return (max * (long long)passed + (long long)ncases / 2) / (long long)ncases;
}

void grun_score(struct grade_test *tr)
{
    tr->max_cents = cents_of(tr->test->points);
    tr->max_score = (double)tr->max_cents / 100.0;
    if (tr->dependency_failed)
        set_score(tr, 0);
    else if (tr->status == TEST_PASSED)
        set_score(tr, tr->max_cents);
    else
        set_score(tr, tr->test->scoring == SPEC_PARTIAL
                          ? partial_cents(tr->max_cents, tr->cases_passed, tr->cases_scored)
                          : 0);
}

static int record(struct loop *L, const struct spec_test *t, size_t ncases,
                  const struct tally *ty, struct grade_test *tr)
{
    tr->cases_run = ty->run;
    tr->cases_passed = ty->passed;
    tr->cases_scored = ncases;
    tr->elapsed_ms = ty->elapsed_ms;
    if (!ty->have_fail && ty->run == ncases) {
        tr->status = TEST_PASSED;
        grun_score(tr);
        return (tr->message = strdup("")) && (tr->hint = strdup("")) &&
                       (tr->repro = strdup(""))
                   ? 0 : -1;
    }
    tr->status = failure_status(&ty->fail);
    grun_score(tr);
    tr->failed_case = ty->first_fail;
    tr->message = failure_message(L, t, ty);
    tr->hint = strdup(ty->fail.hint[0] ? ty->fail.hint
                                       : t->hint && !ty->fail.hint_refuted ? t->hint : "");
    tr->repro = grp_command(L->o, t, ty->first_fail);
    return tr->message && tr->hint && tr->repro ? 0 : -1;
}

static int skip_test(struct loop *L, const struct spec_test *t, const char *why,
                     enum impl_status st, struct grade_test *tr)
{
    struct tally ty;

    memset(&ty, 0, sizeof ty);
    ty.have_fail = 1;
    ty.not_run = 1;
    ty.fail.call.status = st;
    snprintf(ty.fail.msg, sizeof ty.fail.msg, "%s", why);
    return record(L, t, t->n_cases, &ty, tr);
}

static const char *timeouts_message(size_t fn, char *buf, size_t n)
{
    snprintf(buf, n, "not run: %s timed out in %d earlier tests",
             fn < ASG_FN_COUNT ? asg_fn_cname((enum asg_fn)fn) : "your code",
             GL_MAX_TIMEOUTS);
    return buf;
}

/* Why a test is not run at all, or NULL: the wall clock ran out (the
 * ledger's rules are applied by run_slot and grun_run). */
static const char *skip_reason(struct loop *L, char *buf, size_t n)
{
    /* the time the grader itself stood still (a paused machine) and the
     * time this lane's runners waited for a CPU (a loaded one) are not
     * the submission's; each lane subtracts its own, so a lane whose
     * calls sleep still meets the net */
    double stalled = grun_not_spent_ms(L->h, L->queued0);

    if (ut_now_ms() - L->t0 - stalled > BUDGET_WALL_FACTOR * L->budget_ms) {
        *L->wall_out = 1;
        snprintf(buf, n, "not run: the submission used up its time budget (%.0f s of "
                 "wall-clock time)", BUDGET_WALL_FACTOR * L->budget_ms / 1e3);
        return buf;
    }
    return NULL;
}

double grun_not_spent_ms(const struct grun_hooks *h, double queued0)
{
    double stalled = h && h->stalled ? h->stalled(h->self) : 0.0;
    double queued = ut_thread_queued_ms();

    /* the lane's own thread waits for a CPU too (the reference, checks) */
    return stalled + (queued > queued0 ? queued - queued0 : 0.0);
}

/* The work a case asks for: the product of its shape keys. */
static double case_size(const struct spec_case *c)
{
    static const char *const dims[] = {"rows", "cols", "n", "d", "n_q", "n_k", "n_kv",
                                       "d_k", "d_v", "d_model", "d_ff", NULL};
    double size = 1.0;

    for (size_t i = 0; i < c->n_params; i++)
        for (const char *const *k = dims; *k; k++)
            if (c->params[i].kind == SPEC_NUM && strcmp(c->params[i].key, *k) == 0)
                size *= fmax(1.0, c->params[i].num);
    return size;
}

/*
 * The order to run t's cases in: from small to large (stable, so equal
 * sizes keep the spec's order), so that the failure shown is the smallest
 * failing case. Returns a new array of t->n_cases indices, or NULL.
 */
static size_t *case_order(const struct spec_test *t)
{
    size_t *ord = malloc((t->n_cases ? t->n_cases : 1) * sizeof *ord);

    if (ord == NULL)
        return NULL;
    for (size_t i = 0; i < t->n_cases; i++) {
        size_t j = i;
        double si = case_size(&t->cases[i]);
        while (j > 0 && case_size(&t->cases[ord[j - 1]]) > si) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    return ord;
}

/* Run test t into tr; *timed_out is set when a case timed out. */
static int run_test(struct loop *L, const struct spec_test *t,
                    const unsigned char *sel, struct grade_test *tr, int *timed_out,
                    struct err *e)
{
    const struct prop_def *d = gprop_find(t->function, t->property);
    struct tally ty;
    size_t *ord;
    char why[160];

    tr->test = t;
    if (d == NULL)
        return err_set(e, t->file, t->line, t->col, "unknown property '%s.%s'",
                       t->function, t->property);
    if (skip_reason(L, why, sizeof why))
        return skip_test(L, t, why, CALL_SKIPPED, tr);
    if (L->h && L->h->reset)
        L->h->reset(L->h->self);
    memset(&ty, 0, sizeof ty);
    if ((ord = case_order(t)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < t->n_cases; i++) {
        size_t k = ord[i];
        if (!sel[k])
            continue;
        if (run_case(L, d, t, k, &ty, e) < 0) {
            free(ord);
            return -1;
        }
        if (ty.have_fail && ty.fail.call.status == CALL_TIMEOUT) {
            *timed_out = 1;
            break; /* every later case would cost a deadline too */
        }
    }
    free(ord);
    return record(L, t, selected_cases(t, sel), &ty, tr);
}

/*
 * The selected tests are jobs taken in spec order by parallel lanes
 * (grade_lanes.h), each lane with its own sandbox. A test depends on no
 * other test, except through the two rules the ledger applies in spec
 * order (grade_ledger.h): so the verdicts are the same however many lanes
 * there are and whichever lane ran which test, byte for byte.
 */
struct run {
    const struct spec_set *s;
    const struct grun_sel *sel;
    const struct impl *reference;
    const struct grade_opts *o;
    const struct grun_lanes *lanes;
    const char *submission_dir;
    struct grade_result *r;
    double t0, budget_ms;
    size_t n_sel;                      /* selected tests */
    size_t *spec_index;                /* slot j: the spec's test index */
    size_t *fn;                        /* slot j: its function */
    struct gl_ledger *ledger;
    int wall_out;                      /* the wall clock ran out */
    int failed;                        /* a test failed (stop_at_failure) */
    pthread_mutex_t wall_mu;           /* guards wall_out and failed */
};

/* One lane: a sandboxed implementation and its hooks, and its thread's
 * wait for a CPU when it began (ut_thread_queued_ms; 0 if unknown). */
struct lane {
    struct impl student;
    struct grun_hooks h;
    double queued0;
};

static double queued_now(void)
{
    double q = ut_thread_queued_ms();

    return q > 0 ? q : 0.0;
}

static size_t test_fn(const struct spec_test *t)
{
    enum asg_fn f;

    return asg_fn_parse(t->function, &f) == 0 ? (size_t)f : ASG_FN_COUNT;
}

/* Whether a test failed already (stop_at_failure); with `set`, record
 * that one did (set is &R->failed). */
static int stopped(struct run *R, int *set)
{
    int v;

    pthread_mutex_lock(&R->wall_mu);
    if (set)
        *set = 1;
    v = R->failed;
    pthread_mutex_unlock(&R->wall_mu);
    return v;
}

/* A test not run because an earlier one failed (stop_at_failure). */
static int after_failure(struct loop *L, const struct spec_test *t, struct grade_test *tr)
{
    tr->test = t;
    return skip_test(L, t, "not run: an earlier test failed", CALL_SKIPPED, tr);
}

/* Job j: the test in slot j, unless the ledger cuts it already. */
static int run_slot(void *self, void *ctx, size_t j, struct err *e)
{
    struct run *R = self;
    struct lane *ln = ctx;
    size_t i = R->spec_index[j];
    struct loop L = {R->s, ln->student, R->reference, &ln->h, R->o, R->submission_dir,
                     R->t0, R->budget_ms, 0.0, 0.0, ln->queued0, NULL};
    int timed_out = 0, wall_out = 0, ran = 0, rc = 0;

    L.wall_out = &wall_out;
    if (R->o->stop_at_failure && stopped(R, NULL))
        rc = after_failure(&L, spec_test_at(R->s, i), &R->r->tests[j]);
    else if (gl_before(R->ledger, j) == GL_RUN) {
        L.cpu0 = ut_thread_cpu_ms();
        L.runners0 = runners_ms(L.h);
        rc = run_test(&L, spec_test_at(R->s, i), R->sel->cases[i], &R->r->tests[j],
                      &timed_out, e);
        ran = 1;
        if (R->o->stop_at_failure && rc == 0 && R->r->tests[j].status != TEST_PASSED &&
            R->r->tests[j].status != TEST_MANUAL_PENDING)
            (void)stopped(R, &R->failed);
    }
    gl_done(R->ledger, j, ran ? charged_ms(&L) : 0.0, timed_out);
    if (wall_out) {
        pthread_mutex_lock(&R->wall_mu);
        R->wall_out = 1;
        pthread_mutex_unlock(&R->wall_mu);
    }
    return rc;
}

/* every call ends with the budget, so napping calls cannot add up past it
 * (the budget is checked only between tests) */
static void lane_wall_end(const struct run *R, const struct grun_hooks *h)
{
    if (h->set_wall_end)
        h->set_wall_end(h->self, R->t0 + BUDGET_WALL_FACTOR * R->budget_ms);
}

static int lane_open(void *self, size_t k, void **ctx, struct err *e)
{
    struct run *R = self;
    struct lane *ln = calloc(1, sizeof *ln);

    (void)k;
    if (ln == NULL || R->lanes->open(R->lanes->self, &ln->student, &ln->h, e) < 0) {
        free(ln);
        return -1;
    }
    lane_wall_end(R, &ln->h);
    ln->queued0 = queued_now();
    *ctx = ln;
    return 0;
}

static void lane_close(void *self, size_t k, void *ctx)
{
    struct run *R = self;
    struct lane *ln = ctx;

    (void)k;
    R->lanes->close(R->lanes->self, &ln->h);
    free(ln);
}

/* The slots: the selected tests in spec order, and their functions. */
static int plan(struct run *R)
{
    size_t n = R->sel->n_tests, j = 0;

    R->spec_index = calloc(n + 1, sizeof *R->spec_index);
    R->fn = calloc(n + 1, sizeof *R->fn);
    if (R->spec_index == NULL || R->fn == NULL)
        return -1;
    /* stop_at_failure: the value tests first, as they fail for most
     * wrong code, so a failing submission stops sooner */
    for (int pass = R->o->stop_at_failure ? 0 : 1; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            const struct spec_test *t = spec_test_at(R->s, i);
            if (R->sel->cases[i] == NULL ||
                (R->o->stop_at_failure &&
                 grade_is_value_test(t->function, t->property) != (pass == 0)))
                continue;
            R->spec_index[j] = i;
            R->fn[j++] = test_fn(t);
        }
    R->n_sel = j;
    return 0;
}

/* Slot j's result replaced by "not run" for the rule that cut it; every
 * field is set afresh, whether a lane ran the test or not. 0 or -1. */
static int cut_test(struct run *R, size_t j, enum gl_state st)
{
    struct grade_test *tr = &R->r->tests[j];
    const struct spec_test *t = spec_test_at(R->s, R->spec_index[j]);
    struct loop L;
    char why[160];

    free(tr->message);
    free(tr->hint);
    free(tr->repro);
    memset(tr, 0, sizeof *tr);
    tr->test = t;
    memset(&L, 0, sizeof L);
    L.o = R->o;
    if (st == GL_CUT_BUDGET)
        snprintf(why, sizeof why, "not run: the submission used up its time budget of "
                 "%.0f s (CPU time)", R->budget_ms / 1e3);
    else
        timeouts_message(R->fn[j], why, sizeof why);
    return skip_test(&L, t, why, CALL_SKIPPED, tr);
}

/* Apply the ledger's final states: 1 when the budget ran out, 0 when not,
 * -1 when out of memory. */
static int settle(struct run *R)
{
    int out = 0;

    for (size_t j = 0; j < R->n_sel; j++) {
        enum gl_state st = gl_final(R->ledger, j);
        if (st == GL_RUN && R->r->tests[j].test == NULL)
            return -1; /* cannot be: a lane skips only what the rules cut */
        if (st == GL_RUN)
            continue;
        out |= st == GL_CUT_BUDGET;
        if (cut_test(R, j, st) < 0)
            return -1;
    }
    return out;
}

static void run_release(struct run *R)
{
    gl_free(R->ledger);
    free(R->spec_index);
    free(R->fn);
}

int grun_run(const struct spec_set *s, const struct grun_sel *sel,
             struct impl student, const struct impl *reference,
             const struct grun_hooks *h, const struct grun_lanes *lanes,
             const struct grade_opts *o, const char *submission_dir,
             struct grade_result *r, struct err *e)
{
    static const struct grun_hooks none = {0};
    struct run R = {.s = s, .sel = sel, .reference = reference, .o = o, .lanes = lanes,
                    .submission_dir = submission_dir, .r = r, .t0 = ut_now_ms(),
                    .budget_ms = o->budget_ms > 0 ? o->budget_ms : BUDGET_DEFAULT_MS};
    struct lane first = {student, h ? *h : none, queued_now()};
    const struct glane_ops ops = {&R, lane_open, lane_close, run_slot};
    size_t n_lanes = lanes && lanes->open && lanes->n > 1 ? lanes->n : 1;
    struct dg_budget budget = {0.0, R.t0 + BUDGET_WALL_FACTOR * R.budget_ms, first.queued0};
    int rc;

    if (plan(&R) < 0 ||
        (R.ledger = gl_new(R.n_sel, R.fn, ASG_FN_COUNT + 1, R.budget_ms)) == NULL ||
        pthread_mutex_init(&R.wall_mu, NULL) != 0) {
        run_release(&R);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    lane_wall_end(&R, &first.h);
    rc = glane_run(n_lanes, R.n_sel, &first, &ops, e);
    pthread_mutex_destroy(&R.wall_mu);
    if (rc == 0) {
        budget.left_ms = R.budget_ms - gl_spent(R.ledger);
        r->n_tests = R.n_sel;
        if ((rc = settle(&R)) < 0)
            err_set(e, NULL, 0, 0, "out of memory");
        else if (rc == 1 || R.wall_out)
            r->status = GRADE_BUDGET_EXHAUSTED;
    }
    run_release(&R);
    if (rc < 0)
        return -1;
    if (grade_gate_apply(r) < 0)
        return err_set(e, NULL, 0, 0, "out of memory");
    if (!o->stop_at_failure && (dg_diagnose(s, student, h, o, &budget, r, e) < 0 ||
                                dgf_diagnose(s, student, reference, h, o, &budget, r, e) < 0))
        return -1;
    grun_total(r);
    return 0;
}

void grun_total(struct grade_result *r)
{
    r->score_cents = r->max_cents = 0;
    for (size_t i = 0; i < r->n_tests; i++) {
        r->score_cents += r->tests[i].score_cents;
        r->max_cents += r->tests[i].max_cents;
    }
    r->score = (double)r->score_cents / 100.0;
    r->max_score = (double)r->max_cents / 100.0;
}

int grun_mark_all(const struct spec_set *s, const struct grun_sel *sel,
                  enum grade_test_status st, const char *why, struct grade_result *r)
{
    size_t j = 0;

    for (size_t i = 0; i < sel->n_tests; i++) {
        struct grade_test *tr;
        if (sel->cases[i] == NULL)
            continue;
        tr = &r->tests[j];
        tr->test = spec_test_at(s, i);
        tr->status = st;
        grun_score(tr);
        tr->message = strdup(why);
        tr->hint = strdup(tr->test->hint ? tr->test->hint : "");
        tr->repro = strdup("");
        r->n_tests = ++j;
        if (!tr->message || !tr->hint || !tr->repro)
            return -1;
    }
    grun_total(r);
    return 0;
}
