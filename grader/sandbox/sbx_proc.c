/* sbx_proc.c -- starting and stopping a runner process, and watching its
 * pipes (see sbx.h). The call itself is laid out in sbx_layout.c. */
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

#include "core/compat.h"
#include "core/rlim.h"
#include "sandbox/runner_proto.h"
#include "sandbox/sbx_internal.h"
#include "core/util.h"

#define START_TIMEOUT_MS 10000.0 /* exec + dynamic loading + seccomp */
#define DRAIN_CHUNK 65536
#define DRAIN_ROUNDS 16

/* ---- small helpers ------------------------------------------------------- */

void sbx_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void sbx_clock_watch(struct sbx_clock *c, double now, int on)
{
    c->seen = on ? now : 0.0;
    c->asked = 0.0;
}

double sbx_clock_look(struct sbx_clock *c, double now)
{
    if (c->seen > 0) {
        double gap = now - c->seen - c->asked;
        if (gap > SBX_STALL_SLACK_MS)
            c->stall += gap;
        c->seen = now;
        c->asked = 0.0;
    }
    return now - c->stall;
}

void sbx_clock_waited(struct sbx_clock *c, double t0, double asked, double now)
{
    double late = now - t0 - asked;

    if (c->seen > 0) {
        /* the look at t0 (sbx_poll, sbx_nap) saw the gap before the wait;
         * this one sees what the wait overslept */
        c->asked += asked;
        sbx_clock_look(c, now);
    } else if (late > SBX_STALL_SLACK_MS) {
        c->stall += late;
    }
}

double sbx_live_ms(struct sbx *s)
{
    return sbx_clock_look(&s->clock, ut_now_ms());
}

void sbx_watch(struct sbx *s, int on)
{
    sbx_clock_watch(&s->clock, ut_now_ms(), on);
}

/* Before a wait: a look at the clock (a gap since the last one is a
 * stall, while watching), and the wait's start. */
static double wait_start(struct sbx *s)
{
    (void)sbx_live_ms(s);
    return ut_now_ms();
}

int sbx_poll(struct sbx *s, struct pollfd *p, unsigned n, double ms)
{
    double asked = fmin(fmax(ms, 0.0), SBX_TICK_MS), t0 = wait_start(s);
    int rc = poll(p, (nfds_t)n, (int)ceil(asked));

    sbx_clock_waited(&s->clock, t0, asked, ut_now_ms());
    return rc;
}

void sbx_nap(struct sbx *s, long ms)
{
    double t0 = wait_start(s);

    sbx_sleep_ms(ms);
    sbx_clock_waited(&s->clock, t0, (double)ms, ut_now_ms());
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
    return cpt_pipe_cloexec(p);
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
    return cpt_anon_fd("grader-call");
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
void sbx_drain_output(struct sbx *s)
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

/* Each limit within the account's hard one (rlim.h): a lower hard limit
 * is taken, never refused with EPERM and a runner that cannot start. */
static void child_limits(const struct sbx *s)
{
    /* hard > soft: at the soft limit SIGXCPU says why it ended */
    if (rlim_lower(RLIMIT_CPU, s->cpu_s, (rlim_t)s->cpu_s + 1) ||
        rlim_lower(RLIMIT_AS, s->as_limit, s->as_limit) ||
        rlim_lower(RLIMIT_FSIZE, 0, 0) || rlim_lower(RLIMIT_CORE, 0, 0) ||
        rlim_lower(RLIMIT_NOFILE, SBX_NOFILE, SBX_NOFILE))
        _exit(127);
}

void sbx_describe_limits(const struct sbx_config *cfg, char *buf, size_t n)
{
    size_t as = cfg->as_limit ? cfg->as_limit : SBX_DEFAULT_AS_LIMIT;
    rlim_t cpu = cfg->cpu_s ? cfg->cpu_s : SBX_DEFAULT_CPU_S;
    char a[32], c[32], f[32];

    snprintf(buf, n, "address space %s%s, CPU %s s%s per test, open files %s%s",
             rlim_text(rlim_within(RLIMIT_AS, as), 1, a, sizeof a),
             rlim_is_capped(RLIMIT_AS, as) ? " (the hard limit)" : "",
             rlim_text(rlim_within(RLIMIT_CPU, cpu), 0, c, sizeof c),
             rlim_is_capped(RLIMIT_CPU, cpu) ? " (the hard limit)" : "",
             rlim_text(rlim_within(RLIMIT_NOFILE, SBX_NOFILE), 0, f, sizeof f),
             rlim_is_capped(RLIMIT_NOFILE, SBX_NOFILE) ? " (the hard limit)" : "");
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
                       const int fds[RP_FD_COUNT], int serve)
{
    char *const argv[] = { (char *)"runner", serve ? (char *)RP_SERVE_ARG : NULL,
                           NULL };
    char *const envp[] = { NULL };
    sigset_t none;

    setpgid(0, 0);
#ifdef __linux__
    cpt_parent_death_signal(SIGKILL);
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
 * MSG_NOSIGNAL; res and out are pipes; the heap file (sparse: it costs
 * only the pages the runner keeps) is a quarter of the address space
 * limit, since the runner maps all of it. Child ends go into kid[]. */
static int make_channels(struct sbx *s, int kid[RP_FD_COUNT])
{
    int ctl[2], res[2], out[2];

    if ((s->heap_fd = sbx_books_open(s->as_limit / 4)) < 0)
        return -1;
    if (cpt_socketpair_cloexec(ctl) != 0)
        return -1;
    if (cloexec_pipe(res) != 0) {
        close(ctl[0]), close(ctl[1]);
        return -1;
    }
    if (cloexec_pipe(out) != 0) {
        close(ctl[0]), close(ctl[1]);
        close(res[0]), close(res[1]);
        return -1;
    }
    s->ctl = ctl[0], s->res = res[0], s->out = out[0];
    kid[RP_FD_CTL] = ctl[1], kid[RP_FD_OUT] = out[1];
    kid[RP_FD_ERR] = out[1], kid[RP_FD_MEM] = s->memfd;
    kid[RP_FD_RES] = res[1], kid[RP_FD_HEAP] = s->heap_fd;
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
    close_fd(&s->heap_fd);
    s->mem_size = 0;
}

/*
 * Kill the runner's whole group while its leader is still unreaped (so the
 * group id cannot have been reused), then reap it.
 */
void sbx_runner_stop(struct sbx *s)
{
    if (s->pid > 0) {
        struct rusage ru;

        memset(&ru, 0, sizeof ru);
        s->queued_ms = sbx_queued(s); /* the count goes with the runner */
        kill(-s->pid, SIGKILL);
        kill(s->pid, SIGKILL);
        while (wait4(s->pid, NULL, 0, &ru) < 0 && errno == EINTR)
            ;
        s->runners++;
        s->runner_minflt += ru.ru_minflt;
        sbx_drain_output(s);
    }
    s->pid = 0;
    close_channels(s);
}

/* The runner's exit, without reaping it: 1 when it has exited (si set),
 * 0 when not yet, -1 when it cannot be observed (e.g. SIGCHLD ignored). */
int sbx_peek_exit(pid_t pid, siginfo_t *si)
{
    memset(si, 0, sizeof *si);
    if (waitid(P_PID, (id_t)pid, si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == EINTR ? 0 : -1;
    return si->si_pid == pid;
}

/* Wait for one byte on the result pipe until `until` (ms, monotonic),
 * draining output meanwhile. */
enum sbx_wait_end sbx_wait_byte(struct sbx *s, double until, char *byte)
{
    struct pollfd p[2];
    double left;
    ssize_t n;

    for (;;) {
        left = until - sbx_live_ms(s);
        if (left <= 0)
            return W_TIMEOUT;
        /* a closed descriptor (-1) is ignored by poll */
        p[0] = (struct pollfd){ .fd = s->res, .events = POLLIN };
        p[1] = (struct pollfd){ .fd = s->out, .events = POLLIN };
        if (sbx_poll(s, p, 2, left) < 0) {
            if (errno == EINTR)
                continue;
            return W_ERROR;
        }
        if (s->out >= 0 && p[1].revents)
            sbx_drain_output(s);
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

/* The runner (the submission's executable) did not come up: say why in r
 * and leave no process behind. Returns 1. */
static int start_failed(struct sbx *s, struct impl_result *r)
{
    siginfo_t si;
    int code = -1;

    if (sbx_peek_exit(s->pid, &si) && si.si_code == CLD_EXITED)
        code = si.si_status;
    sbx_runner_stop(s);
    if (code == RP_EXIT_SETUP)
        sbx_set_detail(r, CALL_CRASHED, "the runner could not start: it "
                       "could not install its sandbox");
    else
        sbx_set_detail(r, CALL_CRASHED, "the runner could not start%s (is "
                       "a static array larger than the memory limit of "
                       "%zu MiB?)", code == 127 ? " (exec failed)" : "",
                       s->as_limit >> 20);
    return 1;
}

pid_t sbx_exec_runner(const struct sbx *s, const int fds[RP_FD_COUNT], int serve)
{
    pid_t me = getpid();
    pid_t pid = fork();

    if (pid == 0)
        child_exec(s, me, fds, serve);
    if (pid > 0)
        setpgid(pid, pid); /* also here: no window without a group */
    return pid;
}

/* A test runner: forked by the fork server on Linux, exec'd elsewhere.
 * 0, 1 (could not start: r set) or -1 (e set); kid[] is closed. */
static int spawn(struct sbx *s, int kid[RP_FD_COUNT], struct impl_result *r,
                 struct err *e)
{
    int rc = 0;

#if CPT_LINUX
    rc = sbx_server_spawn(s, kid, &s->pid, e);
    if (rc == 0)
        setpgid(s->pid, s->pid);
#else
    s->pid = sbx_exec_runner(s, kid, 0);
    if (s->pid < 0)
        rc = err_set(e, NULL, 0, 0, "cannot fork: %s", strerror(errno));
#endif
    close_kid_ends(kid);
    if (rc != 0) {
        s->pid = 0;
        close_channels(s);
        if (rc > 0)
            sbx_set_detail(r, CALL_CRASHED, "the runner could not start (is a "
                           "static array larger than the memory limit of %zu "
                           "MiB?)", s->as_limit >> 20);
    }
    return rc;
}

int sbx_runner_start(struct sbx *s, struct impl_result *r, struct err *e)
{
    int kid[RP_FD_COUNT], rc;
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
    sbx_watch(s, 1);
    rc = spawn(s, kid, r, e);
    if (rc == 0 && (sbx_wait_byte(s, sbx_live_ms(s) + START_TIMEOUT_MS, &c) != W_BYTE ||
                    c != RP_READY_BYTE))
        rc = start_failed(s, r);
    sbx_watch(s, 0);
    return rc;
}
