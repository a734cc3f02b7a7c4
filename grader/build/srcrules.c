/* srcrules.c -- see srcrules.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "build/srcrules.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign/assign.h"
#include "core/strbuf.h"

#define OUT_CAP (64u << 10)      /* violations text; the rest is dropped */

static const struct spec_rule default_rules[] = {
    {"asm", "\\b(?:asm|__asm__|__asm)\\b",
     "inline assembly is not allowed: write the computation in C", NULL, 0, 0},
    {"include_quoted", "(?:#|%:)\\s*include\\s*\"(?!" ASG_HEADER_RE "\")",
     "only \"" ASG_HEADER "\" may be included with quotes", NULL, 0, 0},
    {"include_system",
     "(?:#|%:)\\s*include\\s*<(?!(?:stdio|stdlib|string|math|float|limits|stddef|stdint|"
     "stdbool|assert|errno)\\.h>)",
     "this header is not allowed: use only the C standard headers the assignment lists",
     NULL, 0, 0},
    {"include_macro", "(?:#|%:)\\s*include\\s*(?![\\s\"<])",
     "include headers by name, not through a macro", NULL, 0, 0},
    {"include_next", "(?:#|%:)\\s*(?:include_next|import)\\b",
     "only #include is allowed", NULL, 0, 0},
    {"syscall", "\\bsyscall\\b", "system calls are not allowed in a submission", NULL, 0, 0},
    {"attribute",
     "(?:\\A|[;{])(?>(?:[^;{_\\[]++|_(?!_attribute)|\\[(?!\\[))*+)\\K(?:__attribute(?:"
     "__)?\\s*+\\(\\(|\\[\\[)(?>(?:[^;{\\w]++|(?!_*+(?:constructor|destructor|section|"
     "ifunc|alias|weakref|weak|symver)_*+\\b)\\w++)*+)_*+(?:constructor|destructor|sec"
     "tion|ifunc|alias|weakref|weak|symver)_*+\\b",
     "this attribute is not allowed: code may run only when the grader calls your functions",
     NULL, 0, 0},
    {"pragma", "(?:#|%:)\\s*pragma\\b|\\b_Pragma\\b", "pragmas are not allowed", NULL, 0, 0},
    {"line_directive", "^[ \\t\\v\\f]*(?:#|%:)[ \\t\\v\\f]*(?:line\\b|[0-9])",
     "#line directives and line markers are not allowed: messages about your code must name "
     ASG_SOURCE, NULL, 0, 0},
};

const struct spec_rule *src_default_rules(size_t *n)
{
    *n = sizeof default_rules / sizeof default_rules[0];
    return default_rules;
}

/* Remove backslash-newline splices (translation phase 2); the splices'
 * newlines go back at the end of the logical line. A NUL byte reads as a
 * space, as gcc reads it (src_check refuses such a source anyway). `out`
 * has room for len + 1 bytes. Returns the length. */
static size_t unsplice(const char *src, size_t len, char *out)
{
    size_t n = 0, pending = 0;

    for (size_t i = 0; i < len; i++) {
        size_t j = i + 1;
        while (src[i] == '\\' && j < len && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r'))
            j++;             /* gcc accepts blanks between '\\' and the newline */
        if (src[i] == '\\' && j < len && src[j] == '\n') {
            pending++;
            i = j;
            continue;
        }
        out[n++] = src[i] == '\0' ? ' ' : src[i];
        if (src[i] == '\n')
            for (; pending > 0; pending--)
                out[n++] = '\n';
    }
    for (; pending > 0; pending--)
        out[n++] = '\n';
    out[n] = '\0';
    return n;
}

/* The character trigraph ??c stands for, or 0. */
static char trigraph(char c)
{
    static const char from[] = "=/'()!<>-", to[] = "#\\^[]|{}~";
    const char *p = c ? strchr(from, c) : NULL;

    return p ? to[p - from] : 0;
}

/* Translation phase 1, src[0..len) into out (len bytes): each trigraph
 * becomes its character, exactly as gcc -std=c11 reads it ("*??/" then a
 * newline and "/" closes a comment), and the two bytes it saved go back
 * as spaces before the next newline, so lines stay where they were. */
static void replace_trigraphs(const char *src, size_t len, char *out)
{
    size_t n = 0, pad = 0;

    for (size_t i = 0; i < len; i++) {
        if (i + 2 < len && src[i] == '?' && src[i + 1] == '?' && trigraph(src[i + 2])) {
            out[n++] = trigraph(src[i + 2]);
            pad += 2;
            i += 2;
            continue;
        }
        for (; src[i] == '\n' && pad > 0; pad--)
            out[n++] = ' ';
        out[n++] = src[i];
    }
    for (; pad > 0; pad--)
        out[n++] = ' ';
}

/* The punctuator digraph b[i..i+2) stands for, or 0. */
static char digraph(const char *b, size_t i, size_t n)
{
    static const char *const pairs[] = {"<:[", ":>]", "<%{", "%>}", "%:#"};

    for (size_t k = 0; i + 1 < n && k < 5; k++)
        if (b[i] == pairs[k][0] && b[i + 1] == pairs[k][1])
            return pairs[k][2];
    return 0;
}

static size_t skip_blanks(const char *b, size_t i, size_t end)
{
    while (i < end && (b[i] == ' ' || b[i] == '\t' || b[i] == '\v' || b[i] == '\f'))
        i++;
    return i;
}

/* 1 if b[from..at) is `#include` and blanks: a quote at `at` starts a
 * header name, which rules must see. */
static int in_include(const char *b, size_t from, size_t at)
{
    size_t i = skip_blanks(b, from, at);

    if (i < at && b[i] == '#')
        i++;
    else if (i + 1 < at && b[i] == '%' && b[i + 1] == ':')
        i += 2;
    else
        return 0;
    i = skip_blanks(b, i, at);
    if (at - i < 7 || memcmp(b + i, "include", 7) != 0)
        return 0;
    return skip_blanks(b, i + 7, at) == at;
}

enum lex { CODE, LINE_COMMENT, BLOCK_COMMENT, LITERAL, HEADER_NAME };

/* One step of the blanking state machine at b[i]; returns the next i. */
static size_t step(char *b, size_t n, size_t i, enum lex *st, char *delim, size_t *line)
{
    char c = b[i], next = i + 1 < n ? b[i + 1] : '\0';

    if (c == '\n') {
        *line = i + 1;
        if (*st != BLOCK_COMMENT)
            *st = CODE;      /* unterminated literals end at the line */
        return i + 1;
    }
    switch (*st) {
    case CODE:
        if (c == '/' && (next == '/' || next == '*')) {
            *st = next == '/' ? LINE_COMMENT : BLOCK_COMMENT;
            b[i] = b[i + 1] = ' ';
            return i + 2;
        }
        if (c == '"' || c == '\'') {
            *st = c == '"' && in_include(b, *line, i) ? HEADER_NAME : LITERAL;
            *delim = c;
        }
        if (digraph(b, i, n)) {  /* rules see the punctuator: "<%" is "{" */
            b[i] = digraph(b, i, n);
            b[i + 1] = ' ';
            return i + 2;
        }
        return i + 1;
    case LINE_COMMENT:
        b[i] = ' ';
        return i + 1;
    case BLOCK_COMMENT:
        if (c == '*' && next == '/') {
            *st = CODE;
            b[i + 1] = ' ';
        }
        b[i] = ' ';
        return i + 1;
    case LITERAL:
        if (c == *delim) {
            *st = CODE;
            return i + 1;
        }
        b[i] = ' ';
        if (c == '\\' && next != '\0' && next != '\n')
            b[++i] = ' ';
        return i + 1;
    case HEADER_NAME:
        if (c == '"')
            *st = CODE;
        return i + 1;
    }
    return i + 1;
}

char *src_blank(const char *src, size_t len)
{
    char *b = malloc(len + 1), *raw = malloc(len + 1);
    size_t n, i = 0, line = 0;
    enum lex st = CODE;
    char delim = '"';

    if (b == NULL || raw == NULL) {
        free(b);
        free(raw);
        return NULL;
    }
    replace_trigraphs(src, len, raw);
    n = unsplice(raw, len, b);
    free(raw);
    while (i < n)
        i = step(b, n, i, &st, &delim, &line);
    return b;
}

/* Growable, capped text of violations. */
/* Append a violation line; one past OUT_CAP is dropped whole (the first
 * violations say enough). 0, or -1 when out of memory. */
static int out_add(struct sb *o, const char *line)
{
    size_t n = strlen(line);

    if (o->len + n + 1 > OUT_CAP)
        return 0;
    return sb_add(o, line, n);
}

/* 1-based line and column of byte `off` of b. */
static void line_col(const char *b, size_t off, int *line, int *col)
{
    size_t start = 0;

    *line = 1;
    for (size_t i = 0; i < off; i++)
        if (b[i] == '\n') {
            (*line)++;
            start = i + 1;
        }
    *col = (int)(off - start) + 1;
}

/* The work left for this file's rules, counted in PCRE2 callouts (one per
 * item tried, at every start position), so that the bound is per file and
 * not per start position as PCRE2's own match limit is. */
struct budget {
    unsigned long left;
};

static int spend(pcre2_callout_block *cb, void *ctx)
{
    struct budget *b = ctx;

    (void)cb;
    if (b->left == 0)
        return PCRE2_ERROR_CALLOUT;
    b->left--;
    return 0;
}

static pcre2_code *compile_rule(const struct spec_rule *r, struct err *e)
{
    int code;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_MULTILINE | PCRE2_AUTO_CALLOUT, &code, &erroff,
                                   NULL);

    if (re == NULL) {
        PCRE2_UCHAR msg[128];
        pcre2_get_error_message(code, msg, sizeof msg);
        err_set(e, r->file, r->line, r->col, "rule '%s': bad pattern at offset %zu: %s",
                r->id, (size_t)erroff, (const char *)msg);
    }
    return re;
}

/* Match one rule; *off set to its first match. Returns 1 (match), 0
 * (none), 2 (out of its limits or of the file's budget), -1 (e set). */
static int match_rule(const struct spec_rule *r, const char *b, size_t n,
                      pcre2_match_context *mctx, size_t *off, struct err *e)
{
    pcre2_code *re = compile_rule(r, e);
    pcre2_match_data *md;
    int rc;

    if (re == NULL)
        return -1;
    if ((md = pcre2_match_data_create_from_pattern(re, NULL)) == NULL) {
        pcre2_code_free(re);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    rc = pcre2_match(re, (PCRE2_SPTR)b, n, 0, 0, md, mctx);
    if (rc >= 0)
        *off = pcre2_get_ovector_pointer(md)[0];
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    /* A source crafted to exhaust a rule's limits is refused, not a
     * grader error: fail closed, and no submission can stop the grader. */
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
        rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_CALLOUT ||
        rc == PCRE2_ERROR_NOMEMORY)
        return 2;
    if (rc < 0)
        return err_set(e, r->file, r->line, r->col, "rule '%s': matching failed (error %d)",
                       r->id, rc);
    return 1;
}

/* Run every rule over the blanked text b[0..n), appending to `o`. */
static int run_rules(const struct spec_rule *rules, size_t nrules, const char *b, size_t n,
                     const char *name, struct sb *o, struct err *e)
{
    pcre2_match_context *mctx = pcre2_match_context_create(NULL);
    struct budget left = {SRC_WORK_BUDGET};
    int rc = 0;

    if (mctx == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    pcre2_set_match_limit(mctx, SRC_MATCH_LIMIT);
    pcre2_set_heap_limit(mctx, SRC_HEAP_LIMIT_KIB);
    pcre2_set_callout(mctx, spend, &left);
    for (size_t i = 0; i < nrules && rc == 0; i++) {
        size_t off = 0;
        char line[ERR_MSG_MAX + 64];
        int m = match_rule(&rules[i], b, n, mctx, &off, e), ln, col;

        if (m < 0) {
            rc = -1;
        } else if (m == 2) {
            snprintf(line, sizeof line, "%s: rule '%s' could not be checked within the "
                     "grader's limits; simplify the source\n", name, rules[i].id);
            if (out_add(o, line) < 0)
                rc = err_set(e, NULL, 0, 0, "out of memory");
        } else if (m == 1) {
            line_col(b, off, &ln, &col);
            snprintf(line, sizeof line, "%s:%d:%d: %s\n", name, ln, col, rules[i].message);
            if (out_add(o, line) < 0)
                rc = err_set(e, NULL, 0, 0, "out of memory");
        }
    }
    pcre2_match_context_free(mctx);
    return rc;
}

/* A byte no C source holds: a NUL or a control character other than the
 * blanks (gcc reads a NUL as a space, which no text rule expects). */
static int non_text(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r') ||
           c == 0x7f;
}

/*
 * What the rules could be fooled by, on the raw source: the first
 * non-text byte and the first trigraph (gcc -std=c11 honours them; the
 * blanker does too, but a student never needs one). One line each.
 */
static int check_text(const char *src, size_t len, const char *name, struct sb *o)
{
    char line[ERR_MSG_MAX];
    int ln, col, rc = 0;
    size_t i;

    for (i = 0; i < len && !non_text((unsigned char)src[i]); i++)
        ;
    if (i < len) {
        line_col(src, i, &ln, &col);
        snprintf(line, sizeof line, "%s:%d:%d: the source holds %s (byte 0x%02x): save "
                 ASG_SOURCE " as plain text\n", name, ln, col,
                 src[i] ? "a control character" : "a NUL byte", (unsigned char)src[i]);
        rc = out_add(o, line);
    }
    for (i = 0; i + 2 < len && !(src[i] == '?' && src[i + 1] == '?' && trigraph(src[i + 2]));
         i++)
        ;
    if (rc == 0 && i + 2 < len) {
        line_col(src, i, &ln, &col);
        snprintf(line, sizeof line, "%s:%d:%d: trigraphs are not allowed\n", name, ln, col);
        rc = out_add(o, line);
    }
    return rc;
}

int src_check_rules(const struct spec_rule *rules, size_t n, const char *src, size_t len,
                    const char *src_name, char **violations, struct err *e)
{
    struct sb o;
    char *b;
    int rc;

    *violations = NULL;
    sb_init(&o, 0);
    if (len > SRC_MAX_BYTES)
        return err_set(e, src_name, 0, 0, "source is larger than %u bytes", SRC_MAX_BYTES);
    if (check_text(src, len, src_name, &o) < 0 || (b = src_blank(src, len)) == NULL) {
        sb_release(&o);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    rc = run_rules(rules, n, b, strlen(b), src_name, &o, e);
    free(b);
    if (rc < 0) {
        sb_release(&o);
        return -1;
    }
    /* NULL when no line was kept, as callers test */
    if (o.buf != NULL && (*violations = sb_detach(&o, NULL)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    return 0;
}

int src_check(const struct spec_set *specs, const char *src, size_t len, const char *src_name,
              char **violations, struct err *e)
{
    size_t n = spec_rule_count(specs);
    struct spec_rule *rules;
    int rc;

    *violations = NULL;
    if (n == 0)
        return 0;
    if ((rules = malloc(n * sizeof *rules)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++)
        rules[i] = *spec_rule_at(specs, i);
    rc = src_check_rules(rules, n, src, len, src_name, violations, e);
    free(rules);
    return rc;
}
