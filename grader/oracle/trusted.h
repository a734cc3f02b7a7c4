/*
 * trusted.h -- the trusted double-precision math behind oracle.h: softmax,
 * attention, layer norm, multi-head attention, the block and the
 * positional encoding, with the usual wrong variants for diagnosis.
 *
 * STAFF BUILD ONLY. This is a working implementation of the assignment (an
 * answer key): grader/template.mk never ships trusted.h or trusted.c, and
 * only oracle.c calls them, under GRADER_STAFF. Prefix trm_. Inputs and
 * outputs are as in oracle.h; every function returns 0, or -1 when out of
 * memory.
 */
#ifndef GRD_TRUSTED_H
#define GRD_TRUSTED_H

#include <stddef.h>

#include "oracle/oracle.h"

int trm_sdpa(const float *Q, const float *K, const float *V, size_t n_q, size_t n_k,
             size_t d_k, size_t d_v, const unsigned char *mask, double scale,
             double *out, double *w);
int trm_layernorm(enum orc_ln g, const double *in, double *out, size_t cols, double eps);
int trm_mha(const struct orc_mha_dims *s, const struct orc_mha_variant *va, const double *xq,
            const double *xkv, const float *const w[4], const unsigned char *mask,
            double *out, double *weights);
int trm_block(const struct orc_block *b, const struct orc_bvariant *va, double *out);
int trm_pe(enum orc_pe g, size_t n, size_t d, double *out);

#endif
