/*
 * tests/catalogue/assemble.c -- a catalogue entry made whole again.
 *
 *   assemble BASE ENTRY [-o OUT]
 *
 * A catalogue entry (tests/<folder>/<name>.entry) stores only how one
 * submission differs from its base (reference/attention.c, or the held-out
 * solution tests/solutions/plain_double.c): its header comment, the
 * top-level units it replaces or adds, and the units of the base it drops.
 * This program writes the whole submission (to OUT, or standard output).
 *
 * A file is read as units: the head (the leading comment lines, up to the
 * first blank line or line of code), then units separated by blank lines at
 * the top level (a function with its comment, a struct, an include block, a
 * #define). A unit is named by what it defines: the function's or
 * variable's name, "struct tag", the macro's name, the first included file
 * ("attention.h", <math.h>). The entry's head replaces the base's; an entry
 * unit named as a base unit replaces it in place; a unit of a new name goes
 * in before the next unit the entry replaces (after the last one when none
 * follows); a line "@drop NAME" removes the base's unit NAME. The format is
 * described in tests/README.md ("The catalogue as differences").
 *
 * Errors are one line, "file:line: message", and exit 1 (usage: 2).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 128

struct unit {
    size_t first, count;      /* lines [first, first + count) */
    int drop;                 /* a block of "@drop NAME" lines */
    char name[NAME_MAX_LEN];
};

struct src {
    const char *path;
    char *buf;
    char **line;              /* each line, NUL-terminated in buf */
    size_t nline, head;       /* the head is lines [0, head) */
    size_t gap;               /* blank lines between the head and unit 0 */
    struct unit *u;
    size_t nu;
};

/* "file:line: message" on stderr, and exit 1: the entry is malformed. */
__attribute__((format(printf, 3, 4), noreturn))
static void die(const struct src *s, size_t line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s:%zu: ", s->path, line + 1);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "assemble: out of memory\n");
        exit(2);
    }
    return p;
}

static void read_lines(struct src *s)
{
    FILE *f = fopen(s->path, "rb");
    size_t n = 0, cap = 0, got;
    char chunk[8192];

    if (f == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", s->path, strerror(errno));
        exit(1);
    }
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n + got + 1 > cap) {
            cap = 2 * (n + got + 1);
            s->buf = xrealloc(s->buf, cap);
        }
        memcpy(s->buf + n, chunk, got);
        n += got;
    }
    fclose(f);
    if (n == 0 || s->buf[n - 1] != '\n')
        die(s, 0, "the file is empty or does not end with a newline");
    s->buf[n] = '\0';
    for (char *p = s->buf; *p != '\0'; p = strchr(p, '\n') + 1) {
        s->line = xrealloc(s->line, (s->nline + 1) * sizeof *s->line);
        s->line[s->nline++] = p;
    }
    for (size_t i = 0; i < s->nline; i++)
        *strchr(s->line[i], '\n') = '\0';
}

/* The lexer's state between lines: the brace depth, whether inside a
 * block comment (and since which line). */
struct lex {
    long depth;
    int comment;
    size_t comment_line;
};

/* Steps over one line; returns whether it holds code outside comments.
 * When `code` is not NULL, the line's code (comments blanked) is appended. */
static int lex_line(const struct src *s, size_t i, struct lex *x, char *code, size_t *len)
{
    const char *p = s->line[i];
    int has_code = 0;

    while (*p != '\0') {
        char c = *p;
        if (x->comment) {
            if (c == '*' && p[1] == '/') {
                x->comment = 0;
                p++;
            }
            p++;
            continue;
        }
        if (c == '/' && p[1] == '*') {
            x->comment = 1;
            x->comment_line = i;
            p += 2;
            if (code != NULL)
                code[(*len)++] = ' ';
            continue;
        }
        if (c == '/' && p[1] == '/')
            break;
        if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v')
            has_code = 1;
        if (c == '"' || c == '\'') {
            const char *q = p + 1;
            while (*q != '\0' && *q != c)
                q += (*q == '\\' && q[1] != '\0') ? 2 : 1;
            if (*q == '\0')
                die(s, i, "unterminated string or character literal");
            q++;
            if (code != NULL) {
                memcpy(code + *len, p, (size_t)(q - p));
                *len += (size_t)(q - p);
            }
            p = q;
            continue;
        }
        if (c == '{')
            x->depth++;
        else if (c == '}' && --x->depth < 0)
            die(s, i, "a '}' that closes nothing");
        if (code != NULL)
            code[(*len)++] = c;
        p++;
    }
    if (code != NULL)
        code[(*len)++] = '\n';
    return has_code;
}

static int is_blank(const char *l)
{
    return l[strspn(l, " \t\r\f\v")] == '\0';
}

static int ident_char(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

static void copy_word(char out[NAME_MAX_LEN], const char *p, size_t n)
{
    if (n >= NAME_MAX_LEN)
        n = NAME_MAX_LEN - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* The name of a preprocessor unit: the included file, the macro, or the
 * directive's line. */
static void name_directive(const char *p, char out[NAME_MAX_LEN])
{
    p += strspn(p + 1, " \t") + 1;
    if (strncmp(p, "include", 7) == 0) {
        p += 7 + strspn(p + 7, " \t");
        copy_word(out, p, strcspn(p, " \t\n"));
    } else if (strncmp(p, "define", 6) == 0) {
        p += 6 + strspn(p + 6, " \t");
        size_t n = 0;
        while (ident_char(p[n], n == 0))
            n++;
        copy_word(out, p, n);
    } else {
        copy_word(out, p - 1, strcspn(p - 1, "\n"));
    }
}

/* The name of a unit of code (comments blanked): "struct tag" of a
 * definition, the last identifier before the first '(', ';', '=' or '['
 * (a function, a variable), a typedef's last identifier; "" if none. */
static void name_code(const char *code, char out[NAME_MAX_LEN])
{
    const char *last = NULL, *prev = NULL, *p = code;
    size_t last_n = 0, prev_n = 0;
    int typedef_ = 0;
    long depth = 0;

    out[0] = '\0';
    p += strspn(p, " \t\n");
    if (*p == '#') {
        name_directive(p, out);
        return;
    }
    for (; *p != '\0'; p++) {
        if (*p == '"' || *p == '\'') {
            char q = *p;
            for (p++; *p != '\0' && *p != q; p++)
                if (*p == '\\' && p[1] != '\0')
                    p++;
            if (*p == '\0')
                break;
            continue;
        }
        if (ident_char(*p, 1)) {
            size_t n = 0;
            while (ident_char(p[n], 0))
                n++;
            if (depth == 0) {
                if (last == NULL && prev == NULL && n == 7 && strncmp(p, "typedef", 7) == 0)
                    typedef_ = 1;
                prev = last, prev_n = last_n;
                last = p, last_n = n;
            }
            p += n - 1;
            continue;
        }
        if (*p == '{' && !typedef_ && last != NULL && prev != NULL &&
            ((prev_n == 6 && strncmp(prev, "struct", 6) == 0) ||
             (prev_n == 5 && strncmp(prev, "union", 5) == 0) ||
             (prev_n == 4 && strncmp(prev, "enum", 4) == 0))) {
            snprintf(out, NAME_MAX_LEN, "%.*s %.*s", (int)prev_n, prev, (int)last_n, last);
            return;
        }
        if (*p == '{')
            depth++;
        else if (*p == '}')
            depth--;
        if (depth == 0 && last != NULL &&
            (typedef_ ? *p == ';' : (*p == '(' || *p == ';' || *p == '=' || *p == '['))) {
            copy_word(out, last, last_n);
            return;
        }
    }
}

static size_t add_unit(struct src *s, size_t first)
{
    s->u = xrealloc(s->u, (s->nu + 1) * sizeof *s->u);
    memset(&s->u[s->nu], 0, sizeof s->u[s->nu]);
    s->u[s->nu].first = first;
    return s->nu++;
}

/* Line i is a directive: it must be "@drop NAME", in a unit of its own. */
static void check_drop(const struct src *s, size_t i, const struct unit *u)
{
    const char *l = s->line[i];

    if (strncmp(l, "@drop ", 6) != 0 || is_blank(l + 6))
        die(s, i, "unknown directive '%s' (the one directive is '@drop NAME')", l);
    if (!u->drop && u->count > 1)
        die(s, i, "a '@drop' line among code: leave a blank line between them");
}

/* The head: the leading lines of comment, up to the first blank line
 * outside a comment, line of code or directive; then the blank lines after
 * it. Returns the lexer's state after the head. */
static struct lex parse_head(struct src *s, int entry)
{
    struct lex x = {0, 0, 0};
    size_t i = 0;

    if (entry && strncmp(s->line[0], "/*", 2) != 0)
        die(s, 0, "an entry starts with its header comment ('/*')");
    for (; i < s->nline; i++) {
        if (!x.comment && (s->line[i][0] == '@' || is_blank(s->line[i])))
            break;
        struct lex t = x;
        if (lex_line(s, i, &t, NULL, NULL))
            break;
        x = t;
    }
    s->head = i;
    for (; i < s->nline && is_blank(s->line[i]); i++)
        s->gap++;
    return x;
}

/* The units after the head: runs of lines between blank lines at the top
 * level; a run of "@drop" lines is a unit of its own. */
static void parse_units(struct src *s, struct lex x)
{
    size_t cur = (size_t)-1;

    for (size_t i = s->head + s->gap; i < s->nline; i++) {
        if (x.depth == 0 && !x.comment && is_blank(s->line[i])) {
            cur = (size_t)-1;
            continue;
        }
        if (cur == (size_t)-1)
            cur = add_unit(s, i);
        s->u[cur].count++;
        if (s->line[i][0] == '@' && x.depth == 0 && !x.comment) {
            check_drop(s, i, &s->u[cur]);
            s->u[cur].drop = 1;
            continue;
        }
        if (s->u[cur].drop)
            die(s, i, "a line of code among '@drop' lines: leave a blank line between them");
        lex_line(s, i, &x, NULL, NULL);
    }
    if (x.comment)
        die(s, x.comment_line, "a comment that never ends");
    if (x.depth != 0)
        die(s, s->u[s->nu - 1].first, "a '{' in this unit is never closed");
}

/* Names unit k from its code (comments blanked); a unit of comments only
 * has the empty name: it is kept in the base, new in an entry. */
static void name_unit(struct src *s, size_t k)
{
    struct unit *u = &s->u[k];
    struct lex y = {0, 0, 0};
    size_t cap = 2, len = 0;
    char *code;

    for (size_t j = u->first; j < u->first + u->count; j++)
        cap += strlen(s->line[j]) + 2;
    code = xrealloc(NULL, cap);
    for (size_t j = u->first; j < u->first + u->count; j++)
        lex_line(s, j, &y, code, &len);
    code[len] = '\0';
    name_code(code, u->name);
    if (u->name[0] == '\0' && code[strspn(code, " \t\n")] != '\0')
        die(s, u->first, "cannot tell what this unit defines");
    free(code);
    for (size_t j = 0; j < k && u->name[0] != '\0'; j++)
        if (!s->u[j].drop && strcmp(s->u[j].name, u->name) == 0)
            die(s, u->first, "'%s' is defined again in this file", u->name);
}

/* Cuts s into its head and units, and names each unit. */
static void parse(struct src *s, int entry)
{
    parse_units(s, parse_head(s, entry));
    for (size_t k = 0; k < s->nu; k++)
        if (!s->u[k].drop)
            name_unit(s, k);
}

static size_t find(const struct src *s, const char *name)
{
    for (size_t k = 0; k < s->nu; k++)
        if (!s->u[k].drop && s->u[k].name[0] != '\0' && strcmp(s->u[k].name, name) == 0)
            return k;
    return (size_t)-1;
}

/* What goes where: for each base unit, the entry unit replacing it (or
 * the base's own), whether it is dropped, and the entry's new units that
 * go before and after it. */
struct plan {
    const struct unit **use;
    int *dropped;
    size_t *before_from, *before_n, *after_from, *after_n;
    size_t *order, norder;    /* the entry's new units, in entry order */
};

static void plan_drops(const struct src *b, const struct src *e, struct plan *p)
{
    for (size_t k = 0; k < e->nu; k++) {
        if (!e->u[k].drop)
            continue;
        for (size_t i = e->u[k].first; i < e->u[k].first + e->u[k].count; i++) {
            const char *name = e->line[i] + 6;
            name += strspn(name, " \t");
            size_t at = find(b, name);
            if (at == (size_t)-1)
                die(e, i, "@drop '%s': the base has no such unit", name);
            if (p->dropped[at])
                die(e, i, "'%s' is dropped twice", name);
            if (find(e, name) != (size_t)-1)
                die(e, i, "'%s' is both dropped and replaced", name);
            p->dropped[at] = 1;
        }
    }
}

static void plan_units(const struct src *b, const struct src *e, struct plan *p)
{
    size_t last = (size_t)-1, pending = 0, last_line = 0;

    for (size_t k = 0; k < e->nu; k++) {
        const struct unit *u = &e->u[k];
        if (u->drop)
            continue;
        size_t at = u->name[0] != '\0' ? find(b, u->name) : (size_t)-1;
        if (at == (size_t)-1) {
            p->order[p->norder++] = k;
            pending++;
            last_line = u->first;
            continue;
        }
        if (last != (size_t)-1 && at < last)
            die(e, u->first, "'%s' comes before the unit above it in the base: keep the base's order",
                u->name);
        p->use[at] = u;
        p->before_from[at] = p->norder - pending;
        p->before_n[at] = pending;
        pending = 0;
        last = at;
    }
    if (pending == 0)
        return;
    if (last == (size_t)-1)
        die(e, last_line, "the entry replaces no unit of the base to place its new units by");
    p->after_from[last] = p->norder - pending;
    p->after_n[last] = pending;
}

static void put_unit(FILE *out, const struct src *s, const struct unit *u, int *first)
{
    if (!*first)
        fputc('\n', out);
    *first = 0;
    for (size_t i = u->first; i < u->first + u->count; i++)
        fprintf(out, "%s\n", s->line[i]);
}

static void write_out(FILE *out, const struct src *b, const struct src *e, const struct plan *p)
{
    int first = 1;

    for (size_t i = 0; i < e->head; i++)
        fprintf(out, "%s\n", e->line[i]);
    for (size_t i = 0; i < b->gap; i++)
        fputc('\n', out);
    for (size_t k = 0; k < b->nu; k++) {
        for (size_t j = 0; j < p->before_n[k]; j++)
            put_unit(out, e, &e->u[p->order[p->before_from[k] + j]], &first);
        if (!p->dropped[k])
            put_unit(out, p->use[k] == &b->u[k] ? b : e, p->use[k], &first);
        for (size_t j = 0; j < p->after_n[k]; j++)
            put_unit(out, e, &e->u[p->order[p->after_from[k] + j]], &first);
    }
}

int main(int argc, char **argv)
{
    struct src b = {0}, e = {0};
    struct plan p;
    const char *out_path = NULL;
    FILE *out = stdout;
    char tmp[4096];

    if (argc == 5 && strcmp(argv[3], "-o") == 0)
        out_path = argv[4];
    else if (argc != 3) {
        fprintf(stderr, "usage: assemble BASE ENTRY [-o OUT]\n");
        return 2;
    }
    b.path = argv[1];
    e.path = argv[2];
    read_lines(&b);
    read_lines(&e);
    parse(&b, 0);
    parse(&e, 1);
    p.use = xrealloc(NULL, b.nu * sizeof *p.use);
    p.dropped = calloc(b.nu + 1, sizeof *p.dropped);
    p.before_from = calloc(b.nu + 1, sizeof(size_t));
    p.before_n = calloc(b.nu + 1, sizeof(size_t));
    p.after_from = calloc(b.nu + 1, sizeof(size_t));
    p.after_n = calloc(b.nu + 1, sizeof(size_t));
    p.order = xrealloc(NULL, (e.nu + 1) * sizeof *p.order);
    p.norder = 0;
    if (!p.dropped || !p.before_from || !p.before_n || !p.after_from || !p.after_n) {
        fprintf(stderr, "assemble: out of memory\n");
        return 2;
    }
    for (size_t k = 0; k < b.nu; k++)
        p.use[k] = &b.u[k];
    plan_drops(&b, &e, &p);
    plan_units(&b, &e, &p);
    if (out_path != NULL) {
        snprintf(tmp, sizeof tmp, "%s.tmp", out_path);
        out = fopen(tmp, "w");
        if (out == NULL) {
            fprintf(stderr, "%s: cannot write: %s\n", tmp, strerror(errno));
            return 1;
        }
    }
    write_out(out, &b, &e, &p);
    if (fflush(out) != 0 || ferror(out) || (out_path != NULL && fclose(out) != 0)) {
        fprintf(stderr, "%s: cannot write: %s\n", out_path ? tmp : "stdout", strerror(errno));
        return 1;
    }
    if (out_path != NULL && rename(tmp, out_path) != 0) {
        fprintf(stderr, "%s: cannot rename to %s: %s\n", tmp, out_path, strerror(errno));
        return 1;
    }
    return 0;
}
