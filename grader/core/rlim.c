/* rlim.c -- see rlim.h. */
#include "core/rlim.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rlim_t rlim_within(int resource, rlim_t want)
{
    struct rlimit cur;

    if (getrlimit(resource, &cur) != 0)
        return want;
    return cur.rlim_max != RLIM_INFINITY && (want == RLIM_INFINITY || want > cur.rlim_max)
               ? cur.rlim_max : want;
}

int rlim_is_capped(int resource, rlim_t want)
{
    return rlim_within(resource, want) != want;
}

int rlim_lower(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit r;

    r.rlim_max = rlim_within(resource, hard);
    r.rlim_cur = rlim_within(resource, soft);
    if (r.rlim_max != RLIM_INFINITY && (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > r.rlim_max))
        r.rlim_cur = r.rlim_max;
    return setrlimit(resource, &r);
}

/* From /proc/<pid>/status: the real uid and the thread count; 0, or -1
 * when the process went away or the file is not as expected. */
static int task_of(const char *pid, uid_t *uid, long *threads)
{
    char path[64], line[256];
    int have = 0;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%s/status", pid);
    if ((f = fopen(path, "re")) == NULL)
        return -1;
    while (have != 3 && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "Uid:", 4) == 0) {
            *uid = (uid_t)strtoul(line + 4, NULL, 10);
            have |= 1;
        } else if (strncmp(line, "Threads:", 8) == 0) {
            *threads = strtol(line + 8, NULL, 10);
            have |= 2;
        }
    }
    fclose(f);
    return have == 3 ? 0 : -1;
}

long rlim_user_tasks(uid_t uid)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    long n = 0, threads;
    uid_t u;

    if (d == NULL)
        return -1;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        if (task_of(de->d_name, &u, &threads) == 0 && u == uid && threads > 0)
            n += threads;
    }
    closedir(d);
    return n > 0 ? n : -1; /* we are one: none seen means no /proc to read */
}

const char *rlim_text(rlim_t v, int mib, char *buf, size_t n)
{
    if (v == RLIM_INFINITY)
        snprintf(buf, n, "unlimited");
    else if (mib)
        snprintf(buf, n, "%llu MiB", (unsigned long long)(v >> 20));
    else
        snprintf(buf, n, "%llu", (unsigned long long)v);
    return buf;
}
