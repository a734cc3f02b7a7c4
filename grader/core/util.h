/*
 * util.h -- the few small helpers several modules need.
 */
#ifndef GRD_UTIL_H
#define GRD_UTIL_H

#include <stddef.h>

#include "core/err.h"

#define UT_PATH_MAX 4096

/* Milliseconds on CLOCK_MONOTONIC: for deadlines and durations only. */
double ut_now_ms(void);

/*
 * Milliseconds of CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID).
 * Unlike the wall clock it barely moves with the machine's load, so the
 * deadlines and the speed verdicts are measured in it.
 */
double ut_thread_cpu_ms(void);

/* Milliseconds of CPU time process `pid` has used (its CPU clock, read
 * from outside), or -1 when it cannot be read (no such process). */
double ut_proc_cpu_ms(int pid);

/* Milliseconds process `pid` has waited runnable for a CPU (the kernel's
 * count, cpt_proc_queued_ms); -1 where the system does not tell. */
double ut_proc_queued_ms(int pid);

/* The same for the calling thread; -1 where the system does not tell. */
double ut_thread_queued_ms(void);

/*
 * Field `k` (numbered as in proc(5), k >= 3) of a /proc/<pid>/stat line:
 * the state's character for k == 3, else the number; -1 when the line has
 * no such field. The command (field 2) may hold spaces and parentheses,
 * so fields are counted from its last ')'.
 */
long long ut_stat_field(const char *line, int k);

/* The CPUs this process may run on: its affinity mask on Linux (what a
 * Slurm task, taskset or a container's cpuset leaves it), else the online
 * ones; at least 1. */
long ut_usable_cpus(void);

/* 1 when `s` ends with `suffix`, else 0. */
int ut_has_suffix(const char *s, const char *suffix);

/*
 * Whether `path` is a regular file inside the directory `dir`: not a
 * symbolic link itself (lstat), and its real path (every link on the way
 * resolved) under dir's real path. A student's repository can hold
 * symlinks, so nothing it names is followed out of it. Returns 0 when it
 * is; -1 with a one-line reason in why[0..n) (naming `shown`) when it is
 * missing, a link, not a regular file, or outside.
 */
int ut_check_inside(const char *dir, const char *path, const char *shown, char *why,
                    size_t n) __attribute__((warn_unused_result));

/* Write all n bytes of buf to fd, again after EINTR and short writes:
 * 0, or -1 when a write fails or writes nothing. */
int ut_write_all(int fd, const void *buf, size_t n);

/*
 * Write n bytes to `path` atomically: a temporary file "<dir>/.tmp-<name>
 * -XXXXXX" in the same directory, then rename over `path`; with `durable`,
 * the file is synced before the rename and the directory after it (a
 * reader never sees a partial file either way; without `durable` a power
 * loss may lose or empty it, for files whose damage is detected, such as
 * the kept objects of build/objcache.h, and cost a few milliseconds less
 * each). Returns 0, or -1 with `e` set; the temporary file is then removed
 * and `path` is untouched.
 */
int ut_write_atomic(const char *path, const void *data, size_t n, int durable,
                    struct err *e) __attribute__((warn_unused_result));

/*
 * Room for `need` (>= 1) elements of `size` bytes in the array v, which has
 * room for *cap (after git's ALLOC_GROW): when need > *cap, v is
 * reallocated to `first` elements (when *cap is 0) or twice *cap, doubled
 * until need fits, the size arithmetic checked. Returns the array (v itself
 * when it had room) with *cap updated; NULL when out of memory or the size
 * overflows, v still valid and *cap unchanged. The one array grower.
 */
void *ut_grow(void *v, size_t *cap, size_t need, size_t size, size_t first)
    __attribute__((warn_unused_result));

/*
 * ut_grow() with a ceiling of `most` elements: need > most fails (NULL,
 * nothing changed), and the doubling stops at `most` (a list with a limit
 * of its own: files of a class, seeds of a pair).
 */
void *ut_grow_max(void *v, size_t *cap, size_t need, size_t size, size_t first,
                  size_t most) __attribute__((warn_unused_result));

/*
 * ut_grow() of two parallel arrays that share one capacity *cap (element
 * sizes asize and bsize): 0 when both have room for `need`, *a and *b
 * updated; -1 when out of memory, *cap unchanged and both arrays still
 * valid (the first may have grown).
 */
int ut_grow2(void **a, size_t asize, void **b, size_t bsize, size_t *cap, size_t need,
             size_t first) __attribute__((warn_unused_result));

#endif
