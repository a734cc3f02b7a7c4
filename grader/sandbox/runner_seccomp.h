/*
 * runner_seccomp.h -- the runner's seccomp filter (runner_seccomp.c), for
 * runner_main.c only.
 *
 * The filter allows the runner's calls (read, write on its descriptors,
 * its own signals but the four stops, mprotect of its state pages and of
 * its header only, ...) and traps everything else. `state` and `hdr` are
 * the two addresses mprotect may name: the runner's state pages and the
 * slot its header is mapped at.
 */
#ifndef GRD_RUNNER_SECCOMP_H
#define GRD_RUNNER_SECCOMP_H

#include <stdint.h>
#ifdef GRADER_SECCOMP
#include <linux/filter.h>
#endif

/* The filter as BPF, made once before the fork server forks: pid_at[]
 * are the instructions that compare with the runner's own pid. */
struct rsc_filter {
#ifdef GRADER_SECCOMP
    struct sock_filter insn[BPF_MAXINSNS];
    unsigned short len, n_pid, pid_at[64];
#else
    int none;
#endif
};

/* Make f for every runner (in the server, before any fork): 1 when made,
 * 0 when each runner must build its own (rsc_install does then). */
int rsc_prepare(struct rsc_filter *f, uintptr_t state, uintptr_t hdr);

/* Load this process's filter: f with its pid patched in when prepared,
 * else one built now. 0 on success, -1 on failure. */
int rsc_install(struct rsc_filter *f, uintptr_t state, uintptr_t hdr);

#endif
