/*
 * golden.h -- golden data: the expected values of the public tests, kept
 * as data so that the student build carries no trusted implementation
 * (no answer key). Prefix gold_.
 *
 * A store maps a 16-byte key (a hash of one trusted computation's kind,
 * sizes and inputs, see oracle.h) to a vector of doubles (its outputs), and
 * lists the catalogue's known wrong variants (name, function, the bug in
 * words, the public tests it fails) whose outputs the diagnosis compares a
 * student's outputs with (diag.h).
 *
 * `grader golden` (staff build, run by `make template`) fills a store while
 * it grades the reference and the catalogue, and saves it next to the spec
 * it was made from (specs/public.golden). The student build loads it and
 * answers every trusted computation from it. The file format is documented
 * in specs/README.md ("Golden data"); the file names the SHA-256 of the
 * spec and the seed it was made with, and ends with the SHA-256 of its own
 * text, so that stale or damaged data is refused instead of used.
 */
#ifndef GRD_GOLDEN_H
#define GRD_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/sha256.h"

#define GOLD_KEY_LEN 16
#define GOLD_MAX_FILE ((size_t)512 << 20) /* refuse larger files */
#define GOLD_MAX_NAME 128                 /* variant names, function names */

struct gold;

/* A known wrong variant of one function, from the catalogue. */
struct gold_variant {
    char name[GOLD_MAX_NAME];     /* e.g. "sdpa_no_scale" */
    char function[GOLD_MAX_NAME]; /* e.g. "sdpa" */
    char names[GOLD_MAX_NAME];    /* the test whose message names this
                                     mistake best (the header's "names:"),
                                     or "-" when the catalogue gives none */
    char *bug;                    /* the mistake in words (owned) */
    char **fails;                 /* ids of the public tests it fails (owned) */
    size_t n_fails;
};

/* A new empty store, or NULL when out of memory. */
struct gold *gold_new(void);

/* Free the store and everything in it. NULL is a no-op. */
void gold_free(struct gold *g);

/*
 * Keep a copy of v[0..n) under key. A key already present keeps its first
 * value (the same inputs give the same outputs). Returns 0, or -1 when out
 * of memory (e set; the store is unchanged).
 */
int gold_put(struct gold *g, const unsigned char key[GOLD_KEY_LEN], const double *v,
             size_t n, struct err *e) __attribute__((warn_unused_result));

/* The vector under key and its length in *n, or NULL when absent. Owned by
 * the store. g may be NULL (always absent). */
const double *gold_get(const struct gold *g, const unsigned char key[GOLD_KEY_LEN],
                       size_t *n);

/*
 * Add everything of src to g: its vectors (keys g has keep g's) and its
 * variants (names g has are refused). Returns 0, or -1 with e set (g then
 * holds part of src).
 */
int gold_merge(struct gold *g, const struct gold *src, struct err *e)
    __attribute__((warn_unused_result));

/* Number of vectors in the store. */
size_t gold_count(const struct gold *g);

/*
 * Add a variant (copied; fails[0..n_fails) are test ids). A variant of the
 * same name replaces nothing: it is refused. Returns 0, or -1 (e set).
 */
int gold_add_variant(struct gold *g, const char *name, const char *function,
                     const char *names, const char *bug, const char *const *fails,
                     size_t n_fails, struct err *e) __attribute__((warn_unused_result));

/* The number of variants and the i-th (NULL when out of range). */
size_t gold_variant_count(const struct gold *g);
const struct gold_variant *gold_variant_at(const struct gold *g, size_t i);

/* What the store was made from: the SHA-256 (hex) of the spec file and the
 * seed. gold_set_origin copies spec_sha256 (64 hex digits). */
void gold_set_origin(struct gold *g, const char *spec_sha256, uint64_t seed);
const char *gold_spec_sha256(const struct gold *g);
uint64_t gold_seed(const struct gold *g);

/*
 * Write the store to `path` atomically (a temporary file in the same
 * directory, renamed over it), variants by name and vectors by key, so that
 * the same contents always give the same bytes, however they were added. Returns 0, or -1 with e set (nothing written).
 */
int gold_save(const struct gold *g, const char *path, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Load a store saved by gold_save. Refuses, with e set to file:line and
 * NULL returned, a file that is larger than GOLD_MAX_FILE, malformed, or
 * whose closing hash does not match its text.
 */
struct gold *gold_load(const char *path, struct err *e);

/*
 * The golden file that belongs to the spec at `spec_path`: the same name
 * with ".yaml" (or ".yml") replaced by ".golden", into buf (size n).
 * Returns 0, or -1 when it does not fit or the spec is not a .yaml file.
 */
int gold_path_for(const char *spec_path, char *buf, size_t n);

#endif
