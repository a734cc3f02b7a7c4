/*
 * test_grade.c -- grading whole submissions through the real pipeline:
 * the reference scores full marks, the stub scores 0 with "not
 * implemented", a compile error is a rubric, selection and determinism.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grading.h"

#define REF TEST_SRCDIR "/reference/attention.c"
#define STUB TEST_SRCDIR "/student_template/attention.c"

static struct grade_result *grade(int hidden, const char *path, const char *only)
{
    struct grd_err e;
    struct spec_set *s = tg_specs(hidden, &e);
    struct grade_result *r;

    cr_assert(s != NULL, "specs: %s", e.msg);
    r = tg_grade(s, path, only, &e);
    cr_assert(r != NULL, "grader error: %s", e.msg);
    /* The result points into the spec set for test metadata; keep the set
     * alive for the process (a test process is short-lived). */
    return r;
}

static void expect_full_marks(const struct grade_result *r)
{
    cr_expect(r->status == GRADE_OK, "status %s: %s", grade_status_name(r->status),
              r->status_detail ? r->status_detail : "");
    for (size_t i = 0; i < r->n_tests; i++)
        cr_expect(r->tests[i].status == TEST_PASSED, "'%s' %s: %s",
                  r->tests[i].test->id, test_status_name(r->tests[i].status),
                  r->tests[i].message);
    cr_expect(r->score == r->max_score, "score %g of %g", r->score, r->max_score);
}

Test(grade, reference_full_marks_public)
{
    struct grade_result *r = grade(0, REF, NULL);

    expect_full_marks(r);
    cr_expect(fabs(r->max_score - 60.0) < 1e-9, "public spec totals %g, not 60", r->max_score);
    grade_result_free(r);
}

Test(grade, reference_full_marks_both_specs)
{
    struct grade_result *r = grade(1, REF, NULL);

    expect_full_marks(r);
    cr_expect(r->n_tests >= 40, "only %zu tests in both specs", r->n_tests);
    cr_expect(fabs(r->max_score - 100.0) < 1e-9, "both specs total %g, not 100", r->max_score);
    grade_result_free(r);
}

Test(grade, stub_scores_zero_not_implemented)
{
    struct grade_result *r = grade(1, STUB, NULL);
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
    grade_result_free(r);
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
    struct grade_result *r;

    cr_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/attention.c", dir);
    write_file(path, "#include \"attention.h\"\nint attn_softmax_rows(float *x) { return }\n");
    r = grade(0, dir, NULL);
    cr_expect(r->status == GRADE_COMPILE_ERROR, "status %s", grade_status_name(r->status));
    cr_expect(r->score == 0.0);
    cr_expect(strstr(r->status_detail, "error") != NULL, "no compiler error shown: %s",
              r->status_detail);
    for (size_t i = 0; i < r->n_tests; i++)
        cr_expect(r->tests[i].status == TEST_NOT_RUN);
    grade_result_free(r);
    unlink(path);
    rmdir(dir);
}

Test(grade, edited_header_beside_submission_is_ignored)
{
    char dir[] = "/tmp/tg-XXXXXX", cmd[512], path[64];
    struct grade_result *r;

    cr_assert(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/attention.c'", STUB, dir);
    cr_assert(system(cmd) == 0);
    /* An edited header that turns every call into a constant success. */
    snprintf(path, sizeof path, "%s/attention.h", dir);
    write_file(path, "#define ATTN_ENOTIMPL 0\n#define ATTN_OK 0\n#define ATTN_EINVAL -1\n"
                     "#include <stddef.h>\n");
    r = grade(0, dir, NULL);
    cr_expect(r->score == 0.0, "an edited header gained %g points", r->score);
    grade_result_free(r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(system(cmd) == 0);
}

Test(grade, missing_submission_is_an_error)
{
    struct grd_err e;
    struct spec_set *s = tg_specs(0, &e);

    cr_assert(s != NULL);
    cr_expect(tg_grade(s, "/nonexistent/attention.c", NULL, &e) == NULL);
    cr_expect(strstr(e.msg, "cannot read '/nonexistent/attention.c'") != NULL, "%s", e.msg);
    spec_set_free(s);
}

Test(grade, only_selects_tests_and_cases)
{
    struct grade_result *r = grade(0, REF, "^softmax\\.");

    cr_expect(r->n_tests > 0);
    for (size_t i = 0; i < r->n_tests; i++)
        cr_expect(strncmp(r->tests[i].test->id, "softmax.", 8) == 0, "%s selected",
                  r->tests[i].test->id);
    grade_result_free(r);
}

Test(grade, bad_only_pattern_is_an_error)
{
    struct grd_err e;
    struct spec_set *s = tg_specs(0, &e);

    cr_assert(s != NULL);
    cr_expect(tg_grade(s, REF, "([", &e) == NULL);
    cr_expect(strstr(e.msg, "bad --only pattern") != NULL, "%s", e.msg);
    spec_set_free(s);
}

Test(grade, same_inputs_same_verdicts)
{
    const char *bug = TEST_SRCDIR "/tests/submissions/sdpa_no_scale.c";
    struct grade_result *a = grade(1, bug, NULL), *b = grade(1, bug, NULL);

    cr_assert(a->n_tests == b->n_tests);
    cr_expect(a->score == b->score);
    for (size_t i = 0; i < a->n_tests; i++) {
        cr_expect(a->tests[i].status == b->tests[i].status);
        cr_expect(strcmp(a->tests[i].message, b->tests[i].message) == 0,
                  "'%s' differs:\n%s\n%s", a->tests[i].test->id, a->tests[i].message,
                  b->tests[i].message);
    }
    grade_result_free(a);
    grade_result_free(b);
}
