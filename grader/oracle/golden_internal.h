/*
 * golden_internal.h -- the store's layout, shared by golden.c (the store)
 * and golden_io.c (its file). Internal to those two files.
 */
#ifndef GRD_GOLDEN_INTERNAL_H
#define GRD_GOLDEN_INTERNAL_H

#include "oracle/golden.h"

struct gold_entry {
    unsigned char key[GOLD_KEY_LEN];
    size_t n;
    double *v;               /* NULL marks an empty slot */
};

struct gold {
    struct gold_entry *slots; /* open addressing, linear probing */
    size_t cap, count;       /* cap is a power of two (or 0) */
    struct gold_variant *vars;
    size_t n_vars, vars_cap;
    char spec_sha256[SHA256_HEX_LEN];
    uint64_t seed;
};

#endif
