/*
 * diag.h -- diagnosis first: for each function with failures, the most
 * likely cause and how many failures it explains. Prefix dg_.
 *
 * The causes are the catalogue's known wrong variants (tests/submissions/),
 * recorded as data by `grader golden` (grade/diag_record.h): for each
 * variant, the tests it fails, the shape of each failure's message, and a
 * sample of its outputs on the standard call of every case of its
 * function's tests. After the tests ran, dg_diagnose makes the same
 * standard calls on the submission for each failing test's cases and
 * compares (the rule: see dg_diagnose). The cause of a function is the known mistake explaining
 * most of its failures; its lead failure is the explained one that the
 * fewest other variants fail, i.e. the test that names this mistake best.
 *
 * No code of any variant is needed at grading time: the student build
 * diagnoses from the shipped data alone.
 */
#ifndef GRD_DIAG_H
#define GRD_DIAG_H

#include "core/err.h"
#include "grade/grade.h"
#include "grade/grade_run.h"
#include "oracle/oracle.h"

/* What the diagnosis may spend: the submission's budget left after its
 * tests (CPU ms) and the wall-clock end of its run (ut_now_ms() time),
 * which is later by the time the grader stood still or waited for a CPU
 * (the hooks' `stalled`, and this thread's wait since queued0,
 * ut_thread_queued_ms): as for the tests, a loaded machine is not the
 * submission's time, so it never cuts the diagnosis short. */
struct dg_budget {
    double left_ms;
    double wall_end;
    double queued0;
};

/*
 * Diagnose r's failures against the variants in o->store (nothing happens
 * without any) by calling `student` again on the failing tests' cases;
 * fills r->causes, each explained test's explained_by, r->diag and
 * r->diag_ms. Every call is charged to b: each gets the per-call deadline
 * capped by what is left, and none is made once it is spent (r->diag is
 * then GRADE_DIAG_CUT and the functions not reached get no cause). h (may
 * be NULL) resets the implementation's process first. Variants named
 * o->diag_exclude are ignored. Without a failing test nothing is read;
 * with one, o->before_diag (when set) is called once before o->orc's
 * store is read, and its error is returned. Returns 0, or -1 on a grader
 * error (e set).
 *
 * The rule (docs/DESIGN.md, "Diagnosis first"): variant V explains a
 * failure of test t when V fails t too, the submission's outputs follow
 * V's on every case of t V has data for (within 1e-3, relative above 1;
 * the same return code; an overflow may reach fewer entries on one side),
 * and either on at least one of those V's outputs differ from the
 * reference's, or t's property failed with a NaN or Inf at the very place
 * V's did (the same message, values replaced by their class). A function's cause is the known
 * mistake explaining most of its failures, and none when two different
 * mistakes explain as many. It is "the most likely cause" (strong) only
 * when it explains every failure of the function; one explaining at least
 * half is shown as what it is ("k of n failures look like ..."); fewer is
 * not shown. A function calling another assignment function that fails
 * too gets that callee as its cause instead (the known mistakes were
 * recorded with correct callees).
 */
int dg_diagnose(const struct spec_set *s, struct impl student, const struct grun_hooks *h,
                const struct grade_opts *o, struct dg_budget *b, struct grade_result *r,
                struct err *e)
    __attribute__((warn_unused_result));

#endif
