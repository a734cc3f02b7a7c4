/* prop_generic.c -- the generic properties every function has (inputs
 * unchanged, EINVAL, deterministic, no leaks, speed, matches reference);
 * see prop_common.h. */
#include "props/prop_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_util.h"

/* What pure outputs hold before an EINVAL call: a write shows as a change. */
#define PC_SENTINEL (-777.25f)

/* A fresh copy of n floats, or NULL when out of memory. */
static float *dup_floats(const float *x, size_t n)
{
    float *y = pu_floats(n);

    if (y != NULL)
        memcpy(y, x, n * sizeof *y);
    return y;
}

/* ---- inputs_unchanged ---------------------------------------------------- */

/* Index of the first byte-different float, or n. */
static size_t first_diff(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0)
            return i;
    return n;
}

/* Fail v when an input of k differs from its copy in saved[]; 1 if equal. */
static int inputs_equal(const struct pc_call *k, float *const *saved,
                        const unsigned char *mask_copy, struct prop_verdict *v,
                        const char *label)
{
    size_t mlen = k->fn == ASG_BLOCK ? k->n * k->n : k->n_q * k->n_k;

    for (size_t i = 0; i < k->n_in; i++) {
        size_t at = first_diff(k->in[i], saved[i], k->in_len[i]);
        if (at < k->in_len[i]) {
            pu_fail(v, "%s changed its const input '%s' at index %zu (%.9g became "
                    "%.9g) in %s", asg_fn_cname(k->fn), k->in_name[i], at,
                    (double)saved[i][at], (double)k->in[i][at], label);
            pu_hint(v, "inputs are const: compute into your own buffer or the output");
            return 0;
        }
    }
    if (k->mask != NULL && memcmp(k->mask, mask_copy, mlen) != 0) {
        pu_fail(v, "%s changed its const input 'mask' in %s", asg_fn_cname(k->fn), label);
        return 0;
    }
    return 1;
}

static void free_copies(float **saved, size_t n, unsigned char *mask_copy)
{
    for (size_t i = 0; i < n; i++) {
        free(saved[i]);
        saved[i] = NULL; /* a second free_copies is harmless */
    }
    free(mask_copy);
}

static int copy_inputs(const struct pc_call *k, float **saved,
                       unsigned char **mask_copy, struct err *e)
{
    size_t mlen = k->fn == ASG_BLOCK ? k->n * k->n : k->n_q * k->n_k;
    int bad = 0;

    for (size_t i = 0; i < k->n_in; i++)
        bad |= (saved[i] = dup_floats(k->in[i], k->in_len[i])) == NULL;
    *mask_copy = NULL;
    if (k->mask != NULL && (*mask_copy = pu_bytes(mlen)) != NULL)
        memcpy(*mask_copy, k->mask, mlen);
    if (bad || (k->mask != NULL && *mask_copy == NULL)) {
        free_copies(saved, k->n_in, *mask_copy);
        *mask_copy = NULL;
        return err_set(e, NULL, 0, 0, "out of memory copying inputs");
    }
    return 0;
}

static int outputs_written(const struct pc_call *k, struct prop_verdict *v);

/* What inputs_unchanged keeps of the inputs before the call. */
struct saved_inputs {
    float *in[PC_MAX_IN];
    unsigned char *mask;
};

static int save_inputs(const struct prop_ctx *x, struct pc_call *k)
{
    struct saved_inputs *s = k->arg;

    return copy_inputs(k, s->in, &s->mask, x->e) < 0 ? -1 : 1;
}

static int call_written(const struct prop_ctx *x, struct pc_call *k);

static int inputs_kept(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    const struct saved_inputs *s = k->arg;

    return inputs_equal(k, s->in, s->mask, x->v, label);
}

int pc_run_inputs_unchanged(const struct prop_ctx *x)
{
    static const struct pc_prop p = {PC_TEST_FN, NULL, save_inputs, call_written,
                                     inputs_kept};
    struct saved_inputs s = {{0}, NULL};
    int ok = pc_steps(x, &p, &s);

    free_copies(s.in, PC_MAX_IN, s.mask);
    return pu_outcome(ok, x->v);
}

/* ---- einval -------------------------------------------------------------- */

enum bad_kind { BAD_NULL_IN, BAD_NULL_OUT, BAD_ZERO, BAD_HEADS, BAD_EPS_NEG, BAD_EPS_NAN };

/* One bad-argument variant of a standard call, from attention.h's contract. */
struct bad_arg {
    enum asg_fn fn;
    enum bad_kind kind;
    size_t idx;          /* in[] / out[] index, or offsetof a size_t field */
    const char *what;    /* "'K' is NULL", "n_q is 0" */
};

#define ZERO(fn, field, what) {fn, BAD_ZERO, offsetof(struct pc_call, field), what}

static const struct bad_arg bad_args[] = {
    {ASG_SOFTMAX, BAD_NULL_OUT, 0, "'x' is NULL"},
    ZERO(ASG_SOFTMAX, rows, "rows is 0"), ZERO(ASG_SOFTMAX, cols, "cols is 0"),
    {ASG_SDPA, BAD_NULL_IN, 0, "'Q' is NULL"}, {ASG_SDPA, BAD_NULL_IN, 1, "'K' is NULL"},
    {ASG_SDPA, BAD_NULL_IN, 2, "'V' is NULL"}, {ASG_SDPA, BAD_NULL_OUT, 0, "'out' is NULL"},
    ZERO(ASG_SDPA, n_q, "n_q is 0"), ZERO(ASG_SDPA, n_k, "n_k is 0"),
    ZERO(ASG_SDPA, d_k, "d_k is 0"), ZERO(ASG_SDPA, d_v, "d_v is 0"),
    {ASG_PE, BAD_NULL_OUT, 0, "'pe' is NULL"},
    ZERO(ASG_PE, n, "n is 0"), ZERO(ASG_PE, d, "d is 0"),
    {ASG_MHA, BAD_NULL_IN, 0, "'Xq' is NULL"}, {ASG_MHA, BAD_NULL_IN, 1, "'Xkv' is NULL"},
    {ASG_MHA, BAD_NULL_IN, 2, "'Wq' is NULL"}, {ASG_MHA, BAD_NULL_IN, 3, "'Wk' is NULL"},
    {ASG_MHA, BAD_NULL_IN, 4, "'Wv' is NULL"}, {ASG_MHA, BAD_NULL_IN, 5, "'Wo' is NULL"},
    {ASG_MHA, BAD_NULL_OUT, 0, "'out' is NULL"},
    ZERO(ASG_MHA, n_q, "n_q is 0"), ZERO(ASG_MHA, n_k, "n_kv is 0"),
    ZERO(ASG_MHA, d_model, "d_model is 0"), ZERO(ASG_MHA, heads, "heads is 0"),
    {ASG_MHA, BAD_HEADS, 0, "heads does not divide d_model"},
    {ASG_LAYERNORM, BAD_NULL_OUT, 0, "'x' is NULL"},
    ZERO(ASG_LAYERNORM, rows, "rows is 0"), ZERO(ASG_LAYERNORM, cols, "cols is 0"),
    {ASG_LAYERNORM, BAD_EPS_NEG, 0, "eps is negative"},
    {ASG_LAYERNORM, BAD_EPS_NAN, 0, "eps is NaN"},
    {ASG_BLOCK, BAD_NULL_OUT, 0, "'X' is NULL"},
    {ASG_BLOCK, BAD_NULL_IN, 0, "'Wq' is NULL"}, {ASG_BLOCK, BAD_NULL_IN, 1, "'Wk' is NULL"},
    {ASG_BLOCK, BAD_NULL_IN, 2, "'Wv' is NULL"}, {ASG_BLOCK, BAD_NULL_IN, 3, "'Wo' is NULL"},
    {ASG_BLOCK, BAD_NULL_IN, 4, "'W1' is NULL"}, {ASG_BLOCK, BAD_NULL_IN, 5, "'b1' is NULL"},
    {ASG_BLOCK, BAD_NULL_IN, 6, "'W2' is NULL"}, {ASG_BLOCK, BAD_NULL_IN, 7, "'b2' is NULL"},
    ZERO(ASG_BLOCK, n, "n is 0"), ZERO(ASG_BLOCK, d_model, "d_model is 0"),
    ZERO(ASG_BLOCK, heads, "heads is 0"), ZERO(ASG_BLOCK, d_ff, "d_ff is 0"),
    {ASG_BLOCK, BAD_HEADS, 0, "heads does not divide d_model"},
    {ASG_BLOCK, BAD_EPS_NEG, 0, "eps is negative"},
    {ASG_BLOCK, BAD_EPS_NAN, 0, "eps is NaN"},
};

#define N_BAD_ARGS (sizeof bad_args / sizeof bad_args[0])

/* The smallest heads > k->heads that does not divide d_model. */
static size_t non_divisor(size_t d_model, size_t heads)
{
    size_t h = heads + 1;

    while (d_model % h == 0)
        h++;
    return h;
}

/* b = k with the bad argument `a` applied. */
static void apply_bad(const struct bad_arg *a, const struct pc_call *k,
                      struct pc_call *b)
{
    *b = *k;
    switch (a->kind) {
    case BAD_NULL_IN: b->in[a->idx] = NULL; break;
    case BAD_NULL_OUT: b->out[a->idx] = NULL; break;
    case BAD_ZERO: *(size_t *)((char *)b + a->idx) = 0; break;
    case BAD_HEADS:
        b->heads = non_divisor(k->d_model, k->heads);
        /* weights is heads x n_q x n_kv: no buffer of ours fits the bad
         * heads, and NULL weights are valid, so heads stays the only
         * invalid argument. */
        if (k->fn == ASG_MHA)
            b->out[1] = NULL;
        break;
    case BAD_EPS_NEG: b->eps = -1e-3f; break;
    case BAD_EPS_NAN: b->eps = NAN; break;
    }
}

static int fn_in_place(enum asg_fn fn)
{
    return fn == ASG_SOFTMAX || fn == ASG_LAYERNORM || fn == ASG_BLOCK;
}

/* Before a bad call: in-place buffers hold the valid input, pure outputs
 * the sentinel; the same fill is the expected content afterwards. */
static void prefill(struct pc_call *k)
{
    for (size_t i = 0; i < k->n_out; i++) {
        if (fn_in_place(k->fn))
            memcpy(k->out[i], k->init[i], k->out_len[i] * sizeof(float));
        else
            for (size_t j = 0; j < k->out_len[i]; j++)
                k->out[i][j] = PC_SENTINEL;
    }
}

/* 1 when no output of k (other than the one `a` set to NULL) was written. */
static int nothing_written(const struct pc_call *k, const struct bad_arg *a,
                           struct prop_verdict *v)
{
    for (size_t i = 0; i < k->n_out; i++) {
        if (a->kind == BAD_NULL_OUT && a->idx == i)
            continue;
        for (size_t j = 0; j < k->out_len[i]; j++) {
            float want = fn_in_place(k->fn) ? k->init[i][j] : PC_SENTINEL;
            if (memcmp(&k->out[i][j], &want, sizeof want) != 0) {
                pu_fail(v, "%s returned ATTN_EINVAL when %s but wrote '%s' at index "
                        "%zu first", asg_fn_cname(k->fn), a->what, k->out_name[i], j);
                pu_hint(v, "check every argument before writing anything: a failing "
                        "call must leave its outputs untouched");
                return 0;
            }
        }
    }
    return 1;
}

/* Run one bad variant; 1 when it behaved, 0 with v failed, -1 on error. */
static int try_bad(const struct impl *im, struct pc_call *k,
                   const struct bad_arg *a, struct prop_verdict *v,
                   struct err *e)
{
    struct pc_call b;
    struct impl_result r;

    prefill(k);
    apply_bad(a, k, &b);
    if (pc_call_raw(im, &b, &r, e) < 0)
        return -1;
    v->call = r;
    if (r.status != CALL_RETURNED) {
        pu_fail(v, "%s %s when %s%s%s", asg_fn_cname(k->fn), impl_status_name(r.status),
                a->what, r.detail[0] ? ": " : "", r.detail);
        pu_hint(v, "return ATTN_EINVAL before touching a NULL pointer or a zero size");
        return 0;
    }
    if (r.rc == ATTN_ENOTIMPL) {
        v->not_implemented = 1;
        pu_fail(v, "%s is not implemented yet (returned ATTN_ENOTIMPL)",
                asg_fn_cname(k->fn));
        return 0;
    }
    if (r.rc != ATTN_EINVAL) {
        pu_fail(v, "%s returned %d when %s; expected ATTN_EINVAL (%d)",
                asg_fn_cname(k->fn), r.rc, a->what, ATTN_EINVAL);
        pu_hint(v, "attention.h lists what is invalid: NULL required pointers, zero "
                "dimensions%s", k->fn == ASG_LAYERNORM || k->fn == ASG_BLOCK ?
                ", eps negative or NaN" : "");
        return 0;
    }
    return nothing_written(k, a, v);
}

/* Every bad-argument variant of k's function in turn. */
static int all_bad(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    int ok = 1;

    (void)label;
    for (size_t i = 0; i < N_BAD_ARGS && ok == 1; i++)
        if (bad_args[i].fn == k->fn)
            ok = try_bad(&x->env->student, k, &bad_args[i], x->v, x->e);
    return ok;
}

int pc_run_einval(const struct prop_ctx *x)
{
    static const struct pc_prop p = {PC_TEST_FN, NULL, NULL, pc_no_call, all_bad};

    return pc_run(x, &p);
}

/* Rotate each of k's inputs (and in-place initial contents) by one
 * element, forwards (back = 0) or back (back = 1, undoing a forward one):
 * the same magnitudes, different inputs. */
static void rotate_inputs(struct pc_call *k, int back)
{
    for (size_t i = 0; i < k->n_in + k->n_out; i++) {
        float *x = i < k->n_in ? k->in[i] : k->init[i - k->n_in];
        size_t n = i < k->n_in ? k->in_len[i] : k->out_len[i - k->n_in];
        if (n < 2 || (i >= k->n_in && !fn_in_place(k->fn)))
            continue;
        if (back) {
            float last = x[n - 1];
            memmove(x + 1, x, (n - 1) * sizeof *x);
            x[0] = last;
        } else {
            float first = x[0];
            memmove(x, x + 1, (n - 1) * sizeof *x);
            x[n - 1] = first;
        }
    }
}

/* ---- deterministic, no_leaks ------------------------------------------- */

/*
 * 1 when the function's result (out[0]: `out`, `pe`, or the in-place `x`
 * or `X`) is all finite. The generic properties judge how a function
 * computes (determinism, leaks, speed, its inputs), so they count only
 * for a call that computed its result: a function that returns ATTN_OK
 * and writes nothing must not earn them. The weights are judged by their
 * own properties, so a weights bug is not charged here a second time.
 */
static int outputs_written(const struct pc_call *k, struct prop_verdict *v)
{
    size_t at = k->n_out ? pu_first_nonfinite(k->out[0], k->out_len[0]) : 0;

    if (k->n_out && at < k->out_len[0]) {
        pu_fail(v, "%s returned ATTN_OK but '%s'[%zu] is %g: a result left "
                "unwritten or not finite", asg_fn_cname(k->fn), k->out_name[0],
                at, (double)k->out[0][at]);
        pu_hint(v, "every element of the result must be computed (a fully masked "
                "row is 0, never NaN)");
        return 0;
    }
    return 1;
}

/* Invoke and check the call returned ATTN_OK with its result written;
 * 1 ok, 0 v failed, -1 error. */
static int invoke_ok(const struct impl *im, struct pc_call *k,
                     struct impl_result *r, struct prop_verdict *v,
                     struct err *e)
{
    if (pc_invoke(im, k, r, e) < 0)
        return -1;
    return pu_returned_ok(v, r, asg_fn_cname(k->fn)) && outputs_written(k, v);
}

/* invoke_ok of the student: the call step of the properties here. */
static int call_written(const struct prop_ctx *x, struct pc_call *k)
{
    struct impl_result r;

    return invoke_ok(&x->env->student, k, &r, x->v, x->e);
}

/* Copies of k's outputs into snap[]; 0 or -1 (e set, nothing kept). */
static int snapshot(const struct pc_call *k, float **snap, struct err *e)
{
    for (size_t i = 0; i < k->n_out; i++) {
        snap[i] = dup_floats(k->out[i], k->out_len[i]);
        if (snap[i] == NULL) {
            free_copies(snap, i, NULL);
            return err_set(e, NULL, 0, 0, "out of memory copying outputs");
        }
    }
    return 0;
}

static int same_outputs(const struct pc_call *k, float *const *snap,
                        struct prop_verdict *v, const char *label)
{
    for (size_t i = 0; i < k->n_out; i++) {
        size_t at = first_diff(k->out[i], snap[i], k->out_len[i]);
        if (at < k->out_len[i]) {
            pu_fail(v, "two identical calls of %s gave different '%s' at index %zu "
                    "(%.9g then %.9g) in %s", asg_fn_cname(k->fn), k->out_name[i],
                    at, (double)snap[i][at], (double)k->out[i][at], label);
            pu_hint(v, "an uninitialised variable or buffer (malloc'ed, never set) or "
                    "state kept in a static between calls");
            return 0;
        }
    }
    return 1;
}

/* After the first call: the same call again, then other inputs and the
 * first again, each compared with the first. */
static int same_again(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    float *snap[PC_MAX_OUT] = {0};
    int ok;

    if ((ok = snapshot(k, snap, x->e)) < 0)
        return -1;
    ok = call_written(x, k);
    if (ok == 1)
        ok = same_outputs(k, snap, x->v, label);
    /* then a call on other inputs, and the first inputs again: a
     * remembered last call gains nothing there, and a buffer reused
     * uninitialised shows */
    if (ok == 1) {
        rotate_inputs(k, 0);
        ok = call_written(x, k);
        rotate_inputs(k, 1);
    }
    if (ok == 1)
        ok = call_written(x, k);
    if (ok == 1)
        ok = same_outputs(k, snap, x->v, label);
    free_copies(snap, k->n_out, NULL);
    return ok;
}

int pc_run_deterministic(const struct prop_ctx *x)
{
    static const struct pc_prop p = {PC_TEST_FN, NULL, NULL, call_written, same_again};

    return pc_run(x, &p);
}

/* The allocations the call left live (x->v->call: pu_returned_ok keeps it). */
static int none_live(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    long live = x->v->call.live_allocs;

    if (live == 0)
        return 1;
    pu_fail(x->v, "%s left %ld allocation%s live after returning in %s",
            asg_fn_cname(k->fn), live, live == 1 ? "" : "s", label);
    pu_hint(x->v, "free every malloc before returning, on every path (early returns too)");
    return 0;
}

int pc_run_no_leaks(const struct prop_ctx *x)
{
    static const struct pc_prop p = {PC_TEST_FN, NULL, NULL, call_written, none_live};

    return pc_run(x, &p);
}

/* ---- speed --------------------------------------------------------------- */

/*
 * Speed is judged on CPU time (impl_result.cpu_ms), which barely moves
 * with the machine's load, unlike the wall clock: a regrade on a busy
 * machine gives the same verdict. The reference and the student are
 * called in turn, SPEED_REPEATS times each, and the fastest of each
 * counts. Every repeat draws its inputs afresh from the run's seed
 * (pc_build_draw), so no call's inputs follow from an earlier call's and a
 * submission can neither remember nor predict them. And every timed
 * call's result must be what the function computes on the same inputs in
 * a fresh runner, so answers returned without computing them (a memo)
 * fail; a function wrong the same way every time is judged by the value
 * tests, not charged here a second time.
 */
#define SPEED_REPEATS 3

struct speed_run {
    const struct prop_ctx *x;
    enum asg_fn fn;
    double r_ms, s_ms;          /* fastest CPU times so far */
    float *got[SPEED_REPEATS];  /* each timed call's result (out[0]) */
    char label[160];
};

/* One timed repeat on draw i: 1 ok, 0 v failed (the student's call),
 * -1 error (e set; the reference failing is one). */
static int timed_pair(struct speed_run *sr, int i, struct prop_verdict *v,
                      struct err *e)
{
    struct impl_result r;
    struct pc_call k;
    int ok;

    if (pc_build_draw(sr->fn, sr->x->env, sr->x->t, sr->x->c, (uint64_t)i, &k, e) < 0)
        return -1;
    if (i == 0)
        pc_label(sr->x->t, sr->x->c, &k, sr->label, sizeof sr->label);
    ok = pc_invoke(sr->x->env->reference, &k, &r, e) < 0 ? -1 : 0;
    if (ok == 0 && (r.status != CALL_RETURNED || r.rc != ATTN_OK))
        ok = err_set(e, NULL, 0, 0, "the reference failed on %s", sr->label);
    if (ok == 0) {
        sr->r_ms = fmin(sr->r_ms, r.cpu_ms);
        ok = invoke_ok(&sr->x->env->student, &k, &r, v, e);
    }
    if (ok == 1) {
        sr->s_ms = fmin(sr->s_ms, r.cpu_ms);
        if ((sr->got[i] = dup_floats(k.out[0], k.out_len[0])) == NULL)
            ok = err_set(e, NULL, 0, 0, "out of memory copying outputs");
    }
    pc_release(&k);
    return ok;
}

/* The first element where a differs from b beyond tol (x max(1, |b|)),
 * or n. */
static size_t first_apart(const float *a, const float *b, size_t n, double tol)
{
    for (size_t j = 0; j < n; j++)
        if (!pu_close(b[j], a[j], tol * (fabs(b[j]) > 1 ? fabs(b[j]) : 1), 0))
            return j;
    return n;
}

/* Each timed call again, untimed, each in a runner of its own: the same
 * result? */
static int recomputed(struct speed_run *sr, struct prop_verdict *v, struct err *e)
{
    const struct prop_def *d = prop_find(sr->x->t->function, "matches_reference");
    double tol = d != NULL ? d->default_tol : 1e-4;
    struct pc_call k;
    size_t at;
    int ok = 1;

    for (int i = 0; i < SPEED_REPEATS && ok == 1; i++) {
        pc_fresh(&sr->x->env->student);    /* no history: each call from scratch */
        if (pc_build_draw(sr->fn, sr->x->env, sr->x->t, sr->x->c, (uint64_t)i, &k, e) < 0)
            return -1;
        ok = pc_call_ok(sr->x, &k);
        /* the result only: the weights are judged by their own tests */
        if (ok == 1 && (at = first_apart(sr->got[i], k.out[0], k.out_len[0], tol)) <
                           k.out_len[0]) {
            pu_fail(v, "timed call %d of %d returned '%s'[%zu] = %.9g, but the same "
                    "call in a fresh runner computes %.9g (%s, new inputs)", i + 1,
                    SPEED_REPEATS, k.out_name[0], at, (double)sr->got[i][at],
                    (double)k.out[0][at], sr->label);
            pu_hint(v, "every timed call gets inputs no earlier call had: each must "
                    "be computed, not remembered or predicted");
            ok = 0;
        }
        pc_release(&k);
    }
    return ok;
}

int pc_run_speed(const struct prop_ctx *x)
{
    const struct spec_test *t = x->t;
    struct prop_verdict *v = x->v;
    struct err *e = x->e;
    double factor = spec_num(x->c, "factor", 50), floor_ms = spec_num(x->c, "floor_ms", 20);
    struct speed_run sr = { x, ASG_SOFTMAX, INFINITY, INFINITY, {0}, "" };
    int ok = 1;

    if (x->env->reference == NULL)
        return err_set(e, NULL, 0, 0, "'%s' needs the reference solution", t->id);
    if (pc_fn(t, &sr.fn) < 0)
        return err_set(e, NULL, 0, 0, "unknown function '%s'", t->function);
    for (int i = 0; i < SPEED_REPEATS && ok == 1; i++)
        ok = timed_pair(&sr, i, v, e);
    if (ok == 1 && sr.s_ms > factor * sr.r_ms + floor_ms) {
        /* no measured figure in the message: a regrade prints the same */
        pu_fail(v, "%s is more than %gx + %g ms slower than the reference on %s "
                "(CPU time, the fastest of %d calls each)", asg_fn_cname(sr.fn),
                factor, floor_ms, sr.label, SPEED_REPEATS);
        pu_hint(v, "is it O(n^3)? Recomputing a whole row or matrix inside the "
                "innermost loop multiplies the work");
        ok = 0;
    }
    if (ok == 1)
        ok = recomputed(&sr, v, e);
    free_copies(sr.got, SPEED_REPEATS, NULL);
    return ok == 1 ? pu_pass(v) : ok;
}

/* ---- matches_reference -------------------------------------------------- */

static int outputs_close(const struct pc_call *k, float *const *ref, double tol,
                         struct prop_verdict *v, const char *label)
{
    for (size_t i = 0; i < k->n_out; i++) {
        for (size_t j = 0; j < k->out_len[i]; j++) {
            double r = ref[i][j], s = k->out[i][j];
            if (!pu_close(r, s, tol * (fabs(r) > 1 ? fabs(r) : 1), 0)) {
                pu_fail(v, "'%s'[%zu] is %.9g, the reference gives %.9g (tolerance "
                        "%g x max(1, |ref|)) in %s", k->out_name[i], j, s, r, tol, label);
                return 0;
            }
        }
    }
    return 1;
}

/* What a comparison with the reference keeps: its outputs, the
 * tolerance, the hint for outputs that differ. */
struct vs_reference {
    float *ref[PC_MAX_OUT];
    double tol;
    const char *hint;
};

/* Run the reference on k and keep its outputs; 1 or -1 (e set). */
static int run_reference(const struct prop_ctx *x, struct pc_call *k)
{
    struct vs_reference *vr = k->arg;
    struct impl_result r;
    char label[160];

    if (pc_invoke(x->env->reference, k, &r, x->e) < 0)
        return -1;
    if (r.status != CALL_RETURNED || r.rc != ATTN_OK)
        return err_set(x->e, NULL, 0, 0, "the reference %s (rc %d) on %s",
                       impl_status_name(r.status), r.rc,
                       pc_label(x->t, x->c, k, label, sizeof label));
    return snapshot(k, vr->ref, x->e) < 0 ? -1 : 1;
}

static int close_to_reference(const struct prop_ctx *x, struct pc_call *k,
                              const char *label)
{
    const struct vs_reference *vr = k->arg;
    int ok = outputs_close(k, vr->ref, vr->tol, x->v, label);

    if (!ok && vr->hint != NULL)
        pu_hint(x->v, "%s", vr->hint);
    return ok;
}

/* The case's outputs against the reference's, within tol: 1, 0 (v set;
 * with `hint` when the outputs differ, not when the call failed), or -1.
 * The one comparison of matches_reference and the seeded check. */
static int against_reference(const struct prop_ctx *x, double tol, const char *hint)
{
    static const struct pc_prop p = {PC_TEST_FN, NULL, run_reference, call_written,
                                     close_to_reference};
    struct vs_reference vr = {{0}, tol, hint};
    int ok = pc_steps(x, &p, &vr);

    free_copies(vr.ref, PC_MAX_OUT, NULL);
    return ok;
}

int pc_run_matches_reference(const struct prop_ctx *x)
{
    if (x->env->reference == NULL)
        return err_set(x->e, NULL, 0, 0, "'%s' needs the reference solution", x->t->id);
    return pu_outcome(against_reference(x, pc_tol(x), NULL), x->v);
}

/* ---- values on seeded inputs --------------------------------------------- */

int pc_check_seeded(const struct prop_ctx *x)
{
    const struct prop_def *d = prop_find(x->t->function, "matches_reference");

    if (x->env->reference == NULL)
        return 1;
    return against_reference(x, d != NULL ? d->default_tol : 1e-4,
                             "the spec's values matched, but the same shape with inputs "
                             "drawn from the course seed did not: the values must be "
                             "computed, not remembered");
}
