/*
 * test_gates.c -- points require correct values (grade_gate.h): a test
 * earns its points only when the value tests it depends on earned all of
 * theirs; the shipped specs gate every test that is not a value test.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading.h"
#include "report/report.h"

#define REF TEST_SRCDIR "/reference/attention.c"
#define NO_SCALE TEST_CATDIR "/submissions/sdpa_no_scale.c"

/* The reference fails softmax.values.broken (its expected row is wrong on
 * purpose) and passes everything else; the rest depend on it, directly or
 * through one another. */
static const char yaml[] =
    "version: 1\n"
    "tests:\n"
    "  - id: softmax.values.broken\n"
    "    title: a hand case written wrong\n"
    "    function: softmax\n"
    "    property: values\n"
    "    points: 2\n"
    "    scoring: partial\n"
    "    cases:\n"
    "      - {cols: 2, values: [0, 0], expected: [0.5, 0.5]}\n"
    "      - {cols: 2, values: [1, 1], expected: [0.25, 0.75]}\n"
    "  - id: softmax.values\n"
    "    title: right\n"
    "    function: softmax\n"
    "    property: values\n"
    "    points: 1\n"
    "    cases:\n"
    "      - {cols: 2, values: [0, 0], expected: [0.5, 0.5]}\n"
    "  - id: softmax.einval\n"
    "    title: gated by the broken value test\n"
    "    function: softmax\n"
    "    property: einval\n"
    "    points: 1\n"
    "    depends_on: [softmax.values.broken]\n"
    "    cases:\n"
    "      - {rows: 2, cols: 3}\n"
    "  - id: softmax.no_leaks\n"
    "    title: gated through einval\n"
    "    function: softmax\n"
    "    property: no_leaks\n"
    "    points: 1\n"
    "    depends_on: [softmax.einval]\n"
    "    cases:\n"
    "      - {rows: 2, cols: 3}\n"
    "  - id: softmax.deterministic\n"
    "    title: gated by a value test that passes\n"
    "    function: softmax\n"
    "    property: deterministic\n"
    "    points: 1\n"
    "    depends_on: [softmax.values]\n"
    "    cases:\n"
    "      - {rows: 2, cols: 3}\n";

static struct spec_set *load_yaml(void)
{
    struct spec_set *s = spec_set_new();
    struct err e;

    cr_assert(s != NULL);
    cr_assert(spec_load_buffer(s, "gates.yaml", yaml, sizeof yaml - 1, gprop_check_case, &e) == 0,
              "%s", e.msg);
    return s;
}

static struct grade_result *grade(const struct spec_set *s, const char *path, const char *only)
{
    struct err e;
    struct grade_result *r = tg_grade(s, path, only, &e);

    cr_assert(r != NULL, "%s", e.msg);
    return r;
}

Test(gates, a_failed_value_test_withholds_what_depends_on_it)
{
    struct spec_set *s = load_yaml();
    struct grade_result *r = grade(s, REF, NULL);
    const struct grade_test *bad = tg_find(r, "softmax.values.broken");
    const struct grade_test *ev = tg_find(r, "softmax.einval");
    const struct grade_test *det = tg_find(r, "softmax.deterministic");

    cr_assert(bad && ev && det);
    /* the value test itself keeps its partial credit */
    cr_expect(bad->status == TEST_FAILED && bad->score_cents == 100, "%lld", bad->score_cents);
    cr_expect(ev->status == TEST_WITHHELD && ev->score_cents == 0);
    cr_expect(ev->cases_passed == 1, "the property still ran");
    cr_expect(strcmp(ev->message, "depends on softmax.values.broken: fix that first") == 0,
              "%s", ev->message);
    cr_expect(det->status == TEST_PASSED && det->score_cents == 100);
    cr_expect(r->score_cents == 100 + 100 + 100, "%lld", r->score_cents);
    grade_result_free(r);
    spec_set_free(s);
}

Test(gates, withholding_passes_down_a_chain_and_names_the_root)
{
    struct spec_set *s = load_yaml();
    struct grade_result *r = grade(s, REF, NULL);
    const struct grade_test *leaks = tg_find(r, "softmax.no_leaks");

    cr_assert(leaks != NULL);
    cr_expect(leaks->status == TEST_WITHHELD && leaks->score_cents == 0);
    cr_expect(strcmp(leaks->message, "depends on softmax.values.broken: fix that first") == 0,
              "%s", leaks->message);
    grade_result_free(r);
    spec_set_free(s);
}

/* A gate outside --only is not run, so it closes nothing. */
Test(gates, a_gate_outside_the_selection_closes_nothing)
{
    struct spec_set *s = load_yaml();
    struct grade_result *r = grade(s, REF, "^softmax\\.einval$");

    cr_assert(r->n_tests == 1);
    cr_expect(r->tests[0].status == TEST_PASSED && r->score_cents == 100);
    grade_result_free(r);
    spec_set_free(s);
}

/* A test that fails its property and whose gate is closed: the property's
 * message stays, the label comes first, the score is 0. */
Test(gates, a_failing_test_behind_a_closed_gate_keeps_its_message)
{
    struct err e;
    struct spec_set *s = tg_specs(0, &e);
    struct grade_result *r;
    const struct grade_test *t, *ev;
    struct sb sb;

    cr_assert(s != NULL, "%s", e.msg);
    r = grade(s, NO_SCALE, "^sdpa\\.(values|einval|masked_weights_zero|fully_masked_row)$");
    t = tg_find(r, "sdpa.fully_masked_row");
    ev = tg_find(r, "sdpa.einval");
    cr_assert(t != NULL && ev != NULL);
    cr_expect(t->status == TEST_FAILED && t->score_cents == 0 && t->dependency_failed);
    cr_expect(ev->status == TEST_WITHHELD && ev->score_cents == 0);
    cr_expect(strcmp(ev->message, "depends on sdpa.values: fix that first") == 0, "%s",
              ev->message);
    sb_init(&sb, 0);
    cr_assert(rpt_write(r, RPT_TEXT, NULL, &sb, &e) == 0, "%s", e.msg);
    cr_expect(strstr(sb_str(&sb), "  HELD   0.0/0.25   sdpa.einval") != NULL, "%s", sb_str(&sb));
    cr_expect(strstr(sb_str(&sb), "\n          depends on sdpa.masked_weights_zero: fix that "
                                  "first\n          ") != NULL, "%s", sb_str(&sb));
    sb_release(&sb);
    grade_result_free(r);
    spec_set_free(s);
}

/* The shipped specs: every test that is not a value test depends on a
 * value test of its own function (specs/README.md, "depends_on"). */
Test(gates, every_shipped_test_is_gated_by_a_value_test)
{
    struct err e;
    struct spec_set *s = tg_specs(1, &e);
    size_t gated = 0, values = 0;

    cr_assert(s != NULL, "%s", e.msg);
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        int ok = 0;
        if (grade_is_value_test(t->function, t->property)) {
            values++;
            continue;
        }
        for (size_t j = 0; j < t->n_depends_on && !ok; j++) {
            const struct spec_test *d = NULL;
            for (size_t k = 0; k < spec_test_count(s) && d == NULL; k++)
                if (strcmp(spec_test_at(s, k)->id, t->depends_on[j]) == 0)
                    d = spec_test_at(s, k);
            ok = d != NULL && strcmp(d->function, t->function) == 0 &&
                 grade_is_value_test(d->function, d->property);
        }
        gated += (size_t)ok;
        cr_expect(ok, "%s:%d: '%s' depends on no value test of '%s'", t->file, t->line,
                  t->id, t->function);
    }
    cr_expect(values >= 6 && gated > 0, "%zu value tests, %zu gated", values, gated);
    spec_set_free(s);
}

/* Each function has a value test in the public spec (the student's gate). */
Test(gates, every_function_has_a_public_value_test)
{
    static const char *const fns[] = {"softmax", "sdpa", "pe", "layernorm", "mha", "block"};
    struct err e;
    struct spec_set *s = tg_specs(0, &e);

    cr_assert(s != NULL, "%s", e.msg);
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++) {
        int found = 0;
        for (size_t i = 0; i < spec_test_count(s) && !found; i++) {
            const struct spec_test *t = spec_test_at(s, i);
            found = strcmp(t->function, fns[f]) == 0 &&
                    grade_is_value_test(t->function, t->property);
        }
        cr_expect(found, "no public value test for '%s'", fns[f]);
    }
    spec_set_free(s);
}
