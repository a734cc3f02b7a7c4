/*
 * test_hostile.c -- the hostile submissions of tests/hostile/, graded
 * through the real pipeline (source rules, compile, object check, rewrite,
 * sandboxed runner) against the public and hidden specs.
 *
 * Each entry is an attention.c (or a directory holding one) with a
 * CATALOGUE block (tests/grading.h) and three lines of its own:
 *     expect-status:  ok | rejected | compile_error     (default ok)
 *     expect-detail:  words the rubric must contain: the rejection reason,
 *                     or the message of a failed expect-fail test
 *     expect-warning: words the grader's warnings must contain
 *     expect-fail-functions: softmax sdpa ... -- every test of these
 *                     functions must fail (grading.h keeps at most 64 ids)
 *     expect-maybe-functions: softmax sdpa ... -- the tests of these
 *                     functions may pass or fail (what a budget cuts short)
 * expect-status may also be `any` (the budget may or may not run out).
 * For every entry we assert that the grader survives (a result, no grader
 * error, no runner process left behind) within TIME_BOUND_MS, that the attacked tests score 0
 * while every test not listed passes, that the Gradescope JSON is valid,
 * and that no file appears outside the grader's scratch directory (which
 * must be gone afterwards).
 *
 * Each Criterion worker grades in a private directory of its own (cwd and
 * $TMPDIR), so that parallel workers and other users of /tmp cannot make
 * the file checks flaky; shared places (the original cwd, /tmp, the
 * original $TMPDIR) are checked for the names the attacks try to write.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <ftw.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grading.h"
#include "support/json_read.h"
#include "report/report.h"
#include "core/util.h"

#define HOST_DIR TEST_SRCDIR "/tests/hostile"
#define HOST_PATH_MAX 1024
#define HOST_MAX_NAMES 256
#define LOOP_ENTRY "loop_everywhere.c"
#define TIME_BOUND_MS 20000.0   /* of CPU time: see cpu_spent_ms */

struct entry {
    char name[256];
};

/* What an entry expects beyond tests/grading.h's block. */
struct host_expect {
    enum grade_status status;
    char detail[256];
    char warning[256];
    char fail_fns[TG_MAX_IDS][TG_ID_MAX];
    size_t n_fail_fns;
    char maybe_fns[TG_MAX_IDS][TG_ID_MAX];
    size_t n_maybe_fns;
    int any_status;
};

/* A directory listing, sorted, for before/after comparisons. */
struct listing {
    char names[HOST_MAX_NAMES][256];
    size_t n;
    int truncated;
};

/* Where one worker grades: its own cwd and $TMPDIR under `root`. */
struct arena {
    char root[HOST_PATH_MAX], cwd[HOST_PATH_MAX], tmp[HOST_PATH_MAX];
    char old_cwd[HOST_PATH_MAX], old_tmp[HOST_PATH_MAX];
};

/* ---- entries ------------------------------------------------------------ */

/* A .c file, or a directory (not . or ..) holding an attention.c. */
static int is_entry(const struct dirent *d)
{
    char p[HOST_PATH_MAX];
    struct stat st;

    if (tg_is_c(d))
        return 1;
    if (d->d_name[0] == '.')
        return 0;
    snprintf(p, sizeof p, "%s/%.255s/attention.c", HOST_DIR, d->d_name);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Parameters live in Criterion's shared memory (cr_malloc): static data
 * moves under PIE between the runner and its workers. */
static struct criterion_test_params entries(void)
{
    struct dirent **list = NULL;
    int n = scandir(HOST_DIR, &list, is_entry, tg_by_name);
    struct entry *p = cr_malloc(sizeof *p * (size_t)(n > 0 ? n : 1));

    for (int i = 0; i < n; i++) {
        snprintf(p[i].name, sizeof p[i].name, "%s", list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return cr_make_param_array(struct entry, p, (size_t)(n > 0 ? n : 0), NULL);
}

/* The submission path and the file holding its CATALOGUE block. */
static void entry_paths(const char *name, char *sub, char *src, size_t n)
{
    size_t len = strlen(name);

    struct stat st;

    snprintf(sub, n, "%s/%s", HOST_DIR, name);
    if (len > 2 && strcmp(name + len - 2, ".c") == 0)
        snprintf(src, n, "%s", sub);
    else
        snprintf(src, n, "%.900s/attention.c", sub);
    /* A directory whose attention.c is not ours (a symlink) keeps its
     * CATALOGUE block in a file of that name. */
    if (src != sub && strcmp(src, sub) != 0) {
        char cat[HOST_PATH_MAX];
        snprintf(cat, sizeof cat, "%.900s/CATALOGUE", sub);
        if (stat(cat, &st) == 0)
            snprintf(src, n, "%s", cat);
    }
}

/* With an answers.yaml, the written part is graded too (it reads it). */
static struct spec_set *entry_specs(const char *sub, struct err *e)
{
    char answers[HOST_PATH_MAX];
    struct stat st;
    struct spec_set *s = tg_specs(1, e);

    snprintf(answers, sizeof answers, "%.900s/answers.yaml", sub);
    if (s != NULL && lstat(answers, &st) == 0 &&
        spec_load(s, TEST_SRCDIR "/specs/written.yaml", gprop_check_case, e) < 0) {
        spec_set_free(s);
        return NULL;
    }
    return s;
}

static void copy_field(const char *p, size_t skip, char *dst, size_t n)
{
    p += skip;
    p += strspn(p, " \t");
    snprintf(dst, n, "%.*s", (int)strcspn(p, "\r\n"), p);
}

/* Read expect-status, expect-detail and expect-warning (first 60 lines). */
static void host_expectations(const char *path, struct host_expect *h)
{
    FILE *f = fopen(path, "r");
    char line[1024], status[64] = "ok";

    memset(h, 0, sizeof *h);
    for (int i = 0; f && i < 60 && fgets(line, sizeof line, f); i++) {
        const char *p = line + strspn(line, " /*\t");
        if (strncmp(p, "expect-status:", 14) == 0)
            copy_field(p, 14, status, sizeof status);
        else if (strncmp(p, "expect-detail:", 14) == 0)
            copy_field(p, 14, h->detail, sizeof h->detail);
        else if (strncmp(p, "expect-warning:", 15) == 0)
            copy_field(p, 15, h->warning, sizeof h->warning);
        else if (strncmp(p, "expect-fail-functions:", 22) == 0)
            h->n_fail_fns += tg_split(p + 22, h->fail_fns + h->n_fail_fns,
                                      TG_MAX_IDS - h->n_fail_fns);
        else if (strncmp(p, "expect-maybe-functions:", 23) == 0)
            h->n_maybe_fns += tg_split(p + 23, h->maybe_fns + h->n_maybe_fns,
                                       TG_MAX_IDS - h->n_maybe_fns);
    }
    if (f)
        fclose(f);
    h->any_status = strcmp(status, "any") == 0;
    h->status = h->any_status                          ? GRADE_OK
                : strcmp(status, "rejected") == 0      ? GRADE_REJECTED
                : strcmp(status, "compile_error") == 0 ? GRADE_COMPILE_ERROR
                : strcmp(status, "ok") == 0            ? GRADE_OK
                                                       : GRADE_ERROR;
}

/*
 * The CPU time (ms) this process and its reaped children (the compiler, the
 * runners) have used. The bounds are on CPU time, like the grader's own
 * deadlines and budget: on an idle machine it is the wall time, and on a
 * loaded one it does not grow with the load, so the bound cannot flake.
 */
static double cpu_spent_ms(void)
{
    struct rusage self, kids;

    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                    kids.ru_stime.tv_sec) * 1e3 +
           (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                    kids.ru_stime.tv_usec) / 1e3;
}

/* ---- files ---------------------------------------------------------------- */

static void list_dir(const char *dir, struct listing *l)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, tg_by_name);

    memset(l, 0, sizeof *l);
    for (int i = 0; i < n; i++) {
        const char *d = list[i]->d_name;
        if (strcmp(d, ".") != 0 && strcmp(d, "..") != 0) {
            if (l->n < HOST_MAX_NAMES)
                snprintf(l->names[l->n++], sizeof l->names[0], "%s", d);
            else
                l->truncated = 1;
        }
        free(list[i]);
    }
    free(list);
}

static int listed_name(const struct listing *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0)
            return 1;
    return 0;
}

/* Every name of `after` must be in `before`. */
static void expect_no_new(const struct listing *before, const struct listing *after,
                          const char *where, const char *who)
{
    cr_expect(!after->truncated, "%s: too many files in '%s' to compare", who, where);
    for (size_t i = 0; i < after->n; i++)
        cr_expect(listed_name(before, after->names[i]),
                  "%s: a new file '%s' appeared in '%s'", who, after->names[i], where);
}

/* Names the attacks write outside scratch. In shared directories (where
 * other programs may legitimately keep a results.json) only the
 * attacks' own name is checked: `all` = 0. */
static void expect_no_loot(const char *dir, int all, const char *who)
{
    static const char *const loot[] = {"hostile-pwned-results.json", "results.json"};
    char p[HOST_PATH_MAX];
    struct stat st;

    for (size_t i = 0; i < (all ? 2u : 1u); i++) {
        snprintf(p, sizeof p, "%s/%s", dir, loot[i]);
        cr_expect(stat(p, &st) != 0, "%s: '%s' exists", who, p);
    }
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    return remove(p);
}

/* Make the worker's private cwd and $TMPDIR (left in place on failure). */
static void arena_enter(struct arena *a)
{
    const char *t = getenv("TMPDIR");

    snprintf(a->old_tmp, sizeof a->old_tmp, "%s", t && *t ? t : "/tmp");
    cr_assert(getcwd(a->old_cwd, sizeof a->old_cwd) != NULL);
    snprintf(a->root, sizeof a->root, "%.900s/hostile-test-XXXXXX", a->old_tmp);
    cr_assert(mkdtemp(a->root) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(a->cwd, sizeof a->cwd, "%.960s/cwd", a->root);
    snprintf(a->tmp, sizeof a->tmp, "%.960s/tmp", a->root);
    cr_assert(mkdir(a->cwd, 0755) == 0 && mkdir(a->tmp, 0755) == 0);
    cr_assert(chdir(a->cwd) == 0);
    cr_assert(setenv("TMPDIR", a->tmp, 1) == 0);
}

static void arena_leave(struct arena *a)
{
    if (chdir(a->old_cwd) != 0)
        cr_log_warn("cannot return to '%s'", a->old_cwd);
    setenv("TMPDIR", a->old_tmp, 1);
    nftw(a->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- grading --------------------------------------------------------------- */

/* Grade with the production defaults (budget, deadlines); NULL on a
 * grader error (e set). */
static struct grade_result *host_grade_in(const struct spec_set *s, const char *path,
                                          const char *data_dir, struct err *e)
{
    struct grade_opts o;
    struct grade_result *r = NULL;

    memset(&o, 0, sizeof o);
    o.specs = s;
    o.seed = 1;
    o.data_dir = data_dir;
    return grade_submission(path, &o, &r, e) < 0 ? NULL : r;
}

static struct grade_result *host_grade(const struct spec_set *s, const char *path,
                                       struct err *e)
{
    return host_grade_in(s, path, TEST_BUILDDIR, e);
}

/* The Gradescope results.json must be valid JSON whatever was printed. */
static void expect_valid_json(const struct grade_result *r, const char *who)
{
    struct sb sb;
    struct err e;

    sb_init(&sb, (size_t)8 << 20);
    memset(&e, 0, sizeof e);
    cr_expect(rpt_write(r, RPT_GRADESCOPE, NULL, &sb, &e) == 0, "%s: gradescope: %s", who, e.msg);
    cr_expect(json_validate(sb_str(&sb), strlen(sb_str(&sb)), &e) == 0,
              "%s: gradescope JSON invalid: %s", who, e.msg);
    sb_release(&sb);
}

/* The test must not pass: listed, or of a listed function. */
static int attacked(const struct tg_expect *x, const struct host_expect *h,
                    const struct spec_test *t)
{
    return tg_listed(x->fail, x->n_fail, t->id) ||
           tg_listed(h->fail_fns, h->n_fail_fns, t->function);
}

/* expect-detail appears in a failed attacked test's message. */
static int detail_in_failures(const struct tg_expect *x, const struct host_expect *h,
                              const struct grade_result *r)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (attacked(x, h, r->tests[i].test) && strstr(r->tests[i].message, h->detail) != NULL)
            return 1;
    return 0;
}

static void expect_tests(const struct tg_expect *x, const struct host_expect *h,
                         const struct grade_result *r, const char *who)
{
    size_t seen = 0;

    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];
        const char *id = t->test->id;
        if (attacked(x, h, t->test)) {
            seen += tg_listed(x->fail, x->n_fail, id);
            cr_expect(t->status != TEST_PASSED && t->score == 0.0,
                      "%s: attacked test '%s' earned %g points (%s)", who, id, t->score,
                      grade_test_status_name(t->status));
        } else if (!tg_listed(x->maybe, x->n_maybe, id) &&
                   !tg_listed(h->maybe_fns, h->n_maybe_fns, t->test->function)) {
            cr_expect(t->status == TEST_PASSED, "%s: '%s' should pass beside the attack but %s: %s",
                      who, id, grade_test_status_name(t->status), t->message);
        }
    }
    cr_expect(seen == x->n_fail, "%s: %zu expect-fail ids are not tests of the specs", who,
              x->n_fail - seen);
}

/* Whole-submission verdict: status, its detail, warnings, score. */
static void expect_verdict(const struct tg_expect *x, const struct host_expect *h,
                           const struct grade_result *r, const char *who)
{
    const char *detail = r->status_detail ? r->status_detail : "";

    cr_expect(h->any_status || r->status == h->status, "%s: status %s, expected %s: %s", who,
              grade_status_name(r->status), grade_status_name(h->status), detail);
    if (h->status != GRADE_OK) {
        cr_expect(r->score == 0.0, "%s: refused but scored %g", who, r->score);
        cr_expect(!h->detail[0] || strstr(detail, h->detail), "%s: '%s' not in the refusal: %s",
                  who, h->detail, detail);
        return;
    }
    cr_expect(!h->detail[0] || detail_in_failures(x, h, r),
              "%s: no failed test says '%s'", who, h->detail);
    cr_expect(!h->warning[0] || (r->warnings && strstr(r->warnings, h->warning)),
              "%s: warnings lack '%s': %s", who, h->warning, r->warnings ? r->warnings : "");
    expect_tests(x, h, r, who);
}

/* No runner (or grandchild) may outlive grading: we have no children. */
static void expect_no_children(const char *who)
{
    errno = 0;
    cr_expect(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
              "%s: a child process outlived grading", who);
}

/* ---- the catalogue of attacks ---------------------------------------------- */

ParameterizedTestParameters(hostile, contained)
{
    return entries();
}

ParameterizedTest(struct entry *p, hostile, contained, .timeout = 120)
{
    char sub[HOST_PATH_MAX], src[HOST_PATH_MAX], subdir[HOST_PATH_MAX];
    struct listing before[3], after[3];
    struct tg_expect x;
    struct host_expect h;
    struct arena a;
    struct err e;
    struct spec_set *s;
    struct grade_result *r;
    double t0, ms;

    entry_paths(p->name, sub, src, sizeof sub);
    s = entry_specs(sub, &e);
    cr_assert(s != NULL, "specs: %s", e.msg);
    snprintf(subdir, sizeof subdir, "%.*s", (int)(strrchr(src, '/') - src), src);
    if (strcmp(src + strlen(src) - 9, "CATALOGUE") == 0)
        snprintf(subdir, sizeof subdir, "%s", sub);
    tg_expectations(src, &x);
    host_expectations(src, &h);
    cr_assert(x.found, "%s has no CATALOGUE block", p->name);
    cr_assert(h.status != GRADE_ERROR, "%s: bad expect-status", p->name);
    arena_enter(&a);
    list_dir(a.cwd, &before[0]), list_dir(a.tmp, &before[1]), list_dir(subdir, &before[2]);
    t0 = cpu_spent_ms();
    r = host_grade(s, sub, &e);
    ms = cpu_spent_ms() - t0;
    cr_expect(ms <= TIME_BOUND_MS, "%s: graded in %.0f ms of CPU time (bound %.0f ms)",
              p->name, ms, TIME_BOUND_MS);
    list_dir(a.cwd, &after[0]), list_dir(a.tmp, &after[1]), list_dir(subdir, &after[2]);
    cr_expect(r != NULL, "%s: grader error: %s", p->name, e.msg);
    expect_no_new(&before[0], &after[0], "the working directory", p->name);
    expect_no_new(&before[1], &after[1], "$TMPDIR (scratch must be removed)", p->name);
    expect_no_new(&before[2], &after[2], "the submission's directory", p->name);
    expect_no_loot(a.old_cwd, 0, p->name), expect_no_loot(a.old_tmp, 0, p->name);
    expect_no_loot("/tmp", 0, p->name), expect_no_loot(subdir, 1, p->name);
    expect_no_children(p->name);
    arena_leave(&a);
    if (r != NULL) {
        expect_verdict(&x, &h, r, p->name);
        expect_valid_json(r, p->name);
    }
    grade_result_free(r);
    spec_set_free(s);
}

Test(hostile, has_enough_attacks)
{
    struct dirent **list = NULL;
    int n = scandir(HOST_DIR, &list, is_entry, tg_by_name);

    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
    cr_expect(n >= 20, "only %d hostile submissions (at least 20)", n);
}

/* The bound: a submission that loops forever in every function is
 * graded completely, with the production budget, in 20 s or less. */
Test(hostile, looping_everywhere_graded_within_20s, .timeout = 120)
{
    struct err e;
    struct spec_set *s = tg_specs(1, &e);
    struct grade_result *r;
    struct arena a;
    double t0, ms, wall0;

    cr_assert(s != NULL, "specs: %s", e.msg);
    arena_enter(&a);
    t0 = cpu_spent_ms();
    wall0 = ut_now_ms();
    r = host_grade(s, HOST_DIR "/" LOOP_ENTRY, &e);
    ms = cpu_spent_ms() - t0;
    arena_leave(&a);
    cr_assert(r != NULL, "grader error: %s", e.msg);
    cr_expect(ms <= TIME_BOUND_MS, "graded in %.0f ms of CPU time (bound %.0f ms)", ms,
              TIME_BOUND_MS);
    cr_expect(r->score == 0.0, "a looping submission scored %g", r->score);
    for (size_t i = 0; i < r->n_tests; i++)
        cr_expect(r->tests[i].status == TEST_TIMED_OUT || r->tests[i].status == TEST_NOT_RUN,
                  "'%s' is %s", r->tests[i].test->id, grade_test_status_name(r->tests[i].status));
    cr_log_info("loop_everywhere graded in %.0f ms of CPU time, %.0f ms of wall time", ms,
                ut_now_ms() - wall0);
    grade_result_free(r);
    spec_set_free(s);
}

/* ---- as an unprivileged user -------------------------------------------------- */

#define NOBODY_ID 65534
/* The raw system calls, and the attacks on the runner's own state and
 * on the grader's hold on it (issue 11, class 4). */
static const char *const nobody_attacks[] = {
    "forkbomb_raw.c", "kill_parent_raw.c", "write_results_raw.c", "membomb.c",
    "forge_reply.c", "corrupt_page_size.c", "forge_leak_count.c",
    "forge_alloc_record.c", "fill_alloc_table.c", "exhaust_memory.c",
    "huge_bss.c", "long_helper_names.c", "stop_self_speed.c",
};
#define N_NOBODY (sizeof nobody_attacks / sizeof nobody_attacks[0])

static struct criterion_test_params nobody_entries(void)
{
    struct entry *p = cr_malloc(sizeof *p * N_NOBODY);

    for (size_t i = 0; i < N_NOBODY; i++)
        snprintf(p[i].name, sizeof p[i].name, "%s", nobody_attacks[i]);
    return cr_make_param_array(struct entry, p, N_NOBODY, NULL);
}

/* The entry's verdict without Criterion (the unprivileged child cannot
 * report through it): 0 when it holds, else why not, as a code. */
static int verdict_code(const struct tg_expect *x, const struct host_expect *h,
                        const struct grade_result *r)
{
    struct sb sb;
    struct err e;
    int bad;
    size_t others = 0;

    if (r->status != h->status)
        return 20;
    if (h->status != GRADE_OK)   /* refused: no test ran, the reason says why */
        return r->score != 0.0 ? 21
               : h->detail[0] && !strstr(r->status_detail ? r->status_detail : "", h->detail) ? 31
               : 0;
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];
        if (attacked(x, h, t->test) && (t->status == TEST_PASSED || t->score != 0.0))
            return 21;
        if (!attacked(x, h, t->test) && !tg_listed(x->maybe, x->n_maybe, t->test->id)) {
            if (t->status != TEST_PASSED)
                return 22;
            others++;
        }
    }
    /* the runner really ran as nobody: the honest functions passed */
    if (h->status == GRADE_OK && others == 0)
        return 30;
    if (h->status == GRADE_OK && h->detail[0] && !detail_in_failures(x, h, r))
        return 31;
    sb_init(&sb, (size_t)8 << 20);
    memset(&e, 0, sizeof e);
    bad = rpt_write(r, RPT_GRADESCOPE, NULL, &sb, &e) != 0 ||
          json_validate(sb_str(&sb), strlen(sb_str(&sb)), &e) != 0;
    sb_release(&sb);
    return bad ? 40 : 0;
}

/* In the unprivileged child: grade the staged entry, 0 when its verdict
 * holds, 10 on a grader error, else verdict_code's. */
static int grade_as_nobody(const struct spec_set *s, const char *stage, const char *name,
                           const struct tg_expect *x, const struct host_expect *h)
{
    struct err e;
    char data[HOST_PATH_MAX], path[HOST_PATH_MAX];
    struct grade_result *r;
    int code;

    snprintf(data, sizeof data, "%.1000s/data", stage);
    snprintf(path, sizeof path, "%.700s/%.255s", stage, name);
    if ((r = host_grade_in(s, path, data, &e)) == NULL)
        return 10;
    code = verdict_code(x, h, r);
    grade_result_free(r);
    return code;
}

static int drop_to_nobody(const char *home)
{
    return setgroups(0, NULL) != 0 || setgid(NOBODY_ID) != 0 || setuid(NOBODY_ID) != 0 ||
           setenv("HOME", home, 1) != 0 || getuid() != NOBODY_ID;
}

/*
 * Copy what grading as nobody reads -- the attack, runner_main.o and the
 * grader's header -- into `stage`, owned by nobody: the checkout itself may
 * sit where nobody cannot read (root's home, say). As root, before the drop.
 */
static void stage_for_nobody(const char *stage, const char *name)
{
    char cmd[16 * HOST_PATH_MAX];

    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/data/include' && cp '%s/runner_main.o' '%s/data/' && "
             "cp '%s/include/attention.h' '%s/data/include/' && cp '%.700s/%.255s' '%s/' && "
             "chown -R %d:%d '%s'",
             stage, TEST_BUILDDIR, stage, TEST_BUILDDIR, stage, HOST_DIR, name, stage,
             NOBODY_ID, NOBODY_ID, stage);
    cr_assert(system(cmd) == 0, "cannot stage the files for nobody: %s", cmd);
}

ParameterizedTestParameters(hostile, contained_as_nobody)
{
    return nobody_entries();
}

/* As root (CI), these attacks are contained for an unprivileged user too:
 * a forked child drops to nobody and grades one, with the entry's own
 * expectations, and checks its Gradescope JSON. Skipped when not root
 * (the suite then runs unprivileged already). */
ParameterizedTest(struct entry *p, hostile, contained_as_nobody, .timeout = 120)
{
    char src[HOST_PATH_MAX], sub[HOST_PATH_MAX], stage[HOST_PATH_MAX];
    struct tg_expect x;
    struct host_expect h;
    struct err e;
    struct spec_set *s;
    struct arena a;
    pid_t pid;
    int st = 0;

    if (geteuid() != 0)
        cr_skip_test("not root: the whole suite already runs unprivileged");
    entry_paths(p->name, sub, src, sizeof sub);
    tg_expectations(src, &x);
    host_expectations(src, &h);
    cr_assert(x.found && h.status != GRADE_ERROR, "%s: bad CATALOGUE block", p->name);
    cr_assert((s = tg_specs(1, &e)) != NULL, "specs: %s", e.msg);
    arena_enter(&a);
    cr_assert(chown(a.root, NOBODY_ID, NOBODY_ID) == 0 && chown(a.cwd, NOBODY_ID, NOBODY_ID) == 0 &&
              chown(a.tmp, NOBODY_ID, NOBODY_ID) == 0);
    snprintf(stage, sizeof stage, "%.1000s/stage", a.root);
    stage_for_nobody(stage, p->name);
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0)
        _exit(drop_to_nobody(a.tmp) ? 2 : grade_as_nobody(s, stage, p->name, &x, &h));
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    expect_no_loot(a.cwd, 1, p->name), expect_no_loot(a.tmp, 1, p->name);
    expect_no_loot("/tmp", 0, p->name);
    arena_leave(&a);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "%s as nobody: status %d (2: cannot drop privileges, 10: grader error, "
              "20: wrong status, 21: an attacked test passed, 22: an honest test failed, "
              "30: nothing ran, 31: no failure says '%s', 40: invalid JSON)",
              p->name, WIFEXITED(st) ? WEXITSTATUS(st) : -1, h.detail);
    spec_set_free(s);
}

/* ---- a grader stopped mid-compile ------------------------------------------ */

#define SLOW_SOURCE                                                              \
    "#define A(x) x x x x x x x x\n#define B(x) A(A(x))\n#define C(x) B(B(x))\n"   \
    "#define D(x) C(A(x))\nint attn_slow(int s);\n"                               \
    "int attn_slow(int s) { D(s += s * 3 + 1;) return s; }\n"

/* Processes whose command line mentions `needle` (the arena's scratch
 * base: cc1 is given -dumpdir <scratch>/). */
static int count_procs_naming(const char *needle)
{
    struct dirent **list = NULL;
    int n = scandir("/proc", &list, NULL, NULL), found = 0;

    for (int i = 0; i < n; i++) {
        char path[300], buf[8192];
        FILE *f;
        size_t got;
        if (list[i]->d_name[0] >= '1' && list[i]->d_name[0] <= '9') {
            snprintf(path, sizeof path, "/proc/%s/cmdline", list[i]->d_name);
            if ((f = fopen(path, "rb")) != NULL) {
                got = fread(buf, 1, sizeof buf, f);
                fclose(f);
                found += memmem(buf, got, needle, strlen(needle)) != NULL;
            }
        }
        free(list[i]);
    }
    free(list);
    return found;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

/* The grader, its data and the public spec, copied where nobody can read
 * them (as the nobody test does), and a source that compiles for minutes. */
static void stage_grader(const char *stage, const char *src)
{
    char cmd[16 * HOST_PATH_MAX];
    FILE *f;

    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/include' && cp '%s/grader' '%s/runner_main.o' '%s/' && "
             "cp '%s/include/attention.h' '%s/include/' && cp '%s/specs/public.yaml' '%s/'",
             stage, TEST_BUILDDIR, TEST_BUILDDIR, stage, TEST_BUILDDIR, stage, TEST_SRCDIR,
             stage);
    cr_assert(system(cmd) == 0, "cannot stage the grader: %s", cmd);
    cr_assert((f = fopen(src, "w")) != NULL);
    fputs(SLOW_SOURCE, f);
    fclose(f);
    if (geteuid() == 0) {
        snprintf(cmd, sizeof cmd, "chown -R %d:%d '%s' '%s'", NOBODY_ID, NOBODY_ID, stage, src);
        cr_assert(system(cmd) == 0);
    }
}

/* SIGTERM to a grader while cc1 runs: the grader dies by it, and no
 * process of the toolchain and no scratch directory outlive it. As nobody
 * when the suite is root. */
Test(hostile, killed_mid_compile_leaves_nothing, .timeout = 90)
{
    char stage[HOST_PATH_MAX], src[HOST_PATH_MAX], grader[HOST_PATH_MAX], spec[HOST_PATH_MAX];
    struct listing left;
    struct arena a;
    pid_t pid;
    int st = 0, seen = 0;

    arena_enter(&a);
    if (geteuid() == 0)
        cr_assert(chown(a.root, NOBODY_ID, NOBODY_ID) == 0 &&
                  chown(a.cwd, NOBODY_ID, NOBODY_ID) == 0 &&
                  chown(a.tmp, NOBODY_ID, NOBODY_ID) == 0);
    snprintf(stage, sizeof stage, "%.1000s/stage", a.root);
    snprintf(src, sizeof src, "%.1000s/slow.c", a.cwd);
    snprintf(grader, sizeof grader, "%.1000s/grader", stage);
    snprintf(spec, sizeof spec, "%.1000s/public.yaml", stage);
    stage_grader(stage, src);
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (geteuid() == 0 && drop_to_nobody(a.tmp))
            _exit(2);
        execl(grader, "grader", "grade", "--spec", spec, src, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 160 && !seen; i++, sleep_ms(50))
        seen = count_procs_naming(a.tmp) > 0;
    cr_expect(seen, "the compiler never started");
    sleep_ms(300);
    kill(pid, SIGTERM);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "the grader did not die by SIGTERM "
              "(status %d)", st);
    for (int i = 0; i < 40 && count_procs_naming(a.tmp) > 0; i++)
        sleep_ms(50);
    cr_expect(count_procs_naming(a.tmp) == 0, "a toolchain process outlived the grader");
    list_dir(a.tmp, &left);
    cr_expect(left.n == 0, "the scratch directory '%s' remains", left.n ? left.names[0] : "");
    arena_leave(&a);
}

/* ---- the toolchain and file attacks, as nobody ------------------------------- */

static const char *const nobody_toolchain[] = {
    "include_outside.c", "line_directive.c", "line_marker.c", "proc_environ.c",
    "dev_stdout.c", "incbin_pasted.c", "trigraph_comment.c", "nul_blanker.c",
    "brackets_100k.c", "symlink_reference", "symlink_passwd", "symlink_answers",
    "answers_vectors_passwd", "answers_vectors_up", "answers_nested",
};

/* 0 when r is valid Gradescope JSON. */
static int json_ok(const struct grade_result *r)
{
    struct sb sb;
    struct err e;
    int rc;

    sb_init(&sb, (size_t)8 << 20);
    memset(&e, 0, sizeof e);
    rc = rpt_write(r, RPT_GRADESCOPE, NULL, &sb, &e) != 0 ||
         json_validate(sb_str(&sb), strlen(sb_str(&sb)), &e) != 0;
    sb_release(&sb);
    return rc;
}

#define N_NOBODY_TOOLCHAIN (sizeof nobody_toolchain / sizeof nobody_toolchain[0])

/* In the unprivileged child: each entry graded within 15 s into valid JSON
 * with the status (and refusal detail) its CATALOGUE states; else a code:
 * 10+i grader error, 40+i wrong status, 60+i invalid JSON, 80+i too slow.
 * The specs were loaded before the privileges were dropped (sets[i]): the
 * checkout need not be readable by nobody (a clone in a mktemp -d is not). */
static int grade_toolchain_as_nobody(const char *stage, struct spec_set *const *sets)
{
    char data[HOST_PATH_MAX];

    snprintf(data, sizeof data, "%.1000s/data", stage);
    for (size_t i = 0; i < N_NOBODY_TOOLCHAIN; i++) {
        char path[HOST_PATH_MAX], cat[HOST_PATH_MAX];
        struct host_expect h;
        struct grade_result *r;
        struct err e;
        struct spec_set *s;
        double t0 = ut_now_ms();
        int bad;
        snprintf(path, sizeof path, "%.1000s/%s", stage, nobody_toolchain[i]);
        snprintf(cat, sizeof cat, "%.1000s/CATALOGUE", path);
        host_expectations(access(cat, R_OK) == 0 ? cat : path, &h);
        if ((s = sets[i]) == NULL || (r = host_grade_in(s, path, data, &e)) == NULL)
            return 10 + (int)i;
        bad = r->status != h.status ? 40
              : h.status != GRADE_OK && h.detail[0] &&
                      !(r->status_detail && strstr(r->status_detail, h.detail)) ? 40
              : json_ok(r) ? 60 : ut_now_ms() - t0 > 15000.0 ? 80 : 0;
        grade_result_free(r);
        if (bad)
            return bad + (int)i;
    }
    return 0;
}

Test(hostile, toolchain_and_file_attacks_contained_as_nobody, .timeout = 180)
{
    char stage[HOST_PATH_MAX], cmd[16 * HOST_PATH_MAX];
    struct spec_set *sets[N_NOBODY_TOOLCHAIN];
    struct arena a;
    pid_t pid;
    int st = 0, n;

    if (geteuid() != 0)
        cr_skip_test("not root: the whole suite already runs unprivileged");
    arena_enter(&a);
    cr_assert(chown(a.root, NOBODY_ID, NOBODY_ID) == 0 && chown(a.cwd, NOBODY_ID, NOBODY_ID) == 0 &&
              chown(a.tmp, NOBODY_ID, NOBODY_ID) == 0);
    snprintf(stage, sizeof stage, "%.1000s/stage", a.root);
    n = snprintf(cmd, sizeof cmd,
                 "mkdir -p '%s/data/include' && cp '%s/runner_main.o' '%s/data/' && "
                 "cp '%s/include/attention.h' '%s/data/include/'",
                 stage, TEST_BUILDDIR, stage, TEST_BUILDDIR, stage);
    for (size_t i = 0; i < sizeof nobody_toolchain / sizeof nobody_toolchain[0]; i++)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " && cp -a '%s/%s' '%s/'", HOST_DIR,
                      nobody_toolchain[i], stage);
    snprintf(cmd + n, sizeof cmd - (size_t)n, " && chown -hR %d:%d '%s'", NOBODY_ID, NOBODY_ID,
             stage);
    cr_assert(system(cmd) == 0, "cannot stage the files for nobody: %s", cmd);
    for (size_t i = 0; i < N_NOBODY_TOOLCHAIN; i++) {
        char path[HOST_PATH_MAX];
        struct err e;
        snprintf(path, sizeof path, "%.1000s/%s", stage, nobody_toolchain[i]);
        cr_assert((sets[i] = entry_specs(path, &e)) != NULL, "specs: %s", e.msg);
    }
    pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0)
        _exit(drop_to_nobody(a.tmp) ? 2 : grade_toolchain_as_nobody(stage, sets));
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    for (size_t i = 0; i < N_NOBODY_TOOLCHAIN; i++)
        spec_set_free(sets[i]);
    arena_leave(&a);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "as nobody: status %d (2: cannot drop privileges, 1x: grader error, 4x: wrong "
              "status, 6x: invalid JSON, 8x: slower than 15 s; x indexes nobody_toolchain)",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}
