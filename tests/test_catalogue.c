/*
 * test_catalogue.c -- our catalogue of buggy and alternative submissions,
 * graded through the real pipeline against both specs.
 *
 * Sensitivity: every expect-fail test of an entry fails its property, and
 * every expect-withheld test passes its property but earns nothing because
 * a value test it depends on failed. Specificity: every test not listed
 * passes with full points, so a mistake costs points only where it lives,
 * and the correct alternatives (float-only, online softmax, other loop
 * orders) get full marks. Trivial entries (trivial_*.c: no-op, zeros,
 * uniform weights, copies, random numbers...) score at most 2 of 100.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "grading.h"

#define CAT_DIR TEST_CATDIR "/submissions"

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

/* Work that is no work: named trivial_*, its bug line says "trivial:". */
static int is_trivial(const char *name, const struct tg_expect *x)
{
    return strncmp(name, "trivial_", 8) == 0 && strncmp(x->bug, "trivial:", 8) == 0;
}

/* The most a trivial submission may score: 2% of the points. */
static void check_trivial(const struct grade_result *r, const char *name)
{
    cr_expect(r->status == GRADE_OK, "%s: status %s", name, grade_status_name(r->status));
    cr_expect(r->max_cents > 0 && r->score_cents * 50 <= r->max_cents,
              "%s: trivial work scored %.2f of %.2f", name, r->score, r->max_score);
    for (size_t i = 0; i < r->n_tests; i++)
        if (r->tests[i].score_cents > 0)
            cr_log_info("%s: '%s' earns %.2f", name, r->tests[i].test->id, r->tests[i].score);
}

/* A real failure of the property: not passed, and not merely withheld. */
static int property_failed(const struct grade_test *t)
{
    return t->status != TEST_PASSED && t->status != TEST_WITHHELD;
}

ParameterizedTestParameters(catalogue, entry)
{
    return entries();
}

static void check_entry(const struct tg_expect *x, const struct grade_result *r,
                        const char *name)
{
    size_t seen_fail = 0, seen_held = 0;

    cr_expect(r->status == GRADE_OK, "%s: status %s: %s", name,
              grade_status_name(r->status), r->status_detail ? r->status_detail : "");
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];
        const char *id = t->test->id;
        if (tg_listed(x->fail, x->n_fail, id)) {
            seen_fail++;
            cr_expect(property_failed(t), "%s (%s): '%s' should fail but %s", name, x->bug,
                      id, grade_test_status_name(t->status));
            cr_expect(t->score_cents < t->max_cents, "%s: '%s' failed with full points",
                      name, id);
        } else if (tg_listed(x->withheld, x->n_withheld, id)) {
            seen_held++;
            cr_expect(t->status == TEST_WITHHELD && t->score_cents == 0,
                      "%s (%s): '%s' should be withheld but %s with %.2f: %s", name, x->bug,
                      id, grade_test_status_name(t->status), t->score, t->message);
        } else if (!tg_listed(x->maybe, x->n_maybe, id)) {
            cr_expect(t->status == TEST_PASSED && t->score_cents == t->max_cents,
                      "%s (%s): '%s' should pass but %s (%.2f of %.2f): %s", name, x->bug, id,
                      grade_test_status_name(t->status), t->score, t->max_score, t->message);
        }
    }
    cr_expect(seen_fail == x->n_fail, "%s: %zu expect-fail ids are not tests of the specs",
              name, x->n_fail - seen_fail);
    cr_expect(seen_held == x->n_withheld,
              "%s: %zu expect-withheld ids are not tests of the specs", name,
              x->n_withheld - seen_held);
}

ParameterizedTest(struct entry *p, catalogue, entry, .timeout = 120)
{
    char path[sizeof CAT_DIR + 300];
    struct tg_expect x;
    struct err e;
    struct spec_set *s = tg_specs(1, &e);
    struct grade_result *r;

    cr_assert(s != NULL, "specs: %s", e.msg);
    snprintf(path, sizeof path, "%s/%s", CAT_DIR, p->name);
    tg_expectations(path, &x);
    cr_assert(x.found, "%s has no CATALOGUE block", p->name);
    cr_assert(x.n_fail > 0 || is_correct(p->name, &x) || is_trivial(p->name, &x),
              "%s: a bug entry must name the tests it fails", p->name);
    r = tg_grade(s, path, NULL, &e);
    cr_assert(r != NULL, "%s: grader error: %s", p->name, e.msg);
    if (is_trivial(p->name, &x))
        check_trivial(r, p->name);
    else
        check_entry(&x, r, p->name);
    if (is_correct(p->name, &x))
        cr_expect(r->score_cents == r->max_cents && r->max_cents == 10000,
                  "%s: a correct alternative scored %.2f of %.2f", p->name, r->score,
                  r->max_score);
    grade_result_free(r);
    spec_set_free(s);
}

Test(catalogue, has_enough_entries)
{
    struct dirent **list = NULL;
    int n = scandir(CAT_DIR, &list, tg_is_c, tg_by_name), bugs = 0, correct = 0, trivial = 0;

    for (int i = 0; i < n; i++) {
        char path[sizeof CAT_DIR + 300];
        struct tg_expect x;
        snprintf(path, sizeof path, "%s/%s", CAT_DIR, list[i]->d_name);
        tg_expectations(path, &x);
        if (is_correct(list[i]->d_name, &x))
            correct++;
        else if (is_trivial(list[i]->d_name, &x))
            trivial++;
        else
            bugs++;
        free(list[i]);
    }
    free(list);
    cr_expect(bugs >= 20, "only %d buggy submissions (at least 20)", bugs);
    cr_expect(correct >= 3, "only %d correct alternatives (at least 3)", correct);
    cr_expect(trivial >= 8, "only %d trivial submissions (at least 8)", trivial);
}

/* ---- held-out realistic bugs (issue 36) ------------------------------------ */

#define HELDOUT_DIR TEST_CATDIR "/heldout"

static struct criterion_test_params heldout(void)
{
    struct dirent **list = NULL;
    int n = scandir(HELDOUT_DIR, &list, tg_is_c, tg_by_name);
    struct entry *p = cr_malloc(sizeof *p * (size_t)(n > 0 ? n : 1));

    for (int i = 0; i < n; i++) {
        snprintf(p[i].name, sizeof p[i].name, "%s", list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return cr_make_param_array(struct entry, p, (size_t)(n > 0 ? n : 0), NULL);
}

ParameterizedTestParameters(catalogue, heldout_bugs_fail_only_domain)
{
    return heldout();
}

/*
 * The functions that reach function `fn` in tests/solutions/plain_double.c
 * (the held-out bugs' base): its multi-head attention goes through the
 * attention it shares with sdpa, its block through that multi-head
 * attention and attn_layer_norm. A bug of `fn` may show in their domain
 * tests too; in no other.
 */
static int reaches(const char *caller, const char *fn)
{
    static const char *const calls[][3] = {
        {"mha", "sdpa", NULL}, {"block", "mha", "sdpa"}, {"block", "layernorm", NULL},
    };

    if (strcmp(caller, fn) == 0)
        return 1;
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        for (size_t j = 1; j < 3 && calls[i][j] != NULL; j++)
            if (strcmp(calls[i][0], caller) == 0 && strcmp(calls[i][j], fn) == 0)
                return 1;
    return 0;
}

/* tests/heldout/: bugs no spec was tuned on, each visible only on inputs
 * the other tests never draw; a file's name starts with its function. Every
 * test but the `domain` ones passes with full points (so the specs before
 * `domain` gave full marks), its function's domain test fails (so they
 * lose points now), and so may the domain tests of the functions that call
 * it (reaches), none other. */
ParameterizedTest(struct entry *p, catalogue, heldout_bugs_fail_only_domain, .timeout = 120)
{
    char path[sizeof HELDOUT_DIR + 300], fn[32];
    struct err e;
    struct spec_set *s = tg_specs(1, &e);
    struct grade_result *r;
    int own_lost = 0;

    cr_assert(s != NULL, "specs: %s", e.msg);
    cr_assert(sscanf(p->name, "%31[a-z]_", fn) == 1, "%s: no function in its name", p->name);
    snprintf(path, sizeof path, "%s/%s", HELDOUT_DIR, p->name);
    r = tg_grade(s, path, NULL, &e);
    cr_assert(r != NULL, "%s: grader error: %s", p->name, e.msg);
    cr_expect(r->status == GRADE_OK, "%s: status %s", p->name, grade_status_name(r->status));
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];
        const char *dot = strchr(t->test->id, '.');
        if (dot != NULL && strcmp(dot, ".domain") == 0) {
            if (t->score_cents < t->max_cents) {
                cr_expect(property_failed(t), "%s: '%s' %s", p->name, t->test->id,
                          grade_test_status_name(t->status));
                cr_expect(reaches(t->test->function, fn), "%s: '%s' lost points, but %s "
                          "does not call %s", p->name, t->test->id, t->test->function, fn);
                own_lost |= strcmp(t->test->function, fn) == 0;
            }
        } else {
            cr_expect(t->status == TEST_PASSED && t->score_cents == t->max_cents,
                      "%s: '%s' should pass but %s (%.2f of %.2f): %s", p->name,
                      t->test->id, grade_test_status_name(t->status), t->score,
                      t->max_score, t->message);
        }
    }
    cr_expect(own_lost, "%s: %s.domain kept its points", p->name, fn);
    cr_expect(r->score_cents < r->max_cents, "%s: full marks", p->name);
    grade_result_free(r);
    spec_set_free(s);
}
