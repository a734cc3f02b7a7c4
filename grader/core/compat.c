/* compat.c -- see compat.h. */
#include "core/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#if CPT_LINUX
#include <sys/mman.h>
#include <sys/prctl.h>
#endif

#if !CPT_LINUX
static int set_cloexec(int fd)
{
    int flags = fcntl(fd, F_GETFD);

    return flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0 ? -1 : 0;
}
#endif

int cpt_pipe_cloexec(int p[2])
{
#if CPT_LINUX
    return pipe2(p, O_CLOEXEC);
#else
    if (pipe(p) < 0)
        return -1;
    if (set_cloexec(p[0]) < 0 || set_cloexec(p[1]) < 0) {
        int err = errno;

        close(p[0]);
        close(p[1]);
        errno = err;
        return -1;
    }
    return 0;
#endif
}

int cpt_socketpair_cloexec(int sv[2])
{
#if CPT_LINUX
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
#else
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return -1;
    if (set_cloexec(sv[0]) < 0 || set_cloexec(sv[1]) < 0) {
        int err = errno;

        close(sv[0]);
        close(sv[1]);
        errno = err;
        return -1;
    }
    return 0;
#endif
}

int cpt_mkstemp_cloexec(char *tmpl)
{
#if CPT_LINUX
    return mkostemp(tmpl, O_CLOEXEC);
#else
    int fd = mkstemp(tmpl);

    if (fd >= 0 && set_cloexec(fd) < 0) {
        int err = errno;

        close(fd);
        unlink(tmpl);
        errno = err;
        return -1;
    }
    return fd;
#endif
}

int cpt_anon_fd(const char *name)
{
#if CPT_LINUX
    return memfd_create(name, MFD_CLOEXEC);
#else
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int fd;

    snprintf(path, sizeof path, "%s/%s-XXXXXX", dir && dir[0] ? dir : "/tmp", name);
    if ((fd = cpt_mkstemp_cloexec(path)) >= 0)
        unlink(path);   /* anonymous from now on: gone when closed */
    return fd;
#endif
}

int cpt_no_new_privs(void)
{
#if CPT_LINUX
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
#else
    return 0;
#endif
}

int cpt_parent_death_signal(int sig)
{
#if CPT_LINUX
    return prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0);
#else
    (void)sig;
    return 0;
#endif
}

int cpt_execvpe(const char *file, char *const argv[], char *const envp[])
{
#if CPT_LINUX
    return execvpe(file, argv, envp);
#else
    extern char **environ;

    environ = (char **)envp;
    return execvp(file, argv);
#endif
}
