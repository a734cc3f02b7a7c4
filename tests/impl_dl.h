/*
 * impl_dl.h -- TEST-ONLY: a `struct impl` over a submission compiled to a
 * shared object and dlopen'ed into the test process.
 *
 * This exists so that property authors can run properties against the
 * catalogue quickly while developing. It runs submission code IN-PROCESS
 * and must never be used for grading or for hostile code: the grader runs
 * submissions only through the sandbox (sbx.h).
 *
 *   struct impl_dl d;
 *   if (impl_dl_open(&d, "tests/submissions/softmax_no_shift.c", errbuf, n) == 0) {
 *       struct impl im = impl_dl_impl(&d);  ... impl_dl_close(&d);
 *   }
 */
#ifndef TEST_IMPL_DL_H
#define TEST_IMPL_DL_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attention.h"
#include "assign/assign.h"
#include "sandbox/impl.h"

struct impl_dl {
    void *handle;
    char so_path[512];
    int (*softmax)(float *, size_t, size_t);
    int (*sdpa)(const float *, const float *, const float *, size_t, size_t,
                size_t, size_t, const unsigned char *, float *, float *);
    int (*pe)(float *, size_t, size_t);
    int (*mha)(const float *, size_t, const float *, size_t, size_t, size_t,
               const float *, const float *, const float *, const float *,
               const unsigned char *, float *, float *);
    int (*ln)(float *, size_t, size_t, float);
    int (*block)(float *, size_t, size_t, size_t, size_t, const float *,
                 const float *, const float *, const float *, const float *,
                 const float *, const float *, const float *,
                 const unsigned char *, float);
};

static double idl_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void idl_done(struct impl_result *r, int rc, double t0)
{
    memset(r, 0, sizeof *r);
    r->status = CALL_RETURNED;
    r->rc = rc;
    r->elapsed_ms = idl_now_ms() - t0;
}

static int idl_softmax(void *self, float *x, size_t rows, size_t cols,
                       struct impl_result *r, struct err *e)
{
    struct impl_dl *d = self;
    double t0 = idl_now_ms();
    (void)e;
    idl_done(r, d->softmax(x, rows, cols), t0);
    return 0;
}

static int idl_sdpa(void *self, const float *Q, const float *K, const float *V,
                    size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                    const unsigned char *mask, float *out, float *w,
                    struct impl_result *r, struct err *e)
{
    struct impl_dl *d = self;
    double t0 = idl_now_ms();
    (void)e;
    idl_done(r, d->sdpa(Q, K, V, n_q, n_k, d_k, d_v, mask, out, w), t0);
    return 0;
}

static int idl_pe(void *self, float *pe, size_t n, size_t dd,
                  struct impl_result *r, struct err *e)
{
    struct impl_dl *d = self;
    double t0 = idl_now_ms();
    (void)e;
    idl_done(r, d->pe(pe, n, dd), t0);
    return 0;
}

static int idl_mha(void *self, const float *Xq, size_t n_q, const float *Xkv,
                   size_t n_kv, size_t d_model, size_t heads, const float *Wq,
                   const float *Wk, const float *Wv, const float *Wo,
                   const unsigned char *mask, float *out, float *w,
                   struct impl_result *r, struct err *e)
{
    struct impl_dl *d = self;
    double t0 = idl_now_ms();
    (void)e;
    idl_done(r, d->mha(Xq, n_q, Xkv, n_kv, d_model, heads, Wq, Wk, Wv, Wo,
                       mask, out, w), t0);
    return 0;
}

static int idl_ln(void *self, float *x, size_t rows, size_t cols, float eps,
                  struct impl_result *r, struct err *e)
{
    struct impl_dl *d = self;
    double t0 = idl_now_ms();
    (void)e;
    idl_done(r, d->ln(x, rows, cols, eps), t0);
    return 0;
}

static int idl_block(void *self, float *X, size_t n, size_t d_model,
                     size_t heads, size_t d_ff, const float *Wq,
                     const float *Wk, const float *Wv, const float *Wo,
                     const float *W1, const float *b1, const float *W2,
                     const float *b2, const unsigned char *mask, float eps,
                     struct impl_result *r, struct err *e)
{
    struct impl_dl *d = self;
    double t0 = idl_now_ms();
    (void)e;
    idl_done(r, d->block(X, n, d_model, heads, d_ff, Wq, Wk, Wv, Wo, W1, b1,
                         W2, b2, mask, eps), t0);
    return 0;
}

static const struct impl_ops idl_ops = {
    idl_softmax, idl_sdpa, idl_pe, idl_mha, idl_ln, idl_block, NULL,
};

/* Compile `src` to a shared object and load it. 0 or -1 (msg in err). */
static int impl_dl_open(struct impl_dl *d, const char *src, char *err, size_t n)
{
    char cmd[4096];

    memset(d, 0, sizeof *d);
    snprintf(d->so_path, sizeof d->so_path, "/tmp/impl_dl_%ld_%p.so",
             (long)getpid(), (void *)d);
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -O2 -shared -fPIC -I'%.1000s/student_template' -o '%.600s' '%.1000s' -lm",
             TEST_SRCDIR, d->so_path, src);
    if (system(cmd) != 0) {
        snprintf(err, n, "cannot compile '%.200s'", src);
        return -1;
    }
    d->handle = dlopen(d->so_path, RTLD_NOW | RTLD_LOCAL);
    unlink(d->so_path);
    if (d->handle == NULL) {
        snprintf(err, n, "dlopen: %s", dlerror());
        return -1;
    }
    /* the C names from the assignment's registry (assign.h) */
    void **slot[ASG_FN_COUNT] = {
        [ASG_SOFTMAX] = (void **)&d->softmax, [ASG_SDPA] = (void **)&d->sdpa,
        [ASG_PE] = (void **)&d->pe, [ASG_MHA] = (void **)&d->mha,
        [ASG_LAYERNORM] = (void **)&d->ln, [ASG_BLOCK] = (void **)&d->block,
    };
    for (size_t f = 0; f < ASG_FN_COUNT; f++)
        if ((*slot[f] = dlsym(d->handle, asg_fn_cname((enum asg_fn)f))) == NULL) {
            snprintf(err, n, "'%.200s' lacks %s", src, asg_fn_cname((enum asg_fn)f));
            dlclose(d->handle);
            return -1;
        }
    return 0;
}

static struct impl impl_dl_impl(struct impl_dl *d)
{
    struct impl im = {&idl_ops, d};
    return im;
}

static void impl_dl_close(struct impl_dl *d)
{
    if (d->handle)
        dlclose(d->handle);
    d->handle = NULL;
}

#endif
