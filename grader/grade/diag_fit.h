/*
 * diag_fit.h -- facts and fitted families of mistakes, for a diagnosis that
 * holds for bugs nobody recorded. Prefix dgf_.
 *
 * dg_diagnose (diag.h) names a cause when the submission's outputs follow
 * a recorded catalogue file's; an unseen bug has no such twin. This module
 * measures instead. For every function with failures it makes the standard
 * calls of the failing tests' cases on the submission and on the reference
 * (staff build: the reference is linked in) and states:
 *   - facts: which part of the output differs (rows whose keys are all
 *     hidden, the last column, odd columns, one row, entries never
 *     written, every entry by one factor, the matrix transposed), what the
 *     failure depends on (a mask, an odd size, large inputs), and the
 *     smallest failing shape found by shrinking each dimension while the
 *     call still fails;
 *   - a cause, only when exactly one family of mistakes (a scale factor,
 *     an index map, a normalisation over the wrong axis, a missing term;
 *     each a parametrised change of the reference's inputs or outputs)
 *     reproduces the submission's outputs on every one of those standard
 *     calls, and on at least one of them differs from the reference.
 * A twin cause from dg_diagnose stays only on evidence as strong: it
 * explains every failure of its function, at most one family fits, and
 * the differences are not confined to entries many different mistakes
 * write alike (all-hidden rows, entries never written). Otherwise it is
 * replaced by the facts.
 *
 * The grader fills the outputs with NaN before a call; an entry that is
 * still NaN is called again with another fill, so that an entry the
 * submission never wrote is reported as such and never as its NaN.
 */
#ifndef GRD_DIAG_FIT_H
#define GRD_DIAG_FIT_H

#include "grade/diag.h"
#include "props/prop_common.h"

/*
 * After dg_diagnose: facts (r->facts[fn], owned text, one fact a line) and
 * family causes for r's failing functions, charged to b like the
 * diagnosis's calls (b->left_ms less r->diag_ms). Nothing happens without
 * a reference (the student build has none: it cannot compute expected
 * values for shapes it never recorded), without a failure, or when the
 * diagnosis was cut. Returns 0, or -1 on a grader error (e set).
 */
int dgf_diagnose(const struct spec_set *s, struct impl student, const struct impl *reference,
                 const struct grun_hooks *h, const struct grade_opts *o, struct dg_budget *b,
                 struct grade_result *r, struct err *e)
    __attribute__((warn_unused_result));

/* The family a cause named by dgf_diagnose came from (its grade_cause's
 * variant is "family:<name>"), for tests. */
#define DGF_FAMILY_PREFIX "family:"

/*
 * For tests that judge a named family on inputs it was not fitted on:
 * family `name`'s prediction of call k (its inputs as built; k stays the
 * caller's) against im's outputs on k. Returns 1 they agree, 0 they do
 * not, 2 the family says nothing of k (or the reference refuses it), -1 on
 * a grader error (e set; also for an unknown name).
 */
int dgf_family_agrees(const char *name, const struct impl *im, const struct impl *reference,
                      struct pc_call *k, struct err *e)
    __attribute__((warn_unused_result));

#endif
