/*
 * sbx_internal.h -- what sbx.c and sbx_ops.c share: one call of the API as
 * plain data. Internal to the sandbox module.
 */
#ifndef GRD_SBX_INTERNAL_H
#define GRD_SBX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sandbox/impl.h"
#include "sandbox/runner_proto.h"
#include "sandbox/sbx.h"

/* One pointer argument of a call, as the caller passed it. */
enum sbx_arg_kind { SBX_IN, SBX_INOUT, SBX_OUT };

struct sbx_arg {
    const char *name;
    void *ptr;           /* the caller's buffer; NULL passes NULL */
    size_t len;          /* bytes */
    enum sbx_arg_kind kind;
};

struct sbx_call {
    enum asg_fn fn;
    uint64_t dim[RP_NDIM];
    float eps;
    struct sbx_arg arg[RP_NBUF];
    size_t narg;
};

/*
 * Run one call in the runner (starting one if needed) and fill r: 0 when
 * the call could be made (r says how it ended), -1 with e set on an error
 * of the grader. Buffers of kind SBX_INOUT/SBX_OUT are updated only when
 * the call returned.
 */
int sbx_run_call(struct sbx *s, const struct sbx_call *c, struct impl_result *r,
                 struct err *e);

/* ---- shared by sbx.c, sbx_proc.c, sbx_layout.c and sbx_classify.c ---- */

#include <poll.h>
#include <signal.h>
#include <sys/types.h>

#define SBX_TICK_MS 100.0        /* longest single wait: stalls are seen */
#define SBX_STALL_SLACK_MS 50.0  /* a gap or oversleep under this is not a stall */
#define SBX_STATE_SAMPLES 5      /* of a runner's state when its wall net fires */
#define SBX_STATE_ROUNDS 3       /* of samples, while the grader itself stalls */
#define SBX_WALL_BUSY_FACTOR 10.0 /* a runner busy at its wall net gets this x */

/*
 * The grader's own stalls (a paused VM, a frozen cgroup, a suspended
 * laptop, swapping): the time it did not run while it watched a runner,
 * which no deadline counts. Outside a watch only the grader's waits count:
 * what a wait overslept by more than SBX_STALL_SLACK_MS is a stall. While
 * it watches (sbx_watch: a call, a runner's start), every look at the
 * clock counts: a gap between two looks longer than what the grader asked
 * to wait in between, by more than the slack, is a stall too, so that a
 * pause that lands between two waits (after the call's byte was sent and
 * before the wait for its answer, say: issue 35) is not charged to the
 * call. Pure: the times are the caller's (ut_now_ms), so it is tested
 * with made-up ones (tests/test_sbx.c).
 */
struct sbx_clock {
    double stall;   /* ms not counted, so far */
    double seen;    /* the last look, while watching; 0: not watching */
    double asked;   /* ms the grader asked to wait since that look */
};

/* Start (on) or end watching at `now`. */
void sbx_clock_watch(struct sbx_clock *c, double now, int on);

/* A look at the clock at `now`: `now` less the stalls (sbx_live_ms). */
double sbx_clock_look(struct sbx_clock *c, double now);

/* A wait of `asked` ms that began at t0 ended at `now`. */
void sbx_clock_waited(struct sbx_clock *c, double t0, double asked, double now);

struct sbx {
    char *runner;
    char *runner_dir;
    double deadline_ms;  /* CPU time a call may use */
    double wall_end;     /* ut_now_ms() no call may pass; 0: none */
    double thread_queued0; /* the setting thread's wait for a CPU then
                              (ut_thread_queued_ms; < 0: unknown) */
    double wall_ms;      /* the last call's wall limit, when it tripped; else 0 */
    double cpu_total_ms; /* CPU time of every call so far, timed out ones too */
    struct sbx_clock clock; /* time the grader itself did not run while it
                            waited or watched: no deadline counts it */
    double queued_ms;    /* time its stopped runners waited runnable for a
                            CPU, start-up included (sbx_queued) */
    int machine;         /* the last call's wall net fired while its runner
                            was runnable or in D: the machine's trouble */
    int stopped;         /* ... while its runner was stopped (state T), not
                            by the grader nor with it: the submission's */
    int stop_sig;        /* the signal that stopped it (kernel's report), 0:
                            not told */
    size_t as_limit;
    unsigned cpu_s;
    size_t out_cap;
    pid_t pid;           /* 0: no runner */
    int ctl, res, out;   /* parent ends; -1 when closed */
    int memfd;
    uint64_t mem_size;
    int killed;          /* we sent SIGKILL for a timeout */
    char *outbuf;
    size_t out_len;
    int out_trunc;
    uint64_t nonce;
    int heap_fd;         /* the runner's heap file (RP_FD_HEAP); -1: none */
    uint64_t rz_read;    /* live redzone bytes compared, all calls so far */
    pid_t server;        /* the fork server (sbx_server.c); 0: none */
    int srv_ctl, srv_res; /* its channels; -1 when closed */
    unsigned runners;    /* runners reaped so far */
    long runner_minflt;  /* their minor faults (the kernel's count, wait4):
                            the pages each touched after its fork */
};

/* sbx_proc.c: the runner process and its pipes. */
enum sbx_wait_end { W_BYTE, W_EOF, W_TIMEOUT, W_ERROR };

/* Sleep ms milliseconds, resuming after signals. */
void sbx_sleep_ms(long ms);

/*
 * The sandbox's clock: ut_now_ms() less the time the grader was not
 * running while it waited or watched (struct sbx_clock). A machine that
 * is paused, frozen or swapping stops the grader too; that time is not
 * charged to any deadline (the runner did not run either).
 */
double sbx_live_ms(struct sbx *s);

/* Watch (on) the clock for the grader's own gaps, from now on, or stop
 * (off): from a call's start to the end of its wait, and a runner's
 * start. */
void sbx_watch(struct sbx *s, int on);

/* poll() for at most `ms` (and at most SBX_TICK_MS), adding to the
 * stalls what it overslept (and, while watching, the gap before it);
 * poll's result. */
int sbx_poll(struct sbx *s, struct pollfd *p, unsigned n, double ms);

/* sbx_sleep_ms(ms) that adds to the stalls what it overslept. */
void sbx_nap(struct sbx *s, long ms);

/* Read what the output pipe holds now (bounded); closes it at EOF. */
void sbx_drain_output(struct sbx *s);

/* Start a runner and wait for its ready byte: 0; 1 when the runner
 * failed to start (r says why: the submission's executable, e.g. a huge
 * .bss); -1 with e set when the grader could not (memfd, pipes, fork).
 * No runner is left behind on failure. */
int sbx_runner_start(struct sbx *s, struct impl_result *r, struct err *e);

/* Kill the runner's group, reap it and close the channels. Idempotent. */
void sbx_runner_stop(struct sbx *s);

/* The runner's exit without reaping it: 1 when it has exited (si set),
 * 0 when not yet, -1 when it cannot be observed. */
int sbx_peek_exit(pid_t pid, siginfo_t *si);

/* Wait for one byte on the result pipe until `until` (sbx_live_ms time),
 * draining output meanwhile. */
enum sbx_wait_end sbx_wait_byte(struct sbx *s, double until, char *byte);

/* Fork and exec the runner with fds[i] as descriptor i ("runner serve"
 * when serve); the child's pid, or -1 (errno set). The child is in its own
 * process group, with PR_SET_PDEATHSIG, the rlimits and an empty env. */
pid_t sbx_exec_runner(const struct sbx *s, const int fds[RP_FD_COUNT], int serve);

/* sbx_server.c: the fork server (Linux). */

/* Have the fork server (started on first use, restarted once if it died)
 * fork a test runner with the child ends kid[]; *pid is the runner, the
 * grader's own child. 0; 1 when the server could not start or spawn (the
 * submission's executable: the caller fails the call); -1 with e set on
 * the grader's own failure. */
int sbx_server_spawn(struct sbx *s, const int kid[RP_FD_COUNT], pid_t *pid,
                     struct err *e);

/* Kill and reap the fork server, close its channels. Idempotent. */
void sbx_server_stop(struct sbx *s);

/* sbx_books.c: the runner's allocations, counted from outside it. */

/* A new heap file of `bytes` (sparse), close-on-exec; -1 (errno set). */
int sbx_books_open(size_t bytes);

/* The heap file's live blocks (its data extents past the meta page, as
 * the kernel reports them); -1 when they cannot be read. */
long sbx_books_live(int fd);

/* Did an allocation fail since the last clear? A hint the runner writes,
 * used only to name a crash; never a verdict. */
int sbx_books_failed(int fd);

/* Was a block of the submission's written past its end (its redzone,
 * runner_proto.h): one freed since the last clear (the runner's note in
 * the meta page), or one live now (read from the file here, within a
 * bounded number of bytes per block and per call, whatever the blocks'
 * headers claim: sbx_books.c)? 1 with *asked the block's size, else 0;
 * *read gets the redzone bytes compared. Both rest on what the runner
 * wrote: they may only fail a call, never pass one. */
int sbx_books_overrun(int fd, uint64_t *asked, uint64_t *read);

/* Clear both hints before a call. */
void sbx_books_clear_hints(int fd);

/* sbx_layout.c: the call in shared memory. */

/* Size and map the memfd and write call c into it; tmp receives the
 * parent's own copy of the header, *view the parent's mapping of
 * s->mem_size bytes. 0, or -1 with e set. */
int sbx_prepare(struct sbx *s, const struct sbx_call *c, struct rp_header *tmp,
                unsigned char **view, struct err *e);

/* After a return: const inputs unchanged and canaries intact? 0, or -1
 * with r set to the violation. */
int sbx_check_inputs(const struct sbx_call *c, const struct rp_header *h,
                     const unsigned char *mem, struct impl_result *r);

/* Copy the written parts of output buffers back to the caller. */
void sbx_copy_outputs(const struct sbx_call *c, const struct rp_header *h,
                      const unsigned char *mem);

/* sbx_classify.c: how a call ended. */

/* Set r's status and a printf-style detail. */
void sbx_set_detail(struct impl_result *r, enum impl_status st,
                    const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The result pipe closed: wait briefly for the exit, classify it into r
 * and stop the runner. h is the trusted record or NULL. */
void sbx_runner_died(struct sbx *s, const struct rp_header *h,
                     struct impl_result *r);

/* The deadline passed: kill the runner, classify into r, stop it. */
void sbx_timed_out(struct sbx *s, const struct rp_header *h,
                   struct impl_result *r);

#endif
