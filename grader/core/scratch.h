/*
 * scratch.h -- the grader's scratch directories, and what a killed grader
 * left of them.
 *
 * A grader stopped by SIGKILL (a batch's kill, the OOM killer, a CI
 * timeout) removes nothing. So each scratch directory records its owner
 * -- pid and start time, so that a pid the system gave to another process
 * since is not mistaken for the owner -- in a file SCR_OWNER inside it,
 * and making a new one first removes, in the same parent directory, every
 * scratch directory of ours whose owner is gone. Nothing of a killed
 * grader survives its next run.
 */
#ifndef GRD_SCRATCH_H
#define GRD_SCRATCH_H

#include <stddef.h>

#include "core/err.h"

#define SCR_OWNER ".owner"
#define SCR_ORPHAN_AGE_S 600 /* no owner file: removed when older than this */

/*
 * Sweep `base` (see scr_sweep), then create <base>/<prefix>XXXXXX (mode
 * 0700) into out[0..n) with its owner file. `prefix` must be one of
 * "attn-grade-" and "attn-batch-". Returns 0, or -1 with `e` set and out
 * "" (base missing or not writable, path too long).
 */
int scr_make(const char *base, const char *prefix, char *out, size_t n, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Remove every directory in `base` named attn-grade-* or attn-batch-*,
 * owned by this user, not a symbolic link, whose owner process is gone
 * (no such pid, or one started at another time), or which has no owner
 * file and is older than SCR_ORPHAN_AGE_S (an older grader's). Returns how
 * many were removed. Errors are skipped: a sweep never fails a grading.
 */
size_t scr_sweep(const char *base);

/* Remove directory `dir` and everything in it (no link is followed). */
void scr_remove(const char *dir);

#endif
