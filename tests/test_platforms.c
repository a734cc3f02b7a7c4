/*
 * test_platforms.c -- the platform bundles, run as each platform runs them
 * (tests/platforms.py does the work and prints each rule it checks):
 *   - Gradescope: `make gradescope`, the zip unpacked in a temporary
 *     AUTOGRADER_ROOT, setup.sh, run_autograder on the reference, the stub,
 *     a buggy, a late, a missing and a misnamed submission; results.json
 *     against Gradescope's documented fields and the rubric's score;
 *   - Classroom 50: `make classroom50`, autograder.py with the runner's
 *     environment in a checkout of each submission; result.json field by
 *     field against classroom50/result/v1, integers against the rubric;
 *   - plain CI: a compile error's JUnit (xunit's junit-10.xsd, one <error>)
 *     and GitHub annotations (its line), from the real grader.
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

#define LOG_CAP (64u << 10)

/* Run tests/platforms.py WHICH; its output goes into the failure message. */
static void platform(const char *which)
{
    char *cmd = NULL, *log = calloc(1, LOG_CAP + 1);
    FILE *p;
    size_t n;
    int st;

    cr_assert_not_null(log);
    cr_assert(asprintf(&cmd, "python3 '%s/tests/platforms.py' %s '%s' '%s' 2>&1",
                       TEST_SRCDIR, which, TEST_SRCDIR, TEST_BUILDDIR) > 0);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    n = fread(log, 1, LOG_CAP, p);
    log[n] = '\0';
    st = pclose(p);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s:\n%s", which, log);
    /* the closing lines: each submission's score beside the rubric's */
    if (strcmp(which, "ci") != 0)
        cr_expect_not_null(strstr(log, "score: buggy: rubric"), "%s", log);
    cr_log_info("%s", log);
    free(cmd);
    free(log);
}

Test(platforms, gradescope_bundle_runs_as_gradescope_runs_it)
{
    platform("gradescope");
}

Test(platforms, classroom50_bundle_runs_as_its_runner_runs_it)
{
    platform("classroom50");
}

Test(platforms, ci_formats_of_a_compile_error)
{
    platform("ci");
}
