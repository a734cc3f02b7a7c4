/*
 * selfcheck.h -- the hands-on part of the assignment, computed with a
 * student's own functions: the one-layer, one-head self-attention map of a
 * short text, the softmax saturation measurement, and the permutation
 * check. The CLI (cmd_selfcheck.c) prints what these compute; the written
 * part's checks (prop_written.c) recompute a student's claims with them.
 *
 * Every computation calls the implementation under test through a
 * `struct impl` (the sandbox, or impl_local() in our tests). A call that
 * did not return ATTN_OK is not a grader error: the function returns
 * SC_ESTUDENT with `e` saying what the student's function did.
 *
 * Words are lower-cased ASCII tokens: runs of letters, digits and
 * apostrophes; every other ASCII byte separates words, and a non-ASCII
 * byte is refused (so that what a student types in answers.yaml is the
 * word the tool printed). Each word's vector is, by default, a
 * deterministic hash-seeded vector with unit-variance components
 * (d = SC_D): it is arbitrary, so the map proves nothing about language.
 */
#ifndef GRD_SELFCHECK_H
#define GRD_SELFCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "sandbox/impl.h"

#define SC_D 16              /* dimension of the hash-seeded vectors */
#define SC_MAX_WORDS 64      /* a text of three or four sentences fits */
#define SC_WORD_MAX 31       /* longest word, in bytes */
#define SC_TEXT_MAX 4096     /* longest text, in bytes */
#define SC_VEC_MAX_D 1024    /* widest vector in a VECTORS file */
#define SC_VEC_MAX_WORDS 1024
#define SC_TOP 3             /* the assignment's "three word pairs" */
#define SC_SAT_ROWS 10       /* d = 2, 4, ..., 1024 */
#define SC_SAT_KEYS 16       /* keys per query in the saturation run */
#define SC_SAT_TRIALS 256    /* queries per d */
#define SC_SAT_SEED 20170612u /* fixed, recorded in the output */
#define SC_PERM_SAME_TOL 1e-5 /* "same set, just permuted" threshold */

enum { SC_OK = 0, SC_ERR = -1, SC_ESTUDENT = -2 };

/* The words of a text, in order. A plain value. */
struct sc_words {
    size_t n;
    char w[SC_MAX_WORDS][SC_WORD_MAX + 1];
};

/*
 * Split `text` into lower-cased words. Returns 0 (with at least two words),
 * or -1 with `e` set (`name` and col 1-based in messages): empty text, a
 * non-ASCII byte, a word longer than SC_WORD_MAX, more than SC_MAX_WORDS
 * words, text longer than SC_TEXT_MAX. `out` is unspecified on failure.
 */
int sc_tokenize(const char *text, const char *name, struct sc_words *out,
                struct err *e) __attribute__((warn_unused_result));

/* Whether `w` is a word token: non-empty, [a-z0-9'] only, short enough. */
int sc_word_valid(const char *w);

/* The hash-seeded vector of `word` into v[0..d-1]: N(0, 1) components
 * drawn from a generator seeded by the word's FNV-1a hash. */
void sc_word_vector(const char *word, float *v, size_t d);

/* A VECTORS file: `word v1 ... vd` per line (opaque). */
struct sc_vectors;

/*
 * Parse a VECTORS buffer (`name` in messages). Blank lines and lines
 * starting with '#' are skipped; every other line is a word token followed
 * by exactly d numbers, d fixed by the first such line (at most
 * SC_VEC_MAX_D). Returns a new table (free with sc_vectors_free), or NULL
 * with `e` set to name:line:col and what is wrong (a bad word, a value that
 * is not a finite number, the wrong count, a duplicate word, no vectors).
 */
struct sc_vectors *sc_vectors_parse(const char *name, const char *buf, size_t len,
                                    struct err *e);

/* sc_vectors_parse on a file's contents (at most 4 MiB). NULL with e set
 * (including "cannot open"). */
struct sc_vectors *sc_vectors_load(const char *path, struct err *e);

void sc_vectors_free(struct sc_vectors *v);
size_t sc_vectors_dim(const struct sc_vectors *v);
size_t sc_vectors_count(const struct sc_vectors *v);
/* The vector of `word` (d floats, owned by v), or NULL when absent. */
const float *sc_vectors_find(const struct sc_vectors *v, const char *word);

/*
 * The input matrix X (n x d) of `w`: vectors from `vs`, or the hash-seeded
 * ones when vs is NULL (d = SC_D). Returns 0 with *X owned by the caller
 * (free()) and *d set, or -1 with `e` set (a word without a vector names
 * the word and the file; out of memory).
 */
int sc_embed(const struct sc_words *w, const struct sc_vectors *vs, float **X,
             size_t *d, struct err *e) __attribute__((warn_unused_result));

/* One-layer, one-head self-attention of a text: Q = K = V = X (+ PE). */
struct sc_map {
    struct sc_words words;
    size_t n, d;
    int pe;          /* 1 when the positional encoding was added */
    float *x;        /* n x d, the input (owned) */
    float *w;        /* n x n, rows = queries, columns = keys (owned) */
    float *out;      /* n x d (owned) */
};

/*
 * Build the map of `words` with `im`: X from sc_embed, plus
 * attn_positional_encoding(n, d) when pe, then attn_scaled_dot_product
 * with Q = K = V = X and no mask. Returns 0, SC_ERR (grader error) or
 * SC_ESTUDENT (a call did not return ATTN_OK, or its weights are not
 * finite; `e` names the function and what it did). On failure m holds
 * nothing to release.
 */
int sc_map_build(const struct impl *im, const struct sc_words *words,
                 const struct sc_vectors *vs, int pe, struct sc_map *m,
                 struct err *e) __attribute__((warn_unused_result));

/* Free m's buffers and zero it. Safe on a zeroed m. */
void sc_map_release(struct sc_map *m);

/* A (query -> key) pair of positions and its weight. */
struct sc_pair {
    size_t q, k;
    float weight;
};

/*
 * The `k` largest weights of m over word pairs (query word -> key word) at
 * two different positions (q != k): a word always resembles itself most
 * when Q = K, so the diagonal is left out as the trivial artefact. A word
 * pair that occurs at several pairs of positions (a repeated word) counts
 * once, with its largest weight. Ties go to the smaller (q, k). Returns
 * how many were written (at most k).
 */
size_t sc_top_pairs(const struct sc_map *m, struct sc_pair *out, size_t k);

/* One row of the saturation table. */
struct sc_sat_row {
    size_t d;
    double scaled;    /* mean max softmax weight with the 1/sqrt(d) */
    double unscaled;  /* ... and without it */
};

/*
 * The notebook's saturation measurement with `im`'s attn_softmax_rows: for
 * d = 2, 4, ..., 1024, SC_SAT_TRIALS random queries against SC_SAT_KEYS
 * random keys (unit-variance components, seed `seed`); logits computed in
 * double, the softmax by the student. rows gets SC_SAT_ROWS entries.
 * Returns 0, SC_ERR or SC_ESTUDENT (as sc_map_build).
 */
int sc_saturation(const struct impl *im, uint64_t seed, struct sc_sat_row *rows,
                  struct err *e) __attribute__((warn_unused_result));

/*
 * Parse ORDER: a permutation of 1..n written as numbers separated by
 * spaces or commas. Stores it 0-based in order[0..n-1]. Returns 0, or -1
 * with `e` set (col of the offending number): not a number, out of 1..n,
 * repeated, too few or too many.
 */
int sc_parse_order(const char *s, size_t n, size_t *order, struct err *e)
    __attribute__((warn_unused_result));

/* Same for an already-parsed list of 1-based numbers (e.g. from YAML). */
int sc_check_order(const double *v, size_t len, size_t n, size_t *order,
                   struct err *e) __attribute__((warn_unused_result));

/* The permutation comparison. */
struct sc_perm {
    struct sc_map orig;   /* the text in its order */
    struct sc_map perm;   /* position p holds the word orig.words[order[p]] */
    size_t order[SC_MAX_WORDS];
    double max_abs_diff;  /* max |perm.out[p] - orig.out[order[p]]| */
    size_t at_row, at_col;/* where it is reached (row of perm.out) */
    int same_set;         /* max_abs_diff <= SC_PERM_SAME_TOL */
};

/*
 * Compute the outputs of `words` in their order and in `order` (0-based, a
 * permutation of 0..n-1), both with or both without PE, and compare them
 * after un-permuting. Returns 0, SC_ERR or SC_ESTUDENT; on failure p holds
 * nothing to release.
 */
int sc_permute(const struct impl *im, const struct sc_words *words,
               const struct sc_vectors *vs, const size_t *order, int pe,
               struct sc_perm *p, struct err *e) __attribute__((warn_unused_result));

void sc_perm_release(struct sc_perm *p);

#endif
