/*
 * sbx.h -- the sandbox: run a submission's functions in a contained child
 * process (the "runner": runner_main.o linked with the student's object)
 * and report how each call ended.
 *
 * The principle: student code never runs in the process that computes or
 * records a verdict. The grader talks to the runner over a socket (control),
 * two pipes (result, output) and a memfd that holds one call at a time
 * (runner_proto.h).
 *
 * What contains the runner (Linux):
 *   - its own process group, killed as a whole after any call that did not
 *     return, on sbx_restart and on sbx_free; PR_SET_PDEATHSIG kills it if
 *     the grader dies; no runner process outlives the struct sbx;
 *   - rlimits: address space (default 1 GiB), CPU seconds, RLIMIT_FSIZE 0,
 *     no core files, 16 file descriptors; an empty environment; its working
 *     directory is the directory of the runner executable (scratch);
 *   - a seccomp allowlist (runner_main.c), loaded before the first call:
 *     no open, no fork/clone/exec, no signals to anything but itself, no
 *     sockets, no executable mappings. A forbidden system call ends the call
 *     with CALL_SYSCALL naming it. Without seccomp (sbx_has_seccomp() == 0,
 *     e.g. macOS) only the process group, rlimits and deadlines remain:
 *     the submission could open files, fork (its children are killed with
 *     the group by sbx_restart/sbx_free, but PR_SET_PDEATHSIG is not
 *     inherited: if the grader itself dies abruptly, grandchildren can
 *     survive) or signal the grader -- the CLI should warn
 *     "sandbox reduced";
 *   - guard pages around every buffer, read-only mappings for const inputs,
 *     canaries in the slack before each writable buffer, and a byte-wise
 *     comparison of every const input after the call.
 *
 * Trust: the runner's address space is the student's. Its state and the
 * shared header are read-only while student code runs, so pure C cannot
 * forge the record (raw system calls could: SECURITY.md, gap 1). Live
 * allocations are counted here, from records the runner sends on a
 * descriptor no student write() reaches (sbx_books.c). The per-call nonce
 * guards against a stale record from an earlier call. A forgery gains
 * little: a forged "returned" still has its outputs checked by the
 * properties, a forged fault record only fails the submission, and the
 * parent re-checks const inputs and canaries from its own copies. Buffer
 * layout is never read back from shared memory. Whatever the runner
 * does -- a forged or malformed reply, no room for the buffers, a failed
 * start -- ends that call with a reason (never a grader error), and the
 * next call starts a fresh runner.
 *
 * The sandbox writes to the runner only through a socket with MSG_NOSIGNAL:
 * the caller need not ignore SIGPIPE. Not thread-safe: one struct sbx per
 * thread. Calls block for at most the deadline (plus reaping).
 */
#ifndef GRD_SBX_H
#define GRD_SBX_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "sandbox/impl.h"

#define SBX_DEFAULT_DEADLINE_MS 2000.0
#define SBX_DEFAULT_AS_LIMIT ((size_t)1 << 30)
#define SBX_DEFAULT_CPU_S 10u
#define SBX_DEFAULT_OUTPUT_CAP ((size_t)16 << 10)
#define SBX_NOFILE 16             /* RLIMIT_NOFILE of a runner */

struct sbx_config {
    const char *runner;   /* path of the linked runner executable */
    double deadline_ms;   /* CPU-time limit per call (ms); the wall clock
                             is only a safety net at SBX_WALL_FACTOR x it
                             (see sbx_run_call); 0: default */
    size_t as_limit;      /* RLIMIT_AS of the runner in bytes; 0: default */
    unsigned cpu_s;       /* RLIMIT_CPU of one runner process (one test);
                             0: default */
    size_t output_cap;    /* bytes of stdout+stderr kept; the rest is
                             drained and dropped; 0: default */
};

struct sbx;

/*
 * Create a sandbox for the runner cfg->runner (copied). No process is
 * started until the first call. Returns NULL with `e` set when the runner
 * is not an executable file or memory runs out.
 */
struct sbx *sbx_new(const struct sbx_config *cfg, struct err *e)
    __attribute__((warn_unused_result));

/* Change the per-call deadline (ms > 0); takes effect at the next call. */
void sbx_set_deadline(struct sbx *s, double ms);

/*
 * The deadline is CPU time: the runner's CPU clock, read by the parent, so
 * that a loaded machine (the runner waiting for a core) does not turn a
 * call into a timeout. A call that does not burn CPU (it sleeps, or blocks)
 * is stopped by the wall clock at SBX_WALL_FACTOR x the deadline plus
 * SBX_WALL_SLACK_MS, and never after the end set by sbx_set_wall_end.
 * The wall clock here leaves out the time the grader itself was stalled
 * (sbx_stalled), wherever in the call the pause landed, and an answer
 * that is in when the wall net fires is taken (a returned call). A runner
 * still computing (runnable) at the wall net is
 * given up to 10 x as long to reach its CPU deadline: a loop on a loaded
 * machine is still the submission's timeout. When the wall net fires
 * while the runner could not run (in uninterruptible I/O, or runnable but
 * starved past that), the call is tried once more in a fresh runner, and
 * a second such end is a grader error (-1 from the op), never a timeout
 * of the submission. A runner found stopped (state T) while the grader
 * itself ran is the submission's doing (issue 35: the grader never stops
 * one and its sandbox forbids the stop signals): the call crashes,
 * "stopped itself", with no retry. A runner that sleeps or blocks still
 * times out, and so does every call at the end set by sbx_set_wall_end.
 */
#define SBX_WALL_FACTOR 5.0
#define SBX_WALL_SLACK_MS 1000.0

/* No call may run past `until` (ut_now_ms() time; 0: no such end), so
 * that a grading's whole budget bounds every call in it. The end moves by
 * the time the runners (sbx_queued) and the thread that called this wait
 * for a CPU: call it from the thread that then makes the calls. */
void sbx_set_wall_end(struct sbx *s, double until);

/* The CPU time (ms) all calls of this sandbox used so far, across
 * restarts: what a submission's budget is charged. */
double sbx_cpu_used(const struct sbx *s);

/* The bytes of live blocks' redzones the grader compared after the calls
 * of this sandbox so far: bounded per call whatever the blocks' headers
 * claim (sbx_books.c), so a check cannot outcost the submission's budget. */
uint64_t sbx_redzone_bytes(const struct sbx *s);

/* The time (ms) the grader did not run while this sandbox waited for or
 * watched its runners (the machine paused, frozen or swapping): a wait
 * that overslept, or a gap between two looks at the clock during a call
 * or a runner's start; no deadline and no wall-clock limit counts it
 * (sbx_set_wall_end's end moves by it too). */
double sbx_stalled(const struct sbx *s);

/* How many runners this sandbox started and reaped so far, and their
 * minor page faults in all (the kernel's count for each, from wait4): a
 * forked runner's faults are the pages it touched after the fork, each a
 * copy or a zero-fill, what a runner costs beyond the fork itself. */
void sbx_runner_faults(const struct sbx *s, unsigned *runners, long *minflt);

/* Time (ms) the runners waited runnable for a CPU (a loaded machine), as
 * the kernel counts it (/proc/<pid>/schedstat), the live runner's so far
 * included; 0 where the system does not tell. A runner between calls
 * sleeps, so this is start-up and calls. Not the submission's time: the
 * end set by sbx_set_wall_end moves by it. */
double sbx_queued(const struct sbx *s);

/*
 * Kill the current runner (if any) and forget its output, so that the next
 * call starts a fresh process. The grader calls it between tests.
 */
void sbx_restart(struct sbx *s);

/*
 * The runner's stdout and stderr (interleaved, at most output_cap bytes)
 * since the last restart. Not NUL-terminated; owned by s and valid until
 * the next call or restart. *len receives the length.
 */
const char *sbx_output(const struct sbx *s, size_t *len);

/* 1 when output beyond output_cap was dropped since the last restart. */
int sbx_output_truncated(const struct sbx *s);

/* The current runner's pid, or 0 when none is running (for tests). */
long sbx_runner_pid(const struct sbx *s);

/*
 * The implementation backed by this sandbox; valid while s lives. Each op
 * returns 0 with `r` filled whenever the call could be made, and -1 with
 * `e` set on an error of the grader itself (the runner could not be
 * started, a buffer is too large for shared memory, a system call of the
 * grader failed). After a call that did not return, the runner is dead and
 * the next call starts a new one.
 */
struct impl sbx_impl(struct sbx *s);

/* Kill the runner, reap it and free everything. NULL is a no-op. */
void sbx_free(struct sbx *s);

/*
 * The limits a runner of `cfg` gets, in one line into buf[0..n) (for
 * --verbose): each is the configured one or, when the account's hard
 * limit is lower, that ("(the hard limit)"): the runner then starts under
 * the lower limit instead of failing with EPERM.
 */
void sbx_describe_limits(const struct sbx_config *cfg, char *buf, size_t n);

/* 1 when the runner is built with the seccomp filter, 0 otherwise. */
int sbx_has_seccomp(void);

#endif
