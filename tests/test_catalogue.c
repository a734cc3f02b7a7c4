/*
 * test_catalogue.c -- our catalogue of buggy and alternative submissions,
 * graded through the real pipeline against both specs.
 *
 * Sensitivity: every expect-fail test of an entry fails. Specificity: every
 * test not listed passes, so a mistake costs points only where it lives,
 * and the correct alternatives (float-only, online softmax, other loop
 * orders) get full marks.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "grading.h"

#define CAT_DIR TEST_SRCDIR "/tests/submissions"

struct entry {
    char name[256];
};

/* Parameters must live in Criterion's shared memory (cr_malloc): static
 * data moves under PIE between the runner and its workers. */
static struct criterion_test_params entries(void)
{
    struct dirent **list = NULL;
    int n = scandir(CAT_DIR, &list, tg_is_c, tg_by_name);
    struct entry *p = cr_malloc(sizeof *p * (size_t)(n > 0 ? n : 1));

    for (int i = 0; i < n; i++) {
        snprintf(p[i].name, sizeof p[i].name, "%s", list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return cr_make_param_array(struct entry, p, (size_t)(n > 0 ? n : 0), NULL);
}

/* A correct alternative: named correct_*, or its bug line says "none". */
static int is_correct(const char *name, const struct tg_expect *x)
{
    return strncmp(name, "correct_", 8) == 0 || strncmp(x->bug, "none", 4) == 0;
}

ParameterizedTestParameters(catalogue, entry)
{
    return entries();
}

static void check_entry(const struct tg_expect *x, const struct grade_result *r,
                        const char *name)
{
    size_t seen_fail = 0;

    cr_expect(r->status == GRADE_OK, "%s: status %s: %s", name,
              grade_status_name(r->status), r->status_detail ? r->status_detail : "");
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct test_result *t = &r->tests[i];
        const char *id = t->test->id;
        if (tg_listed(x->fail, x->n_fail, id)) {
            seen_fail++;
            cr_expect(t->status != TEST_PASSED,
                      "%s (%s): '%s' should fail but passed", name, x->bug, id);
        } else if (!tg_listed(x->maybe, x->n_maybe, id)) {
            cr_expect(t->status == TEST_PASSED,
                      "%s (%s): '%s' should pass but %s: %s", name, x->bug, id,
                      test_status_name(t->status), t->message);
        }
    }
    cr_expect(seen_fail == x->n_fail, "%s: %zu expect-fail ids are not tests of the specs",
              name, x->n_fail - seen_fail);
}

ParameterizedTest(struct entry *p, catalogue, entry, .timeout = 120)
{
    char path[sizeof CAT_DIR + 300];
    struct tg_expect x;
    struct grd_err e;
    struct spec_set *s = tg_specs(1, &e);
    struct grade_result *r;

    cr_assert(s != NULL, "specs: %s", e.msg);
    snprintf(path, sizeof path, "%s/%s", CAT_DIR, p->name);
    tg_expectations(path, &x);
    cr_assert(x.found, "%s has no CATALOGUE block", p->name);
    cr_assert(x.n_fail > 0 || is_correct(p->name, &x),
              "%s: a bug entry must name the tests it fails", p->name);
    r = tg_grade(s, path, NULL, &e);
    cr_assert(r != NULL, "%s: grader error: %s", p->name, e.msg);
    check_entry(&x, r, p->name);
    grade_result_free(r);
    spec_set_free(s);
}

Test(catalogue, has_enough_entries)
{
    struct dirent **list = NULL;
    int n = scandir(CAT_DIR, &list, tg_is_c, tg_by_name), bugs = 0, correct = 0;

    for (int i = 0; i < n; i++) {
        char path[sizeof CAT_DIR + 300];
        struct tg_expect x;
        snprintf(path, sizeof path, "%s/%s", CAT_DIR, list[i]->d_name);
        tg_expectations(path, &x);
        if (is_correct(list[i]->d_name, &x))
            correct++;
        else
            bugs++;
        free(list[i]);
    }
    free(list);
    cr_expect(bugs >= 20, "only %d buggy submissions (at least 20)", bugs);
    cr_expect(correct >= 3, "only %d correct alternatives (at least 3)", correct);
}
