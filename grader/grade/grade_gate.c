/* grade_gate.c -- withholding points behind the value tests; see grade_gate.h. */
#include "grade/grade_gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "grade/grade_props.h"

/* The property tables say which properties are value tests (prop.h). */
int grade_is_value_test(const char *function, const char *property)
{
    const struct prop_def *d = gprop_find(function, property);

    return d != NULL && d->value_test == PROP_VALUE_TEST;
}

/* Index of the result for test `id` in r, or r->n_tests (not selected). */
static size_t find(const struct grade_result *r, const char *id)
{
    size_t k = 0;

    while (k < r->n_tests && strcmp(r->tests[k].test->id, id) != 0)
        k++;
    return k;
}

/* Whether test k earned nothing it could be gated on: it did not pass, or
 * it passed with its own points withheld. */
static int closes(const struct grade_result *r, const unsigned char *held, size_t k)
{
    return k < r->n_tests && (r->tests[k].status != TEST_PASSED || held[k]);
}


/* One sweep: mark every test a closed dependency holds. 1 if any changed. */
static int sweep(const struct grade_result *r, unsigned char *held)
{
    int changed = 0;

    for (size_t i = 0; i < r->n_tests; i++) {
        const struct spec_test *t = r->tests[i].test;
        for (size_t j = 0; !held[i] && j < t->n_depends_on; j++)
            if (closes(r, held, find(r, t->depends_on[j])))
                held[i] = 1, changed = 1;
    }
    return changed;
}

/* The failed tests behind test i's closed gate, depth first through the
 * dependencies that passed but were withheld themselves (seen: visited). */
static void roots(const struct grade_result *r, const unsigned char *held, size_t i,
                  unsigned char *seen, struct sb *sb)
{
    const struct spec_test *t = r->tests[i].test;

    for (size_t j = 0; j < t->n_depends_on; j++) {
        size_t k = find(r, t->depends_on[j]);
        if (k == r->n_tests || seen[k] || !closes(r, held, k))
            continue;
        seen[k] = 1;
        /* passed but held (its status may already say so): look behind it */
        if (r->tests[k].status == TEST_PASSED || r->tests[k].status == TEST_WITHHELD)
            roots(r, held, k, seen, sb);
        else if (sb_addf(sb, "%s%s", sb->len ? ", " : "", r->tests[k].test->id) < 0)
            return;
    }
}

/* Withhold test i: its score, its label, and for a passed test its status. */
static int withhold(struct grade_result *r, const unsigned char *held, size_t i,
                    unsigned char *seen)
{
    struct grade_test *tr = &r->tests[i];
    struct sb sb;
    char *label;

    memset(seen, 0, r->n_tests);
    sb_init(&sb, 4096);
    roots(r, held, i, seen, &sb);
    tr->dependency_failed = 1;
    tr->score_cents = 0;
    tr->score = 0.0;
    free(tr->withheld_by);
    tr->withheld_by = sb_detach(&sb, NULL);
    if (tr->withheld_by == NULL)
        return -1;
    if (tr->status != TEST_PASSED)
        return 0;
    /* The property held: nothing is wrong here but the gate. */
    tr->status = TEST_WITHHELD;
    if ((label = grade_withheld_label(tr)) == NULL)
        return -1;
    free(tr->message);
    tr->message = label;
    return 0;
}

int grade_gate_apply(struct grade_result *r)
{
    unsigned char *held = calloc(r->n_tests ? r->n_tests : 1, 1);
    unsigned char *seen = calloc(r->n_tests ? r->n_tests : 1, 1);
    int rc = held && seen ? 0 : -1;

    /* A fixpoint: each sweep can only add tests, so at most n sweeps. */
    for (size_t n = 0; rc == 0 && n <= r->n_tests && sweep(r, held); n++)
        ;
    for (size_t i = 0; rc == 0 && i < r->n_tests; i++)
        if (held[i])
            rc = withhold(r, held, i, seen);
    free(held);
    free(seen);
    return rc;
}

char *grade_withheld_label(const struct grade_test *t)
{
    const char *ids = t->withheld_by && t->withheld_by[0] ? t->withheld_by : "a test";
    size_t n = strlen(ids) + 64;
    char *s = malloc(n);

    if (s != NULL)
        snprintf(s, n, "depends on %s: fix %s first", ids,
                 strchr(ids, ',') != NULL ? "those" : "that");
    return s;
}
