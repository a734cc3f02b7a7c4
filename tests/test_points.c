/*
 * test_points.c -- points add up exactly (grade.h: whole hundredths).
 *
 * Two partial tests each pass 2 of 3 cases, beside a whole test of 55.33
 * points: the case, where a 4-decimal float score printed 57.3333
 * in the rubric and Classroom summed 57.3334. Every format must print each
 * test as 0.67 and a total that is the exact sum of the printed parts; the
 * formats must agree with each other and with grades.csv.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"
#include "support/b64_decode.h"
#include "grading.h"
#include "report/report.h"

#define REF TEST_SRCDIR "/reference/attention.c"

/* softmax.values with one case whose expected row is wrong on purpose:
 * the reference passes exactly 2 of its 3 cases. */
static const char yaml[] =
    "version: 1\n"
    "tests:\n"
    "  - id: softmax.values\n"
    "    title: two of three\n"
    "    function: softmax\n"
    "    property: values\n"
    "    points: 1\n"
    "    scoring: partial\n"
    "    cases:\n"
    "      - {cols: 2, values: [0, 0], expected: [0.5, 0.5]}\n"
    "      - {cols: 2, values: [1, 1], expected: [0.5, 0.5]}\n"
    "      - {cols: 2, values: [2, 2], expected: [0.25, 0.75]}\n"
    "  - id: softmax.values.again\n"
    "    title: two of three again\n"
    "    function: softmax\n"
    "    property: values\n"
    "    points: 1\n"
    "    scoring: partial\n"
    "    cases:\n"
    "      - {cols: 2, values: [0, 0], expected: [0.5, 0.5]}\n"
    "      - {cols: 2, values: [3, 3], expected: [0.5, 0.5]}\n"
    "      - {cols: 2, values: [4, 4], expected: [0.25, 0.75]}\n"
    "  - id: softmax.rows_sum_to_one\n"
    "    title: a whole test\n"
    "    function: softmax\n"
    "    property: rows_sum_to_one\n"
    "    points: 55.33\n"
    "    cases:\n"
    "      - {rows: 2, cols: 3}\n";

#define WANT_TOTAL 5667LL   /* 0.67 + 0.67 + 55.33 */
#define WANT_MAX 5733LL

/* A decimal with at most two decimals as hundredths; -1 if it has more
 * (a printed part finer than the total's granularity) or is not a number. */
static long long cents(const char *s)
{
    long long v = 0, frac = 0;
    int nfrac = 0;

    while (*s == ' ' || *s == '"')
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    while (isdigit((unsigned char)*s))
        v = v * 10 + (*s++ - '0');
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++, nfrac++)
            frac = frac * 10 + (*s - '0');
    if (nfrac > 2)
        return -1;
    for (; nfrac < 2; nfrac++)
        frac *= 10;
    return v * 100 + frac;
}

/* Sum of the numbers right after each `key` in s from `from` on; the
 * count of them in *n. */
static long long sum_after(const char *s, const char *key, size_t *n)
{
    long long sum = 0;

    *n = 0;
    for (const char *p = strstr(s, key); p != NULL; p = strstr(p + 1, key)) {
        long long c = cents(p + strlen(key));
        cr_expect(c >= 0, "'%s' is followed by a bad number: %.20s", key, p + strlen(key));
        sum += c;
        ++*n;
    }
    return sum;
}

/* Sum of the points earned on the rubric's test lines: `fmt` reads the
 * earned part ("  PASS   0.67/1.0  id", "| PASS | 0.67/1.0 | id |"). */
static long long sum_lines(const char *s, const char *fmt, size_t *n)
{
    static const char *const words[] = {"PASS ", "FAIL ", "CRASH ", "TIME ", "TODO ",
                                        "SKIP ", "MANUAL "};
    char pts[32];

    *n = 0;
    for (long long sum = 0;; s++) {
        const char *lead = s + strspn(s, " |");
        for (size_t w = 0; w < sizeof words / sizeof *words; w++)
            if (strncmp(lead, words[w], strlen(words[w])) == 0 && sscanf(s, fmt, pts) == 1) {
                long long c = cents(pts);
                cr_expect(c >= 0, "bad points '%s'", pts);
                sum += c;
                ++*n;
            }
        if ((s = strchr(s, '\n')) == NULL)
            return sum;
    }
}

static char *render(const struct grade_result *r, enum rpt_format f)
{
    struct sb sb;
    struct err e;

    sb_init(&sb, 0);
    cr_assert(rpt_write(r, f, NULL, &sb, &e) == 0, "%s: %s", rpt_format_name(f), e.msg);
    return sb_detach(&sb, NULL);
}

static struct grade_result *grade_thirds(struct spec_set **s)
{
    struct err e;
    struct grade_result *r;

    *s = spec_set_new();
    cr_assert(*s != NULL);
    cr_assert(spec_load_buffer(*s, "thirds.yaml", yaml, sizeof yaml - 1, gprop_check_case, &e) == 0,
              "%s", e.msg);
    r = tg_grade(*s, REF, NULL, &e);
    cr_assert(r != NULL, "%s", e.msg);
    return r;
}

Test(points, partial_scores_are_whole_hundredths)
{
    struct spec_set *s;
    struct grade_result *r = grade_thirds(&s);

    cr_assert(r->n_tests == 3);
    cr_expect(r->tests[0].cases_passed == 2 && r->tests[0].cases_run == 3);
    cr_expect(r->tests[0].score_cents == 67 && r->tests[1].score_cents == 67,
              "%lld %lld", r->tests[0].score_cents, r->tests[1].score_cents);
    cr_expect(r->tests[2].score_cents == 5533);
    cr_expect(r->score_cents == WANT_TOTAL && r->max_cents == WANT_MAX);
    cr_expect(r->score == 56.67 && r->max_score == 57.33, "%.17g / %.17g", r->score,
              r->max_score);
    grade_result_free(r);
    spec_set_free(s);
}

/* Every format: the parts printed, their sum, and the total printed. */
Test(points, every_format_totals_the_sum_of_its_printed_parts)
{
    struct spec_set *s;
    struct grade_result *r = grade_thirds(&s);
    char *text = render(r, RPT_TEXT), *md = render(r, RPT_MARKDOWN);
    char *gs = render(r, RPT_GRADESCOPE), *junit = render(r, RPT_JUNIT);
    char *tap = render(r, RPT_TAP), *cr = render(r, RPT_CLASSROOM);
    size_t n;
    struct sb dec;
    struct err e;
    const char *tests, *crjson;

    /* text: "  FAIL   0.67/1.0   id" lines, then "score: X / Y" */
    cr_expect(sum_lines(text, " %*s %31[^/]", &n) == WANT_TOTAL && n == 3, "%s", text);
    cr_expect(cents(strstr(text, "\nscore: ") + 8) == WANT_TOTAL, "%s", text);
    /* markdown: "| FAIL | 0.67/1.0 |" rows, "**Score: X / Y**" */
    cr_expect(sum_lines(md, "| %*s | %31[^/]", &n) == WANT_TOTAL && n == 3, "%s", md);
    cr_expect(cents(strstr(md, "**Score: ") + 9) == WANT_TOTAL, "%s", md);
    /* gradescope: the top-level score is the sum of the tests' */
    cr_assert((tests = strstr(gs, "\"tests\":[")) != NULL, "%s", gs);
    cr_expect(cents(gs + strlen("{\"score\":")) == WANT_TOTAL, "%s", gs);
    cr_expect(sum_after(tests, "\"score\":", &n) == WANT_TOTAL && n == 3, "%s", gs);
    /* classroom: no total of its own; the reporter adds the tests up */
    sb_init(&dec, 0);
    cr_assert(b64_decode(&dec, cr, strlen(cr), &e) == 0, "%s", e.msg);
    crjson = sb_str(&dec);
    cr_expect(sum_after(crjson, "\"score\":", &n) == WANT_TOTAL && n == 3, "%s", crjson);
    cr_expect(cents(strstr(crjson, "\"max_score\":") + 12) == WANT_MAX, "%s", crjson);
    /* junit: per test "points: X / Y", the suite's "score" */
    cr_expect(sum_after(junit, "<system-out>points: ", &n) == WANT_TOTAL && n == 3, "%s",
              junit);
    cr_expect(sum_after(junit, "name=\"score\" value=\"", &n) == WANT_TOTAL && n == 1, "%s",
              junit);
    /* tap: "  score: X" per test, "# score: X / Y" */
    cr_expect(sum_after(tap, "\n  score: ", &n) == WANT_TOTAL && n == 3, "%s", tap);
    cr_expect(cents(strstr(tap, "# score: ") + 9) == WANT_TOTAL, "%s", tap);
    free(text), free(md), free(gs), free(junit), free(tap), free(cr);
    sb_release(&dec);
    grade_result_free(r);
    spec_set_free(s);
}

/* grades.csv, through the row file the batch keeps: the score column is
 * the sum of the test columns, to the last digit. */
Test(points, gradebook_score_is_the_sum_of_its_columns)
{
    struct spec_set *s;
    struct grade_result *r = grade_thirds(&s);
    const char *ids[] = {"softmax.values", "softmax.values.again", "softmax.rows_sum_to_one"};
    struct bat_row row, back;
    struct sb tsv, csv;
    struct err e;
    char *line, *f[8];
    size_t nf = 0;

    cr_assert(bat_row_from_result(r, "alice", "v", &row, &e) == 0, "%s", e.msg);
    sb_init(&tsv, 0);
    sb_init(&csv, 0);
    cr_assert(bat_row_format(&row, &tsv) == 0);
    cr_assert(bat_row_parse(sb_str(&tsv), tsv.len, &back, &e) == 0, "%s", e.msg);
    cr_assert(bat_csv_write(ids, 3, &back, 1, &csv) == 0);
    line = strstr(sb_str(&csv), "\nalice,");
    cr_assert(line != NULL, "%s", sb_str(&csv));
    for (char *p = line + 1; p != NULL && nf < 8; p = strchr(p, ','))
        f[nf++] = *p == ',' ? ++p : p;
    cr_assert(nf >= 7, "%s", line);
    /* id, score, max_score, status, the three tests */
    cr_expect(cents(f[1]) == WANT_TOTAL && cents(f[2]) == WANT_MAX, "%s", line);
    cr_expect(cents(f[4]) + cents(f[5]) + cents(f[6]) == cents(f[1]), "%s", line);
    cr_expect(cents(f[4]) == 67 && cents(f[5]) == 67, "%s", line);
    bat_row_release(&row);
    bat_row_release(&back);
    sb_release(&tsv);
    sb_release(&csv);
    grade_result_free(r);
    spec_set_free(s);
}
