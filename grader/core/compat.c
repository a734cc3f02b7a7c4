/* compat.c -- see compat.h. */
#include "core/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef __APPLE__
#include <libproc.h>
#include <mach-o/dyld.h>
#include <mach/mach_time.h>
#endif

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

static int copy_out(const char *path, char *buf, size_t n)
{
    size_t len = strlen(path);

    if (len >= n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    return 0;
}

/* realpath(path) into buf: the executable's path made absolute. */
static int resolved(const char *path, char *buf, size_t n)
{
    char real[PATH_MAX];

    return realpath(path, real) == NULL ? -1 : copy_out(real, buf, n);
}

#if !defined(__APPLE__) && defined(__GLIBC__)
/* argv[0] as execvp found it: a name with a slash is a path (relative to
 * the directory we started in, which no command has left yet); a bare name
 * is the first executable file of that name on $PATH. */
static int resolve_argv0(const char *name, char *buf, size_t n)
{
    const char *dirs = getenv("PATH"), *p, *colon;
    char cand[PATH_MAX];

    if (name == NULL || *name == '\0')
        return errno = ENOENT, -1;
    if (strchr(name, '/') != NULL)
        return resolved(name, buf, n);
    for (p = dirs != NULL ? dirs : "/usr/bin:/bin";; p = colon + 1) {
        size_t len = (colon = strchr(p, ':')) != NULL ? (size_t)(colon - p) : strlen(p);
        int w = snprintf(cand, sizeof cand, "%.*s/%s", (int)len, len > 0 ? p : ".", name);

        if (w > 0 && (size_t)w < sizeof cand && access(cand, X_OK) == 0)
            return resolved(cand, buf, n);
        if (colon == NULL)
            return errno = ENOENT, -1;
    }
}
#endif

int cpt_exe_path(char *buf, size_t n)
{
#ifdef __APPLE__
    char raw[PATH_MAX];
    uint32_t size = sizeof raw;

    if (_NSGetExecutablePath(raw, &size) != 0)
        return errno = ENAMETOOLONG, -1;
    return resolved(raw, buf, n);
#else
#ifdef __linux__
    char link[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", link, sizeof link - 1);

    if (len > 0) {
        link[len] = '\0';
        return copy_out(link, buf, n);
    }
#endif
#ifdef __GLIBC__
    return resolve_argv0(program_invocation_name, buf, n);
#else
    return errno = ENOENT, -1;
#endif
#endif
}

double cpt_proc_cpu_ms(int pid)
{
#if defined(__APPLE__)
    struct rusage_info_v2 ri;
    mach_timebase_info_data_t tb;

    /* ri_*_time are in Mach absolute time units: nanoseconds on Intel,
     * ticks on Apple silicon; the timebase converts both. */
    if (pid <= 0 || proc_pid_rusage(pid, RUSAGE_INFO_V2, (rusage_info_t *)&ri) != 0 ||
        mach_timebase_info(&tb) != KERN_SUCCESS || tb.denom == 0)
        return -1;
    return (double)(ri.ri_user_time + ri.ri_system_time) * tb.numer / tb.denom / 1e6;
#elif defined(_POSIX_CPUTIME) && _POSIX_CPUTIME >= 0
    struct timespec ts;
    clockid_t id;

    if (pid <= 0 || clock_getcpuclockid((pid_t)pid, &id) != 0 ||
        clock_gettime(id, &ts) != 0)
        return -1;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
#else
    (void)pid;
    return -1;
#endif
}

/* The run-queue wait (ms) in schedstat file `path`, or -1. */
static double schedstat_queued_ms(const char *path)
{
#ifdef __linux__
    unsigned long long run_ns, wait_ns;
    int n = 0;
    FILE *f;

    if ((f = fopen(path, "re")) == NULL)
        return -1;
    n = fscanf(f, "%llu %llu", &run_ns, &wait_ns);
    fclose(f);
    return n == 2 ? (double)wait_ns / 1e6 : -1;
#else
    (void)path;
    return -1;
#endif
}

double cpt_proc_queued_ms(int pid)
{
    char path[64];

    if (pid <= 0)
        return -1;
    snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
    return schedstat_queued_ms(path);
}

double cpt_thread_queued_ms(void)
{
    return schedstat_queued_ms("/proc/thread-self/schedstat");
}
