/* test_util.c -- core/util.h: the one array grower, ut_grow() (with a
 * ceiling: ut_grow_max; parallel arrays: ut_grow2). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/util.h"

static const struct grow_case {
    size_t cap, need, first;
    size_t want_cap;        /* the capacity after the call */
} grow_cases[] = {
    {0, 1, 32, 32},         /* the first allocation: `first` elements */
    {0, 40, 32, 64},        /* doubled from `first` until need fits */
    {32, 32, 32, 32},       /* room already: nothing moves */
    {32, 33, 32, 64},       /* one more: twice the capacity */
    {32, 200, 16, 256},
    {0, 1, 0, 1},           /* first 0: one element */
};

Test(util, grow_doubles_and_keeps_the_contents)
{
    for (size_t i = 0; i < sizeof grow_cases / sizeof grow_cases[0]; i++) {
        const struct grow_case *g = &grow_cases[i];
        size_t cap = g->cap;
        int *v = g->cap ? malloc(g->cap * sizeof *v) : NULL, *w;

        for (size_t j = 0; j < g->cap; j++)
            v[j] = (int)j;
        w = ut_grow(v, &cap, g->need, sizeof *v, g->first);
        cr_assert_not_null(w, "case %zu", i);
        cr_expect_eq(cap, g->want_cap, "case %zu: capacity %zu, not %zu", i, cap, g->want_cap);
        if (g->need <= g->cap)
            cr_expect_eq(w, v, "case %zu: an array with room is not moved", i);
        for (size_t j = 0; j < g->cap; j++)
            cr_expect_eq(w[j], (int)j, "case %zu: element %zu lost", i, j);
        w[g->need - 1] = 1;     /* the room asked for is there (ASan sees it) */
        free(w);
    }
}

Test(util, grow_refuses_an_overflowing_size)
{
    size_t cap = 4;
    int *v = malloc(4 * sizeof *v);

    cr_assert_not_null(v);
    cr_expect_null(ut_grow(v, &cap, SIZE_MAX / 2, sizeof *v, 4), "need x size overflows");
    cr_expect_eq(cap, 4, "the capacity is unchanged on failure");
    cr_expect_null(ut_grow(v, &cap, SIZE_MAX, 1, 4), "the doubling overflows");
    cr_expect_eq(cap, 4);
    free(v);                    /* still valid after a refusal */
}

/* A list with a limit of its own: the doubling stops at the ceiling, and
 * more than the ceiling is refused with nothing changed. */
Test(util, grow_max_stops_at_the_ceiling)
{
    size_t cap = 0;
    int *v = ut_grow_max(NULL, &cap, 1, sizeof *v, 64, 100), *w;

    cr_assert_not_null(v);
    cr_expect_eq(cap, 64);
    w = ut_grow_max(v, &cap, 65, sizeof *v, 64, 100);
    cr_assert_not_null(w);
    cr_expect_eq(cap, 100, "doubled past the ceiling: %zu", cap);
    w[99] = 1;
    cr_expect_null(ut_grow_max(w, &cap, 101, sizeof *w, 64, 100));
    cr_expect_eq(cap, 100);
    free(w);
}

/* Parallel arrays of different element sizes keep one capacity. */
Test(util, grow2_grows_both_arrays_together)
{
    size_t cap = 0;
    char **names = NULL;
    double *vals = NULL;

    for (size_t n = 1; n <= 70; n++) {
        cr_assert_eq(ut_grow2((void **)&names, sizeof *names, (void **)&vals,
                              3 * sizeof *vals, &cap, n, 16), 0);
        names[n - 1] = NULL;
        vals[3 * n - 1] = (double)n;   /* the room is there (ASan sees it) */
    }
    cr_expect_eq(cap, 128);
    cr_expect_eq(vals[3 * 70 - 1], 70);
    cr_expect_eq(ut_grow2((void **)&names, sizeof *names, (void **)&vals, 0, &cap, 200, 16),
                 -1, "a zero-sized second array is refused");
    cr_expect_eq(cap, 128, "the capacity is unchanged on failure");
    free(names);
    free(vals);
}
