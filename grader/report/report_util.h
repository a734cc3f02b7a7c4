/*
 * report_util.h -- internal to the report writers (report.c,
 * report_machine.c), implemented in report_util.c; not part of report.h's
 * API.
 *
 * Appends go through rpti_put*(), which ignore the return value: a failed
 * append marks the strbuf truncated, and every writer checks that once at
 * the end (rpti_finish), so a report is either whole or an error.
 */
#ifndef GRD_REPORT_UTIL_H
#define GRD_REPORT_UTIL_H

#include <stdint.h>

#include "core/json.h"
#include "report/report.h"

struct rpti_ctx {
    const struct grade_result *r;
    const struct rpt_opts *o;     /* never NULL */
    struct sb *out;
    size_t max;                   /* bytes of one field kept */
};

/* One decoded character (cp < 0: an invalid byte) written for a format. */
typedef void (*rpti_emit_fn)(struct sb *sb, int32_t cp, const void *arg);

void rpti_init(struct rpti_ctx *c, const struct grade_result *r,
             const struct rpt_opts *o, struct sb *out);
/* 0 when the report is whole; -1 with `e` set when it was truncated. */
int rpti_finish(const struct rpti_ctx *c, struct err *e);

void rpti_put(struct sb *sb, const char *s);
void rpti_putn(struct sb *sb, const char *s, size_t n);
void rpti_putf(struct sb *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

const char *rpti_id(const struct grade_test *t);
const char *rpti_title(const struct grade_test *t);
const char *rpti_str(const char *s);              /* NULL as "" */
int rpti_visible(const struct rpti_ctx *c, const struct grade_test *t);
/* Points with at least one decimal: "2.0", "1.3333". Returns buf. */
char *rpti_pts(double v, char buf[JSON_NUM_MAX]);
size_t rpti_count(const struct grade_result *r, enum grade_test_status s);

/* The raw (unescaped) details of a test: message, cases, hint, repro,
 * failed dependencies; one line each. */
void rpti_detail(const struct rpti_ctx *c, const struct grade_test *t,
               struct sb *sb);
/* rpti_detail for a rubric read top to bottom (text, Markdown): a message
 * an earlier failure already showed word for word (a malformed
 * answers.yaml fails every written check alike) becomes "the same problem
 * as <id> above". Machine formats, each entry read alone, keep it. */
void rpti_detail_once(const struct rpti_ctx *c, const struct grade_test *t,
                      struct sb *sb);

/* n without trailing blanks and newlines. */
size_t rpti_trim_end(const char *s, size_t n);
/* Bytes of the first nlines lines of s; *more gets how many lines follow. */
size_t rpti_lines_len(const char *s, size_t nlines, size_t *more);

/* Feed s[0..n) (trailing blanks trimmed, clipped to max bytes with a
 * " [... N bytes cut]" note) through emit, one character at a time. */
void rpti_walk(struct sb *sb, const char *s, size_t n, size_t max,
             rpti_emit_fn emit, const void *arg);
void rpti_walkz(struct sb *sb, const char *s, size_t max, rpti_emit_fn emit,
              const void *arg);

/* Plain text for terminals and fenced blocks: invalid UTF-8 as U+FFFD,
 * control characters shown as \xNN, CR dropped, each newline followed by
 * the string `indent`. */
void rpti_emit_text(struct sb *sb, int32_t cp, const void *indent);

/* The text rubric's lines, each fitting RPT_TEXT_WIDTH columns (UTF-8
 * characters; colour sequences count none): s[0..n), one line without its
 * newline, broken at blanks, each continuation indented by `cont` blanks.
 * cmd: a shell command, broken only outside quotes, each break a " \"
 * continuation, so the lines still run when pasted. A word longer than a
 * line stays whole. Every line written ends in a newline. */
void rpti_wrap_line(struct sb *out, const char *s, size_t n, size_t cont, int cmd);
/* rpti_wrap_line for each line of s[0..n): continuations indented `extra`
 * blanks past the line's own indent; a "reproduce: " line as a command
 * whose continuations line up after "reproduce: ". */
void rpti_wrap_block(struct sb *out, const char *s, size_t n, size_t extra);

/* (report_cause.c) The diagnosis lines a rubric opens with: one per
 * function with failures, its most likely cause (grade/diag.h) and the
 * failures it explains; Markdown list items when md. Nothing when no
 * test failed. */
void rpti_causes(const struct rpti_ctx *c, int md);
/* The plain diagnosis lines of t's function (rpti_causes' for it), for a
 * format whose tests are read one by one (Gradescope); nothing when t
 * passed, is hidden from c, or its function has no shown failure. */
void rpti_causes_of(const struct rpti_ctx *c, const struct grade_test *t);

/* (report_cause.c) The order every format shows r's tests in: spec order,
 * except that each cause's lead failure (grade.h) moves up to where its
 * function's first test not passed (failed or withheld) was, so that the
 * first failure shown for a function is the one that names its bug; and
 * each test preceded by the tests of its depends_on, so "fix X first"
 * never comes before X. malloc'd with r->n_tests entries; NULL when out of
 * memory (show spec order). */
size_t *rpti_order(const struct grade_result *r);

#endif
