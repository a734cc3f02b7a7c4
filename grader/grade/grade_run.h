/*
 * grade_run.h -- the test loop of grading: run every selected test of a
 * spec set against an implementation and record the verdicts. Internal to
 * grade.c; split out so that our own tests can run the loop on a local
 * implementation without compiling anything.
 */
#ifndef GRD_GRADE_RUN_H
#define GRD_GRADE_RUN_H

#include <stddef.h>

#include "grade/grade.h"
#include "sandbox/impl.h"

/* Hooks between the loop and whatever contains the implementation. */
struct grun_hooks {
    void *self;
    /* Called before each test: a fresh process for the sandbox. */
    void (*reset)(void *self);
    /* Set the per-call deadline (ms) for the following calls. */
    void (*set_deadline)(void *self, double ms);
    /* What the implementation printed since the last reset (may be NULL). */
    const char *(*output)(void *self, size_t *len);
    /* No call may run past `until` (ut_now_ms() time): the end of the
     * submission's budget (may be NULL). */
    void (*set_wall_end)(void *self, double until);
    /* CPU time (ms) the implementation's calls used so far (may be NULL). */
    double (*cpu_used)(void *self);
    /* Time (ms) that is not the submission's though the wall clock ran:
     * the grader stalled while it waited for a call (a paused or frozen
     * machine), the runners waited runnable for a CPU (a loaded one), as
     * the kernel counts it (may be NULL). */
    double (*stalled)(void *self);
};

/* The time (ms) that is not the submission's though the wall clock ran,
 * on the calling thread's lane: h's `stalled` (may be NULL) and this
 * thread's wait for a CPU since queued0 (ut_thread_queued_ms when it
 * began). The budget's wall-clock net leaves it out, for the tests and
 * the diagnosis alike. */
double grun_not_spent_ms(const struct grun_hooks *h, double queued0);

/*
 * More lanes for the loop, so that the tests of one submission run in
 * parallel: each lane is another sandboxed implementation of the same
 * submission, opened and closed in its own thread (grade_lanes.h).
 */
struct grun_lanes {
    size_t n;                /* lanes wanted, the caller's own included;
                                <= 1: the tests run one at a time */
    void *self;
    /* Open another lane: 0 with *student and *h set, or -1 (that lane is
     * left out; the others do its share). */
    int (*open)(void *self, struct impl *student, struct grun_hooks *h,
                struct err *e);
    void (*close)(void *self, struct grun_hooks *h);
};

/* Which tests and cases a run covers. */
struct grun_sel {
    unsigned char **cases;   /* cases[i][k]: run case k of test i */
    size_t n_tests;          /* == spec_test_count */
};

/*
 * Build the selection from an --only PCRE2 pattern (NULL: everything). A
 * test is selected whole when the pattern matches its id, and case k
 * (1-based) alone when it matches "<id>#k". Returns 0, or -1 with `e` set
 * (bad pattern, a pattern that selects no case at all, out of memory).
 */
int grun_select(const struct spec_set *s, const char *only, struct grun_sel *sel,
                struct err *e) __attribute__((warn_unused_result));
void grun_select_release(struct grun_sel *sel);

/* Number of selected tests. */
size_t grun_selected_tests(const struct grun_sel *sel);

/*
 * Run the selected tests of `s` on `student` into r (in spec order), which
 * must have r->tests allocated for grun_selected_tests() entries. Per-call
 * deadlines come from the reference's time on the same case when
 * `reference` is not NULL, else from the test's timeout_ms or a default.
 * The tests of one function run in spec order on one lane, with their own
 * share of the budget (in proportion to their number) and their own count
 * of timeouts; `lanes` (may be NULL: one lane, `student` and h) runs the
 * functions in parallel. Nothing one function's tests do changes another's
 * verdicts, so r is the same for any number of lanes.
 * Returns 0, or -1 on an error of the grader itself (e set).
 */
int grun_run(const struct spec_set *s, const struct grun_sel *sel,
             struct impl student, const struct impl *reference,
             const struct grun_hooks *h, const struct grun_lanes *lanes,
             const struct grade_opts *o, const char *submission_dir,
             struct grade_result *r, struct err *e)
    __attribute__((warn_unused_result));

/* Set tr's max_cents from its test's points and its score_cents from its
 * outcome (grade.h: all of them when it passed, a share of them by
 * cases_passed / cases_scored under partial scoring, none when a gate
 * withheld them); the doubles beside them follow. */
void grun_score(struct grade_test *tr);

/* Set r's score and max_score to the exact sums of its tests' hundredths. */
void grun_total(struct grade_result *r);

/* Mark every selected test NOT_RUN with `why` (compile error, rejection). */
int grun_mark_all(const struct spec_set *s, const struct grun_sel *sel,
                  enum grade_test_status st, const char *why, struct grade_result *r);

#endif
