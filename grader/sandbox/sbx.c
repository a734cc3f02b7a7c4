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
#include <sys/prctl.h>
#endif
#ifdef GRADER_SECCOMP
#include <seccomp.h>
#endif

#include "sandbox/runner_proto.h"
#include "sandbox/sbx_internal.h"
#include "core/util.h"

#define START_TIMEOUT_MS 10000.0 /* exec + dynamic loading + seccomp */
#define REAP_GRACE_MS 200.0      /* result pipe closed, exit not yet seen */
#define DRAIN_CHUNK 65536
#define DRAIN_ROUNDS 16
#define MEM_MAX ((uint64_t)1 << 34) /* shared memory per call, hard cap */

struct sbx {
    char *runner;
    char *runner_dir;
    double deadline_ms;
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
};

/* ---- small helpers ------------------------------------------------------- */

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* splitmix64: the nonce only needs to differ between calls. */
static uint64_t next_nonce(struct sbx *s)
{
    uint64_t z = (s->nonce += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int cloexec_pipe(int p[2])
{
#ifdef __linux__
    return pipe2(p, O_CLOEXEC);
#else
    if (pipe(p) != 0)
        return -1;
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

static int make_memfd(void)
{
#ifdef __linux__
    return memfd_create("grader-call", MFD_CLOEXEC);
#else
    char name[64];
    int fd;

    snprintf(name, sizeof name, "/grader-call-%ld", (long)getpid());
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd >= 0)
        shm_unlink(name);
    return fd;
#endif
}

int sbx_has_seccomp(void)
{
#ifdef GRADER_SECCOMP
    return 1;
#else
    return 0;
#endif
}

/* ---- output capture -------------------------------------------------------- */

static void keep_output(struct sbx *s, const char *buf, size_t n)
{
    size_t room = s->out_cap - s->out_len;

    if (n > room) {
        n = room;
        s->out_trunc = 1;
    }
    memcpy(s->outbuf + s->out_len, buf, n);
    s->out_len += n;
}

/* Read what the output pipe holds now, at most DRAIN_ROUNDS chunks so
 * that a flood cannot keep us from watching the deadline; closes the pipe
 * at EOF. */
static void drain_output(struct sbx *s)
{
    char buf[DRAIN_CHUNK];
    ssize_t n = -1;
    int round;

    for (round = 0; round < DRAIN_ROUNDS && s->out >= 0; round++) {
        n = read(s->out, buf, sizeof buf);
        if (n > 0)
            keep_output(s, buf, (size_t)n);
        else if (n == 0 || (errno != EINTR))
            break;
    }
    if (s->out >= 0 && n == 0)
        close_fd(&s->out);
}

/* ---- starting and stopping a runner ------------------------------------------ */

static void child_limits(const struct sbx *s)
{
    /* hard > soft: at the soft limit SIGXCPU says why it ended */
    struct rlimit cpu = { s->cpu_s, (rlim_t)s->cpu_s + 1 };
    struct rlimit as = { s->as_limit, s->as_limit };
    struct rlimit zero = { 0, 0 };
    struct rlimit files = { 16, 16 };

    if (setrlimit(RLIMIT_CPU, &cpu) || setrlimit(RLIMIT_AS, &as) ||
        setrlimit(RLIMIT_FSIZE, &zero) || setrlimit(RLIMIT_CORE, &zero) ||
        setrlimit(RLIMIT_NOFILE, &files))
        _exit(127);
}

/* Put fds[i] at number i. Everything goes above the targets first, so
 * that no dup2 overwrites a source and every result loses O_CLOEXEC. */
static void child_fds(const int fds[RP_FD_COUNT])
{
    int high[RP_FD_COUNT];
    int i;

    for (i = 0; i < RP_FD_COUNT; i++)
        if ((high[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10)) < 0)
            _exit(127);
    for (i = 0; i < RP_FD_COUNT; i++)
        if (dup2(high[i], i) != i)
            _exit(127);
#if defined(__linux__) && defined(CLOSE_RANGE_CLOEXEC)
    if (close_range(RP_FD_COUNT, ~0u, 0) == 0)
        return;
#endif
    for (i = RP_FD_COUNT; i < 4096; i++)
        close(i);
}

/* In the forked child: only async-signal-safe calls until execve. */
static void child_exec(const struct sbx *s, pid_t parent,
                       const int fds[RP_FD_COUNT])
{
    char *const argv[] = { (char *)"runner", NULL };
    char *const envp[] = { NULL };
    sigset_t none;

    setpgid(0, 0);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != parent)
        _exit(127);
    signal(SIGPIPE, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (chdir(s->runner_dir) != 0)
        _exit(127);
    child_fds(fds);
    child_limits(s);    /* after child_fds: NOFILE would refuse high fds */
    execve(s->runner, argv, envp);
    _exit(127);
}

/* Make the channels: ctl is a socketpair so that writes can be
 * MSG_NOSIGNAL; res and out are pipes. Child ends go into kid[]. */
static int make_channels(struct sbx *s, int kid[RP_FD_COUNT])
{
    int ctl[2], res[2], out[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) != 0)
        return -1;
    if (cloexec_pipe(res) != 0) {
        close(ctl[0]), close(ctl[1]);
        return -1;
    }
    if (cloexec_pipe(out) != 0) {
        close(ctl[0]), close(ctl[1]), close(res[0]), close(res[1]);
        return -1;
    }
    s->ctl = ctl[0], s->res = res[0], s->out = out[0];
    kid[RP_FD_CTL] = ctl[1], kid[RP_FD_OUT] = out[1];
    kid[RP_FD_ERR] = out[1], kid[RP_FD_MEM] = s->memfd;
    kid[RP_FD_RES] = res[1];
    fcntl(s->out, F_SETFL, O_NONBLOCK);
    return 0;
}

static void close_kid_ends(int kid[RP_FD_COUNT])
{
    close(kid[RP_FD_CTL]);
    close(kid[RP_FD_OUT]);
    close(kid[RP_FD_RES]);
}

static void close_channels(struct sbx *s)
{
    close_fd(&s->ctl);
    close_fd(&s->res);
    close_fd(&s->out);
    close_fd(&s->memfd);
    s->mem_size = 0;
}

/*
 * Kill the runner's whole group while its leader is still unreaped (so the
 * group id cannot have been reused), then reap it.
 */
static void runner_stop(struct sbx *s)
{
    if (s->pid > 0) {
        kill(-s->pid, SIGKILL);
        kill(s->pid, SIGKILL);
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        drain_output(s);
    }
    s->pid = 0;
    close_channels(s);
}

/* The runner's exit, without reaping it: 1 when it has exited (si set),
 * 0 when not yet, -1 when it cannot be observed (e.g. SIGCHLD ignored). */
static int peek_exit(pid_t pid, siginfo_t *si)
{
    memset(si, 0, sizeof *si);
    if (waitid(P_PID, (id_t)pid, si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == EINTR ? 0 : -1;
    return si->si_pid == pid;
}

enum wait_end { W_BYTE, W_EOF, W_TIMEOUT, W_ERROR };

/* Wait for one byte on the result pipe until `until` (ms, monotonic),
 * draining output meanwhile. */
static enum wait_end wait_byte(struct sbx *s, double until, char *byte)
{
    struct pollfd p[2];
    double left;
    ssize_t n;

    for (;;) {
        left = until - ut_now_ms();
        if (left <= 0)
            return W_TIMEOUT;
        p[0] = (struct pollfd){ .fd = s->res, .events = POLLIN };
        p[1] = (struct pollfd){ .fd = s->out, .events = POLLIN };
        if (poll(p, s->out >= 0 ? 2 : 1, (int)ceil(left)) < 0) {
            if (errno == EINTR)
                continue;
            return W_ERROR;
        }
        if (s->out >= 0 && p[1].revents)
            drain_output(s);
        if (p[0].revents == 0)
            continue;
        n = read(s->res, byte, 1);
        if (n == 1)
            return W_BYTE;
        if (n == 0)
            return W_EOF;
        if (errno != EINTR && errno != EAGAIN)
            return W_ERROR;
    }
}

static int start_failed(struct sbx *s, struct grd_err *e)
{
    siginfo_t si;
    int code = -1;

    if (peek_exit(s->pid, &si) && si.si_code == CLD_EXITED)
        code = si.si_status;
    runner_stop(s);
    if (code == RP_EXIT_SETUP)
        return err_set(e, s->runner, 0, 0,
                       "the runner could not install its sandbox");
    if (code == 127)
        return err_set(e, s->runner, 0, 0, "could not execute the runner");
    return err_set(e, s->runner, 0, 0, "the runner did not start");
}

static int runner_start(struct sbx *s, struct grd_err *e)
{
    int kid[RP_FD_COUNT];
    pid_t me = getpid();
    char c = 0;

    s->memfd = make_memfd();
    if (s->memfd < 0 || ftruncate(s->memfd, RP_HDR_SIZE) != 0) {
        close_fd(&s->memfd);
        return err_set(e, NULL, 0, 0, "cannot create shared memory: %s",
                       strerror(errno));
    }
    s->mem_size = RP_HDR_SIZE;
    if (make_channels(s, kid) != 0) {
        close_channels(s);
        return err_set(e, NULL, 0, 0, "cannot create pipes: %s",
                       strerror(errno));
    }
    s->pid = fork();
    if (s->pid == 0)
        child_exec(s, me, kid);
    close_kid_ends(kid);
    if (s->pid < 0) {
        s->pid = 0;
        close_channels(s);
        return err_set(e, NULL, 0, 0, "cannot fork: %s", strerror(errno));
    }
    setpgid(s->pid, s->pid); /* also here: no window without a group */
    if (wait_byte(s, ut_now_ms() + START_TIMEOUT_MS, &c) != W_BYTE ||
        c != RP_READY_BYTE)
        return start_failed(s, e);
    return 0;
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
    s->ctl = s->res = s->out = s->memfd = -1;
    s->nonce = (uint64_t)getpid() ^ (uint64_t)(ut_now_ms() * 1e3);
}

struct sbx *sbx_new(const struct sbx_config *cfg, struct grd_err *e)
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

void sbx_restart(struct sbx *s)
{
    runner_stop(s);
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

void sbx_free(struct sbx *s)
{
    if (s == NULL)
        return;
    runner_stop(s);
    free(s->runner);
    free(s->runner_dir);
    free(s->outbuf);
    free(s);
}

/* ---- laying out a call ---------------------------------------------------- */

static unsigned char canary(size_t i)
{
    return (unsigned char)(0xa5u ^ (i * 0x3bu));
}

/* An earlier const input with the same pointer and length, or -1. */
static int find_alias(const struct sbx_call *c, size_t i)
{
    size_t j;

    if (c->arg[i].kind != SBX_IN || c->arg[i].ptr == NULL)
        return -1;
    for (j = 0; j < i; j++)
        if (c->arg[j].kind == SBX_IN && c->arg[j].ptr == c->arg[i].ptr &&
            c->arg[j].len == c->arg[i].len)
            return (int)j;
    return -1;
}

/* Fill the header's buffer table; sets *total to the memfd size needed. */
static int layout(const struct sbx_call *c, struct rp_header *h, size_t page,
                  uint64_t *total)
{
    uint64_t pos = RP_HDR_SIZE;
    size_t i;

    for (i = 0; i < c->narg; i++) {
        const struct sbx_arg *a = &c->arg[i];
        struct rp_buf *b = &h->buf[i];

        memset(b, 0, sizeof *b);
        snprintf(b->name, sizeof b->name, "%s", a->name);
        b->alias = find_alias(c, i);
        if (a->ptr == NULL)
            continue;
        b->flags = RP_BUF_PRESENT | (a->kind != SBX_IN ? RP_BUF_WRITABLE : 0);
        if (a->len > MEM_MAX)
            return -1;
        if (b->alias >= 0)
            continue;
        b->off = pos;
        b->len = a->len;
        b->map_len = (a->len + page - 1) / page * page;
        if (b->map_len == 0)
            b->map_len = page;
        pos += b->map_len;
    }
    *total = pos;
    return pos <= MEM_MAX ? 0 : -1;
}

/* Copy inputs in, NaN-fill outputs, write canaries into the slack. */
static void fill_buffers(const struct sbx_call *c, const struct rp_header *h,
                         unsigned char *mem)
{
    static const float qnan = NAN;
    size_t i, k, slack;

    for (i = 0; i < c->narg; i++) {
        const struct rp_buf *b = &h->buf[i];
        unsigned char *data = mem + b->off + (b->map_len - b->len);

        if (!(b->flags & RP_BUF_PRESENT) || b->alias >= 0)
            continue;
        if (c->arg[i].kind == SBX_OUT)
            for (k = 0; k + sizeof qnan <= b->len; k += sizeof qnan)
                memcpy(data + k, &qnan, sizeof qnan);
        else
            memcpy(data, c->arg[i].ptr, b->len);
        slack = (size_t)(b->map_len - b->len);
        for (k = 0; k < slack; k++)
            mem[b->off + k] = canary(k);
    }
}

/* Size and map the memfd and write the call into it; *view (of
 * s->mem_size bytes) is the parent's mapping. */
static int prepare(struct sbx *s, const struct sbx_call *c, struct rp_header *tmp,
                   unsigned char **view, struct grd_err *e)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t total = 0;

    memset(tmp, 0, sizeof *tmp);
    if (layout(c, tmp, page, &total) != 0 || total > s->as_limit)
        return err_set(e, NULL, 0, 0, "the call's buffers are too large "
                       "for the sandbox (%llu bytes)",
                       (unsigned long long)total);
    if (total != s->mem_size && ftruncate(s->memfd, (off_t)total) != 0)
        return err_set(e, NULL, 0, 0, "cannot size shared memory: %s",
                       strerror(errno));
    s->mem_size = total;
    *view = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, s->memfd, 0);
    if (*view == MAP_FAILED) {
        *view = NULL;
        return err_set(e, NULL, 0, 0, "cannot map shared memory: %s",
                       strerror(errno));
    }
    tmp->version = RP_VERSION;
    tmp->fn = (uint32_t)c->fn;
    tmp->nonce = next_nonce(s);
    memcpy(tmp->dim, c->dim, sizeof tmp->dim);
    tmp->eps = c->eps;
    tmp->nbuf = (uint32_t)c->narg;
    tmp->bad_buf = -1;
    memcpy(*view, tmp, sizeof *tmp);
    fill_buffers(c, tmp, *view);
    return 0;
}

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

static void set_detail(struct call_result *r, enum call_status st,
                       const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_detail(struct call_result *r, enum call_status st,
                       const char *fmt, ...)
{
    va_list ap;

    r->status = st;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
}

static void crashed(const struct sbx *s, struct call_result *r, int sig,
                    const struct rp_header *h)
{
    if (h != NULL && h->alloc_failed) {
        set_detail(r, CALL_MEMORY, "ran out of memory (limit %zu MiB)",
                   s->as_limit >> 20);
        return;
    }
    r->signo = sig;
    set_detail(r, CALL_CRASHED, "crashed with %s%s", sig_name(sig),
               crash_why(sig, h != NULL && h->stack_overflow));
}

static void syscall_detail(struct call_result *r, int nr)
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
static void recorded_fault(const struct sbx *s, struct call_result *r,
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
        set_detail(r, CALL_OVERRUN, "%s `%.8s`", what, name);
        return;
    case RP_CONST_WRITE:
        set_detail(r, CALL_CONST_WRITE, "modified its const input `%.8s`",
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
                          const struct rp_header *h, struct call_result *r)
{
    if (si->si_code == CLD_EXITED && si->si_status == RP_EXIT_FAULT && h) {
        recorded_fault(s, r, h);
    } else if (si->si_code == CLD_EXITED) {
        set_detail(r, CALL_EXITED, "called exit() instead of returning "
                   "(status %d)", si->si_status);
    } else if (si->si_status == SIGSYS) {
        set_detail(r, CALL_SYSCALL, "made a system call the sandbox "
                   "forbids");
    } else if (si->si_status == SIGXCPU ||
               (si->si_status == SIGKILL && used_cpu_limit(s, si))) {
        set_detail(r, CALL_TIMEOUT, "used more than %u s of CPU time",
                   s->cpu_s);
    } else if (si->si_status == SIGKILL) {
        set_detail(r, CALL_MEMORY, "was killed by the system (out of "
                   "memory?)");
    } else {
        crashed(s, r, si->si_status, h);
    }
}

/* The result pipe closed: wait briefly for the exit, then classify. */
static void runner_died(struct sbx *s, const struct rp_header *h,
                        struct call_result *r)
{
    double until = ut_now_ms() + REAP_GRACE_MS;
    siginfo_t si;

    int seen;

    while ((seen = peek_exit(s->pid, &si)) == 0 && ut_now_ms() < until)
        sleep_ms(1);
    if (seen == 1)
        classify_exit(s, &si, h, r);
    else
        set_detail(r, CALL_CRASHED, "closed the grader's result channel");
    runner_stop(s);
}

static void timed_out(struct sbx *s, const struct rp_header *h,
                      struct call_result *r)
{
    siginfo_t si;
    kill(-s->pid, SIGKILL);
    kill(s->pid, SIGKILL);
    int seen;

    while ((seen = peek_exit(s->pid, &si)) == 0)
        sleep_ms(1);
    if (seen < 0 || (si.si_code == CLD_KILLED && si.si_status == SIGKILL)) {
        set_detail(r, CALL_TIMEOUT, "did not return within %.0f ms",
                   s->deadline_ms);
    } else {
        classify_exit(s, &si, h, r);
    }
    runner_stop(s);
}

/* ---- after a call that returned ------------------------------------------------ */

static int check_inputs(const struct sbx_call *c, const struct rp_header *h,
                        const unsigned char *mem, struct call_result *r)
{
    size_t i, k;

    for (i = 0; i < c->narg; i++) {
        const struct rp_buf *b = &h->buf[i];
        const unsigned char *data = mem + b->off + (b->map_len - b->len);

        if (!(b->flags & RP_BUF_PRESENT) || b->alias >= 0)
            continue;
        if (c->arg[i].kind == SBX_IN && memcmp(data, c->arg[i].ptr, b->len)) {
            set_detail(r, CALL_CONST_WRITE, "modified its const input "
                       "`%s`", c->arg[i].name);
            return -1;
        }
        for (k = 0; k < b->map_len - b->len; k++)
            if (mem[b->off + k] != canary(k)) {
                set_detail(r, CALL_OVERRUN, "wrote before the start of "
                           "`%s`", c->arg[i].name);
                return -1;
            }
    }
    return 0;
}

/*
 * Copy back what the submission wrote. In-place buffers come back whole;
 * a pure output comes back only where its NaN fill was overwritten, so the
 * caller's buffer keeps its own contents wherever nothing was written. That
 * makes "returned ATTN_EINVAL and wrote nothing" checkable, and makes the
 * sandbox behave like a local call on a buffer the caller pre-filled.
 */
static void copy_outputs(const struct sbx_call *c, const struct rp_header *h,
                         const unsigned char *mem)
{
    static const float qnan = NAN;
    size_t i, k;

    for (i = 0; i < c->narg; i++) {
        const struct rp_buf *b = &h->buf[i];
        const unsigned char *data = mem + b->off + (b->map_len - b->len);
        unsigned char *dst = c->arg[i].ptr;

        if (!(b->flags & RP_BUF_WRITABLE) || b->alias >= 0)
            continue;
        if (c->arg[i].kind != SBX_OUT) {
            memcpy(dst, data, b->len);
            continue;
        }
        for (k = 0; k + sizeof qnan <= b->len; k += sizeof qnan)
            if (memcmp(data + k, &qnan, sizeof qnan) != 0)
                memcpy(dst + k, data + k, sizeof qnan);
    }
}

/* The runner signalled completion; check its record, then our copies. */
static int returned(struct sbx *s, const struct sbx_call *c,
                    const struct rp_header *mine, const unsigned char *mem,
                    struct call_result *r, struct grd_err *e)
{
    const struct rp_header *h = (const struct rp_header *)mem;

    if (h->done != (mine->nonce ^ RP_DONE_XOR) || h->state != RP_RETURNED) {
        if (h->state == RP_BADCALL && h->done == (mine->nonce ^ RP_DONE_XOR)) {
            runner_stop(s);
            return err_set(e, NULL, 0, 0, "the runner rejected the call "
                           "layout");
        }
        set_detail(r, CALL_CRASHED, "interfered with the grader's runner "
                   "(wrote to its result channel)");
        runner_stop(s);
        return 0;
    }
    r->rc = h->rc;
    r->live_allocs = (long)h->live_allocs;
    drain_output(s);
    if (check_inputs(c, mine, mem, r) == 0) {
        r->status = CALL_RETURNED;
        copy_outputs(c, mine, mem);
    } else {
        runner_stop(s);   /* its memory is suspect: start afresh */
    }
    return 0;
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

int sbx_run_call(struct sbx *s, const struct sbx_call *c,
                 struct call_result *r, struct grd_err *e)
{
    struct rp_header mine, rec;
    unsigned char *mem = NULL;
    const struct rp_header *h;
    size_t view_len;
    double t0;
    char byte = 'c';
    enum wait_end end;
    int rc = 0;

    memset(r, 0, sizeof *r);
    if (s->pid == 0 && runner_start(s, e) != 0)
        return -1;
    if (prepare(s, c, &mine, &mem, e) != 0) {
        runner_stop(s);
        return -1;
    }
    view_len = (size_t)s->mem_size;
    h = (const struct rp_header *)mem;
    t0 = ut_now_ms();
    if (send(s->ctl, &byte, 1, MSG_NOSIGNAL) != 1)
        end = W_EOF;
    else
        end = wait_byte(s, t0 + s->deadline_ms, &byte);
    r->elapsed_ms = ut_now_ms() - t0;
    h = trusted_record(h, &mine, &rec);
    if (end == W_BYTE)
        rc = returned(s, c, &mine, mem, r, e);
    else if (end == W_EOF)
        runner_died(s, h, r);
    else if (end == W_TIMEOUT)
        timed_out(s, h, r);
    else
        rc = err_set(e, NULL, 0, 0, "lost contact with the runner: %s",
                     strerror(errno));
    if (end == W_ERROR)
        runner_stop(s);
    munmap(mem, view_len);
    return rc;
}
