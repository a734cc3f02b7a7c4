/*
 * rlim.h -- the resource limits the grader sets on its tools and runners,
 * taken within what the machine gives it.
 *
 * An unprivileged process may lower a limit but never raise a hard one
 * (EPERM). A grader that asks for a fixed value above an account's hard
 * limit cannot start its compiler at all, so every limit goes through
 * rlim_lower(): the lower of what the grader wants and the current hard
 * limit. And RLIMIT_NPROC counts every process of the user, not the
 * tool's own: rlim_user_tasks() lets the caller set it relative to what
 * the account runs already (jail.c).
 */
#ifndef GRD_RLIM_H
#define GRD_RLIM_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/* The limit `want` for `resource`, at most its current hard limit (the
 * hard limit itself when it cannot be read: nothing is raised). */
rlim_t rlim_within(int resource, rlim_t want);

/* 1 when `want` is above the current hard limit of `resource`. */
int rlim_is_capped(int resource, rlim_t want);

/*
 * Set `resource` to soft `soft` and hard `hard`, each at most the current
 * hard limit, and the soft at most the hard. Async-signal-safe (called
 * between fork and exec). Returns setrlimit's result: 0, or -1 with errno.
 */
int rlim_lower(int resource, rlim_t soft, rlim_t hard);

/*
 * The tasks (threads: what RLIMIT_NPROC counts on Linux) of real user
 * `uid` now, read from /proc; -1 when they cannot be counted (no /proc,
 * another system). Not async-signal-safe.
 */
long rlim_user_tasks(uid_t uid);

/* `v` as text into buf[0..n): "unlimited", or bytes as "N MiB" when
 * `mib`, else the number. Returns buf. */
const char *rlim_text(rlim_t v, int mib, char *buf, size_t n);

#endif
