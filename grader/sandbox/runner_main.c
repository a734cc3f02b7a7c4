/*
 * runner_main.c -- the trusted half of the runner: linked with the
 * student's attention.o (whose malloc/calloc/realloc/free were renamed to
 * grd_*), it sandboxes itself before any call, then serves calls from the
 * grader over the protocol of runner_proto.h until the control pipe closes.
 *
 * The sandbox is set up in a constructor of priority 101 so that it runs
 * before default-priority constructors; code in a submission's own
 * .init_array/.preinit_array would still run first, which is why the
 * object checker rejects those sections.
 *
 * This is a program of its own, not library code: the few statics below
 * are the only way for the signal handler and the grd_* allocator (whose
 * signatures are fixed) to reach the call's state.
 */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <stdio_ext.h>
#endif
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
#ifdef GRADER_SECCOMP
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#endif

#include "attention.h"
#include "core/compat.h"
#include "sandbox/impl.h"
#include "sandbox/runner_heap.h"
#include "sandbox/runner_proto.h"
#include "sandbox/runner_seccomp.h"

/* A missing function is reported as ATTN_ENOTIMPL instead of failing the
 * link of the whole submission. */
#pragma weak attn_softmax_rows
#pragma weak attn_scaled_dot_product
#pragma weak attn_positional_encoding
#pragma weak attn_multi_head
#pragma weak attn_layer_norm
#pragma weak attn_transformer_block

#define ALTSTACK_SIZE 65536u
#define STATE_ALIGN 65536u /* a multiple of every page size we run on */

/* Where the current call's buffers are, for the fault handler. */
struct rn_region {
    uintptr_t lo, hi;   /* the buffer's pages, guards excluded */
    int writable;
};

struct rn_state {
    struct rp_header *hdr;
    size_t page;
    uintptr_t area_lo, area_hi;       /* whole reservation, 0 when none */
    struct rn_region reg[RP_NBUF];
    uintptr_t stack_lo, stack_hi;     /* where a stack overflow faults */
    /* the layout mapped now, kept from one call to the next while it is
     * the same, since each page mapped anew is a fault (issue 39): with
     * reg[] (each buffer's pages) and map_ptr (its data) these say where
     * each buffer is. Not a copy of struct rp_buf: page-sized words side
     * by side would look like this state to a scan of memory (the
     * forgeries of tests/hostile/ find it so, then fault on the read of
     * an offset instead of on the write they mean to test) */
    uint32_t map_nbuf;
    uint32_t map_flags[RP_NBUF];
    int32_t map_alias[RP_NBUF];
    void *map_ptr[RP_NBUF];
    uint64_t map_off[RP_NBUF];
};

/* The one exception to "no mutable globals": the fault handler is entered
 * from signal delivery, which passes no context, so the state it shares
 * with the call must be reachable without one. The runner is a
 * single-threaded process.
 *
 * The state sits alone in its own pages, reached by address and never
 * through a pointer the student could redirect: while student code runs
 * those pages (and the shared header) are read-only (guard_state), so a
 * submission that scans memory for the page size, the buffer regions or
 * the reply can read them but not forge them. Allocations are not counted
 * here at all (book()). */
static union {
    struct rn_state s;
    unsigned char pad[(sizeof(struct rn_state) + STATE_ALIGN - 1) /
                      STATE_ALIGN * STATE_ALIGN];
} rn_pages __attribute__((aligned(STATE_ALIGN)));
#define rn (rn_pages.s)
static unsigned char rn_altstack[ALTSTACK_SIZE];
static char rn_outbuf[BUFSIZ];

/*
 * What every runner needs and no runner changes, made once (issue 39: a
 * page a runner writes after its fork costs a copy): by the fork server
 * before it forks, or by an exec'd runner for itself (prepare). Never
 * student state: the server runs no student code. Outside rn_pages,
 * which each runner replaces with shared pages of its own (enter).
 */
static struct {
    void *hdr_slot;      /* the address each runner maps its header at */
    int drained;         /* the C library's heap is drained (and limited) */
    struct rsc_filter filter; /* the seccomp filter, made once (rsc_prepare) */
} rn_prep;

/* ---- protecting the state --------------------------------------------- */

/*
 * Make the state and the header read-only (on) or writable again.
 * Only the runner's own code calls this: seccomp allows mprotect on these
 * two addresses alone, and a submission has no mprotect symbol. A failure
 * cannot be recovered from safely, so it ends the runner.
 */
static void guard_state(int on)
{
    int prot = on ? PROT_READ : PROT_READ | PROT_WRITE;

    if (mprotect(&rn_pages, sizeof rn_pages, prot) != 0 ||
        (rn.hdr != NULL && mprotect(rn.hdr, RP_HDR_SIZE, prot) != 0))
        _exit(RP_EXIT_SETUP);
}

/* ---- fault handling ----------------------------------------------------- */

static enum rp_access fault_access(const void *ucv)
{
#if defined(__x86_64__) && defined(REG_ERR)
    const ucontext_t *uc = ucv;

    /* Bit 1 of the page-fault error code: the access was a write. */
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? RP_ACC_WRITE : RP_ACC_READ;
#else
    (void)ucv;
    return RP_ACC_UNKNOWN;
#endif
}

/* Classify an address inside the reservation: a read-only region, or the
 * guard page after / before a region. Returns 0 when it is none of them. */
static int classify_addr(uintptr_t a, struct rp_header *h)
{
    uint32_t i;

    for (i = 0; i < RP_NBUF && i < h->nbuf; i++) {
        const struct rn_region *r = &rn.reg[i];

        if (r->hi == 0)
            continue;
        if (a >= r->lo && a < r->hi) {
            h->state = r->writable ? RP_CRASHED : RP_CONST_WRITE;
        } else if (a >= r->hi && a < r->hi + rn.page) {
            h->state = RP_OVERRUN;
            h->side = RP_AFTER;
        } else if (a + rn.page >= r->lo && a < r->lo) {
            h->state = RP_OVERRUN;
            h->side = RP_BEFORE;
        } else {
            continue;
        }
        h->bad_buf = (int32_t)i;
        return 1;
    }
    return 0;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    struct rp_header *h = rn.hdr;
    uintptr_t a = (uintptr_t)si->si_addr;

    guard_state(0);
    h->signo = sig;
    h->state = RP_CRASHED;
    h->bad_buf = -1;
#ifdef SIGSYS
    if (sig == SIGSYS) {
        h->state = RP_SYSCALL;
        h->syscall_nr = si->si_syscall;
    }
#endif
    if ((sig == SIGSEGV || sig == SIGBUS) && rn.area_hi != 0 &&
        a >= rn.area_lo && a < rn.area_hi && classify_addr(a, h))
        h->access = fault_access(uc);
    else if (sig == SIGSEGV && a >= rn.stack_lo && a < rn.stack_hi)
        h->stack_overflow = 1;
    h->done = h->nonce ^ RP_DONE_XOR;
    _exit(RP_EXIT_FAULT);
}

static int install_handlers(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                                SIGTRAP, SIGSYS };
    stack_t ss = { .ss_sp = rn_altstack, .ss_size = sizeof rn_altstack };
    struct sigaction sa;
    size_t i;

    if (sigaltstack(&ss, NULL) != 0)
        return -1;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], &sa, NULL) != 0)
            return -1;
    return 0;
}

/* The range a stack overflow faults in: below the current stack, up to
 * its rlimit plus a margin for the guard gap. */
static void note_stack(void)
{
    struct rlimit rl;
    uintptr_t top = (uintptr_t)__builtin_frame_address(0);
    uintptr_t lim = 64u << 20;

    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < lim)
        lim = (uintptr_t)rl.rlim_cur;
    lim += 1u << 20;
    rn.stack_lo = top > lim ? top - lim : 0;
    rn.stack_hi = top + (1u << 20);
}

/*
 * Memory the parent does not count must not be had. The heap file and the
 * call's memfd are shared mappings; every other way to new memory is
 * private and writable (brk, anonymous or private mappings, mremap), and
 * RLIMIT_DATA at 0 makes the kernel refuse all of them from then on (the
 * stack has its own limit; mappings made so far stay). The C library's own
 * malloc, reachable by address from any allowed symbol, could still hand
 * out the free space its arena already has: drain_libc_heap takes it
 * before any student code runs, so that it has nothing left to give (a
 * few thousand mallocs at most; the runner itself never calls malloc after
 * that: stdout has a static buffer). The limit and the drain are made
 * once, before the fork (prepare), when the filter is prepared there too:
 * nothing in a runner allocates then.
 */
static void drain_libc_heap(void)
{
#if CPT_LINUX && defined(__GLIBC__)
    static void *volatile sink;

    for (size_t n = (size_t)1 << 21; n >= 8; n /= 2)
        while ((sink = malloc(n)) != NULL)
            ;
#endif
}

static void limit_data(void)
{
#if CPT_LINUX && defined(__GLIBC__)
    const struct rlimit none = { 0, 0 };

    if (setrlimit(RLIMIT_DATA, &none) != 0)
        _exit(RP_EXIT_SETUP);
#endif
}

/*
 * What every runner shares (rn_prep, and the process state a fork keeps:
 * stdout's buffer, the signal handlers and their stack, no_new_privs, the
 * drained heap under RLIMIT_DATA), made once: by the fork server before
 * it serves, or by an exec'd runner for itself. No student code has run.
 */
static void prepare(void)
{
    /* where every runner maps its header: an address the filter names */
    rn_prep.hdr_slot = mmap(NULL, RP_HDR_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    if (rn_prep.hdr_slot == MAP_FAILED)
        _exit(RP_EXIT_SETUP);
    /* Line-buffered, so that what was printed before a crash is kept; a
     * buffer of our own, since the C library's heap cannot grow later. */
    setvbuf(stdout, rn_outbuf, _IOLBF, sizeof rn_outbuf);
    if (install_handlers() != 0)
        _exit(RP_EXIT_SETUP);
#ifdef __linux__
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(RP_EXIT_SETUP);
#endif
#if CPT_LINUX && defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 8 << 20);
    if (rsc_prepare(&rn_prep.filter, (uintptr_t)&rn_pages, (uintptr_t)rn_prep.hdr_slot)) {
        limit_data();
        drain_libc_heap();
        rn_prep.drained = 1;
    } else {
        /* room in the arena for libseccomp, which allocates as each
         * runner builds its filter under the limit */
        void *room = malloc(1 << 20);
        if (room == NULL)
            _exit(RP_EXIT_SETUP);
        free(room);
    }
#else
    (void)rsc_prepare(&rn_prep.filter, (uintptr_t)&rn_pages, (uintptr_t)rn_prep.hdr_slot);
#endif
}

/* Sandbox this process (prepared) before any student code can run, then
 * say so: what each runner writes for itself. */
static void enter(void)
{
    char ready = RP_READY_BYTE;
    void *h;

#if CPT_LINUX && defined(__GLIBC__)
    /* guard_state makes the state writable again after every call, which
     * the limit refuses for private pages: share them (same address; a
     * runner's own, never the server's) */
    if (mmap(&rn_pages, sizeof rn_pages, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != (void *)&rn_pages)
        _exit(RP_EXIT_SETUP);
#endif
    limit_data();
    h = mmap(rn_prep.hdr_slot, RP_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
             RP_FD_MEM, 0);
    if (h != rn_prep.hdr_slot)
        _exit(RP_EXIT_SETUP);
    rn.hdr = h;
    rn.page = (size_t)sysconf(_SC_PAGESIZE);
    note_stack();
    rh_heap_setup(rn.page);
    if (rsc_install(&rn_prep.filter, (uintptr_t)&rn_pages, (uintptr_t)rn_prep.hdr_slot) != 0)
        _exit(RP_EXIT_SETUP);
    if (!rn_prep.drained)
        drain_libc_heap();
    if (write(RP_FD_RES, &ready, 1) != 1)
        _exit(RP_EXIT_SETUP);
}

/*
 * glibc passes (argc, argv, envp) to constructors. Run as "runner serve"
 * the process is a fork server (serve() in main) and sandboxes only the
 * children it forks; run plainly it sandboxes itself and serves calls.
 */
__attribute__((constructor(101))) static void runner_setup(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], RP_SERVE_ARG) == 0)
        return;
    prepare();
    enter();
}

/* ---- one call -------------------------------------------------------------- */

/* Checks the parent's layout against the memfd; 0 when consistent. */
static int check_layout(const struct rp_header *h, uint64_t *area)
{
    struct stat st;
    uint32_t i;

    *area = 0;
    if (h->version != RP_VERSION || h->nbuf > RP_NBUF ||
        h->fn >= ASG_FN_COUNT || fstat(RP_FD_MEM, &st) != 0)
        return -1;
    for (i = 0; i < h->nbuf; i++) {
        const struct rp_buf *b = &h->buf[i];

        if (!(b->flags & RP_BUF_PRESENT) || b->alias >= 0)
            continue;
        if (b->off % rn.page || b->map_len % rn.page || b->map_len == 0 ||
            b->len > b->map_len || b->off < RP_HDR_SIZE ||
            b->off > (uint64_t)st.st_size ||
            b->map_len > (uint64_t)st.st_size - b->off)
            return -1;
        *area += b->map_len + 2 * rn.page;
    }
    return 0;
}

static void unmap_buffers(void)
{
    uintptr_t lo = rn.area_lo, hi = rn.area_hi;

    rn.area_lo = rn.area_hi = 0;
    rn.map_nbuf = 0;
    memset(rn.reg, 0, sizeof rn.reg);
    if (hi != 0)
        munmap((void *)lo, hi - lo);
}

/* Is h's layout the one mapped now (every buffer's flags and alias, and
 * each mapped one's offset, pages and length; the names aside)? */
static int same_layout(const struct rp_header *h)
{
    if (rn.area_hi == 0 || h->nbuf != rn.map_nbuf)
        return 0;
    for (uint32_t i = 0; i < h->nbuf; i++) {
        const struct rp_buf *a = &h->buf[i];
        const struct rn_region *r = &rn.reg[i];
        if (a->flags != rn.map_flags[i] || a->alias != rn.map_alias[i])
            return 0;
        if (r->hi != 0 && (a->off != rn.map_off[i] || a->map_len != r->hi - r->lo ||
                           a->len != r->hi - (uintptr_t)rn.map_ptr[i]))
            return 0;
    }
    return 1;
}

/* Map every buffer between guard pages; fills ptr[] (NULL when absent).
 * A layout the same as the last call's is kept mapped: the same pages of
 * the memfd at the same places with the same protections, which the
 * grader filled afresh, as a new mapping would have it (munmap and mmap
 * of the same size give back the same addresses too).
 * Returns 0, -1 on an inconsistent layout, -2 when address space ran out. */
static int map_buffers(const struct rp_header *h, void *ptr[RP_NBUF])
{
    uint64_t area;
    uintptr_t pos;
    uint32_t i;
    char *base;

    memset(ptr, 0, sizeof(void *) * RP_NBUF);
    if (check_layout(h, &area) != 0) {
        unmap_buffers();
        return -1;
    }
    if (same_layout(h)) {
        memcpy(ptr, rn.map_ptr, sizeof(void *) * RP_NBUF);
        return 0;
    }
    unmap_buffers();
    area += rn.page;
    base = mmap(NULL, area, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
                MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return errno == ENOMEM ? -2 : -1;
    rn.area_lo = (uintptr_t)base;
    rn.area_hi = rn.area_lo + area;
    pos = rn.area_lo + rn.page;
    for (i = 0; i < h->nbuf; i++) {
        const struct rp_buf *b = &h->buf[i];
        int prot = PROT_READ | ((b->flags & RP_BUF_WRITABLE) ? PROT_WRITE : 0);

        if (!(b->flags & RP_BUF_PRESENT))
            continue;
        if (b->alias >= 0) {
            if ((uint32_t)b->alias >= i)
                return -1;
            ptr[i] = ptr[b->alias];
            continue;
        }
        if (mmap((void *)pos, b->map_len, prot, MAP_SHARED | MAP_FIXED,
                 RP_FD_MEM, (off_t)b->off) == MAP_FAILED)
            return errno == ENOMEM ? -2 : -1;
        rn.reg[i] = (struct rn_region){ pos, pos + b->map_len,
                                        (b->flags & RP_BUF_WRITABLE) != 0 };
        ptr[i] = (char *)pos + (b->map_len - b->len);
        pos += b->map_len + 2 * rn.page;
    }
    rn.map_nbuf = h->nbuf;
    for (i = 0; i < h->nbuf; i++) {
        rn.map_flags[i] = h->buf[i].flags;
        rn.map_alias[i] = h->buf[i].alias;
        rn.map_off[i] = h->buf[i].off;
    }
    memcpy(rn.map_ptr, ptr, sizeof rn.map_ptr);
    return 0;
}

#define FN_OR_STUB(f) if ((f) == NULL) return ATTN_ENOTIMPL

/* Call the one requested function with the mapped pointers. */
static int dispatch(const struct rp_header *h, void *const p[RP_NBUF])
{
    const uint64_t *d = h->dim;

    switch (h->fn) {
    case ASG_SOFTMAX:
        FN_OR_STUB(attn_softmax_rows);
        return attn_softmax_rows(p[0], d[0], d[1]);
    case ASG_SDPA:
        FN_OR_STUB(attn_scaled_dot_product);
        return attn_scaled_dot_product(p[0], p[1], p[2], d[0], d[1], d[2],
                                       d[3], p[3], p[4], p[5]);
    case ASG_PE:
        FN_OR_STUB(attn_positional_encoding);
        return attn_positional_encoding(p[0], d[0], d[1]);
    case ASG_MHA:
        FN_OR_STUB(attn_multi_head);
        return attn_multi_head(p[0], d[0], p[1], d[1], d[2], d[3], p[2], p[3],
                               p[4], p[5], p[6], p[7], p[8]);
    case ASG_LAYERNORM:
        FN_OR_STUB(attn_layer_norm);
        return attn_layer_norm(p[0], d[0], d[1], h->eps);
    default:
        FN_OR_STUB(attn_transformer_block);
        return attn_transformer_block(p[0], d[0], d[1], d[2], d[3], p[1],
                                      p[2], p[3], p[4], p[5], p[6], p[7],
                                      p[8], p[9], h->eps);
    }
}

/* fflush(f) when it holds output: an fflush of nothing writes the
 * stream's lock and flags all the same, two pages a runner would copy
 * after its fork for no output at all. */
static void flush_pending(FILE *f)
{
#if defined(__GLIBC__) && !defined(GRADER_PORTABLE)
    if (__fpending(f) == 0)
        return;
#endif
    fflush(f);
}

/*
 * One call. The state and the header are read-only while the submission
 * runs, and nothing the verdict rests on is kept in this frame, whose
 * stack the submission can write (the allocations are counted by the
 * parent).
 */
static void serve_call(struct rp_header *h)
{
    void *ptr[RP_NBUF];
    int rc = map_buffers(h, ptr);

    if (rc != 0) {
        /* -2: no room left for the buffers, the submission took it all */
        h->state = rc == -2 ? RP_NOMEM : RP_BADCALL;
        unmap_buffers();
        h->done = h->nonce ^ RP_DONE_XOR;
        return;
    }
    guard_state(1);
    rc = dispatch(h, ptr);
    flush_pending(stdout);
    flush_pending(stderr);
    guard_state(0);
    h->rc = rc;
    h->state = RP_RETURNED;
    h->done = h->nonce ^ RP_DONE_XOR;
}

/* Serve calls on the protocol descriptors until the grader closes them. */
static void __attribute__((noreturn)) call_loop(void)
{
    char c;
    ssize_t n;

    for (;;) {
        n = read(RP_FD_CTL, &c, 1);
        if (n == 0)
            _exit(0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            _exit(RP_EXIT_SETUP);
        serve_call(rn.hdr);
        if (write(RP_FD_RES, &c, 1) != 1)
            _exit(0);
    }
}

/* ---- the fork server ------------------------------------------------------ */

#ifdef __linux__
/* Receive one spawn request: RP_SPAWN_FDS descriptors (ctl, out, mem, res,
 * books) with one byte. Returns 1, 0 at EOF (the grader is done), -1. */
static int recv_spawn(int fds[RP_SPAWN_FDS])
{
    char byte, ctrl[CMSG_SPACE(sizeof(int) * RP_SPAWN_FDS)];
    struct iovec iov = { &byte, 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = ctrl, .msg_controllen = sizeof ctrl };
    struct cmsghdr *c;
    ssize_t n;

    while ((n = recvmsg(RP_FD_CTL, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (n <= 0)
        return n == 0 ? 0 : -1;
    c = CMSG_FIRSTHDR(&m);
    if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(sizeof(int) * RP_SPAWN_FDS))
        return -1;
    memcpy(fds, CMSG_DATA(c), sizeof(int) * RP_SPAWN_FDS);
    return 1;
}

/* In the new child: its own descriptors at RP_FD_*, nothing else open.
 * The server holds 0..RP_FD_COUNT-1, so every received descriptor is
 * above them and the dup2s overwrite no source (and drop O_CLOEXEC). */
static void take_fds(const int got[RP_SPAWN_FDS])
{
    const int want[RP_FD_COUNT] = { got[0], got[1], got[1], got[2], got[3], got[4] };

    for (int i = 0; i < RP_SPAWN_FDS; i++)
        if (got[i] < RP_FD_COUNT)
            _exit(RP_EXIT_SETUP);
    for (int i = 0; i < RP_FD_COUNT; i++)
        if (dup2(want[i], i) != i)
            _exit(RP_EXIT_SETUP);
    if (syscall(SYS_close_range, RP_FD_COUNT, ~0u, 0) != 0)
        for (int i = RP_FD_COUNT; i < 64; i++)
            close(i);
}

/*
 * One test's runner: forked from the server's initialised state (dynamic
 * loading and relocation done once, no student code ever run), then
 * isolated exactly as an exec'd runner: its own address space, process
 * group and descriptors, PR_SET_PDEATHSIG, and the whole sandbox --
 * seccomp included -- before its first call. CLONE_PARENT makes it the
 * grader's child, so that the grader reaps and classifies it itself.
 */
static void __attribute__((noreturn)) spawned(const int fds[RP_SPAWN_FDS], pid_t grader)
{
    take_fds(fds);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != grader)
        _exit(RP_EXIT_SETUP);
    enter();
    call_loop();
}

/* Fork a runner per request; reply with its pid (int32) on RP_FD_RES. */
static void __attribute__((noreturn)) serve(void)
{
    pid_t grader = getppid();
    char ready = RP_SERVER_BYTE;
    int fds[RP_SPAWN_FDS], got;

    prepare();
    if (write(RP_FD_RES, &ready, 1) != 1)
        _exit(RP_EXIT_SETUP);
    while ((got = recv_spawn(fds)) == 1) {
        /* raw clone: glibc's fork() has no CLONE_PARENT */
        long pid = syscall(SYS_clone, (unsigned long)(CLONE_PARENT | SIGCHLD), 0, 0, 0, 0);
        /* a failed clone says why (-errno): EAGAIN is the account's
         * process limit, the machine's trouble and not the submission's */
        int32_t reply = pid < 0 ? -(int32_t)errno : (int32_t)pid;
        if (pid == 0)
            spawned(fds, grader);
        for (int i = 0; i < RP_SPAWN_FDS; i++)
            close(fds[i]);
        if (write(RP_FD_RES, &reply, sizeof reply) != (ssize_t)sizeof reply)
            _exit(0);
    }
    _exit(got == 0 ? 0 : RP_EXIT_SETUP);
}
#endif

int main(int argc, char **argv)
{
#ifdef __linux__
    if (argc == 2 && strcmp(argv[1], RP_SERVE_ARG) == 0)
        serve();
#else
    (void)argc, (void)argv;
#endif
    call_loop();
}
