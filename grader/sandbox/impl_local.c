/*
 * impl_local.c -- struct impl over the attn_* functions linked into this
 * process (the reference in staff builds, or our tests). Trusted code only:
 * a call runs unprotected in the grader's own process.
 */
#include "sandbox/impl.h"

#include <string.h>

#include "attention.h"
#include "core/util.h"

/* Start a call: clear the result, note the thread's CPU time in cpu_ms
 * and return the start time. */
static double call_begin(struct impl_result *r)
{
    memset(r, 0, sizeof *r);
    r->cpu_ms = ut_thread_cpu_ms();
    return ut_now_ms();
}

/* Finish a call that returned rc. Always 0: a local call is always made. */
static int call_end(struct impl_result *r, double t0, int rc)
{
    r->elapsed_ms = ut_now_ms() - t0;
    r->cpu_ms = ut_thread_cpu_ms() - r->cpu_ms;
    r->status = CALL_RETURNED;
    r->rc = rc;
    return 0;
}

static int loc_softmax(void *self, float *x, size_t rows, size_t cols,
                       struct impl_result *r, struct err *e)
{
    double t0 = call_begin(r);
    int rc = attn_softmax_rows(x, rows, cols);

    (void)self;
    (void)e;
    return call_end(r, t0, rc);
}

static int loc_sdpa(void *self, const float *Q, const float *K, const float *V,
                    size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                    const unsigned char *mask, float *out, float *weights,
                    struct impl_result *r, struct err *e)
{
    double t0 = call_begin(r);
    int rc = attn_scaled_dot_product(Q, K, V, n_q, n_k, d_k, d_v, mask, out,
                                     weights);

    (void)self;
    (void)e;
    return call_end(r, t0, rc);
}

static int loc_pe(void *self, float *pe, size_t n, size_t d,
                  struct impl_result *r, struct err *e)
{
    double t0 = call_begin(r);
    int rc = attn_positional_encoding(pe, n, d);

    (void)self;
    (void)e;
    return call_end(r, t0, rc);
}

static int loc_mha(void *self, const float *Xq, size_t n_q, const float *Xkv,
                   size_t n_kv, size_t d_model, size_t heads, const float *Wq,
                   const float *Wk, const float *Wv, const float *Wo,
                   const unsigned char *mask, float *out, float *weights,
                   struct impl_result *r, struct err *e)
{
    double t0 = call_begin(r);
    int rc = attn_multi_head(Xq, n_q, Xkv, n_kv, d_model, heads, Wq, Wk, Wv,
                             Wo, mask, out, weights);

    (void)self;
    (void)e;
    return call_end(r, t0, rc);
}

static int loc_layer_norm(void *self, float *x, size_t rows, size_t cols,
                          float eps, struct impl_result *r, struct err *e)
{
    double t0 = call_begin(r);
    int rc = attn_layer_norm(x, rows, cols, eps);

    (void)self;
    (void)e;
    return call_end(r, t0, rc);
}

static int loc_block(void *self, float *X, size_t n, size_t d_model,
                     size_t heads, size_t d_ff, const float *Wq,
                     const float *Wk, const float *Wv, const float *Wo,
                     const float *W1, const float *b1, const float *W2,
                     const float *b2, const unsigned char *mask, float eps,
                     struct impl_result *r, struct err *e)
{
    double t0 = call_begin(r);
    int rc = attn_transformer_block(X, n, d_model, heads, d_ff, Wq, Wk, Wv,
                                    Wo, W1, b1, W2, b2, mask, eps);

    (void)self;
    (void)e;
    return call_end(r, t0, rc);
}

static const struct impl_ops local_ops = {
    .softmax_rows = loc_softmax,
    .scaled_dot_product = loc_sdpa,
    .positional_encoding = loc_pe,
    .multi_head = loc_mha,
    .layer_norm = loc_layer_norm,
    .transformer_block = loc_block,
};

struct impl impl_local(void)
{
    struct impl im = { &local_ops, NULL };

    return im;
}
