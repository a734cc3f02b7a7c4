/*
 * sbx_server.c -- the fork server: the runner executable is exec'd once
 * per struct sbx ("runner serve", runner_main.c), and each test's runner is
 * forked from it, from its initialised state, instead of exec'd afresh.
 *
 * The isolation stays what an exec'd runner had: every test runner is a
 * fresh process (its own address space, forked from a server that never
 * ran student code), sandboxes itself -- seccomp included -- before its
 * first call, gets its own channels, and is the grader's own child
 * (CLONE_PARENT), which the grader kills by process group and reaps
 * exactly as before. Linux only (CPT_LINUX): elsewhere, and in the
 * portable build, every runner is exec'd.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/compat.h"
#include "sandbox/runner_proto.h"
#include "sandbox/sbx_internal.h"
#include "core/util.h"

#if CPT_LINUX

#define SERVER_TIMEOUT_MS 10000.0  /* exec + dynamic loading; one fork */

/* Read exactly n bytes from fd before `until` (sbx_live_ms time: a
 * stalled grader does not time its server out); 0, or -1 (EOF, timeout). */
static int read_exact(struct sbx *s, int fd, void *buf, size_t n, double until)
{
    size_t got = 0;

    while (got < n) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        double left = until - sbx_live_ms(s);
        ssize_t k;
        if (left <= 0)
            return -1;
        if (sbx_poll(s, &p, 1, left + 1) < 0 && errno != EINTR)
            return -1;
        if (!(p.revents & (POLLIN | POLLHUP)))
            continue;
        k = read(fd, (char *)buf + got, n - got);
        if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
            return -1;
        if (k > 0)
            got += (size_t)k;
    }
    return 0;
}

void sbx_server_stop(struct sbx *s)
{
    if (s->server > 0) {
        kill(-s->server, SIGKILL);
        kill(s->server, SIGKILL);
        while (waitpid(s->server, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    s->server = 0;
    if (s->srv_ctl >= 0)
        close(s->srv_ctl);
    if (s->srv_res >= 0)
        close(s->srv_res);
    s->srv_ctl = s->srv_res = -1;
}

/* Exec the server: its ctl is a socketpair (spawn requests carry
 * descriptors), its res a pipe; it needs no output, memfd or heap. */
static int server_start(struct sbx *s, struct err *e)
{
    int ctl[2], res[2], kid[RP_FD_COUNT];
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    char c = 0;

    if (null < 0)
        return err_set(e, "/dev/null", 0, 0, "cannot open: %s", strerror(errno));
    if (cpt_socketpair_cloexec(ctl) != 0) {
        close(null);
        return err_set(e, NULL, 0, 0, "cannot create pipes: %s", strerror(errno));
    }
    if (cpt_pipe_cloexec(res) != 0) {
        close(null), close(ctl[0]), close(ctl[1]);
        return err_set(e, NULL, 0, 0, "cannot create pipes: %s", strerror(errno));
    }
    for (int i = 0; i < RP_FD_COUNT; i++)
        kid[i] = null;
    kid[RP_FD_CTL] = ctl[1], kid[RP_FD_RES] = res[1];
    s->srv_ctl = ctl[0], s->srv_res = res[0];
    s->server = sbx_exec_runner(s, kid, 1);
    close(null), close(ctl[1]), close(res[1]);
    if (s->server < 0) {
        s->server = 0;
        sbx_server_stop(s);
        return err_set(e, NULL, 0, 0, "cannot fork: %s", strerror(errno));
    }
    if (read_exact(s, s->srv_res, &c, 1, sbx_live_ms(s) + SERVER_TIMEOUT_MS) != 0 ||
        c != RP_SERVER_BYTE) {
        sbx_server_stop(s);
        return 1;
    }
    return 0;
}

/* Hand the child's ends to the server with SCM_RIGHTS; 0 or -1. */
static int send_spawn(int sock, const int kid[RP_FD_COUNT])
{
    const int fds[RP_SPAWN_FDS] = { kid[RP_FD_CTL], kid[RP_FD_OUT], kid[RP_FD_MEM],
                                    kid[RP_FD_RES], kid[RP_FD_HEAP] };
    char byte = 'f', ctrl[CMSG_SPACE(sizeof fds)];
    struct iovec iov = { &byte, 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = ctrl, .msg_controllen = sizeof ctrl };
    struct cmsghdr *c;

    memset(ctrl, 0, sizeof ctrl);
    c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int sbx_server_spawn(struct sbx *s, const int kid[RP_FD_COUNT], pid_t *pid,
                     struct err *e)
{
    int32_t reply = 0;
    int rc;

    for (int attempt = 0; attempt < 2; attempt++) {
        if (s->server == 0 && (rc = server_start(s, e)) != 0)
            return rc;
        reply = 0;
        if (send_spawn(s->srv_ctl, kid) == 0 &&
            read_exact(s, s->srv_res, &reply, sizeof reply,
                       sbx_live_ms(s) + SERVER_TIMEOUT_MS) == 0 && reply > 0) {
            *pid = (pid_t)reply;
            return 0;
        }
        /* the server could not fork: processes or memory of the machine */
        if (reply == -EAGAIN || reply == -ENOMEM)
            return err_set(e, NULL, 0, 0, "cannot start a runner: %s", strerror(-reply));
        sbx_server_stop(s);   /* it died (or lied): one fresh server */
    }
    return 1;
}
#else
/* Not on Linux: sbx_proc.c execs every runner; nothing to stop. */
void sbx_server_stop(struct sbx *s)
{
    (void)s;
}
#endif
