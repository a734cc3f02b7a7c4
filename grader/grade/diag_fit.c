/* diag_fit.c -- see diag_fit.h. */
#include "grade/diag_fit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "props/prop_common.h"
#include "grade/diag_fit_internal.h"

/* Standard calls looked at per function (the probes have their own
 * bound, diag_fit_probe.c): a bounded share of the budget. */
#define DGF_MAX_CALLS 40
#define DGF_DEADLINE_MS 2000.0

/* ---- calling, within the budget ------------------------------------------ */


static double runner_cpu(const struct grun_hooks *h)
{
    return h && h->cpu_used ? h->cpu_used(h->self) : 0.0;
}

static int may_call(struct dgf_run *u)
{
    double left = u->b->left_ms - u->spent;

    if (left < 1.0 || ut_now_ms() - grun_not_spent_ms(u->h, u->b->queued0) >= u->b->wall_end)
        return 0;
    if (u->h && u->h->set_deadline)
        u->h->set_deadline(u->h->self, fmin(DGF_DEADLINE_MS, left));
    return 1;
}

/* One call of the submission, charged: 0, 1 when the budget is spent, -1. */
int dgf_student_call(struct dgf_run *u, struct pc_call *k, struct impl_result *cr,
                        struct err *e)
{
    double cpu0;
    int rc;

    if (!may_call(u))
        return 1;
    cpu0 = runner_cpu(u->h) + ut_thread_cpu_ms();
    rc = pc_invoke(&u->env.student, k, cr, e);
    u->spent += runner_cpu(u->h) + ut_thread_cpu_ms() - cpu0;
    return rc < 0 ? -1 : 0;
}

/* ---- one observed call: the submission against the reference ------------ */


void dgf_obs_release(struct dgf_obs *ob)
{
    for (size_t o = 0; o < PC_MAX_OUT; o++) {
        free(ob->want[o]);
        free(ob->got[o]);
        free(ob->unwritten[o]);
    }
    pc_release(&ob->k);
    memset(ob, 0, sizeof *ob);
}

int dgf_close(double want, double got)
{
    if (!isfinite(want) || !isfinite(got))
        return 0;
    return fabs(want - got) <= DGF_TOL * fmax(1.0, fabs(want));
}

int dgf_stu_ok(const struct dgf_obs *ob)
{
    return ob->sr.status == CALL_RETURNED && ob->sr.rc == 0;
}

/* Whether entry i of output o differs from the expected. */
int dgf_entry_differs(const struct dgf_obs *ob, size_t o, size_t i)
{
    return (ob->unwritten[o] && ob->unwritten[o][i]) || !dgf_close(ob->want[o][i], ob->got[o][i]);
}

float *dgf_copy_floats(const float *p, size_t n)
{
    float *q = malloc((n ? n : 1) * sizeof *q);

    if (q)
        memcpy(q, p, n * sizeof *q);
    return q;
}

/*
 * Make k's call on the reference and the submission (k owned by ob from
 * here). When the submission left NaN where the grader's fill was NaN, the
 * call is made again with another fill: entries that keep it were never
 * written. Returns 0, 1 when the budget is spent, -1 on a grader error.
 */
int dgf_observe(struct dgf_run *u, struct dgf_obs *ob, struct err *e)
{
    struct pc_call *k = &ob->k;
    struct impl_result rr;
    int rc;

    if (pc_invoke(u->ref, k, &rr, e) < 0)
        return -1;
    ob->ref_ok = rr.status == CALL_RETURNED && rr.rc == 0;
    for (size_t o = 0; o < k->n_out; o++)
        if ((ob->want[o] = dgf_copy_floats(k->out[o], k->out_len[o])) == NULL)
            return err_set(e, NULL, 0, 0, "out of memory");
    if ((rc = dgf_student_call(u, k, &ob->sr, e)) != 0)
        return rc;
    for (size_t o = 0; o < k->n_out; o++)
        if ((ob->got[o] = dgf_copy_floats(k->out[o], k->out_len[o])) == NULL)
            return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t o = 0; dgf_stu_ok(ob) && o < k->n_out; o++) {
        struct impl_result again;
        size_t len = k->out_len[o], nan_fill = 0;
        float *fill = k->init[o];
        for (size_t i = 0; fill && i < len; i++)
            nan_fill += isnan(fill[i]) && isnan(ob->got[o][i]);
        if (nan_fill == 0)
            continue;
        for (size_t i = 0; i < len; i++)
            fill[i] = DGF_SENTINEL;
        rc = dgf_student_call(u, k, &again, e);
        for (size_t i = 0; i < len; i++)
            fill[i] = NAN;
        if (rc != 0)
            return rc;
        if ((ob->unwritten[o] = calloc(len ? len : 1, 1)) == NULL)
            return err_set(e, NULL, 0, 0, "out of memory");
        for (size_t i = 0; again.status == CALL_RETURNED && i < len; i++)
            ob->unwritten[o][i] = k->out[o][i] == DGF_SENTINEL && isnan(ob->got[o][i]);
    }
    ob->differs = !ob->ref_ok ? 0 : !dgf_stu_ok(ob);
    for (size_t o = 0; ob->ref_ok && dgf_stu_ok(ob) && o < k->n_out; o++)
        for (size_t i = 0; i < k->out_len[o] && !ob->differs; i++)
            ob->differs = dgf_entry_differs(ob, o, i);
    return 0;
}

/* ---- shapes ---------------------------------------------------------------- */


struct dgf_geom dgf_geom_of(const struct pc_call *k, size_t o)
{
    struct dgf_geom g = {0, 0, "columns", 0, 0, 0};

    switch (k->fn) {
    case ASG_SOFTMAX:
    case ASG_LAYERNORM:
        g.rows = k->rows, g.cols = k->cols, g.col_name = "cols";
        break;
    case ASG_SDPA:
        g.rows = k->n_q, g.cols = o == 0 ? k->d_v : k->n_k, g.col_name = o == 0 ? "d_v" : "n_k";
        g.masked = k->mask != NULL, g.mrows = k->n_q, g.mcols = k->n_k;
        break;
    case ASG_PE:
        g.rows = k->n, g.cols = k->d, g.col_name = "d";
        break;
    case ASG_MHA:
        g.rows = o == 0 ? k->n_q : k->heads * k->n_q, g.cols = o == 0 ? k->d_model : k->n_k;
        g.col_name = o == 0 ? "d_model" : "n_kv";
        g.masked = k->mask != NULL, g.mrows = k->n_q, g.mcols = k->n_k;
        break;
    case ASG_BLOCK:
        g.rows = k->n, g.cols = k->d_model, g.col_name = "d_model";
        g.masked = k->mask != NULL, g.mrows = k->n, g.mcols = k->n;
        break;
    default:
        break;
    }
    return g;
}

static int row_all_hidden(const struct pc_call *k, const struct dgf_geom *g, size_t r)
{
    const unsigned char *m;

    if (!g->masked || g->mrows == 0)
        return 0;
    m = k->mask + (r % g->mrows) * g->mcols;
    for (size_t j = 0; j < g->mcols; j++)
        if (m[j])
            return 0;
    return 1;
}

/* The shape keys of fn, in the order shrinking tries them: the
 * assignment's (assign.h). */
const char *const *dgf_shape_keys(enum asg_fn fn, size_t *n)
{
    return asg_fn_dims(fn, n);
}

size_t dgf_dim_of(const struct pc_call *k, const char *key)
{
    if (strcmp(key, "rows") == 0) return k->rows;
    if (strcmp(key, "cols") == 0) return k->cols;
    if (strcmp(key, "n_q") == 0) return k->n_q;
    if (strcmp(key, "n_k") == 0 || strcmp(key, "n_kv") == 0) return k->n_k;
    if (strcmp(key, "d_k") == 0) return k->d_k;
    if (strcmp(key, "d_v") == 0) return k->d_v;
    if (strcmp(key, "n") == 0) return k->n;
    if (strcmp(key, "d") == 0) return k->d;
    if (strcmp(key, "d_model") == 0) return k->d_model;
    if (strcmp(key, "heads") == 0) return k->heads;
    if (strcmp(key, "d_ff") == 0) return k->d_ff;
    return 0;
}

void dgf_shape_text(const struct pc_call *k, char *buf, size_t n)
{
    size_t nk, used = 0;
    const char *const *keys = dgf_shape_keys(k->fn, &nk);

    buf[0] = '\0';
    for (size_t i = 0; i < nk && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%zu", i ? ", " : "", keys[i],
                                 dgf_dim_of(k, keys[i]));
    if (used < n && k->mask_kind && strcmp(k->mask_kind, "none") != 0)
        snprintf(buf + used, n - used, ", mask=%s", k->mask_kind);
}

/* ---- facts ----------------------------------------------------------------- */

void dgf_fact(struct dgf_text *x, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (x->len + 2 >= sizeof x->buf)
        return;
    va_start(ap, fmt);
    n = vsnprintf(x->buf + x->len, sizeof x->buf - x->len - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    x->len += (size_t)n < sizeof x->buf - x->len - 1 ? (size_t)n : sizeof x->buf - x->len - 2;
    x->buf[x->len++] = '\n';
    x->buf[x->len] = '\0';
}

/* v as a short text: "1/7" when it is one over a small integer. */
static void value_text(double v, char *buf, size_t n)
{
    for (int m = 2; m <= 64; m++)
        if (fabs(v - 1.0 / m) <= 1e-6) {
            snprintf(buf, n, "1/%d", m);
            return;
        }
    snprintf(buf, n, "%.6g", v);
}

/* c as an expression of k's sizes ("sqrt(d_k)", "1/n_k"), or "" when
 * none fits. */
static void factor_text(const struct pc_call *k, double c, char *buf, size_t n)
{
    size_t nk;
    const char *const *keys = dgf_shape_keys(k->fn, &nk);

    buf[0] = '\0';
    for (size_t i = 0; i < nk; i++) {
        double d = (double)dgf_dim_of(k, keys[i]);
        const struct { double v; const char *f; } forms[] = {
            {d, "%s"}, {1.0 / d, "1/%s"}, {sqrt(d), "sqrt(%s)"}, {1.0 / sqrt(d), "1/sqrt(%s)"}};
        if (d < 2)
            continue;
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
            if (fabs(c - forms[f].v) <= 1e-3 * fabs(forms[f].v)) {
                snprintf(buf, n, forms[f].f, keys[i]);
                return;
            }
    }
}

/* Where the differing entries of output o lie, over the failing calls. */
enum where {
    W_HIDDEN,   /* rows whose keys are all hidden */
    W_LASTCOL, W_FIRSTCOL, W_LASTROW, W_FIRSTROW, W_ODDCOL, W_EVENCOL,
    W_COUNT
};

static const char *const where_text[W_COUNT] = {
    "in rows whose keys are all hidden", "in the last column", "in the first column",
    "in the last row", "in the first row", "in odd columns (1, 3, ...)",
    "in even columns (0, 2, ...)",
};

static int in_where(enum where w, const struct pc_call *k, const struct dgf_geom *g, size_t r,
                    size_t c)
{
    switch (w) {
    case W_HIDDEN: return row_all_hidden(k, g, r);
    /* a matrix of one column: its column is the last (and the first) */
    case W_LASTCOL: return c + 1 == g->cols;
    case W_FIRSTCOL: return c == 0;
    case W_LASTROW: return r + 1 == g->rows;
    case W_FIRSTROW: return r == 0;
    case W_ODDCOL: return c % 2 == 1;
    case W_EVENCOL: return c % 2 == 0;
    default: return 0;
    }
}

/* Whether out o of ob is the expected under an index map: 1 transposed
 * (written column-major), 2 rows reversed, 3 columns reversed, 4 rows
 * shifted down by one, 5 up by one. */
static int mapped_equal(const struct dgf_obs *ob, size_t o, const struct dgf_geom *g, int map)
{
    size_t R = g->rows, C = g->cols;

    if (R * C != ob->k.out_len[o] || R < 2 || (map == 1 && C < 2) || (map == 3 && C < 2))
        return 0;
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < C; c++) {
            size_t from;
            if (map == 1) from = c * R + r;
            else if (map == 2) from = (R - 1 - r) * C + c;
            else if (map == 3) from = r * C + (C - 1 - c);
            else if (map == 4) { if (r == 0) continue; from = (r - 1) * C + c; }
            else { if (r == R - 1) continue; from = (r + 1) * C + c; }
            if ((ob->unwritten[o] && ob->unwritten[o][from]) ||
                !dgf_close(ob->want[o][r * C + c], ob->got[o][from]))
                return 0;
        }
    return 1;
}

static const char *const map_text[] = {
    "", "holds the expected matrix transposed (written column by column)",
    "holds the expected rows in reverse order", "holds the expected columns in reverse order",
    "holds the expected rows one place further on (row r is the expected row r-1)",
    "holds the expected rows one place earlier (row r is the expected row r+1)",
};

/* The facts of output o over the failing calls obs[0..n). small: the
 * smallest failing call (for the values shown). */
void dgf_output_facts(struct dgf_text *x, struct dgf_obs *obs, size_t n, size_t o,
                         const struct dgf_obs *small)
{
    size_t diff = 0, total = 0, unwritten = 0, nonfinite = 0, in_w[W_COUNT] = {0};
    size_t out_w[W_COUNT] = {0}; /* entries outside the region: it is a part */
    int maps_all[6] = {0, 1, 1, 1, 1, 1}, any_call = 0, where_said = 0;
    const char *name = small->k.out_name[o] ? small->k.out_name[o] : "output";
    char fname[64], shape[160];

    for (size_t i = 0; i < n; i++) {
        const struct dgf_obs *ob = &obs[i];
        struct dgf_geom g = dgf_geom_of(&ob->k, o);
        size_t d0 = diff;
        if (!ob->differs || !dgf_stu_ok(ob) || !ob->ref_ok || o >= ob->k.n_out)
            continue;
        for (size_t j = 0; j < ob->k.out_len[o]; j++) {
            size_t r = g.cols ? j / g.cols : 0, c = g.cols ? j % g.cols : 0;
            total++;
            for (int w = 0; w < W_COUNT; w++)
                out_w[w] += (size_t)!in_where((enum where)w, &ob->k, &g, r, c);
            if (!dgf_entry_differs(ob, o, j))
                continue;
            diff++;
            unwritten += ob->unwritten[o] && ob->unwritten[o][j];
            nonfinite += !(ob->unwritten[o] && ob->unwritten[o][j]) && !isfinite(ob->got[o][j]);
            for (int w = 0; w < W_COUNT; w++)
                in_w[w] += (size_t)in_where((enum where)w, &ob->k, &g, r, c);
        }
        if (diff == d0)
            continue;
        any_call = 1;
        for (int m = 1; m < 6; m++)
            maps_all[m] &= mapped_equal(ob, o, &g, m);
    }
    if (diff == 0)
        return;
    snprintf(fname, sizeof fname, "`%s`", name);
    dgf_shape_text(&small->k, shape, sizeof shape);
    for (int m = 1; any_call && m < 6; m++)
        if (maps_all[m]) {
            dgf_fact(x, "your %s %s, on every failing call", fname, map_text[m]);
            x->specific = 1;
            return;
        }
    if (unwritten == diff) {
        dgf_fact(x, "your %s differs from the expected only in entries your code never writes "
             "(%zu of %zu entries of the failing calls)", fname, diff, total);
        x->specific = where_said = 1;
    } else if (unwritten > 0) {
        dgf_fact(x, "%zu entries of your %s are never written", unwritten, fname);
        x->specific = 1;
    }
    if (nonfinite > 0)
        dgf_fact(x, "your %s holds NaN or Inf in %zu entries of the failing calls", fname, nonfinite);
    for (int w = 0; w < W_COUNT && (!where_said || unwritten == diff); w++) {
        struct dgf_geom g = dgf_geom_of(&small->k, o);
        double lo = INFINITY, hi = -INFINITY;
        char v[32];
        if (in_w[w] != diff || out_w[w] == 0)
            continue;
        if (unwritten == diff) {
            dgf_fact(x, "the entries of your %s never written are all %s", fname, where_text[w]);
            break;
        }
        for (size_t j = 0; j < small->k.out_len[o]; j++)
            if (dgf_entry_differs(small, o, j) && !(small->unwritten[o] && small->unwritten[o][j])) {
                lo = fmin(lo, small->got[o][j]);
                hi = fmax(hi, small->got[o][j]);
            }
        if (isfinite(lo) && hi - lo <= 1e-6 * fmax(1.0, fabs(hi))) {
            value_text(lo, v, sizeof v);
            dgf_fact(x, "your %s differs from the expected only %s; there they are all %s%s%s "
                 "(%s)", fname, where_text[w], v, fabs(lo * (double)g.cols - 1.0) < 1e-6 ?
                 " = 1/" : "", fabs(lo * (double)g.cols - 1.0) < 1e-6 ? g.col_name : "", shape);
        } else {
            dgf_fact(x, "your %s differs from the expected only %s", fname, where_text[w]);
        }
        x->specific = where_said = 1;
    }
    if (!where_said && unwritten < diff) {
        /* one factor per call: c = got / want on every differing entry of
         * every failing call (3 entries at least: fewer prove nothing) */
        double c = NAN;
        int one = 1;
        char ft[64];
        for (size_t i = 0; one && i < n; i++) {
            double ci = NAN;
            size_t m = 0;
            if (!obs[i].differs || !dgf_stu_ok(&obs[i]) || !obs[i].ref_ok || o >= obs[i].k.n_out)
                continue;
            for (size_t j = 0; one && j < obs[i].k.out_len[o]; j++) {
                double w = obs[i].want[o][j], gv = obs[i].got[o][j];
                if (!dgf_entry_differs(&obs[i], o, j))
                    continue;
                m++;
                if (fabs(w) < 1e-4 || !isfinite(gv) ||
                    (!isnan(ci) && fabs(gv / w - ci) > 1e-3 * fmax(1.0, fabs(ci))))
                    one = 0;
                else if (isnan(ci))
                    ci = gv / w;
            }
            one &= m >= 3 || m == 0;
            if (&obs[i] == small)
                c = ci;
        }
        if (one && !isnan(c) && fabs(c) < 1e-6) {
            dgf_fact(x, "your %s is 0 wherever it differs from the expected (%s)", fname, shape);
            x->specific = where_said = 1;
        } else if (one && !isnan(c)) {
            factor_text(&small->k, c, ft, sizeof ft);
            dgf_fact(x, "on every failing call, each differing entry of your %s is the expected "
                 "times one factor: %.6g%s%s on %s", fname, c, ft[0] ? " = " : "", ft, shape);
            x->specific = where_said = 1;
        }
    }
    if (diff < total && !where_said)
        dgf_fact(x, "%zu of %zu entries of your %s differ from the expected on the failing calls",
             diff, total, fname);
}

/* ---- one function ---------------------------------------------------------- */

static int is_failure(enum grade_test_status st)
{
    return st == TEST_FAILED || st == TEST_CRASHED || st == TEST_TIMED_OUT;
}

static size_t call_size(const struct pc_call *k)
{
    size_t n = 0;

    for (size_t o = 0; o < k->n_out; o++)
        n += k->out_len[o];
    for (size_t i = 0; i < k->n_in; i++)
        n += k->in_len[i];
    return n;
}

/* Remove r's cause of fn (a twin the evidence does not hold up). */
static void drop_cause(struct grade_result *r, const char *fn)
{
    for (size_t i = 0; i < r->n_causes; i++) {
        if (strcmp(r->causes[i].function, fn) != 0)
            continue;
        free(r->causes[i].bug);
        for (size_t t = 0; t < r->n_tests; t++) {
            if (r->tests[t].explained_by == i + 1)
                r->tests[t].explained_by = 0;
            else if (r->tests[t].explained_by > i + 1)
                r->tests[t].explained_by--;
        }
        memmove(&r->causes[i], &r->causes[i + 1], (r->n_causes - i - 1) * sizeof *r->causes);
        r->n_causes--;
        return;
    }
}

static struct grade_cause *cause_of(struct grade_result *r, const char *fn)
{
    for (size_t i = 0; i < r->n_causes; i++)
        if (strcmp(r->causes[i].function, fn) == 0)
            return &r->causes[i];
    return NULL;
}

/* Whether the evidence of the failing calls is too weak to name a twin:
 * no call that returned shows a wrong output (crashes and error codes
 * alone: many mistakes write past an end), or every differing entry is in
 * a row whose keys are all hidden or was never written (where many
 * mistakes write alike). */
static int weak_evidence(const struct dgf_obs *obs, size_t n)
{
    size_t calls = 0, diff = 0, amb = 0;

    for (size_t i = 0; i < n; i++) {
        const struct dgf_obs *ob = &obs[i];
        calls += (size_t)ob->differs;
        if (!ob->differs || !dgf_stu_ok(ob))
            continue;
        for (size_t o = 0; o < ob->k.n_out; o++) {
            struct dgf_geom g = dgf_geom_of(&ob->k, o);
            for (size_t j = 0; j < ob->k.out_len[o]; j++) {
                if (!dgf_entry_differs(ob, o, j))
                    continue;
                diff++;
                amb += (ob->unwritten[o] && ob->unwritten[o][j]) ||
                       (g.cols && row_all_hidden(&ob->k, &g, j / g.cols));
            }
        }
    }
    return calls > 0 && (diff == 0 || amb == diff);
}

/* When every failing test is an invalid-argument test: which ones (their
 * messages say what was returned or written). */
static void einval_fact(const struct grade_result *r, const size_t *fail, size_t n,
                        struct dgf_text *x)
{
    char ids[512];
    size_t used = 0;

    for (size_t j = 0; j < n; j++) {
        const struct spec_test *t = r->tests[fail[j]].test;
        if (!t->property || strncmp(t->property, "einval", 6) != 0)
            return;
        if (used < sizeof ids)
            used += (size_t)snprintf(ids + used, sizeof ids - used, "%s%s", j ? ", " : "", t->id);
    }
    if (n > 0) {
        dgf_fact(x, "the failures are all in the invalid-argument tests (%s)", ids);
        x->specific = 1;
    }
}

static int diagnose_fn(struct dgf_run *u, struct grade_result *r, enum asg_fn fn,
                       struct err *e)
{
    struct dgf_obs *obs = calloc(DGF_MAX_CALLS, sizeof *obs);
    size_t *fail = calloc(r->n_tests + 1, sizeof *fail), n = 0, n_fail = 0, fits = 0, small = 0;
    size_t n_diff = 0;
    const struct dgf_family *fit = NULL;
    struct dgf_text *x = calloc(1, sizeof *x);
    struct grade_cause *twin;
    int rc = 0, cut = 0;

    if (obs == NULL || fail == NULL || x == NULL) {
        rc = err_set(e, NULL, 0, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *tr = &r->tests[i];
        enum asg_fn tf;
        if (!is_failure(tr->status) || pc_fn(tr->test, &tf) < 0 || tf != fn)
            continue;
        fail[n_fail++] = i;
        if (tr->status == TEST_TIMED_OUT || (tr->test->property &&
                                             strncmp(tr->test->property, "einval", 6) == 0))
            continue;
        for (size_t c = 0; c < tr->test->n_cases && n < DGF_MAX_CALLS && !cut; c++) {
            struct err ignored;
            struct dgf_obs *ob = &obs[n];
            if (pc_build(fn, &u->env, tr->test, &tr->test->cases[c], &ob->k, &ignored) < 0)
                continue;
            ob->t = tr->test;
            ob->c = c;
            n++;
            if ((rc = dgf_observe(u, ob, e)) < 0)
                goto out;
            cut = rc == 1;
            rc = 0;
        }
    }
    if (n_fail == 0 || cut)
        goto out;
    einval_fact(r, fail, n_fail, x);
    for (size_t i = 0; i < n; i++)
        if (obs[i].differs) {
            if (n_diff++ == 0 || call_size(&obs[i].k) < call_size(&obs[small].k))
                small = i;
        }
    if (n_diff == 0 && n > 0) {
        dgf_fact(x, "your outputs equal the expected on every standard call of the failing tests: "
             "the failures show only on the inputs those tests make of their own");
        if ((rc = dgf_scale_probe(u, fn, n ? &obs[0] : NULL, x, e)) < 0 ||
            (rc = dgf_null_probe(u, n ? &obs[0] : NULL, x, e)) < 0)
            goto out;
    } else if (n_diff > 0) {
        const struct dgf_obs *s0 = &obs[small];
        char shape[160];
        dgf_shape_text(&s0->k, shape, sizeof shape);
        if (!dgf_stu_ok(s0))
            dgf_fact(x, "your function %s on the smallest failing call (%s)",
                 s0->sr.status == CALL_RETURNED ? "returns an error code" :
                 s0->sr.status == CALL_CRASHED ? "crashes" : "does not return", shape);
        for (size_t o = 0; o < s0->k.n_out; o++)
            dgf_output_facts(x, obs, n, o, s0);
        if ((rc = dgf_probe_facts(u, fn, s0, x, e)) < 0)
            goto out;
        if ((rc = dgf_families_fit(u, fn, obs, n, &fit, &fits, e)) < 0)
            goto out;
    }
    /* a twin stays only on evidence as strong as a family's, or when the
     * one family that fits is the same mistake (its lead, the catalogue's
     * "names:", is kept with it) */
    twin = cause_of(r, asg_fn_name(fn));
    if (twin && !twin->callee && !twin->confirmed &&
        !(fits == 1 && twin->bug && strcmp(fit->bug, twin->bug) == 0) &&
        (!twin->strong || fits > 1 || weak_evidence(obs, n)))
        drop_cause(r, asg_fn_name(fn));
    twin = cause_of(r, asg_fn_name(fn));
    if (twin == NULL && fits == 1 && dgf_family_cause(r, fn, fit, fail, n_fail, e) == NULL)
        rc = -1;
    if (rc == 0 && x->len > 0 && (r->facts[fn] = strdup(x->buf)) == NULL)
        rc = err_set(e, NULL, 0, 0, "out of memory");
out:
    for (size_t i = 0; obs && i < n; i++)
        dgf_obs_release(&obs[i]);
    free(obs);
    free(fail);
    free(x);
    return rc;
}

int dgf_diagnose(const struct spec_set *s, struct impl student, const struct impl *reference,
                 const struct grun_hooks *h, const struct grade_opts *o, struct dg_budget *b,
                 struct grade_result *r, struct err *e)
{
    struct dgf_run u;
    struct dg_budget left;

    (void)s;
    if (reference == NULL || r->diag == GRADE_DIAG_CUT)
        return 0;
    left = *b;
    left.left_ms = b->left_ms - r->diag_ms;
    memset(&u, 0, sizeof u);
    u.env.student = student;
    u.env.reference = reference;
    u.env.seed = o->seed;
    u.env.timeout_ms = DGF_DEADLINE_MS;
    u.env.orc = o->orc;
    u.ref = reference;
    u.h = h;
    u.b = &left;
    for (int fn = 0; fn < ASG_FN_COUNT; fn++) {
        int any = 0;
        const struct grade_cause *c = cause_of(r, asg_fn_name((enum asg_fn)fn));
        for (size_t i = 0; i < r->n_tests && !any; i++) {
            enum asg_fn tf;
            any = is_failure(r->tests[i].status) && pc_fn(r->tests[i].test, &tf) == 0 &&
                  (int)tf == fn;
        }
        if (!any || (c && c->callee))
            continue;
        if (h && h->reset)
            h->reset(h->self);
        u.probes = 0;
        if (diagnose_fn(&u, r, (enum asg_fn)fn, e) < 0)
            return -1;
    }
    r->diag_ms += u.spent;
    return 0;
}
