/* similar_internal.h -- what the similarity files share; not an API. */
#ifndef GRD_SIMILAR_INTERNAL_H
#define GRD_SIMILAR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "similar/similar.h"

/* One file as tokens: kinds and the line each starts on. */
struct sim_toks {
    uint16_t *kind;
    unsigned *line;
    size_t n, cap;
};

/*
 * Tokens of src[0..len) read as the compiler reads it (src_blank), at
 * most SIM_MAX_TOKENS. Returns 0, or -1 when out of memory (t released).
 */
int sim_tokenize(const char *src, size_t len, struct sim_toks *t);

void sim_toks_release(struct sim_toks *t);

/*
 * Make room for `need` items of `size` bytes in *v (capacity *cap,
 * doubled from 64 as needed). Returns 0, or -1 when out of memory or
 * `need` is over `most` (*v and *cap unchanged).
 */
int sim_grow(void **v, size_t *cap, size_t need, size_t size, size_t most);

/*
 * The hash of each k-gram of t into h[0 .. t->n - k + 1) (nothing when
 * t->n < k). Returns the number written.
 */
size_t sim_kgrams(const struct sim_toks *t, size_t k, uint64_t *h);

#endif
