/* test_report.c -- report.h: every format, from hand-built results. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/b64.h"
#include "support/b64_decode.h"
#include "core/json.h"
#include "support/json_read.h"
#include "report/report.h"

#ifndef TEST_SRCDIR
#define TEST_SRCDIR "."
#endif

/* Bytes a student's output can contain, all in one message. */
#define NASTY "q\"uote \\back\\slash </failure> ]]> a|b ```fence``` #x " \
              "\x01\x1b[31mred\x7f \xff\xfe bad \xc0\xaf \r\nline2 & <tag> 'a'"

static const char *const deps_sdpa[] = { "softmax.rows_sum_to_one" };

static const struct spec_test specs[] = {
    { .id = "softmax.rows_sum_to_one", .title = "every row sums to one",
      .function = "softmax", .points = 2, .visibility = SPEC_VISIBLE,
      .file = "specs/softmax.yaml", .line = 3 },
    { .id = "sdpa.mask", .title = "masked keys get zero weight",
      .function = "sdpa", .points = 2, .scoring = SPEC_PARTIAL,
      .visibility = SPEC_VISIBLE, .depends_on = deps_sdpa, .n_depends_on = 1,
      .file = "specs/sdpa.yaml", .line = 10 },
    { .id = "sdpa.hidden_large", .title = "large logits | no NaN #1",
      .function = "sdpa", .points = 2, .visibility = SPEC_HIDDEN,
      .file = "specs/sdpa.yaml", .line = 20 },
    { .id = "mha.manual_review", .title = "code is readable",
      .function = "mha", .points = 1, .visibility = SPEC_AFTER_DUE_DATE,
      .file = "specs/mha.yaml", .line = 1 },
};
#define N_SPECS (sizeof specs / sizeof *specs)

enum scenario { FULL, PARTIAL, ZERO, STUB, COMPILE, NASTY_MSG, MANUAL };
#define N_SCENARIOS 7

static void set_test(struct grade_test *t, size_t i, enum grade_test_status s,
                     double score, const char *msg)
{
    t->test = &specs[i];
    t->status = s;
    t->score = score;
    t->max_score = specs[i].points;
    t->message = strdup(msg);
    t->hint = strdup(s == TEST_PASSED ? "" : "subtract the row maximum first");
    t->repro = strdup(i == 1 ? "make check ONLY='^sdpa\\.mask$'"
                             : "make check ONLY='^x$'");
    t->elapsed_ms = 12.5 * (double)(i + 1);
}

/* Statuses and scores of the four tests in each scenario. */
static void fill(struct grade_result *r, enum scenario sc)
{
    static const enum grade_test_status st[N_SCENARIOS][N_SPECS] = {
        [FULL] = { TEST_PASSED, TEST_PASSED, TEST_PASSED, TEST_PASSED },
        [PARTIAL] = { TEST_FAILED, TEST_FAILED, TEST_CRASHED, TEST_PASSED },
        [ZERO] = { TEST_FAILED, TEST_TIMED_OUT, TEST_CRASHED, TEST_FAILED },
        [STUB] = { TEST_NOT_IMPLEMENTED, TEST_NOT_IMPLEMENTED,
                   TEST_NOT_IMPLEMENTED, TEST_NOT_IMPLEMENTED },
        [COMPILE] = { TEST_NOT_RUN, TEST_NOT_RUN, TEST_NOT_RUN, TEST_NOT_RUN },
        [NASTY_MSG] = { TEST_FAILED, TEST_PASSED, TEST_FAILED, TEST_PASSED },
        [MANUAL] = { TEST_PASSED, TEST_PASSED, TEST_PASSED,
                     TEST_MANUAL_PENDING },
    };
    size_t i;

    for (i = 0; i < N_SPECS; i++) {
        enum grade_test_status s = st[sc][i];
        double pts = s == TEST_PASSED ? specs[i].points : 0;

        if (sc == PARTIAL && i == 1)
            pts = 1.2;   /* 3 of 5 cases */
        set_test(&r->tests[i], i, s, pts,
                 s == TEST_PASSED ? ""
                 : sc == NASTY_MSG ? NASTY
                 : s == TEST_NOT_IMPLEMENTED || s == TEST_NOT_RUN ? ""
                 : "row 2, col 3: expected 0.25, got 0.5 (tolerance 1e-05)");
        r->score += pts;
    }
}

static struct grade_result *make(enum scenario sc)
{
    struct grade_result *r = calloc(1, sizeof *r);
    size_t i;

    r->n_tests = N_SPECS;
    r->tests = calloc(N_SPECS, sizeof *r->tests);
    r->submission = strdup(sc == NASTY_MSG ? "sub\x1b]0;x\x07/\xff.c"
                                           : "submissions/alice/attention.c");
    snprintf(r->spec_sha256, sizeof r->spec_sha256, "%064d", 7);
    r->seed = 42;
    r->elapsed_ms = 1234.5;
    for (i = 0; i < N_SPECS; i++)
        r->max_score += specs[i].points;
    fill(r, sc);
    if (sc == PARTIAL) {
        r->tests[1].cases_passed = 3;
        r->tests[1].cases_run = 5;
        r->tests[1].dependency_failed = 1;
    }
    if (sc == COMPILE) {
        struct sb d;

        r->status = GRADE_COMPILE_ERROR;
        sb_init(&d, 0);
        for (i = 0; i < 30; i++)
            cr_assert_eq(sb_addf(&d, "attention.c:%zu:5: error: expected ';'\n",
                                 i + 1), 0);
        r->status_detail = sb_detach(&d, NULL);
    }
    r->warnings = strdup(sc == NASTY_MSG ? NASTY : "");
    return r;
}

static void destroy(struct grade_result *r)
{
    size_t i;

    for (i = 0; i < r->n_tests; i++) {
        free(r->tests[i].message);
        free(r->tests[i].hint);
        free(r->tests[i].repro);
    }
    free(r->tests);
    free(r->status_detail);
    free(r->warnings);
    free(r->submission);
    free(r);
}

/* The report as a malloc'ed string; fails the test on error. */
static char *render(const struct grade_result *r, enum rpt_format f,
                    const struct rpt_opts *o, size_t *len)
{
    struct sb sb;
    struct err e;

    sb_init(&sb, 0);
    err_clear(&e);
    cr_assert_eq(rpt_write(r, f, o, &sb, &e), 0, "%s: %s",
                 rpt_format_name(f), e.msg);
    return sb_detach(&sb, len);
}

static char *write_temp(const char *data, size_t n, const char *suffix)
{
    char *path = NULL;
    int fd;

    cr_assert(asprintf(&path, "/tmp/test_report_XXXXXX%s", suffix) > 0);
    fd = mkstemps(path, (int)strlen(suffix));
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, data, n), (ssize_t)n);
    close(fd);
    return path;
}

static int valid_utf8(const char *s, size_t n)
{
    size_t i = 0, adv;

    while (i < n) {
        if (sb_utf8_next(s + i, n - i, &adv) < 0)
            return 0;
        i += adv;
    }
    return 1;
}

Test(report, format_names_round_trip)
{
    static const char *const names[] = {
        "text", "gradescope", "classroom", "junit", "tap", "markdown", "github"
    };
    size_t i;

    for (i = 0; i < sizeof names / sizeof *names; i++) {
        cr_expect_eq(rpt_format_parse(names[i]), (int)i);
        cr_expect_str_eq(rpt_format_name((enum rpt_format)i), names[i]);
    }
    cr_expect_eq(rpt_format_parse("md"), RPT_MARKDOWN);
    cr_expect_eq(rpt_format_parse("xml"), -1);
    cr_expect_eq(rpt_format_parse(NULL), -1);
}

Test(report, every_format_is_deterministic_and_utf8)
{
    int sc, f;

    for (sc = 0; sc < N_SCENARIOS; sc++) {
        struct grade_result *r = make((enum scenario)sc);

        for (f = RPT_TEXT; f <= RPT_GITHUB; f++) {
            size_t n1, n2;
            char *a = render(r, (enum rpt_format)f, NULL, &n1);
            char *b = render(r, (enum rpt_format)f, NULL, &n2);

            cr_expect(n1 == n2 && memcmp(a, b, n1) == 0, "sc %d fmt %d", sc, f);
            cr_expect(valid_utf8(a, n1), "sc %d fmt %d", sc, f);
            cr_expect_null(memchr(a, 0x1b, n1), "escape byte: sc %d fmt %d",
                           sc, f);
            free(a);
            free(b);
        }
        destroy(r);
    }
}

Test(report, text_reads_as_a_rubric)
{
    struct grade_result *r = make(PARTIAL);
    char *s = render(r, RPT_TEXT, NULL, NULL);

    cr_expect(strstr(s, "  PASS   1.0/1.0") != NULL, "%s", s);
    cr_expect(strstr(s, "FAIL   1.2/2.0    sdpa.mask  masked keys get zero weight  (3/5 cases)\n") != NULL);
    cr_expect(strstr(s, "CRASH") != NULL);
    cr_expect(strstr(s, "3/5 cases passed") != NULL);
    cr_expect(strstr(s, "hint: subtract the row maximum first") != NULL);
    cr_expect(strstr(s, "reproduce: make check ONLY='^sdpa\\.mask$'") != NULL);
    /* the withheld label comes first, in its one-line form */
    cr_expect(strstr(s, "(3/5 cases)\n          depends on softmax.rows_sum_to_one: fix that "
                        "first\n") != NULL, "%s", s);
    cr_expect(strstr(s, "score:      2.2 / 7.0") != NULL);
    cr_expect(strstr(s, "seed:       42") != NULL);
    cr_expect(strstr(s, "spec:       000000000000\n") != NULL);
    cr_expect(strstr(s, "how to read this") != NULL);
    free(s);
    destroy(r);
}

Test(report, text_colours_only_when_asked)
{
    struct grade_result *r = make(PARTIAL);
    struct rpt_opts o = { .color = 1 };
    char *s = render(r, RPT_TEXT, &o, NULL);

    cr_expect(strstr(s, "\033[32mPASS\033[0m") != NULL);
    cr_expect(strstr(s, "\033[31mFAIL\033[0m") != NULL);
    free(s);
    destroy(r);
}

Test(report, stub_reads_not_implemented_yet)
{
    struct grade_result *r = make(STUB);
    char *s = render(r, RPT_TEXT, NULL, NULL);
    char *m = render(r, RPT_MARKDOWN, NULL, NULL);

    cr_expect(strstr(s, "not implemented yet: softmax, sdpa, mha") != NULL,
              "%s", s);
    cr_expect(strstr(m, "Not implemented yet:** softmax, sdpa, mha") != NULL);
    free(s);
    free(m);
    destroy(r);
}

/* A function whose every test is a stub is one line (its points, how many
 * tests), not a row, a message, a hint and a reproduce line per test;
 * --verbose gives each its row and details again. */
Test(report, stubs_collapse_to_one_line_per_function)
{
    struct grade_result *r = make(STUB);
    struct rpt_opts verbose = { .verbose = 1 };
    char *s = render(r, RPT_TEXT, NULL, NULL), *m = render(r, RPT_MARKDOWN, NULL, NULL);
    char *v = render(r, RPT_TEXT, &verbose, NULL);

    cr_expect(strstr(s, "\n  TODO   0.0/2.0    softmax: 1 test, not implemented yet\n"
                        "  TODO   0.0/4.0    sdpa: 2 tests, not implemented yet\n"
                        "  TODO   0.0/1.0    mha: 1 test, not implemented yet\n") != NULL,
              "%s", s);
    cr_expect_null(strstr(s, "sdpa.mask"), "%s", s);
    cr_expect_null(strstr(s, "reproduce:"), "%s", s);
    cr_expect_null(strstr(s, "hint:"), "%s", s);
    /* feedback.md: no section per stub; the table keeps a row per test */
    cr_expect(strstr(m, "| TODO | 0.0/2.0 | sdpa.mask |") != NULL, "%s", m);
    cr_expect_null(strstr(m, "### TODO"), "%s", m);
    cr_expect(strstr(v, "  TODO   0.0/2.0    sdpa.mask  masked keys get zero weight\n") != NULL,
              "%s", v);
    cr_expect(strstr(v, "not implemented yet: 'sdpa' still returns ATTN_ENOTIMPL") != NULL,
              "%s", v);
    free(s);
    free(m);
    free(v);
    destroy(r);
}

/* The first screen is for failures: each one in full, then the passing
 * tests one line per function (--verbose: a row each), in text and in
 * Markdown; only the order changes, never a score. */
Test(report, failures_come_before_passes)
{
    struct grade_result *r = make(NASTY_MSG);
    struct rpt_opts verbose = { .verbose = 1 };
    char *s = render(r, RPT_TEXT, NULL, NULL), *m = render(r, RPT_MARKDOWN, NULL, NULL);
    char *v = render(r, RPT_TEXT, &verbose, NULL);
    const char *fail = strstr(s, "  FAIL "), *pass = strstr(s, "  PASS ");

    cr_assert(fail != NULL && pass != NULL, "%s", s);
    cr_expect(fail < pass && strstr(s, "hint:") < pass, "%s", s);
    /* softmax (FAIL), sdpa (PASS, FAIL), mha (PASS): one line per function */
    cr_expect(strstr(s, "  PASS   2.0/2.0    sdpa: 1 of 2 tests passed (the other is above)\n")
              != NULL, "%s", s);
    cr_expect(strstr(s, "  PASS   1.0/1.0    mha: 1 test passed\n") != NULL, "%s", s);
    cr_expect_null(strstr(s, "sdpa.mask"), "%s", s);
    cr_expect(strstr(v, "  PASS   2.0/2.0    sdpa.mask") > strstr(v, "  FAIL "), "%s", v);
    cr_expect(strstr(m, "## What went wrong") < strstr(m, "## Tests"), "%s", m);
    cr_expect(strstr(m, "| FAIL |") < strstr(m, "| PASS |"), "%s", m);
    cr_expect(strstr(m, "| PASS | 2.0/2.0 | sdpa.mask |") > strstr(m, "| FAIL | 0.0/2.0 | "
                                                                 "sdpa.hidden\\_large |"), "%s", m);
    free(s);
    free(m);
    free(v);
    destroy(r);
}

/* Manual items are listed apart, below the passes, as the staff's: the
 * function's line does not send the student "above" for them, and they
 * carry no reproduce line (rerunning one says "pending" again). */
Test(report, manual_items_are_below_and_without_a_command)
{
    struct grade_result *r = make(MANUAL);
    char *s, *below;

    r->tests[2].status = TEST_MANUAL_PENDING;   /* sdpa: one passed, one manual */
    r->tests[2].score = 0;
    s = render(r, RPT_TEXT, NULL, NULL);
    cr_expect(strstr(s, "  PASS   2.0/2.0    sdpa: 1 test passed (1 more scored by the "
                        "course staff, below)\n") != NULL, "%s", s);
    cr_expect_null(strstr(s, "above"), "%s", s);
    below = strstr(s, "  MANUAL ");
    cr_assert_not_null(below, "%s", s);
    cr_expect_null(strstr(below, "reproduce:"), "%s", s);
    free(s);
    r->tests[0].status = TEST_FAILED;   /* and a failure above */
    r->tests[0].score = 0;
    s = render(r, RPT_TEXT, NULL, NULL);
    cr_expect(strstr(s, "reproduce: make check ONLY='^x$'") != NULL, "%s", s);
    free(s);
    r->tests[0].status = TEST_PASSED;
    r->tests[1].status = TEST_FAILED;
    r->tests[3].status = TEST_PASSED;
    r->tests[3].test = &specs[2];   /* sdpa: a pass, a failure, a manual item */
    s = render(r, RPT_TEXT, NULL, NULL);
    cr_expect(strstr(s, "sdpa: 1 of 3 tests passed (1 above, 1 scored by the course staff "
                        "below)") != NULL, "%s", s);
    free(s);
    r->tests[3].test = &specs[3];
    destroy(r);
}

Test(report, compile_error_is_shown_first_and_clipped)
{
    struct grade_result *r = make(COMPILE);
    char *s = render(r, RPT_TEXT, NULL, NULL);
    char *banner = strstr(s, "COMPILE ERROR");

    cr_assert_not_null(banner);
    cr_expect(strstr(s, "attention.c:20:5: error") != NULL);
    cr_expect_null(strstr(s, "attention.c:21:5: error"));
    cr_expect(strstr(s, "(10 more lines not shown)") != NULL);
    free(s);
    destroy(r);
}

/* A compile error is the compiler's message and one "no test ran" line,
 * not a SKIP row with a hint per test (in text and in feedback.md). */
Test(report, compile_error_shows_one_no_test_ran_line)
{
    static const enum rpt_format fmts[] = { RPT_TEXT, RPT_MARKDOWN };

    for (size_t k = 0; k < 2; k++) {
        struct grade_result *r = make(COMPILE);
        char *s = render(r, fmts[k], NULL, NULL);
        char *line = strstr(s, "no test ran (4 tests");

        cr_assert_not_null(line, "%s", s);
        cr_expect(strstr(s, "COMPILE ERROR") < line);
        cr_expect_null(strstr(s, "SKIP"), "%s", s);
        cr_expect_null(strstr(s, "hint:"), "%s", s);
        cr_expect_null(strstr(s, "softmax.rows_sum_to_one"), "%s", s);
        cr_expect_null(strstr(line + 1, "no test ran"));
        free(s);
        destroy(r);
    }
}

Test(report, hidden_details_are_redacted_on_request)
{
    struct grade_result *r = make(PARTIAL);
    struct rpt_opts o = { .redact_hidden = 1 };
    char *s = render(r, RPT_TEXT, &o, NULL);

    cr_expect(strstr(s, "details of hidden tests are not shown") != NULL);
    free(s);
    destroy(r);
}

/* Sum of tests[].score and a check of every test's keys. */
static double gs_check(const struct json_value *v, size_t *manual)
{
    const struct json_value *tests = json_get(v, "tests");
    double sum = 0;
    size_t i;

    cr_assert_not_null(tests);
    *manual = 0;
    for (i = 0; i < tests->n; i++) {
        const struct json_value *t = json_at(tests, i), *st = json_get(t, "status");

        cr_expect_not_null(json_get(t, "max_score"));
        cr_expect_not_null(json_get(t, "name"));
        cr_expect_not_null(json_get(t, "visibility"));
        if (json_get(t, "score") == NULL) {
            (*manual)++;
            cr_expect_null(st);
            cr_expect_str_eq(json_get(t, "output")->str, "manual: pending");
            continue;
        }
        cr_assert_not_null(st);
        cr_expect(strcmp(st->str, "passed") == 0 || strcmp(st->str, "failed") == 0);
        sum += json_get(t, "score")->num;
    }
    return sum;
}

Test(report, gradescope_is_valid_json_with_right_sums)
{
    int sc;

    for (sc = 0; sc < N_SCENARIOS; sc++) {
        struct grade_result *r = make((enum scenario)sc);
        size_t n, manual;
        char *s = render(r, RPT_GRADESCOPE, NULL, &n);
        struct err e;
        struct json_value *v = json_parse(s, n, &e);

        cr_assert_not_null(v, "scenario %d: %s\n%s", sc, e.msg, s);
        cr_expect(fabs(gs_check(v, &manual) - r->score) < 1e-9, "sc %d", sc);
        cr_expect(fabs(json_get(v, "score")->num - r->score) < 1e-9);
        cr_expect_eq(json_get(v, "execution_time")->num, 1);
        cr_expect_eq(manual, sc == MANUAL);
        cr_expect_eq(json_get(v, "output")->type, JSON_STR);
        cr_expect_str_eq(json_get(json_at(json_get(v, "tests"), 2),
                                  "visibility")->str, "after_published");
        /* nothing of the tests that are not visible at the top */
        cr_expect_null(strstr(json_get(v, "output")->str, "hidden_large"),
                       "sc %d: %s", sc, json_get(v, "output")->str);
        json_free(v);
        free(s);
        destroy(r);
    }
}

Test(report, gradescope_keeps_nasty_bytes_escaped)
{
    struct grade_result *r = make(NASTY_MSG);
    size_t n;
    char *s = render(r, RPT_GRADESCOPE, NULL, &n);
    struct json_value *v = json_parse(s, n, NULL);
    const char *out;

    cr_assert_not_null(v);
    out = json_get(json_at(json_get(v, "tests"), 0), "output")->str;
    cr_expect(strstr(out, "q\"uote \\back\\slash </failure> ]]> a|b") != NULL);
    cr_expect(strstr(out, "\x1b[31mred\x7f \xef\xbf\xbd\xef\xbf\xbd bad") != NULL);
    cr_expect(strstr(s, "\\u001b[31m") != NULL);
    json_free(v);
    free(s);
    destroy(r);
}

static const char *const classroom_status[N_SCENARIOS] = {
    [FULL] = "pass", [PARTIAL] = "fail", [ZERO] = "fail", [STUB] = "fail",
    [COMPILE] = "error", [NASTY_MSG] = "fail", [MANUAL] = "pass",
};

Test(report, classroom_decodes_and_sums_to_the_score)
{
    int sc;

    for (sc = 0; sc < N_SCENARIOS; sc++) {
        struct grade_result *r = make((enum scenario)sc);
        size_t n, i;
        char *s = render(r, RPT_CLASSROOM, NULL, &n);
        struct sb raw;
        struct json_value *v, *t;
        double sum = 0;

        sb_init(&raw, 0);
        cr_assert_eq(b64_decode(&raw, s, n, NULL), 0, "scenario %d", sc);
        v = json_parse(sb_str(&raw), raw.len, NULL);
        cr_assert_not_null(v, "scenario %d: %s", sc, sb_str(&raw));
        cr_expect_eq(json_get(v, "version")->num, 1);
        cr_expect_str_eq(json_get(v, "status")->str, classroom_status[sc],
                         "scenario %d", sc);
        t = (struct json_value *)json_get(v, "tests");
        for (i = 0; i < t->n; i++) {
            sum += json_get(&t->items[i], "score")->num;
            cr_expect_not_null(json_get(&t->items[i], "test_code"));
            cr_expect_not_null(json_get(&t->items[i], "line_no"));
            cr_expect_not_null(json_get(&t->items[i], "duration"));
        }
        cr_expect(fabs(sum - r->score) < 1e-9, "scenario %d", sc);
        cr_expect_eq(json_get(v, "max_score")->num, sc == MANUAL ? 6 : 7);
        json_free(v);
        sb_release(&raw);
        free(s);
        destroy(r);
    }
}

Test(report, junit_validates_against_the_schema)
{
    int sc;

    for (sc = 0; sc < N_SCENARIOS; sc++) {
        struct grade_result *r = make((enum scenario)sc);
        size_t n;
        char *s = render(r, RPT_JUNIT, NULL, &n);
        char *path = write_temp(s, n, ".xml"), *cmd = NULL;

        cr_assert(asprintf(&cmd, "xmllint --noout --schema %s/tests/junit-10.xsd "
                           "%s >/dev/null 2>&1", TEST_SRCDIR, path) > 0);
        cr_expect_eq(system(cmd), 0, "scenario %d: %s\n%s", sc, cmd, s);
        unlink(path);
        free(cmd);
        free(path);
        free(s);
        destroy(r);
    }
}

Test(report, junit_escapes_markup)
{
    struct grade_result *r = make(NASTY_MSG);
    char *s = render(r, RPT_JUNIT, NULL, NULL);

    cr_expect_null(strstr(s, "</failure> ]]>"));
    cr_expect(strstr(s, "&lt;/failure&gt; ]]&gt;") != NULL);
    cr_expect(strstr(s, "<system-out>points: 0 / 2\n") != NULL);
    free(s);
    destroy(r);
}

/* The number of times needle occurs in s. */
static size_t count_of(const char *s, const char *needle)
{
    size_t n = 0;

    while ((s = strstr(s, needle)) != NULL)
        n++, s++;
    return n;
}

Test(report, junit_compile_error_is_one_error_holding_the_compiler_message)
{
    struct grade_result *r = make(COMPILE);
    char *s = render(r, RPT_JUNIT, NULL, NULL);
    const char *tc = strstr(s, "<testcase"), *end = strstr(s, "</testcase>");
    const char *body, *msg;

    cr_expect_eq(count_of(s, "<testcase"), 1, "%s", s);
    cr_expect_eq(count_of(s, "<error"), 1);
    cr_expect_eq(count_of(s, "<failure"), 0);
    cr_expect(strstr(s, "tests=\"1\" failures=\"0\" errors=\"1\"") != NULL);
    cr_assert(tc && end);
    /* the message sits in the test case itself, not only in system-out */
    body = strstr(tc, "attention.c:30:5: error: expected &apos;;&apos;");
    msg = strstr(tc, "message=\"attention.c:1:5: error: expected &apos;;&apos;\"");
    cr_expect(body != NULL && body < end, "%s", s);
    cr_expect(msg != NULL && msg < end, "%s", s);
    free(s);
    destroy(r);
}

/* prove's exit status on the TAP of scenario sc (0: all passed). */
static int prove(enum scenario sc, char **log_text)
{
    struct grade_result *r = make(sc);
    size_t n;
    char *s = render(r, RPT_TAP, NULL, &n);
    char *path = write_temp(s, n, ".tap"), *cmd = NULL;
    char *log = write_temp("", 0, ".log");
    FILE *f;
    int rc;

    cr_assert(asprintf(&cmd, "prove --exec cat %s >%s 2>&1", path, log) > 0);
    rc = system(cmd);
    f = fopen(log, "r");
    *log_text = calloc(1, 65536);
    if (f && fread(*log_text, 1, 65535, f)) {}
    if (f)
        fclose(f);
    unlink(path);
    unlink(log);
    free(cmd);
    free(path);
    free(log);
    free(s);
    destroy(r);
    return rc;
}

Test(report, tap_is_accepted_by_prove)
{
    static const int should_pass[N_SCENARIOS] = {
        [FULL] = 1, [MANUAL] = 1,
    };
    int sc;

    for (sc = 0; sc < N_SCENARIOS; sc++) {
        char *log;
        int rc = prove((enum scenario)sc, &log);

        cr_expect_eq(rc == 0, should_pass[sc], "scenario %d: %s", sc, log);
        cr_expect_null(strstr(log, "Parse errors"), "scenario %d: %s", sc, log);
        cr_expect_null(strstr(log, "YAMLish"), "scenario %d: %s", sc, log);
        free(log);
    }
}

Test(report, markdown_tables_survive_pipes_and_fences)
{
    struct grade_result *r = make(NASTY_MSG);
    char *s = render(r, RPT_MARKDOWN, NULL, NULL);
    const char *row = strstr(s, "| FAIL | 0.0/2.0 | sdpa.hidden\\_large |");

    cr_assert_not_null(row, "%s", s);
    cr_expect(strstr(row, "large logits \\| no NaN \\#1 |") != NULL);
    /* the message holds ``` so its fence must be longer */
    cr_expect(strstr(s, "````text\nq\"uote") != NULL, "%s", s);
    free(s);
    destroy(r);
}

Test(report, small_cap_is_an_error_not_a_bad_report)
{
    struct grade_result *r = make(PARTIAL);
    int f;

    for (f = RPT_TEXT; f <= RPT_GITHUB; f++) {
        struct sb sb;
        struct err e;

        sb_init(&sb, 64);
        err_clear(&e);
        cr_expect_eq(rpt_write(r, (enum rpt_format)f, NULL, &sb, &e), -1);
        cr_expect(strstr(e.msg, "does not fit") || strstr(e.msg, "base64"),
                  "%s", e.msg);
        cr_expect(sb.len <= 64);
        sb_release(&sb);
    }
    destroy(r);
}

Test(report, github_output_appends_lines)
{
    char *path = write_temp("x=1\n", 4, ".out");
    char buf[256] = "";
    struct err e;
    FILE *f;

    cr_expect_eq(rpt_append_github_output(path, "result", "YWJj", &e), 0);
    cr_expect_eq(rpt_append_github_output(path, "multi", "a\nb", &e), 0);
    cr_expect_eq(rpt_append_github_output(path, "bad=key", "v", &e), -1);
    cr_expect_eq(rpt_append_github_output(path, "", "v", &e), -1);
    f = fopen(path, "r");
    cr_assert_not_null(f);
    cr_expect(fread(buf, 1, sizeof buf - 1, f) > 0);
    fclose(f);
    cr_expect_str_eq(buf, "x=1\nresult=YWJj\nmulti<<ghadelimiter_rpt_0\na\nb\n"
                          "ghadelimiter_rpt_0\n");
    cr_expect_eq(rpt_append_github_output("/nonexistent/dir/f", "k", "v", &e),
                 -1);
    unlink(path);
    free(path);
}

Test(report, no_colour_off_a_terminal)
{
    int fd = open("/dev/null", O_WRONLY);

    cr_assert(fd >= 0);
    cr_expect_eq(rpt_want_color(fd), 0);
    close(fd);
}

/* Lines of s before "::stop-commands::TOKEN", each checked to be one
 * annotation; the fenced rubric ends with "::TOKEN::". */
static size_t gh_annotations(const char *s, const char *want, size_t *with)
{
    const char *p = s, *stop = strstr(s, "::stop-commands::");
    char token[80];
    size_t n = 0, tl;

    cr_assert_not_null(stop, "no ::stop-commands:: in:\n%s", s);
    *with = 0;
    while (p < stop) {
        const char *eol = strchr(p, '\n');

        cr_assert(eol && eol < stop);
        /* the diagnosis lines: one notice, not an annotation of a test
         * (tests/test_feedback.c checks what it says) */
        if (strncmp(p, "::notice file=", 14) == 0 &&
            memmem(p, (size_t)(eol - p), ",title=diagnosis::diagnosis (", 29)) {
            p = eol + 1;
            continue;
        }
        cr_expect(strncmp(p, "::error file=", 13) == 0 ||
                  strncmp(p, "::warning file=", 15) == 0, "%.*s", (int)(eol - p), p);
        n++;
        if (want && memmem(p, (size_t)(eol - p), want, strlen(want)))
            (*with)++;
        p = eol + 1;
    }
    tl = strcspn(stop + 17, "\n");
    cr_assert(tl > 8 && tl < sizeof token - 4);
    snprintf(token, sizeof token, "\n::%.*s::\n", (int)tl, stop + 17);
    cr_expect(strlen(s) > strlen(token) &&
              strcmp(s + strlen(s) - strlen(token), token) == 0,
              "the rubric does not end with its token");
    cr_expect_eq(strstr(stop + 17 + tl, token), s + strlen(s) - strlen(token),
                 "the token occurs inside the rubric");
    return n;
}

Test(report, github_annotates_each_failure_on_one_line_then_fences_the_rubric)
{
    static const struct { enum scenario sc; size_t errors; const char *with; size_t n_with; } want[] = {
        { FULL, 0, NULL, 0 },
        { PARTIAL, 3, "title=sdpa.mask (1.2/2.0)::", 1 },
        { COMPILE, 30, ",col=5,title=compile error::error: expected", 0 },
        { NASTY_MSG, 2, "%0D%0Aline2", 2 },
        { MANUAL, 0, NULL, 0 },
    };
    size_t i, with;

    for (i = 0; i < sizeof want / sizeof *want; i++) {
        struct grade_result *r = make(want[i].sc);
        char *s = render(r, RPT_GITHUB, NULL, NULL);
        size_t n = gh_annotations(s, want[i].with, &with);

        cr_expect_eq(n, want[i].errors, "scenario %d: %zu annotations:\n%s",
                     want[i].sc, n, s);
        if (want[i].with)
            cr_expect_geq(with, want[i].n_with ? want[i].n_with : n,
                          "scenario %d: '%s' in %zu:\n%s", want[i].sc,
                          want[i].with, with, s);
        cr_expect(strstr(s, "attention-grader report") != NULL);
        free(s);
        destroy(r);
    }
}

/* feedback.md before publication: the hidden and after-due-date tests
 * leave only their count and points; the score is the visible tests'. */
Test(report, student_view_leaves_out_hidden_tests)
{
    struct grade_result *r = make(PARTIAL);
    struct rpt_opts o = { .student_view = 1 };
    char *s;

    for (size_t i = 0; i < r->n_tests; i++) {
        r->tests[i].score_cents = (long long)(r->tests[i].score * 100 + 0.5);
        r->tests[i].max_cents = (long long)(r->tests[i].max_score * 100 + 0.5);
    }
    s = render(r, RPT_MARKDOWN, &o, NULL);
    cr_expect(strstr(s, "hidden\\_large") == NULL && strstr(s, "manual\\_review") == NULL,
              "%s", s);
    cr_expect(strstr(s, "large logits") == NULL && strstr(s, "readable") == NULL, "%s", s);
    cr_expect(strstr(s, "**Hidden tests:** 2 more tests worth 3.0 points are graded too.")
              != NULL, "%s", s);
    cr_expect(strstr(s, "**Score: 1.2 / 4.0** (0 of 2 tests passed)") != NULL, "%s", s);
    free(s);
    s = render(r, RPT_MARKDOWN, NULL, NULL);
    cr_expect(strstr(s, "hidden\\_large") != NULL, "the staff view lost a test");
    free(s);
    destroy(r);
}
