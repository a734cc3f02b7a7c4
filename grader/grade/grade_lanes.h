/*
 * grade_lanes.h -- run independent jobs on parallel lanes (threads), for
 * the tests of one submission (grade_run.c).
 *
 * Lane 0 is the calling thread, with the context the caller already has;
 * lanes 1.. are threads, each opening its own context (for grading: its
 * own sandbox) before it takes a job and closing it after the last. Jobs
 * are taken in order 0, 1, ... from one shared counter, so which lane runs
 * a job depends on timing: a job must depend on nothing but its own
 * inputs and its lane's context, never on another job. A lane that cannot
 * open its context (or whose thread cannot start) takes no job, and the
 * others do its share: fewer lanes change the speed, never a result.
 */
#ifndef GRD_GRADE_LANES_H
#define GRD_GRADE_LANES_H

#include <stddef.h>

#include "core/err.h"

struct glane_ops {
    void *self;
    /* Open lane k's context (k >= 1) in its own thread: 0, or -1 (the lane
     * then takes no job; its error is dropped). */
    int (*open)(void *self, size_t k, void **ctx, struct err *e);
    /* Close what open made, in the same thread. */
    void (*close)(void *self, size_t k, void *ctx);
    /* Run job j in a lane's context: 0, or -1 with e set. */
    int (*run)(void *self, void *ctx, size_t j, struct err *e);
};

/*
 * Run jobs 0..n_jobs-1 on up to n_lanes lanes (1: all in the calling
 * thread, in order), lane 0 with ctx0. Once a job fails no lane starts
 * another. Returns 0, or -1 with `e` set to the error of the lowest-
 * numbered failed job (the one a run in order would have stopped at).
 */
int glane_run(size_t n_lanes, size_t n_jobs, void *ctx0, const struct glane_ops *ops,
              struct err *e) __attribute__((warn_unused_result));

/* The lanes worth opening: the CPUs this process may use (its affinity
 * mask on Linux, else the online CPUs), at most `cap` (and at least 1). */
size_t glane_default(size_t cap);

#endif
