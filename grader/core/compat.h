/*
 * compat.h -- the few system calls that are Linux's own, with a POSIX
 * fallback for the portable build (GRADER_PORTABLE=1: macOS and other
 * systems without them). On Linux the portable build takes the fallbacks
 * too, so that the suite proves they build and work (tests/portable.sh).
 *
 * Every function returns what the call it stands for returns (a file
 * descriptor or 0, -1 with errno set); a fallback for a safety net the
 * system lacks (no_new_privs, parent_death_signal) does nothing and
 * returns 0: that is the reduced sandbox the README describes.
 */
#ifndef GRD_COMPAT_H
#define GRD_COMPAT_H

#include <stddef.h>

#if defined(__linux__) && !(defined(GRADER_PORTABLE) && GRADER_PORTABLE)
#define CPT_LINUX 1
#else
#define CPT_LINUX 0
#endif

/* pipe2(p, O_CLOEXEC); the fallback sets FD_CLOEXEC on both ends. */
int cpt_pipe_cloexec(int p[2]);

/* An anonymous read-write file, close-on-exec: memfd_create(name), or a
 * temporary file under $TMPDIR (else /tmp) unlinked at once. */
int cpt_anon_fd(const char *name);

/* socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv); the fallback
 * sets FD_CLOEXEC on both ends. */
int cpt_socketpair_cloexec(int sv[2]);

/* mkostemp(tmpl, O_CLOEXEC); the fallback is mkstemp and FD_CLOEXEC. */
int cpt_mkstemp_cloexec(char *tmpl);

/* prctl(PR_SET_NO_NEW_PRIVS, 1); the fallback does nothing. */
int cpt_no_new_privs(void);

/* prctl(PR_SET_PDEATHSIG, sig): sig when the parent dies; the fallback
 * does nothing (the deadlines and the caller's kill remain). */
int cpt_parent_death_signal(int sig);

/* execvpe(file, argv, envp); the fallback sets environ, then execvp
 * (only ever called in a freshly forked child). */
int cpt_execvpe(const char *file, char *const argv[], char *const envp[]);

/*
 * The absolute path of the running executable, in buf (n bytes): on Linux
 * /proc/self/exe; on macOS _NSGetExecutablePath, resolved; elsewhere, and
 * when /proc is not mounted, argv[0] as the C library keeps it
 * (glibc's program_invocation_name), resolved against the current
 * directory or $PATH. Returns 0, or -1 with errno set (ENOENT when no
 * way found it, ENAMETOOLONG when buf is too small).
 */
int cpt_exe_path(char *buf, size_t n);

/*
 * Milliseconds of CPU time process `pid` (a child of ours, still alive) has
 * used, read from outside it: its POSIX CPU clock on Linux, the kernel's
 * rusage of it on macOS (proc_pid_rusage). Returns -1 where the system
 * offers neither (the portable build on Linux): the callers then bound a
 * call by the wall clock, which CPU time never runs ahead of.
 */
double cpt_proc_cpu_ms(int pid);

/*
 * Milliseconds process `pid` (its main thread) has spent runnable but
 * waiting for a CPU, as the kernel counts it: the second field of
 * /proc/<pid>/schedstat on Linux. Returns -1 where the system does not
 * tell (macOS, no schedstat): the callers then count that time as the
 * process's own, as if it had run.
 */
double cpt_proc_queued_ms(int pid);

/* The same for the calling thread (/proc/thread-self/schedstat). */
double cpt_thread_queued_ms(void);

#endif
