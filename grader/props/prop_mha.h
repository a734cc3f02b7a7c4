/*
 * prop_mha.h -- trusted double-precision multi-head attention, shared by
 * the properties of "mha" (prop_mha.c) and "block" (prop_block.c), so that
 * neither ever calls the submission's attn_multi_head from a test of
 * another function. Internal to the property layer; prefix pmha_.
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
 * Multi-head attention computed the way `va` says, in double, with
 * w = {Wq, Wk, Wv, Wo}; otherwise as pmha_forward_d. Returns 0, or -1
 * when out of memory.
 */
int pmha_forward_variant(const struct pmha_dims *s, const struct pmha_variant *va,
                         const double *xq, const double *xkv,
                         const float *const w[4], const unsigned char *mask,
                         double *out, double *weights);

/*
 * Y (n x m) = X (n x k, double) . W (k x m, float), accumulated in double.
 * Cannot fail.
 */
void pmha_matmul_d(const double *X, const float *W, size_t n, size_t k,
                   size_t m, double *Y);

/*
 * Multi-head attention as attention.h defines it, all in double: out
 * (n_q x d_model) and, when weights != NULL, the heads x n_q x n_kv
 * weights. xq is n_q x d_model, xkv n_kv x d_model (may be the same
 * array), each W d_model x d_model; mask NULL or n_q x n_kv. Returns 0, or
 * -1 when out of memory (out and weights then unspecified).
 */
int pmha_forward_d(const struct pmha_dims *s, const double *xq,
                   const double *xkv, const float *wq, const float *wk,
                   const float *wv, const float *wo, const unsigned char *mask,
                   double *out, double *weights);

/*
 * Fill an n_q x n_kv mask of `kind`: "causal" (key j visible to query i
 * when j <= i), "random" (each entry visible with probability 0.7, key 0
 * always visible), "bytes" (random, with visible entries any byte of
 * 1..255, not only 1) or "full_row" (random, with query 0's keys all
 * hidden).
 * Returns 0, or -1 for any other kind (the caller handles "none").
 */
int pmha_fill_mask(unsigned char *m, size_t n_q, size_t n_kv,
                   const char *kind, struct pu_rng *r);

#endif
