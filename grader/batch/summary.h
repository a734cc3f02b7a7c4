/*
 * summary.h -- where the class struggled: summary.md and summary.svg,
 * computed from the gradebook's rows alone (batch.h), so that a single
 * run, a resumed run and a merge of shards give the same bytes.
 *
 * Pass rates count every graded row: a submission that did not compile,
 * was rejected or could not be graded passes none of its tests; the rows
 * of missing and skipped folders are counted by status and left out of
 * everything else. Manual items (pending until a TA scores them) are named
 * apart, never ranked. The failure messages counted are those of tests
 * that ran and did not pass (failed, crashed, timed out, not implemented),
 * keyed by test id and the first line of the message with its numbers
 * blanked, so that one mistake's messages fold into one line.
 */
#ifndef GRD_SUMMARY_H
#define GRD_SUMMARY_H

#include <stddef.h>

#include "batch/batch.h"
#include "core/strbuf.h"

/* How many of the most common failure messages summary.md lists. */
#define SUM_TOP_MESSAGES 5
/* Bins of the score histogram (10 % of the maximum each). */
#define SUM_BINS 10

/*
 * Append summary.md: the counts per status (missing and skipped included),
 * the score distribution (mean, median, min, max and a 10-bin table), each
 * test's pass rate sorted worst first (ties in column order; manual items
 * listed apart), and the SUM_TOP_MESSAGES most common failure messages. `test_ids` are the gradebook's columns. Deterministic:
 * no timing, no dates. Returns 0, or -1 (cap hit or out of memory; out is
 * then partial).
 */
int sum_write_md(const struct bat_row *rows, size_t n, const char *const *test_ids,
                 size_t n_tests, struct sb *out) __attribute__((warn_unused_result));

/*
 * Append summary.svg: one self-contained SVG document (820 px wide, wider
 * when a label needs it, so that no label of up to 56 characters is cut;
 * as tall as it needs, 15 px a test): the pass rate per function (a bold
 * row) with its tests nested under it in spec order, one row each, its
 * percentage printed as summary.md prints it (one decimal), bars coloured by
 * rate (green >= 80 %, amber >= 50 %, red below); then the score histogram
 * (SUM_BINS bins, whole-number ticks, each bar's count over it). Every
 * text has its own row band or column, and carries its font size. Returns
 * 0 or -1 (as sum_write_md).
 */
int sum_write_svg(const struct bat_row *rows, size_t n, const char *const *test_ids,
                  size_t n_tests, struct sb *out) __attribute__((warn_unused_result));

#endif
