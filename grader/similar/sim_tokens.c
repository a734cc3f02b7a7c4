/* sim_tokens.c -- a submission as a string of normalised tokens. */
#include "similar/similar_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "build/srcrules.h"

/* Token kinds: 1..255 a one-character punctuator, then these. */
enum {
    TK_IDENT = 256, TK_NUMBER, TK_LITERAL,
    TK_OPS,                  /* + index in `ops` */
    TK_KEYWORDS = TK_OPS + 32 /* + index in `keywords` */
};

/* Longest first, so that the first match is the maximal munch. */
static const char *const ops[] = {
    ">>=", "<<=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##",
};

/* C11's keywords: they carry the structure, so each is its own kind. */
static const char *const keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
    "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas",
    "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local",
};

#define N_OPS (sizeof ops / sizeof ops[0])
#define N_KEYWORDS (sizeof keywords / sizeof keywords[0])

static int push(struct sim_toks *t, unsigned kind, unsigned line)
{
    if (t->n == SIM_MAX_TOKENS)
        return 0;            /* the rest of a huge file is not read */
    if (ut_grow2((void **)&t->kind, sizeof *t->kind, (void **)&t->line, sizeof *t->line,
                 &t->cap, t->n + 1, 1024) < 0)
        return -1;
    t->kind[t->n] = (uint16_t)kind;
    t->line[t->n++] = line;
    return 0;
}

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$';
}

static unsigned word_kind(const char *s, size_t n)
{
    for (size_t i = 0; i < N_KEYWORDS; i++)
        if (strlen(keywords[i]) == n && memcmp(keywords[i], s, n) == 0)
            return TK_KEYWORDS + (unsigned)i;
    return TK_IDENT;
}

/* A pp-number from b[i]: digits, letters, '.', and a sign after e/E/p/P. */
static size_t number_end(const char *b, size_t i)
{
    for (i++; ident_char(b[i]) || b[i] == '.' ||
              ((b[i] == '+' || b[i] == '-') && strchr("eEpP", b[i - 1]) != NULL);
         i++)
        ;
    return i;
}

/* A literal whose contents src_blank blanked: up to its closing quote. */
static size_t literal_end(const char *b, size_t i)
{
    char q = b[i];

    for (i++; b[i] != '\0' && b[i] != '\n' && b[i] != q; i++)
        ;
    return b[i] == q ? i + 1 : i;
}

static size_t punct(const char *b, size_t i, unsigned *kind)
{
    for (size_t k = 0; k < N_OPS; k++) {
        size_t n = strlen(ops[k]);
        if (strncmp(b + i, ops[k], n) == 0) {
            *kind = TK_OPS + (unsigned)k;
            return i + n;
        }
    }
    *kind = (unsigned char)b[i];
    return i + 1;
}

/* One token from b[i] (not a blank); *kind 0 when it is not one. */
static size_t next_token(const char *b, size_t i, unsigned *kind)
{
    size_t j;

    if (ident_char(b[i]) && !(b[i] >= '0' && b[i] <= '9')) {
        for (j = i; ident_char(b[j]); j++)
            ;
        if (b[j] == '"' || b[j] == '\'') {   /* L"..", u8'..': a prefix */
            *kind = TK_LITERAL;
            return literal_end(b, j);
        }
        *kind = word_kind(b + i, j - i);
        return j;
    }
    if ((b[i] >= '0' && b[i] <= '9') || (b[i] == '.' && b[i + 1] >= '0' && b[i + 1] <= '9')) {
        *kind = TK_NUMBER;
        return number_end(b, i);
    }
    if (b[i] == '"' || b[i] == '\'') {
        *kind = TK_LITERAL;
        return literal_end(b, i);
    }
    if ((unsigned char)b[i] < 0x21 || (unsigned char)b[i] > 0x7e) {
        *kind = 0;           /* a blank or a byte no token holds */
        return i + 1;
    }
    return punct(b, i, kind);
}

/* ---- macros: expanded at their uses, as the compiler sees them ----
 *
 * A copy wrapped in one `#define SOLUTION \ ...` used once, or written
 * with `#define RET return` and fourteen more aliases, is the copy it is
 * once its macros are expanded (docs/DESIGN.md says why here and not in
 * the compiler's preprocessor). Object-like and function-like macros are
 * expanded at their uses after the file's own #define and #undef lines,
 * arguments first, with # (a literal) and ## (the spellings pasted), and
 * a macro is not expanded inside its own expansion. Includes are not
 * followed (only attention.h and the C library's headers may be included,
 * and the base is tokenised the same way), #if is not evaluated. An
 * expansion's tokens take the line of the macro's use. The work is
 * bounded: MX_WORK tokens made in all, MX_DEPTH nested expansions. */

#define MX_WORK (4 * (size_t)SIM_MAX_TOKENS)
#define MX_DEPTH 64
#define MX_BUCKETS 1024u
#define MX_PASTE_MAX ((size_t)1 << 20)   /* bytes of pasted spellings */

enum { TK_EV_DEFINE = 0xfff0, TK_EV_UNDEF };   /* events in the file's list */

struct ptok {
    uint16_t kind;
    uint16_t param;    /* in a macro's body: 1 + the parameter's index, else 0 */
    unsigned line;
    const char *s;     /* the spelling (for macro names, pasting) */
    size_t n;          /* for an event: the macro's index */
};

struct plist {
    struct ptok *v;
    size_t n, cap;
};

struct macro {
    const char *name;
    size_t name_n;
    size_t params, n_params, body, n_body;   /* in mx.defs */
    int fn, variadic, active, live;
    size_t next;       /* hash chain: 1 + index, 0 ends */
};

struct mx {
    struct plist file, defs;
    struct macro *m;
    size_t n_m, cap_m;
    size_t head[MX_BUCKETS];   /* 1 + index of the newest macro of a bucket */
    char *paste;               /* pasted spellings (MX_PASTE_MAX bytes) */
    size_t paste_n;
    size_t work;
    int stop;                  /* the work bound or the token cap was met */
    struct sim_toks *out;
};

static int pl_add(struct mx *x, struct plist *l, struct ptok t)
{
    struct ptok *v;

    if (++x->work > MX_WORK) {
        x->stop = 1;
        return 0;
    }
    if ((v = ut_grow(l->v, &l->cap, l->n + 1, sizeof *v, 256)) == NULL)
        return -1;
    l->v = v;
    l->v[l->n++] = t;
    return 0;
}

static int is_word(const struct ptok *t)
{
    return t->kind == TK_IDENT || t->kind >= TK_KEYWORDS;
}

static unsigned bucket(const char *s, size_t n)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h % MX_BUCKETS;
}

/* The live macro of that name, or NULL. */
static struct macro *lookup(struct mx *x, const char *s, size_t n)
{
    for (size_t i = x->head[bucket(s, n)]; i != 0; i = x->m[i - 1].next) {
        struct macro *m = &x->m[i - 1];

        if (m->live && m->name_n == n && memcmp(m->name, s, n) == 0)
            return m;
    }
    return NULL;
}

/* An event of the file's list, met in order: a definition takes effect,
 * an #undef ends the live macro of its name. */
static void apply(struct mx *x, const struct ptok *ev)
{
    struct macro *m;

    if (ev->kind == TK_EV_UNDEF) {
        if ((m = lookup(x, ev->s, ev->n)) != NULL)
            m->live = 0;
        return;
    }
    m = &x->m[ev->n];
    m->live = 1;
    m->next = x->head[bucket(m->name, m->name_n)];
    x->head[bucket(m->name, m->name_n)] = ev->n + 1;
}

/* ---- reading the file: tokens, and #define / #undef as events ---- */

static size_t skip_blanks(const char *b, size_t i)
{
    while (b[i] == ' ' || b[i] == '\t' || b[i] == '\f' || b[i] == '\v' || b[i] == '\r')
        i++;
    return i;
}

static size_t word_end(const char *b, size_t i)
{
    while (ident_char(b[i]))
        i++;
    return i;
}

/* The tokens of b[i] up to the end of its line into l. Returns the end. */
static size_t line_tokens(struct mx *x, struct plist *l, const char *b, size_t i,
                          unsigned line, int *rc)
{
    unsigned kind;

    while (*rc == 0 && b[i] != '\0' && b[i] != '\n') {
        size_t j;

        if ((i = skip_blanks(b, i)), b[i] == '\0' || b[i] == '\n')
            break;
        j = next_token(b, i, &kind);
        if (kind != 0)
            *rc = pl_add(x, l, (struct ptok){(uint16_t)kind, 0, line, b + i, j - i});
        i = j;
    }
    return i;
}

/* "(a, b, ...)" after a function-like macro's name: the parameters into
 * defs. Returns the index past ')', or 0 when malformed. */
static size_t params(struct mx *x, struct macro *m, const char *b, size_t i, int *rc)
{
    m->params = x->defs.n;
    for (i = skip_blanks(b, i + 1); *rc == 0 && b[i] != ')'; i = skip_blanks(b, i)) {
        size_t j = word_end(b, i);

        if (strncmp(b + i, "...", 3) == 0) {
            m->variadic = 1;
            *rc = pl_add(x, &x->defs, (struct ptok){TK_IDENT, 0, 0, "__VA_ARGS__", 11});
            j = i + 3;
        } else if (j > i && strncmp(b + skip_blanks(b, j), "...", 3) == 0) {
            m->variadic = 1;   /* GNU's named variadic parameter */
            *rc = pl_add(x, &x->defs, (struct ptok){TK_IDENT, 0, 0, b + i, j - i});
            j = skip_blanks(b, j) + 3;
        } else if (j > i) {
            *rc = pl_add(x, &x->defs, (struct ptok){TK_IDENT, 0, 0, b + i, j - i});
        } else {
            return 0;
        }
        m->n_params++;
        if ((i = skip_blanks(b, j)), b[i] == ',')
            i++;
        else if (b[i] != ')')
            return 0;
    }
    return *rc == 0 ? i + 1 : 0;
}

/* Mark the body's tokens that name a parameter. */
static void mark_params(struct mx *x, const struct macro *m)
{
    for (size_t j = 0; j < m->n_body; j++) {
        struct ptok *t = &x->defs.v[m->body + j];

        for (size_t p = 0; p < m->n_params && is_word(t); p++)
            if (t->n == x->defs.v[m->params + p].n &&
                memcmp(t->s, x->defs.v[m->params + p].s, t->n) == 0)
                t->param = (uint16_t)(p + 1);
    }
}

/* "#define NAME..." from b[i] (past "define"): the macro and its event. */
static size_t define(struct mx *x, const char *b, size_t i, unsigned line, int *rc)
{
    size_t j = word_end(b, i = skip_blanks(b, i));
    struct macro *m;

    if (j == i || (b[i] >= '0' && b[i] <= '9'))
        return i;
    if ((m = ut_grow(x->m, &x->cap_m, x->n_m + 1, sizeof *m, 64)) == NULL)
        return *rc = -1, i;
    x->m = m;
    m = &x->m[x->n_m];
    memset(m, 0, sizeof *m);
    m->name = b + i, m->name_n = j - i;
    if (b[j] == '(') {
        m->fn = 1;
        if ((j = params(x, m, b, j, rc)) == 0)
            return i;   /* malformed: no macro */
    }
    m->body = x->defs.n;
    j = line_tokens(x, &x->defs, b, j, line, rc);
    m->n_body = x->defs.n - m->body;
    mark_params(x, m);
    if (*rc == 0)
        *rc = pl_add(x, &x->file, (struct ptok){TK_EV_DEFINE, 0, line, m->name, x->n_m++});
    return j;
}

/* A directive from b[i] ('#' first on its line): #define and #undef
 * become events, every other directive is skipped. Returns its end. */
static size_t directive(struct mx *x, const char *b, size_t i, unsigned line, int *rc)
{
    size_t j, k;

    i = skip_blanks(b, i + 1);
    j = word_end(b, i);
    if (j - i == 6 && memcmp(b + i, "define", 6) == 0) {
        i = define(x, b, j, line, rc);
    } else if (j - i == 5 && memcmp(b + i, "undef", 5) == 0) {
        j = skip_blanks(b, j);
        if ((k = word_end(b, j)) > j)
            *rc = pl_add(x, &x->file, (struct ptok){TK_EV_UNDEF, 0, line, b + j, k - j});
    }
    while (b[i] != '\0' && b[i] != '\n')
        i++;
    return i;
}

static int read_file(struct mx *x, const char *b)
{
    unsigned line = 1, kind;
    int line_start = 1, rc = 0;

    for (size_t i = 0; rc == 0 && !x->stop && b[i] != '\0';) {
        if (b[i] == '\n') {
            line++;
            line_start = 1;
            i++;
        } else if (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\f' ||
                   b[i] == '\v') {
            i++;
        } else if (b[i] == '#' && line_start) {
            i = directive(x, b, i, line, &rc);
        } else {
            size_t j = next_token(b, i, &kind);

            line_start = 0;
            if (kind != 0)
                rc = pl_add(x, &x->file, (struct ptok){(uint16_t)kind, 0, line, b + i, j - i});
            i = j;
        }
    }
    return rc;
}

/* ---- expanding ---- */

static int rescan(struct mx *x, const struct ptok *v, size_t n, unsigned line,
                  unsigned depth, struct plist *dst);

/* One token out: into dst, or (dst NULL) the file's tokens. */
static int emit(struct mx *x, struct ptok t, unsigned line, struct plist *dst)
{
    if (line != 0)
        t.line = line;
    if (dst != NULL)
        return pl_add(x, dst, t);
    if (++x->work > MX_WORK || x->out->n == SIM_MAX_TOKENS) {
        x->stop = 1;
        return 0;
    }
    return push(x->out, t.kind, t.line);
}

/* The arguments of a call whose '(' is v[open]: their bounds into a[]
 * (a[2k], a[2k+1]: first and end of argument k). Returns the index past
 * ')' and *na, or 0 when the call is not closed. */
static size_t args_of(const struct ptok *v, size_t n, size_t open, size_t a[][2], size_t *na,
                      size_t most)
{
    size_t depth = 0, start = open + 1;

    *na = 0;
    for (size_t i = open + 1; i < n; i++) {
        int close = v[i].kind == ')' && depth == 0, comma = v[i].kind == ',' && depth == 0;

        depth += v[i].kind == '(';
        depth -= v[i].kind == ')' && depth > 0 && !close;
        if ((close || comma) && *na < most) {
            a[*na][0] = start, a[*na][1] = i;
            (*na)++;
        }
        if (comma)
            start = i + 1;
        if (close)
            return i + 1;
    }
    return 0;
}

/* Whether s[0..n) (not NUL-terminated) is all identifier characters. */
static int all_ident(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!ident_char(s[i]))
            return 0;
    return n > 0;
}

/* The spelling of a pasted token, in x->paste; NULL when it is full. */
static const char *paste_text(struct mx *x, const struct ptok *l, const struct ptok *r)
{
    char *at = x->paste + x->paste_n;

    if (x->paste == NULL || x->paste_n + l->n + r->n > MX_PASTE_MAX)
        return NULL;
    memcpy(at, l->s, l->n);
    memcpy(at + l->n, r->s, r->n);
    x->paste_n += l->n + r->n;
    return at;
}

/* l ## r: one token of the joined spelling (its kind as the reader
 * would give it); the two as they were when they do not make one. */
static int paste(struct mx *x, struct plist *out, const struct ptok *r)
{
    struct ptok *l = &out->v[out->n - 1];
    const char *s = paste_text(x, l, r);
    unsigned kind;
    char buf[4];
    size_t n = l->n + r->n;

    if (s == NULL)
        return pl_add(x, out, *r);
    if (all_ident(s, n)) {
        l->kind = (uint16_t)((s[0] >= '0' && s[0] <= '9') ? TK_NUMBER : word_kind(s, n));
    } else if (n <= 3) {
        memcpy(buf, s, n), buf[n] = '\0';
        if (punct(buf, 0, &kind) != n)
            return pl_add(x, out, *r);
        l->kind = (uint16_t)kind;
    } else {
        return pl_add(x, out, *r);
    }
    l->s = s, l->n = n;
    return 0;
}

#define MX_MAX_ARGS 128

struct call {
    const struct macro *m;
    const struct ptok *v;      /* where the arguments are */
    size_t a[MX_MAX_ARGS][2], na;
    unsigned depth;
};

/* Argument p of the call, as written (raw) or macro-expanded, into out;
 * __VA_ARGS__ takes the rest, commas included. */
static int arg(struct mx *x, const struct call *c, size_t p, int raw, struct plist *out)
{
    size_t from, to;

    if (p >= c->na)
        return 0;
    from = c->a[p][0];
    to = c->m->variadic && p + 1 == c->m->n_params ? c->a[c->na - 1][1] : c->a[p][1];
    if (raw) {
        for (size_t i = from; i < to; i++)
            if (pl_add(x, out, c->v[i]) < 0)
                return -1;
        return 0;
    }
    return rescan(x, c->v + from, to - from, 0, c->depth + 1, out);
}

static int is_paste(const struct ptok *t)
{
    return t->n == 2 && t->s[0] == '#' && t->s[1] == '#';
}

/* The body of c->m with its parameters replaced (# and ## applied). */
static int substitute(struct mx *x, const struct call *c, struct plist *out)
{
    const struct ptok *body = x->defs.v + c->m->body;
    size_t n = c->m->n_body;
    int rc = 0;

    for (size_t j = 0; rc == 0 && j < n; j++) {
        const struct ptok *t = &body[j];
        int before = j + 1 < n && is_paste(&body[j + 1]), after = j > 0 && is_paste(&body[j - 1]);

        if (c->m->fn && t->kind == '#' && j + 1 < n && body[j + 1].param) {
            rc = pl_add(x, out, (struct ptok){TK_LITERAL, 0, t->line, "\"\"", 2});
            j++;
        } else if (is_paste(t) && j > 0 && j + 1 < n && out->n > 0 && !body[j + 1].param) {
            rc = paste(x, out, &body[++j]);
        } else if (is_paste(t)) {
            continue;   /* beside a parameter: pasted below, or at an edge */
        } else if (t->param) {
            size_t at = out->n;

            rc = arg(x, c, t->param - 1u, before || after, out);
            if (rc == 0 && after && at > 0 && out->n > at) {   /* x ## param */
                struct ptok first = out->v[at];

                memmove(out->v + at, out->v + at + 1, (out->n - at - 1) * sizeof *out->v);
                out->n--;
                rc = paste(x, out, &first);
            }
        } else {
            rc = pl_add(x, out, *t);
        }
    }
    return rc;
}

/* The macro m used at v[i] (a function-like one with its arguments from
 * v[i + 1]): its expansion rescanned into dst. Returns the index past
 * the use, or 0 when it is no use (a function-like name without '('). */
static size_t expand_use(struct mx *x, struct macro *m, const struct ptok *v, size_t n,
                         size_t i, unsigned line, unsigned depth, struct plist *dst, int *rc)
{
    struct call *c = calloc(1, sizeof *c);
    struct plist body = {NULL, 0, 0};
    size_t end = i + 1;

    if (c == NULL)
        return *rc = -1, i + 1;
    c->m = m, c->v = v, c->depth = depth;
    if (m->fn && (i + 1 >= n || v[i + 1].kind != '(' ||
                  (end = args_of(v, n, i + 1, c->a, &c->na, MX_MAX_ARGS)) == 0)) {
        free(c);
        return 0;
    }
    *rc = substitute(x, c, &body);
    m->active = 1;
    if (*rc == 0)
        *rc = rescan(x, body.v, body.n, line ? line : v[i].line, depth + 1, dst);
    m->active = 0;
    free(body.v);
    free(c);
    return end;
}

/* v[0..n) with every macro use expanded, into dst (NULL: the file's
 * tokens); events applied as they come; line 0 keeps each token's own. */
static int rescan(struct mx *x, const struct ptok *v, size_t n, unsigned line,
                  unsigned depth, struct plist *dst)
{
    int rc = 0;

    for (size_t i = 0, next; rc == 0 && !x->stop && i < n; i = next) {
        struct macro *m = NULL;

        next = i + 1;
        if (v[i].kind == TK_EV_DEFINE || v[i].kind == TK_EV_UNDEF) {
            apply(x, &v[i]);
            continue;
        }
        if (is_word(&v[i]) && depth < MX_DEPTH)
            m = lookup(x, v[i].s, v[i].n);
        if (m != NULL && !m->active &&
            (next = expand_use(x, m, v, n, i, line, depth, dst, &rc)) != 0)
            continue;
        next = i + 1;
        rc = rc ? rc : emit(x, v[i], line, dst);
    }
    return rc;
}

static int scan(const char *b, struct sim_toks *t)
{
    struct mx *x = calloc(1, sizeof *x);
    int rc;

    if (x == NULL)
        return -1;
    x->out = t;
    x->paste = malloc(MX_PASTE_MAX);
    rc = read_file(x, b);
    if (rc == 0) {
        x->stop = 0, x->work = 0;   /* what was read is expanded */
        rc = rescan(x, x->file.v, x->file.n, 0, 0, NULL);
    }
    free(x->file.v);
    free(x->defs.v);
    free(x->m);
    free(x->paste);
    free(x);
    return rc;
}

int sim_tokenize(const char *src, size_t len, struct sim_toks *t)
{
    char *b = src_blank(src, len);
    int rc;

    memset(t, 0, sizeof *t);
    if (b == NULL)
        return -1;
    rc = scan(b, t);
    free(b);
    if (rc < 0)
        sim_toks_release(t);
    return rc;
}

void sim_toks_release(struct sim_toks *t)
{
    free(t->kind);
    free(t->line);
    memset(t, 0, sizeof *t);
}

/* An odd multiplier: the k-gram hash is a polynomial modulo 2^64 (Karp-
 * Rabin, as the winnowing paper uses), rolled one token at a time. */
#define HASH_BASE 0x100000001b3ull

size_t sim_kgrams(const struct sim_toks *t, size_t k, uint64_t *h)
{
    uint64_t cur = 0, top = 1;

    if (k == 0 || t->n < k)
        return 0;
    for (size_t i = 1; i < k; i++)
        top *= HASH_BASE;
    for (size_t i = 0; i < t->n; i++) {
        if (i >= k)
            cur -= top * (uint64_t)t->kind[i - k];
        cur = cur * HASH_BASE + t->kind[i];
        if (i + 1 >= k)
            h[i + 1 - k] = cur * 0x9e3779b97f4a7c15ull; /* spread the low bits */
    }
    return t->n - k + 1;
}
