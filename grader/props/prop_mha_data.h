/*
 * prop_mha_data.h -- one case of attn_multi_head's properties: the data
 * built from a spec case, its trusted result, the submission's call and
 * the comparison that diagnoses a mismatch (prop_mha_data.c), shared with
 * the properties in prop_mha.c. Internal to the property layer; prefix
 * pmha_.
 */
#ifndef GRD_PROP_MHA_DATA_H
#define GRD_PROP_MHA_DATA_H

#include <stddef.h>

#include "props/prop.h"
#include "oracle/oracle.h"
#include "spec/spec.h"

struct pmha_data {
    struct orc_mha_dims s;
    int self;                  /* Xkv is Xq, passed as the same pointer */
    const char *mask_kind;
    float *xq, *xkv, *w[4];    /* xkv == xq when self */
    unsigned char *mask;       /* NULL for "none" */
    float *out, *weights;      /* the submission's outputs */
    double *dxq, *dxkv;        /* double copies (dxkv == dxq when self) */
    double *want, *want_w;     /* trusted out and weights */
    struct orc *orc;           /* where expected values come from (oracle.h) */
    char label[200];
};

/* Copy the float inputs to their double twins (after any change). */
void pmha_widen(struct pmha_data *d);

/* The expected result of d's current inputs into want/want_w: 0,
 * ORC_MISSING (oracle.h) or -1 (e set). */
int pmha_expect(struct pmha_data *d, struct err *e);

/* Call the submission with d's inputs (weights NULL unless `with_w`).
 * -1 grader error, 0 call failed (verdict filled), 1 returned ATTN_OK. */
int pmha_call(const struct prop_ctx *x, struct pmha_data *d, int with_w);

/* pmha_expect, then pmha_call: -1, 0 (x->v failed: the golden data has
 * no expected value, or the call failed), 1 (returned ATTN_OK, d->want and
 * d->want_w hold the expected result). */
int pmha_expect_call(const struct prop_ctx *x, struct pmha_data *d, int with_w);

/* First index where |got - want| > tol * max(1, |want|), or n. */
size_t pmha_first_far(const float *got, const double *want, size_t n,
                     double tol);

/* Fail at the first output far from want, with a hint naming the wrong
 * variant the output follows if one does; 1 when all are close. */
int pmha_check_out(const struct pmha_data *d, const char *what, double tol,
                  struct prop_verdict *v);

/* One property body between build and free: it makes its calls
 * (pmha_call) and checks them, with the test's tolerance tol; returns -1,
 * 0 (x->v failed) or 1 (passed). */
typedef int (*pmha_body)(const struct prop_ctx *x, struct pmha_data *d, double tol);

/* The runner of every mha property: build x's case (self-attention and
 * heads defaulting to `self` and `heads`), run body, free; returns like a
 * prop_run_fn. */
int pmha_run(const struct prop_ctx *x, int self, size_t heads, pmha_body body);

#endif
