/*
 * batch_run.c -- see batch.h: the worker pool (bat_run) and bat_merge.
 *
 * Each submission is graded in a forked worker, in its own process group
 * and scratch directory, so that a crash or a hang of the grader on one
 * submission costs that submission only. The worker writes its files
 * atomically, row.tsv last; the parent trusts nothing else: a worker that
 * exits without a readable row becomes an "error" row.
 */
#include "assign/assign.h"
#include "batch/batch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grade/grade.h"
#include "grade/grade_keep.h"
#include "report/report.h"
#include "core/compat.h"
#include "core/scratch.h"
#include "core/sha256.h"
#include "core/util.h"

#define DEFAULT_WORKER_MS 180000.0
#define POLL_NS 10000000L  /* 10 ms between polls of the workers */
#define MAX_JOBS 256
#define WORKER_REUSED 4   /* a worker's exit bits: graded, with its kept object, */
#define WORKER_KEPT 8     /* and with its kept verdicts */

struct slot {
    pid_t pid;          /* 0: free */
    size_t idx;         /* entry being graded */
    double t0;
    int timed_out;
};

struct run {
    const struct bat_list *l;
    const struct bat_opts *o;
    char scratch[BAT_PATH_MAX];
    char (*sha)[SHA256_HEX_LEN];  /* per entry: its source's hash */
    char (*key)[SHA256_HEX_LEN];  /* per entry: bat_inputs_key */
    struct slot slots[MAX_JOBS];
    char cache_env[SHA256_HEX_LEN]; /* the object cache's key part; "" off */
    char keep_env[SHA256_HEX_LEN];  /* the kept verdicts' (gk_env); "" off */
    unsigned jobs, running;
    size_t done, failures;
};

static void id_dir(const struct run *r, size_t i, char *buf, size_t n)
{
    bat_path_join(r->o->out_dir, r->l->v[i].id, buf, n);
}

static int make_dir(const char *path, struct err *e)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    return err_set(e, NULL, 0, 0, "cannot create '%s': %s", path, strerror(errno));
}

/* mkdir -p: the output directory and its missing parents. */
static int make_dirs(const char *path, struct err *e)
{
    char buf[BAT_PATH_MAX];
    size_t n = strlen(path);

    if (n >= sizeof buf)
        return err_set(e, NULL, 0, 0, "path '%.64s...' is too long", path);
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return err_set(e, NULL, 0, 0, "cannot create '%s': %s", buf, strerror(errno));
        *p = '/';
    }
    return make_dir(buf, e);
}


static void emit(struct run *r, const char *id, const char *status, double score,
                 double max, double ms, int skipped, const char *why, int kept)
{
    struct bat_event ev = {id, status, score, max, ms, skipped,
                           ++r->done, r->l->n, 0, why, (kept & WORKER_REUSED) != 0,
                           (kept & WORKER_KEPT) != 0};

    r->failures += !skipped && strcmp(status, "ok") != 0;
    ev.failures = r->failures;
    if (r->o->on_event != NULL)
        r->o->on_event(r->o->ctx, &ev);
}

/* ---- the worker (child side) ---- */

static int write_report(const char *dir, const char *name, const struct grade_result *g,
                        enum rpt_format f, const struct rpt_opts *ro, struct err *e)
{
    char path[BAT_PATH_MAX + 32];
    struct sb sb;
    int rc;

    sb_init(&sb, 0);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    rc = rpt_write(g, f, ro, &sb, e);
    if (rc == 0)
        rc = bat_write_atomic(path, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    return rc;
}

/* Write entry i's row, with the entry's name (shown safe: a row file is
 * read by people and tools too) and its resume key. */
static int write_row(const struct run *r, size_t i, const char *dir, struct bat_row *row,
                     struct err *e)
{
    char path[BAT_PATH_MAX + 32];
    struct sb sb;
    int rc;
    char shown[BAT_PATH_MAX];

    bat_show(r->l->v[i].name, shown, sizeof shown);
    free(row->name);
    if ((row->name = strdup(shown)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    snprintf(row->inputs_sha256, sizeof row->inputs_sha256, "%s", r->key[i]);
    sb_init(&sb, 0);
    snprintf(path, sizeof path, "%s/%s", dir, BAT_ROW_NAME);
    rc = bat_row_format(row, &sb) < 0 ? err_set(e, NULL, 0, 0, "row too large") : 0;
    if (rc == 0)
        rc = bat_write_atomic(path, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    return rc;
}

static void clear_outputs(const char *dir)
{
    static const char *const names[] = {BAT_ROW_NAME, "results.json", "feedback.md",
                                        "staff.md"};
    char path[BAT_PATH_MAX + 32];

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    bat_remove_temps(dir);
}

/* Record a submission the grader could not grade (no student files). */
static int write_error_row(const struct run *r, size_t i, const char *why,
                           struct err *e)
{
    const struct bat_opts *o = r->o;
    char dir[BAT_PATH_MAX];
    struct bat_row row;
    int rc;

    id_dir(r, i, dir, sizeof dir);
    clear_outputs(dir);
    if (bat_row_error(r->l->v[i].id, r->sha[i], spec_sha256(o->specs), o->specs,
                      o->version, o->seed, why, &row, e) < 0)
        return -1;
    rc = write_row(r, i, dir, &row, e);
    bat_row_release(&row);
    return rc;
}

/* What the student receives names their submission by its id, never by
 * the TA's path to the class. Returns 0, or -1 when out of memory. */
static int student_view(struct grade_result *g, const char *id, struct err *e)
{
    char *name = strdup(id);

    if (name == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    free(g->submission);
    g->submission = name;
    return 0;
}

/* Grade entry i into dir; *kept says what was kept from an earlier grade
 * (WORKER_REUSED: its object spared the compile; WORKER_KEPT: its
 * verdicts spared the tests). */
static int grade_into(const struct run *r, size_t i, const char *dir, int *kept,
                      struct err *e)
{
    /* The repro lines go to the student (feedback.md): the default
     * "make check ONLY=..." of their repository, never the TA's paths. */
    struct grade_opts go = {r->o->specs, NULL, r->o->seed, r->o->data_dir,
                            r->scratch, r->o->budget_ms, NULL, NULL, r->o->orc,
                            r->o->test_jobs ? r->o->test_jobs : r->jobs > 1 ? 1 : 0,
                            NULL, NULL, NULL, 0,
                            r->cache_env[0] ? dir : NULL, r->cache_env, NULL, NULL,
                            r->keep_env[0] ? r->keep_env : NULL, r->key[i]};
    /* feedback.md is the student's: no hidden test shows but as a count
     * and its points. staff.md is the TA's: every test, every detail. */
    static const struct rpt_opts student = {.student_view = 1};
    struct grade_result *g = NULL;
    struct err ge;
    struct bat_row row;
    int rc;

    err_clear(&ge);
    if (grade_submission(r->l->v[i].path, &go, &g, &ge) < 0)
        return write_error_row(r, i, ge.msg, e);
    *kept = (g->object_reused ? WORKER_REUSED : 0) | (g->verdicts_reused ? WORKER_KEPT : 0);
    rc = student_view(g, r->l->v[i].id, e);
    if (rc == 0)
        rc = write_report(dir, "results.json", g, RPT_GRADESCOPE, NULL, e);
    if (rc == 0)
        rc = write_report(dir, "feedback.md", g, RPT_MARKDOWN, &student, e);
    if (rc == 0)
        rc = write_report(dir, "staff.md", g, RPT_MARKDOWN, NULL, e);
    if (rc == 0 && (rc = bat_row_from_result(g, r->l->v[i].id, r->o->version, &row, e)) == 0) {
        rc = write_row(r, i, dir, &row, e);
        bat_row_release(&row);
    }
    grade_result_free(g);
    return rc;
}

static void worker(const struct run *r, size_t i, pid_t batch)
{
    char dir[BAT_PATH_MAX];
    int kept = 0;

    setpgid(0, 0);
    /* a killed batch takes its workers (and so their tools) with it */
    if (cpt_parent_death_signal(SIGKILL) < 0 || getppid() != batch)
        _exit(3);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    id_dir(r, i, dir, sizeof dir);
    clear_outputs(dir);
    _exit(grade_into(r, i, dir, &kept, NULL) != 0 ? 3 : kept);
}

/* ---- the pool (parent side) ---- */

static int launch(struct run *r, struct slot *s, size_t i, struct err *e)
{
    char dir[BAT_PATH_MAX];
    pid_t pid, me = getpid();

    id_dir(r, i, dir, sizeof dir);
    if (make_dir(dir, e) < 0)
        return -1;
    if ((pid = fork()) < 0)
        return err_set(e, NULL, 0, 0, "cannot start a worker: %s", strerror(errno));
    if (pid == 0)
        worker(r, i, me);
    setpgid(pid, pid); /* also here: no window in which the group is missing */
    *s = (struct slot){pid, i, ut_now_ms(), 0};
    r->running++;
    return 0;
}

static void describe_exit(int status, int timed_out, double limit, char *why, size_t n)
{
    if (timed_out)
        snprintf(why, n, "the grader's worker ran longer than %.0f s and was killed",
                 limit / 1e3);
    else if (WIFSIGNALED(status))
        snprintf(why, n, "the grader's worker died of signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(why, n, "the grader's worker exited with status %d without a result",
                 WEXITSTATUS(status));
}

/* A worker ended: read its row, or record an error row in its place. */
static int collect(struct run *r, struct slot *s, int status, struct err *e)
{
    char dir[BAT_PATH_MAX], why[256];
    double ms = ut_now_ms() - s->t0;
    struct bat_row row;
    size_t i = s->idx;

    r->running--;
    s->pid = 0;
    id_dir(r, i, dir, sizeof dir);
    bat_remove_temps(dir);
    if (!s->timed_out && WIFEXITED(status) &&
        (WEXITSTATUS(status) & ~(WORKER_REUSED | WORKER_KEPT)) == 0 &&
        bat_row_load(dir, &row, NULL) == 0) {
        if (bat_manual_row(r->o->out_dir, &row) < 0) {  /* as grades.csv will say */
            bat_row_release(&row);
            return err_set(e, NULL, 0, 0, "out of memory");
        }
        emit(r, row.id, row.status, row.score, row.max_score, ms, 0,
             strcmp(row.status, "error") == 0 ? row.detail : NULL, WEXITSTATUS(status));
        bat_row_release(&row);
        return 0;
    }
    describe_exit(status, s->timed_out, r->o->worker_timeout_ms > 0
                  ? r->o->worker_timeout_ms : DEFAULT_WORKER_MS, why, sizeof why);
    if (write_error_row(r, i, why, e) < 0)
        return -1;
    emit(r, r->l->v[i].id, "error", 0, 0, ms, 0, why, 0);
    return 0;
}

/* Reap finished workers and kill overrunning ones. Returns how many were
 * reaped, or -1 on error. */
static int poll_slots(struct run *r, struct err *e)
{
    double limit = r->o->worker_timeout_ms > 0 ? r->o->worker_timeout_ms : DEFAULT_WORKER_MS;
    int reaped = 0, status;

    for (unsigned j = 0; j < r->jobs; j++) {
        struct slot *s = &r->slots[j];

        if (s->pid == 0)
            continue;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            if (collect(r, s, status, e) < 0)
                return -1;
            reaped++;
        } else if (!s->timed_out && ut_now_ms() - s->t0 > limit) {
            s->timed_out = 1;
            killpg(s->pid, SIGKILL);
        }
    }
    return reaped;
}

/* Interrupted: kill every worker's group, reap it, drop its temp files. */
static void kill_all(struct run *r)
{
    char dir[BAT_PATH_MAX];

    for (unsigned j = 0; j < r->jobs; j++) {
        struct slot *s = &r->slots[j];

        if (s->pid == 0)
            continue;
        killpg(s->pid, SIGKILL);
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        id_dir(r, s->idx, dir, sizeof dir);
        bat_remove_temps(dir);
        s->pid = 0;
        r->running--;
    }
}

static int stopped(const struct run *r)
{
    return r->o->stop != NULL && *r->o->stop;
}

static int pump(struct run *r, const unsigned char *todo, struct err *e)
{
    const struct timespec pause = {0, POLL_NS};
    size_t next = 0;
    int k;

    while (!stopped(r)) {
        while (next < r->l->n && !todo[next])
            next++;
        for (unsigned j = 0; j < r->jobs && next < r->l->n && r->running < r->jobs; j++)
            if (r->slots[j].pid == 0) {
                if (launch(r, &r->slots[j], next, e) < 0)
                    return -1;
                while (++next < r->l->n && !todo[next])
                    ;
            }
        if (r->running == 0 && next >= r->l->n)
            return 0;
        if ((k = poll_slots(r, e)) < 0)
            return -1;
        if (k == 0)
            nanosleep(&pause, NULL);
    }
    return 1;
}

/* ---- resumption ---- */

static int up_to_date(const struct run *r, size_t i, struct bat_row *row)
{
    char dir[BAT_PATH_MAX], json[BAT_PATH_MAX + 16];

    id_dir(r, i, dir, sizeof dir);
    bat_remove_temps(dir);
    snprintf(json, sizeof json, "%s/results.json", dir);
    if (r->o->force || access(json, R_OK) != 0 || bat_row_load(dir, row, NULL) < 0)
        return 0;
    if (strcmp(row->status, "error") != 0 && strcmp(row->id, r->l->v[i].id) == 0 &&
        strcmp(row->inputs_sha256, r->key[i]) == 0 &&
        strcmp(row->spec_sha256, spec_sha256(r->o->specs)) == 0 &&
        strcmp(row->grader_version, r->o->version) == 0 && row->seed == r->o->seed)
        return 1;
    bat_row_release(row);
    return 0;
}

/* feedback.md of a folder without attention.c: what the student must do
 * (the .c files found instead, as the Gradescope bundle says them). */
static int missing_feedback(const char *dir, const struct bat_entry *v,
                            const struct bat_row *row, struct err *e)
{
    const char *found = v->why ? strstr(v->why, BAT_FOUND_INSTEAD) : NULL;
    char path[BAT_PATH_MAX + 16];
    struct sb sb;
    int rc;

    sb_init(&sb, 1u << 16);
    rc = sb_addf(&sb, "# Grading report\n\n**Score: 0 / %g** (no test ran)\n\n"
                      "No file named " ASG_SOURCE " in your submission, so no test ran; "
                      "score 0.\n", row->max_score);
    if (found != NULL) {
        size_t len;

        found += strlen(BAT_FOUND_INSTEAD);
        for (len = strcspn(found, "("); len > 0 && found[len - 1] == ' '; len--)
            ;
        rc |= sb_addf(&sb, "\nFound instead: %.*s. Rename your file to " ASG_SOURCE " (lower "
                           "case) and submit it again.\n", (int)len, found);
    }
    else
        rc |= sb_adds(&sb, "\nSubmit " ASG_SOURCE " (and answers.yaml).\n");
    bat_path_join(dir, "feedback.md", path, sizeof path);
    rc = rc < 0 ? err_set(e, NULL, 0, 0, "out of memory")
                : bat_write_atomic(path, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    return rc;
}

/* The row of an entry that is not graded (bat_entry.absent): its status,
 * its reason, zero points, and no student files (any earlier ones go). */
static int write_absent_row(const struct run *r, size_t i, struct err *e)
{
    const struct bat_entry *v = &r->l->v[i];
    const struct bat_opts *o = r->o;
    char dir[BAT_PATH_MAX];
    struct bat_row row;
    int rc;

    id_dir(r, i, dir, sizeof dir);
    if (make_dir(dir, e) < 0)
        return -1;
    clear_outputs(dir);
    if (bat_row_error(v->id, "", spec_sha256(o->specs), o->specs, o->version, o->seed,
                      v->why ? v->why : v->absent, &row, e) < 0)
        return -1;
    snprintf(row.status, sizeof row.status, "%s", v->absent);
    for (size_t k = 0; k < row.n_tests; k++)
        if (strcmp(row.tests[k].status, "not_run") == 0)
            snprintf(row.tests[k].message, strlen(row.tests[k].message) + 1, "not run");
    if (strcmp(v->absent, "missing") == 0)
        rc = missing_feedback(dir, v, &row, e);
    else
        rc = 0;
    rc = rc < 0 ? -1 : write_row(r, i, dir, &row, e);
    bat_row_release(&row);
    return rc;
}

/* Hash every entry and mark the ones to grade; report the skipped, and
 * write the rows of the entries that are not graded at all. */
static int plan(struct run *r, unsigned char *todo, struct err *e)
{
    struct bat_row row;

    for (size_t i = 0; i < r->l->n; i++) {
        if (r->l->v[i].absent != NULL) {
            if (write_absent_row(r, i, e) < 0)
                return -1;
            todo[i] = 0;
            r->failures++;
            emit(r, r->l->v[i].id, r->l->v[i].absent, 0, 0, 0, 1, r->l->v[i].why, 0);
            continue;
        }
        if (bat_inputs_key(&r->l->v[i], r->key[i], r->sha[i]) < 0)
            return err_set(e, NULL, 0, 0, "out of memory");
        todo[i] = !up_to_date(r, i, &row);
        if (todo[i])
            continue;
        r->failures += strcmp(row.status, "ok") != 0;
        /* the score grades.csv will show: the TA's manual points in */
        if (bat_manual_row(r->o->out_dir, &row) < 0) {
            bat_row_release(&row);
            return err_set(e, NULL, 0, 0, "out of memory");
        }
        emit(r, row.id, "up to date", row.score, row.max_score, 0, 1, NULL, 0);
        bat_row_release(&row);
    }
    return 0;
}

static int finish(const struct run *r, struct err *e)
{
    size_t n = spec_test_count(r->o->specs);
    const char **ids = calloc(r->l->n + 1, sizeof *ids);
    const char **cols = calloc(n + 1, sizeof *cols);
    int rc = ids == NULL || cols == NULL ? err_set(e, NULL, 0, 0, "out of memory") : 0;

    for (size_t i = 0; rc == 0 && i < r->l->n; i++)
        ids[i] = r->l->v[i].id;
    for (size_t i = 0; rc == 0 && i < n; i++)
        cols[i] = spec_test_at(r->o->specs, i)->id;
    if (rc == 0)
        rc = bat_finish(r->o->out_dir, ids, r->l->n, cols, n, e);
    free(ids);
    free(cols);
    return rc;
}

static int setup(struct run *r, struct err *e)
{
    const char *tmp = getenv("TMPDIR");

    if (make_dirs(r->o->out_dir, e) < 0)
        return -1;
    /* a killed batch's scratch goes first (core/scratch.h) */
    if (scr_make(tmp != NULL && tmp[0] ? tmp : "/tmp", "attn-batch-", r->scratch,
                 sizeof r->scratch, e) < 0)
        return -1;
    r->jobs = r->o->jobs == 0 ? bat_default_jobs() : r->o->jobs;
    if (r->jobs > MAX_JOBS)
        r->jobs = MAX_JOBS;
    /* without the compiler's id (no compiler, a failing --version) there
     * is no cache: each worker meets that trouble on its own, as before */
    if (!r->o->no_cache &&
        grade_cache_env(r->o->data_dir, r->scratch, r->o->specs, r->o->version,
                        r->cache_env, NULL) < 0)
        r->cache_env[0] = '\0';
    /* nor verdicts without the grader's identity (no /proc/self/exe) */
    if (r->cache_env[0] && gk_env(r->o->data_dir, r->keep_env, NULL) < 0)
        r->keep_env[0] = '\0';
    return 0;
}

int bat_run(const struct bat_list *l, const struct bat_opts *o, struct err *e)
{
    struct run *r = calloc(1, sizeof *r);
    unsigned char *todo = calloc(l->n + 1, 1);
    int rc;

    if (r == NULL || todo == NULL || (r->sha = calloc(l->n + 1, sizeof *r->sha)) == NULL ||
        (r->key = calloc(l->n + 1, sizeof *r->key)) == NULL) {
        if (r != NULL)
            free(r->sha);
        free(r), free(todo);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    r->l = l;
    r->o = o;
    rc = setup(r, e);
    if (rc == 0)   /* a typo in the TA's file stops the batch before, not after */
        rc = bat_manual_check(o->out_dir, o->specs, e);
    if (rc == 0)
        rc = plan(r, todo, e);
    if (rc == 0)
        rc = pump(r, todo, e);
    kill_all(r);
    scr_remove(r->scratch);
    if (rc == 0)
        rc = finish(r, e);
    free(r->sha);
    free(r->key);
    free(r);
    free(todo);
    return rc;
}

/* ---- merge ---- */

static int copy_file(const char *from_dir, const char *to_dir, const char *name,
                     struct err *e)
{
    char from[BAT_PATH_MAX + 32], to[BAT_PATH_MAX + 32];
    struct sb sb;
    enum sb_read r;
    int rc = 0;

    bat_path_join(from_dir, name, from, sizeof from);
    bat_path_join(to_dir, name, to, sizeof to);
    sb_init(&sb, (size_t)64 << 20);
    if ((r = sb_read_file(&sb, from, 0)) == SB_READ_OPEN)
        return errno == ENOENT ? 0 : err_set(e, from, 0, 0, "cannot read: %s", strerror(errno));
    if (r != SB_READ_OK)
        rc = err_set(e, from, 0, 0, "cannot read (or too large)");
    if (rc == 0)
        rc = bat_write_atomic(to, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    return rc;
}

static int copy_id(const char *in, const char *out, const char *id, struct err *e)
{
    char from[BAT_PATH_MAX], to[BAT_PATH_MAX];

    bat_path_join(in, id, from, sizeof from);
    bat_path_join(out, id, to, sizeof to);
    if (make_dir(to, e) < 0)
        return -1;
    clear_outputs(to);
    if (copy_file(from, to, "results.json", e) < 0 ||
        copy_file(from, to, "feedback.md", e) < 0 || copy_file(from, to, "staff.md", e) < 0)
        return -1;
    /* the kept object and verdicts, so that the merged class's regrade
     * compiles and runs nothing a shard already did: each copied only
     * when it passes the checks a regrade makes when it reads it, else
     * left out (that regrade then does the work) */
    if (gk_copy(from, to, e) < 0)
        return -1;
    return copy_file(from, to, BAT_ROW_NAME, e); /* last: it commits */
}

static int same_dir(const char *a, const char *b)
{
    struct stat x, y;

    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
           x.st_ino == y.st_ino;
}

struct found {
    char *id;
    const char *dir;   /* the input holding it */
};

struct found_list {
    struct found *v;
    size_t n, cap;
};

static int found_push(struct found_list *f, const char *id, const char *dir,
                      struct err *e)
{
    struct found *v;

    if (f->n == BAT_MAX_ENTRIES)
        return err_set(e, NULL, 0, 0, "more than %d submissions", BAT_MAX_ENTRIES);
    if ((v = ut_grow(f->v, &f->cap, f->n + 1, sizeof *v, 64)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    f->v = v;
    if ((f->v[f->n].id = strdup(id)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    f->v[f->n++].dir = dir;
    return 0;
}

/* The ids (sub-directories holding a row file) of `dir`, appended to f. */
static int merge_ids(const char *dir, struct found_list *f, struct err *e)
{
    struct dirent **names;
    char row[BAT_PATH_MAX + 300];
    int k = scandir(dir, &names, NULL, alphasort), rc = 0;

    if (k < 0)
        return err_set(e, NULL, 0, 0, "cannot read '%s': %s", dir, strerror(errno));
    for (int i = 0; i < k; i++) {
        const char *id = names[i]->d_name;

        snprintf(row, sizeof row, "%s/%s/%s", dir, id, BAT_ROW_NAME);
        if (rc == 0 && bat_id_check(id, NULL) == 0 && access(row, R_OK) == 0)
            rc = found_push(f, id, dir, e);
        free(names[i]);
    }
    free(names);
    return rc;
}

static int cmp_found(const void *a, const void *b)
{
    return strcmp(((const struct found *)a)->id, ((const struct found *)b)->id);
}

static int merge_copy(const char *out_dir, const struct found_list *f, struct err *e)
{
    for (size_t i = 0; i < f->n; i++) {
        if (i > 0 && strcmp(f->v[i - 1].id, f->v[i].id) == 0)
            return err_set(e, NULL, 0, 0, "id '%s' is in two of the inputs ('%s' and '%s')",
                           f->v[i].id, f->v[i - 1].dir, f->v[i].dir);
        if (!same_dir(f->v[i].dir, out_dir) && copy_id(f->v[i].dir, out_dir, f->v[i].id, e) < 0)
            return -1;
    }
    return 0;
}

int bat_merge(const char *out_dir, const char *const *dirs, size_t n, struct err *e)
{
    struct found_list f = {NULL, 0, 0};
    const char **ids = NULL;
    int rc = make_dirs(out_dir, e);

    for (size_t d = 0; rc == 0 && d < n; d++)
        rc = merge_ids(dirs[d], &f, e);
    if (rc == 0 && f.n > 1)
        qsort(f.v, f.n, sizeof *f.v, cmp_found);
    if (rc == 0)
        rc = merge_copy(out_dir, &f, e);
    if (rc == 0 && (ids = calloc(f.n + 1, sizeof *ids)) == NULL)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; rc == 0 && i < f.n; i++)
        ids[i] = f.v[i].id;
    if (rc == 0)
        rc = bat_finish(out_dir, ids, f.n, NULL, 0, e);
    for (size_t i = 0; i < f.n; i++)
        free(f.v[i].id);
    free(f.v);
    free(ids);
    return rc;
}
