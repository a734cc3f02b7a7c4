/*
 * runner_seccomp.c -- the runner's seccomp filter (runner_seccomp.h):
 * the rules, built with libseccomp, and the filter made once as BPF in
 * the fork server so that each runner only patches its pid in (issue 39:
 * building it cost each runner about 40 page writes). Split from
 * runner_main.c, whose state it never touches: the two addresses the
 * rules name come in as arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef GRADER_SECCOMP
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#endif

#include "sandbox/runner_proto.h"
#include "sandbox/runner_seccomp.h"

#ifdef GRADER_SECCOMP
enum arg_rule { ARG_ANY, ARG_SELF_SIG1, ARG_SELF_SIG2, ARG_EMPTY_PATH, ARG_NO_EXEC,
                ARG_STATE, ARG_HEADER, ARG_BELOW_HEAP, ARG_HEAP };

struct sc_rule {
    int nr;
    uint32_t action;
    enum arg_rule arg;
};

/* Everything else traps (SIGSYS, recorded, then the runner exits). */
static const struct sc_rule sc_rules[] = {
    { SCMP_SYS(read), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(write), SCMP_ACT_ALLOW, ARG_BELOW_HEAP },
    { SCMP_SYS(readv), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(writev), SCMP_ACT_ALLOW, ARG_BELOW_HEAP },
    { SCMP_SYS(lseek), SCMP_ACT_ALLOW, ARG_ANY },     /* pipes: ESPIPE */
    /* private writable memory cannot grow (RLIMIT_DATA: limit_data) */
    { SCMP_SYS(mmap), SCMP_ACT_ALLOW, ARG_NO_EXEC },
    { SCMP_SYS(munmap), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(mremap), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(brk), SCMP_ACT_ALLOW, ARG_ANY },
    /* grd_free punches blocks out of the heap file (runner_proto.h) */
    { SCMP_SYS(fallocate), SCMP_ACT_ALLOW, ARG_HEAP },
    { SCMP_SYS(madvise), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(exit), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(exit_group), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(rt_sigreturn), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(rt_sigprocmask), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(restart_syscall), SCMP_ACT_ALLOW, ARG_ANY },
    /* stdio fstat()s a stream before its first write */
    { SCMP_SYS(fstat), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(newfstatat), SCMP_ACT_ALLOW, ARG_EMPTY_PATH },
    { SCMP_SYS(clock_gettime), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(clock_getres), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(gettimeofday), SCMP_ACT_ALLOW, ARG_ANY },
    /* a sleeping call still meets its deadline */
    { SCMP_SYS(nanosleep), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(clock_nanosleep), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(sched_yield), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(futex), SCMP_ACT_ALLOW, ARG_ANY },
    /* abort() and raise() signal the process itself, with any signal but
     * the four that stop it (issue 35): a stopped runner is read as a
     * paused machine, so only the kernel or the staff may stop one.
     * SELF_SIG1: the signal is argument 1 (kill, tkill); SIG2: argument 2
     * (tgkill) */
    { SCMP_SYS(getpid), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(gettid), SCMP_ACT_ALLOW, ARG_ANY },
    { SCMP_SYS(tgkill), SCMP_ACT_ALLOW, ARG_SELF_SIG2 },
    { SCMP_SYS(tkill), SCMP_ACT_ALLOW, ARG_SELF_SIG1 },
    { SCMP_SYS(kill), SCMP_ACT_ALLOW, ARG_SELF_SIG1 },
    /* answers glibc copes with */
    { SCMP_SYS(ioctl), SCMP_ACT_ERRNO(ENOTTY), ARG_ANY },   /* isatty() */
    { SCMP_SYS(getrandom), SCMP_ACT_ERRNO(ENOSYS), ARG_ANY },
    /* guard_state on the runner's own pages only; any other mprotect
     * traps (libseccomp cannot say "neither of two addresses" for EPERM) */
    { SCMP_SYS(mprotect), SCMP_ACT_ALLOW, ARG_STATE },
    { SCMP_SYS(mprotect), SCMP_ACT_ALLOW, ARG_HEADER },
};

/* The signals a runner may send itself: all of 0..SELF_SIG_MAX but the
 * job-control stops. */
#define SELF_SIG_MAX 64

static int self_sig_ok(long sig)
{
    return sig != SIGSTOP && sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU;
}

/*
 * Allow r's call with argument 0 == self and its signal argument (`arg`)
 * one of the allowed signals. The allowed numbers are covered by aligned
 * blocks (value & ~(2^k - 1) == start), compared on all 64 bits: the
 * kernel reads the signal as an int, so a value with high bits set over
 * SIGSTOP matches no block and traps, rather than passing a compare that
 * looked at the whole register.
 */
static int add_self_sig_rules(scmp_filter_ctx ctx, const struct sc_rule *r,
                              pid_t self, unsigned arg)
{
    long lo = 0, hi;
    int rc = 0;

    while (lo <= SELF_SIG_MAX) {
        if (!self_sig_ok(lo)) {
            lo++;
            continue;
        }
        for (hi = lo; hi + 1 <= SELF_SIG_MAX && self_sig_ok(hi + 1); hi++)
            ;
        while (lo <= hi) {      /* [lo, hi] in aligned power-of-two blocks */
            long size = 1;
            while (lo % (size * 2) == 0 && lo + size * 2 - 1 <= hi)
                size *= 2;
            rc |= seccomp_rule_add(ctx, r->action, r->nr, 2,
                                   SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self),
                                   (struct scmp_arg_cmp){ arg, SCMP_CMP_MASKED_EQ,
                                                          ~(scmp_datum_t)(size - 1),
                                                          (scmp_datum_t)lo });
            lo += size;
        }
    }
    return rc;
}

static int add_rule(scmp_filter_ctx ctx, const struct sc_rule *r, pid_t self,
                    uintptr_t state, uintptr_t hdr)
{

    if (r->nr < 0)
        return 0;               /* not a syscall on this architecture */
    switch (r->arg) {
    case ARG_SELF_SIG1:
        return add_self_sig_rules(ctx, r, self, 1);
    case ARG_SELF_SIG2:
        return add_self_sig_rules(ctx, r, self, 2);
    case ARG_EMPTY_PATH:
        return seccomp_rule_add(ctx, r->action, r->nr, 1,
                                SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH,
                                        AT_EMPTY_PATH));
    case ARG_NO_EXEC:
        return seccomp_rule_add(ctx, r->action, r->nr, 1,
                                SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    case ARG_BELOW_HEAP:
        return seccomp_rule_add(ctx, r->action, r->nr, 1,
                                SCMP_A0(SCMP_CMP_LT, RP_FD_HEAP));
    case ARG_HEAP:
        return seccomp_rule_add(ctx, r->action, r->nr, 1,
                                SCMP_A0(SCMP_CMP_EQ, RP_FD_HEAP));
    case ARG_STATE:
        return seccomp_rule_add(ctx, r->action, r->nr, 1,
                                SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)state));
    case ARG_HEADER:
        return seccomp_rule_add(ctx, r->action, r->nr, 1,
                                SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)hdr));

    default:
        return seccomp_rule_add(ctx, r->action, r->nr, 0);
    }
}

/* The filter for a runner whose pid is `self`, or NULL. */
static scmp_filter_ctx build_filter(pid_t self, uintptr_t state, uintptr_t hdr)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
    size_t i;
    int rc = 0;

    if (ctx == NULL)
        return NULL;
    rc |= seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
                           SCMP_ACT_KILL_PROCESS);
    for (i = 0; i < sizeof sc_rules / sizeof sc_rules[0]; i++)
        rc |= add_rule(ctx, &sc_rules[i], self, state, hdr);
    if (rc != 0) {
        seccomp_release(ctx);
        return NULL;
    }
    return ctx;
}

/* The filter for `self` as BPF into out[0..BPF_MAXINSNS): its length, or
 * 0. libseccomp exports to a descriptor only: a pipe holds it (at most
 * 32 KiB, under a pipe's 64 KiB). */
static size_t export_filter(pid_t self, struct sock_filter *out, uintptr_t state,
                            uintptr_t hdr)
{
    scmp_filter_ctx ctx = build_filter(self, state, hdr);
    size_t got = 0, cap = BPF_MAXINSNS * sizeof *out;
    ssize_t n = 0;
    int p[2], rc;

    if (ctx == NULL)
        return 0;
    if (pipe(p) != 0) {
        seccomp_release(ctx);
        return 0;
    }
    rc = seccomp_export_bpf(ctx, p[1]);
    seccomp_release(ctx);
    close(p[1]);
    while (rc == 0 && got < cap &&
           ((n = read(p[0], (char *)out + got, cap - got)) > 0 || (n < 0 && errno == EINTR)))
        got += n > 0 ? (size_t)n : 0;
    close(p[0]);
    return rc == 0 && n == 0 && got % sizeof *out == 0 ? got / sizeof *out : 0;
}

/* Stand-ins for a runner's pid, above any pid (PID_MAX_LIMIT is 2^22). */
#define SELF_A 0x3ffffff1
#define SELF_B 0x3ffffff2

/*
 * The filter once, in BPF, for every runner: built for two stand-in pids,
 * the instructions where the two differ -- by the stand-in alone -- are
 * the ones that compare with the pid, and each runner writes its own pid
 * there (install_filter). Building it took each runner about 40 page
 * writes (libseccomp's allocations, its lazy binding). 0 when it cannot
 * be made so: each runner then builds its own (build_filter).
 */
int rsc_prepare(struct rsc_filter *f, uintptr_t state, uintptr_t hdr)
{
    static struct sock_filter other[BPF_MAXINSNS];
    size_t len = export_filter(SELF_A, f->insn, state, hdr);
    unsigned n = 0;

    if (len == 0 || export_filter(SELF_B, other, state, hdr) != len)
        return 0;
    for (size_t i = 0; i < len; i++) {
        const struct sock_filter *a = &f->insn[i], *b = &other[i];
        if (memcmp(a, b, sizeof *a) == 0)
            continue;
        if (a->code != b->code || a->jt != b->jt || a->jf != b->jf || a->k != SELF_A ||
            b->k != SELF_B || n == sizeof f->pid_at / sizeof f->pid_at[0])
            return 0;
        f->pid_at[n++] = (unsigned short)i;
    }
    f->len = (unsigned short)len;
    f->n_pid = (unsigned short)n;
    return n > 0;
}

/* This runner's filter: the prepared one with its pid, or one built now. */
int rsc_install(struct rsc_filter *f, uintptr_t state, uintptr_t hdr)
{
    pid_t self = getpid();
    scmp_filter_ctx ctx;
    int rc;

    if (f->len > 0) {
        struct sock_fprog prog = { f->len, f->insn };
        for (unsigned i = 0; i < f->n_pid; i++)
            f->insn[f->pid_at[i]].k = (uint32_t)self;
        return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : -1;
    }
    if ((ctx = build_filter(self, state, hdr)) == NULL)
        return -1;
    rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc == 0 ? 0 : -1;
}
#else
int rsc_prepare(struct rsc_filter *f, uintptr_t state, uintptr_t hdr)
{
    (void)f, (void)state, (void)hdr;
    return 0;
}

int rsc_install(struct rsc_filter *f, uintptr_t state, uintptr_t hdr)
{
    (void)f, (void)state, (void)hdr;
    return 0;
}
#endif
