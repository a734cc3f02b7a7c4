/*
 * test_grade.c -- grading whole submissions through the real pipeline:
 * the reference scores full marks, the stub scores 0 with "not
 * implemented", a compile error is a rubric, selection and determinism.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grading.h"

#define REF TEST_SRCDIR "/reference/attention.c"
#define STUB TEST_SRCDIR "/student_template/attention.c"

/* A grading and the spec set its results point into; free with done(). */
struct graded {
    struct spec_set *s;
    struct grade_result *r;
};

static struct graded grade_both(int hidden, const char *path, const char *only)
{
    struct err e;
    struct graded g = {tg_specs(hidden, &e), NULL};

    cr_assert(g.s != NULL, "specs: %s", e.msg);
    g.r = tg_grade(g.s, path, only, &e);
    cr_assert(g.r != NULL, "grader error: %s", e.msg);
    return g;
}

static void done(struct graded *g)
{
    grade_result_free(g->r);
    spec_set_free(g->s);
}

static void expect_full_marks(const struct grade_result *r)
{
    cr_expect(r->status == GRADE_OK, "status %s: %s", grade_status_name(r->status),
              r->status_detail ? r->status_detail : "");
    for (size_t i = 0; i < r->n_tests; i++)
        cr_expect(r->tests[i].status == TEST_PASSED, "'%s' %s: %s",
                  r->tests[i].test->id, grade_test_status_name(r->tests[i].status),
                  r->tests[i].message);
    cr_expect(r->score == r->max_score, "score %g of %g", r->score, r->max_score);
}

Test(grade, reference_full_marks_public)
{
    struct graded g_r = grade_both(0, REF, NULL);
    struct grade_result *r = g_r.r;

    expect_full_marks(r);
    cr_expect(fabs(r->max_score - 60.0) < 1e-9, "public spec totals %g, not 60", r->max_score);
    done(&g_r);
}

Test(grade, reference_full_marks_both_specs)
{
    struct graded g_r = grade_both(1, REF, NULL);
    struct grade_result *r = g_r.r;

    expect_full_marks(r);
    cr_expect(r->n_tests >= 40, "only %zu tests in both specs", r->n_tests);
    cr_expect(fabs(r->max_score - 100.0) < 1e-9, "both specs total %g, not 100", r->max_score);
    done(&g_r);
}

Test(grade, stub_scores_zero_not_implemented)
{
    struct graded g_r = grade_both(1, STUB, NULL);
    struct grade_result *r = g_r.r;
    size_t todo = 0;

    cr_expect(r->status == GRADE_OK);
    cr_expect(r->score == 0.0, "the stub scored %g", r->score);
    for (size_t i = 0; i < r->n_tests; i++) {
        todo += r->tests[i].status == TEST_NOT_IMPLEMENTED;
        cr_expect(r->tests[i].status != TEST_CRASHED, "'%s' crashed on the stub: %s",
                  r->tests[i].test->id, r->tests[i].message);
    }
    cr_expect(todo * 10 >= r->n_tests * 7, "only %zu of %zu tests say not implemented",
              todo, r->n_tests);
    done(&g_r);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    cr_assert(f != NULL);
    fputs(text, f);
    fclose(f);
}

Test(grade, compile_error_is_a_rubric)
{
    char dir[] = "/tmp/tg-XXXXXX", path[64];
    struct graded g;
    struct grade_result *r;

    cr_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/attention.c", dir);
    write_file(path, "#include \"attention.h\"\nint attn_softmax_rows(float *x) { return }\n");
    g = grade_both(0, dir, NULL);
    r = g.r;
    cr_expect(r->status == GRADE_COMPILE_ERROR, "status %s", grade_status_name(r->status));
    cr_expect(r->score == 0.0);
    cr_expect(strstr(r->status_detail, "error") != NULL, "no compiler error shown: %s",
              r->status_detail);
    for (size_t i = 0; i < r->n_tests; i++)
        cr_expect(r->tests[i].status == TEST_NOT_RUN);
    done(&g);
    unlink(path);
    rmdir(dir);
}

Test(grade, edited_header_beside_submission_is_ignored)
{
    char dir[] = "/tmp/tg-XXXXXX", cmd[512], path[64];
    struct graded g;
    struct grade_result *r;

    cr_assert(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/attention.c'", STUB, dir);
    cr_assert(system(cmd) == 0);
    /* An edited header that turns every call into a constant success. */
    snprintf(path, sizeof path, "%s/attention.h", dir);
    write_file(path, "#define ATTN_ENOTIMPL 0\n#define ATTN_OK 0\n#define ATTN_EINVAL -1\n"
                     "#include <stddef.h>\n");
    g = grade_both(0, dir, NULL);
    r = g.r;
    cr_expect(r->score == 0.0, "an edited header gained %g points", r->score);
    done(&g);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(system(cmd) == 0);
}

Test(grade, missing_submission_is_an_error)
{
    struct err e;
    struct spec_set *s = tg_specs(0, &e);

    cr_assert(s != NULL);
    cr_expect(tg_grade(s, "/nonexistent/attention.c", NULL, &e) == NULL);
    cr_expect(strstr(e.msg, "cannot read '/nonexistent/attention.c'") != NULL, "%s", e.msg);
    spec_set_free(s);
}

Test(grade, only_selects_tests_and_cases)
{
    struct graded g_r = grade_both(0, REF, "^softmax\\.");
    struct grade_result *r = g_r.r;

    cr_expect(r->n_tests > 0);
    for (size_t i = 0; i < r->n_tests; i++)
        cr_expect(strncmp(r->tests[i].test->id, "softmax.", 8) == 0, "%s selected",
                  r->tests[i].test->id);
    done(&g_r);
}

Test(grade, bad_only_pattern_is_an_error)
{
    struct err e;
    struct spec_set *s = tg_specs(0, &e);

    cr_assert(s != NULL);
    cr_expect(tg_grade(s, REF, "([", &e) == NULL);
    cr_expect(strstr(e.msg, "bad --only pattern") != NULL, "%s", e.msg);
    spec_set_free(s);
}

Test(grade, only_matching_nothing_is_an_error)
{
    struct err e;
    struct spec_set *s = tg_specs(1, &e);

    cr_assert(s != NULL);
    cr_expect(tg_grade(s, REF, "^nothing", &e) == NULL, "an empty selection graded");
    cr_expect(strcmp(e.msg, "no test matches --only '^nothing'") == 0, "%s", e.msg);
    /* one case of one test is a selection */
    cr_expect(tg_grade(s, REF, "^nothing|^softmax\\.values#9$", &e) == NULL);
    spec_set_free(s);
}

/* The command line: exit status 2 and exactly one line naming the pattern. */
Test(grade, cli_only_matching_nothing_exits_2_with_one_line)
{
    char cmd[2048], err[512] = "", line[512] = "";
    char path[] = "/tmp/test-grade-only.XXXXXX";
    int fd = mkstemp(path), st, lines = 0;
    FILE *f;

    cr_assert(fd >= 0);
    close(fd);
    snprintf(cmd, sizeof cmd,
             "'%s/grader' grade --spec '%s/specs/public.yaml' --only '^nothing' '%s' "
             ">/dev/null 2>'%s'", TEST_BUILDDIR, TEST_SRCDIR, REF, path);
    st = system(cmd);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "exit status %d", st);
    cr_assert((f = fopen(path, "r")) != NULL);
    while (fgets(err, sizeof err, f) != NULL)
        if (strstr(err, "warning: no seccomp") == NULL && ++lines == 1)
            snprintf(line, sizeof line, "%s", err);
    fclose(f);
    unlink(path);
    cr_expect(lines == 1, "%d lines on stderr", lines);
    cr_expect(strcmp(line, "grader: no test matches --only '^nothing'\n") == 0, "%s", line);
}

Test(grade, same_inputs_same_verdicts)
{
    const char *bug = TEST_CATDIR "/submissions/sdpa_no_scale.c";
    struct graded ga = grade_both(1, bug, NULL), gb = grade_both(1, bug, NULL);
    struct grade_result *a = ga.r, *b = gb.r;

    cr_assert(a->n_tests == b->n_tests);
    cr_expect(a->score == b->score);
    for (size_t i = 0; i < a->n_tests; i++) {
        cr_expect(a->tests[i].status == b->tests[i].status);
        cr_expect(strcmp(a->tests[i].message, b->tests[i].message) == 0,
                  "'%s' differs:\n%s\n%s", a->tests[i].test->id, a->tests[i].message,
                  b->tests[i].message);
    }
    done(&ga);
    done(&gb);
}

Test(grade, smallest_failing_case_is_shown)
{
    static const char yaml[] =
        "version: 1\n"
        "tests:\n"
        "  - id: softmax.rows_sum_to_one\n"
        "    title: rows sum to one\n"
        "    function: softmax\n"
        "    property: rows_sum_to_one\n"
        "    points: 1\n"
        "    scoring: partial\n"
        "    cases:\n"
        "      - {rows: 8, cols: 16}\n"
        "      - {rows: 2, cols: 3}\n";
    struct err e;
    struct spec_set *s = spec_set_new();
    struct grade_result *r;

    cr_assert(s != NULL);
    cr_assert(spec_load_buffer(s, "order.yaml", yaml, sizeof yaml - 1, gprop_check_case, &e) == 0,
              "%s", e.msg);
    r = tg_grade(s, TEST_CATDIR "/submissions/softmax_wrong_axis.c", NULL, &e);
    cr_assert(r != NULL, "%s", e.msg);
    cr_assert(r->n_tests == 1);
    cr_expect(r->tests[0].cases_run == 2 && r->tests[0].cases_passed == 0);
    cr_expect(r->tests[0].failed_case == 1, "shown case %zu, not the smaller one",
              r->tests[0].failed_case + 1);
    cr_expect(strstr(r->tests[0].repro, "#2$") != NULL, "%s", r->tests[0].repro);
    grade_result_free(r);
    spec_set_free(s);
}

/* Files stay inside the submission: a symlinked attention.c (to the
 * reference, to /etc/passwd) or answers.yaml is refused with one line, and
 * nothing of what it points to is read. */
Test(grade, symlinks_and_outside_files_are_rejected)
{
    static const struct {
        const char *file, *target, *detail;
    } cases[] = {
        {"attention.c", REF, "'attention.c' is a symbolic link"},
        {"attention.c", "/etc/passwd", "'attention.c' is a symbolic link"},
        {"answers.yaml", "/etc/passwd", "'answers.yaml' is a symbolic link"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[] = "/tmp/tg-XXXXXX", link[64], src[64];
        struct graded g;

        cr_assert(mkdtemp(dir) != NULL);
        snprintf(src, sizeof src, "%s/attention.c", dir);
        snprintf(link, sizeof link, "%s/%s", dir, cases[i].file);
        if (strcmp(cases[i].file, "attention.c") != 0)
            write_file(src, "int x;\n");
        cr_assert(symlink(cases[i].target, link) == 0);
        g = grade_both(0, dir, NULL);
        cr_expect(g.r->status == GRADE_REJECTED, "case %zu: status %s", i,
                  grade_status_name(g.r->status));
        cr_expect(g.r->status_detail && strstr(g.r->status_detail, cases[i].detail),
                  "case %zu: %s", i, g.r->status_detail ? g.r->status_detail : "");
        cr_expect(strchr(g.r->status_detail, '\n') == NULL, "more than one line");
        cr_expect(strstr(g.r->status_detail, "root:") == NULL, "case %zu leaked", i);
        cr_expect(g.r->score == 0.0, "case %zu scored %g", i, g.r->score);
        done(&g);
        unlink(link);
        unlink(src);
        rmdir(dir);
    }
}

/* Grade with a budget of `budget_ms` on `lanes` lanes (0: the default). */
static struct grade_result *grade_budget(const struct spec_set *s, const char *path,
                                         double budget_ms, unsigned lanes)
{
    struct grade_opts o;
    struct grade_result *r = NULL;
    struct err e;

    memset(&o, 0, sizeof o);
    o.specs = s;
    o.seed = 1;
    o.data_dir = TEST_BUILDDIR;
    o.budget_ms = budget_ms;
    o.lanes = lanes;
    err_clear(&e);
    cr_assert(grade_submission(path, &o, &r, &e) == 0, "grader error: %s", e.msg);
    return r;
}

/* The first test the budget cut (every later one must be cut too), or
 * n_tests when none was. */
static size_t budget_cut(const struct grade_result *r, unsigned lanes)
{
    size_t c = r->n_tests;

    for (size_t i = 0; i < r->n_tests; i++) {
        int cut = r->tests[i].status == TEST_NOT_RUN &&
                  strstr(r->tests[i].message, "used up its time budget of 2 s") != NULL;
        if (cut && c == r->n_tests)
            c = i;
        cr_expect(cut || i < c, "%u lanes: '%s' ran after the budget was spent: %s", lanes,
                  r->tests[i].test->id, r->tests[i].message);
    }
    return c;
}

/*
 * The budget is spent in spec order whatever lane ran what: on one lane
 * and on two, the napper (every call spins about 100 ms) runs a first part
 * of the tests in spec order and every test after it says "not run". Where
 * the cut falls is a sum of CPU times, which moves by a few tests from run
 * to run on a virtual machine whether one lane ran or two (the figures of
 * one call vary by a third here); the shape may not.
 */
Test(grade, budget_is_spent_in_spec_order_on_any_lanes, .timeout = 120)
{
    struct err e;
    struct spec_set *s = tg_specs(1, &e);

    cr_assert(s != NULL, "specs: %s", e.msg);
    for (unsigned lanes = 1; lanes <= 2; lanes++) {
        struct grade_result *r =
            grade_budget(s, TEST_SRCDIR "/tests/hostile/napper.c", 2000.0, lanes);
        size_t cut;
        cr_expect(r->status == GRADE_BUDGET_EXHAUSTED, "%u lanes: status %s", lanes,
                  grade_status_name(r->status));
        cut = budget_cut(r, lanes);
        cr_expect(cut > 0 && cut < r->n_tests, "%u lanes: the cut is at %zu of %zu", lanes,
                  cut, r->n_tests);
        grade_result_free(r);
    }
    spec_set_free(s);
}

/*
 * A loaded machine is not the submission's time: with TG_HOGS busy children
 * of ours on top of whatever else runs, the napper's runners wait for a
 * CPU far longer than they compute, and the budget's wall-clock net (2 x
 * the CPU budget) passed long before its CPU budget was spent. The net
 * counts only the kernel's time that is the submission's, so the cut is
 * still the CPU budget's, in spec order, and no test says "wall-clock".
 * (Before, every test after about 4 s of wall-clock time said so.)
 */
Test(grade, a_loaded_machine_does_not_spend_the_budget, .timeout = 900)
{
    struct err e;
    struct spec_set *s;
    pid_t hog[TG_HOGS];

    if (access("/proc/self/schedstat", R_OK) != 0)
        cr_skip_test("no /proc/<pid>/schedstat: the wall net counts the load here");
    s = tg_specs(1, &e);
    cr_assert(s != NULL, "specs: %s", e.msg);
    cr_assert(tg_hogs_start(hog) == 0, "fork");
    for (unsigned lanes = 1; lanes <= 2; lanes++) {
        struct grade_result *r =
            grade_budget(s, TEST_SRCDIR "/tests/hostile/napper.c", 2000.0, lanes);
        size_t cut = budget_cut(r, lanes);
        cr_expect(r->status == GRADE_BUDGET_EXHAUSTED, "%u lanes: status %s", lanes,
                  grade_status_name(r->status));
        cr_expect(cut > 0 && cut < r->n_tests, "%u lanes: the cut is at %zu of %zu", lanes,
                  cut, r->n_tests);
        for (size_t i = 0; i < r->n_tests; i++)
            cr_expect(r->tests[i].message == NULL ||
                          strstr(r->tests[i].message, "wall-clock") == NULL,
                      "%u lanes: '%s': %s", lanes, r->tests[i].test->id,
                      r->tests[i].message);
        grade_result_free(r);
    }
    tg_hogs_stop(hog, TG_HOGS);
    spec_set_free(s);
}
