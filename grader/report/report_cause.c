/*
 * report_cause.c -- diagnosis first (grade/diag.h): the lines a rubric
 * opens with, one per function with failures, and the order its tests are
 * shown in (each cause's lead failure first: the ranking is the report's,
 * from the causes in grade_result). Shared by the writers (report_util.h).
 */
#include <stdlib.h>
#include <string.h>

#include "grade/grade.h"
#include "report/report_util.h"

static int is_failure(enum grade_test_status st)
{
    return st == TEST_FAILED || st == TEST_CRASHED || st == TEST_TIMED_OUT;
}

/* The function's shown failures and its first one (r->n_tests when none).
 * A redacted (hidden) test is neither counted nor named. */
static size_t failures_of(const struct rpti_ctx *c, const char *fn, size_t *first)
{
    const struct grade_result *r = c->r;
    size_t n = 0;

    *first = r->n_tests;
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];
        if (!is_failure(t->status) || !t->test || strcmp(t->test->function, fn) != 0 ||
            !rpti_visible(c, t))
            continue;
        if (n++ == 0)
            *first = i;
    }
    return n;
}

static const struct grade_cause *cause_for(const struct grade_result *r, const char *fn)
{
    for (size_t i = 0; i < r->n_causes; i++)
        if (strcmp(r->causes[i].function, fn) == 0)
            return &r->causes[i];
    return NULL;
}

/* Whether test i is the first of its function among tests[0..i). */
static int first_of_function(const struct grade_result *r, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (r->tests[j].test && strcmp(r->tests[j].test->function,
                                       r->tests[i].test->function) == 0)
            return 0;
    return 1;
}

/* Whether test i is shown under cause k (it explains it, and it is shown). */
static int explained_by(const struct rpti_ctx *c, size_t i, const struct grade_cause *k)
{
    const struct grade_test *t = &c->r->tests[i];

    return t->explained_by && &c->r->causes[t->explained_by - 1] == k && rpti_visible(c, t);
}

/* "      explained: a, b" for the failures k explains, in the order the
 * tests are shown (rpti_order: the lead first unless it depends on one). */
static void explained_line(const struct rpti_ctx *c, const struct grade_cause *k, int md)
{
    const struct grade_result *r = c->r;
    size_t sep = 0, *order = rpti_order(r);

    rpti_put(c->out, md ? "  - explained: " : "      explained: ");
    for (size_t j = 0; j < r->n_tests; j++) {
        size_t i = order ? order[j] : j;
        if (explained_by(c, i, k)) {
            rpti_put(c->out, sep++ ? ", " : "");
            rpti_put(c->out, rpti_id(&r->tests[i]));
        }
    }
    free(order);
    rpti_put(c->out, "\n");
}

/*
 * One function's line. Strong: "sdpa: most likely cause: ... (explains 7
 * of 7 failures)"; weak: "sdpa: 3 of 5 failures look like this known
 * mistake: ...; the others do not"; a failing callee: "mha: calls your
 * attn_scaled_dot_product, which fails too: fix sdpa first". The
 * catalogue's names never show: they are ours, not the student's.
 */
static void cause_lines(const struct rpti_ctx *c, const struct grade_cause *k,
                        size_t failures, int md)
{
    const struct grade_result *r = c->r;
    size_t n = 0;

    rpti_putf(c->out, md ? "- **%s**: " : "  %s: ", k->function);
    if (k->callee) {
        enum asg_fn g = (enum asg_fn)(k->callee - 1);
        rpti_putf(c->out, "calls your %s, which fails too: fix %s first (the %zu "
                  "failure%s here may come from there)\n", asg_fn_cname(g), asg_fn_name(g),
                  failures, failures == 1 ? "" : "s");
        return;
    }
    for (size_t i = 0; i < r->n_tests; i++)
        n += (size_t)explained_by(c, i, k);
    if (k->strong) {
        rpti_put(c->out, "most likely cause: ");
        rpti_walkz(c->out, k->bug, c->max, rpti_emit_text, "");
        rpti_putf(c->out, " (explains %zu of %zu failure%s)\n", n, failures,
                  failures == 1 ? "" : "s");
    } else {
        rpti_putf(c->out, "%zu of %zu failures look like this known mistake: ", n, failures);
        rpti_walkz(c->out, k->bug, c->max, rpti_emit_text, "");
        rpti_put(c->out, "; the others do not\n");
    }
    explained_line(c, k, md);
}

/* The line of a function no cause was found for: why, and where to start. */
static void no_cause_line(const struct rpti_ctx *c, const char *fn, size_t n, size_t first,
                          int md)
{
    static const char *const why[] = {
#if GRADER_STAFF
        [GRADE_DIAG_NO_DATA] = "not diagnosed (no diagnosis data: `make diag-data` records "
                               "it)",
#else
        /* The student's repository has no diag-data target: its data is
         * specs/public.golden, recorded for the public tests alone. */
        [GRADE_DIAG_NO_DATA] = "not diagnosed (the known mistakes are recorded for the "
                               "public tests of the code)",
#endif
        [GRADE_DIAG_DONE] = "no known mistake explains them",
        [GRADE_DIAG_CUT] = "not diagnosed (the time budget was spent)",
        [GRADE_DIAG_SELECTED] = "no known mistake explains them",
    };
    enum grade_diag d = c->r->diag <= GRADE_DIAG_SELECTED ? c->r->diag : GRADE_DIAG_NO_DATA;

    rpti_putf(c->out, md ? "- **%s**: %zu failure%s; %s: start with %s\n"
                         : "  %s: %zu failure%s; %s: start with %s\n",
              fn, n, n == 1 ? "" : "s", why[d], rpti_id(&c->r->tests[first]));
}

/* The measured facts of function fn (grade/diag_fit.h), one bullet each,
 * under its line: where its failures show, whatever the line said. */
static void fact_lines(const struct rpti_ctx *c, const char *fn, int md)
{
    enum asg_fn f;
    const char *p;

    if (asg_fn_parse(fn, &f) < 0 || (p = c->r->facts[f]) == NULL)
        return;
    while (*p) {
        size_t len = strcspn(p, "\n");
        rpti_put(c->out, md ? "  - " : "      - ");
        rpti_walk(c->out, p, len, c->max, rpti_emit_text, "");
        rpti_put(c->out, "\n");
        p += len + (p[len] == '\n');
    }
}

/* fn's diagnosis lines; 0 when none of its failures is shown. */
static int function_lines(const struct rpti_ctx *c, const char *fn, int md)
{
    const struct grade_cause *k;
    size_t first, n = failures_of(c, fn, &first);

    if (n == 0)
        return 0;
    if ((k = cause_for(c->r, fn)) != NULL)
        cause_lines(c, k, n, md);
    else
        no_cause_line(c, fn, n, first, md);
    fact_lines(c, fn, md);
    return 1;
}

void rpti_causes_of(const struct rpti_ctx *c, const struct grade_test *t)
{
    if (t->test && t->status != TEST_PASSED && t->status != TEST_MANUAL_PENDING &&
        rpti_visible(c, t))
        (void)function_lines(c, t->test->function, 0);
}

void rpti_causes(const struct rpti_ctx *c, int md)
{
    const struct grade_result *r = c->r;
    int any = 0;

    for (size_t i = 0; i < r->n_tests; i++) {
        const char *fn = r->tests[i].test ? r->tests[i].test->function : NULL;
        if (fn == NULL || !first_of_function(r, i) || failures_of(c, fn, &(size_t){0}) == 0)
            continue;
        if (!any++)
            rpti_put(c->out, md ? "## Diagnosis\n\n" : "diagnosis (the most likely cause of "
                     "each function's failures; fix these first):\n");
        (void)function_lines(c, fn, md);
    }
    if (any && r->diag == GRADE_DIAG_SELECTED)
        rpti_put(c->out, md ? "\n(from the selected tests only: the whole run may say "
                 "more)\n" : "  (from the selected tests only: the whole run may say more)\n");
    if (any)
        rpti_put(c->out, "\n");
}

/* The index in r->tests of test `id`, or r->n_tests when it is not there. */
static size_t test_index(const struct grade_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (r->tests[i].test && strcmp(r->tests[i].test->id, id) == 0)
            return i;
    return r->n_tests;
}

/* Append test i to out after every test it depends on that is not there yet
 * (depth first, in the order of its depends_on): a test never comes before
 * one it says to fix first. state: 0 not placed, 1 being placed (a cycle,
 * which spec_load refuses, is cut there), 2 placed. */
static void place(const struct grade_result *r, size_t i, unsigned char *state, size_t *out,
                  size_t *n)
{
    const struct spec_test *t = r->tests[i].test;

    if (state[i])
        return;
    state[i] = 1;
    for (size_t d = 0; t && d < t->n_depends_on; d++) {
        size_t j = test_index(r, t->depends_on[d]);
        if (j < r->n_tests)
            place(r, j, state, out, n);
    }
    state[i] = 2;
    out[(*n)++] = i;
}

/* The first test of function fn in spec order that a rubric shows as not
 * passed (failed, or its points withheld), or r->n_tests. */
static size_t first_not_passed(const struct grade_result *r, const char *fn)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (r->tests[i].status != TEST_PASSED && r->tests[i].status != TEST_MANUAL_PENDING &&
            strcmp(r->tests[i].test->function, fn) == 0)
            return i;
    return r->n_tests;
}

/* The diagnosis's ranking of r's tests into rank (r->n_tests entries,
 * indices into r->tests): spec order, except that each cause's lead
 * failure moves up to where its function's first test not passed (failed
 * or withheld) was, so that the first failure shown for a function is the
 * one that names its bug. */
static void cause_rank(const struct grade_result *r, size_t *rank)
{
    size_t n = 0;

    for (size_t i = 0; i < r->n_tests; i++) {
        const char *fn = r->tests[i].test->function;
        const struct grade_cause *c = cause_for(r, fn);
        size_t first = c ? first_not_passed(r, fn) : r->n_tests;
        if (c && i == c->lead && first < i)
            continue; /* already shown, first */
        if (c && i == first && c->lead != i)
            rank[n++] = c->lead;
        rank[n++] = i;
    }
}

size_t *rpti_order(const struct grade_result *r)
{
    size_t *order = calloc(r->n_tests + 1, sizeof *order);
    size_t *rank = calloc(r->n_tests + 1, sizeof *rank);
    unsigned char *state = calloc(r->n_tests + 1, 1);
    size_t n = 0;

    if (order == NULL || rank == NULL || state == NULL) {
        free(rank);
        free(state);
        free(order);
        return NULL;
    }
    if (r->n_causes > 0) {
        cause_rank(r, rank);
    } else {
        for (size_t i = 0; i < r->n_tests; i++)
            rank[i] = i;
    }
    /* The ranking, each test preceded by what it depends on: "depends on
     * X: fix that first" is never shown above X (issue 40). */
    for (size_t k = 0; k < r->n_tests; k++)
        place(r, rank[k], state, order, &n);
    free(rank);
    free(state);
    return order;
}
