/*
 * report.h -- format a grade_result as a rubric for people (text,
 * Markdown) or for machines (Gradescope, GitHub Classroom, JUnit XML, TAP,
 * GitHub Actions annotations).
 *
 * Writers only format: every verdict and every number comes from the
 * grade_result, never from here. Output is deterministic (the same result
 * gives the same bytes); the text and Markdown rubrics print no timings,
 * the machine formats print the ones their schema asks for. Any bytes the
 * submission produced (messages, compiler output) are made safe for the
 * format: escaped, control characters neutralised, invalid UTF-8 replaced
 * by U+FFFD, each field clipped to opts.max_field bytes.
 *
 * Every writer appends to `out` (its cap bounds the report) and returns 0,
 * or -1 with `e` set: `out` then holds a truncated report that must not be
 * used as a machine format.
 */
#ifndef GRD_REPORT_H
#define GRD_REPORT_H

#include <stddef.h>

#include "core/err.h"
#include "grade/grade.h"
#include "core/strbuf.h"

enum rpt_format {
    RPT_TEXT,          /* "text": the rubric for a terminal */
    RPT_GRADESCOPE,    /* "gradescope": results.json */
    RPT_CLASSROOM,     /* "classroom": base64 runner result for the reporter */
    RPT_JUNIT,         /* "junit": JUnit XML */
    RPT_TAP,           /* "tap": TAP version 13 */
    RPT_MARKDOWN,      /* "markdown": feedback.md */
    RPT_GITHUB         /* "github": GitHub Actions annotations + text */
};

/* Default for rpt_opts.max_field: 16 KiB of one message or detail. */
#define RPT_FIELD_MAX ((size_t)16 << 10)

/* Lines of a compile error the text and Markdown rubrics show. */
#define RPT_DETAIL_LINES 20

/* Columns every line the text rubric writes itself fits in (wrapped at
 * blanks; a compiler's output is shown as it is). */
#define RPT_TEXT_WIDTH 100

struct rpt_opts {
    int color;            /* text only: ANSI colours (see rpt_want_color) */
    int redact_hidden;    /* tests not "visible": status and points only */
    size_t max_field;     /* bytes of one message kept; 0: RPT_FIELD_MAX */
    int student_view;     /* markdown only: what a student receives before
                             the grades are published. Tests that are not
                             "visible" are left out entirely (no id, case,
                             value, hint, reproduce line or score); one line
                             says how many there are and their total
                             points, and the score is the visible tests'. */
    int verbose;          /* text only: a row for every passing test and
                             every stub, not one line per function */
};

/*
 * The format named `name` ("text", "markdown" or "md", "gradescope",
 * "classroom", "junit", "tap", "github"), or -1 when unknown.
 */
int rpt_format_parse(const char *name);

/* The canonical name of a format ("text", ...); "?" when out of range. */
const char *rpt_format_name(enum rpt_format f);

/*
 * Write `r` in format `f` to `out`. `o` may be NULL (defaults: no colour,
 * nothing redacted). Returns 0, or -1 with `e` set (unknown format, report
 * larger than out->cap, out of memory); `out` is then partial.
 */
int rpt_write(const struct grade_result *r, enum rpt_format f,
              const struct rpt_opts *o, struct sb *out, struct err *e)
    __attribute__((warn_unused_result));

/*
 * The writers behind rpt_write(), same contract.
 *  - text: header, whole-submission status, the diagnosis, then each test
 *    that did not pass in full (row, details), in display order; a
 *    function whose every test is a stub in one line; the passing tests
 *    one line per function (opts.verbose: a row each); manual items;
 *    footer. Its own lines fit RPT_TEXT_WIDTH columns.
 *  - markdown: the same order: a fenced section per test that did not
 *    pass (a stub function's tests only in the table), then a table with
 *    a row for every test, those that did not pass first.
 *  - gradescope: Gradescope's results.json; manual items carry no score
 *    and no status; execution_time is whole seconds; hidden tests are
 *    "after_published" and the top-level output names only visible tests.
 *  - classroom: the base64 text of the JSON that
 *    classroom-resources/autograding-grading-reporter reads from
 *    <RUNNER>_RESULTS (no trailing newline); rpt_write_classroom_json()
 *    gives the JSON itself.
 *  - junit: one <testsuites> with one <testsuite>, valid against the
 *    Jenkins xunit plugin's junit-10.xsd (tests/junit-10.xsd); each test
 *    case's points in its <system-out>; a submission that was not graded
 *    (compile error, rejection, grader error) is one test case whose
 *    <error> holds the compiler's or the rejection's message.
 *  - tap: TAP version 13 with a YAML block per test.
 *  - github: GitHub Actions workflow commands: an ::error (::warning) with
 *    file, line and column per compiler diagnostic of the submission; when
 *    it was graded, an ::error per test that did not pass (title: id and
 *    points); then the text rubric (no colour) between ::stop-commands::
 *    and a token derived from it, so none of its lines runs as a command.
 */
int rpt_write_text(const struct grade_result *r, const struct rpt_opts *o,
                   struct sb *out, struct err *e)
    __attribute__((warn_unused_result));
int rpt_write_markdown(const struct grade_result *r, const struct rpt_opts *o,
                       struct sb *out, struct err *e)
    __attribute__((warn_unused_result));
int rpt_write_gradescope(const struct grade_result *r, const struct rpt_opts *o,
                         struct sb *out, struct err *e)
    __attribute__((warn_unused_result));
int rpt_write_classroom(const struct grade_result *r, const struct rpt_opts *o,
                        struct sb *out, struct err *e)
    __attribute__((warn_unused_result));
int rpt_write_classroom_json(const struct grade_result *r,
                             const struct rpt_opts *o, struct sb *out,
                             struct err *e)
    __attribute__((warn_unused_result));
int rpt_write_junit(const struct grade_result *r, const struct rpt_opts *o,
                    struct sb *out, struct err *e)
    __attribute__((warn_unused_result));
int rpt_write_tap(const struct grade_result *r, const struct rpt_opts *o,
                  struct sb *out, struct err *e)
    __attribute__((warn_unused_result));
int rpt_write_github(const struct grade_result *r, const struct rpt_opts *o,
                     struct sb *out, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Whether text written to `fd` should be coloured: fd is a terminal, and
 * NO_COLOR is unset or empty (https://no-color.org), and TERM is not
 * "dumb". Returns 1 or 0.
 */
int rpt_want_color(int fd);

/*
 * Append `key=value\n` to the file at `path` (GitHub Actions'
 * $GITHUB_OUTPUT), creating it if needed. A value holding a newline is
 * written in the `key<<DELIM` ... `DELIM` form with a delimiter absent
 * from the value. Returns 0, or -1 with `e` set (empty key or a key with
 * '=', '<' or a newline; open or write failure -- the file may then hold
 * part of the line).
 */
int rpt_append_github_output(const char *path, const char *key,
                             const char *value, struct err *e)
    __attribute__((warn_unused_result));

#endif
