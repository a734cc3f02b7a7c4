/*
 * diag_record.h -- the diagnosis data (grade/diag.h), recorded: the
 * catalogue's known wrong variants (tests/submissions/) as data, written
 * by `grader golden` (cli/cmd_golden.c) into the golden store
 * (oracle/golden.h). Prefix dgr_.
 *
 * For each variant: the tests it fails, the shape of each failure's
 * message, its premise when its catalogue entry states one, and a sample of
 * its outputs on the standard call of every case of its function's tests;
 * for the reference, its samples on every function's cases (where a known
 * mistake computes the right answer, agreeing with it is no evidence).
 *
 * The keys the data is kept under and the samples are made here, so the
 * diagnosis (diag.c), which reads the data back and samples the
 * submission's calls to compare, uses the very same ones: a change here is
 * a change of the shipped data (the Makefile's DIAG_INPUTS name this file;
 * `make diag-ship` records it again).
 */
#ifndef GRD_DIAG_RECORD_H
#define GRD_DIAG_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "grade/grade.h"
#include "oracle/golden.h"
#include "oracle/oracle.h"
#include "props/prop_common.h"
#include "sandbox/impl.h"
#include "spec/spec.h"

/* Entries kept of each output: strided over the whole array, enough to
 * tell the catalogue's variants apart while the shipped data stays small. */
#define DGR_SAMPLE 64
/* The most values one sample holds (the ending, then each output's). */
#define DGR_MAX_VALUES (2 + PC_MAX_OUT * (1 + DGR_SAMPLE))
/* Each standard call's deadline, when recorded and when diagnosed. */
#define DGR_DEADLINE_MS 2000.0
/* The reference's samples are kept under this name (no file is called so). */
#define DGR_REFERENCE "(reference)"

/* ---- recording (`grader golden`) ---------------------------------------- */

/*
 * Record the catalogue submission at `path` (already graded into r with the
 * same specs and seed) as a known variant in o->store: its function (the
 * file name's prefix, e.g. "sdpa" for sdpa_no_scale.c), its bug (the
 * header's "bug:" line), the test its "names:" line names, its premise (the
 * "premise:" line, props/prop_premise.h) and failing tests, then its outputs
 * on every case of its function's tests (it is run again in a grading
 * session). Entries whose bug is "none", or whose prefix names no function,
 * are skipped. Returns 0, or -1 with e set.
 */
int dgr_record_variant(struct orc *o, const struct spec_set *s, uint64_t seed,
                       const char *data_dir, const char *path,
                       const struct grade_result *r, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Record the reference at `path` (graded with the same specs and seed):
 * its outputs on every case of every function's tests, kept under the name
 * DGR_REFERENCE, which tell where a known mistake computes the right answer
 * (no evidence) and where it does not. Returns 0, or -1 with e set.
 */
int dgr_record_reference(struct orc *o, const struct spec_set *s, uint64_t seed,
                         const char *data_dir, const char *path, struct err *e)
    __attribute__((warn_unused_result));

/* ---- the data's keys and samples (the diagnosis reads with these) ------- */

/*
 * Make case c's standard call on env->student: its input key (a hash of
 * everything the call is made of) in key, its sample in v (*n values, at
 * most DGR_MAX_VALUES): how the call ended, then per output its sample
 * length and DGR_SAMPLE entries strided from the first to the last (none
 * unless it returned ATTN_OK). `twice` (recording a variant) makes it twice
 * and keeps only the ending when the outputs differ (a bug that reads
 * memory it must not); the outputs of an `einval` property's cases (invalid
 * arguments: only the return code is specified) are never kept. Returns 1
 * done, 0 when the case has no standard call (its keys do not make one),
 * -1 on a grader error (e set).
 */
int dgr_call_sample(const struct prop_env *env, enum asg_fn fn, const struct spec_test *t,
                    const struct spec_case *c, int twice, unsigned char key[GOLD_KEY_LEN],
                    double *v, size_t *n, struct err *e);

/* Where variant `name`'s data about `in` (an input key, or a message or
 * premise tag) is kept in the store. */
void dgr_variant_key(const char *name, const unsigned char in[GOLD_KEY_LEN],
                     unsigned char out[GOLD_KEY_LEN]);

/*
 * A key for how test `id` failed: its message with every value that is not
 * an integer replaced by its class (a fraction, NaN, Inf), so that float
 * and double arithmetic write the same key while the place of the failure
 * (the entry, row and case it names) and the kind of wrong value stay.
 * Returns how many NaN or Inf the message names.
 */
size_t dgr_message_key(const char *id, const char *msg, unsigned char out[GOLD_KEY_LEN]);

/* Where variant `name`'s premise (prop_premise.h) is kept: its characters,
 * one value each. */
void dgr_premise_key(const char *name, unsigned char out[GOLD_KEY_LEN]);

#endif
