/*
 * spec_internal.h -- what spec.c (the set and its accessors) and
 * spec_load.c (the loader) share: the set's layout and its growable
 * vectors. Internal to the spec module.
 */
#ifndef GRD_SPEC_INTERNAL_H
#define GRD_SPEC_INTERNAL_H

#include <stddef.h>

#include "core/sha256.h"
#include "spec/spec.h"
#include "spec/spec_yaml.h"

/* A growable array of pointers. */
struct pvec {
    void **v;
    size_t n, cap;
};

/* Make room for `extra` more items without changing the contents; 0 or -1
 * (out of memory or overflow), the vector unchanged on failure. */
int spec_pvec_reserve(struct pvec *p, size_t extra);

/* Append x; 0 or -1 (out of memory), the vector unchanged on failure. */
int spec_pvec_push(struct pvec *p, void *x);

/* Open addressing, at most half full, keyed by test id. */
struct idtab {
    const struct spec_test **slot;
    size_t cap, n;
};

/* The test with this id, or NULL. */
const struct spec_test *spec_idtab_get(const struct idtab *t, const char *id);

/* Add x; only after spec_idtab_reserve() made room, so it cannot fail. */
void spec_idtab_put(struct idtab *t, const struct spec_test *x);

/* Room for `total` entries; 0 or -1 (out of memory), the table unchanged
 * on failure. */
int spec_idtab_reserve(struct idtab *t, size_t total);

struct spec_set {
    struct sy_arena arena;      /* every test, case, rule and string */
    struct pvec tests;       /* struct spec_test *, in load order */
    struct pvec rules;       /* struct spec_rule *, in load order */
    struct idtab ids;
    struct sha256_ctx sha;   /* over the bytes of every loaded file */
    char hex[SHA256_HEX_LEN];
};

#endif
