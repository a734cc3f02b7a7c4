/* report.c -- see report.h. Dispatch and the rubrics for people (text,
 * Markdown); the machine formats are in report_machine.c, the helpers both
 * share in report_util.c. */
#include "report/report.h"
#include "report/report_util.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- names ---- */

static const char *const format_names[] = {
    "text", "gradescope", "classroom", "junit", "tap", "markdown", "github"
};

int rpt_format_parse(const char *name)
{
    size_t i;

    if (name == NULL)
        return -1;
    if (strcmp(name, "md") == 0)
        return RPT_MARKDOWN;
    for (i = 0; i < sizeof format_names / sizeof *format_names; i++)
        if (strcmp(name, format_names[i]) == 0)
            return (int)i;
    return -1;
}

const char *rpt_format_name(enum rpt_format f)
{
    if ((unsigned)f >= sizeof format_names / sizeof *format_names)
        return "?";
    return format_names[f];
}

int rpt_write(const struct grade_result *r, enum rpt_format f,
              const struct rpt_opts *o, struct sb *out, struct err *e)
{
    switch (f) {
    case RPT_TEXT: return rpt_write_text(r, o, out, e);
    case RPT_GRADESCOPE: return rpt_write_gradescope(r, o, out, e);
    case RPT_CLASSROOM: return rpt_write_classroom(r, o, out, e);
    case RPT_JUNIT: return rpt_write_junit(r, o, out, e);
    case RPT_TAP: return rpt_write_tap(r, o, out, e);
    case RPT_MARKDOWN: return rpt_write_markdown(r, o, out, e);
    case RPT_GITHUB: return rpt_write_github(r, o, out, e);
    }
    return err_set(e, NULL, 0, 0, "unknown report format %d", (int)f);
}

int rpt_want_color(int fd)
{
    const char *no = getenv("NO_COLOR");
    const char *term = getenv("TERM");

    if (no != NULL && no[0] != '\0')
        return 0;
    if (term != NULL && strcmp(term, "dumb") == 0)
        return 0;
    return isatty(fd) == 1;
}

/* ---- text ---- */

#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_BOLD "\033[1m"
#define C_RESET "\033[0m"

/* The fixed-width status word of the text rubric, and its colour. */
static const char *status_word(enum grade_test_status s, const char **color)
{
    static const char *const words[] = {
        "PASS", "FAIL", "CRASH", "TIME", "TODO", "SKIP", "MANUAL", "HELD"
    };
    static const char *const colors[] = {
        C_GREEN, C_RED, C_RED, C_RED, C_YELLOW, C_YELLOW, C_YELLOW, C_YELLOW
    };

    if ((unsigned)s >= sizeof words / sizeof *words)
        s = TEST_FAILED;
    *color = colors[s];
    return words[s];
}

static void colored(const struct rpti_ctx *c, const char *color, const char *s)
{
    if (c->o->color)
        rpti_putf(c->out, "%s%s%s", color, s, C_RESET);
    else
        rpti_put(c->out, s);
}

/* Up to RPT_DETAIL_LINES lines of a detail, indented, with a count of the
 * lines left out. */
static void text_detail_lines(const struct rpti_ctx *c, const char *s)
{
    size_t more, len = rpti_lines_len(rpti_str(s), RPT_DETAIL_LINES, &more);

    rpti_put(c->out, "    ");
    rpti_walk(c->out, rpti_str(s), len, c->max, rpti_emit_text, "    ");
    if (more)
        rpti_putf(c->out, "\n    (%zu more lines not shown)", more);
    rpti_put(c->out, "\n");
}

static const char *banner(enum grade_status s)
{
    switch (s) {
    case GRADE_COMPILE_ERROR:
        return "COMPILE ERROR: the submission did not compile. The "
               "compiler said:";
    case GRADE_REJECTED:
        return "REJECTED: the submission was refused before any test ran:";
    case GRADE_BUDGET_EXHAUSTED:
        return "TIME BUDGET EXHAUSTED: grading ran out of time; the tests "
               "that did not run score 0";
    case GRADE_ERROR:
        return "GRADER ERROR: the grader itself failed (not your fault: "
               "tell the course staff)";
    case GRADE_OK: break;
    }
    return NULL;
}

/* Whether grading stopped before any test: the rubric then shows the
 * reason and one "no test ran" line instead of a row per test. */
static int none_ran(const struct grade_result *r)
{
    return r->status == GRADE_COMPILE_ERROR || r->status == GRADE_REJECTED;
}

/* The one line that replaces the rows when no test ran. */
static void no_test_ran(const struct rpti_ctx *c)
{
    char b[JSON_NUM_MAX];

    rpti_putf(c->out, "no test ran (%zu test%s, %s points): fix the "
              "first error above, then run the check again\n",
              c->r->n_tests, c->r->n_tests == 1 ? "" : "s",
              rpti_pts(c->r->max_score, b));
}

static const char *fn_of(const struct grade_test *t)
{
    return t->test && t->test->function ? t->test->function : "";
}

/* Whether every test of function f is TEST_NOT_IMPLEMENTED. */
static int all_stubs(const struct grade_result *r, const char *f)
{
    size_t j;

    for (j = 0; j < r->n_tests; j++)
        if (strcmp(fn_of(&r->tests[j]), f) == 0 &&
            r->tests[j].status != TEST_NOT_IMPLEMENTED)
            return 0;
    return 1;
}

/* Functions whose every test is TEST_NOT_IMPLEMENTED, in spec order. */
static void stub_functions(const struct grade_result *r, struct sb *sb)
{
    size_t i, k;

    for (i = 0; i < r->n_tests; i++) {
        const char *f = fn_of(&r->tests[i]);

        for (k = 0; k < i && strcmp(fn_of(&r->tests[k]), f) != 0; k++)
            ;
        if (k == i && f[0] && all_stubs(r, f))
            rpti_putf(sb, "%s%s", sb->len ? ", " : "", f);
    }
}

/* ---- what goes where (text and Markdown) ----
 * Failures first, in full, under the diagnosis; then a function whose
 * every test is a stub, in one line; then the passing tests, one line per
 * function; last the items a TA scores. rpt_opts.verbose gives every
 * stub and every passing test its own row. */

/* Whether t is shown only in its function's one "not implemented" line. */
static int collapsed(const struct rpti_ctx *c, const struct grade_test *t)
{
    return !c->o->verbose && t->status == TEST_NOT_IMPLEMENTED && fn_of(t)[0] &&
           all_stubs(c->r, fn_of(t));
}

/* Whether t is one of the failures shown in full, first. */
static int in_full(const struct rpti_ctx *c, const struct grade_test *t)
{
    return t->status != TEST_PASSED && t->status != TEST_MANUAL_PENDING && !collapsed(c, t);
}

/* The k-th test in display order (order NULL: spec order). */
static const struct grade_test *shown(const struct grade_result *r, const size_t *order,
                                      size_t k)
{
    return &r->tests[order ? order[k] : k];
}

/* Whether shown(k) is its function's first test in display order. */
static int leads_function(const struct grade_result *r, const size_t *order, size_t k)
{
    const char *f = fn_of(shown(r, order, k));

    for (size_t j = 0; j < k; j++)
        if (strcmp(fn_of(shown(r, order, j)), f) == 0)
            return 0;
    return 1;
}

/* One function's tests, and those of them with status st: how many and
 * their points in hundredths (scores are whole hundredths); n_manual of
 * the n are manual items still pending (listed apart, below). */
struct fn_tally {
    size_t n, n_st, n_manual;
    long long st_cents, st_max_cents;
};

static void tally(const struct grade_result *r, const char *f, enum grade_test_status st,
                  struct fn_tally *y)
{
    memset(y, 0, sizeof *y);
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];

        if (strcmp(fn_of(t), f) != 0)
            continue;
        y->n++;
        y->n_manual += t->status == TEST_MANUAL_PENDING;
        if (t->status != st)
            continue;
        y->n_st++;
        y->st_cents += llround(t->score * 100.0);
        y->st_max_cents += llround(t->max_score * 100.0);
    }
}

/* "softmax: all 8 tests passed", "sdpa: 14 of 16 tests passed (the other
 * 2 are above)", "mha: 7 tests, not implemented yet"; its points in pts. */
static void fn_line(const struct fn_tally *y, const char *f, enum grade_test_status st,
                    struct sb *what, char pts[2 * JSON_NUM_MAX + 2])
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];

    snprintf(pts, 2 * JSON_NUM_MAX + 2, "%s/%s", rpti_pts((double)y->st_cents / 100.0, a),
             rpti_pts((double)y->st_max_cents / 100.0, b));
    if (st == TEST_NOT_IMPLEMENTED)
        rpti_putf(what, "%s: %zu test%s, not implemented yet", f, y->n, y->n == 1 ? "" : "s");
    else if (y->n_st == y->n)
        rpti_putf(what, "%s: %s%zu test%s passed", f, y->n == 1 ? "" : "all ", y->n,
                  y->n == 1 ? "" : "s");
    else if (y->n_st + y->n_manual == y->n)   /* the rest are the staff's, below */
        rpti_putf(what, "%s: %s%zu test%s passed (%zu more scored by the course staff, "
                  "below)", f, y->n_st == 1 ? "" : "all ", y->n_st, y->n_st == 1 ? "" : "s",
                  y->n_manual);
    else if (y->n_manual == 0)
        rpti_putf(what, "%s: %zu of %zu tests passed (the other%s %s above)", f, y->n_st,
                  y->n, y->n - y->n_st == 1 ? "" : "s", y->n - y->n_st == 1 ? "is" : "are");
    else
        rpti_putf(what, "%s: %zu of %zu tests passed (%zu above, %zu scored by the course "
                  "staff below)", f, y->n_st, y->n, y->n - y->n_st - y->n_manual,
                  y->n_manual);
}

/* ---- text ---- */

/* c writing to sb instead (the text rubric wraps what it composed). */
static struct rpti_ctx ctx_to(const struct rpti_ctx *c, struct sb *sb)
{
    struct rpti_ctx t = *c;

    t.out = sb;
    return t;
}

/* Column where a row's id starts: "  FAIL   0.0/2.0    " (a long title
 * continues there). */
#define ROW_ID_COL 20

/* "  FAIL   0.0/2.0    id  title  suffix", wrapped. */
static void text_row(const struct rpti_ctx *c, enum grade_test_status st, const char *pts,
                     const char *id, const char *title, const char *suffix)
{
    const char *color, *word = status_word(st, &color);
    struct sb sb, wrapped;
    struct rpti_ctx w;

    sb_init(&sb, 4 * c->max + 4096);
    w = ctx_to(c, &sb);
    rpti_put(&sb, "  ");
    colored(&w, color, word);
    rpti_putf(&sb, "%*s %-9s  ", (int)(6 - strlen(word)), "", pts);
    rpti_walkz(&sb, id, c->max, rpti_emit_text, "");
    if (title[0]) {
        rpti_put(&sb, "  ");
        rpti_walkz(&sb, title, c->max, rpti_emit_text, "");
    }
    /* the suffix ("  (3/5 cases)") moves to the next line whole: its
     * blanks are \x01 while wrapping (text never holds one: rpti_emit_text
     * shows a control character as \x01) */
    for (size_t i = 0; suffix[i]; i++) {
        int inner = suffix[i] == ' ' && i > 0 && suffix[i - 1] != ' ' && suffix[i + 1] != ' ';

        rpti_putn(&sb, inner ? "\x01" : suffix + i, 1);
    }
    sb_init(&wrapped, 2 * sb.len + 64);
    rpti_wrap_line(&wrapped, sb_str(&sb), sb.len, ROW_ID_COL, 0);
    for (size_t i = 0; i < wrapped.len; i++)
        wrapped.buf[i] = wrapped.buf[i] == '\x01' ? ' ' : wrapped.buf[i];
    rpti_putn(c->out, sb_str(&wrapped), wrapped.len);
    if (sb.truncated || wrapped.truncated)
        c->out->truncated = 1;
    sb_release(&wrapped);
    sb_release(&sb);
}

/* Text composed in sb, written wrapped (continuations `extra` deeper). */
static void text_wrapped(const struct rpti_ctx *c, struct sb *sb, size_t extra)
{
    rpti_wrap_block(c->out, sb_str(sb), sb->len, extra);
    if (sb->truncated)
        c->out->truncated = 1;
}

static void text_header(const struct rpti_ctx *c)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];

    colored(c, C_BOLD, "attention-grader report");
    rpti_put(c->out, "\n  submission: ");
    rpti_walkz(c->out, c->r->submission, c->max, rpti_emit_text, "");
    rpti_putf(c->out, "\n  seed:       %llu\n  spec:       %.12s\n",
            (unsigned long long)c->r->seed, c->r->spec_sha256);
    rpti_putf(c->out, "  score:      %s / %s\n\n", rpti_pts(c->r->score, a),
            rpti_pts(c->r->max_score, b));
}

static void text_status(const struct rpti_ctx *c)
{
    const char *msg = banner(c->r->status);
    struct sb stubs, line;

    if (msg != NULL) {
        colored(c, C_RED, msg);
        rpti_put(c->out, "\n");
        if (c->r->status_detail && c->r->status_detail[0])
            text_detail_lines(c, c->r->status_detail);
        rpti_put(c->out, "\n");
    }
    sb_init(&stubs, 4096);
    sb_init(&line, 8192);
    stub_functions(c->r, &stubs);
    if (stubs.len) {
        struct rpti_ctx w = ctx_to(c, &line);

        colored(&w, C_YELLOW, "not implemented yet:");
        rpti_putf(&line, " %s (still the template's stubs returning ATTN_ENOTIMPL)\n\n",
                  sb_str(&stubs));
        text_wrapped(c, &line, 2);
    }
    sb_release(&line);
    sb_release(&stubs);
    if (c->r->warnings && c->r->warnings[0]) {
        colored(c, C_YELLOW, "warnings:");
        rpti_put(c->out, "\n");
        text_detail_lines(c, c->r->warnings);
        rpti_put(c->out, "\n");
    }
}

/* A test's row and, unless it passed, its details under it. */
static void text_test(const struct rpti_ctx *c, const struct grade_test *t)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX], pts[2 * JSON_NUM_MAX + 2], cases[64] = "";
    struct sb d, body;

    if (t->status == TEST_MANUAL_PENDING)
        snprintf(pts, sizeof pts, "-/%s", rpti_pts(t->max_score, b));
    else
        snprintf(pts, sizeof pts, "%s/%s", rpti_pts(t->score, a),
                 rpti_pts(t->max_score, b));
    if (t->test && t->test->scoring == SPEC_PARTIAL && t->cases_run > 0)
        snprintf(cases, sizeof cases, "  (%zu/%zu cases)", t->cases_passed, t->cases_run);
    text_row(c, t->status, pts, rpti_id(t), rpti_title(t), cases);
    if (t->status == TEST_PASSED)
        return;
    sb_init(&d, 4 * c->max + 4096);
    sb_init(&body, 8 * c->max + 8192);
    rpti_detail_once(c, t, &d);
    rpti_put(&body, "          ");
    rpti_walk(&body, sb_str(&d), d.len, 4 * c->max, rpti_emit_text, "          ");
    rpti_put(&body, "\n");
    text_wrapped(c, &body, 2);
    sb_release(&body);
    sb_release(&d);
}

/* Function f's one line: its stubs (st TEST_NOT_IMPLEMENTED) or its
 * passing tests (TEST_PASSED); nothing when it has none. */
static void text_function(const struct rpti_ctx *c, const char *f, enum grade_test_status st)
{
    char pts[2 * JSON_NUM_MAX + 2];
    struct fn_tally y;
    struct sb what;

    tally(c->r, f, st, &y);
    if (y.n_st == 0)
        return;
    sb_init(&what, 4096);
    fn_line(&y, f, st, &what, pts);
    text_row(c, st, pts, sb_str(&what), "", "");
    sb_release(&what);
}

/* A heading, and a blank line before it unless it is the first. */
static void text_heading(const struct rpti_ctx *c, int *n, const char *s)
{
    if ((*n)++)
        rpti_put(c->out, "\n");
    rpti_put(c->out, s);
}

/* The rows: failures in full, stubs, passes, manual items (see above). */
static void text_tests(const struct rpti_ctx *c, const size_t *order)
{
    const struct grade_result *r = c->r;
    size_t k, n = r->n_tests, full = 0, stubs = 0, manual = rpti_count(r, TEST_MANUAL_PENDING);
    int heads = 0;

    for (k = 0; k < n; k++)
        full += (size_t)in_full(c, shown(r, order, k));
    if (full)
        text_heading(c, &heads, "did not pass, in the order to fix them:\n");
    for (k = 0; k < n; k++)
        if (in_full(c, shown(r, order, k)))
            text_test(c, shown(r, order, k));
    for (k = 0; k < n; k++)
        if (collapsed(c, shown(r, order, k)) && leads_function(r, order, k)) {
            if (stubs++ == 0)
                text_heading(c, &heads, "still stubs (one line per function; --verbose lists every test):\n");
            text_function(c, fn_of(shown(r, order, k)), TEST_NOT_IMPLEMENTED);
        }
    if (rpti_count(r, TEST_PASSED))
        text_heading(c, &heads, c->o->verbose ? "passed:\n"
                     : "passed (one line per function; --verbose lists every test):\n");
    for (k = 0; k < n; k++) {
        const struct grade_test *t = shown(r, order, k);

        if (c->o->verbose && t->status == TEST_PASSED)
            text_test(c, t);
        else if (!c->o->verbose && leads_function(r, order, k))
            text_function(c, fn_of(t), TEST_PASSED);
    }
    if (manual)
        text_heading(c, &heads, "scored by the course staff:\n");
    for (k = 0; manual && k < n; k++)
        if (shown(r, order, k)->status == TEST_MANUAL_PENDING)
            text_test(c, shown(r, order, k));
}

static void text_footer(const struct rpti_ctx *c)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];
    struct sb sb;

    rpti_put(c->out, "\n");
    colored(c, C_BOLD, "score:");
    rpti_putf(c->out, " %s / %s  (%zu of %zu tests passed)\n",
            rpti_pts(c->r->score, a), rpti_pts(c->r->max_score, b),
            rpti_count(c->r, TEST_PASSED), c->r->n_tests);
    sb_init(&sb, 4096);
    rpti_put(&sb, "how to read this: the tests that did not pass come first, each with "
             "its status, points earned/possible, id and what it checks, then what went "
             "wrong, a hint, and the command that reruns it alone. Fix them in order: later "
             "tests build on earlier ones. Passing tests follow, one line per function.\n");
    text_wrapped(c, &sb, 2);
    sb_release(&sb);
}

int rpt_write_text(const struct grade_result *r, const struct rpt_opts *o,
                   struct sb *out, struct err *e)
{
    struct rpti_ctx c;
    struct sb causes;
    size_t *order;

    rpti_init(&c, r, o, out);
    text_header(&c);
    text_status(&c);
    if (none_ran(r)) {
        no_test_ran(&c);
        return rpti_finish(&c, e);
    }
    sb_init(&causes, 16 * c.max + 16384);
    {
        struct rpti_ctx w = ctx_to(&c, &causes);
        rpti_causes(&w, 0);
    }
    text_wrapped(&c, &causes, 2);
    sb_release(&causes);
    order = rpti_order(r);
    text_tests(&c, order);
    free(order);
    text_footer(&c);
    return rpti_finish(&c, e);
}

/* ---- markdown ---- */

/* Inline Markdown (table cells, list items): every character CommonMark
 * or GFM tables give a meaning is backslash-escaped; line breaks and
 * control characters become spaces. */
static void emit_md_inline(struct sb *sb, int32_t cp, const void *arg)
{
    (void)arg;
    if (cp < 0)
        rpti_put(sb, "\xEF\xBF\xBD");
    else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
        rpti_put(sb, " ");
    else if (cp < 0x80 && strchr("\\`*_{}[]<>()#+-!|~&", (int)cp))
        rpti_putf(sb, "\\%c", (char)cp);
    else if (sb_add_utf8(sb, (uint32_t)cp) < 0)
        return;
}

/* Longest run of backticks in s, so a fence can be one longer. */
static size_t longest_backticks(const char *s, size_t n)
{
    size_t i, run = 0, best = 0;

    for (i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

/* s[0..n) in a fenced block whose fence no line of s can close. */
static void md_fenced(const struct rpti_ctx *c, const char *s, size_t n)
{
    size_t i, fence = longest_backticks(s, n) + 1;

    if (fence < 3)
        fence = 3;
    for (i = 0; i < fence; i++)
        rpti_put(c->out, "`");
    rpti_put(c->out, "text\n");
    rpti_walk(c->out, s, n, 4 * c->max, rpti_emit_text, "");
    rpti_put(c->out, "\n");
    for (i = 0; i < fence; i++)
        rpti_put(c->out, "`");
    rpti_put(c->out, "\n\n");
}

static void md_header(const struct rpti_ctx *c)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];

    rpti_putf(c->out, "# Grading report\n\n**Score: %s / %s** (%zu of %zu "
            "tests passed)\n\n", rpti_pts(c->r->score, a),
            rpti_pts(c->r->max_score, b), rpti_count(c->r, TEST_PASSED),
            c->r->n_tests);
    rpti_put(c->out, "- Submission: ");
    rpti_walkz(c->out, c->r->submission, c->max, emit_md_inline, NULL);
    rpti_putf(c->out, "\n- Seed: %llu\n- Spec: %.12s\n\n",
            (unsigned long long)c->r->seed, c->r->spec_sha256);
}

static void md_status(const struct rpti_ctx *c)
{
    const char *msg = banner(c->r->status);
    struct sb stubs;
    size_t more, len;

    if (msg != NULL) {
        rpti_putf(c->out, "> **%s**\n\n", msg);
        len = rpti_lines_len(rpti_str(c->r->status_detail), RPT_DETAIL_LINES,
                           &more);
        if (len > 0)
            md_fenced(c, rpti_str(c->r->status_detail), len);
        if (more)
            rpti_putf(c->out, "(%zu more lines not shown)\n\n", more);
    }
    sb_init(&stubs, 4096);
    stub_functions(c->r, &stubs);
    if (stubs.len) {
        rpti_put(c->out, "> **Not implemented yet:** ");
        rpti_walk(c->out, sb_str(&stubs), stubs.len, c->max, emit_md_inline,
                NULL);
        rpti_put(c->out, " (still the template's stubs returning "
               "ATTN\\_ENOTIMPL)\n\n");
    }
    sb_release(&stubs);
    if (c->r->warnings && c->r->warnings[0]) {
        rpti_put(c->out, "**Warnings:**\n\n");
        md_fenced(c, c->r->warnings, strlen(c->r->warnings));
    }
}

static void md_row(const struct rpti_ctx *c, const struct grade_test *t)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];
    const char *color, *word = status_word(t->status, &color);

    rpti_putf(c->out, "| %s | %s/%s | ", word,
            t->status == TEST_MANUAL_PENDING ? "-" : rpti_pts(t->score, a),
            rpti_pts(t->max_score, b));
    rpti_walkz(c->out, rpti_id(t), c->max, emit_md_inline, NULL);
    rpti_put(c->out, " | ");
    rpti_walkz(c->out, rpti_title(t), c->max, emit_md_inline, NULL);
    rpti_put(c->out, " |\n");
}

static void md_failure(const struct rpti_ctx *c, const struct grade_test *t)
{
    const char *color;
    struct sb d;

    rpti_putf(c->out, "### %s: ", status_word(t->status, &color));
    rpti_walkz(c->out, rpti_id(t), c->max, emit_md_inline, NULL);
    rpti_put(c->out, "\n\n");
    sb_init(&d, 4 * c->max + 4096);
    rpti_detail_once(c, t, &d);
    md_fenced(c, sb_str(&d), d.len);
    sb_release(&d);
}

/* The hidden tests' count and points, for the student view's one line. */
static void md_hidden_line(const struct rpti_ctx *c, size_t n, long long cents)
{
    char a[JSON_NUM_MAX];

    if (n == 0)
        return;
    rpti_putf(c->out, "> **Hidden tests:** %zu more test%s worth %s point%s %s graded too. "
            "Their results are not shown here: they come with the published grade.\n\n",
            n, n == 1 ? "" : "s", rpti_pts((double)cents / 100.0, a),
            cents == 100 ? "" : "s", n == 1 ? "is" : "are");
}

/* The table, in the text rubric's order, but a row for every test (the
 * TA's staff.md names each): what did not pass, what passed, manual items. */
static void md_table(const struct rpti_ctx *c, const size_t *order)
{
    const struct grade_result *r = c->r;
    size_t k, n = r->n_tests;

    rpti_put(c->out, "## Tests\n\n| Status | Points | Test | What it checks |\n"
             "|---|---:|---|---|\n");
    for (k = 0; k < n; k++)
        if (shown(r, order, k)->status != TEST_PASSED &&
            shown(r, order, k)->status != TEST_MANUAL_PENDING)
            md_row(c, shown(r, order, k));
    for (k = 0; k < n; k++)
        if (shown(r, order, k)->status == TEST_PASSED)
            md_row(c, shown(r, order, k));
    for (k = 0; k < n; k++)
        if (shown(r, order, k)->status == TEST_MANUAL_PENDING)
            md_row(c, shown(r, order, k));
}

static int md_body(const struct grade_result *r, const struct rpt_opts *o,
                   struct sb *out, size_t n_hidden, long long hidden_cents,
                   struct err *e)
{
    struct rpti_ctx c;
    size_t i, *order, full = 0;

    rpti_init(&c, r, o, out);
    md_header(&c);
    md_hidden_line(&c, n_hidden, hidden_cents);
    md_status(&c);
    if (none_ran(r)) {
        no_test_ran(&c);
        return rpti_finish(&c, e);
    }
    rpti_causes(&c, 1);
    order = rpti_order(r);
    for (i = 0; i < r->n_tests; i++)
        full += (size_t)in_full(&c, shown(r, order, i));
    if (full)
        rpti_put(out, "## What went wrong\n\n");
    for (i = 0; i < r->n_tests; i++)
        if (in_full(&c, shown(r, order, i)))
            md_failure(&c, shown(r, order, i));
    md_table(&c, order);
    free(order);
    rpti_put(out, "\n*How to read this:* each test that did not pass comes first, with what "
           "went wrong, a hint, and the command that reruns it alone (a function that is "
           "still a stub only in the table). Fix them in order: later tests build on earlier "
           "ones. The table then gives every test its row and points, the ones that did not "
           "pass first.\n");
    return rpti_finish(&c, e);
}

/*
 * The student's copy of r: only the visible tests (shallow: the results
 * point into r), their score as the total. Hidden and after_due_date tests
 * leave nothing behind but their count and points. Returns 0, or -1 when
 * out of memory; v->tests is then NULL.
 */
static int student_copy(const struct grade_result *r, struct grade_result *v,
                        size_t *n_hidden, long long *hidden_cents)
{
    *v = *r;
    *n_hidden = 0;
    *hidden_cents = 0;
    v->n_tests = 0;
    v->score_cents = v->max_cents = 0;
    if ((v->tests = calloc(r->n_tests ? r->n_tests : 1, sizeof *v->tests)) == NULL)
        return -1;
    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];
        if (t->test != NULL && t->test->visibility != SPEC_VISIBLE) {
            ++*n_hidden;
            *hidden_cents += t->max_cents;
            continue;
        }
        v->tests[v->n_tests++] = *t;
        v->score_cents += t->score_cents;
        v->max_cents += t->max_cents;
    }
    v->tests_cap = v->n_tests;
    v->score = (double)v->score_cents / 100.0;
    v->max_score = (double)v->max_cents / 100.0;
    return 0;
}

int rpt_write_markdown(const struct grade_result *r, const struct rpt_opts *o,
                       struct sb *out, struct err *e)
{
    struct grade_result v;
    size_t n_hidden;
    long long hidden_cents;
    int rc;

    if (o == NULL || !o->student_view)
        return md_body(r, o, out, 0, 0, e);
    if (student_copy(r, &v, &n_hidden, &hidden_cents) < 0)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = md_body(&v, o, out, n_hidden, hidden_cents, e);
    free(v.tests);
    return rc;
}

/* ---- GitHub Actions output ---- */

/* key=value, or the heredoc form with a delimiter not found in value. */
static void github_line(struct sb *sb, const char *key, const char *value)
{
    char delim[48];
    unsigned i = 0;

    if (strchr(value, '\n') == NULL) {
        rpti_putf(sb, "%s=%s\n", key, value);
        return;
    }
    do
        snprintf(delim, sizeof delim, "ghadelimiter_rpt_%u", i++);
    while (strstr(value, delim) != NULL);
    rpti_putf(sb, "%s<<%s\n%s\n%s\n", key, delim, value, delim);
}

int rpt_append_github_output(const char *path, const char *key,
                             const char *value, struct err *e)
{
    struct sb sb;
    int fd, rc;

    if (key == NULL || key[0] == '\0' || strpbrk(key, "=<\n\r") != NULL)
        return err_set(e, NULL, 0, 0, "bad output name '%s'", rpti_str(key));
    sb_init(&sb, 0);
    github_line(&sb, key, rpti_str(value));
    if (sb.truncated) {
        sb_release(&sb);
        return err_set(e, path, 0, 0, "output value too large");
    }
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        sb_release(&sb);
        return err_set(e, path, 0, 0, "cannot open: %s", strerror(errno));
    }
    /* one write keeps the line whole when other steps append too */
    rc = ut_write_all(fd, sb_str(&sb), sb.len);
    if (close(fd) != 0)
        rc = -1;
    sb_release(&sb);
    return rc ? err_set(e, path, 0, 0, "cannot write: %s", strerror(errno))
              : 0;
}
