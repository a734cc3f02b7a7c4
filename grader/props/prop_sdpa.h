/*
 * prop_sdpa.h -- what the two files of attn_scaled_dot_product's
 * properties share: prop_sdpa.c (helpers, masks, permutations, the table)
 * and prop_sdpa_values.c (checks against trusted attention and the
 * spec's values). Internal to the property layer; prefix psd_.
 */
#ifndef GRD_PROP_SDPA_H
#define GRD_PROP_SDPA_H

#include <stddef.h>

#include "props/prop_common.h"

/* Absolute tolerance on an output of k for a test's tolerance tol (the
 * float error of the logits and the weighted sum; see prop_sdpa.c). */
double psd_out_atol(const struct pc_call *k, double tol);

/* The oracle's attention (oracle/oracle.h) of k's buffers with `mask` and
 * `scale` into fresh arrays *out (n_q x d_v) and *w (n_q x n_k): 0;
 * ORC_MISSING (nothing allocated) when the golden data lacks it; -1 (e
 * set). */
int psd_trusted(const struct pc_call *k, const unsigned char *mask, double scale,
                double **out, double **w, struct err *e);

/* The scale attention.h asks for: 1/sqrt(d_k). */
double psd_api_scale(const struct pc_call *k);

/* 1 when the float matrix got (rows x cols) is within atol of want; else 0
 * with v failed, naming `name`'s first bad element and `label`. */
int psd_close_matrix(const float *got, const double *want, size_t rows, size_t cols,
                     double atol, const char *name, struct prop_verdict *v,
                     const char *label);

/* k's out and weights against trusted attention with k's mask: 1, 0 (v
 * failed) or -1 (e set). */
int psd_matches_trusted(const struct pc_call *k, double tol, struct prop_verdict *v,
                        const char *label, struct err *e);

/* The properties of prop_sdpa_values.c for prop_sdpa.c's table: steps
 * (pc_run_def) and one run function of its own (a run per d_k). */
extern const struct pc_prop psd_retrieval, psd_non_square, psd_null, psd_values;
int psd_run_scale_d(const struct prop_ctx *x);

#endif
