/*
 * spec_internal.h -- what spec.c (the set and its accessors), spec_load.c
 * (the loader) and spec_cases.c (a test's cases) share: the set's layout,
 * its growable vectors and the loader's context. Internal to the spec
 * module.
 */
#ifndef GRD_SPEC_INTERNAL_H
#define GRD_SPEC_INTERNAL_H

#include <stddef.h>

#include "core/sha256.h"
#include "spec/spec.h"
#include "spec/spec_yaml.h"

/* A growable array of pointers. */
struct spec_pvec {
    void **v;
    size_t n, cap;
};

/* Make room for `extra` more items without changing the contents; 0 or -1
 * (out of memory or overflow), the vector unchanged on failure. */
int spec_pvec_reserve(struct spec_pvec *p, size_t extra);

/* Append x; 0 or -1 (out of memory), the vector unchanged on failure. */
int spec_pvec_push(struct spec_pvec *p, void *x);

/* Open addressing, at most half full, keyed by test id. */
struct spec_idtab {
    const struct spec_test **slot;
    size_t cap, n;
};

/* The test with this id, or NULL. */
const struct spec_test *spec_idtab_get(const struct spec_idtab *t, const char *id);

/* Add x; only after spec_idtab_reserve() made room, so it cannot fail. */
void spec_idtab_put(struct spec_idtab *t, const struct spec_test *x);

/* Room for `total` entries; 0 or -1 (out of memory), the table unchanged
 * on failure. */
int spec_idtab_reserve(struct spec_idtab *t, size_t total);

struct spec_set {
    struct sy_arena arena;      /* every test, case, rule and string */
    struct spec_pvec tests;       /* struct spec_test *, in load order */
    struct spec_pvec rules;       /* struct spec_rule *, in load order */
    struct spec_idtab ids;
    struct sha256_ctx sha;   /* over the bytes of every loaded file */
    char hex[SHA256_HEX_LEN];
    char (*upto)[SHA256_HEX_LEN]; /* upto[k]: over the first k + 1 files */
    size_t n_files;
};


/* ---- the loader's context (spec_load.c, spec_cases.c) ----------------- */

#define SPEC_SHOW 60 /* at most this many bytes of a value in messages */

/* A test being built: the test itself, and where its parts were written. */
struct spec_tbuild {
    struct spec_test *t;
    const struct sy_node *id_node, *deps;
};

struct spec_ld {
    struct spec_set *set;
    const char *name;        /* for messages, as given */
    const char *file;        /* the same, owned by the batch */
    const char *buf;
    size_t len;
    spec_check_fn check;
    struct err *e;
    struct sy_arena tmp;        /* the tree and tbuilds: freed after the load */
    struct sy_arena keep;       /* the batch: joins the set on success */
    struct spec_pvec tests, rules, pending; /* pending: tbuilds with depends_on */
    struct spec_idtab ids;        /* the ids of this file's tests */
};

/* Set l->e at `at` (NULL: no position) from a printf format; returns -1. */
int spec_ld_fail(struct spec_ld *l, const struct sy_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "out of memory" in l->e; returns -1. */
int spec_ld_oom(struct spec_ld *l);

/* The length to show of a scalar in a message, with "%.*s". */
static inline int spec_ld_show(const struct sy_node *n)
{
    return (int)(n->len > SPEC_SHOW ? SPEC_SHOW : n->len);
}

/* sy_number() with the loader's file name and error: 1 a number, 0 not,
 * -1 refused (l->e set). */
static inline int spec_ld_number(struct spec_ld *l, const struct sy_node *n, double *out)
{
    return sy_number(l->name, n, out, l->e);
}

/* One case of a test's `cases` list into *c, its numbers checked (finite;
 * sizes and seeds whole and bounded). 0, or -1 with l->e set. */
int spec_parse_case(struct spec_ld *l, struct spec_case *c, const struct sy_node *map);

#endif
