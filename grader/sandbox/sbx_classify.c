/* sbx_classify.c -- how a call that did not return ended: a recorded
 * fault, a signal, exit(), a forbidden system call or a timeout. */
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

#define REAP_GRACE_MS 200.0      /* result pipe closed, exit not yet seen */

/* ---- classifying the end of a call --------------------------------------------- */

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGKILL: return "SIGKILL";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGPIPE: return "SIGPIPE";
    default: return "a signal";
    }
}

/* The name of a job-control stop signal (0: the kernel did not say). */
static const char *stop_name(int sig)
{
    switch (sig) {
    case SIGSTOP: return "SIGSTOP";
    case SIGTSTP: return "SIGTSTP";
    case SIGTTIN: return "SIGTTIN";
    case SIGTTOU: return "SIGTTOU";
    default: return "a stop signal";
    }
}

static const char *crash_why(int sig, int stack_overflow)
{
    if (sig == SIGSEGV && stack_overflow)
        return " (stack overflow: unbounded recursion or a huge local array?)";
    switch (sig) {
    case SIGSEGV: return " (a bad pointer, or a stack overflow)";
    case SIGABRT: return " (abort(), a failed assert, or a corrupted heap "
                         "such as a double free)";
    case SIGFPE: return " (integer division by zero?)";
    default: return "";
    }
}

void sbx_set_detail(struct impl_result *r, enum impl_status st,
                    const char *fmt, ...)
{
    va_list ap;

    r->status = st;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
}

static void crashed(const struct sbx *s, struct impl_result *r, int sig,
                    const struct rp_header *h)
{
    if (sbx_books_failed(s->heap_fd)) {
        sbx_set_detail(r, CALL_MEMORY, "ran out of memory (limit %zu MiB)",
                   s->as_limit >> 20);
        return;
    }
    r->signo = sig;
    sbx_set_detail(r, CALL_CRASHED, "crashed with %s%s", sig_name(sig),
               crash_why(sig, h != NULL && h->stack_overflow));
}

static void syscall_detail(struct impl_result *r, int nr)
{
    char *name = NULL;

#ifdef GRADER_SECCOMP
    name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
#endif
    r->status = CALL_SYSCALL;
    if (name != NULL)
        snprintf(r->detail, sizeof r->detail,
                 "made a system call the sandbox forbids (%s)", name);
    else
        snprintf(r->detail, sizeof r->detail,
                 "made a system call the sandbox forbids (number %d)", nr);
    free(name);
}

/* A fault the runner's handler recorded (h is the valid shared header). */
static void recorded_fault(const struct sbx *s, struct impl_result *r,
                           const struct rp_header *h)
{
    static const char *const verb[] = { "accessed", "read", "wrote" };
    const char *name = h->bad_buf >= 0 && (uint32_t)h->bad_buf < h->nbuf
                       ? h->buf[h->bad_buf].name : "?";
    char what[64];

    switch (h->state) {
    case RP_OVERRUN:
        snprintf(what, sizeof what, "%s %s", verb[h->access > 0 &&
                 h->access <= RP_ACC_WRITE ? h->access : 0],
                 h->side == RP_BEFORE ? "before the start of" : "past the end of");
        sbx_set_detail(r, CALL_OVERRUN, "%s `%.8s`", what, name);
        return;
    case RP_CONST_WRITE:
        sbx_set_detail(r, CALL_CONST_WRITE, "modified its const input `%.8s`",
                   name);
        return;
    case RP_SYSCALL:
        syscall_detail(r, h->syscall_nr);
        return;
    default:
        crashed(s, r, h->signo, h);
    }
}

/* Whether a killed runner had used up its CPU seconds (the hard limit
 * sends SIGKILL). si_utime and si_stime are in clock ticks. */
static int used_cpu_limit(const struct sbx *s, const siginfo_t *si)
{
    long hz = sysconf(_SC_CLK_TCK);

    return hz > 0 && (double)(si->si_utime + si->si_stime) / (double)hz >=
                     (double)s->cpu_s;
}

/* Classify a runner that exited without completing the call. `h` is the
 * shared header when its record is current, else NULL. */
static void classify_exit(const struct sbx *s, const siginfo_t *si,
                          const struct rp_header *h, struct impl_result *r)
{
    if (si->si_code == CLD_EXITED && si->si_status == RP_EXIT_FAULT && h) {
        recorded_fault(s, r, h);
    } else if (si->si_code == CLD_EXITED) {
        sbx_set_detail(r, CALL_EXITED, "called exit() instead of returning "
                   "(status %d)", si->si_status);
    } else if (si->si_status == SIGSYS) {
        sbx_set_detail(r, CALL_SYSCALL, "made a system call the sandbox "
                   "forbids");
    } else if (si->si_status == SIGXCPU ||
               (si->si_status == SIGKILL && used_cpu_limit(s, si))) {
        sbx_set_detail(r, CALL_TIMEOUT, "used more than %u s of CPU time",
                   s->cpu_s);
    } else if (si->si_status == SIGKILL) {
        sbx_set_detail(r, CALL_MEMORY, "was killed by the system (out of "
                   "memory?)");
    } else {
        crashed(s, r, si->si_status, h);
    }
}

/* The result pipe closed: wait briefly for the exit, then classify. */
void sbx_runner_died(struct sbx *s, const struct rp_header *h,
                        struct impl_result *r)
{
    double until = sbx_live_ms(s) + REAP_GRACE_MS;
    siginfo_t si;

    int seen;

    while ((seen = sbx_peek_exit(s->pid, &si)) == 0 && sbx_live_ms(s) < until)
        sbx_nap(s, 1);
    if (seen == 1)
        classify_exit(s, &si, h, r);
    else
        sbx_set_detail(r, CALL_CRASHED, "closed the grader's result channel");
    sbx_runner_stop(s);
}

void sbx_timed_out(struct sbx *s, const struct rp_header *h,
                      struct impl_result *r)
{
    siginfo_t si;
    kill(-s->pid, SIGKILL);
    kill(s->pid, SIGKILL);
    int seen;

    while ((seen = sbx_peek_exit(s->pid, &si)) == 0)
        sbx_sleep_ms(1);
    if (s->stopped && (seen < 0 || si.si_code == CLD_KILLED)) {
        r->signo = s->stop_sig;
        sbx_set_detail(r, CALL_CRASHED, "stopped itself (%s) instead of "
                       "returning: the sandbox does not allow a stop",
                       stop_name(s->stop_sig));
    } else if (seen < 0 || (si.si_code == CLD_KILLED && si.si_status == SIGKILL)) {
        if (s->wall_ms > 0)
            sbx_set_detail(r, CALL_TIMEOUT, "did not return within %.0f ms of the "
                           "wall clock (sleeping or blocked?)", s->wall_ms);
        else
            sbx_set_detail(r, CALL_TIMEOUT, "did not return within %.0f ms",
                           s->deadline_ms);
    } else {
        classify_exit(s, &si, h, r);
    }
    sbx_runner_stop(s);
}
