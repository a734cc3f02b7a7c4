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
 * What each part adds is bounded by what it renders, not by the bytes it
 * reads: a student's file, a source of a side-by-side view and a pair's
 * regions each stop at a number of rendered bytes (saying where, and where
 * the whole is), a run of more than three empty lines is one line. When
 * the page would pass its cap (the sb's) it shrinks, level by level: fewer
 * lines of context around the matched lines, smaller files, the views
 * collapsed, the students' files left out, and last the rows, pairs and
 * students that do not fit, the gradebook's rows first; a note at the top
 * says what was left out. It never fails for its size.
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

/* Bytes of one student's staff.md or feedback.md the page reads. */
#define HTML_TEXT_MAX (64u << 10)
/* Rendered bytes of one source of a side-by-side view at the page's first
 * level (a student's file: half of it); later levels take less. */
#define HTML_PART_MAX (256u << 10)

/*
 * Append report.html for rows[0..n) (in the order given) with the test
 * columns test_ids[0..n_tests), reading the per-student files and
 * similarity.csv under out_dir, shrunk to fit what is left of out's cap.
 * A file that is absent or unreadable, and a similarity.csv that does not
 * parse, are said so on the page. Returns 0, or -1 with e set (out of
 * memory, or a cap too small for the page's frame: its head, the note and
 * the script).
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
