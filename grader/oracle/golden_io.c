/* golden_io.c -- the golden file: gold_save and gold_load (golden.h). The
 * format is described in specs/README.md, "Golden data". */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "oracle/golden_internal.h"

#define GOLD_MAGIC "attention-grader-golden 1"

static int cmp_entry(const void *a, const void *b)
{
    const struct gold_entry *const *x = a, *const *y = b;

    return memcmp((*x)->key, (*y)->key, GOLD_KEY_LEN);
}

static int add_hex(struct sb *sb, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++)
        rc = sb_addch(sb, digits[p[i] >> 4]) | sb_addch(sb, digits[p[i] & 15]);
    return rc;
}

static int add_entry(struct sb *sb, const struct gold_entry *s)
{
    int rc = sb_adds(sb, "o ") | add_hex(sb, s->key, GOLD_KEY_LEN) |
             sb_addf(sb, " %zu", s->n);

    for (size_t i = 0; i < s->n && rc == 0; i++) {
        uint64_t bits;
        memcpy(&bits, &s->v[i], sizeof bits);
        rc = sb_addf(sb, " %016" PRIx64, bits);
    }
    return rc | sb_addch(sb, '\n');
}

static int cmp_variant(const void *a, const void *b)
{
    const struct gold_variant *const *x = a, *const *y = b;

    return strcmp((*x)->name, (*y)->name);
}

static int add_variant(struct sb *sb, const struct gold_variant *v)
{
    int rc = sb_addf(sb, "variant %s %s %s %zu", v->name, v->function, v->names,
                     v->n_fails);

    for (size_t i = 0; i < v->n_fails; i++)
        rc |= sb_addf(sb, " %s", v->fails[i]);
    return rc | sb_addf(sb, " | %s\n", v->bug);
}

/* The whole file's text into sb; 0 or -1 (out of memory, cap). */
static int render(const struct gold *g, struct sb *sb)
{
    const struct gold_entry **order = calloc(g->count ? g->count : 1, sizeof *order);
    const struct gold_variant **vars = calloc(g->n_vars + 1, sizeof *vars);
    char hex[SHA256_HEX_LEN];
    size_t n = 0;
    int rc;

    if (order == NULL || vars == NULL) {
        free(order);
        free(vars);
        return -1;
    }
    for (size_t i = 0; i < g->n_vars; i++)
        vars[i] = &g->vars[i];
    qsort(vars, g->n_vars, sizeof *vars, cmp_variant);
    for (size_t i = 0; i < g->cap; i++)
        if (g->slots[i].v != NULL)
            order[n++] = &g->slots[i];
    qsort(order, n, sizeof *order, cmp_entry);
    rc = sb_addf(sb, "%s\nspec %s\nseed %" PRIu64 "\n", GOLD_MAGIC, g->spec_sha256, g->seed);
    for (size_t i = 0; i < g->n_vars && rc == 0; i++)
        rc = add_variant(sb, vars[i]);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = add_entry(sb, order[i]);
    free(order);
    free(vars);
    if (rc != 0 || sb->truncated)
        return -1;
    sha256_hex(sb_str(sb), sb->len, hex);
    return sb_addf(sb, "end %s\n", hex) || sb->truncated ? -1 : 0;
}

static int write_all(const char *tmp, const char *text, size_t len, struct err *e)
{
    FILE *f = fopen(tmp, "wb");

    if (f == NULL)
        return err_set(e, tmp, 0, 0, "cannot create: %s", strerror(errno));
    if (fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        remove(tmp);
        return err_set(e, tmp, 0, 0, "cannot write: %s", strerror(errno));
    }
    return 0;
}

int gold_save(const struct gold *g, const char *path, struct err *e)
{
    struct sb sb;
    char tmp[4096];
    int rc;

    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp)
        return err_set(e, path, 0, 0, "path too long");
    sb_init(&sb, GOLD_MAX_FILE);
    rc = render(g, &sb) < 0 ? err_set(e, path, 0, 0, "the golden data does not fit "
                                      "in %zu bytes (or out of memory)", GOLD_MAX_FILE)
                            : write_all(tmp, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    if (rc == 0 && rename(tmp, path) != 0) {
        remove(tmp);
        rc = err_set(e, path, 0, 0, "cannot rename '%s' into place: %s", tmp,
                     strerror(errno));
    }
    return rc;
}

/* ---- loading ---------------------------------------------------------- */

/* The file's bytes, NUL-terminated, into *text; 0 or -1 (e set). */
static int slurp(const char *path, char **text, size_t *len, struct err *e)
{
    struct sb sb;
    enum sb_read r;

    /* sized once from fstat (core/strbuf.h): megabytes are not copied by
     * doubling; a file cut by the cap or by memory is never parsed */
    sb_init(&sb, GOLD_MAX_FILE);
    r = sb_read_file(&sb, path, 0);
    if (r == SB_READ_OK && (*text = sb_detach(&sb, len)) != NULL)
        return 0;
    sb_release(&sb);
    if (r == SB_READ_OPEN || r == SB_READ_IO)
        return err_set(e, path, 0, 0, "cannot %s: %s", r == SB_READ_OPEN ? "open" : "read",
                       strerror(errno));
    return err_set(e, path, 0, 0, "larger than %zu bytes (or out of memory)",
                   (size_t)GOLD_MAX_FILE);
}

/* Check the closing "end <sha256>" line against the text before it; on
 * success *len shrinks to that text. */
static int check_end(const char *path, const char *text, size_t *len, struct err *e)
{
    const size_t tail = 4 + 64 + 1; /* "end " hex "\n" */
    char hex[SHA256_HEX_LEN];

    if (*len < tail || strncmp(text + *len - tail, "end ", 4) != 0 ||
        text[*len - 1] != '\n')
        return err_set(e, path, 0, 0, "truncated golden file (no closing 'end' line)");
    sha256_hex(text, *len - tail, hex);
    if (memcmp(hex, text + *len - tail + 4, 64) != 0)
        return err_set(e, path, 0, 0, "the golden file's closing hash does not match "
                       "its text: it was changed or damaged (regenerate it with "
                       "`make template`)");
    *len -= tail;
    return 0;
}

static int unhex(const char *s, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < 2 * n; i++) {
        int c = s[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return -1;
        out[i / 2] = (unsigned char)(i % 2 ? (out[i / 2] | d) : d << 4);
    }
    return 0;
}

/* 16 hex digits into *out: 0, or -1 (strtoull took a fifth of a load). */
static int hex16(const char *s, uint64_t *out)
{
    uint64_t v = 0;

    for (int i = 0; i < 16; i++) {
        int c = s[i], d = c >= '0' && c <= '9' ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* "o <key> <n> <bits>..." into the store. */
static int parse_entry(struct gold *g, char *line, struct err *e)
{
    unsigned char key[GOLD_KEY_LEN];
    char *p = line + 2, *end;
    unsigned long long n;
    double *v;
    int rc;

    if (strlen(p) < 2 * GOLD_KEY_LEN + 2 || unhex(p, key, GOLD_KEY_LEN) < 0 ||
        p[2 * GOLD_KEY_LEN] != ' ')
        return -2;
    p += 2 * GOLD_KEY_LEN + 1;
    errno = 0;
    n = strtoull(p, &end, 10);
    if (errno || end == p || n > GOLD_MAX_FILE / 17)
        return -2;
    if ((v = malloc((n ? n : 1) * sizeof *v)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        p = end;
        if (*p != ' ' || hex16(p + 1, &bits) < 0) {
            free(v);
            return -2;
        }
        end = p + 17;
        memcpy(&v[i], &bits, sizeof bits);
    }
    rc = *end == '\0' ? gold_put(g, key, v, n, e) : -2;
    free(v);
    return rc;
}

/* Split s in place at single blanks into at most max words; the count. */
static size_t split_words(char *s, char **w, size_t max)
{
    size_t n = 0;

    while (*s && n < max) {
        w[n++] = s;
        while (*s && *s != ' ')
            s++;
        if (*s == ' ')
            *s++ = '\0';
    }
    return *s ? max + 1 : n;
}

/* "variant <name> <function> <names> <n> <id>... | <bug>" into the store. */
static int parse_variant(struct gold *g, char *line, struct err *e)
{
    enum { MAX_WORDS = 256 };
    char *words[MAX_WORDS], *bar = strstr(line, " | "), *end;
    size_t nw;
    unsigned long n;

    if (bar == NULL)
        return -2;
    *bar = '\0';
    nw = split_words(line + 8, words, MAX_WORDS);
    if (nw < 4 || nw > MAX_WORDS)
        return -2;
    n = strtoul(words[3], &end, 10);
    if (*end != '\0' || n != nw - 4)
        return -2;
    return gold_add_variant(g, words[0], words[1], words[2], bar + 3,
                            (const char *const *)words + 4, n, e);
}

static int parse_line(struct gold *g, char *line, int lineno, struct err *e)
{
    char *end;

    if (lineno == 1)
        return strcmp(line, GOLD_MAGIC) == 0 ? 0 : -2;
    if (strncmp(line, "spec ", 5) == 0 && strlen(line + 5) == 64) {
        memcpy(g->spec_sha256, line + 5, 65);
        return 0;
    }
    if (strncmp(line, "seed ", 5) == 0) {
        errno = 0;
        g->seed = strtoull(line + 5, &end, 10);
        return errno || *end ? -2 : 0;
    }
    if (strncmp(line, "variant ", 8) == 0)
        return parse_variant(g, line, e);
    if (strncmp(line, "o ", 2) == 0)
        return parse_entry(g, line, e);
    return -2;
}

static int parse(struct gold *g, const char *path, char *text, size_t len,
                 struct err *e)
{
    int lineno = 0;

    for (char *p = text, *nl; p < text + len; p = nl + 1) {
        int rc;
        nl = memchr(p, '\n', (size_t)(text + len - p));
        if (nl == NULL)
            nl = text + len;
        *nl = '\0';
        rc = parse_line(g, p, ++lineno, e);
        if (rc == -2)
            return err_set(e, path, lineno, 1, "malformed golden data (see "
                           "specs/README.md, \"Golden data\")");
        if (rc < 0)
            return -1;
    }
    if (g->spec_sha256[0] == '\0')
        return err_set(e, path, 0, 0, "the golden file names no spec");
    return 0;
}

struct gold *gold_load(const char *path, struct err *e)
{
    struct gold *g = NULL;
    char *text = NULL;
    size_t len = 0;

    if (slurp(path, &text, &len, e) == 0 && check_end(path, text, &len, e) == 0 &&
        (g = gold_new()) == NULL)
        err_set(e, NULL, 0, 0, "out of memory");
    if (g != NULL && parse(g, path, text, len, e) < 0) {
        gold_free(g);
        g = NULL;
    }
    free(text);
    return g;
}
