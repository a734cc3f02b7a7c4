/*
 * summary_internal.h -- what the two halves of summary.h share:
 * summary.c (summary.md) and summary_svg.c (summary.svg). Not an API.
 */
#ifndef GRD_SUMMARY_INTERNAL_H
#define GRD_SUMMARY_INTERNAL_H

#include <stddef.h>

#include "batch/batch.h"

/* A test's pass count; idx keeps ties in column order. */
struct sum_rate {
    const char *id;
    size_t passed, idx;
};

/* Whether a row holds no grade of its own: status missing or skipped. */
int sum_absent(const struct bat_row *r);

/*
 * The rows that hold a grade, as shallow copies (the strings stay the
 * caller's); *m gets their count. Returns a new array (free it), or NULL
 * when out of memory.
 */
struct bat_row *sum_graded(const struct bat_row *rows, size_t n, size_t *m);

/* Whether test `id` is a manual item: pending in some row (a TA scores it). */
int sum_manual(const struct bat_row *rows, size_t n, const char *id);

/* The test of row r with that id, or NULL. */
const struct bat_test_row *sum_find(const struct bat_row *r, const char *id);

/*
 * Pass counts of ids[0..n_tests), in column order, or sorted worst first
 * (ties in column order) when `worst_first`. NULL when out of memory.
 */
struct sum_rate *sum_rates(const struct bat_row *rows, size_t n, const char *const *ids,
                           size_t n_tests, int worst_first);

/* Scores as percentages of their maximum, sorted; NULL when n is 0 or out
 * of memory. */
double *sum_score_pcts(const struct bat_row *rows, size_t n);

/* 100 * part / whole, 0 when whole is 0. */
double sum_pct(double part, double whole);

/* A percentage as summary.md and summary.svg both print it: one decimal
 * ("62.5 %", "100.0 %"), so that the two never disagree. */
void sum_pct_text(double pct, char *buf, size_t n);

#endif
