/*
 * grade_deadline.h -- the per-call deadlines of the test loop
 * (grade_run.c). Prefix gdl_.
 *
 * A call's deadline is CPU time (see sbx.h): GDL_FACTOR x the CPU time the
 * reference's whole property takes on the same case, at least GDL_FLOOR_MS.
 * CPU time barely moves with the machine's load, so a slow submission's
 * verdicts are the same on a busy machine as on an idle one; the wall clock
 * only stops calls that sleep. The loop tries a case under gdl_first's
 * deadline and times the reference (gdl_measured) only when it timed out
 * there: every real deadline is at least the floor, so the verdict is the
 * same as with the real deadline set from the start.
 */
#ifndef GRD_GRADE_DEADLINE_H
#define GRD_GRADE_DEADLINE_H

#include "core/err.h"
#include "grade/grade.h"
#include "props/prop.h"
#include "sandbox/impl.h"
#include "spec/spec.h"

#define GDL_FACTOR 50.0       /* x the reference's time on the same case */
#define GDL_FLOOR_MS 250.0    /* start-up and page faults of a fresh runner */
#define GDL_DEFAULT_MS 1000.0 /* no reference (student build) */

/* The deadline (ms) a case of t is tried with first: the test's own
 * timeout_ms, the floor when there is a reference to time (staff: every
 * real deadline is at least that), or the default (the student build). */
double gdl_first(const struct spec_test *t, int have_reference);

/*
 * The real deadline (ms) of case c of t under property d: GDL_FACTOR x the
 * CPU time the reference's whole property takes on it (run on this thread
 * with o's seed and oracle, the submission's folder for its files), at
 * least the floor. Returns -1 on a grader error (e set).
 */
double gdl_measured(const struct impl *reference, const struct grade_opts *o,
                    const char *submission_dir, const struct prop_def *d,
                    const struct spec_test *t, const struct spec_case *c, struct err *e);

#endif
