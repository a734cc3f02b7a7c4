/*
 * test_cli.c -- the command line as a person uses it: the rubric's
 * "reproduce:" lines run where they are printed (`build/grader grade ...`
 * directly, and the top-level `make check [SUB=] [ONLY=]`), and rerun
 * exactly the case they name.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef TEST_SRCDIR
#define TEST_SRCDIR "."
#endif
#ifndef TEST_BUILDDIR
#define TEST_BUILDDIR "build"
#endif

#define OUT_MAX (1u << 20)

/* Run `cmd` with sh in the source tree, BUILD pointing at our build (for
 * `make check`); return its stdout+stderr (caller frees), status in *rc. */
static char *run(const char *cmd, int *rc)
{
    char *full = NULL, *out = calloc(1, OUT_MAX + 1);
    size_t n = 0, got;
    FILE *p;

    cr_assert_not_null(out);
    cr_assert(asprintf(&full, "cd '%s' && unset MAKEFLAGS MFLAGS MAKELEVEL && "
                       "BUILD='%s' && export BUILD && { %s; } 2>&1",
                       TEST_SRCDIR, TEST_BUILDDIR, cmd) > 0);
    p = popen(full, "r");
    cr_assert_not_null(p);
    while (n < OUT_MAX && (got = fread(out + n, 1, OUT_MAX - n, p)) > 0)
        n += got;
    *rc = pclose(p);
    *rc = WIFEXITED(*rc) ? WEXITSTATUS(*rc) : -1;
    free(full);
    return out;
}

/* The command of the first "reproduce: " line of `s` (caller frees). */
static char *first_repro(const char *s)
{
    const char *p = strstr(s, "reproduce: ");
    size_t n;

    cr_assert_not_null(p, "no reproduce line in:\n%s", s);
    p += strlen("reproduce: ");
    n = strcspn(p, "\n");
    return strndup(p, n);
}

/* How many rubric rows ("  FAIL   0.0/1.5    sdpa.x  title") `s` holds;
 * the id of the last one in id[]. */
static size_t rows(const char *s, char *id, size_t idn)
{
    static const char *const words[] = {"PASS", "FAIL", "CRASH", "TIME", "TODO",
                                        "SKIP", "MANUAL"};
    size_t n = 0;

    for (const char *l = s; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        char word[16], pts[32], tid[128];

        if (strncmp(l, "  ", 2) != 0 || l[2] == ' ' ||
            sscanf(l, "%15s %31s %127s", word, pts, tid) != 3 || strchr(pts, '/') == NULL)
            continue;
        for (size_t k = 0; k < sizeof words / sizeof *words; k++)
            if (strcmp(word, words[k]) == 0) {
                n++;
                snprintf(id, idn, "%s", tid);
            }
    }
    return n;
}

/* Rerun the first repro line of `out` and check it reruns one case of
 * one test, which fails again. */
static void check_repro_reruns(const char *out, const char *what)
{
    char *cmd = first_repro(out), *again, id[128] = "", want[300];
    size_t j = 0;
    int rc;

    again = run(cmd, &rc);
    cr_expect_eq(rows(again, id, sizeof id), 1, "%s: '%s' ran %zu tests:\n%s", what, cmd,
                 rows(again, id, sizeof id), again);
    cr_expect(strstr(again, "  FAIL ") != NULL, "%s: '%s' did not fail:\n%s", what, cmd, again);
    cr_expect(strstr(again, "(0/1 cases)") != NULL || strstr(again, "0 of 1 tests") != NULL,
              "%s: '%s' ran more than one case:\n%s", what, cmd, again);
    want[j++] = '^';
    for (const char *p = id; *p && j + 4 < sizeof want; p++) {
        if (*p == '.')
            want[j++] = '\\';
        want[j++] = *p;
    }
    want[j++] = '#';
    want[j] = '\0';
    cr_expect(strstr(cmd, want) != NULL, "%s: reran '%s', not the test of '%s'", what, id, cmd);
    free(again);
    free(cmd);
}

Test(cli, grader_grade_repro_line_runs_where_printed)
{
    int rc;
    char *out = run("\"$BUILD/grader\" grade tests/submissions/sdpa_no_scale.c", &rc);

    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "reproduce: make check") == NULL,
              "a direct grader run prints a make line:\n%s", out);
    check_repro_reruns(out, "grader grade");
    free(out);
}

Test(cli, make_check_sub_repro_line_runs_where_printed)
{
    int rc;
    char *out = run("make -s --no-print-directory check SUB=tests/submissions/sdpa_no_scale.c",
                    &rc);

    cr_expect_neq(rc, 0, "make check passed a buggy submission");
    cr_assert(strstr(out, "reproduce: make check SUB='tests/submissions/sdpa_no_scale.c' "
                          "ONLY='^") != NULL, "%s", out);
    check_repro_reruns(out, "make check SUB=");
    free(out);
}

Test(cli, make_check_grades_the_template_by_default)
{
    int rc;
    char *out = run("make -s --no-print-directory check ONLY='^softmax\\.'", &rc);

    cr_expect_neq(rc, 0);
    cr_expect(strstr(out, "submission: student_template/attention.c") != NULL, "%s", out);
    cr_expect(strstr(out, "not implemented yet") != NULL, "%s", out);
    free(out);
}
