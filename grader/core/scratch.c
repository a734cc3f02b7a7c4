/* scratch.c -- see scratch.h. */
#include "core/scratch.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const prefixes[] = {"attn-grade-", "attn-batch-"};

/* The start time of process `pid` (clock ticks after boot, field 22 of
 * /proc/<pid>/stat), 0 when there is no /proc, -1 when it is gone or a
 * zombie (a killed grader whose parent died too waits for init to reap
 * it, which in a container may be never). */
static long long start_time(long pid)
{
    char path[64], line[1024];
    long long t = -1, st;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if ((f = fopen(path, "re")) == NULL)
        return access("/proc/self/stat", R_OK) == 0 ? -1 : 0;
    if (fgets(line, sizeof line, f) != NULL && (st = ut_stat_field(line, 3)) != 'Z' &&
        st != 'X' && st > 0)
        t = ut_stat_field(line, 22);
    fclose(f);
    return t;
}

/* 1 when process `pid` started at `when` is still alive. */
static int owner_alive(long pid, long long when)
{
    long long now;

    if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
        return 0;
    now = start_time(pid);
    /* no /proc here, or none where the owner ran (it wrote 0: a grader in
     * a namespace without /proc, macOS): the pid alone decides */
    return now == 0 || when == 0 || now == when;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    remove(p);
    return 0;
}

void scr_remove(const char *dir)
{
    if (dir != NULL && dir[0] != '\0')
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether the scratch directory `dir` (lstat'ed into st) is stale. */
static int stale(const char *dir, const struct stat *st)
{
    char path[4300];
    long pid = 0;
    long long when = 0;
    FILE *f;
    int got;

    snprintf(path, sizeof path, "%s/" SCR_OWNER, dir);
    if ((f = fopen(path, "re")) == NULL)
        return time(NULL) - st->st_mtime > SCR_ORPHAN_AGE_S;
    got = fscanf(f, "%ld %lld", &pid, &when);
    fclose(f);
    if (got != 2)
        return time(NULL) - st->st_mtime > SCR_ORPHAN_AGE_S;
    return !owner_alive(pid, when);
}

static int ours(const char *name)
{
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

size_t scr_sweep(const char *base)
{
    DIR *d = opendir(base);
    struct dirent *de;
    struct stat st;
    char path[4096];
    size_t n = 0;

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        if (!ours(de->d_name) ||
            snprintf(path, sizeof path, "%s/%s", base, de->d_name) >= (int)sizeof path)
            continue;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
            stale(path, &st)) {
            scr_remove(path);
            n++;
        }
    }
    closedir(d);
    return n;
}

/* Write the owner file of `dir`: our pid and start time. 0 or -1. */
static int write_owner(const char *dir)
{
    char path[4300], line[64];
    int fd, len, ok;

    snprintf(path, sizeof path, "%s/" SCR_OWNER, dir);
    len = snprintf(line, sizeof line, "%ld %lld\n", (long)getpid(),
                   start_time((long)getpid()));
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
        return -1;
    ok = write(fd, line, (size_t)len) == (ssize_t)len;
    return close(fd) == 0 && ok ? 0 : -1;
}

int scr_make(const char *base, const char *prefix, char *out, size_t n, struct err *e)
{
    int err, made = 0;

    scr_sweep(base);
    if (snprintf(out, n, "%s/%sXXXXXX", base, prefix) >= (int)n) {
        out[0] = '\0';
        return err_set(e, NULL, 0, 0, "scratch directory path too long in '%s'", base);
    }
    if ((made = mkdtemp(out) != NULL) == 0 || write_owner(out) < 0) {
        err = errno;
        if (made)
            scr_remove(out);
        out[0] = '\0';
        return err_set(e, NULL, 0, 0, "cannot create a scratch directory in '%s': %s", base,
                       strerror(err));
    }
    return 0;
}
