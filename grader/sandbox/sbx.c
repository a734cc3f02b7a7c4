/* sbx.c -- see sbx.h. The runner's side is runner_main.c. */
#include "sandbox/sbx.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#endif
#ifdef GRADER_SECCOMP
#include <seccomp.h>
#endif

#include "sandbox/runner_proto.h"
#include "sandbox/sbx_internal.h"
#include "core/util.h"

int sbx_has_seccomp(void)
{
#ifdef GRADER_SECCOMP
    return 1;
#else
    return 0;
#endif
}

/* ---- sbx object ------------------------------------------------------------ */

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash == NULL ? 1 : (slash == path ? 1 : (size_t)(slash - path));
    char *d = malloc(n + 1);

    if (d == NULL)
        return NULL;
    if (slash == NULL)
        memcpy(d, ".", 1);
    else
        memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

static void apply_defaults(struct sbx *s, const struct sbx_config *cfg)
{
    s->deadline_ms = cfg->deadline_ms > 0 ? cfg->deadline_ms
                                          : SBX_DEFAULT_DEADLINE_MS;
    s->as_limit = cfg->as_limit ? cfg->as_limit : SBX_DEFAULT_AS_LIMIT;
    s->cpu_s = cfg->cpu_s ? cfg->cpu_s : SBX_DEFAULT_CPU_S;
    s->out_cap = cfg->output_cap ? cfg->output_cap : SBX_DEFAULT_OUTPUT_CAP;
    s->ctl = s->res = s->out = s->memfd = s->heap_fd = -1;
    s->srv_ctl = s->srv_res = -1;
    s->nonce = (uint64_t)getpid() ^ (uint64_t)(ut_now_ms() * 1e3);
}

struct sbx *sbx_new(const struct sbx_config *cfg, struct err *e)
{
    struct sbx *s;

    if (cfg == NULL || cfg->runner == NULL || access(cfg->runner, X_OK) != 0) {
        err_set(e, cfg && cfg->runner ? cfg->runner : NULL, 0, 0,
                "the runner is not an executable file");
        return NULL;
    }
    s = calloc(1, sizeof *s);
    if (s == NULL)
        goto oom;
    apply_defaults(s, cfg);
    s->runner = strdup(cfg->runner);
    s->runner_dir = dir_of(cfg->runner);
    s->outbuf = malloc(s->out_cap);
    if (s->runner == NULL || s->runner_dir == NULL || s->outbuf == NULL)
        goto oom;
    return s;
oom:
    sbx_free(s);
    err_set(e, NULL, 0, 0, "out of memory");
    return NULL;
}

void sbx_set_deadline(struct sbx *s, double ms)
{
    if (ms > 0)
        s->deadline_ms = ms;
}

void sbx_set_wall_end(struct sbx *s, double until)
{
    s->wall_end = until > 0 ? until : 0;
    s->thread_queued0 = ut_thread_queued_ms();
}

/* How long the calling thread (the one that set the end: sbx.h) has
 * waited for a CPU since; 0 where the system does not tell. */
static double thread_queued(const struct sbx *s)
{
    double now = s->thread_queued0 >= 0 ? ut_thread_queued_ms() : -1;

    return now > s->thread_queued0 ? now - s->thread_queued0 : 0.0;
}

double sbx_cpu_used(const struct sbx *s)
{
    return s->cpu_total_ms;
}

uint64_t sbx_redzone_bytes(const struct sbx *s)
{
    return s->rz_read;
}

double sbx_stalled(const struct sbx *s)
{
    return s->clock.stall;
}

double sbx_queued(const struct sbx *s)
{
    double now = s->pid > 0 ? ut_proc_queued_ms((int)s->pid) : -1;

    /* a count that cannot be read adds nothing: the wait counts as the
     * submission's, as where the system does not tell */
    return s->queued_ms + (now > 0 ? now : 0.0);
}

/* The end of the submission's budget in sbx_live_ms time, or 0: the one
 * set, later by what its runners and the grader's thread that calls them
 * waited for a CPU (a loaded machine's time is not the submission's). */
static double budget_end(const struct sbx *s)
{
    return s->wall_end > 0 ? s->wall_end + sbx_queued(s) + thread_queued(s) : 0;
}

void sbx_restart(struct sbx *s)
{
    sbx_runner_stop(s);
    s->out_len = 0;
    s->out_trunc = 0;
}

const char *sbx_output(const struct sbx *s, size_t *len)
{
    *len = s->out_len;
    return s->outbuf;
}

int sbx_output_truncated(const struct sbx *s)
{
    return s->out_trunc;
}

long sbx_runner_pid(const struct sbx *s)
{
    return (long)s->pid;
}

void sbx_runner_faults(const struct sbx *s, unsigned *runners, long *minflt)
{
    *runners = s->runners;
    *minflt = s->runner_minflt;
}

void sbx_free(struct sbx *s)
{
    if (s == NULL)
        return;
    sbx_runner_stop(s);
    sbx_server_stop(s);
    free(s->runner);
    free(s->runner_dir);
    free(s->outbuf);
    free(s);
}

/* ---- running a call ------------------------------------------------------ */

/*
 * A completion byte without a current "returned" record. Whatever the
 * runner wrote (its memory is the submission's), this call fails with a
 * reason and the next one gets a fresh runner: it is never an error of
 * the grader, which laid the call out itself and checked it.
 */
static void not_returned(const struct sbx *s, const struct rp_header *rec,
                         struct impl_result *r)
{
    if (rec != NULL && rec->state == RP_NOMEM)
        sbx_set_detail(r, CALL_MEMORY, "ran out of memory: no room was left "
                       "for the call's buffers (limit %zu MiB)",
                       s->as_limit >> 20);
    else if (rec != NULL && rec->state == RP_BADCALL)
        sbx_set_detail(r, CALL_CRASHED, "interfered with the grader's runner "
                       "(it could no longer map the call's buffers)");
    else
        sbx_set_detail(r, CALL_CRASHED, "interfered with the grader's runner "
                       "(wrote to its result channel)");
}

/*
 * Did the submission write past the end of a block it allocated (a
 * redzone changed: runner_proto.h)? Believed only to fail the call: a
 * submission that hides it hides a bug of its own, and a forged one costs
 * it the call. 0, or -1 with r set.
 */
static int heap_intact(struct sbx *s, struct impl_result *r)
{
    uint64_t asked, read = 0;
    int over = sbx_books_overrun(s->heap_fd, &asked, &read);

    s->rz_read += read;
    if (!over)
        return 0;
    sbx_set_detail(r, CALL_OVERRUN, "wrote past the end of a block it "
                   "allocated (%llu bytes asked of malloc/calloc/realloc)",
                   (unsigned long long)asked);
    return -1;
}

/* The runner signalled completion; check its record (rec: our copy, NULL
 * when not from this call), then our copies of the buffers. */
static void returned(struct sbx *s, const struct sbx_call *c,
                     const struct rp_header *mine, const struct rp_header *rec,
                     const unsigned char *mem, long before, struct impl_result *r)
{
    if (rec == NULL || rec->state != RP_RETURNED) {
        not_returned(s, rec, r);
        sbx_runner_stop(s);
        return;
    }
    r->rc = rec->rc;
    /* the runner is idle until the next control byte: its heap is still */
    if ((r->live_allocs = sbx_books_live(s->heap_fd)) < 0) {
        sbx_set_detail(r, CALL_CRASHED, "interfered with the grader's runner "
                       "(its heap)");
        sbx_runner_stop(s);
        return;
    }
    r->live_allocs = r->live_allocs > before ? r->live_allocs - before : 0;
    sbx_drain_output(s);
    if (sbx_check_inputs(c, mine, mem, r) == 0 && heap_intact(s, r) == 0) {
        r->status = CALL_RETURNED;
        sbx_copy_outputs(c, mine, mem);
    } else {
        sbx_runner_stop(s);   /* its memory is suspect: start afresh */
    }
}

/*
 * The runner's record of this call, copied out of shared memory with our
 * own layout and names (the submission can scribble on the shared copy),
 * or NULL when the record is not from this call.
 */
static const struct rp_header *trusted_record(const struct rp_header *shared,
                                              const struct rp_header *mine,
                                              struct rp_header *rec)
{
    if (shared->done != (mine->nonce ^ RP_DONE_XOR))
        return NULL;
    *rec = *shared;
    rec->nbuf = mine->nbuf;
    memcpy(rec->buf, mine->buf, sizeof rec->buf);
    return rec;
}

/* When the wall clock stops the call started at t0 (see SBX_WALL_FACTOR);
 * both in sbx_live_ms time, so a stall of the grader is not counted, nor
 * (at the budget's end) the runners' wait for a CPU. */
static double wall_limit(const struct sbx *s, double t0)
{
    double until = t0 + SBX_WALL_FACTOR * s->deadline_ms + SBX_WALL_SLACK_MS;
    double end = budget_end(s);

    return end > 0 && end < until ? end : until;
}

/* The scheduler's state of process `pid` ('R', 'S', 'D', 'T', ...), or
 * 0 when it cannot be read. */
static char proc_state(pid_t pid)
{
#ifdef __linux__
    char path[64], line[512];
    long long st = -1;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if ((f = fopen(path, "re")) == NULL)
        return 0;
    if (fgets(line, sizeof line, f) != NULL)
        st = ut_stat_field(line, 3);
    fclose(f);
    return st > 0 ? (char)st : 0;
#else
    (void)pid;
    return 0;
#endif
}

/* What a runner whose wall net fired was doing (a few samples). */
enum runner_doing { R_SLEEPS, R_BUSY, R_STUCK, R_STOPPED };

/*
 * The wall net fired with the CPU deadline unspent. A runner that sleeps
 * or blocks (state S in any sample) is the submission's doing; one that
 * was runnable all along (R) is computing on a machine too loaded to give
 * it a core; one in uninterruptible I/O (D: swapping, a frozen cgroup)
 * cannot run at all: the machine's. One stopped (T) in every sample is
 * the submission's too (issue 35): the grader never stops a runner, its
 * sandbox forbids it the stop signals, and a stop of the whole machine
 * (SIGSTOP of the grader's tree) stops the grader as well, which shows as
 * a stall of its own naps: a round of samples with a stall is taken
 * again, and after SBX_STATE_ROUNDS such rounds it is the machine's.
 * Where the state cannot be read it counts as sleeping, as before.
 */
static enum runner_doing runner_doing(struct sbx *s)
{
    for (int round = 0; round < SBX_STATE_ROUNDS; round++) {
        double stall0 = s->clock.stall;
        int busy = 1, stopped = 1;

        for (int i = 0; i < SBX_STATE_SAMPLES; i++) {
            char st = proc_state(s->pid);
            if (st == 0 || st == 'S')
                return R_SLEEPS;
            busy &= st == 'R';
            stopped &= st == 'T';
            sbx_nap(s, 10);
        }
        if (!stopped)
            return busy ? R_BUSY : R_STUCK;
        if (s->clock.stall == stall0)
            return R_STOPPED;
    }
    return R_STUCK;
}

/* The signal that stopped runner pid, as the kernel reports it to its
 * parent (the grader: sbx_proc.c), without consuming the report; 0 when
 * it does not say. */
static int stop_signal(pid_t pid)
{
    siginfo_t si;

    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
        si.si_pid == pid && si.si_code == CLD_STOPPED)
        return si.si_status;
    return 0;
}

/*
 * At the wall net, one look more for the answer, without waiting: a
 * runner that answered while the grader was deciding (its samples take
 * 50 ms, or the grader was paused between its last wait and now) has
 * returned, and the byte says it finished writing (runner_proto.h: it
 * follows the record). 1 with *byte read, else 0.
 */
static int answer_in(struct sbx *s, char *byte)
{
    struct pollfd p = { .fd = s->res, .events = POLLIN };

    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) && read(s->res, byte, 1) == 1;
}

/*
 * Wait for the runner's byte while it has used less than its CPU deadline
 * (cpu0: its CPU clock at the start) and the wall limit has not passed.
 * CPU time never runs ahead of the wall clock, so each wait lasts what the
 * runner could still burn; then the CPU clock decides. When the CPU clock
 * cannot be read (the runner is gone) the wait ends at once and the pipe
 * tells what happened. A runner still busy at the wall net is given up to
 * SBX_WALL_BUSY_FACTOR times as long to reach its CPU deadline (a loop on
 * a loaded machine is still the submission's timeout); one stuck there,
 * or busy past that, is the machine's trouble (s->machine).
 */
static enum sbx_wait_end wait_call(struct sbx *s, double t0, double cpu0, char *byte,
                                   double *cpu_used)
{
    double wall = wall_limit(s, t0), busy_end = t0 + SBX_WALL_BUSY_FACTOR * (wall - t0);
    double left = s->deadline_ms, end_at, now;
    enum runner_doing doing;
    enum sbx_wait_end end;

    s->wall_ms = 0;
    s->machine = s->stopped = s->stop_sig = 0;

    for (;;) {
        end = sbx_wait_byte(s, fmin(sbx_live_ms(s) + left, wall), byte);
        now = ut_proc_cpu_ms((int)s->pid);
        *cpu_used = now >= 0 && cpu0 >= 0 ? now - cpu0 : sbx_live_ms(s) - t0;
        if (end != W_TIMEOUT)
            return end;
        left = s->deadline_ms - *cpu_used;
        if (left <= 0)
            return W_TIMEOUT;
        if (sbx_live_ms(s) < wall)
            continue;
        /* the budget's end moved while the runner waited for a CPU */
        if (wall < busy_end && sbx_live_ms(s) < wall_limit(s, t0)) {
            wall = wall_limit(s, t0);
            continue;
        }
        /* the budget's end is the submission's, whatever it was doing */
        end_at = budget_end(s);
        doing = end_at > 0 && wall >= end_at ? R_SLEEPS : runner_doing(s);
        if (doing == R_BUSY && wall < busy_end) {
            end_at = budget_end(s);
            wall = end_at > 0 && end_at < busy_end ? end_at : busy_end;
            continue;
        }
        if (answer_in(s, byte))
            return W_BYTE;
        s->wall_ms = wall - t0;
        s->machine = doing == R_BUSY || doing == R_STUCK;
        s->stopped = doing == R_STOPPED;
        s->stop_sig = s->stopped ? stop_signal(s->pid) : 0;
        return W_TIMEOUT;
    }
}

/* One try of call c (see sbx_run_call). */
static int run_once(struct sbx *s, const struct sbx_call *c, struct impl_result *r,
                    struct err *e)
{
    struct rp_header mine, rec;
    unsigned char *mem = NULL;
    const struct rp_header *h;
    size_t view_len;
    double t0, cpu0;
    long before;
    char byte = 'c';
    enum sbx_wait_end end;
    int rc = 0;

    memset(r, 0, sizeof *r);
    s->machine = s->stopped = s->stop_sig = 0;
    if (s->pid == 0 && (rc = sbx_runner_start(s, r, e)) != 0)
        return rc < 0 ? -1 : 0;
    if (sbx_prepare(s, c, &mine, &mem, e) != 0) {
        sbx_runner_stop(s);
        return -1;
    }
    view_len = (size_t)s->mem_size;
    if ((before = sbx_books_live(s->heap_fd)) < 0)
        before = 0;
    sbx_books_clear_hints(s->heap_fd);
    h = (const struct rp_header *)mem;
    cpu0 = ut_proc_cpu_ms((int)s->pid);
    sbx_watch(s, 1);
    t0 = sbx_live_ms(s);
    if (send(s->ctl, &byte, 1, MSG_NOSIGNAL) != 1)
        end = W_EOF;
    else
        end = wait_call(s, t0, cpu0, &byte, &r->cpu_ms);
    r->elapsed_ms = sbx_live_ms(s) - t0;
    sbx_watch(s, 0);
    s->cpu_total_ms += r->cpu_ms;
    h = trusted_record(h, &mine, &rec);
    if (end == W_BYTE)
        returned(s, c, &mine, h, mem, before, r);
    else if (end == W_EOF)
        sbx_runner_died(s, h, r);
    else if (end == W_TIMEOUT)
        sbx_timed_out(s, h, r);
    else
        rc = err_set(e, NULL, 0, 0, "lost contact with the runner: %s",
                     strerror(errno));
    if (end == W_ERROR)
        sbx_runner_stop(s);
    munmap(mem, view_len);
    return rc;
}

/*
 * A call whose wall net fired while its runner could not run (s->machine)
 * is the machine's trouble: it is tried once more in a fresh runner (the
 * first try changed none of the caller's buffers), and a second such end
 * is a grader error, never a timeout of the submission.
 */
int sbx_run_call(struct sbx *s, const struct sbx_call *c,
                 struct impl_result *r, struct err *e)
{
    int rc = run_once(s, c, r, e);

    if (rc != 0 || !(r->status == CALL_TIMEOUT && s->machine))
        return rc;
    sbx_runner_stop(s);
    if ((rc = run_once(s, c, r, e)) != 0 || !(r->status == CALL_TIMEOUT && s->machine))
        return rc;
    return err_set(e, NULL, 0, 0, "a call of %s made no progress in %.0f ms of the wall "
                   "clock (%.0f ms of CPU time), twice, while its runner could not run: "
                   "the machine's trouble, not the submission's",
                   asg_fn_cname(c->fn), s->wall_ms, r->cpu_ms);
}
