/* selfcheck.c -- see selfcheck.h. */
#include "selfcheck/selfcheck.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "attention.h"
#include "core/strbuf.h"
#include "props/prop_util.h"

#define VEC_FILE_MAX (4u << 20)

/* ---- words ------------------------------------------------------------------ */

static int word_byte(unsigned char c)
{
    return c < 0x80 && (isalnum(c) || c == '\'');
}

int sc_word_valid(const char *w)
{
    size_t n = strlen(w);

    if (n == 0 || n > SC_WORD_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!word_byte((unsigned char)w[i]) || isupper((unsigned char)w[i]) ||
            (unsigned char)w[i] >= 0x80)
            return 0;
    return 1;
}

/* Append the word text[start..end) to out, lower-cased. */
static int add_word(const char *text, size_t start, size_t end, const char *name,
                    struct sc_words *out, struct err *e)
{
    if (out->n == SC_MAX_WORDS)
        return err_set(e, name, 1, (int)start + 1,
                       "too many words (at most %d): take three or four sentences",
                       SC_MAX_WORDS);
    if (end - start > SC_WORD_MAX)
        return err_set(e, name, 1, (int)start + 1, "word '%.*s' is longer than %d letters",
                       (int)(end - start), text + start, SC_WORD_MAX);
    for (size_t i = start; i < end; i++)
        out->w[out->n][i - start] = (char)tolower((unsigned char)text[i]);
    out->w[out->n][end - start] = '\0';
    out->n++;
    return 0;
}

int sc_tokenize(const char *text, const char *name, struct sc_words *out,
                struct err *e)
{
    size_t len = strlen(text), i = 0;

    out->n = 0;
    if (len > SC_TEXT_MAX)
        return err_set(e, name, 0, 0, "text is longer than %d bytes", SC_TEXT_MAX);
    while (i < len) {
        size_t start = i;
        if ((unsigned char)text[i] >= 0x80)
            return err_set(e, name, 1, (int)i + 1, "non-ASCII character in the text: "
                           "write words in plain ASCII letters");
        while (i < len && word_byte((unsigned char)text[i]))
            i++;
        if (i > start && add_word(text, start, i, name, out, e) < 0)
            return -1;
        if (i == start)
            i++;
    }
    /* An empty text is a forgotten TEXT="...", not a text to count. */
    if (len == strspn(text, " \t\n\r"))
        return err_set(e, name, 0, 0, "no text given: write three or four sentences, "
                       "e.g. TEXT=\"The cat sat on the mat. It was warm.\"");
    if (out->n < 2)
        return err_set(e, name, 0, 0, "the text has %zu word%s: attention needs at least two",
                       out->n, out->n == 1 ? "" : "s");
    return 0;
}

/* FNV-1a: a stable hash, so that a word's vector is the same everywhere. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

void sc_word_vector(const char *word, float *v, size_t d)
{
    struct pu_rng r;

    pu_rng_seed(&r, fnv1a(word));
    for (size_t i = 0; i < d; i++)
        v[i] = (float)pu_rng_gauss(&r);
}

/* ---- VECTORS files ------------------------------------------------------------ */

struct sc_vectors {
    size_t n, d, cap;
    char (*words)[SC_WORD_MAX + 1];
    float *vals;          /* n x d */
};

void sc_vectors_free(struct sc_vectors *v)
{
    if (v == NULL)
        return;
    free(v->words);
    free(v->vals);
    free(v);
}

size_t sc_vectors_dim(const struct sc_vectors *v)
{
    return v->d;
}

size_t sc_vectors_count(const struct sc_vectors *v)
{
    return v->n;
}

const float *sc_vectors_find(const struct sc_vectors *v, const char *word)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->words[i], word) == 0)
            return v->vals + i * v->d;
    return NULL;
}

/* One line being parsed: its text (not NUL-terminated) and position. */
struct vline {
    const char *name, *s;
    size_t len, pos;
    int line;
};

static void skip_blank(struct vline *l)
{
    while (l->pos < l->len && (l->s[l->pos] == ' ' || l->s[l->pos] == '\t' ||
                               l->s[l->pos] == '\r'))
        l->pos++;
}

/* The next whitespace-separated token: its start and length (0 at end). */
static size_t next_token(struct vline *l, size_t *start)
{
    skip_blank(l);
    *start = l->pos;
    while (l->pos < l->len && !isspace((unsigned char)l->s[l->pos]))
        l->pos++;
    return l->pos - *start;
}

static int vfail_at(const struct vline *l, size_t col0, struct err *e,
                    const char *msg, size_t tlen)
{
    return err_set(e, l->name, l->line, (int)col0 + 1, "%s '%.*s'", msg,
                   (int)(tlen > 40 ? 40 : tlen), l->s + col0);
}

static int parse_number(const struct vline *l, size_t start, size_t tlen, float *out,
                        struct err *e)
{
    char buf[64];
    char *end;
    double x;

    if (tlen >= sizeof buf)
        return vfail_at(l, start, e, "not a number:", tlen);
    memcpy(buf, l->s + start, tlen);
    buf[tlen] = '\0';
    errno = 0;
    x = strtod(buf, &end);
    if (*end != '\0' || end == buf || !isfinite(x) || fabs(x) > 1e30)
        return vfail_at(l, start, e, "not a finite number:", tlen);
    *out = (float)x;
    return 0;
}

/* Make room for one more vector of dimension v->d (> 0). */
static int vec_grow(struct sc_vectors *v, struct err *e)
{
    if (ut_grow2((void **)&v->words, sizeof *v->words, (void **)&v->vals,
                 v->d * sizeof *v->vals, &v->cap, v->n + 1, 16) < 0)
        return err_set(e, NULL, 0, 0, "out of memory");
    return 0;
}

/* Read the numbers after the word into tmp; returns how many (or -1). */
static long read_numbers(struct vline *l, float *tmp, struct err *e)
{
    size_t count = 0, start, tlen;

    while ((tlen = next_token(l, &start)) > 0) {
        if (count == SC_VEC_MAX_D)
            return err_set(e, l->name, l->line, (int)start + 1,
                           "more than %d numbers on one line", SC_VEC_MAX_D);
        if (parse_number(l, start, tlen, &tmp[count], e) < 0)
            return -1;
        count++;
    }
    return (long)count;
}

static int check_word(const struct vline *l, size_t start, size_t tlen,
                      const struct sc_vectors *v, char *word, struct err *e)
{
    if (tlen > SC_WORD_MAX)
        return vfail_at(l, start, e, "word too long:", tlen);
    memcpy(word, l->s + start, tlen);
    word[tlen] = '\0';
    for (size_t i = 0; i < tlen; i++)
        word[i] = (char)tolower((unsigned char)word[i]);
    if (!sc_word_valid(word))
        return vfail_at(l, start, e, "not a word (letters, digits, apostrophes):", tlen);
    if (sc_vectors_find(v, word) != NULL)
        return vfail_at(l, start, e, "duplicate word", tlen);
    if (v->n == SC_VEC_MAX_WORDS)
        return vfail_at(l, start, e, "too many words (at most 1024) at", tlen);
    return 0;
}

/* One non-blank, non-comment line: `word v1 ... vd`. */
static int parse_vline(struct vline *l, struct sc_vectors *v, float *tmp,
                       struct err *e)
{
    char word[SC_WORD_MAX + 1];
    size_t start, tlen = next_token(l, &start);
    long count;

    if (check_word(l, start, tlen, v, word, e) < 0 ||
        (count = read_numbers(l, tmp, e)) < 0)
        return -1;
    if (v->d == 0 && count == 0)
        return err_set(e, l->name, l->line, (int)l->pos + 1,
                       "no numbers after '%s': expected 'word v1 v2 ... vd'", word);
    if (v->d == 0)
        v->d = (size_t)count;
    if ((size_t)count != v->d)
        return err_set(e, l->name, l->line, (int)l->pos + 1,
                       "'%s' has %ld number%s, expected %zu (as on the first vector line)",
                       word, count, count == 1 ? "" : "s", v->d);
    if (vec_grow(v, e) < 0)
        return -1;
    memcpy(v->words[v->n], word, sizeof word);
    memcpy(v->vals + v->n * v->d, tmp, v->d * sizeof *tmp);
    v->n++;
    return 0;
}

static int is_skipped(struct vline *l)
{
    skip_blank(l);
    return l->pos == l->len || l->s[l->pos] == '#';
}

static int parse_lines(const char *name, const char *buf, size_t len,
                       struct sc_vectors *v, float *tmp, struct err *e)
{
    struct vline l = {.name = name};
    size_t at = 0;

    while (at < len) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - buf) : len;
        l.s = buf + at;
        l.len = end - at;
        l.pos = 0;
        l.line++;
        if (memchr(l.s, '\0', l.len) != NULL)
            return err_set(e, name, l.line, 0, "NUL byte in a vectors file");
        if (!is_skipped(&l) && parse_vline(&l, v, tmp, e) < 0)
            return -1;
        at = end + 1;
    }
    if (v->n == 0)
        return err_set(e, name, 0, 0, "no vectors: expected lines 'word v1 v2 ... vd'");
    return 0;
}

struct sc_vectors *sc_vectors_parse(const char *name, const char *buf, size_t len,
                                    struct err *e)
{
    struct sc_vectors *v = calloc(1, sizeof *v);
    float *tmp = calloc(SC_VEC_MAX_D, sizeof *tmp);

    if (v == NULL || tmp == NULL) {
        err_set(e, NULL, 0, 0, "out of memory");
        goto fail;
    }
    if (parse_lines(name, buf, len, v, tmp, e) < 0)
        goto fail;
    free(tmp);
    return v;
fail:
    free(tmp);
    sc_vectors_free(v);
    return NULL;
}

struct sc_vectors *sc_vectors_load(const char *path, struct err *e)
{
    struct sb sb;
    struct sc_vectors *v = NULL;
    int r;

    sb_init(&sb, 0);
    r = sb_load_file(&sb, path, VEC_FILE_MAX, e);
    if (r == SB_READ_CUT)
        err_set(e, path, 0, 0, "file larger than %zu bytes", (size_t)VEC_FILE_MAX);
    else if (r == SB_READ_OK)
        v = sc_vectors_parse(path, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    return v;
}

int sc_embed(const struct sc_words *w, const struct sc_vectors *vs, float **X,
             size_t *d, struct err *e)
{
    size_t dim = vs ? vs->d : SC_D;
    float *x = pu_floats(w->n * dim);

    if (x == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < w->n; i++) {
        const float *src = vs ? sc_vectors_find(vs, w->w[i]) : NULL;
        if (vs != NULL && src == NULL) {
            free(x);
            return err_set(e, NULL, 0, 0, "word '%s' has no vector in the vectors file",
                           w->w[i]);
        }
        if (src != NULL)
            memcpy(x + i * dim, src, dim * sizeof *x);
        else
            sc_word_vector(w->w[i], x + i * dim, dim);
    }
    *X = x;
    *d = dim;
    return 0;
}

/* ---- calling the implementation -------------------------------------------- */

/* Turn a call's outcome into SC_OK, SC_ERR (grader error, e set by the
 * impl) or SC_ESTUDENT with e saying what `fn` did. */
static int call_outcome(int made, const struct impl_result *r, const char *fn,
                        struct err *e)
{
    if (made < 0)
        return SC_ERR;
    if (r->status != CALL_RETURNED) {
        err_set(e, NULL, 0, 0, "your %s %s%s%s", fn, impl_status_name(r->status),
                r->detail[0] ? ": " : "", r->detail);
        return SC_ESTUDENT;
    }
    if (r->rc == ATTN_ENOTIMPL) {
        err_set(e, NULL, 0, 0, "your %s is not implemented yet (returned ATTN_ENOTIMPL)", fn);
        return SC_ESTUDENT;
    }
    if (r->rc != 0) {
        err_set(e, NULL, 0, 0, "your %s returned %d for valid arguments", fn, r->rc);
        return SC_ESTUDENT;
    }
    return SC_OK;
}

/* The likely cause of a non-finite value from `fn`, in the module's words;
 * "likely" because the tools see only the output, not the arithmetic. Each
 * line fits 100 columns with the "grader: " prefix of the first. */
static const char *nonfinite_hint(const char *fn)
{
    static const struct { const char *fn, *hint; } hints[] = {
        {"attn_softmax_rows",
         "hint: attn_softmax_rows is the likely cause: exp() of a large score overflows float\n"
         "  (above about 88 it is inf, and inf / inf is NaN). Subtract each row's maximum before\n"
         "  exponentiating: softmax does not change. A row whose scores are all -inf gives 0 / 0."},
        {"attn_scaled_dot_product",
         "hint: the softmax inside attn_scaled_dot_product is the likely cause: QK^T / sqrt(d_k)\n"
         "  exponentiated without subtracting the row's maximum overflows exp() (inf / inf is NaN);\n"
         "  a row whose weights sum to 0 (every key masked) gives 0 / 0."},
        {"attn_positional_encoding",
         "hint: the angle p / 10000^(2i/d) is the likely cause: a division by zero or a pow()\n"
         "  that overflows (check the exponent's arithmetic and its types)."},
    };

    for (size_t i = 0; i < sizeof hints / sizeof *hints; i++)
        if (strcmp(hints[i].fn, fn) == 0)
            return hints[i].hint;
    return NULL;
}

static int nonfinite(const float *x, size_t n, const char *fn, const char *what,
                     struct err *e)
{
    size_t at = pu_first_nonfinite(x, n);
    const char *hint = nonfinite_hint(fn);

    if (at == n)
        return SC_OK;
    err_set(e, NULL, 0, 0, "your %s gave a non-finite value (%g) at index %zu of %s%s%s",
            fn, (double)x[at], at, what, hint ? "\n" : "", hint ? hint : "");
    return SC_ESTUDENT;
}

/* X += PE(n, d) from the implementation. */
static int add_pe(const struct impl *im, float *x, size_t n, size_t d,
                  struct err *e)
{
    struct impl_result r;
    float *pe = pu_floats(n * d);
    int rc;

    if (pe == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = call_outcome(im->ops->positional_encoding(im->self, pe, n, d, &r, e), &r,
                      "attn_positional_encoding", e);
    if (rc == SC_OK)
        rc = nonfinite(pe, n * d, "attn_positional_encoding", "the encoding", e);
    for (size_t i = 0; rc == SC_OK && i < n * d; i++)
        x[i] += pe[i];
    free(pe);
    return rc;
}

static int run_sdpa(const struct impl *im, struct sc_map *m, struct err *e)
{
    struct impl_result r;
    const char *fn = "attn_scaled_dot_product";
    int rc;

    rc = call_outcome(im->ops->scaled_dot_product(im->self, m->x, m->x, m->x, m->n, m->n,
                                                  m->d, m->d, NULL, m->out, m->w, &r, e),
                      &r, fn, e);
    if (rc == SC_OK)
        rc = nonfinite(m->w, m->n * m->n, fn, "the weights", e);
    if (rc == SC_OK)
        rc = nonfinite(m->out, m->n * m->d, fn, "the output", e);
    return rc;
}

void sc_map_release(struct sc_map *m)
{
    free(m->x);
    free(m->w);
    free(m->out);
    memset(m, 0, sizeof *m);
}

int sc_map_build(const struct impl *im, const struct sc_words *words,
                 const struct sc_vectors *vs, int pe, struct sc_map *m,
                 struct err *e)
{
    int rc;

    memset(m, 0, sizeof *m);
    m->words = *words;
    m->n = words->n;
    m->pe = pe;
    if (sc_embed(words, vs, &m->x, &m->d, e) < 0)
        return SC_ERR;
    m->w = pu_floats(m->n * m->n);
    m->out = pu_floats(m->n * m->d);
    if (m->w == NULL || m->out == NULL)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    else if ((rc = pe ? add_pe(im, m->x, m->n, m->d, e) : SC_OK) == SC_OK)
        rc = run_sdpa(im, m, e);
    if (rc != SC_OK)
        sc_map_release(m);
    return rc;
}

/* Whether pair a ranks before pair b: larger weight, then smaller (q, k). */
static int ranks_before(const struct sc_pair *a, const struct sc_pair *b)
{
    if (a->weight != b->weight)
        return a->weight > b->weight;
    return a->q != b->q ? a->q < b->q : a->k < b->k;
}

/* Insert p into the sorted out[0..*len) of capacity k. */
static void insert_pair(struct sc_pair *out, size_t *len, size_t k, struct sc_pair p)
{
    size_t i = *len < k ? (*len)++ : k;

    if (i == k && (k == 0 || !ranks_before(&p, &out[k - 1])))
        return;
    if (i == k)
        i = k - 1;
    while (i > 0 && ranks_before(&p, &out[i - 1])) {
        out[i] = out[i - 1];
        i--;
    }
    out[i] = p;
}

/* Whether (q, k) is the best-ranked occurrence of its word pair; id[i] is
 * the first position holding word i, so equal words have equal ids. */
static int best_occurrence(const struct sc_map *m, const size_t *id, size_t q, size_t k)
{
    struct sc_pair p = {q, k, m->w[q * m->n + k]};

    for (size_t a = 0; a < m->n; a++)
        for (size_t b = 0; b < m->n; b++)
            if (a != b && id[a] == id[q] && id[b] == id[k] && (a != q || b != k)) {
                struct sc_pair o = {a, b, m->w[a * m->n + b]};
                if (ranks_before(&o, &p))
                    return 0;
            }
    return 1;
}

size_t sc_top_pairs(const struct sc_map *m, struct sc_pair *out, size_t k)
{
    size_t id[SC_MAX_WORDS], len = 0;

    for (size_t i = 0; i < m->n; i++) {
        id[i] = i;
        for (size_t j = 0; j < i && id[i] == i; j++)
            if (strcmp(m->words.w[i], m->words.w[j]) == 0)
                id[i] = j;
    }
    for (size_t q = 0; q < m->n; q++)
        for (size_t j = 0; j < m->n; j++)
            if (q != j && best_occurrence(m, id, q, j)) {
                struct sc_pair p = {q, j, m->w[q * m->n + j]};
                insert_pair(out, &len, k, p);
            }
    return len;
}

/* ---- saturation ---------------------------------------------------------------- */

/* Fill logits (SC_SAT_TRIALS x SC_SAT_KEYS) with q.k for random q, K of
 * dimension d, unscaled; computed in double. */
static void sat_logits(struct pu_rng *rng, size_t d, double *logits)
{
    double q[SC_VEC_MAX_D], k;

    for (size_t t = 0; t < SC_SAT_TRIALS; t++) {
        for (size_t i = 0; i < d; i++)
            q[i] = pu_rng_gauss(rng);
        for (size_t j = 0; j < SC_SAT_KEYS; j++) {
            double dot = 0;
            for (size_t i = 0; i < d; i++) {
                k = pu_rng_gauss(rng);
                dot += q[i] * k;
            }
            logits[t * SC_SAT_KEYS + j] = dot;
        }
    }
}

/* The student's softmax over logits * scale; the mean of the row maxima. */
static int sat_mean_max(const struct impl *im, const double *logits, double scale,
                        float *x, double *mean, struct err *e)
{
    const size_t n = SC_SAT_TRIALS * SC_SAT_KEYS;
    struct impl_result r;
    double sum = 0;
    int rc;

    for (size_t i = 0; i < n; i++)
        x[i] = (float)(logits[i] * scale);
    rc = call_outcome(im->ops->softmax_rows(im->self, x, SC_SAT_TRIALS, SC_SAT_KEYS, &r, e),
                      &r, "attn_softmax_rows", e);
    if (rc == SC_OK)
        rc = nonfinite(x, n, "attn_softmax_rows", "the weights", e);
    for (size_t t = 0; rc == SC_OK && t < SC_SAT_TRIALS; t++) {
        float mx = x[t * SC_SAT_KEYS];
        for (size_t j = 1; j < SC_SAT_KEYS; j++)
            mx = fmaxf(mx, x[t * SC_SAT_KEYS + j]);
        sum += mx;
    }
    *mean = sum / SC_SAT_TRIALS;
    return rc;
}

int sc_saturation(const struct impl *im, uint64_t seed, struct sc_sat_row *rows,
                  struct err *e)
{
    const size_t n = SC_SAT_TRIALS * SC_SAT_KEYS;
    double *logits = calloc(n, sizeof *logits);
    float *x = pu_floats(n);
    struct pu_rng rng;
    int rc = SC_OK;

    if (logits == NULL || x == NULL)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    pu_rng_seed(&rng, seed);
    for (size_t i = 0; rc == SC_OK && i < SC_SAT_ROWS; i++) {
        size_t d = (size_t)2 << i;
        rows[i].d = d;
        sat_logits(&rng, d, logits);
        rc = sat_mean_max(im, logits, 1.0 / sqrt((double)d), x, &rows[i].scaled, e);
        if (rc == SC_OK)
            rc = sat_mean_max(im, logits, 1.0, x, &rows[i].unscaled, e);
    }
    free(logits);
    free(x);
    return rc;
}

/* ---- permutations ---------------------------------------------------------------- */

/* Record value v (1-based, from column col) as the next entry of order. */
static int order_add(double v, size_t idx, size_t n, size_t *order, unsigned char *seen,
                     int col, struct err *e)
{
    if (idx >= n)
        return err_set(e, NULL, 1, col, "the order has more than %zu numbers "
                       "(the text has %zu words)", n, n);
    if (!(v >= 1 && v <= (double)n) || v != floor(v))
        return err_set(e, NULL, 1, col, "'%g' is not a position 1..%zu", v, n);
    if (seen[(size_t)v - 1])
        return err_set(e, NULL, 1, col, "position '%g' appears twice: the order must "
                       "use each of 1..%zu once", v, n);
    seen[(size_t)v - 1] = 1;
    order[idx] = (size_t)v - 1;
    return 0;
}

static int order_complete(size_t got, size_t n, struct err *e)
{
    if (got != n)
        return err_set(e, NULL, 0, 0, "the order has %zu number%s but the text has %zu "
                       "words: give a permutation of 1..%zu", got, got == 1 ? "" : "s", n, n);
    return 0;
}

int sc_check_order(const double *v, size_t len, size_t n, size_t *order,
                   struct err *e)
{
    unsigned char seen[SC_MAX_WORDS] = {0};

    if (n > SC_MAX_WORDS)
        return err_set(e, NULL, 0, 0, "too many words");
    for (size_t i = 0; i < len; i++)
        if (order_add(v[i], i, n, order, seen, 0, e) < 0)
            return -1;
    return order_complete(len, n, e);
}

int sc_parse_order(const char *s, size_t n, size_t *order, struct err *e)
{
    unsigned char seen[SC_MAX_WORDS] = {0};
    size_t idx = 0, i = 0;

    if (n > SC_MAX_WORDS)
        return err_set(e, NULL, 0, 0, "too many words");
    while (s[i] != '\0') {
        size_t start = i;
        char *end;
        long v;
        if (s[i] == ' ' || s[i] == ',' || s[i] == '\t') {
            i++;
            continue;
        }
        errno = 0;
        v = strtol(s + i, &end, 10);
        if (end == s + i || errno != 0 || (*end && strchr(" ,\t", *end) == NULL))
            return err_set(e, NULL, 1, (int)start + 1, "'%.*s' is not a number",
                           (int)strcspn(s + start, " ,\t"), s + start);
        i = (size_t)(end - s);
        if (order_add((double)v, idx++, n, order, seen, (int)start + 1, e) < 0)
            return -1;
    }
    return order_complete(idx, n, e);
}

void sc_perm_release(struct sc_perm *p)
{
    sc_map_release(&p->orig);
    sc_map_release(&p->perm);
}

static void perm_compare(struct sc_perm *p)
{
    size_t n = p->orig.n, d = p->orig.d;

    p->max_abs_diff = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t c = 0; c < d; c++) {
            double diff = fabs((double)p->perm.out[r * d + c] -
                               (double)p->orig.out[p->order[r] * d + c]);
            if (diff > p->max_abs_diff) {
                p->max_abs_diff = diff;
                p->at_row = r;
                p->at_col = c;
            }
        }
    p->same_set = p->max_abs_diff <= SC_PERM_SAME_TOL;
}

int sc_permute(const struct impl *im, const struct sc_words *words,
               const struct sc_vectors *vs, const size_t *order, int pe,
               struct sc_perm *p, struct err *e)
{
    struct sc_words pw = {.n = words->n};
    int rc;

    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < words->n; i++) {
        p->order[i] = order[i];
        memcpy(pw.w[i], words->w[order[i]], sizeof pw.w[i]);
    }
    if ((rc = sc_map_build(im, words, vs, pe, &p->orig, e)) != SC_OK)
        return rc;
    if ((rc = sc_map_build(im, &pw, vs, pe, &p->perm, e)) != SC_OK) {
        sc_map_release(&p->orig);
        return rc;
    }
    perm_compare(p);
    return SC_OK;
}
