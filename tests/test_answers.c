/*
 * test_answers.c -- answers.yaml (answers.h) and the written part's checks
 * (prop_written.c, function "written"), run on the reference through
 * impl_local().
 *
 * Each directory of tests/answers_fixtures/ is a submission directory with
 * an answers.yaml: `good` is consistent with the reference; each other one
 * breaks one claim. The spec tests are built by hand (the points are those
 * of specs/written.yaml).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "grade/grade_props.h"
#include "selfcheck/answers.h"
#include "props/prop.h"

#define FIX TEST_SRCDIR "/tests/answers_fixtures"

static const struct spec_param manual_part2 = {"field", SPEC_STR, 0, "part2", NULL, 0, 1, 1};
static const struct spec_param manual_note = {"field", SPEC_STR, 0, "part3.note", NULL, 0, 1, 1};

static struct prop_verdict run(const char *dir, const char *property,
                               const struct spec_param *param)
{
    const struct prop_def *d = gprop_find("written", property);
    struct spec_case c = {param, param ? 1 : 0, 1, 1};
    struct spec_test t = {.id = "written.x", .title = "x", .function = "written",
                          .property = property, .points = 1, .cases = &c, .n_cases = 1,
                          .tolerance = -1};
    struct prop_env env = {.student = impl_local(), .submission_dir = dir};
    struct prop_verdict v;
    struct err e;

    memset(&v, 0, sizeof v);
    err_clear(&e);
    cr_assert_not_null(d, "property written.%s is not registered", property);
    cr_assert_eq(d->run(&(const struct prop_ctx){&env, &t, &c, d, &v, &e}), 0, "grader error: %s",
                 e.msg);
    return v;
}

/* The consistency checks and their points in specs/written.yaml. */
static const struct {
    const char *property;
    double points;
} consistency[] = {
    {"top_pairs", 4},
    {"part3_weights_unchanged", 3},
    {"part4_permutation_changes_output", 3},
};

Test(answers, consistent_file_gets_full_consistency_points)
{
    double got = 0, max = 0;

    for (size_t i = 0; i < 3; i++) {
        struct prop_verdict v = run(FIX "/good", consistency[i].property, NULL);
        cr_expect(v.passed, "%s failed: %s", consistency[i].property, v.msg);
        got += v.passed ? consistency[i].points : 0;
        max += consistency[i].points;
    }
    cr_assert_float_eq(got, 10.0, 1e-9);
    cr_assert_float_eq(max, 10.0, 1e-9);
}

/* A broken claim fails its check with a message naming the claim, and
 * leaves the other checks passing. */
Test(answers, broken_claims_lose_points_and_say_which)
{
    static const struct {
        const char *dir, *property, *needle;
    } cases[] = {
        {"wrong_pair", "top_pairs",
         "claimed weight 0.41 for (was \u2192 warm) but your attn_scaled_dot_product gives 0.1399"},
        {"made_up_figure", "part4_permutation_changes_output",
         "claimed max_abs_diff 0.5 for this order with PE but your functions give 1.0351"},
        {"part3_changed", "part3_weights_unchanged", "the weights changed: ("},
        {"bad_token", "top_pairs", "'Was!' is not a word token"},
        {"malformed", "top_pairs", "answers.yaml:5:5: yaml syntax error"},
        {"malformed", "part4_permutation_changes_output", "answers.yaml:5:5:"},
        {"missing", "part3_weights_unchanged", "answers.yaml: cannot open"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", FIX, cases[i].dir);
        struct prop_verdict v = run(dir, cases[i].property, NULL);
        cr_expect(!v.passed, "%s/%s passed", cases[i].dir, cases[i].property);
        cr_expect(strstr(v.msg, cases[i].needle) != NULL, "%s/%s: message '%s' lacks '%s'",
                  cases[i].dir, cases[i].property, v.msg, cases[i].needle);
    }
    for (size_t i = 0; i < 3; i++)
        if (strcmp(consistency[i].property, "top_pairs") != 0)
            cr_expect(run(FIX "/wrong_pair", consistency[i].property, NULL).passed,
                      "wrong_pair should only fail top_pairs");
}

Test(answers, manual_items_are_pending_not_passed)
{
    struct prop_verdict v = run(FIX "/good", "manual", &manual_part2);

    cr_expect(!v.passed);
    cr_expect(v.manual_pending);
    cr_expect(strstr(v.msg, "manual: pending") != NULL, "%s", v.msg);
    v = run(FIX "/good", "manual", &manual_note);
    cr_expect(v.manual_pending && !v.passed);
    /* An empty, missing or malformed answer is still for a TA to score
     * (pending, a blank cell), with the problem named for them. */
    v = run(FIX "/empty_part2", "manual", &manual_part2);
    cr_expect(!v.passed && v.manual_pending);
    cr_expect(strstr(v.msg, "'part2' has 0 answers") != NULL, "%s", v.msg);
    /* (the load error itself is the message of the numeric checks) */
    v = run(FIX "/missing", "manual", &manual_note);
    cr_expect(!v.passed && v.manual_pending);
    cr_expect(strstr(v.msg, "answers.yaml could not be read") != NULL, "%s", v.msg);
    v = run(FIX "/malformed", "manual", &manual_part2);
    cr_expect(!v.passed && v.manual_pending);
    cr_expect(strstr(v.msg, "answers.yaml could not be read") != NULL, "%s", v.msg);
}

/* Malformed buffers are refused with the line:col of the node. */
Test(answers, malformed_files_say_where)
{
    static const struct {
        const char *yaml, *expect;
    } cases[] = {
        {"text: [a\n", "a.yaml:2:1: yaml syntax error"},
        {"text: x\ntxet: y\n", "a.yaml:2:1: unknown key 'txet' in 'answers'"},
        {"text: x\ntext: y\n", "a.yaml:2:1: duplicate key 'text' in 'answers'"},
        {"top_pairs: 3\n", "a.yaml:1:12: 'top_pairs' must be a list"},
        {"top_pairs:\n  - {query: a, key: b, weight: \"0.4\"}\n",
         "a.yaml:2:32: 'weight' must be a number"},
        {"top_pairs:\n  - {query: a, key: b}\n", "a.yaml:2:5: each of 'top_pairs' needs"},
        {"top_pairs:\n  - {query: c\u00e4t, key: b, weight: 1}\n",
         "a.yaml:2:13: 'c\u00e4t' is not a word token"},
        {"part4: {order: [1, x]}\n", "a.yaml:1:20: 'part4.order' must be a number"},
        {"part4: {pe: maybe}\n", "a.yaml:1:13: 'part4.pe' must be true or false"},
        {"part3: {txt: a}\n", "a.yaml:1:9: unknown key 'txt' in 'part3'"},
        {"", "a.yaml: empty answers file"},
        {"- a\n", "a.yaml:1:1: 'answers' must be a mapping"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ans_answers a;
        struct err e;
        char buf[1024];
        err_clear(&e);
        cr_expect_eq(ans_parse("a.yaml", cases[i].yaml, strlen(cases[i].yaml), &a, &e), -1,
                     "case %zu parsed", i);
        err_format(&e, buf, sizeof buf);
        cr_expect(strncmp(buf, cases[i].expect, strlen(cases[i].expect)) == 0,
                  "case %zu: got '%s', expected '%s...'", i, buf, cases[i].expect);
    }
}

Test(answers, parses_the_good_file)
{
    struct ans_answers a;
    struct err e;
    char path[512];

    err_clear(&e);
    cr_assert_eq(ans_load(FIX "/good/answers.yaml", &a, &e), 0, "%s", e.msg);
    cr_expect_eq(a.n_pairs, 3);
    cr_expect_str_eq(a.pairs[1].query, "was");
    cr_expect_str_eq(a.pairs[1].key, "warm");
    cr_expect_float_eq(a.pairs[1].weight, 0.1399, 1e-12);
    cr_expect_eq(a.pairs[1].at.line, 5);
    cr_expect_eq(a.n_part2, 3);
    cr_expect_eq(a.part4_order_len, 9);
    cr_expect(a.part4_pe);
    cr_expect_str_eq(a.part3_vectors, "part3_vectors.txt");
    cr_assert_eq(ans_path(&a, a.part3_vectors, path, sizeof path, &e), 0);
    cr_expect_str_eq(path, FIX "/good/part3_vectors.txt");
    ans_release(&a);
}
