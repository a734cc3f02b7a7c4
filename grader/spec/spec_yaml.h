/*
 * spec_yaml.h -- the YAML layer under the spec loader (spec_load.c): an
 * arena, and a small tree built from libyaml's events.
 *
 * Internal to the spec module (spec_load.c, spec_cases.c and spec_internal.h include
 * it). The tree keeps what validation needs and no more: scalars (with
 * whether they were quoted), lists and maps, each with its 1-based line and column. Anchors,
 * aliases, tags and second documents are refused while building, so every
 * node appears exactly once and means what it says.
 */
#ifndef GRD_SPEC_YAML_H
#define GRD_SPEC_YAML_H

#include <stddef.h>

#include "core/err.h"

/* ---- arena: many small allocations, freed at once ---- */

struct sy_block;

/* Zero-initialise ({0}) before use; release with sy_arena_free(). */
struct sy_arena {
    struct sy_block *head;
};

/* n zeroed bytes aligned for any type, owned by the arena; NULL when out
 * of memory (the arena is then unchanged). */
void *sy_alloc(struct sy_arena *a, size_t n);

/* An array of n zeroed elements of `size` bytes, with the product
 * checked; NULL on overflow or out of memory. */
void *sy_array(struct sy_arena *a, size_t n, size_t size);

/* A NUL-terminated copy of s[0..n) owned by the arena, or NULL. */
char *sy_strndup(struct sy_arena *a, const char *s, size_t n);

/* Free every block; the arena is empty and reusable afterwards. */
void sy_arena_free(struct sy_arena *a);

/* Move every block of src into dst (src left empty). Cannot fail, so a
 * loader can build in src and hand over only when all went well. */
void sy_arena_splice(struct sy_arena *dst, struct sy_arena *src);

/* ---- the tree ---- */

enum sy_kind { SY_SCALAR, SY_SEQ, SY_MAP };

/* A node. Maps hold keys and values alternately as children, so a map of
 * k pairs has n == 2k; a key without a value gets an empty plain scalar. */
struct sy_node {
    enum sy_kind kind;
    int line, col;           /* 1-based, where the node starts */
    const char *str;         /* scalars: NUL-terminated, no inner NUL */
    size_t len;
    int plain;               /* unquoted scalar: may be a number */
    size_t n;                /* number of children */
    struct sy_node *first, *last, *next, *parent;
};

/*
 * Parse buf[0..len) (one YAML document at most) into a tree allocated in
 * `a`. *root is NULL for a stream with no document. `name` is the file
 * name for messages. Returns 0, or -1 with `e` set ("invalid yaml: ...",
 * "aliases are not supported", ...) at the offending line and column;
 * what was allocated stays in `a` until the caller frees it.
 */
int sy_parse(const char *name, const char *buf, size_t len, struct sy_arena *a,
             struct sy_node **root, struct err *e);

/* "a scalar", "a list", "a map" or "an empty value", for messages. */
const char *sy_kind_name(const struct sy_node *n);

/*
 * Whether a node is a number: 1 (stored in *out), 0 (not a number: a
 * quoted or non-numeric scalar, a list or a map), or -1 with `e` set at the
 * node. Numbers are plain scalars in decimal notation, or YAML's .inf,
 * -.inf and .nan; strtod's "inf", "nan" and hex forms are refused as
 * ambiguous, and a decimal that overflows to infinity as out of range.
 */
int sy_number(const char *name, const struct sy_node *n, double *out,
              struct err *e);

/* The closest of names[0..n) to the scalar k when close enough to be a
 * likely typo (at most 2 edits, fewer than half the letters), or NULL. */
const char *sy_suggest(const struct sy_node *k, const char *const *names, size_t n);

#endif
