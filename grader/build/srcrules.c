/* srcrules.c -- see srcrules.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "build/srcrules.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_CAP (64u << 10)      /* violations text; the rest is dropped */

static const struct spec_rule default_rules[] = {
    {"asm", "\\b(?:asm|__asm__|__asm)\\b",
     "inline assembly is not allowed: write the computation in C", NULL, 0, 0},
    {"include_quoted", "(?:#|%:)\\s*include\\s*\"(?!attention\\.h\")",
     "only \"attention.h\" may be included with quotes", NULL, 0, 0},
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
     "(?:\\b__attribute(?:__)?\\s*\\(\\(|\\[\\[)[^;{]*?\\b_*(?:constructor|destructor|section|"
     "ifunc|alias|weakref|weak|symver)_*\\b",
     "this attribute is not allowed: code may run only when the grader calls your functions",
     NULL, 0, 0},
    {"pragma", "(?:#|%:)\\s*pragma\\b|\\b_Pragma\\b", "pragmas are not allowed", NULL, 0, 0},
    {"trigraph", "\\?\\?[=/'()!<>-]", "trigraphs are not allowed", NULL, 0, 0},
};

const struct spec_rule *src_default_rules(size_t *n)
{
    *n = sizeof default_rules / sizeof default_rules[0];
    return default_rules;
}

/* Remove backslash-newline splices and NUL bytes; the splices' newlines go back at the end of
 * the logical line. `out` has room for len + 1 bytes. Returns the length. */
static size_t unsplice(const char *src, size_t len, char *out)
{
    size_t n = 0, pending = 0;

    for (size_t i = 0; i < len; i++) {
        size_t j = i + 1;
        if (src[i] == '\0')
            continue;        /* the compiler ignores NUL bytes, so do we */
        while (src[i] == '\\' && j < len && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r'))
            j++;             /* gcc accepts blanks between '\\' and the newline */
        if (src[i] == '\\' && j < len && src[j] == '\n') {
            pending++;
            i = j;
            continue;
        }
        out[n++] = src[i];
        if (src[i] == '\n')
            for (; pending > 0; pending--)
                out[n++] = '\n';
    }
    for (; pending > 0; pending--)
        out[n++] = '\n';
    out[n] = '\0';
    return n;
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
    char *b = malloc(len + 1);
    size_t n, i = 0, line = 0;
    enum lex st = CODE;
    char delim = '"';

    if (b == NULL)
        return NULL;
    n = unsplice(src, len, b);
    while (i < n)
        i = step(b, n, i, &st, &delim, &line);
    return b;
}

/* Growable, capped text of violations. */
struct out {
    char *s;
    size_t len, cap;
};

static int out_add(struct out *o, const char *line)
{
    size_t n = strlen(line);
    char *grown;

    if (o->len + n + 1 > OUT_CAP)
        return 0;            /* drop: the first violations say enough */
    if (o->len + n + 1 > o->cap) {
        size_t cap = (o->len + n + 1) * 2;
        if ((grown = realloc(o->s, cap)) == NULL)
            return -1;
        o->s = grown;
        o->cap = cap;
    }
    memcpy(o->s + o->len, line, n + 1);
    o->len += n;
    return 0;
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

/* Match one rule; *off set to its first match. Returns 1 (match), 0
 * (none), -1 (e set). */
static int match_rule(const struct spec_rule *r, const char *b, size_t n,
                      pcre2_match_context *mctx, size_t *off, struct grd_err *e)
{
    int code, rc;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_MULTILINE, &code, &erroff, NULL);
    pcre2_match_data *md;

    if (re == NULL) {
        PCRE2_UCHAR msg[128];
        pcre2_get_error_message(code, msg, sizeof msg);
        return err_set(e, r->file, r->line, r->col, "rule '%s': bad pattern at offset %zu: %s",
                       r->id, (size_t)erroff, (const char *)msg);
    }
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
        rc == PCRE2_ERROR_HEAPLIMIT)
        return 2;
    if (rc < 0)
        return err_set(e, r->file, r->line, r->col, "rule '%s': matching failed (error %d%s)",
                       r->id, rc, rc == PCRE2_ERROR_MATCHLIMIT ? ", match limit" : "");
    return 1;
}

/* Run every rule over the blanked text b[0..n), appending to `o`. */
static int run_rules(const struct spec_rule *rules, size_t nrules, const char *b, size_t n,
                     const char *name, struct out *o, struct grd_err *e)
{
    pcre2_match_context *mctx = pcre2_match_context_create(NULL);
    int rc = 0;

    if (mctx == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    pcre2_set_match_limit(mctx, SRC_MATCH_LIMIT);
    for (size_t i = 0; i < nrules && rc == 0; i++) {
        size_t off = 0;
        char line[ERR_MSG_MAX + 64];
        int m = match_rule(&rules[i], b, n, mctx, &off, e), ln, col;

        if (m < 0) {
            rc = -1;
        } else if (m == 2) {
            snprintf(line, sizeof line, "%s: rule '%s' could not be checked within its "
                     "limits; simplify the source\n", name, rules[i].id);
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

int src_check_rules(const struct spec_rule *rules, size_t n, const char *src, size_t len,
                    const char *src_name, char **violations, struct grd_err *e)
{
    struct out o = {NULL, 0, 0};
    char *b;
    int rc;

    *violations = NULL;
    if (len > SRC_MAX_BYTES)
        return err_set(e, src_name, 0, 0, "source is larger than %u bytes", SRC_MAX_BYTES);
    if ((b = src_blank(src, len)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = run_rules(rules, n, b, strlen(b), src_name, &o, e);
    free(b);
    if (rc < 0) {
        free(o.s);
        return -1;
    }
    *violations = o.s;
    return 0;
}

int src_check(const struct spec_set *specs, const char *src, size_t len, const char *src_name,
              char **violations, struct grd_err *e)
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
