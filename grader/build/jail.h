/*
 * jail.h -- the toolchain's jail: the child in which cc (cc1, as, ld) and
 * objcopy run, and the cleanup of a grading's scratch directory when the
 * grader is stopped by a signal.
 *
 * A tool runs as the grandchild of the grader:
 *     grader -> keeper (own process group, dies with the grader)
 *                 -> tool (rlimits, clean environment, Landlock, exec)
 * The keeper leads the tool's process group. It asks for SIGUSR1 when the
 * grader dies (PR_SET_PDEATHSIG) and then kills the whole group, so cc1
 * and as, which a plain parent-death signal on the driver would orphan,
 * go too. The tool then:
 *   - reads its stdin from /dev/null; stdout and stderr are the caller's;
 *   - has the environment PATH=/usr/bin:/bin, LC_ALL=C, TMPDIR=<scratch>
 *     and nothing else (no CI token, no grader setting reaches it);
 *   - has rlimits on address space, CPU time, file size, processes, open
 *     files and core dumps;
 *   - under Landlock (raw syscalls, ABI read at run time) can read and
 *     execute only the system's compiler, library and header directories
 *     (JAIL_SYSTEM_DIRS) and the files the call names, write only the
 *     directories the call names (the scratch directory), open no TCP
 *     socket (ABI 4) and signal no process outside the jail (ABI 6).
 * Where Landlock is missing (jail_probe() says why) the rest still holds.
 * Why Landlock rather than namespaces: docs/SECURITY.md.
 *
 * Everything a child needs is built by jail_init/jail_allow_* in the
 * parent, so the child calls only async-signal-safe functions.
 */
#ifndef GRD_JAIL_H
#define GRD_JAIL_H

#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"

#define JAIL_PATH_MAX 4096
#define JAIL_MAX_PATHS 8           /* of each kind per run */
#define JAIL_AS_BYTES (2ul << 30)  /* address space of each tool process */
#define JAIL_FSIZE_BYTES (64ul << 20) /* largest file a tool may write */
#define JAIL_NPROC 512             /* above what the account runs already */
#define JAIL_NPROC_MIN 16          /* fewer left: the machine's trouble */
#define JAIL_NOFILE 256
/* Read and execute: the compiler's own files, headers and libraries. */
#define JAIL_SYSTEM_DIRS                                                          \
    "/usr/bin", "/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/include",        \
        "/usr/local/include", "/usr/x86_64-linux-gnu", "/usr/aarch64-linux-gnu"
#define JAIL_SYSTEM_FILES "/etc/ld.so.cache", "/etc/ld.so.conf"

/* One run's jail, as plain data (fill with jail_init, then jail_allow_*). */
struct jail {
    char exe[JAIL_PATH_MAX];                 /* the tool, absolute */
    char rw[JAIL_MAX_PATHS][JAIL_PATH_MAX];  /* writable directories */
    size_t n_rw;
    char ro[JAIL_MAX_PATHS][JAIL_PATH_MAX];  /* extra readable files */
    size_t n_ro;
    char env_tmpdir[JAIL_PATH_MAX + 8];
    char *env[4];                            /* NULL-terminated */
    long cpu_s;                              /* RLIMIT_CPU */
    unsigned long long nproc;                /* RLIMIT_NPROC, as taken */
    long nproc_tasks;                        /* the account's, or -1 */
};

/*
 * The Landlock ABI this kernel offers (>= 1), or 0 when the toolchain
 * cannot be confined, with why (e.g. "Landlock is not enabled in this
 * kernel") in why[0..n). The CLI warns once when it is 0.
 */
int jail_probe(char *why, size_t n);

/*
 * Start a jail for the tool `tool` (a path, or a name looked up in the
 * grader's PATH), with TMPDIR and the first writable directory `tmpdir`,
 * and `cpu_s` seconds of CPU per process. Returns 0, or -1 with `e` set
 * (tool not found, path too long, or the account's hard RLIMIT_NPROC
 * leaves the tool fewer than JAIL_NPROC_MIN processes: a grader error).
 */
int jail_init(struct jail *j, const char *tool, const char *tmpdir, long cpu_s,
              struct err *e) __attribute__((warn_unused_result));

/*
 * The limits a tool given `cpu_s` seconds of CPU would get now, in one
 * line into buf[0..n) (for --verbose): each is what the grader wants or,
 * when the account's hard limit is lower, that ("(the hard limit)").
 * RLIMIT_NPROC is JAIL_NPROC above the tasks the account runs now.
 */
void jail_describe(long cpu_s, char *buf, size_t n);

/* The CPU time (ms) used by the live processes of group `pgid` and the
 * children they reaped, or -1 when it cannot be read (no /proc). */
double jail_group_cpu_ms(pid_t pgid);

/* Let the tool write in directory `dir` / read the file `file` (made
 * absolute). Returns 0, or -1 with `e` set (too many paths, too long). */
int jail_allow_dir(struct jail *j, const char *dir, struct err *e)
    __attribute__((warn_unused_result));
int jail_allow_file(struct jail *j, const char *file, struct err *e)
    __attribute__((warn_unused_result));

/* The directory part of `path` ("." when none) into buf[0..n). */
void jail_dirname(const char *path, char *buf, size_t n);

/*
 * In a fresh child of the grader: become the keeper of a new process
 * group, fork the tool, and in the tool apply the jail, chdir to `cwd`
 * (may be NULL), connect stdout and stderr to out_fd and exec argv (argv[0]
 * is replaced by j->exe). When anything before the exec fails, its errno
 * is written to err_fd (close-on-exec). Never returns: the keeper exits
 * as the tool did (same status, or the same signal).
 */
void jail_keeper(const struct jail *j, const char *const argv[], const char *cwd,
                 int out_fd, int err_fd) __attribute__((noreturn));

/*
 * Signal cleanup. jail_cleanup_install() makes SIGINT, SIGTERM and SIGHUP
 * kill the running tool's process group, remove the tracked scratch
 * directory (and what is in it, two levels deep) and then end the grader
 * by the same signal. Called once by the CLI; a later handler (the batch's
 * own) replaces it. The tracked state is process-wide because a signal
 * handler can reach nothing else (see jail.c).
 */
void jail_cleanup_install(void);
void jail_track_scratch(const char *dir);   /* NULL: stop tracking */
void jail_track_group(pid_t pgid);          /* 0: none running */

#endif
