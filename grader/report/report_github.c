/* report_github.c -- the "github" format of report.h, for a plain GitHub
 * Actions job: workflow commands that annotate attention.c, then the text
 * rubric for the log, fenced off so that nothing in it runs as a command.
 *
 * Annotations: one ::error (or ::warning) per compiler diagnostic, with its
 * line and column; when the submission was graded, one ::notice with the
 * text rubric's diagnosis lines, then one ::error per test that did not
 * pass, in the rubric's order (no line: a property test does not know one). Every value is
 * one line, escaped as the runner expects (%25, %0D, %0A; in properties also
 * %3A and %2C), so a submission's text cannot start a command of its own. */
#include "assign/assign.h"
#include "report/report.h"
#include "report/report_util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"

/* A workflow command's message (arg NULL) or property value (arg non-NULL):
 * invalid UTF-8 as U+FFFD, other control characters as spaces. */
static void emit_gh(struct sb *sb, int32_t cp, const void *prop)
{
    if (cp < 0)
        rpti_put(sb, "\xEF\xBF\xBD");
    else if (cp == '%')
        rpti_put(sb, "%25");
    else if (cp == '\r')
        rpti_put(sb, "%0D");
    else if (cp == '\n')
        rpti_put(sb, "%0A");
    else if (prop && cp == ':')
        rpti_put(sb, "%3A");
    else if (prop && cp == ',')
        rpti_put(sb, "%2C");
    else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
        rpti_put(sb, " ");
    else if (sb_add_utf8(sb, (uint32_t)cp) < 0)
        return;
}

/* The file annotations point at: the submission's name when it is a .c
 * file, else attention.c (a directory holding it). */
static const char *gh_file(const struct grade_result *r)
{
    const char *s = rpti_str(r->submission), *slash = strrchr(s, '/');
    const char *base = slash ? slash + 1 : s;
    size_t n = strlen(base);

    return n > 2 && strcmp(base + n - 2, ".c") == 0 ? base : ASG_SOURCE;
}

static void gh_command(const struct rpti_ctx *c, const char *kind,
                       const char *title, long line, long col,
                       const char *msg, size_t n)
{
    rpti_putf(c->out, "::%s file=", kind);
    rpti_walkz(c->out, gh_file(c->r), c->max, emit_gh, "prop");
    if (line > 0)
        rpti_putf(c->out, ",line=%ld", line);
    if (col > 0)
        rpti_putf(c->out, ",col=%ld", col);
    if (title) {
        rpti_put(c->out, ",title=");
        rpti_walkz(c->out, title, c->max, emit_gh, "prop");
    }
    rpti_put(c->out, "::");
    rpti_walk(c->out, msg, n, c->max, emit_gh, NULL);
    rpti_put(c->out, "\n");
}

/* A compiler line "...attention.c:L:C: error: msg" as an annotation;
 * 0 when the line is not a diagnostic of the submission. */
static int gh_diagnostic(const struct rpti_ctx *c, const char *s, size_t n)
{
    const char *file = gh_file(c->r), *p, *end = s + n;
    size_t fl = strlen(file);
    char *q;
    long line, col = 0;

    for (p = s; p + fl < end && memcmp(p, file, fl) != 0; p++)
        ;
    if (p + fl >= end || p[fl] != ':' || !isdigit((unsigned char)p[fl + 1]))
        return 0;
    line = strtol(p + fl + 1, &q, 10);
    if (*q == ':' && isdigit((unsigned char)q[1]))
        col = strtol(q + 1, &q, 10);
    if (*q != ':' || q + 2 > end)
        return 0;
    q += 2;   /* ": " */
    if (strncmp(q, "error: ", 7) == 0 || strncmp(q, "fatal error: ", 13) == 0)
        gh_command(c, "error", "compile error", line, col, q, (size_t)(end - q));
    else if (strncmp(q, "warning: ", 9) == 0)
        gh_command(c, "warning", "compiler warning", line, col, q,
                   (size_t)(end - q));
    else
        return 0;   /* notes and context lines stay in the rubric */
    return 1;
}

/* Annotate every diagnostic line of s; returns how many it found. */
static size_t gh_diagnostics(const struct rpti_ctx *c, const char *s)
{
    size_t found = 0;

    while (s && *s) {
        size_t n = strcspn(s, "\n");

        found += (size_t)gh_diagnostic(c, s, n);
        s += n + (s[n] == '\n');
    }
    return found;
}

static void gh_test(const struct rpti_ctx *c, const struct grade_test *t)
{
    char a[JSON_NUM_MAX], b[JSON_NUM_MAX], title[512];
    struct sb d;

    snprintf(title, sizeof title, "%s (%s/%s)", rpti_id(t),
             rpti_pts(t->score, a), rpti_pts(t->max_score, b));
    sb_init(&d, 4 * c->max + 4096);
    rpti_detail(c, t, &d);
    gh_command(c, "error", title, 0, 0, sb_str(&d), d.len);
    sb_release(&d);
}

/* The rubric between ::stop-commands:: and its token: a token derived from
 * the rubric itself, so the text cannot hold it (and the output stays the
 * same for the same submission). */
static void gh_fenced_rubric(const struct rpti_ctx *c, struct err *e)
{
    struct rpt_opts plain = *c->o;
    struct sb text;
    char hex[SHA256_HEX_LEN];

    plain.color = 0;
    sb_init(&text, c->out->cap);
    if (rpt_write_text(c->r, &plain, &text, e) < 0) {
        c->out->truncated = 1;
        sb_release(&text);
        return;
    }
    sha256_hex(sb_str(&text), text.len, hex);
    rpti_putf(c->out, "::stop-commands::rubric-%.32s\n", hex);
    rpti_putn(c->out, sb_str(&text), text.len);
    rpti_putf(c->out, "::rubric-%.32s::\n", hex);
    sb_release(&text);
}

int rpt_write_github(const struct grade_result *r, const struct rpt_opts *o,
                     struct sb *out, struct err *e)
{
    struct rpti_ctx c;
    size_t i, found;

    rpti_init(&c, r, o, out);
    found = gh_diagnostics(&c, r->status_detail);
    gh_diagnostics(&c, r->warnings);
    if (r->status != GRADE_OK && found == 0) {
        const char *d = rpti_str(r->status_detail);

        gh_command(&c, "error", grade_status_name(r->status), 0, 0,
                   d[0] ? d : "no test ran", strlen(d[0] ? d : "no test ran"));
    }
    /* A withheld test passed its property: the value test it waits for
     * carries the annotation (GitHub shows only the first few). */
    if (r->status == GRADE_OK) {
        /* The text rubric's diagnosis lines first, then the tests in its
         * order (GitHub shows only the first few annotations). */
        struct sb d;
        struct rpti_ctx w = c;
        size_t *order = rpti_order(r);
        sb_init(&d, 16 * c.max + 16384);
        w.out = &d;
        rpti_causes(&w, 0);
        if (d.len)
            gh_command(&c, "notice", "diagnosis", 0, 0, sb_str(&d), d.len);
        sb_release(&d);
        for (i = 0; i < r->n_tests; i++) {
            const struct grade_test *t = &r->tests[order ? order[i] : i];
            if (t->status != TEST_PASSED && t->status != TEST_MANUAL_PENDING &&
                t->status != TEST_WITHHELD)
                gh_test(&c, t);
        }
        free(order);
    }
    gh_fenced_rubric(&c, e);
    return rpti_finish(&c, e);
}
