/*
 * export.h -- the gradebook for an LMS: read grades.csv and a roster, write
 * Canvas's or Moodle's grade-import CSV (docs/TA.md, "Into the LMS"), or
 * grades.csv with a byte-order mark for Excel.
 *
 * Canvas: `Student,ID,SIS User ID,SIS Login ID,Section,<assignment>`, a
 * `Points Possible` row, then one row per roster entry.
 * Moodle: `Username,Email address,ID number,<assignment>,Feedback`, one row
 * per roster entry; the import maps a user column and the grade column.
 * The roster is a CSV file with a header naming its columns: `id` (the
 * grader's id, as in grades.csv) and the LMS's own: name, canvas_id,
 * sis_user_id, sis_login_id, section (Canvas); username, email, idnumber
 * (Moodle). Absent columns are empty cells. Rows come out in roster order;
 * a student without a gradebook row, or whose row has no grade of its own
 * (status missing, skipped or error), gets an empty grade cell, never 0.
 * Every text cell is written with bat_csv_text (formulas neutralised).
 */
#ifndef GRD_EXPORT_H
#define GRD_EXPORT_H

#include <stddef.h>

#include "core/err.h"
#include "core/strbuf.h"

/* A CSV file read whole: row 0 is the header; every row has n_cols cells. */
struct gbx_table {
    size_t n_rows, n_cols;
    char **cells;   /* n_rows * n_cols strings, row-major */
    size_t *at;     /* per cell: its line << 20 | its column (1-based), for
                       messages (gbx_line, gbx_column) */
};

/* Where cell (row, col) starts in the file, 1-based. */
int gbx_line(const struct gbx_table *t, size_t row, size_t col);
int gbx_column(const struct gbx_table *t, size_t row, size_t col);

/*
 * Parse RFC 4180 text (CRLF or LF, quoted fields with "" for a quote, a
 * leading UTF-8 byte-order mark skipped) into t. `name` is the file named
 * in errors. Returns 0, or -1 with `e` set (name:line: an unterminated
 * quote, a row of another width, no header, out of memory).
 */
int gbx_csv_parse(const char *text, size_t n, const char *name,
                  struct gbx_table *t, struct err *e)
    __attribute__((warn_unused_result));
void gbx_table_free(struct gbx_table *t);

/* The index of the header cell `name`, or -1. */
int gbx_col(const struct gbx_table *t, const char *name);

/* A cell's text with the apostrophe bat_csv_text adds removed. */
const char *gbx_untext(const char *cell);

enum gbx_lms { GBX_CANVAS, GBX_MOODLE };

struct gbx_stats {
    size_t graded;          /* roster rows given a grade */
    size_t blank;           /* roster rows left blank */
    size_t not_in_roster;   /* gradebook rows no roster row names */
    size_t *unmatched;      /* those rows (indices into the gradebook
                               table), owned: gbx_stats_release */
};

/* Free what st owns and zero it. */
void gbx_stats_release(struct gbx_stats *st);

/*
 * Write the import CSV for `lms` from `grades` (a grades.csv) and `roster`
 * to `out`; `assignment` is the grade column's title. Counts go to st,
 * and the gradebook rows no roster row names to st->unmatched (release st
 * whatever the result).
 * Returns 0, or -1 with `e` set (grades.csv without id, score or status;
 * a roster without id; a roster id twice; cap).
 */
int gbx_export(enum gbx_lms lms, const struct gbx_table *grades,
               const struct gbx_table *roster, const char *assignment,
               struct sb *out, struct gbx_stats *st, struct err *e)
    __attribute__((warn_unused_result));

/* Append the UTF-8 byte-order mark Excel needs to read UTF-8 ("Zoë"). */
int gbx_add_bom(struct sb *out) __attribute__((warn_unused_result));

/* ---- feedback back into the LMS in bulk ---- */

/* What the feedback exports say about a gradebook row they leave out:
 * `row` indexes the gradebook table, `why` is one line. */
typedef void (*gbx_skip_fn)(void *ctx, size_t row, const char *why);

/*
 * Moodle's "Upload multiple feedback files in a zip" (assignfeedback_file):
 * a zip (core/zip.h) holding, per gradebook row, `<name>/feedback.md`,
 * where <name> is the row's `name` column, the submission's folder as
 * Moodle's "Download all submissions" named it
 * (`Full Name_<participant id>_assignsubmission_file_`: Moodle matches the
 * participant id between the first two underscores, and writes no
 * underscore in the full name), and feedback.md is `dir`/<id>/feedback.md.
 * A row whose name is not such a folder, or without a feedback.md, is
 * left out and passed to skip. *written gets the files zipped.
 * Returns 0, or -1 with `e` set (no id or name column, a file unreadable
 * for another reason than its absence, the zip's limits).
 */
int gbx_feedback_moodle(const struct gbx_table *grades, const char *dir,
                        struct sb *zip, gbx_skip_fn skip, void *ctx,
                        size_t *written, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Canvas has no bulk feedback-file import; its bulk route for comments is
 * the Submissions API's "Grade or comment on multiple submissions" (POST
 * /api/v1/courses/:course_id/assignments/:assignment_id/submissions/
 * update_grades). Write that request's JSON body:
 *   {"grade_data": {"<student>": {"text_comment": "<feedback.md>"}, ...}}
 * with <student> the roster's canvas_id (Canvas's user id), or
 * `sis_user_id:<sis_user_id>` when that is empty, in gradebook order. No
 * grade: grades go through the gradebook import (gbx_export), which
 * Canvas shows before it applies them. A row the roster does not name,
 * without either id, or without a feedback.md, is passed to skip.
 * Returns 0, or -1 with `e` set (as gbx_feedback_moodle; a roster without
 * id).
 */
int gbx_feedback_canvas(const struct gbx_table *grades, const struct gbx_table *roster,
                        const char *dir, struct sb *json, gbx_skip_fn skip, void *ctx,
                        size_t *written, struct err *e)
    __attribute__((warn_unused_result));

#endif
