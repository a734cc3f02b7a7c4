/*
 * prop_mha.h -- what the properties of "mha" (prop_mha.c) and "block"
 * (prop_block.c) share: the shapes and wrong variants of multi-head
 * attention that orc_mha (oracle.h) computes, so that neither ever calls
 * the submission's attn_multi_head from a test of another function, and
 * the masks. Internal to the property layer; prefix pmha_.
 */
#ifndef GRD_PROP_MHA_H
#define GRD_PROP_MHA_H

#include <stddef.h>

#include "props/prop_util.h"

struct pmha_dims {
    size_t n_q, n_kv, d_model, heads; /* heads > 0 divides d_model */
};

/* How a head reads Q, K and V (and writes the concatenation): the right
 * way (column blocks) and the usual wrong ones, for diagnosis. */
enum pmha_slicing { PMHA_SL_BLOCKS, PMHA_SL_INTERLEAVED, PMHA_SL_ROWS };

struct pmha_variant {
    enum pmha_slicing sl;       /* how a head reads Q, K, V */
    enum pmha_slicing cat_sl;   /* how it writes the concatenation */
    int scale_by_dmodel;   /* 1/sqrt(d_model) instead of 1/sqrt(d_head) */
    int no_wo;             /* out = concat(heads), no final projection */
};

/*
 * (prop_util.c) Fill an n_q x n_kv mask of `kind`: "causal" (key j visible to query i
 * when j <= i), "random" (each entry visible with probability 0.7, key 0
 * always visible), "bytes" (random, with visible entries any byte of
 * 1..255, not only 1) or "full_row" (random, with query 0's keys all
 * hidden).
 * Returns 0, or -1 for any other kind (the caller handles "none").
 */
int pmha_fill_mask(unsigned char *m, size_t n_q, size_t n_kv,
                   const char *kind, struct pu_rng *r);

#endif
