/* mutate.c -- tokens and function bodies of a C source, the operator file,
 * and mutants as edits (the operators themselves: mutate_gen.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/mutate_internal.h"
#include "build/srcrules.h"
#include "core/strbuf.h"
#include "core/util.h"

/* ---- the operator file ------------------------------------------------ */

static const struct {
    const char *word;
    enum mut_kind kind;
    size_t min_args;
} kinds[] = {
    {"swap", MK_SWAP, 2},   {"drop", MK_DROP, 1},     {"nudge", MK_NUDGE, 1},
    {"call", MK_CALL, 2},   {"unwrap", MK_UNWRAP, 1}, {"param", MK_PARAM, 1},
    {"loop", MK_LOOP, 1},   {"index", MK_INDEX, 0},   {"delete", MK_DELETE, 0},
    {"return", MK_RETURN, 0}, {"cond", MK_COND, 0},     {"guard", MK_GUARD, 1},
    {"init", MK_INIT, 1},     {"jump", MK_JUMP, 0},     {"operand", MK_OPERAND, 0},
};

static const char *const nudges[] = {"zero-one", "plus-one", "minus-one", "double", "half"};

/* Split line into words (at most n); returns how many, or n + 1 when more. */
static size_t split_words(char *line, char **w, size_t n)
{
    size_t k = 0;

    for (char *p = line; *p;) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            break;
        if (k == n)
            return n + 1;
        w[k++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    return k;
}

static int check_args(const struct mut_op *op, const char *name, int ln, struct err *e)
{
    for (size_t i = 0; op->kind == MK_NUDGE && i < op->n_args; i++) {
        size_t k = 0;
        while (k < sizeof nudges / sizeof *nudges && strcmp(op->args[i], nudges[k]) != 0)
            k++;
        if (k == sizeof nudges / sizeof *nudges)
            return err_set(e, name, ln, 1, "unknown nudge '%s' (zero-one, plus-one, "
                           "minus-one, double, half)", op->args[i]);
    }
    if (op->kind == MK_COND && op->n_args == 0 && strcmp(op->name, "negate") != 0)
        return err_set(e, name, ln, 1, "cond '%s' needs the constants it puts in", op->name);
    if (op->kind == MK_GUARD && strcmp(op->name, "size") != 0 && strcmp(op->name, "value") != 0)
        return err_set(e, name, ln, 1, "unknown guard '%s' (size, value)", op->name);
    for (size_t i = 0; op->kind == MK_GUARD && i < op->n_args; i++) {
        char *end;
        (void)strtod(op->args[i], &end);
        if (*end != '\0' || end == op->args[i])
            return err_set(e, name, ln, 1, "guard threshold '%s' is not a number", op->args[i]);
    }
    return 0;
}

/* One non-blank line of the file into ops. 0 or -1. */
static int parse_line(struct mut_ops *ops, char *line, const char *name, int ln,
                      struct err *e)
{
    char *w[MUT_MAX_ARGS + 2];
    size_t nw = split_words(line, w, MUT_MAX_ARGS + 2), k = 0;
    struct mut_op *op = &ops->op[ops->n];

    if (nw == 0)
        return 0;
    if (ops->n == MUT_MAX_OPS || nw > MUT_MAX_ARGS + 2)
        return err_set(e, name, ln, 1, "too many operators or arguments");
    while (k < sizeof kinds / sizeof *kinds && strcmp(w[0], kinds[k].word) != 0)
        k++;
    if (k == sizeof kinds / sizeof *kinds)
        return err_set(e, name, ln, 1, "unknown operator kind '%s'", w[0]);
    if (nw < 2 || nw - 2 < kinds[k].min_args)
        return err_set(e, name, ln, 1, "'%s' needs a name and %zu argument(s)", w[0],
                       kinds[k].min_args);
    memset(op, 0, sizeof *op);
    op->kind = kinds[k].kind;
    for (size_t i = 1; i < nw; i++)
        if (strlen(w[i]) >= MUT_NAME_MAX)
            return err_set(e, name, ln, 1, "'%s' is too long", w[i]);
    snprintf(op->name, sizeof op->name, "%s", w[1]);
    for (size_t i = 2; i < nw; i++)
        snprintf(op->args[op->n_args++], MUT_NAME_MAX, "%s", w[i]);
    if (check_args(op, name, ln, e) < 0)
        return -1;
    ops->n++;
    return 0;
}

struct mut_ops *mut_ops_parse(const char *text, size_t len, const char *name,
                              struct err *e)
{
    struct mut_ops *ops = calloc(1, sizeof *ops);
    char line[1024];
    int ln = 0;

    if (ops == NULL) {
        err_set(e, NULL, 0, 0, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < len;) {
        size_t j = i, k;
        while (j < len && text[j] != '\n')
            j++;
        ln++;
        k = j - i < sizeof line ? j - i : sizeof line - 1;
        memcpy(line, text + i, k);
        line[k] = '\0';
        if (strchr(line, '#'))
            *strchr(line, '#') = '\0';
        if (parse_line(ops, line, name, ln, e) < 0) {
            free(ops);
            return NULL;
        }
        i = j + 1;
    }
    if (ops->n == 0) {
        err_set(e, name, 0, 0, "no mutation operator in '%s'", name);
        free(ops);
        return NULL;
    }
    return ops;
}

struct mut_ops *mut_ops_load(const char *path, struct err *e)
{
    struct sb sb;
    struct mut_ops *ops = NULL;
    enum sb_read r;

    sb_init(&sb, 0);
    r = sb_read_file(&sb, path, ((size_t)1 << 16) - 1);
    if (r == SB_READ_CUT)
        err_set(e, path, 0, 0, "'%s' is over 64 KiB", path);
    else if (r != SB_READ_OK)
        err_set(e, path, 0, 0, "cannot read the mutation operators '%s'", path);
    else
        ops = mut_ops_parse(sb_str(&sb), sb.len, path, e);
    sb_release(&sb);
    return ops;
}

void mut_ops_free(struct mut_ops *ops)
{
    free(ops);
}

/* ---- tokens ------------------------------------------------------------ */

static const char *const puncts[] = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "*=",  "/=",  "%=",  "+=", "-=", "&=", "^=", "|=", "##",
};

static size_t punct_len(const char *s, size_t left)
{
    for (size_t i = 0; i < sizeof puncts / sizeof *puncts; i++) {
        size_t n = strlen(puncts[i]);
        if (n <= left && memcmp(s, puncts[i], n) == 0)
            return n;
    }
    return 1;
}

static size_t number_len(const char *s, size_t left)
{
    size_t i = 1;

    while (i < left && (isalnum((unsigned char)s[i]) || s[i] == '.' || s[i] == '_' ||
                        ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]))))
        i++;
    return i;
}

/* The length of the token at c[i] (c[i] not blank). */
static size_t token_len(const char *c, size_t i, size_t n, enum mut_tok *kind)
{
    if (isalpha((unsigned char)c[i]) || c[i] == '_') {
        size_t j = i + 1;
        while (j < n && (isalnum((unsigned char)c[j]) || c[j] == '_'))
            j++;
        *kind = TK_ID;
        return j - i;
    }
    if (isdigit((unsigned char)c[i]) || (c[i] == '.' && i + 1 < n && isdigit((unsigned char)c[i + 1]))) {
        *kind = TK_NUM;
        return number_len(c + i, n - i);
    }
    if (c[i] == '"' || c[i] == '\'') {
        const char *q = memchr(c + i + 1, c[i], n - i - 1);
        *kind = TK_LIT;
        return q ? (size_t)(q - (c + i)) + 1 : n - i;
    }
    *kind = TK_PUNCT;
    return punct_len(c + i, n - i);
}

static int push_token(struct mut_unit *u, size_t *cap, const struct mut_token *t)
{
    struct mut_token *p = ut_grow(u->tok, cap, u->n_tok + 1, sizeof *p, 1024);

    if (p == NULL)
        return -1;
    u->tok = p;
    u->tok[u->n_tok++] = *t;
    return 0;
}

/*
 * Where each byte of the blanked source came from in the raw one (map[k]
 * for k <= clen): src_blank removes each splice (backslash-newline, or
 * the trigraph ??/ and a newline, which leaves its two pad spaces) and
 * puts the newline back at the end of the logical line. NULL when out of
 * memory.
 */
static size_t *raw_map(const char *src, size_t len, size_t clen)
{
    size_t *map = malloc((clen + 1) * sizeof *map), i = 0, k = 0, pending = 0;

    while (map && i < len && k < clen) {
        if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n') {
            i += 2, pending++;
        } else if (i + 3 < len && memcmp(src + i, "?\?/\n", 4) == 0) {
            map[k++] = i;
            if (k < clen)
                map[k++] = i + 1;
            i += 4, pending++;
        } else if (src[i] == '\n') {
            for (map[k++] = i; pending > 0 && k < clen; pending--)
                map[k++] = i;
            i++;
        } else {
            map[k++] = i++;
        }
    }
    while (map && k <= clen)
        map[k++] = len;
    return map;
}

/* Each token's line and column in the raw source (tokens are in order). */
static void raw_lines(struct mut_unit *u)
{
    size_t at = 0;
    int line = 1, col = 1;

    for (size_t i = 0; i < u->n_tok; i++) {
        for (; at < u->tok[i].off && at < u->len; at++)
            if (u->src[at] == '\n')
                line++, col = 1;
            else
                col++;
        u->tok[i].line = line;
        u->tok[i].col = col;
    }
}

/* Cut u->code into tokens; preprocessor lines are skipped whole. */
static int tokenize(struct mut_unit *u)
{
    const char *c = u->code;
    size_t cap = 0, *map = raw_map(u->src, u->len, u->code_len);
    int line = 1, col = 1, line_start = 1;

    if (map == NULL)
        return -1;
    for (size_t i = 0; i < u->code_len;) {
        struct mut_token t = {0};
        if (c[i] == '\n' || isspace((unsigned char)c[i])) {
            if (c[i] == '\n')
                line++, col = 0, line_start = 1;
            i++, col++;
            continue;
        }
        if (c[i] == '#' && line_start) {
            while (i < u->code_len && c[i] != '\n')
                i++;
            continue;
        }
        line_start = 0;
        t.len = token_len(c, i, u->code_len, &t.kind);
        t.coff = i;
        t.off = map[i];
        t.line = line;
        t.col = col;
        t.fn = -1;
        /* a token split by a splice, or spelled as a trigraph, is left alone */
        t.raw_ok = t.off + t.len <= u->len && map[i + t.len - 1] == t.off + t.len - 1 &&
                   memcmp(u->src + t.off, c + i, t.len) == 0 && t.kind != TK_LIT;
        if (push_token(u, &cap, &t) < 0) {
            free(map);
            return -1;
        }
        i += t.len;
        col += (int)t.len;
    }
    free(map);
    raw_lines(u);
    return 0;
}

int mut_tok_is(const struct mut_unit *u, size_t i, const char *s)
{
    return i < u->n_tok && u->tok[i].len == strlen(s) &&
           memcmp(u->code + u->tok[i].coff, s, u->tok[i].len) == 0;
}

/* Pair every ( [ { with its closer; -1 when they do not balance. */
static int match_brackets(struct mut_unit *u)
{
    size_t stack[512], depth = 0;
    int parens = 0;

    for (size_t i = 0; i < u->n_tok; i++) {
        parens -= mut_tok_is(u, i, ")") || mut_tok_is(u, i, "]");
        u->tok[i].in_parens = parens > 0;
        parens += mut_tok_is(u, i, "(") || mut_tok_is(u, i, "[");
        if (mut_tok_is(u, i, "(") || mut_tok_is(u, i, "[") || mut_tok_is(u, i, "{")) {
            if (depth == sizeof stack / sizeof *stack)
                return -1;
            stack[depth++] = i;
        } else if (mut_tok_is(u, i, ")") || mut_tok_is(u, i, "]") || mut_tok_is(u, i, "}")) {
            if (depth == 0)
                return -1;
            u->tok[stack[--depth]].match = i;
        }
    }
    return depth == 0 ? 0 : -1;
}

static const char *const type_words[] = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
    "const", "volatile", "static", "struct", "union", "enum", "size_t", "ptrdiff_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "_Bool", "bool", "register", "inline", "restrict", "extern",
};

int mut_is_type_word(const struct mut_unit *u, size_t i)
{
    for (size_t k = 0; k < sizeof type_words / sizeof *type_words; k++)
        if (mut_tok_is(u, i, type_words[k]))
            return 1;
    return i > 0 && mut_tok_is(u, i - 1, "struct");
}

int mut_range_text(const struct mut_unit *u, size_t a, size_t b, char *buf, size_t n)
{
    size_t from = u->tok[a].off, to = u->tok[b].off + u->tok[b].len;

    if (to - from >= n)
        return -1;
    memcpy(buf, u->src + from, to - from);
    buf[to - from] = '\0';
    return 0;
}

/* Append the text of token i to buf (with a space between words). */
static void add_word(const struct mut_unit *u, size_t i, char *buf, size_t n)
{
    size_t k = strlen(buf);

    if (k && k + 1 < n && buf[k - 1] != '*' && !mut_tok_is(u, i, "*"))
        buf[k++] = ' ';
    else if (k && k + 1 < n && mut_tok_is(u, i, "*"))
        buf[k++] = ' ';
    snprintf(buf + k, n - k, "%.*s", (int)u->tok[i].len, u->code + u->tok[i].coff);
}

/* Parameter [a, b) of a declarator: its name is the last identifier. */
static void add_param(const struct mut_unit *u, struct mut_fn *f, size_t a, size_t b)
{
    struct mut_param *p;

    if (b <= a || f->n_params == MUT_MAX_PARAMS || u->tok[b - 1].kind != TK_ID)
        return;
    p = &f->params[f->n_params++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%.*s", (int)u->tok[b - 1].len, u->code + u->tok[b - 1].coff);
    for (size_t i = a; i + 1 < b; i++)
        if (!mut_tok_is(u, i, "const"))
            add_word(u, i, p->type, sizeof p->type);
}

/* The function whose parameter list opens at token lp, body at token ob;
 * its return type starts at token from. */
static void read_fn(const struct mut_unit *u, struct mut_fn *f, size_t from, size_t lp, size_t ob)
{
    size_t a = lp + 1;

    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%.*s", (int)u->tok[lp - 1].len, u->code + u->tok[lp - 1].coff);
    for (size_t i = from; i + 1 < lp; i++)
        if (!mut_tok_is(u, i, "static") && !mut_tok_is(u, i, "inline") &&
            !mut_tok_is(u, i, "const"))
            add_word(u, i, f->ret, sizeof f->ret);
    for (size_t i = lp + 1; i <= u->tok[lp].match; i++)
        if (mut_tok_is(u, i, ",") || i == u->tok[lp].match) {
            add_param(u, f, a, i);
            a = i + 1;
        }
    f->first = from;
    f->open = ob;
    f->close = u->tok[ob].match;
}

/* Find the function definitions at file scope; mark their body tokens. */
static int find_functions(struct mut_unit *u)
{
    size_t from = 0, cap = 0;

    for (size_t i = 0; i < u->n_tok; i++) {
        if (mut_tok_is(u, i, ";") || mut_tok_is(u, i, "}")) {
            from = i + 1;
            continue;
        }
        if (!mut_tok_is(u, i, "(") && !mut_tok_is(u, i, "{"))
            continue;
        if (mut_tok_is(u, i, "(") && i > from && u->tok[i - 1].kind == TK_ID &&
            mut_tok_is(u, u->tok[i].match + 1, "{")) {
            size_t ob = u->tok[i].match + 1;
            struct mut_fn *p = ut_grow(u->fns, &cap, u->n_fns + 1, sizeof *p, 32);
            if (p == NULL)
                return -1;
            u->fns = p;
            read_fn(u, &u->fns[u->n_fns], from, i, ob);
            for (size_t k = ob; k <= u->tok[ob].match; k++)
                u->tok[k].fn = (int)u->n_fns;
            u->n_fns++;
            i = u->tok[ob].match;
        } else {
            i = u->tok[i].match; /* a struct, an initializer, a prototype */
        }
        from = i + 1;
    }
    return 0;
}

/* ---- mutants ----------------------------------------------------------- */

static int same_mutant(const struct mut_mutant *a, const struct mut_mutant *b)
{
    return a->off == b->off && a->len == b->len && strcmp(a->text, b->text) == 0;
}

static void list_push(struct mut_list *l, const struct mut_mutant *m)
{
    for (size_t i = l->n; i-- > 0 && l->m[i].off + l->m[i].len + MUT_TEXT_MAX > m->off;)
        if (same_mutant(&l->m[i], m))
            return;
    if (l->n == l->cap) {
        /* the ceiling is the limit itself (doubling from 256 stopped at
         * 16384 and refused a source of 16385 to 20000 mutants) */
        struct mut_mutant *p = ut_grow_max(l->m, &l->cap, l->n + 1, sizeof *p, 256,
                                           MUT_MAX_MUTANTS);
        if (p == NULL) {
            l->oom = 1;
            return;
        }
        l->m = p;
    }
    l->m[l->n++] = *m;
}

static void add_edit(struct mut_list *l, const struct mut_unit *u, size_t at, size_t off,
                     size_t len, const char *text, const struct mut_op *op)
{
    struct mut_mutant m;

    if (strlen(text) >= sizeof m.text || u->tok[at].fn < 0 ||
        (len == strlen(text) && memcmp(u->src + off, text, len) == 0))
        return;
    memset(&m, 0, sizeof m);
    m.off = off;
    m.len = len;
    snprintf(m.text, sizeof m.text, "%s", text);
    m.line = u->tok[at].line;
    m.col = u->tok[at].col;
    snprintf(m.function, sizeof m.function, "%s", u->fns[u->tok[at].fn].name);
    snprintf(m.op, sizeof m.op, "%s", op->name);
    list_push(l, &m);
}

void mut_add_range(struct mut_list *l, const struct mut_unit *u, size_t a, size_t b,
                   const char *text, const struct mut_op *op)
{
    for (size_t i = a; i <= b; i++)
        if (!u->tok[i].raw_ok && u->tok[i].kind != TK_LIT)
            return;
    add_edit(l, u, a, u->tok[a].off, u->tok[b].off + u->tok[b].len - u->tok[a].off, text, op);
}

void mut_add_insert(struct mut_list *l, const struct mut_unit *u, size_t i, const char *text,
                    const struct mut_op *op)
{
    if (u->tok[i].raw_ok)
        add_edit(l, u, i, u->tok[i].off, 0, text, op);
}

static int cmp_mutants(const void *a, const void *b)
{
    const struct mut_mutant *x = a, *y = b;

    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return 0;
}

/* Cut src into tokens and function bodies (unit_close frees); 0, or -1
 * with e set. */
static int unit_open(struct mut_unit *u, const char *src, size_t len, struct err *e)
{
    char *code = src_blank(src, len);

    memset(u, 0, sizeof *u);
    u->src = src;
    u->len = len;
    u->code = code;
    u->code_len = code ? strlen(code) : 0;
    if (code == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    if (memchr(src, '\0', len) != NULL)
        return err_set(e, NULL, 0, 0, "the source holds a NUL byte");
    if (tokenize(u) < 0 || match_brackets(u) < 0 || find_functions(u) < 0)
        return err_set(e, NULL, 0, 0, "the source's brackets do not balance (or out of memory)");
    return 0;
}

static void unit_close(struct mut_unit *u)
{
    free(u->tok);
    free(u->fns);
    free((char *)u->code);
}

/* Whether function fa of a and fb of b are the same tokens, from the
 * definition's first token to its closing brace (raw text compared). */
static int same_definition(const struct mut_unit *a, const struct mut_fn *fa,
                           const struct mut_unit *b, const struct mut_fn *fb)
{
    if (fa->close - fa->first != fb->close - fb->first)
        return 0;
    for (size_t i = fa->first, j = fb->first; i <= fa->close; i++, j++) {
        const struct mut_token *x = &a->tok[i], *y = &b->tok[j];
        if (x->kind != y->kind || x->len != y->len ||
            memcmp(a->src + x->off, b->src + y->off, x->len) != 0)
            return 0;
    }
    return 1;
}

int mut_same_functions(const char *a, size_t alen, const char *b, size_t blen,
                       char (*names)[MUT_NAME_MAX], size_t max, size_t *n, struct err *e)
{
    struct mut_unit ua, ub;
    int rc = unit_open(&ua, a, alen, e);

    *n = 0;
    if (rc == 0)
        rc = unit_open(&ub, b, blen, e);
    else
        memset(&ub, 0, sizeof ub);
    for (size_t i = 0; rc == 0 && i < ua.n_fns; i++)
        for (size_t j = 0; j < ub.n_fns; j++)
            if (strcmp(ua.fns[i].name, ub.fns[j].name) == 0 &&
                same_definition(&ua, &ua.fns[i], &ub, &ub.fns[j]) && *n < max) {
                memcpy(names[(*n)++], ua.fns[i].name, MUT_NAME_MAX);
                break;
            }
    unit_close(&ua);
    unit_close(&ub);
    return rc;
}

int mut_generate(const struct mut_ops *ops, const char *src, size_t len,
                 struct mut_mutant **out, size_t *n, struct err *e)
{
    struct mut_unit u;
    struct mut_list l = {NULL, 0, 0, 0};
    int rc = unit_open(&u, src, len, e);

    *out = NULL;
    *n = 0;
    for (size_t i = 0; rc == 0 && i < ops->n; i++)
        mut_gen_op(&ops->op[i], &u, &l);
    if (rc == 0 && l.oom)
        rc = err_set(e, NULL, 0, 0, "more than %d mutants (or out of memory)", MUT_MAX_MUTANTS);
    if (rc == 0) {
        /* stable: same offset keeps operator order */
        for (size_t i = 1; i < l.n; i++)
            for (size_t j = i; j > 0 && cmp_mutants(&l.m[j - 1], &l.m[j]) > 0; j--) {
                struct mut_mutant t = l.m[j];
                l.m[j] = l.m[j - 1];
                l.m[j - 1] = t;
            }
        *out = l.m;
        *n = l.n;
    } else {
        free(l.m);
    }
    unit_close(&u);
    return rc;
}

char *mut_apply(const struct mut_mutant *m, const char *src, size_t len, size_t *out_len)
{
    size_t tl = strlen(m->text), n = len - m->len + tl;
    char *p = malloc(n + 1);

    if (p == NULL)
        return NULL;
    memcpy(p, src, m->off);
    memcpy(p + m->off, m->text, tl);
    memcpy(p + m->off + tl, src + m->off + m->len, len - m->off - m->len);
    p[n] = '\0';
    *out_len = n;
    return p;
}

/* s[a..b) squeezed (blanks to one space, trimmed) into out (n bytes). */
static void squeeze(const char *s, size_t a, size_t b, char *out, size_t n)
{
    size_t k = 0;
    int blank = 0;

    for (size_t i = a; i < b && k + 1 < n; i++) {
        if (isspace((unsigned char)s[i])) {
            blank = k > 0;
            continue;
        }
        if (blank && k + 2 < n)
            out[k++] = ' ';
        blank = 0;
        out[k++] = s[i];
    }
    out[k] = '\0';
}

void mut_diff(const struct mut_mutant *m, const char *src, size_t len, char *before,
              char *after, size_t n)
{
    size_t a = m->off, b = m->off + m->len, ml;
    char *mut;

    while (a > 0 && src[a - 1] != '\n')
        a--;
    while (b < len && src[b] != '\n')
        b++;
    squeeze(src, a, b, before, n);
    mut = mut_apply(m, src, len, &ml);
    if (mut == NULL) {
        snprintf(after, n, "(out of memory)");
        return;
    }
    squeeze(mut, a, b + strlen(m->text) - m->len, after, n);
    free(mut);
}
