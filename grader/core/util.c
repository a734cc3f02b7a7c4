/* util.c -- see util.h. */
#include "core/util.h"

#include "core/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

double ut_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double ms_of(const struct timespec *ts)
{
    return (double)ts->tv_sec * 1e3 + (double)ts->tv_nsec / 1e6;
}

double ut_thread_cpu_ms(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return ut_now_ms(); /* no CPU clock: the wall clock is an upper bound */
    return ms_of(&ts);
}

double ut_proc_cpu_ms(int pid)
{
    return cpt_proc_cpu_ms(pid);
}

double ut_proc_queued_ms(int pid)
{
    return cpt_proc_queued_ms(pid);
}

double ut_thread_queued_ms(void)
{
    return cpt_thread_queued_ms();
}

long long ut_stat_field(const char *line, int k)
{
    const char *p = strrchr(line, ')');

    if (p == NULL || p[1] != ' ' || k < 3)
        return -1;
    if (k == 3)
        return (unsigned char)p[2];
    for (int i = 3; p != NULL && i <= k; i++)
        p = strchr(p + 1, ' ');
    return p == NULL ? -1 : strtoll(p + 1, NULL, 10);
}

int ut_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int ut_check_inside(const char *dir, const char *path, const char *shown, char *why,
                    size_t n)
{
    char root[PATH_MAX], real[PATH_MAX];
    struct stat st;
    size_t rl;

    if (lstat(path, &st) < 0)
        return snprintf(why, n, "cannot read '%s': %s", shown, strerror(errno)), -1;
    if (S_ISLNK(st.st_mode))
        return snprintf(why, n, "'%s' is a symbolic link: the submission must hold the "
                        "file itself", shown), -1;
    if (!S_ISREG(st.st_mode))
        return snprintf(why, n, "'%s' is not a regular file", shown), -1;
    if (realpath(dir, root) == NULL || realpath(path, real) == NULL)
        return snprintf(why, n, "cannot resolve '%s': %s", shown, strerror(errno)), -1;
    rl = strlen(root);
    if (strncmp(real, root, rl) != 0 || (real[rl] != '/' && strcmp(root, "/") != 0))
        return snprintf(why, n, "'%s' is outside the submission's directory", shown), -1;
    return 0;
}

long ut_usable_cpus(void)
{
    long n;
#ifdef __linux__
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n;
}

/* ---- atomic files ---- */

int ut_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;

    while (n > 0) {
        ssize_t k = write(fd, p, n);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* fsync the directory holding `path`, so that the rename survives power
 * loss; best effort (some file systems refuse). */
static void sync_dir_of(const char *path)
{
    char dir[UT_PATH_MAX];
    const char *slash = strrchr(path, '/');
    int fd;

    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path + (slash == path)), path);
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync(fd);
        close(fd);
    }
}

static void temp_name(const char *path, char *tmp, size_t n)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        snprintf(tmp, n, ".tmp-%s-XXXXXX", path);
    else
        snprintf(tmp, n, "%.*s/.tmp-%s-XXXXXX", (int)(slash - path), path, slash + 1);
}

int ut_write_atomic(const char *path, const void *data, size_t n, int durable,
                    struct err *e)
{
    char tmp[UT_PATH_MAX + 16];
    int fd, err;

    temp_name(path, tmp, sizeof tmp);
    if ((fd = cpt_mkstemp_cloexec(tmp)) < 0)
        return err_set(e, NULL, 0, 0, "cannot create a temporary file for '%s': %s",
                       path, strerror(errno));
    if (ut_write_all(fd, data, n) < 0 || fchmod(fd, 0644) < 0 || (durable && fsync(fd) < 0)) {
        err = errno;
        close(fd);
        unlink(tmp);
        return err_set(e, NULL, 0, 0, "cannot write '%s': %s", path, strerror(err));
    }
    if (close(fd) < 0 || rename(tmp, path) < 0) {
        err = errno;
        unlink(tmp);
        return err_set(e, NULL, 0, 0, "cannot write '%s': %s", path, strerror(err));
    }
    if (durable)
        sync_dir_of(path);
    return 0;
}

void *ut_grow_max(void *v, size_t *cap, size_t need, size_t size, size_t first,
                  size_t most)
{
    size_t n = *cap ? *cap : (first ? first : 1);

    if (need <= *cap)
        return v;
    if (size == 0 || need > most || most > SIZE_MAX / size)
        return NULL;
    while (n < need)
        n = n > most / 2 ? most : n * 2;
    if ((v = realloc(v, n * size)) == NULL)
        return NULL;
    *cap = n;
    return v;
}

void *ut_grow(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
    /* half the address space at most: the doubling never overflows */
    return size == 0 ? NULL : ut_grow_max(v, cap, need, size, first, SIZE_MAX / 2 / size);
}

int ut_grow2(void **a, size_t asize, void **b, size_t bsize, size_t *cap, size_t need,
             size_t first)
{
    size_t ca = *cap, cb = *cap;
    void *pa = ut_grow(*a, &ca, need, asize, first), *pb;

    if (pa == NULL)
        return -1;
    *a = pa;
    if ((pb = ut_grow(*b, &cb, need, bsize, first)) == NULL)
        return -1;
    *b = pb;
    *cap = ca;
    return 0;
}
