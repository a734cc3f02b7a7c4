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
#include <unistd.h>

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
    /* CHECK_DEPS empty: `make check` uses the grader as built, never
     * relinks it under the other suites' feet. */
    cr_assert(asprintf(&full, "cd '%s' && unset MAKEFLAGS MFLAGS MAKELEVEL && "
                       "BUILD='%s' CHECK_DEPS= && export BUILD CHECK_DEPS && { %s; } 2>&1",
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

/* The command of the first "reproduce: " line of `s` (caller frees); a
 * long one continues on the next lines after " \\", as a shell reads it. */
static char *first_repro(const char *s)
{
    const char *p = strstr(s, "reproduce: ");
    char *cmd;
    size_t n, len = 0;

    cr_assert_not_null(p, "no reproduce line in:\n%s", s);
    p += strlen("reproduce: ");
    cmd = calloc(1, strlen(p) + 1);
    cr_assert_not_null(cmd);
    for (;;) {
        n = strcspn(p, "\n");
        if (n < 2 || p[n] != '\n' || strncmp(p + n - 2, " \\", 2) != 0)
            break;
        memcpy(cmd + len, p, n - 1);   /* keep the blank, drop the backslash */
        len += n - 1;
        p += n + 1;
        p += strspn(p, " ");
    }
    memcpy(cmd + len, p, n);
    return cmd;
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
    char *out = run("\"$BUILD/grader\" grade " TEST_CATREL "/submissions/sdpa_no_scale.c", &rc);

    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "reproduce: make check") == NULL,
              "a direct grader run prints a make line:\n%s", out);
    check_repro_reruns(out, "grader grade");
    free(out);
}

Test(cli, make_check_sub_repro_line_runs_where_printed)
{
    static const char want[] =
        "make check SUB='" TEST_CATREL "/submissions/sdpa_no_scale.c' ONLY='^";
    char *repro;
    int rc;
    char *out = run("make -s --no-print-directory check SUB=" TEST_CATREL
                    "/submissions/sdpa_no_scale.c", &rc);

    cr_expect_neq(rc, 0, "make check passed a buggy submission");
    /* (the catalogue's longer path may wrap the line: read as a shell would) */
    repro = first_repro(out);
    cr_assert(strncmp(repro, want, strlen(want)) == 0, "%s", out);
    free(repro);
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

/* ---- the hands-on part ---- */

/* A student's folder: the course's student Makefile, the header, the
 * reference as attention.c and the untouched answers.yaml. The caller
 * frees the path. */
static char *student_dir(void)
{
    char tmpl[] = "/tmp/test-cli-XXXXXX", *cmd = NULL, *out;
    char *dir = strdup(mkdtemp(tmpl));
    int rc;

    cr_assert(asprintf(&cmd, "cp student_template/Makefile student_template/attention.h "
                       "student_template/answers.yaml '%s/' && cp reference/attention.c '%s/'",
                       dir, dir) > 0);
    out = run(cmd, &rc);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    free(cmd);
    return dir;
}

static void remove_dir(char *dir)
{
    char *cmd = NULL, *out;
    int rc;

    cr_assert(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
    out = run(cmd, &rc);
    free(out);
    free(cmd);
    free(dir);
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;

    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The untouched answers.yaml is malformed: its error is shown once, the
 * manual items are MANUAL (not FAIL), and make check-written fails. */
Test(cli, check_written_reports_a_malformed_file_once)
{
    char *dir = student_dir(), *cmd = NULL, *out;
    int rc;

    cr_assert(asprintf(&cmd, "make -s --no-print-directory -C '%s' check-written "
                       "GRADER=\"$BUILD/grader\" SPEC='%s/specs/public.yaml' "
                       "SPEC_WRITTEN='%s/specs/written.yaml'", dir, TEST_SRCDIR,
                       TEST_SRCDIR) > 0);
    out = run(cmd, &rc);
    cr_expect_neq(rc, 0, "check-written exits 0 while its claims fail:\n%s", out);
    cr_expect_eq(count(out, "answers.yaml:28:13:"), 1, "the error is not shown once:\n%s", out);
    cr_expect_eq(count(out, "  MANUAL "), 2, "%s", out);
    cr_expect(strstr(out, "FAIL   0.0/6.0    written.manual") == NULL &&
              count(out, "  FAIL ") == 3, "%s", out);
    free(out);
    free(cmd);
    remove_dir(dir);
}

/* Once the claims hold, check-written passes although the manual items
 * are still pending (a TA scores them). */
Test(cli, check_written_passes_with_manual_items_pending)
{
    char *dir = student_dir(), *cmd = NULL, *out;
    int rc;

    cr_assert(asprintf(&cmd, "cp tests/answers_fixtures/good/* '%s/' && "
                       "make -s --no-print-directory -C '%s' check-written "
                       "GRADER=\"$BUILD/grader\" SPEC='%s/specs/public.yaml' "
                       "SPEC_WRITTEN='%s/specs/written.yaml'", dir, dir, TEST_SRCDIR,
                       TEST_SRCDIR) > 0);
    out = run(cmd, &rc);
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect_eq(count(out, "  MANUAL "), 2, "%s", out);
    free(out);
    free(cmd);
    remove_dir(dir);
}

/* grader vectors prints a VECTORS file that map takes back, giving the
 * very map of the hash-seeded vectors. */
Test(cli, vectors_round_trip_through_map)
{
    int rc;
    char *vec = run("\"$BUILD/grader\" vectors --text 'The cat sat on the mat' "
                    ">/tmp/test-cli-vectors.txt && cat /tmp/test-cli-vectors.txt", &rc);
    char *a = run("\"$BUILD/grader\" map --ascii --svg /dev/null --text 'The cat sat on the mat' "
                  "reference/attention.c | grep '^ *[0-9] '", &rc);
    char *b = run("\"$BUILD/grader\" map --ascii --svg /dev/null --vectors "
                  "/tmp/test-cli-vectors.txt --text 'The cat sat on the mat' "
                  "reference/attention.c | grep '^ *[0-9] '", &rc);

    cr_expect_eq(count(vec, "\n") - count(vec, "# "), 5, "%s", vec);
    cr_expect(strstr(vec, "\nthe ") != NULL && strstr(vec, "\nmat ") != NULL, "%s", vec);
    cr_expect(strlen(a) > 20 && strcmp(a, b) == 0, "maps differ:\n%s\n---\n%s", a, b);
    unlink("/tmp/test-cli-vectors.txt");
    free(vec);
    free(a);
    free(b);
}

/* --unicode and --ascii choose the glyphs whatever the locale says. */
Test(cli, map_glyphs_follow_the_flag)
{
    int rc;
    char *u = run("LC_ALL=C \"$BUILD/grader\" map --unicode --svg /dev/null --text 'a b a' "
                  "reference/attention.c", &rc);
    char *a = run("LC_ALL=C.UTF-8 \"$BUILD/grader\" map --ascii --svg /dev/null --text 'a b a' "
                  "reference/attention.c", &rc);

    cr_expect(strstr(u, "\u2588") != NULL, "%s", u);
    cr_expect(strstr(a, "\u2588") == NULL && strstr(a, "@@") != NULL, "%s", a);
    free(u);
    free(a);
}

/* ---- make demo ---- */

/* The table row of `name` has a score and its problem starts with `what`. */
static void expect_row(const char *table, const char *name, const char *what)
{
    char key[64], score[32], line[256];
    const char *p;

    snprintf(key, sizeof key, "\n%s ", name);
    p = strstr(table, key);
    cr_assert_not_null(p, "no row for '%s'", name);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
    cr_expect(sscanf(line + 29, "%31s", score) == 1 && strchr(score, '/') != NULL,
              "row '%s' has no score", line);
    cr_expect(strncmp(line + 40, what, strlen(what)) == 0, "row '%s' does not show '%s'", line,
              what);
}

/* Every line of `s` fits 100 columns (UTF-8 characters). */
static void expect_width(const char *s, const char *what)
{
    size_t lineno = 1;

    for (const char *l = s; *l; lineno++) {
        size_t n = strcspn(l, "\n"), cols = 0;

        for (size_t i = 0; i < n; i++)
            cols += ((unsigned char)l[i] & 0xC0) != 0x80;
        cr_expect_leq(cols, 100, "%s: line %zu is %zu columns: %.*s", what, lineno, cols,
                      (int)n, l);
        l += n + (l[n] == '\n');
    }
}

/* Within the first `lines` lines of s, a failure's expected-against-actual
 * ("..., expected ..."). */
static void expect_expected_within(const char *s, size_t lines, const char *what)
{
    const char *end = s;

    for (size_t i = 0; i < lines && end && *end; i++)
        end = strchr(end, '\n') ? strchr(end, '\n') + 1 : NULL;
    for (const char *p = strstr(s, "expected "); p; p = strstr(p + 1, "expected "))
        if (end == NULL || p < end)
            return;
    cr_expect_fail("%s: no expected-against-actual line in the first %zu lines:\n%s", what,
                   lines, s);
}

/* Real rubrics, as a student and a TA read them: every line fits 100
 * columns; failures come first, each in full, passing tests one line per
 * function; the template's stubs are one line per function; a second run
 * gives the same bytes. */
Test(cli, rubrics_fit_100_columns_failures_first, .timeout = 600)
{
    static const char *const subs[] = {
        "reference/attention.c", "student_template/attention.c",
        TEST_CATREL "/submissions/sdpa_no_scale.c",
        TEST_CATREL "/submissions/softmax_no_max_shift.c",
        TEST_CATREL "/submissions/mha_wrong_head_slicing.c",
        TEST_CATREL "/submissions/block_prenorm.c",
        "tests/batch_fixtures/broken.c",
    };

    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
        char *cmd = NULL, *out, *again, *m;
        const char *pass;
        int rc;

        cr_assert(asprintf(&cmd, "\"$BUILD/grader\" grade --spec specs/public.yaml "
                           "--spec specs/hidden.yaml '%s'", subs[i]) > 0);
        out = run(cmd, &rc);
        again = run(cmd, &rc);
        cr_expect_str_eq(out, again, "%s: two runs differ", subs[i]);
        expect_width(out, subs[i]);
        pass = strstr(out, "\n  PASS ");
        cr_expect(pass == NULL || strstr(out, "\n  FAIL ") == NULL ||
                  strstr(out, "\n  FAIL ") < pass, "%s: a PASS before the failures:\n%s",
                  subs[i], out);
        cr_expect_leq(count(out, "\n  PASS "), 6, "%s: more than one PASS line per function",
                      subs[i]);
        if (i == 1) {   /* the template: 6 functions, all stubs */
            cr_expect_eq(count(out, "\n  TODO "), 6, "%s", out);
            cr_expect_null(strstr(out, "reproduce:"), "%s", out);
            cr_expect_leq(count(out, "\n"), 30, "the stub's rubric:\n%s", out);
        }
        free(cmd);
        cr_assert(asprintf(&cmd, "\"$BUILD/grader\" grade --format markdown "
                           "--spec specs/public.yaml '%s'", subs[i]) > 0);
        m = run(cmd, &rc);
        cr_expect(strstr(m, "| PASS |") == NULL || strstr(m, "| FAIL |") == NULL ||
                  strstr(m, "| FAIL |") < strstr(m, "| PASS |"), "%s", m);
        cr_expect(strstr(m, "## What went wrong") == NULL ||
                  strstr(m, "## What went wrong") < strstr(m, "## Tests"), "%s", m);
        free(m);
        free(out);
        free(again);
        free(cmd);
    }
}

/* --verbose lists every passing test again; the score is the same. */
Test(cli, verbose_lists_every_test)
{
    int rc;
    char *out = run("\"$BUILD/grader\" grade --verbose " TEST_CATREL "/submissions/sdpa_no_scale.c",
                    &rc);

    const char *score = strstr(out, "\nscore: 46.0 / 60.0  (");
    size_t passed = 0;

    cr_assert_not_null(score, "%s", out);
    cr_expect(sscanf(score, "\nscore: 46.0 / 60.0  (%zu of", &passed) == 1 && passed > 6);
    cr_expect_eq(count(out, "\n  PASS "), passed, "%s", out);
    cr_expect(strstr(out, "\n  FAIL ") < strstr(out, "\n  PASS "), "%s", out);
    free(out);
}

/* A softmax that exponentiates without subtracting the row maximum gives
 * NaN in make saturation: the message says which function and the likely
 * cause, as likely, not certain. */
Test(cli, saturation_names_the_likely_cause_of_nan)
{
    int rc;
    char *out = run("\"$BUILD/grader\" saturation --svg /dev/null "
                    TEST_CATREL "/submissions/softmax_no_max_shift.c", &rc);

    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "your attn_softmax_rows gave a non-finite value") != NULL, "%s", out);
    cr_expect(strstr(out, "hint: attn_softmax_rows is the likely cause") != NULL, "%s", out);
    cr_expect(strstr(out, "Subtract each row's maximum") != NULL, "%s", out);
    expect_width(out, "saturation");
    free(out);
}

/* Two screens for a newcomer: a row per sample with its score and first
 * problem, then one whole rubric. (The Makefile's quiet build line comes
 * before this script.) */
Test(cli, demo_fits_two_screens, .timeout = 240)
{
    int rc;
    char *out = run("sh tests/demo.sh \"$BUILD\"", &rc);
    const char *table = strstr(out, "submission                   score");

    cr_assert_eq(rc, 0, "%s", out);
    cr_expect_leq(count(out, "\n"), 100, "the demo is %zu lines", count(out, "\n"));
    expect_width(out, "make demo");
    expect_expected_within(out, 60, "make demo");
    cr_assert_not_null(table, "%s", out);
    /* each row: name, earned/possible, the first problem ("-" for none) */
    expect_row(table, "reference", "-");
    expect_row(table, "broken.c", "compile error: attention.c:");
    expect_row(table, "block_prenorm.c", "block");
    expect_row(table, "template (stubs)", "not implemented yet:");
    cr_expect_eq(count(out, "attention-grader report"), 1, "%s", out);
    free(out);
}

/* ---- the portable build ---- */

/* PORTABLE=1 (a student's Mac: no ELF, no seccomp) built on Linux into its
 * own directory, grading the reference and buggy or refused submissions
 * with the ELF build's very rubrics (tests/portable.sh). */
Test(cli, portable_build_grades_like_the_elf_build, .timeout = 900)
{
    int rc;
    char *out = run("sh tests/portable.sh . \"$BUILD\"", &rc);

    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "portable: all checks passed") != NULL, "%s", out);
    free(out);
}

/* `make install` into a DESTDIR with PREFIX=/usr: the staged grader grades
 * from /, finds its data from where it runs, answers --version, -h and
 * help CMD, its manual page is clean roff, and uninstall removes it all
 * (tests/install.sh). */
Test(cli, make_install_grades_from_anywhere, .timeout = 600)
{
    int rc;
    char *out = run("sh tests/install.sh . \"$BUILD\"", &rc);

    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "install: all checks passed") != NULL, "%s", out);
    free(out);
}

/* The conventions of a Unix command: --version, -h, --help and help CMD
 * exit 0 on standard output; an unknown command is a usage error. */
Test(cli, version_and_help_exit_zero)
{
    static const struct { const char *args; int rc; const char *says; } cases[] = {
        {"--version", 0, "attention-grader "},
        {"version", 0, "attention-grader "},
        {"-h", 0, "usage: grader <command>"},
        {"--help", 0, "usage: grader <command>"},
        {"help", 0, "usage: grader <command>"},
        {"help grade", 0, "usage: grader grade"},
        {"help nosuch", 2, "unknown command"},
        {"nosuch", 2, "unknown command"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cmd, *out;
        int rc;

        cr_assert(asprintf(&cmd, "\"$BUILD/grader\" %s 2>&1", cases[i].args) > 0);
        out = run(cmd, &rc);
        cr_expect_eq(rc, cases[i].rc, "grader %s: exit %d\n%s", cases[i].args, rc, out);
        cr_expect(strstr(out, cases[i].says) != NULL, "grader %s:\n%s", cases[i].args, out);
        free(out);
        free(cmd);
    }
}

/*
 * The tests of a submission run on parallel lanes (grade --test-jobs), one
 * function's tests per lane, each function with its own timeouts and its
 * own share of the budget: the rubric must be the same, byte for byte, for
 * one lane and for several. The entries cover passing, failing, withheld
 * and diagnosed tests, the speed tests (slow code) and timeouts with the
 * skips that follow them (loop_everywhere: every function loops).
 */
Test(cli, test_jobs_give_the_same_rubric, .timeout = 600)
{
    static const char *const subs[] = {
        "reference/attention.c",
        TEST_CATREL "/submissions/sdpa_no_scale.c",
        TEST_CATREL "/submissions/mha_wrong_head_slicing.c",
        TEST_CATREL "/submissions/block_prenorm.c",
        TEST_CATREL "/submissions/layernorm_quadratic.c",
        TEST_CATREL "/submissions/trivial_zeros.c",
        "tests/hostile/loop_everywhere.c",
    };

    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        char *cmd, *one, *out;
        int rc1, rc;
        cr_assert(asprintf(&cmd, "\"$BUILD/grader\" grade --test-jobs 1 --spec specs/public.yaml "
                           "--spec specs/hidden.yaml %s", subs[i]) > 0);
        one = run(cmd, &rc1);
        free(cmd);
        cr_expect(strstr(one, "sdpa") != NULL, "%s: no rubric:\n%s", subs[i], one);
        for (int lanes = 2; lanes <= 4; lanes += 2) {
            cr_assert(asprintf(&cmd, "\"$BUILD/grader\" grade --test-jobs %d --spec "
                               "specs/public.yaml --spec specs/hidden.yaml %s", lanes,
                               subs[i]) > 0);
            out = run(cmd, &rc);
            free(cmd);
            cr_expect(rc == rc1 && strcmp(out, one) == 0,
                      "%s: --test-jobs %d differs from --test-jobs 1:\n%s\n---\n%s", subs[i],
                      lanes, out, one);
            free(out);
        }
        free(one);
    }
}

Test(cli, test_jobs_out_of_range_is_a_usage_error)
{
    static const char *const bad[] = {"0", "17", "two", ""};

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *cmd, *out;
        int rc;
        cr_assert(asprintf(&cmd, "\"$BUILD/grader\" grade --test-jobs '%s' reference/attention.c",
                           bad[i]) > 0);
        out = run(cmd, &rc);
        free(cmd);
        cr_expect(rc == 2, "--test-jobs '%s': exit %d", bad[i], rc);
        cr_expect(strstr(out, "--test-jobs takes a whole number from 1 to 16") != NULL,
                  "--test-jobs '%s':\n%s", bad[i], out);
        free(out);
    }
}

/* The lines of s (a last line without its newline counts). */
static size_t line_count(const char *s)
{
    size_t n = 0;

    for (const char *p = s; *p; p++)
        n += *p == '\n';
    return n + (s[0] != '\0' && s[strlen(s) - 1] != '\n');
}

/*
 * Issue 35: where the toolchain's file jail (Landlock) cannot be set up,
 * a grade or a batch with hidden tests is refused (exit 2, one line naming
 * the missing barrier and the fix): a submission's compile could pull the
 * hidden spec in with a token-pasted .incbin and print it into its
 * feedback. A public-only grade (a student's make check) goes on with the
 * warning. GRADER_TEST_NO_LANDLOCK makes the grader treat Landlock as
 * missing; it only adds the refusal (the jail still uses the kernel's).
 */
Test(cli, no_landlock_no_hidden_spec, .timeout = 300)
{
    char cls[] = "/tmp/attn-nojail-XXXXXX", *cmd, *out;
    const char *only = "--only '^softmax\\.rows_sum_to_one$'";
    int rc;

    cr_assert_not_null(mkdtemp(cls));
    cr_assert(asprintf(&cmd, "GRADER_TEST_NO_LANDLOCK=1 \"$BUILD/grader\" grade --spec "
                       "specs/public.yaml --spec specs/hidden.yaml %s reference/attention.c",
                       only) > 0);
    out = run(cmd, &rc);
    free(cmd);
    cr_expect_eq(rc, 2, "a hidden spec without Landlock: exit %d:\n%s", rc, out);
    cr_expect(line_count(out) == 1 && strstr(out, "grader: the grader could not grade") &&
                  strstr(out, "Landlock") && strstr(out, "hidden tests") &&
                  strstr(out, "public spec only"),
              "not one line naming the barrier and the fix:\n%s", out);
    free(out);

    cr_assert(asprintf(&cmd, "mkdir -p '%s/class/s1' && cp reference/attention.c '%s/class/s1/' && "
                       "GRADER_TEST_NO_LANDLOCK=1 \"$BUILD/grader\" batch --spec specs/public.yaml "
                       "--spec specs/hidden.yaml --jobs 1 --out '%s/book' '%s/class'",
                       cls, cls, cls, cls) > 0);
    out = run(cmd, &rc);
    free(cmd);
    cr_expect_eq(rc, 2, "a batch with a hidden spec without Landlock: exit %d:\n%s", rc, out);
    cr_expect(line_count(out) == 1 && strstr(out, "Landlock"), "batch:\n%s", out);
    free(out);

    cr_assert(asprintf(&cmd, "GRADER_TEST_NO_LANDLOCK=1 \"$BUILD/grader\" grade %s "
                       "reference/attention.c", only) > 0);
    out = run(cmd, &rc);
    free(cmd);
    cr_expect_eq(rc, 0, "a public-only grade without Landlock: exit %d:\n%s", rc, out);
    cr_expect(strstr(out, "the compiler runs without its file jail") && strstr(out, "score:"),
              "a public-only grade without Landlock: no warning or no rubric:\n%s", out);
    free(out);

    /* the variable is what refused: the same grade with Landlock present */
    out = run("\"$BUILD/grader\" grade --spec specs/public.yaml --spec specs/hidden.yaml "
              "--only '^softmax\\.rows_sum_to_one$' reference/attention.c", &rc);
    if (strstr(out, "runs without its file jail") == NULL)
        cr_expect_eq(rc, 0, "a hidden spec with Landlock: exit %d:\n%s", rc, out);
    free(out);
    cr_assert(asprintf(&cmd, "rm -rf '%s'", cls) > 0);
    cr_expect_eq(system(cmd), 0);
    free(cmd);
}
