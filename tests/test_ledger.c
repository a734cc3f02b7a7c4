/*
 * test_ledger.c -- the ledger (grade/grade_ledger.h) gives every test the
 * state a one-at-a-time run in spec order gives it, whatever order the
 * tests end in, and lets a lane skip a test only when that is certain.
 */
#include <criterion/criterion.h>

#include "grade/grade_ledger.h"

/* Five tests: functions 0, 0, 1, 0, 1. */
static const size_t fn5[] = {0, 0, 1, 0, 1};

/* The states a sequential run gives (cost, timed_out per test). */
static void replay(const double *cost, const int *to, double budget, enum gl_state *want)
{
    double spent = 0.0;
    size_t touts[2] = {0, 0};

    for (size_t j = 0; j < 5; j++) {
        want[j] = spent > budget ? GL_CUT_BUDGET
                  : touts[fn5[j]] >= GL_MAX_TIMEOUTS ? GL_CUT_TIMEOUTS : GL_RUN;
        if (want[j] == GL_RUN) {
            spent += cost[j];
            touts[fn5[j]] += to[j] != 0;
        }
    }
}

/* End the tests in `order`, each run only when gl_before says so. */
static void run_in(const size_t *order, const double *cost, const int *to, double budget,
                   const char *label)
{
    struct gl_ledger *g = gl_new(5, fn5, 2, budget);
    enum gl_state want[5];

    cr_assert_not_null(g);
    replay(cost, to, budget, want);
    for (size_t k = 0; k < 5; k++) {
        size_t j = order[k];
        enum gl_state st = gl_before(g, j);
        /* a lane may run what is cut later, never skip what is kept */
        cr_expect(st == GL_RUN || want[j] != GL_RUN, "%s: test %zu skipped but kept",
                  label, j);
        if (st == GL_RUN)
            gl_done(g, j, cost[j], to[j]);
        else
            gl_done(g, j, 0.0, 0);
    }
    for (size_t j = 0; j < 5; j++)
        cr_expect(gl_final(g, j) == want[j], "%s: test %zu is %d, a run in order says %d",
                  label, j, (int)gl_final(g, j), (int)want[j]);
    gl_free(g);
}

static const size_t orders[][5] = {
    {0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {1, 3, 0, 4, 2}, {3, 4, 1, 2, 0},
};

Test(ledger, budget_is_spent_in_spec_order)
{
    const double cost[5] = {4, 4, 4, 4, 4};
    const int to[5] = {0};

    /* 4 + 4 + 4 > 10: tests 3 and 4 are cut, in every order */
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++)
        run_in(orders[i], cost, to, 10.0, "budget");
}

Test(ledger, two_timeouts_cut_the_functions_later_tests)
{
    const double cost[5] = {1, 1, 1, 1, 1};
    const int to[5] = {1, 1, 0, 0, 1};

    /* function 0 timed out in tests 0 and 1: test 3 is cut, 2 and 4 run */
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++)
        run_in(orders[i], cost, to, 100.0, "timeouts");
}

Test(ledger, a_cut_tests_cost_and_timeout_do_not_count)
{
    /* test 3 (function 0, cut by two timeouts) ran on a lane, timed out and
     * cost 50: neither may count, so test 4 still runs */
    const double cost[5] = {1, 1, 1, 50, 1};
    const int to[5] = {1, 1, 0, 1, 0};

    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++)
        run_in(orders[i], cost, to, 10.0, "cut costs");
}

Test(ledger, a_lane_skips_what_is_certain)
{
    struct gl_ledger *g = gl_new(5, fn5, 2, 10.0);

    cr_assert_not_null(g);
    gl_done(g, 0, 11.0, 0);
    /* the budget is spent after test 0: every later test is cut already */
    cr_expect(gl_before(g, 1) == GL_CUT_BUDGET);
    cr_expect(gl_before(g, 4) == GL_CUT_BUDGET);
    gl_free(g);
    g = gl_new(5, fn5, 2, 10.0);
    gl_done(g, 1, 1.0, 1);
    /* test 0 has not ended: nothing is certain yet */
    cr_expect(gl_before(g, 3) == GL_RUN);
    gl_done(g, 0, 1.0, 1);
    cr_expect(gl_before(g, 3) == GL_CUT_TIMEOUTS);
    cr_expect(gl_before(g, 2) == GL_RUN, "function 1 has no timeout");
    gl_free(g);
}
