/*
 * prop_common.h -- the "standard call" of each API function, and the
 * generic properties every function has (inputs unchanged, EINVAL on bad
 * arguments, determinism, no leaks, speed, agreement with the reference).
 * Prefix pc_; for the property files and the layers above that make the
 * same calls (grade/diag.c, selfcheck/prop_written.c). Building and calling live
 * in prop_common.c, the generic properties in prop_generic.c.
 *
 * A standard call is built from a spec case: its shapes come from the case
 * keys (with defaults), its inputs are Gaussian (key `scale`, default 1)
 * drawn from the case's seed, its mask from the key `mask`. Every buffer is
 * owned by the pc_call and released by pc_release(). Property code may
 * change the inputs (in[], mask, init[]) between pc_build and pc_invoke.
 * A property's run is usually a struct pc_prop handed to pc_run (below).
 *
 * Standard buffers per function (in[] order / out[] order):
 *   softmax    in: -                         out: x (in place, rows x cols)
 *   sdpa       in: Q, K, V                   out: out (n_q x d_v), weights (n_q x n_k)
 *   pe         in: -                         out: pe (n x d)
 *   mha        in: Xq, Xkv, Wq, Wk, Wv, Wo   out: out (n_q x d_model),
 *                                                 weights (heads x n_q x n_kv)
 *   layernorm  in: -                         out: x (in place, rows x cols)
 *   block      in: Wq, Wk, Wv, Wo, W1, b1, W2, b2   out: X (in place, n x d_model)
 * mha keeps n_kv in the field n_k; block keeps n in n, and its mask is n x n.
 */
#ifndef GRD_PROP_COMMON_H
#define GRD_PROP_COMMON_H

#include <stddef.h>

#include "sandbox/impl.h"
#include "props/prop.h"
#include "spec/spec.h"

#define PC_MAX_IN 8
#define PC_MAX_OUT 2

/* One standard call of one API function, built from a case. */
struct pc_call {
    enum asg_fn fn;
    size_t rows, cols;          /* softmax, layernorm (x is rows x cols) */
    size_t n_q, n_k, d_k, d_v;  /* sdpa; mha uses n_q and n_k (= n_kv) */
    size_t n, d;                /* pe; block uses n */
    size_t d_model, heads, d_ff;/* mha, block */
    float eps;                  /* layernorm, block */
    const char *mask_kind;      /* "none", "causal", "random", "full_row" */
    float *in[PC_MAX_IN];       /* const inputs (owned) */
    size_t in_len[PC_MAX_IN];
    const char *in_name[PC_MAX_IN];
    size_t n_in;
    unsigned char *mask;        /* NULL or owned; n_q x n_k (block: n x n) */
    float *out[PC_MAX_OUT];     /* outputs or in-place buffers (owned) */
    size_t out_len[PC_MAX_OUT];
    const char *out_name[PC_MAX_OUT];
    size_t n_out;
    float *init[PC_MAX_OUT];    /* what out[i] is reset to before each call:
                                   the in-place input, or NaN (owned) */
    struct orc *orc;            /* the run's oracle (prop_env.orc), for
                                   expected values */
    void *arg;                  /* pc_steps' arg: the run function's own
                                   state for its fill and check (not owned) */
};

/*
 * Build the standard call of `fn` from case `c` (seeded by
 * pu_case_seed(env, t, c)). Keys: rows cols n_q n_k n_kv d_k d_v n d
 * d_model heads d_ff eps scale mask (see pc_generic_keys). Returns 0, or
 * -1 with `e` set (out of memory, a size that overflows, an unknown mask
 * kind); on failure k holds nothing to release (it is zeroed).
 */
int pc_build(enum asg_fn fn, const struct prop_env *env,
             const struct spec_test *t, const struct spec_case *c,
             struct pc_call *k, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Make k's call on `im`: out[i] is first reset from init[i], so calling
 * twice makes the same call. Returns what the impl returns: 0 when the call
 * could be made (see r->status), -1 on a grader error (e set).
 */
int pc_invoke(const struct impl *im, struct pc_call *k, struct impl_result *r,
              struct err *e) __attribute__((warn_unused_result));

/*
 * The call with k's pointers and sizes exactly as they are: no reset of
 * the outputs (EINVAL variants call with some pointers or sizes changed).
 * Returns like pc_invoke.
 */
int pc_call_raw(const struct impl *im, const struct pc_call *k,
                struct impl_result *r, struct err *e)
    __attribute__((warn_unused_result));

/* pc_build with the draw-th independent set of inputs of the case's
 * shapes (draw 0: pc_build's own), from the run's seed: deterministic, yet
 * no draw is derivable from another. Same return and ownership. */
int pc_build_draw(enum asg_fn fn, const struct prop_env *env,
                  const struct spec_test *t, const struct spec_case *c,
                  uint64_t draw, struct pc_call *k, struct err *e)
    __attribute__((warn_unused_result));

/* Parse x->t's function into k (zeroed first) and build its standard
 * call for x->c; returns like pc_build. */
int pc_setup(const struct prop_ctx *x, struct pc_call *k)
    __attribute__((warn_unused_result));

/*
 * Before a call that a property compares with an earlier one (a
 * permutation, a scaling, a shift): a fresh process for `im` when it has
 * one, so that the call cannot be computed from the previous call's
 * inputs and outputs (a transformed copy would pass every metamorphic
 * check). Cannot fail; the next call starts the process.
 */
void pc_fresh(const struct impl *im);

/* Free every buffer of k and zero it. Safe on a zeroed or released k. */
void pc_release(struct pc_call *k);

/*
 * Make k's call on the student and check it returned ATTN_OK (see
 * pu_returned_ok, which names k's function in the failure and keeps the
 * call in x->v->call). Returns 1 when it did, 0 with x->v failed, -1 on a
 * grader error (x->e set).
 */
int pc_call_ok(const struct prop_ctx *x, struct pc_call *k);

/* pc_fresh on the student, then pc_call_ok: the second call of a property
 * that compares two calls. Returns like pc_call_ok. */
int pc_call_again(const struct prop_ctx *x, struct pc_call *k);

/* A call step that makes no call (returns 1): for a property whose check
 * makes its own calls (einval). */
int pc_no_call(const struct prop_ctx *x, struct pc_call *k);

/* The function a struct pc_prop's build takes from the test (t->function),
 * for properties every function has. */
#define PC_TEST_FN ASG_FN_COUNT

/*
 * One property over the standard call, as pc_steps runs it: a small const
 * table per property (in the manner of Lua's luaL_Reg rows), so that the
 * sequence build, fill, label, call, check, release is written once.
 * Steps that return int return 1 to go on, 0 with x->v failed (the
 * sequence stops), -1 on a grader error (x->e set). A run function's own
 * state (pc_steps' `arg`) is in k->arg from the fill step on.
 *   fn     the API function of the standard call (PC_TEST_FN: the test's)
 *   build  NULL: pc_build of fn (pc_setup for PC_TEST_FN); else builds k
 *          itself and returns 0 or -1 (k then holds nothing, or what
 *          pc_release frees)
 *   fill   NULL, or changes k's inputs before the label and the call
 *   call   NULL: pc_call_ok (ATTN_OK required); else another judgement of
 *          the first call, or pc_no_call
 *   check  judges k's outputs after the call; it may make further calls
 *          (pc_call_again) and is given the label of the case (pc_label)
 */
struct pc_prop {
    enum asg_fn fn;
    int (*build)(const struct prop_ctx *x, struct pc_call *k);
    int (*fill)(const struct prop_ctx *x, struct pc_call *k);
    int (*call)(const struct prop_ctx *x, struct pc_call *k);
    int (*check)(const struct prop_ctx *x, struct pc_call *k, const char *label);
};

/* Run p's steps on x's case and release k: 1 when the check passed, 0 with
 * x->v failed, -1 on a grader error (x->e set). x->v is not marked passed:
 * for a property made of several runs (one per shape) or followed by
 * another check (pc_check_seeded). */
int pc_steps(const struct prop_ctx *x, const struct pc_prop *p, void *arg);

/* pc_steps with no state, turned into a run function's return value
 * (pu_outcome): the whole run of most properties. */
int pc_run(const struct prop_ctx *x, const struct pc_prop *p);

/* The run function of a table row that names its steps: pc_run of
 * x->def->steps (a grader error when there are none). A property file
 * defines `static const struct pc_prop` steps beside its checks and its
 * row reads {function, property, pc_run_def, keys, tol, needs_reference,
 * summary, &steps}. */
int pc_run_def(const struct prop_ctx *x);

/* "case 2 (n_q=3, n_k=7, d_k=5, d_v=2, mask=causal)" into buf (size n):
 * the 0-based index of c in t's cases and k's shape. Returns buf. */
char *pc_label(const struct spec_test *t, const struct spec_case *c,
               const struct pc_call *k, char *buf, size_t n);

/* The tolerance of a test: t->tolerance when >= 0, else the default_tol
 * of its property d (1e-5 when d is NULL). */
double pc_tol_of(const struct spec_test *t, const struct prop_def *d);

/* pc_tol_of() of the run's test and property (x->t, x->def). */
double pc_tol(const struct prop_ctx *x);

/* The function a test is about (parsed from t->function); -1 if unknown. */
int pc_fn(const struct spec_test *t, enum asg_fn *fn);

/*
 * Generic properties (prop_run_fn, in prop_generic.c), usable in any function's table; the
 * function comes from t->function. Keys they accept: pc_generic_keys.
 *   inputs_unchanged   const inputs and the mask byte-equal after the call
 *   einval             every bad-argument variant (each NULL required
 *                      pointer, each zero dimension, heads not dividing
 *                      d_model, eps negative or NaN) returns ATTN_EINVAL
 *                      and writes nothing
 *   deterministic      two calls give bit-identical outputs
 *   no_leaks           impl_result.live_allocs == 0 after the call
 *   speed              (needs reference) min of 3 runs <= factor * ref +
 *                      floor_ms (keys `factor` default 50, `floor_ms` 20)
 *   matches_reference  (needs reference) |s - r| <= tol * max(1, |r|)
 */
int pc_run_inputs_unchanged(const struct prop_ctx *x);
int pc_run_einval(const struct prop_ctx *x);
int pc_run_deterministic(const struct prop_ctx *x);
int pc_run_no_leaks(const struct prop_ctx *x);
int pc_run_speed(const struct prop_ctx *x);
int pc_run_matches_reference(const struct prop_ctx *x);

/*
 * After a `values` test's own check passed: in the staff build (with the
 * reference), the same function on inputs drawn from the case's seed
 * (pu_case_seed: the course seed of `grader batch --seed` mixed in), so
 * that answers remembered for the spec's public inputs earn nothing in the
 * TA's grade. Shapes as pc_build reads them from c; compared with the
 * reference at the function's matches_reference tolerance. Returns 1 (also
 * without a reference: the student build checks the spec's values only),
 * 0 with v failed, -1 on a grader error (e set).
 */
int pc_check_seeded(const struct prop_ctx *x);

/* NULL-terminated case keys of pc_build and the generic runners. */
extern const char *const pc_generic_keys[];

#endif
