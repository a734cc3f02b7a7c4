/*
 * prop_mha.h -- what the properties of "mha" (prop_mha.c) and "block"
 * (prop_block.c) share: the masks (the shapes and wrong variants of
 * multi-head attention they pass to orc_mha are the oracle's, oracle.h).
 * Internal to the property layer; prefix pmha_.
 */
#ifndef GRD_PROP_MHA_H
#define GRD_PROP_MHA_H

#include <stddef.h>

#include "oracle/oracle.h"
#include "props/prop_util.h"

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
