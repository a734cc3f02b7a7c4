/* report_machine.c -- the machine-read formats of report.h: Gradescope
 * results.json, GitHub Classroom runner result, JUnit XML, TAP 13. */
#include "report/report.h"
#include "report/report_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/b64.h"

/* Whole milliseconds, 0 for anything not finite or negative. */
static long long ms_int(double ms)
{
    return isfinite(ms) && ms > 0 && ms < 1e15 ? llround(ms) : 0;
}

static double secs(double ms)
{
    return isfinite(ms) && ms > 0 ? ms / 1000.0 : 0.0;
}

/* The raw details of t in a fresh buffer the caller releases. */
static void detail_buf(const struct rpti_ctx *c, const struct grade_test *t,
                       struct sb *d)
{
    sb_init(d, 4 * c->max + 4096);
    rpti_detail(c, t, d);
}

/* "<id>: <title>" as a JSON string. */
static void json_name(const struct rpti_ctx *c, const struct grade_test *t)
{
    struct sb n;

    sb_init(&n, 2 * c->max + 8);
    rpti_putf(&n, "%s: %s", rpti_id(t), rpti_title(t));
    if (json_add_str(c->out, sb_str(&n), n.len, c->max) < 0)
        c->out->truncated = 1;
    sb_release(&n);
}

static void jkey(const struct rpti_ctx *c, const char *comma, const char *key)
{
    rpti_put(c->out, comma);
    if (json_add_key(c->out, key) < 0)
        c->out->truncated = 1;
}

static void jstr(const struct rpti_ctx *c, const char *s, size_t n)
{
    if (json_add_str(c->out, s, n, 4 * c->max) < 0)
        c->out->truncated = 1;
}

static void jnum(const struct rpti_ctx *c, double v)
{
    if (json_add_num(c->out, v) < 0)
        c->out->truncated = 1;
}

/* Whole-submission summary: status, score, status detail, warnings. */
static void summary(const struct rpti_ctx *c, struct sb *s)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];

    rpti_putf(s, "status: %s\nscore: %s / %s (%zu of %zu tests passed)\n",
            grade_status_name(c->r->status), rpti_pts(c->r->score, a),
            rpti_pts(c->r->max_score, b), rpti_count(c->r, TEST_PASSED),
            c->r->n_tests);
    if (c->r->status_detail && c->r->status_detail[0]) {
        rpti_put(s, "\n");
        rpti_putn(s, c->r->status_detail,
                rpti_trim_end(c->r->status_detail,
                            strlen(c->r->status_detail)));
        rpti_put(s, "\n");
    }
    if (c->r->warnings && c->r->warnings[0])
        rpti_putf(s, "\nwarnings:\n%s\n", c->r->warnings);
}

/* ---- gradescope ---- */

/* Gradescope's visibility of a test. A hidden test is "after_published":
 * Gradescope shows it (and its message) once the staff publish the grades,
 * and never before. */
static const char *gs_visibility(const struct grade_test *t)
{
    static const char *const names[] = { "visible", "after_published",
                                         "after_due_date" };

    if (t->test == NULL || (unsigned)t->test->visibility > 2)
        return "visible";
    return names[t->test->visibility];
}

static void gs_test(const struct rpti_ctx *c, const struct grade_test *t)
{
    struct sb d;
    int manual = t->status == TEST_MANUAL_PENDING;

    jkey(c, "{", "name");
    json_name(c, t);
    if (!manual) {
        jkey(c, ",", "score");
        jnum(c, t->score);
    }
    jkey(c, ",", "max_score");
    jnum(c, t->max_score);
    if (!manual) {
        jkey(c, ",", "status");
        rpti_put(c->out, t->status == TEST_PASSED ? "\"passed\"" : "\"failed\"");
    }
    sb_init(&d, 4 * c->max + 4096);
    if (!manual && t->status != TEST_PASSED) {
        /* The diagnosis of its function first: a Gradescope student reads
         * the tests one by one. Counted over the visible tests only, as the
         * top-level output, so no hidden test is named before it is shown. */
        struct rpt_opts ro = *c->o;
        struct rpti_ctx w = *c;
        ro.redact_hidden = 1;
        w.o = &ro;
        w.out = &d;
        rpti_causes_of(&w, t);
        if (d.len)
            rpti_put(&d, "\n");
    }
    rpti_detail(c, t, &d);
    jkey(c, ",", "output");
    if (manual)
        jstr(c, "manual: pending", 15);
    else
        jstr(c, sb_str(&d), d.len);
    sb_release(&d);
    jkey(c, ",", "output_format");
    rpti_put(c->out, "\"text\"");
    jkey(c, ",", "visibility");
    rpti_putf(c->out, "\"%s\"}", gs_visibility(t));
}

/* The whole-submission text a student sees at once: the status, the visible
 * tests' points, the compiler's or rejection's text and warnings. Nothing of
 * the tests that are not "visible" (not even their points): the total
 * Gradescope shows staff includes them. */
static void gs_summary(const struct rpti_ctx *c, struct sb *s)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];
    double score = 0, max = 0;
    size_t i, n = 0, passed = 0, other = 0;

    for (i = 0; i < c->r->n_tests; i++) {
        const struct grade_test *t = &c->r->tests[i];

        if (t->test != NULL && t->test->visibility != SPEC_VISIBLE) {
            other++;
            continue;
        }
        n++;
        passed += t->status == TEST_PASSED;
        max += t->max_score;
        if (t->status != TEST_MANUAL_PENDING)
            score += t->score;
    }
    rpti_putf(s, "status: %s\nvisible tests: %s / %s (%zu of %zu tests "
              "passed)\n", grade_status_name(c->r->status), rpti_pts(score, a),
              rpti_pts(max, b), passed, n);
    if (other)
        rpti_put(s, "further tests count towards the score; they are shown "
                 "when the grades are published\n");
    if (c->r->status_detail && c->r->status_detail[0]) {
        rpti_put(s, "\n");
        rpti_putn(s, c->r->status_detail,
                  rpti_trim_end(c->r->status_detail,
                                strlen(c->r->status_detail)));
        rpti_put(s, "\n");
    }
    if (c->r->warnings && c->r->warnings[0])
        rpti_putf(s, "\nwarnings:\n%s\n", c->r->warnings);
    if (c->r->status == GRADE_OK) {
        /* The text rubric's diagnosis lines, over the visible tests. */
        struct rpt_opts ro = *c->o;
        struct rpti_ctx w = *c;
        ro.redact_hidden = 1;
        w.o = &ro;
        w.out = s;
        rpti_put(s, "\n");
        rpti_causes(&w, 0);
    }
}

int rpt_write_gradescope(const struct grade_result *r, const struct rpt_opts *o,
                         struct sb *out, struct err *e)
{
    struct rpti_ctx c;
    struct sb s;
    size_t i, *order;

    rpti_init(&c, r, o, out);
    jkey(&c, "{", "score");
    jnum(&c, r->score);
    jkey(&c, ",", "execution_time");
    rpti_putf(out, "%lld", (ms_int(r->elapsed_ms) + 500) / 1000);
    sb_init(&s, 8 * c.max + 4096);
    gs_summary(&c, &s);
    jkey(&c, ",", "output");
    jstr(&c, sb_str(&s), s.len);
    sb_release(&s);
    jkey(&c, ",", "output_format");
    rpti_put(out, "\"text\"");
    jkey(&c, ",", "stdout_visibility");
    rpti_put(out, "\"hidden\"");
    jkey(&c, ",", "tests");
    rpti_put(out, "[");
    order = rpti_order(r);
    for (i = 0; i < r->n_tests; i++) {
        rpti_put(out, i ? ",\n" : "\n");
        gs_test(&c, &r->tests[order ? order[i] : i]);
    }
    free(order);
    rpti_put(out, "]}\n");
    return rpti_finish(&c, e);
}

/* ---- GitHub Classroom ---- */

/* Whether nothing could be graded at all: the reporter's "error". */
static int cr_whole_error(const struct grade_result *r)
{
    return r->status == GRADE_COMPILE_ERROR || r->status == GRADE_REJECTED ||
           r->status == GRADE_ERROR;
}

static const char *cr_status(const struct grade_result *r,
                             const struct grade_test *t)
{
    if (t->status == TEST_PASSED)
        return "pass";
    return t->status == TEST_NOT_RUN && cr_whole_error(r) ? "error" : "fail";
}

static void cr_test(const struct rpti_ctx *c, const struct grade_test *t)
{
    struct sb d;

    jkey(c, "{", "name");
    json_name(c, t);
    jkey(c, ",", "status");
    rpti_putf(c->out, "\"%s\"", cr_status(c->r, t));
    jkey(c, ",", "score");
    jnum(c, t->score);
    detail_buf(c, t, &d);
    jkey(c, ",", "message");
    jstr(c, t->status == TEST_PASSED ? "" : sb_str(&d),
         t->status == TEST_PASSED ? 0 : d.len);
    sb_release(&d);
    jkey(c, ",", "test_code");
    jstr(c, rpti_str(t->repro), strlen(rpti_str(t->repro)));
    jkey(c, ",", "filename");
    jstr(c, t->test ? rpti_str(t->test->file) : "",
         t->test ? strlen(rpti_str(t->test->file)) : 0);
    jkey(c, ",", "line_no");
    rpti_putf(c->out, "%d", t->test && t->test->line > 0 ? t->test->line : 0);
    jkey(c, ",", "duration");
    rpti_putf(c->out, "%lld}", ms_int(t->elapsed_ms));
}

/* "pass" only when grading ran and every graded test passed. */
static const char *cr_overall(const struct grade_result *r, double max)
{
    size_t i;

    if (cr_whole_error(r))
        return "error";
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].status != TEST_PASSED &&
            r->tests[i].status != TEST_MANUAL_PENDING)
            return "fail";
    return r->status == GRADE_OK && max > 0 ? "pass" : "fail";
}

int rpt_write_classroom_json(const struct grade_result *r,
                             const struct rpt_opts *o, struct sb *out,
                             struct err *e)
{
    struct rpti_ctx c;
    double max = 0;
    size_t i, k = 0;

    rpti_init(&c, r, o, out);
    for (i = 0; i < r->n_tests; i++)
        if (r->tests[i].status != TEST_MANUAL_PENDING)
            max += r->tests[i].max_score;
    if (r->n_tests == 0)
        max = r->max_score;
    jkey(&c, "{", "version");
    rpti_put(out, "1");
    jkey(&c, ",", "status");
    rpti_putf(out, "\"%s\"", cr_overall(r, max));
    jkey(&c, ",", "max_score");
    jnum(&c, max);
    jkey(&c, ",", "tests");
    rpti_put(out, "[");
    for (i = 0; i < r->n_tests; i++) {
        if (r->tests[i].status == TEST_MANUAL_PENDING)
            continue;   /* graded by a TA, not by the workflow */
        rpti_put(out, k++ ? "," : "");
        cr_test(&c, &r->tests[i]);
    }
    rpti_put(out, "]}");
    return rpti_finish(&c, e);
}

int rpt_write_classroom(const struct grade_result *r, const struct rpt_opts *o,
                        struct sb *out, struct err *e)
{
    struct sb j;
    int rc;

    sb_init(&j, out->cap / 4 * 3 + 3);
    rc = rpt_write_classroom_json(r, o, &j, e);
    if (rc == 0)
        rc = b64_encode(out, sb_str(&j), j.len, e);
    sb_release(&j);
    return rc;
}

/* ---- JUnit XML ---- */

/* XML 1.0 text or attribute (arg non-NULL): markup characters as entities,
 * characters XML 1.0 forbids dropped, invalid UTF-8 as U+FFFD; in
 * attributes, tab and line breaks as character references so that
 * attribute-value normalisation keeps them. */
static void emit_xml(struct sb *sb, int32_t cp, const void *attr)
{
    switch (cp) {
    case '&': rpti_put(sb, "&amp;"); return;
    case '<': rpti_put(sb, "&lt;"); return;
    case '>': rpti_put(sb, "&gt;"); return;
    case '"': rpti_put(sb, "&quot;"); return;
    case '\'': rpti_put(sb, "&apos;"); return;
    case '\r': rpti_put(sb, "&#13;"); return;
    case '\n': rpti_put(sb, attr ? "&#10;" : "\n"); return;
    case '\t': rpti_put(sb, attr ? "&#9;" : "\t"); return;
    default: break;
    }
    if (cp < 0 || cp == 0xFFFE || cp == 0xFFFF)
        rpti_put(sb, "\xEF\xBF\xBD");
    else if (cp < 0x20 || cp == 0x7F)
        return;
    else if (sb_add_utf8(sb, (uint32_t)cp) < 0)
        return;
}

static void xattr(const struct rpti_ctx *c, const char *name, const char *s,
                  size_t n)
{
    rpti_putf(c->out, " %s=\"", name);
    rpti_walk(c->out, s, n, c->max, emit_xml, "attr");
    rpti_put(c->out, "\"");
}

static void xattrz(const struct rpti_ctx *c, const char *name, const char *s)
{
    xattr(c, name, rpti_str(s), strlen(rpti_str(s)));
}

static void xprop(const struct rpti_ctx *c, const char *indent,
                  const char *name, const char *value)
{
    rpti_putf(c->out, "%s<property", indent);
    xattrz(c, "name", name);
    xattrz(c, "value", value);
    rpti_put(c->out, "/>\n");
}

/* The JUnit element a non-passing status becomes. */
static const char *ju_kind(enum grade_test_status s)
{
    if (s == TEST_CRASHED || s == TEST_TIMED_OUT)
        return "error";
    return s == TEST_MANUAL_PENDING ? "skipped" : "failure";
}

static void ju_outcome(const struct rpti_ctx *c, const struct grade_test *t)
{
    const char *kind = ju_kind(t->status);
    struct sb d;
    size_t first;

    detail_buf(c, t, &d);
    first = strcspn(sb_str(&d), "\n");
    rpti_putf(c->out, "      <%s", kind);
    xattr(c, "message", sb_str(&d), first);
    if (t->status != TEST_MANUAL_PENDING)
        xattrz(c, "type", grade_test_status_name(t->status));
    rpti_put(c->out, ">");
    rpti_walk(c->out, sb_str(&d), d.len, 4 * c->max, emit_xml, NULL);
    rpti_putf(c->out, "</%s>\n", kind);
    sb_release(&d);
}

static void ju_test(const struct rpti_ctx *c, const struct grade_test *t)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];
    const char *fn = t->test && t->test->function ? t->test->function : "";

    rpti_put(c->out, "    <testcase");
    xattrz(c, "name", rpti_id(t));
    rpti_put(c->out, " classname=\"attention.");
    rpti_walkz(c->out, fn, c->max, emit_xml, "attr");
    rpti_putf(c->out, "\" time=\"%s\">\n", json_fmt_num(secs(t->elapsed_ms), a));
    if (t->status != TEST_PASSED)
        ju_outcome(c, t);
    /* The xunit schema allows no <properties> in a test case: the points
     * and the title go in its output, which GitLab and Jenkins show. */
    rpti_putf(c->out, "      <system-out>points: %s / %s\n",
              t->status == TEST_MANUAL_PENDING ? "-" : json_fmt_num(t->score, a),
              json_fmt_num(t->max_score, b));
    rpti_walkz(c->out, rpti_title(t), c->max, emit_xml, NULL);
    rpti_put(c->out, "</system-out>\n    </testcase>\n");
}

/* Whether JUnit shows the submission as one test case in error: nothing was
 * graded (compile error, rejection, grader error), or no test existed. */
static int ju_whole(const struct grade_result *r)
{
    return cr_whole_error(r) || (r->n_tests == 0 && r->status != GRADE_OK);
}

/* That one test case: an <error> whose text is the compiler's (or the
 * rejection's) message, in the test case itself, where GitLab's test tab
 * shows it. */
static void ju_whole_case(const struct rpti_ctx *c)
{
    const char *d = rpti_str(c->r->status_detail);
    struct sb s;

    sb_init(&s, 8 * c->max + 4096);
    summary(c, &s);
    rpti_put(c->out, "    <testcase name=\"submission\" classname=\"attention\" "
             "time=\"0\">\n      <error");
    xattr(c, "message", d[0] ? d : grade_status_name(c->r->status),
          d[0] ? strcspn(d, "\n") : strlen(grade_status_name(c->r->status)));
    xattrz(c, "type", grade_status_name(c->r->status));
    rpti_put(c->out, ">");
    rpti_walk(c->out, sb_str(&s), s.len, 8 * c->max, emit_xml, NULL);
    rpti_put(c->out, "</error>\n    </testcase>\n");
    sb_release(&s);
}

/* Counts for the suite: failures, errors, skipped. */
static void ju_counts(const struct rpti_ctx *c, size_t *tests, size_t n[3])
{
    size_t i;

    n[0] = n[1] = n[2] = 0;
    if (ju_whole(c->r)) {
        *tests = 1, n[1] = 1;
        return;
    }
    for (i = 0; i < c->r->n_tests; i++) {
        enum grade_test_status s = c->r->tests[i].status;

        if (s != TEST_PASSED)
            n[strcmp(ju_kind(s), "failure") == 0 ? 0
              : strcmp(ju_kind(s), "error") == 0 ? 1 : 2]++;
    }
    *tests = c->r->n_tests;
}

static void ju_open(const struct rpti_ctx *c)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX], t[JSON_NUM_MAX];
    size_t tests, n[3];

    ju_counts(c, &tests, n);
    json_fmt_num(secs(c->r->elapsed_ms), t);
    rpti_putf(c->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"attention-grader\" tests=\"%zu\" "
            "failures=\"%zu\" errors=\"%zu\" time=\"%s\">\n",
            tests, n[0], n[1], t);
    rpti_put(c->out, "  <testsuite");
    xattrz(c, "name", c->r->submission);
    rpti_putf(c->out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"%zu\" time=\"%s\">\n    <properties>\n",
            tests, n[0], n[1], n[2], t);
    xprop(c, "      ", "status", grade_status_name(c->r->status));
    xprop(c, "      ", "score", json_fmt_num(c->r->score, a));
    xprop(c, "      ", "max_score", json_fmt_num(c->r->max_score, b));
    rpti_putf(c->out, "      <property name=\"seed\" value=\"%llu\"/>\n",
            (unsigned long long)c->r->seed);
    xprop(c, "      ", "spec_sha256", c->r->spec_sha256);
    xprop(c, "      ", "submission_sha256", c->r->submission_sha256);
    rpti_put(c->out, "    </properties>\n");
}

int rpt_write_junit(const struct grade_result *r, const struct rpt_opts *o,
                    struct sb *out, struct err *e)
{
    struct rpti_ctx c;
    struct sb s;
    size_t i;

    rpti_init(&c, r, o, out);
    ju_open(&c);
    if (ju_whole(r))
        ju_whole_case(&c);
    for (i = 0; !ju_whole(r) && i < r->n_tests; i++)
        ju_test(&c, &r->tests[i]);
    sb_init(&s, 8 * c.max + 4096);
    summary(&c, &s);
    rpti_put(out, "    <system-out>");
    rpti_walk(out, sb_str(&s), s.len, 8 * c.max, emit_xml, NULL);
    rpti_put(out, "</system-out>\n  </testsuite>\n</testsuites>\n");
    sb_release(&s);
    return rpti_finish(&c, e);
}

/* ---- TAP 13 ---- */

/* A test description: no line breaks, '#' escaped so that it does not
 * start a directive, '\' escaped so that the escape stays unambiguous. */
static void emit_tap_desc(struct sb *sb, int32_t cp, const void *arg)
{
    (void)arg;
    if (cp < 0)
        rpti_put(sb, "\xEF\xBF\xBD");
    else if (cp == '#' || cp == '\\')
        rpti_putf(sb, "\\%c", (char)cp);
    else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
        rpti_put(sb, " ");
    else if (sb_add_utf8(sb, (uint32_t)cp) < 0)
        return;
}

/* Inside a YAML double-quoted scalar, with only the escapes that TAP's
 * YAMLish reader (TAP::Parser::YAMLish::Reader) understands. */
static void emit_yaml_qq(struct sb *sb, int32_t cp, const void *arg)
{
    (void)arg;
    switch (cp) {
    case '"': rpti_put(sb, "\\\""); return;
    case '\\': rpti_put(sb, "\\\\"); return;
    case '\n': rpti_put(sb, "\\n"); return;
    case '\t': rpti_put(sb, "\\t"); return;
    case '\r': rpti_put(sb, "\\r"); return;
    default: break;
    }
    if (cp < 0)
        rpti_put(sb, "\xEF\xBF\xBD");
    else if (cp < 0x20 || cp == 0x7F)
        rpti_putf(sb, "\\x%02x", (unsigned)cp);
    else if (cp >= 0x80 && cp <= 0x9F)
        rpti_put(sb, "\xEF\xBF\xBD");
    else if (sb_add_utf8(sb, (uint32_t)cp) < 0)
        return;
}

static void tap_yaml(const struct rpti_ctx *c, const struct grade_test *t)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX];
    struct sb d;

    rpti_putf(c->out, "  ---\n  status: %s\n", grade_test_status_name(t->status));
    if (t->status != TEST_PASSED) {
        detail_buf(c, t, &d);
        rpti_put(c->out, "  message: \"");
        rpti_walk(c->out, sb_str(&d), d.len, 4 * c->max, emit_yaml_qq, NULL);
        rpti_put(c->out, "\"\n");
        sb_release(&d);
    }
    rpti_putf(c->out, "  score: %s\n  max_score: %s\n  ...\n",
            json_fmt_num(t->score, a), json_fmt_num(t->max_score, b));
}

static void tap_test(const struct rpti_ctx *c, const struct grade_test *t,
                     size_t i)
{
    int ok = t->status == TEST_PASSED || t->status == TEST_MANUAL_PENDING;

    rpti_putf(c->out, "%s %zu - ", ok ? "ok" : "not ok", i + 1);
    rpti_walkz(c->out, rpti_id(t), c->max, emit_tap_desc, NULL);
    rpti_put(c->out, ": ");
    rpti_walkz(c->out, rpti_title(t), c->max, emit_tap_desc, NULL);
    /* a SKIP, not a TODO: a TODO would hide a real failure from prove */
    rpti_put(c->out, t->status == TEST_MANUAL_PENDING
                   ? " # SKIP manual: pending\n" : "\n");
    tap_yaml(c, t);
}

/* The whole-submission summary as TAP comment lines. */
static void tap_comments(const struct rpti_ctx *c)
{
    struct sb s;

    sb_init(&s, 8 * c->max + 4096);
    summary(c, &s);
    rpti_put(c->out, "# ");
    rpti_walk(c->out, sb_str(&s), s.len, 8 * c->max, rpti_emit_text, "# ");
    rpti_put(c->out, "\n");
    sb_release(&s);
}

int rpt_write_tap(const struct grade_result *r, const struct rpt_opts *o,
                  struct sb *out, struct err *e)
{
    struct rpti_ctx c;
    size_t i;

    rpti_init(&c, r, o, out);
    rpti_put(out, "TAP version 13\n");
    if (r->n_tests == 0 && r->status != GRADE_OK) {
        rpti_putf(out, "1..1\nnot ok 1 - submission: %s\n",
                grade_status_name(r->status));
    } else {
        rpti_putf(out, "1..%zu\n", r->n_tests);
        for (i = 0; i < r->n_tests; i++)
            tap_test(&c, &r->tests[i], i);
    }
    tap_comments(&c);
    return rpti_finish(&c, e);
}
