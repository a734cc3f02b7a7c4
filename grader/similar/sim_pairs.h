/* sim_pairs.h -- from shared fingerprints to the pairs of a report
 * (internal to similar/). */
#ifndef GRD_SIM_PAIRS_H
#define GRD_SIM_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "similar/similar_internal.h"

/* One file of the class, as sim_compare prepares it. */
struct sim_file {
    char *id;
    int archive;
    struct sim_toks t;
    unsigned char *base;  /* t.n flags: the token is base code */
    size_t live;          /* tokens that are not base */
};

/* One fingerprint: a k-gram's hash at a token position of a file. */
struct sim_fp {
    uint64_t hash;
    uint32_t file, pos;
};

struct sim_fps {
    struct sim_fp *v;
    size_t n, cap;
};

/* Append a fingerprint. Returns 0 or -1 (out of memory). */
int sim_fps_push(struct sim_fps *f, uint64_t hash, size_t file, size_t pos);

/*
 * The pairs of files[0..n) that share fingerprints of fps (sorted here),
 * tiled and scored, into r->pairs (those at o->threshold or above, best
 * first). Returns 0 or -1 (out of memory; r->pairs may hold a part, which
 * sim_report_release frees).
 */
int sim_pairs(const struct sim_file *files, size_t n, struct sim_fps *fps,
              const struct sim_opts *o, struct sim_report *r);

#endif
