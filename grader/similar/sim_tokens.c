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

/* Skip a preprocessor line from b[i] ('#' first on its line). */
static size_t directive_end(const char *b, size_t i)
{
    while (b[i] != '\0' && b[i] != '\n')
        i++;
    return i;
}

static int scan(const char *b, struct sim_toks *t)
{
    unsigned line = 1, kind;
    int line_start = 1;

    for (size_t i = 0; b[i] != '\0';) {
        if (b[i] == '\n') {
            line++;
            line_start = 1;
            i++;
        } else if (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\f' ||
                   b[i] == '\v') {
            i++;
        } else if (b[i] == '#' && line_start) {
            i = directive_end(b, i);
        } else {
            line_start = 0;
            i = next_token(b, i, &kind);
            if (kind != 0 && push(t, kind, line) < 0)
                return -1;
        }
    }
    return 0;
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
