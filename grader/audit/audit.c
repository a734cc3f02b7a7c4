/* audit.c -- grade every mutant of a source, classify it (audit.h). Each
 * mutant is graded in a forked worker, as `grader batch` grades a
 * submission: a worker's trouble stays its own, and its CPU time (the
 * compiler's and the runner's included) is counted in the parent's
 * children's usage. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit/audit.h"
#include "assign/assign.h"
#include "core/util.h"
#include "grade/grade.h"

#define AUD_PATH_MAX 4096

struct aud_run {
    const struct aud_opts *o;
    const char *src;
    size_t len;
    char dir[AUD_PATH_MAX];      /* private scratch directory */
};

static double cpu_ms_now(void)
{
    struct rusage a, b;

    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec +
                    b.ru_stime.tv_sec) * 1e3 +
           (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
                    b.ru_stime.tv_usec) / 1e3;
}

static int write_file(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(s, 1, n, f) == n;

    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static char *read_file(const char *path, size_t *len, struct err *e)
{
    struct sb sb;
    enum sb_read r;

    sb_init(&sb, 1u << 20);
    if ((r = sb_read_file(&sb, path, 0)) == SB_READ_OPEN || r == SB_READ_IO) {
        sb_release(&sb);
        err_set(e, path, 0, 0, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (sb.truncated) {
        sb_release(&sb);
        err_set(e, path, 0, 0, "'%s' is too large (or out of memory)", path);
        return NULL;
    }
    {
        char *p = sb_detach(&sb, len);
        if (p == NULL)
            err_set(e, NULL, 0, 0, "out of memory");
        return p;
    }
}

/*
 * For a mutant graded through every test: the one case that kills it, when
 * exactly one case of one test fails (m->alone), or m->unsure when a
 * failing test did not run all its cases (a timeout stops the rest).
 */
static void sole_case(const struct grade_result *g, struct aud_mutant *m)
{
    size_t fails = 0, at = 0;

    for (size_t i = 0; i < g->n_tests; i++) {
        const struct grade_test *t = &g->tests[i];
        if (t->status == TEST_PASSED || t->status == TEST_MANUAL_PENDING)
            continue;
        if (t->cases_run < t->test->n_cases || t->cases_passed >= t->cases_run) {
            m->unsure = 1;
            return;
        }
        fails += t->cases_run - t->cases_passed;
        at = t->failed_case;
    }
    m->alone = fails == 1 ? (int)at + 1 : 0;
}

/* Grade `path` (stopping at the first failure when `stop`) into m (killed
 * or survived or invalid); -1 on a grader error (e set). */
static int grade_one(const struct aud_run *R, const char *path, struct aud_mutant *m,
                     int stop, struct err *e)
{
    struct grade_opts go;
    struct grade_result *g = NULL;

    memset(&go, 0, sizeof go);
    go.specs = R->o->specs;
    go.seed = R->o->seed;
    go.data_dir = R->o->data_dir;
    go.scratch_dir = R->dir;
    go.orc = R->o->orc;
    go.lanes = 1;
    go.stop_at_failure = stop;
    if (grade_submission(path, &go, &g, e) < 0)
        return -1;
    m->cls = AUD_SURVIVED;
    if (g->status == GRADE_COMPILE_ERROR || g->status == GRADE_REJECTED) {
        m->cls = AUD_INVALID;
        snprintf(m->detail, sizeof m->detail, "%s: %.200s", grade_status_name(g->status),
                 g->status_detail ? g->status_detail : "");
        /* the compiler's first line names the function only: keep two */
        if (strchr(m->detail, '\n') && strstr(m->detail, ": In function "))
            *strchr(m->detail, '\n') = ' ';
        m->detail[strcspn(m->detail, "\n")] = '\0';
    }
    for (size_t i = 0; m->cls == AUD_SURVIVED && i < g->n_tests; i++) {
        const struct grade_test *t = &g->tests[i];
        if (t->status == TEST_PASSED || t->status == TEST_MANUAL_PENDING)
            continue;
        m->cls = AUD_KILLED;
        snprintf(m->test, sizeof m->test, "%s", t->test->id);
        snprintf(m->status, sizeof m->status, "%s", grade_test_status_name(t->status));
    }
    if (m->cls == AUD_SURVIVED && g->status != GRADE_OK)
        snprintf(m->detail, sizeof m->detail, "%s", grade_status_name(g->status));
    if (m->cls == AUD_KILLED && !stop)
        sole_case(g, m);
    grade_result_free(g);
    return 0;
}

/* Worker: mutant k graded into *m; exit status 0 or 3 (grader error). */
static int audit_mutant(const struct aud_run *R, size_t k, struct aud_mutant *m)
{
    char dir[AUD_PATH_MAX], path[AUD_PATH_MAX];
    struct err e;
    size_t n;
    char *text = mut_apply(&m->m, R->src, R->len, &n);
    int rc = -1;

    err_clear(&e);
    if (text && snprintf(dir, sizeof dir, "%s/m%zu", R->dir, k) < (int)sizeof dir - 16 &&
        snprintf(path, sizeof path, "%s/" ASG_SOURCE, dir) < (int)sizeof path &&
        mkdir(dir, 0700) == 0 && write_file(path, text, n) == 0)
        rc = grade_one(R, path, m, !R->o->matrix, &e);
    /* a toolchain stopped by its deadline or a signal is the machine's
     * trouble (a loaded machine), not the mutant's: try again */
    for (int again = 0; rc == 0 && again < 3 && m->cls == AUD_INVALID &&
                        (strstr(m->detail, " took longer than ") ||
                         strstr(m->detail, " was killed by signal "));
         again++)
        rc = grade_one(R, path, m, !R->o->matrix, &e);
    if (rc == 0 && m->cls == AUD_SURVIVED) {
        int eq = aud_equivalent(path, R->o->source, R->o->data_dir, R->o->specs,
                                R->o->equiv_trials ? R->o->equiv_trials : 40,
                                R->o->seed ^ (0x9e3779b97f4a7c15ull * (k + 1)), m->detail,
                                sizeof m->detail, &e);
        if (eq < 0)
            rc = -1;
        else if (eq > 0) {
            m->cls = AUD_EQUIVALENT;
            m->rounding = eq == 2;
            m->detail[0] = '\0';
        }
    }
    if (rc < 0)
        snprintf(m->detail, sizeof m->detail, "grader error: %.200s", e.msg);
    free(text);
    unlink(path);
    rmdir(dir);
    return rc;
}

struct worker {
    pid_t pid;
    int fd;
    size_t idx;
};

static int start(const struct aud_run *R, struct aud_mutant *all, size_t k, struct worker *w)
{
    int p[2];

    if (pipe(p) != 0)
        return -1;
    w->pid = fork();
    if (w->pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (w->pid == 0) {
        int rc;
        close(p[0]);
        /* the parent's process group: ^C in a terminal ends every worker */
        rc = audit_mutant(R, k, &all[k]);
        _exit(write(p[1], &all[k], sizeof all[k]) == (ssize_t)sizeof all[k] && rc == 0 ? 0 : 3);
    }
    close(p[1]);
    w->fd = p[0];
    w->idx = k;
    return 0;
}

/* Read worker w's result into all[w->idx]; -1 when it died without one
 * or reported a grader error (e set). */
static int finish(struct worker *w, int status, struct aud_mutant *all, struct err *e)
{
    struct aud_mutant m;
    ssize_t got = read(w->fd, &m, sizeof m);

    close(w->fd);
    w->pid = 0;
    if (got == (ssize_t)sizeof m)
        all[w->idx] = m;
    if (got != (ssize_t)sizeof m || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return err_set(e, NULL, all[w->idx].m.line, 0, "mutant at line %d: %s",
                       all[w->idx].m.line,
                       got == (ssize_t)sizeof m ? m.detail : "the worker died");
    return 0;
}


/* Every wanted mutant through a pool of o->jobs workers. */
static int run_pool(const struct aud_run *R, struct aud_mutant *all, size_t n, struct err *e)
{
    struct worker w[64];
    size_t jobs = R->o->jobs < 1 ? 1 : R->o->jobs > 64 ? 64 : R->o->jobs, next = 0, busy = 0;
    size_t done = 0;
    int rc = 0;

    memset(w, 0, sizeof w);
    while (next < n || busy > 0) {
        int status;
        pid_t pid;
        while (rc == 0 && busy < jobs && next < n) {
            size_t s = 0;
            while (w[s].pid != 0)
                s++;
            if (start(R, all, next, &w[s]) < 0) {
                rc = err_set(e, NULL, 0, 0, "cannot start a worker: %s", strerror(errno));
                break;
            }
            next++, busy++;
        }
        if (busy == 0)
            break;
        if ((pid = waitpid(-1, &status, 0)) < 0)
            return err_set(e, NULL, 0, 0, "waitpid: %s", strerror(errno));
        for (size_t s = 0; s < jobs; s++)
            if (w[s].pid == pid) {
                busy--;
                if (finish(&w[s], status, all, e) < 0 && rc == 0)
                    rc = -1, next = n; /* stop starting; let the others end */
                else if (R->o->progress)
                    R->o->progress(R->o->progress_ctx, ++done, n, &all[w[s].idx]);
            }
    }
    return rc;
}

/* The original must pass every test: else a failure would prove nothing. */
static int check_original(const struct aud_run *R, struct err *e)
{
    struct aud_mutant m;

    memset(&m, 0, sizeof m);
    if (grade_one(R, R->o->source, &m, 1, e) < 0)
        return -1;
    if (m.cls == AUD_INVALID)
        return err_set(e, R->o->source, 0, 0, "'%s' does not build: %s", R->o->source, m.detail);
    if (m.cls == AUD_KILLED)
        return err_set(e, R->o->source, 0, 0, "'%s' fails its own spec (%s %s): an audit needs "
                       "a source that passes every test", R->o->source, m.test, m.status);
    return 0;
}

/* --matrix: every case of the specs, and the mutants only it kills. */
static int case_table(struct aud_result *r, const struct spec_set *s, struct err *e)
{
    size_t n = 0, at = 0;

    for (size_t i = 0; i < spec_test_count(s); i++)
        n += spec_test_at(s, i)->n_cases;
    if ((r->cases = calloc(n ? n : 1, sizeof *r->cases)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    r->n_cases = n;
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        for (size_t k = 0; k < t->n_cases; k++, at++) {
            struct aud_case *c = &r->cases[at];
            snprintf(c->test, sizeof c->test, "%s", t->id);
            snprintf(c->file, sizeof c->file, "%s", t->file ? t->file : "");
            c->line = t->cases[k].line;
            c->k = k;
            c->n_cases = t->n_cases;
            for (size_t j = 0; j < r->n; j++)
                c->alone += r->mut[j].cls == AUD_KILLED && r->mut[j].alone == (int)k + 1 &&
                            strcmp(r->mut[j].test, t->id) == 0;
        }
    }
    return 0;
}

static void count(struct aud_result *r, const struct aud_opts *o)
{
    (void)o;
    for (size_t i = 0; i < r->n; i++) {
        r->unsure += r->mut[i].cls == AUD_KILLED && r->mut[i].unsure;
        r->killed += r->mut[i].cls == AUD_KILLED;
        r->survived += r->mut[i].cls == AUD_SURVIVED;
        r->equivalent += r->mut[i].cls == AUD_EQUIVALENT;
        r->invalid += r->mut[i].cls == AUD_INVALID;
        r->unlisted += r->mut[i].cls == AUD_EQUIVALENT && !r->mut[i].listed;
    }
}

/* The functions of R->src defined word for word as in o->same_as: their
 * mutants are that source's, audited when it was. */
static int same_functions(const struct aud_run *R, struct aud_result *r, struct err *e)
{
    size_t len;
    char *other;
    int rc;

    if (R->o->same_as == NULL)
        return 0;
    if ((other = read_file(R->o->same_as, &len, e)) == NULL)
        return -1;
    snprintf(r->same_as, sizeof r->same_as, "%s", R->o->same_as);
    rc = mut_same_functions(R->src, R->len, other, len, r->same, AUD_SAME_MAX, &r->n_same, e);
    free(other);
    return rc;
}

static int left_to_same(const struct aud_result *r, const char *function)
{
    for (size_t i = 0; i < r->n_same; i++)
        if (strcmp(r->same[i], function) == 0)
            return 1;
    return 0;
}

static int prepare(struct aud_run *R, struct aud_result *r, struct err *e)
{
    struct mut_mutant *mm = NULL;
    size_t k = 0, left = 0;
    const char *tmp = getenv("TMPDIR");

    snprintf(R->dir, sizeof R->dir, "%s/grader-audit-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (mkdtemp(R->dir) == NULL)
        return err_set(e, NULL, 0, 0, "cannot make a scratch directory: %s", strerror(errno));
    if (same_functions(R, r, e) < 0 || mut_generate(R->o->ops, R->src, R->len, &mm, &r->n, e) < 0)
        return -1;
    r->mut = calloc(r->n ? r->n : 1, sizeof *r->mut);
    if (r->mut == NULL) {
        free(mm);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < r->n; i++) {
        if (R->o->function && strcmp(mm[i].function, R->o->function) != 0)
            continue;
        if (left_to_same(r, mm[i].function)) {
            left++;
            continue;
        }
        r->mut[k].m = mm[i];
        mut_diff(&mm[i], R->src, R->len, r->mut[k].before, r->mut[k].after, AUD_LINE_MAX);
        k++;
    }
    free(mm);
    r->n = k;
    if (k == 0 && left == 0) /* (every mutant left to same_as: nothing to do) */
        return err_set(e, NULL, 0, 0, "no mutant%s%s%s", R->o->function ? " in '" : "",
                       R->o->function ? R->o->function : "", R->o->function ? "'" : "");
    return 0;
}

int aud_run(const struct aud_opts *o, struct aud_result **out, struct err *e)
{
    struct aud_run R;
    struct aud_result *r = calloc(1, sizeof *r);
    double t0 = ut_now_ms(), c0 = cpu_ms_now();
    int rc;

    memset(&R, 0, sizeof R);
    R.o = o;
    *out = NULL;
    if (r == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    snprintf(r->source, sizeof r->source, "%s", o->source_name ? o->source_name : o->source);
    snprintf(r->spec_sha256, sizeof r->spec_sha256, "%s", spec_sha256(o->specs));
    if ((R.src = read_file(o->source, &R.len, e)) == NULL) {
        free(r);
        return -1;
    }
    rc = prepare(&R, r, e);
    if (rc == 0)
        rc = check_original(&R, e);
    if (rc == 0)
        rc = run_pool(&R, r->mut, r->n, e);
    if (rc == 0 && o->equivalents)
        rc = aud_apply_kept(o->equivalents, r->source, r->mut, r->n, e);
    if (rc == 0 && o->matrix)
        rc = case_table(r, o->specs, e);
    rmdir(R.dir);
    free((char *)R.src);
    if (rc < 0) {
        aud_result_free(r);
        return -1;
    }
    count(r, o);
    r->wall_ms = ut_now_ms() - t0;
    r->cpu_ms = cpu_ms_now() - c0;
    *out = r;
    return 0;
}

void aud_result_free(struct aud_result *r)
{
    if (r == NULL)
        return;
    free(r->mut);
    free(r->cases);
    free(r);
}
