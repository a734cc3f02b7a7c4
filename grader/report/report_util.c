/* report_util.c -- see report_util.h. The helpers every report writer
 * shares (appends, names, visibility, a test's details, the character
 * walk); below report.c and report_machine.c, so that neither calls the
 * other for them. */
#include "report/report_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rpti_put(struct sb *sb, const char *s)
{
    if (sb_adds(sb, s) < 0)
        return;   /* sb->truncated records it; writers check once */
}

void rpti_putn(struct sb *sb, const char *s, size_t n)
{
    if (sb_add(sb, s, n) < 0)
        return;
}

void rpti_putf(struct sb *sb, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = sb_vaddf(sb, fmt, ap);
    va_end(ap);
    (void)rc;
}

void rpti_init(struct rpti_ctx *c, const struct grade_result *r,
             const struct rpt_opts *o, struct sb *out)
{
    static const struct rpt_opts defaults = { 0, 0, 0, 0, 0 };

    c->r = r;
    c->o = o ? o : &defaults;
    c->out = out;
    c->max = c->o->max_field ? c->o->max_field : RPT_FIELD_MAX;
}

int rpti_finish(const struct rpti_ctx *c, struct err *e)
{
    if (!c->out->truncated)
        return 0;
    return err_set(e, NULL, 0, 0,
                   "report does not fit in %zu bytes (or out of memory)",
                   c->out->cap);
}

const char *rpti_id(const struct grade_test *t)
{
    return t->test && t->test->id ? t->test->id : "?";
}

const char *rpti_title(const struct grade_test *t)
{
    return t->test && t->test->title ? t->test->title : "";
}

const char *rpti_str(const char *s)
{
    return s ? s : "";
}

int rpti_visible(const struct rpti_ctx *c, const struct grade_test *t)
{
    return !c->o->redact_hidden || t->test == NULL ||
           t->test->visibility == SPEC_VISIBLE;
}

char *rpti_pts(double v, char buf[JSON_NUM_MAX])
{
    json_fmt_num(v, buf);
    if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL)
        snprintf(buf + strlen(buf), JSON_NUM_MAX - strlen(buf), ".0");
    return buf;
}

size_t rpti_count(const struct grade_result *r, enum grade_test_status s)
{
    size_t i, n = 0;

    for (i = 0; i < r->n_tests; i++)
        n += r->tests[i].status == s;
    return n;
}

/* Why a test did not run, from how grading as a whole ended. */
static const char *not_run_reason(enum grade_status s)
{
    switch (s) {
    case GRADE_COMPILE_ERROR: return "not run: the submission did not compile";
    case GRADE_REJECTED: return "not run: the submission was rejected";
    case GRADE_BUDGET_EXHAUSTED: return "not run: the time budget ran out";
    case GRADE_ERROR: return "not run: the grader failed";
    case GRADE_OK: break;
    }
    return "not run";
}

/* What to say when a test left no message of its own. */
static void default_message(const struct rpti_ctx *c, const struct grade_test *t,
                            struct sb *sb)
{
    switch (t->status) {
    case TEST_PASSED: break;
    case TEST_FAILED: rpti_put(sb, "a property check failed"); break;
    case TEST_CRASHED: rpti_put(sb, "the submission crashed in this test"); break;
    case TEST_TIMED_OUT: rpti_put(sb, "timed out"); break;
    case TEST_NOT_IMPLEMENTED:
        rpti_putf(sb, "not implemented yet: '%s' still returns ATTN_ENOTIMPL",
                t->test && t->test->function ? t->test->function : "?");
        break;
    case TEST_NOT_RUN: rpti_put(sb, not_run_reason(c->r->status)); break;
    case TEST_MANUAL_PENDING: rpti_put(sb, "manual: pending"); break;
    case TEST_WITHHELD: break;   /* the label says it (rpti_detail) */
    }
}

/* The tests this one depends on that did not pass, ", "-separated. */
static void failed_deps(const struct rpti_ctx *c, const struct grade_test *t,
                        struct sb *sb)
{
    size_t i, j, found = 0;

    for (i = 0; t->test && i < t->test->n_depends_on; i++) {
        const char *dep = t->test->depends_on[i];

        for (j = 0; j < c->r->n_tests; j++) {
            const struct grade_test *d = &c->r->tests[j];

            if (strcmp(rpti_id(d), dep) == 0 && d->status != TEST_PASSED) {
                rpti_putf(sb, "%s%s", found++ ? ", " : "", dep);
                break;
            }
        }
    }
    if (found == 0)
        rpti_put(sb, "a test");
}

/* An earlier visible test that did not pass with the very same message
 * (a malformed answers.yaml fails every written check alike): the
 * message is then shown once, at that test. NULL when there is none. */
static const struct grade_test *same_as_before(const struct rpti_ctx *c,
                                               const struct grade_test *t)
{
    for (const struct grade_test *p = c->r->tests; p < t; p++)
        if (p->status != TEST_PASSED && p->status != TEST_MANUAL_PENDING &&
            rpti_visible(c, p) && p->message && t->message && t->message[0] &&
            strcmp(p->message, t->message) == 0)
            return p;
    return NULL;
}

/* The property's own account: message, cases, hint, reproduce line. */
static void detail_body(const struct rpti_ctx *c, const struct grade_test *t,
                        struct sb *sb, int once)
{
    const struct grade_test *same;

    if (once && t->status != TEST_PASSED && (same = same_as_before(c, t)) != NULL)
        rpti_putf(sb, "the same problem as %s above", rpti_id(same));
    else if (t->message && t->message[0])
        rpti_put(sb, t->message);
    else
        default_message(c, t, sb);
    if (t->status != TEST_PASSED && t->test &&
        t->test->scoring == SPEC_PARTIAL && t->cases_run > 0)
        rpti_putf(sb, "\n%zu/%zu cases passed", t->cases_passed, t->cases_run);
    if (t->hint && t->hint[0] && t->status != TEST_PASSED)
        rpti_putf(sb, "\nhint: %s", t->hint);
    /* rerunning a manual item alone says "pending" again: no command for it */
    if (t->repro && t->repro[0] && t->status != TEST_PASSED &&
        t->status != TEST_MANUAL_PENDING)
        rpti_putf(sb, "\nreproduce: %s", t->repro);
}

/* "depends on sdpa.values: fix that first", from the grader's record of
 * the failed tests behind it, else from the spec's depends_on. */
static void withheld_label(const struct rpti_ctx *c, const struct grade_test *t,
                           struct sb *sb)
{
    struct sb ids;

    sb_init(&ids, 4096);
    if (t->withheld_by != NULL && t->withheld_by[0])
        rpti_put(&ids, t->withheld_by);
    else
        failed_deps(c, t, &ids);
    rpti_putf(sb, "depends on %s: fix %s first", sb_str(&ids),
              strchr(sb_str(&ids), ',') ? "those" : "that");
    sb_release(&ids);
}

static void detail(const struct rpti_ctx *c, const struct grade_test *t,
                   struct sb *sb, int once)
{
    if (!rpti_visible(c, t)) {
        rpti_put(sb, "details of hidden tests are not shown");
        return;
    }
    /* The cause first: a student fixes the dependency before this test. */
    if (t->dependency_failed) {
        withheld_label(c, t, sb);
        if (t->status == TEST_WITHHELD)
            return;   /* the property held: nothing else to say */
        rpti_put(sb, "\n");
    }
    detail_body(c, t, sb, once);
}

void rpti_detail(const struct rpti_ctx *c, const struct grade_test *t,
               struct sb *sb)
{
    detail(c, t, sb, 0);
}

void rpti_detail_once(const struct rpti_ctx *c, const struct grade_test *t,
                      struct sb *sb)
{
    detail(c, t, sb, 1);
}

size_t rpti_trim_end(const char *s, size_t n)
{
    while (n > 0 && strchr(" \t\r\n", s[n - 1]))
        n--;
    return n;
}

void rpti_walk(struct sb *sb, const char *s, size_t n, size_t max,
             rpti_emit_fn emit, const void *arg)
{
    size_t i = 0, adv, stop;

    n = rpti_trim_end(s, n);
    stop = n > max ? max : n;
    while (i < stop && !sb->truncated) {
        int32_t cp = sb_utf8_next(s + i, n - i, &adv);

        emit(sb, cp, arg);
        i += adv;
    }
    if (i < n)
        rpti_putf(sb, " [... %zu bytes cut]", n - i);
}

void rpti_walkz(struct sb *sb, const char *s, size_t max, rpti_emit_fn emit,
              const void *arg)
{
    rpti_walk(sb, rpti_str(s), strlen(rpti_str(s)), max, emit, arg);
}

void rpti_emit_text(struct sb *sb, int32_t cp, const void *indent)
{
    if (cp < 0) {
        rpti_put(sb, "\xEF\xBF\xBD");
    } else if (cp == '\n') {
        rpti_putf(sb, "\n%s", (const char *)indent);
    } else if (cp == '\r') {
        return;   /* a bare CR could overwrite the line on a terminal */
    } else if (cp == '\t') {
        rpti_put(sb, "\t");
    } else if (cp < 0x20 || cp == 0x7F) {
        rpti_putf(sb, "\\x%02x", (unsigned)cp);   /* no escape sequences */
    } else if (cp >= 0x80 && cp <= 0x9F) {
        rpti_putf(sb, "\\u%04x", (unsigned)cp);   /* C1 controls */
    } else if (sb_add_utf8(sb, (uint32_t)cp) < 0) {
        return;
    }
}

size_t rpti_lines_len(const char *s, size_t nlines, size_t *more)
{
    size_t n = rpti_trim_end(s, strlen(s)), i, seen = 0, cut = n;

    *more = 0;
    for (i = 0; i < n && nlines > 0; i++) {
        if (s[i] != '\n')
            continue;
        if (++seen == nlines)
            cut = i;
        else if (seen > nlines)
            (*more)++;
    }
    if (nlines > 0 && seen >= nlines)
        (*more)++;   /* the line after the last newline */
    return cut;
}

/* ---- wrapping (the text rubric's lines fit RPT_TEXT_WIDTH columns) ---- */

/* Bytes of the character or colour sequence at s[0..n), and the columns
 * it takes on a terminal: one per UTF-8 character (a lead byte or an
 * invalid byte), none for an ANSI colour sequence or a continuation byte. */
static size_t glyph(const char *s, size_t n, size_t *cols)
{
    size_t i = 2;

    if (s[0] == '\033' && n > 1 && s[1] == '[') {
        while (i < n && !(s[i] >= '@' && s[i] <= '~'))
            i++;
        *cols = 0;
        return i < n ? i + 1 : n;
    }
    *cols = ((unsigned char)s[0] & 0xC0) != 0x80;
    return 1;
}

static size_t columns(const char *s, size_t n)
{
    size_t cols = 0, c;

    for (size_t i = 0; i < n; cols += c)
        i += glyph(s + i, n - i, &c);
    return cols;
}

/* Where the piece of s[0..n) that starts a line may end: the last blank
 * at which it still fits `room` columns (blanks inside shell quotes do not
 * count when cmd), else the first blank after it (a word longer than the
 * line stays whole); n when s has no such blank. One pass: a line of a
 * submission's message may be long. */
static size_t break_at(const char *s, size_t n, size_t room, int cmd)
{
    size_t best = 0, cols = 0, c;
    char quote = 0;

    for (size_t i = 0; i < n; i += glyph(s + i, n - i, &c), cols += c) {
        if (cmd && (s[i] == '\'' || s[i] == '"') && (quote == 0 || quote == s[i]))
            quote = quote ? 0 : s[i];
        if (i == 0 || s[i] != ' ' || quote || s[i - 1] == ' ')
            continue;
        if (cols <= room)
            best = i;
        else
            return best ? best : i;
    }
    return cols <= room || best == 0 ? n : best;
}

void rpti_wrap_line(struct sb *out, const char *s, size_t n, size_t cont, int cmd)
{
    if (cont > RPT_TEXT_WIDTH / 2)
        cont = RPT_TEXT_WIDTH / 2;   /* a deep indent still leaves room */
    for (int first = 1; n > 0; first = 0) {
        size_t room = RPT_TEXT_WIDTH - (first ? 0 : cont);
        size_t cut = columns(s, n) <= room ? n : break_at(s, n, room - 2 * !!cmd, cmd);

        if (!first)
            rpti_putf(out, "%*s", (int)cont, "");
        rpti_putn(out, s, cut);
        rpti_put(out, cut < n && cmd ? " \\\n" : "\n");
        for (s += cut, n -= cut; n > 0 && *s == ' '; s++, n--)
            ;
    }
}

void rpti_wrap_block(struct sb *out, const char *s, size_t n, size_t extra)
{
    static const char repro[] = "reproduce: ";

    while (n > 0) {
        size_t len = strcspn(s, "\n"), ind = strspn(s, " ");

        if (len > n)
            len = n;
        if (ind > len)
            ind = len;
        if (len - ind >= sizeof repro - 1 && memcmp(s + ind, repro, sizeof repro - 1) == 0)
            rpti_wrap_line(out, s, len, ind + sizeof repro - 1, 1);
        else
            rpti_wrap_line(out, s, len, ind + extra, 0);
        if (len == 0)
            rpti_put(out, "\n");
        s += len + (len < n), n -= len + (len < n);
    }
}
