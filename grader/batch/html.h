/*
 * html.h -- report.html: the class report as one self-contained page, from
 * the gradebook's rows (batch.h) and the files beside them.
 *
 * The page holds everything inline (style, script, SVG charts) and asks for
 * nothing: its Content-Security-Policy forbids every request and admits only
 * its own style and script, by their SHA-256. It reads as a document with
 * scripts off (the table, the charts and every student's section are plain
 * HTML); the script adds sorting by any column and filtering by status and
 * text. Parts:
 *   - the gradebook: one row per gradebook row (missing, skipped and error
 *     rows too), every test's points, a sticky header;
 *   - charts: the score histogram and the pass rate per function (SVG);
 *   - per student: the staff view (<id>/staff.md) and, apart, exactly what
 *     the student's feedback.md shows (said once when the two are the same);
 *   - similar pairs, when <out>/similarity.csv exists (`grader batch
 *     --similarity`): both ids, the shares and the matched line ranges.
 * Every piece of text from the class (ids, notes, messages, file contents)
 * is escaped for HTML; control characters and bidirectional overrides are
 * shown as visible marks, never obeyed. Deterministic: no dates, no timing.
 */
#ifndef GRD_HTML_H
#define GRD_HTML_H

#include <stddef.h>

#include "batch/batch.h"
#include "core/err.h"
#include "core/strbuf.h"

/* Bytes of one student's staff.md or feedback.md the page embeds. */
#define HTML_TEXT_MAX (64u << 10)

/*
 * Append report.html for rows[0..n) (in the order given) with the test
 * columns test_ids[0..n_tests), reading the per-student files and
 * similarity.csv under out_dir. A file that is absent or unreadable is
 * said so on the page. Returns 0, or -1 with e set (out's cap, out of
 * memory, a similarity.csv that does not parse).
 */
int html_write_report(const char *out_dir, const struct bat_row *rows, size_t n,
                      const char *const *test_ids, size_t n_tests, struct sb *out,
                      struct err *e) __attribute__((warn_unused_result));

/*
 * Append s as HTML text: & < > " ' escaped; invalid UTF-8 as U+FFFD; C0
 * controls other than tab and newline, DEL and C1 controls as U+FFFD;
 * bidirectional embeddings, overrides and isolates (U+202A..U+202E,
 * U+2066..U+2069) as a visible "[U+202E]". With one_line, a newline or tab
 * is shown as "\n" or "\t". Returns 0 or -1 (out's cap).
 */
int html_add_text(struct sb *out, const char *s, size_t n, int one_line)
    __attribute__((warn_unused_result));

#endif
