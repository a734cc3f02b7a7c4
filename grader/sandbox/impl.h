/*
 * impl.h -- one implementation of the assignment's API, as the property
 * tests see it.
 *
 * A property never calls a submission directly. It calls through a
 * `struct impl`, which is either
 *   - the sandbox (sbx.h): the student's object runs in a contained child
 *     process, and every call comes back with a `struct impl_result` that
 *     says whether the call returned at all; or
 *   - a local implementation (impl_local()): trusted code linked
 *     into this process, used for the reference and for our own tests.
 *
 * Each call has the exact arguments of the fixed API plus a impl_result.
 * Buffers are the caller's: the sandbox copies inputs in and outputs back,
 * so after the call `out`, `weights`, `x`, `X` hold what the submission
 * wrote (for a call that did not return, their contents are unspecified
 * and must not be judged).
 *
 * The functions return 0 when the call could be made (whatever the
 * submission did; see impl_result.status) and -1 on an error of the grader
 * itself (out of memory, the runner could not be started), with `e` set.
 */
#ifndef GRD_IMPL_H
#define GRD_IMPL_H

#include <stddef.h>

#include "assign/assign.h"
#include "core/err.h"

/* How a single call ended. Only CALL_RETURNED has a meaningful `rc`. */
enum impl_status {
    CALL_RETURNED = 0,  /* the function returned; rc holds its value */
    CALL_CRASHED,       /* killed by a signal (segfault, abort, ...) */
    CALL_TIMEOUT,       /* passed its deadline and was killed */
    CALL_EXITED,        /* called exit()/_exit() instead of returning */
    CALL_OVERRUN,       /* touched memory past a buffer (detail names it) */
    CALL_CONST_WRITE,   /* modified a const input (detail names it) */
    CALL_SYSCALL,       /* made a system call the sandbox forbids */
    CALL_MEMORY,        /* ran out of its memory limit */
    CALL_SKIPPED        /* not made: budget exhausted or earlier timeouts */
};

#define CALL_DETAIL_MAX 160

struct impl_result {
    enum impl_status status;
    int rc;                 /* return value when status == CALL_RETURNED */
    int signo;              /* the signal for CALL_CRASHED, else 0 */
    long live_allocs;       /* allocations still live after the call */
    double elapsed_ms;      /* wall time of the call, measured by the parent */
    double cpu_ms;          /* CPU time of the call, measured by the parent
                               (the runner's CPU clock; for a local call, the
                               thread's): what speed verdicts use */
    char detail[CALL_DETAIL_MAX]; /* e.g. "wrote past the end of `out`" */
};

struct impl_ops {
    int (*softmax_rows)(void *self, float *x, size_t rows, size_t cols,
                        struct impl_result *r, struct err *e);
    int (*scaled_dot_product)(void *self, const float *Q, const float *K,
                              const float *V, size_t n_q, size_t n_k,
                              size_t d_k, size_t d_v,
                              const unsigned char *mask, float *out,
                              float *weights, struct impl_result *r,
                              struct err *e);
    int (*positional_encoding)(void *self, float *pe, size_t n, size_t d,
                               struct impl_result *r, struct err *e);
    int (*multi_head)(void *self, const float *Xq, size_t n_q,
                      const float *Xkv, size_t n_kv, size_t d_model,
                      size_t heads, const float *Wq, const float *Wk,
                      const float *Wv, const float *Wo,
                      const unsigned char *mask, float *out, float *weights,
                      struct impl_result *r, struct err *e);
    int (*layer_norm)(void *self, float *x, size_t rows, size_t cols,
                      float eps, struct impl_result *r, struct err *e);
    int (*transformer_block)(void *self, float *X, size_t n, size_t d_model,
                             size_t heads, size_t d_ff, const float *Wq,
                             const float *Wk, const float *Wv,
                             const float *Wo, const float *W1,
                             const float *b1, const float *W2,
                             const float *b2, const unsigned char *mask,
                             float eps, struct impl_result *r,
                             struct err *e);
    /* Make the next call in a fresh process, so that it cannot lean on
     * anything an earlier call left behind (NULL: nothing to restart,
     * e.g. trusted code linked into the grader). */
    void (*restart)(void *self);
};

struct impl {
    const struct impl_ops *ops;
    void *self;
};

/* A fixed phrase for a status, e.g. "crashed", "timed out". */
const char *impl_status_name(enum impl_status st);

/*
 * An implementation that calls the attn_* functions linked into this
 * process, timing each call. Only for trusted code: the reference in the
 * staff build, and our own tests. Never use it for a submission. Returns a
 * static, immutable descriptor.
 */
struct impl impl_local(void);

#endif
