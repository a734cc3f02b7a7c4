/* util.c -- see util.h. */
#include "core/util.h"

#include "core/compat.h"

#include <errno.h>
#include <sched.h>
#include <limits.h>
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
