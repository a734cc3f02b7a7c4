/* grade.c -- grade one submission; see grade.h.
 *
 * The pipeline: resolve the submission, hash it, apply the spec's source
 * rules, compile it against the grader's header, check the object, rewrite
 * it (allocation counters, localised helpers), link it with the trusted
 * runner, and run the test loop (grade_run.c) through the sandbox. Every
 * stage that refuses the submission still produces a rubric.
 */
#include "grade/grade.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assign/assign.h"
#include "build/build.h"
#include "build/jail.h"
#include "grade/grade_keep.h"
#include "grade/grade_lanes.h"
#include "grade/grade_run.h"
#include "build/objcache.h"
#include "build/objcheck.h"
#include "oracle/oracle.h"
#include "sandbox/sbx.h"
#include "core/scratch.h"
#include "core/sha256.h"
#include "build/srcrules.h"
#include "core/strbuf.h"
#include "core/util.h"

#if GRADER_STAFF
#include "sandbox/impl.h"
#endif

#define PATH_CAP 4096

enum sub_kind { SUB_SOURCE, SUB_OBJECT };

/* Everything one grading owns, released in one place. */
struct job {
    const char *submission;
    const struct grade_opts *o;
    enum sub_kind kind;
    char path[PATH_CAP + 16]; /* the .c or .o to grade */
    char dir[PATH_CAP + 16];  /* the directory it is in (answers.yaml) */
    char scratch[PATH_CAP];   /* private, removed at the end */
    char runner[PATH_CAP + 64];
    char refused[ERR_MSG_MAX]; /* why the files are refused, or "" */
    struct grun_sel sel;
    struct grade_result *r;
    char *src;                /* the source as checked and compiled */
    size_t src_len;
};

static void set_dir(struct job *j)
{
    const char *slash = strrchr(j->path, '/');

    if (slash == NULL)
        snprintf(j->dir, sizeof j->dir, ".");
    else
        snprintf(j->dir, sizeof j->dir, "%.*s", (int)(slash - j->path), j->path);
}

/* The files a grading reads must be regular files inside the
 * submission's directory: attention.c (or the file given) and, when there
 * is one, answers.yaml. A refusal is kept in j->refused. */
static void check_files(struct job *j, const char *shown)
{
    char answers[PATH_CAP + 32];
    struct stat st;

    if (ut_check_inside(j->dir, j->path, shown, j->refused, sizeof j->refused) < 0)
        return;
    snprintf(answers, sizeof answers, "%s/answers.yaml", j->dir);
    if (lstat(answers, &st) == 0 &&
        ut_check_inside(j->dir, answers, "answers.yaml", j->refused, sizeof j->refused) < 0)
        return;
    j->refused[0] = '\0';
}

/* A directory means its attention.c; otherwise a .c or a .o file. */
static int resolve(struct job *j, struct err *e)
{
    struct stat st;

    if (stat(j->submission, &st) < 0)
        return err_set(e, NULL, 0, 0, "cannot read '%s': %s", j->submission,
                       strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        snprintf(j->path, sizeof j->path, "%s/" ASG_SOURCE, j->submission);
        if (lstat(j->path, &st) < 0)
            return err_set(e, NULL, 0, 0, "no '" ASG_SOURCE "' in directory '%s'",
                           j->submission);
        j->kind = SUB_SOURCE;
        snprintf(j->dir, sizeof j->dir, "%s", j->submission);
        check_files(j, ASG_SOURCE);
        return 0;
    }
    if (!S_ISREG(st.st_mode) ||
        !(ut_has_suffix(j->submission, ".c") || ut_has_suffix(j->submission, ".o")))
        return err_set(e, NULL, 0, 0,
                       "'%s' is not an " ASG_SOURCE ", an " ASG_OBJECT " or a directory",
                       j->submission);
    snprintf(j->path, sizeof j->path, "%s", j->submission);
    j->kind = ut_has_suffix(j->submission, ".o") ? SUB_OBJECT : SUB_SOURCE;
    set_dir(j);
    check_files(j, strrchr(j->path, '/') ? strrchr(j->path, '/') + 1 : j->path);
    return 0;
}

static int make_scratch(struct job *j, struct err *e)
{
    const char *base = j->o->scratch_dir;

    if (base == NULL && ((base = getenv("TMPDIR")) == NULL || base[0] == '\0'))
        base = "/tmp";
    /* what a killed grader left in base goes first (scratch.h) */
    if (scr_make(base, "attn-grade-", j->scratch, sizeof j->scratch, e) < 0)
        return -1;
    jail_track_scratch(j->scratch); /* a stopping signal removes it too */
    return 0;
}

static void remove_scratch(struct job *j)
{
    if (j->scratch[0]) {
        jail_track_scratch(NULL);
        scr_remove(j->scratch);
    }
}

static void scratch_path(const struct job *j, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", j->scratch, name);
}

/* Read the source, at most BLD_MAX_SOURCE bytes (+1 to notice more),
 * never through a link. A read that fails midway keeps what it read, as
 * it always did (the source rules and the compiler judge those bytes). */
static char *read_source(const char *path, size_t *len, struct err *e)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct sb sb;
    enum sb_read r;
    char *buf;

    if (fd < 0) {
        err_set(e, NULL, 0, 0, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    sb_init(&sb, 0);
    r = sb_read_fd(&sb, fd, BLD_MAX_SOURCE + 1);
    close(fd);
    if (r == SB_READ_CAP || (buf = sb_detach(&sb, len)) == NULL) {
        sb_release(&sb);
        err_set(e, NULL, 0, 0, "out of memory");
        return NULL;
    }
    return buf;
}

/* Set the submission's status with its detail (owned copy of `detail`). */
static int refuse(struct job *j, enum grade_status st, const char *detail)
{
    j->r->status = st;
    free(j->r->status_detail);
    j->r->status_detail = strdup(detail ? detail : "");
    return j->r->status_detail ? 1 : -1;
}

/* Source rules of the spec; 1 when the source was refused. The source
 * read is kept in j->src: what is compiled is the bytes checked. */
static int check_source(struct job *j, struct err *e)
{
    char *viol = NULL;
    int rc;

    if ((j->src = read_source(j->path, &j->src_len, e)) == NULL)
        return -1;
    if (j->src_len > BLD_MAX_SOURCE)
        return refuse(j, GRADE_REJECTED, ASG_SOURCE " is larger than 1 MiB");
    rc = j->o->specs ? src_check(j->o->specs, j->src, j->src_len, ASG_SOURCE, &viol, e) : 0;
    if (rc < 0)
        return -1;
    rc = viol && viol[0] ? refuse(j, GRADE_REJECTED, viol) : 0;
    free(viol);
    return rc;
}

/* The checked source into the scratch directory, where bld_compile
 * finds it in place (a later change to the student's file is not seen). */
static int place_source(const struct job *j, char *path, size_t n, struct err *e)
{
    FILE *f;
    int ok;

    scratch_path(j, ASG_SOURCE, path, n);
    if ((f = fopen(path, "wbx")) == NULL)
        return err_set(e, path, 0, 0, "cannot create: %s", strerror(errno));
    ok = fwrite(j->src, 1, j->src_len, f) == j->src_len;
    if (fclose(f) != 0 || !ok)
        return err_set(e, path, 0, 0, "cannot write: %s", strerror(errno));
    return 0;
}

static int compile_source(struct job *j, const struct bld_opts *bo,
                          const char *obj, struct err *e)
{
    char src[PATH_CAP + 32], *log = NULL;
    int rc = place_source(j, src, sizeof src, e);

    if (rc == 0 && (rc = bld_compile(bo, src, obj, &log, e)) == 1)
        rc = refuse(j, GRADE_COMPILE_ERROR, log);
    free(log);
    return rc;
}

/* The kept object when its key matches (build/objcache.h), else a
 * compile whose object is kept. Keeping is best effort: a folder that
 * cannot hold it costs the next regrade a compile, never this grade. */
static int compile_or_reuse(struct job *j, const struct bld_opts *bo, const char *obj,
                            struct err *e)
{
    char key[SHA256_HEX_LEN];
    struct err ignored;
    int rc;

    if (j->o->obj_cache == NULL || j->o->obj_cache_env == NULL)
        return compile_source(j, bo, obj, e);
    bld_cache_key(j->o->obj_cache_env, j->src, j->src_len, key);
    if ((rc = bld_cache_load(j->o->obj_cache, key, obj, e)) != 0) {
        j->r->object_reused = rc > 0;
        return rc > 0 ? 0 : -1;
    }
    rc = compile_source(j, bo, obj, e);
    if (rc == 0 && bld_cache_store(j->o->obj_cache, key, obj, &ignored) < 0)
        err_clear(&ignored);
    return rc;
}

/* The object's API call graph (both in enum asg_fn's order). */
static void copy_calls(const struct obj_report *rep, struct grade_result *r)
{
    memcpy(r->calls, rep->calls, sizeof r->calls);
}

/* Static checks and rewriting; 1 when the object was refused. */
static int check_object(struct job *j, const char *obj, const char *prepared,
                        struct err *e)
{
    struct obj_report rep;
    char *text;
    int rc;

    obj_report_init(&rep);
    if (obj_check(obj, &rep, e) < 0)
        return -1;
    if (rep.n_rejections > 0) {
        text = obj_report_text(&rep, 0);
        rc = text ? refuse(j, GRADE_REJECTED, text) : -1;
    } else {
        copy_calls(&rep, j->r);
        text = obj_report_text(&rep, 1);
        j->r->warnings = text;
        text = NULL;
        rc = j->r->warnings ? bld_prepare_object(obj, prepared, &rep, e) : -1;
    }
    free(text);
    obj_report_release(&rep);
    return rc;
}

static int link_runner(struct job *j, const struct bld_opts *bo,
                       const char *prepared, struct err *e)
{
    char *log = NULL;
    int rc = bld_link_runner(bo, prepared, j->runner, &log, e);

    if (rc == 1)
        rc = refuse(j, GRADE_REJECTED, log);
    free(log);
    return rc;
}

/* Compile, check and link; 0 when a runner exists, 1 when the submission
 * was refused (status set), -1 on a grader error. */
static int build_runner(struct job *j, struct err *e)
{
    char obj[PATH_CAP + 64], prepared[PATH_CAP + 64];
    struct bld_opts bo = {j->o->data_dir, j->scratch, NULL, 0, 0};
    int rc = 0;

    scratch_path(j, "student.o", obj, sizeof obj);
    scratch_path(j, "student.prepared.o", prepared, sizeof prepared);
    scratch_path(j, "runner", j->runner, sizeof j->runner);
    if (j->kind == SUB_SOURCE) {
        if ((rc = check_source(j, e)) == 0)
            rc = compile_or_reuse(j, &bo, obj, e);
    } else {
        snprintf(obj, sizeof obj, "%s", j->path);
    }
    if (rc == 0)
        rc = check_object(j, obj, prepared, e);
    if (rc == 0)
        rc = link_runner(j, &bo, prepared, e);
    return rc;
}

/* Adapters from the test loop's hooks to the sandbox. */
static void hook_reset(void *self)
{
    sbx_restart(self);
}

static void hook_deadline(void *self, double ms)
{
    sbx_set_deadline(self, ms);
}

static const char *hook_output(void *self, size_t *len)
{
    return sbx_output(self, len);
}

static void hook_wall_end(void *self, double until)
{
    sbx_set_wall_end(self, until);
}

static double hook_cpu_used(void *self)
{
    return sbx_cpu_used(self);
}

static double hook_stalled(void *self)
{
    return sbx_stalled(self) + sbx_queued(self);
}

/* A lane: a sandbox on the runner and the hooks over it (grade_run.h);
 * the first lane too, which run_tests opens itself. */
static int lane_open(void *self, struct impl *student, struct grun_hooks *h,
                     struct err *e)
{
    const struct job *j = self;
    struct sbx_config cfg = {j->runner, 0, 0, 0, 0};
    struct sbx *s = sbx_new(&cfg, e);

    if (s == NULL)
        return -1;
    *student = sbx_impl(s);
    *h = (struct grun_hooks){s, hook_reset, hook_deadline, hook_output, hook_wall_end,
                             hook_cpu_used, hook_stalled};
    return 0;
}

static void lane_close(void *self, struct grun_hooks *h)
{
    struct job *j = self;
    unsigned n;
    long faults;

    /* its runners are all reaped by now, but for the live one, which
     * sbx_free reaps: counted after it */
    sbx_restart(h->self);
    sbx_runner_faults(h->self, &n, &faults);
    /* lanes close on their own threads */
    __atomic_add_fetch(&j->r->runners, n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&j->r->runner_minflt, faults, __ATOMIC_RELAXED);
    sbx_free(h->self);
}

/* How many lanes: o->lanes, or the usable CPUs; one when recording golden
 * data (the store is not shared between threads). */
static size_t lane_count(const struct grade_opts *o)
{
    if (o->orc != NULL && o->orc->mode == ORC_RECORD)
        return 1;
    return o->lanes > 0 ? o->lanes : glane_default(GRADE_MAX_LANES);
}

static int run_tests(struct job *j, struct err *e)
{
    struct impl student;
    struct grun_hooks h;
    struct grun_lanes lanes = {lane_count(j->o), j, lane_open, lane_close};
    const struct impl *ref = NULL;
    int rc;
#if GRADER_STAFF
    struct impl local = impl_local();
    ref = &local;
#endif

    if (lane_open(j, &student, &h, e) < 0)
        return -1;
    rc = grun_run(j->o->specs, &j->sel, student, ref, &h, &lanes, j->o, j->dir, j->r, e);
    lane_close(j, &h);
    return rc;
}

/* The kept verdicts when their key matches (grade/grade_keep.h), else the
 * tests, whose verdicts are then kept. Keeping is best effort, as the
 * object's: a folder that cannot hold them costs the next regrade its
 * tests, never this grade. */
static int run_or_reuse(struct job *j, struct err *e)
{
    const struct grade_opts *o = j->o;
    char key[SHA256_HEX_LEN];
    struct err ignored;
    int rc;

    if (o->keep_env == NULL || o->keep_inputs == NULL || o->obj_cache == NULL)
        return run_tests(j, e);
    err_clear(&ignored);
    if (gk_key(o->keep_env, j->submission, o->keep_inputs, j->runner, o->specs, &j->sel, o,
               key, &ignored) < 0)
        return run_tests(j, e);
    if ((rc = gk_load(o->obj_cache, key, o->specs, &j->sel, j->r, e)) != 0) {
        j->r->verdicts_reused = rc > 0;
        return rc > 0 ? 0 : -1;
    }
    rc = run_tests(j, e);
    if (rc == 0 && gk_keepable(j->r) && gk_store(o->obj_cache, key, j->r, &ignored) < 0)
        err_clear(&ignored);
    return rc;
}

static const char *refusal_summary(enum grade_status st)
{
    switch (st) {
    case GRADE_COMPILE_ERROR:
        return "not run: the submission did not compile";
    case GRADE_REJECTED:
        return "not run: the submission was refused by the grader's checks";
    default:
        return "not run: the grader failed";
    }
}

static int new_result(struct job *j, struct err *e)
{
    size_t n = grun_selected_tests(&j->sel);

    if ((j->r = calloc(1, sizeof *j->r)) == NULL ||
        (j->r->tests = calloc(n ? n : 1, sizeof *j->r->tests)) == NULL ||
        (j->r->tests_cap = n ? n : 1) == 0 ||
        (j->r->submission = strdup(j->submission)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    j->r->seed = j->o->seed;
    snprintf(j->r->spec_sha256, sizeof j->r->spec_sha256, "%s",
             spec_sha256(j->o->specs));
    if (j->refused[0]) { /* never read what a refused link points to */
        sha256_hex("", 0, j->r->submission_sha256);
        return 0;
    }
    return sha256_file(j->path, j->r->submission_sha256, e);
}

static int grade_job(struct job *j, struct err *e)
{
    int rc;

    if (resolve(j, e) < 0 || grun_select(j->o->specs, j->o->only, &j->sel, e) < 0)
        return -1;
    if (new_result(j, e) < 0 || make_scratch(j, e) < 0)
        return -1;
    rc = j->refused[0] ? refuse(j, GRADE_REJECTED, j->refused) : build_runner(j, e);
    if (rc == 0 && j->o->before_tests && j->o->before_tests(j->o->before_ctx, e) < 0)
        return -1;
    if (rc == 0)
        return run_or_reuse(j, e);
    if (rc < 0)
        return -1;
    return grun_mark_all(j->o->specs, &j->sel, TEST_NOT_RUN,
                         refusal_summary(j->r->status), j->r) < 0
               ? err_set(e, NULL, 0, 0, "out of memory") : 0;
}

int grade_check_use(const char *submission, const struct grade_opts *o, struct err *e)
{
    struct job j;
    int rc;

    memset(&j, 0, sizeof j);
    j.submission = submission;
    j.o = o;
    rc = resolve(&j, e) < 0 || grun_select(o->specs, o->only, &j.sel, e) < 0 ? -1 : 0;
    grun_select_release(&j.sel);
    return rc;
}

int grade_submission(const char *submission, const struct grade_opts *o,
                     struct grade_result **out, struct err *e)
{
    struct job j;
    double t0 = ut_now_ms();
    int rc;

    memset(&j, 0, sizeof j);
    j.submission = submission;
    j.o = o;
    *out = NULL;
    rc = grade_job(&j, e);
    remove_scratch(&j);
    grun_select_release(&j.sel);
    free(j.src);
    if (rc < 0) {
        grade_result_free(j.r);
        return -1;
    }
    j.r->elapsed_ms = ut_now_ms() - t0;
    *out = j.r;
    return 0;
}

int grade_cache_env(const char *data_dir, const char *scratch_dir,
                    const struct spec_set *specs, const char *version,
                    char env[65], struct err *e)
{
    struct bld_opts bo = {data_dir, scratch_dir, NULL, 0, 0};
    char toolchain[SHA256_HEX_LEN];

    if (bld_toolchain_id(&bo, toolchain, e) < 0)
        return -1;
    bld_cache_env(toolchain, specs, version, env);
    return 0;
}

void grade_result_free(struct grade_result *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->tests_cap; i++) {
        free(r->tests[i].message);
        free(r->tests[i].hint);
        free(r->tests[i].repro);
        free(r->tests[i].withheld_by);
    }
    free(r->tests);
    for (size_t i = 0; i < r->n_causes; i++)
        free(r->causes[i].bug);
    free(r->causes);
    for (size_t i = 0; i < ASG_FN_COUNT; i++)
        free(r->facts[i]);
    free(r->status_detail);
    free(r->warnings);
    free(r->submission);
    free(r);
}

const char *grade_status_name(enum grade_status s)
{
    static const char *const names[] = {
        "ok", "compile_error", "rejected", "budget_exhausted", "error",
    };

    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "error";
}

const char *grade_test_status_name(enum grade_test_status s)
{
    static const char *const names[] = {
        "passed", "failed", "crashed", "timed_out", "not_implemented",
        "not_run", "manual_pending", "withheld",
    };

    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "failed";
}

struct grade_session {
    struct job j;
    struct grade_opts o;
    struct grade_result r;
    struct sbx *sbx;
};

static void session_release(struct grade_session *g)
{
    sbx_free(g->sbx);
    remove_scratch(&g->j);
    free(g->j.src);
    free(g->r.status_detail);
    free(g->r.warnings);
    free(g);
}

struct grade_session *grade_session_open(const char *submission, const char *data_dir,
                                         const struct spec_set *specs,
                                         char **refusal, struct err *e)
{
    struct grade_session *g = calloc(1, sizeof *g);
    struct sbx_config cfg;
    int rc;

    *refusal = NULL;
    if (g == NULL) {
        err_set(e, NULL, 0, 0, "out of memory");
        return NULL;
    }
    g->o.specs = specs;
    g->o.data_dir = data_dir;
    g->j.o = &g->o;
    g->j.r = &g->r;
    g->j.submission = submission;
    rc = resolve(&g->j, e) < 0 || make_scratch(&g->j, e) < 0 ? -1
         : g->j.refused[0]                                 ? refuse(&g->j, GRADE_REJECTED,
                                                                    g->j.refused)
                                                           : build_runner(&g->j, e);
    if (rc == 0) {
        memset(&cfg, 0, sizeof cfg);
        cfg.runner = g->j.runner;
        if ((g->sbx = sbx_new(&cfg, e)) != NULL)
            return g;
    } else if (rc == 1) {
        *refusal = g->r.status_detail;
        g->r.status_detail = NULL;
    }
    session_release(g);
    return NULL;
}

struct impl grade_session_impl(struct grade_session *g, double deadline_ms)
{
    if (deadline_ms > 0)
        sbx_set_deadline(g->sbx, deadline_ms);
    return sbx_impl(g->sbx);
}

void grade_session_close(struct grade_session *g)
{
    if (g != NULL)
        session_release(g);
}
