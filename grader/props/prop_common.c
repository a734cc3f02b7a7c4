/* prop_common.c -- building and making standard calls; see prop_common.h.
 * The generic properties are in prop_generic.c. */
#include "props/prop_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_premise.h"
#include "props/prop_util.h"

/* No spec may ask for a buffer above 2^24 floats (64 MiB): the spec is
 * staff input, but a typo like `n: 1e9` must fail cleanly, not swap. */
#define PC_MAX_ELEMS ((size_t)1 << 24)

const char *const pc_generic_keys[] = {
    "rows", "cols", "n_q", "n_k", "n_kv", "d_k", "d_v", "n", "d", "d_model",
    "heads", "d_ff", "eps", "scale", "mask", "factor", "floor_ms", NULL,
};

/* ---- building ------------------------------------------------------------ */

/* a*b checked against overflow and PC_MAX_ELEMS. */
static int elems(size_t a, size_t b, size_t *out, struct err *e)
{
    if (pu_mul(a, b, out) < 0 || *out > PC_MAX_ELEMS)
        return err_set(e, NULL, 0, 0, "case asks for a buffer of %zu x %zu floats "
                       "(limit %zu)", a, b, PC_MAX_ELEMS);
    return 0;
}

static int add_in(struct pc_call *k, const char *name, size_t a, size_t b,
                  struct pu_rng *rng, double scale, struct err *e)
{
    size_t n, i = k->n_in;

    if (elems(a, b, &n, e) < 0)
        return -1;
    k->in[i] = pu_floats(n);
    if (k->in[i] == NULL)
        return err_set(e, NULL, 0, 0, "out of memory building input '%s'", name);
    k->in_len[i] = n;
    k->in_name[i] = name;
    k->n_in++;
    pu_fill_gauss(k->in[i], n, rng, scale);
    return 0;
}

/* An output; rng non-NULL makes it an in-place input drawn like add_in,
 * else it starts as NaN, so that an element the submission never writes
 * fails every check instead of passing as a zero. */
static int add_out(struct pc_call *k, const char *name, size_t a, size_t b,
                   struct pu_rng *rng, double scale, struct err *e)
{
    size_t n, i = k->n_out;

    if (elems(a, b, &n, e) < 0)
        return -1;
    k->out[i] = pu_floats(n);
    k->init[i] = pu_floats(n);
    k->n_out++;
    if (k->out[i] == NULL || k->init[i] == NULL)
        return err_set(e, NULL, 0, 0, "out of memory building output '%s'", name);
    k->out_len[i] = n;
    k->out_name[i] = name;
    if (rng != NULL)
        pu_fill_gauss(k->init[i], n, rng, scale);
    else
        for (size_t j = 0; j < n; j++) /* an element never written stays NaN */
            k->init[i][j] = NAN;
    return 0;
}

static void mask_row_random(unsigned char *row, size_t n, struct pu_rng *rng)
{
    for (size_t j = 0; j < n; j++)
        row[j] = pu_rng_uniform(rng) < 0.6;
    row[pu_rng_below(rng, n)] = 1; /* every query keeps at least one key */
}

/* attention.h: "mask[i * n_k + j] != 0 means query i may attend to key
 * j". The "bytes" kind is "random" with every visible entry a byte of
 * 1..255 (2, 128 and 255 among them), so that `mask == 1` shows. */
static void mask_row_bytes(unsigned char *row, size_t n, struct pu_rng *rng)
{
    static const unsigned char edge[] = {255, 2, 128};

    mask_row_random(row, n, rng);
    for (size_t j = 0, seen = 0; j < n; j++)
        if (row[j])
            row[j] = seen < 3 ? edge[seen++] : (unsigned char)(1 + pu_rng_below(rng, 255));
}

/* Fill k->mask (rows x cols) for k->mask_kind; none leaves it NULL. */
static int build_mask(struct pc_call *k, size_t rows, size_t cols,
                      struct pu_rng *rng, struct err *e)
{
    const char *kind = k->mask_kind;
    size_t n;

    if (strcmp(kind, "none") == 0)
        return 0;
    if (strcmp(kind, "causal") && strcmp(kind, "random") && strcmp(kind, "full_row") &&
        strcmp(kind, "bytes"))
        return err_set(e, NULL, 0, 0, "unknown mask '%s' (expected none, causal, "
                       "random, bytes or full_row)", kind);
    if (elems(rows, cols, &n, e) < 0 || (k->mask = pu_bytes(n)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory building the mask");
    for (size_t i = 0; i < rows; i++) {
        unsigned char *row = k->mask + i * cols;
        if (strcmp(kind, "causal") == 0)
            for (size_t j = 0; j < cols; j++)
                row[j] = j <= i;
        else if (strcmp(kind, "bytes") == 0)
            mask_row_bytes(row, cols, rng);
        else
            mask_row_random(row, cols, rng);
    }
    if (strcmp(kind, "full_row") == 0)
        memset(k->mask + (rows / 2) * cols, 0, cols);
    return 0;
}

static int build_softmax_like(struct pc_call *k, const struct spec_case *c,
                              struct pu_rng *rng, double scale, struct err *e)
{
    k->rows = pu_size(c, "rows", 4);
    k->cols = pu_size(c, "cols", 8);
    k->eps = (float)spec_num(c, "eps", 1e-5);
    return add_out(k, "x", k->rows, k->cols, rng, scale, e);
}

static int build_sdpa(struct pc_call *k, const struct spec_case *c,
                      struct pu_rng *rng, double scale, struct err *e)
{
    k->n_q = pu_size(c, "n_q", 4);
    k->n_k = pu_size(c, "n_k", 6);
    k->d_k = pu_size(c, "d_k", 8);
    k->d_v = pu_size(c, "d_v", 5);
    if (add_in(k, "Q", k->n_q, k->d_k, rng, scale, e) < 0 ||
        add_in(k, "K", k->n_k, k->d_k, rng, scale, e) < 0 ||
        add_in(k, "V", k->n_k, k->d_v, rng, scale, e) < 0 ||
        add_out(k, "out", k->n_q, k->d_v, NULL, 0, e) < 0 ||
        add_out(k, "weights", k->n_q, k->n_k, NULL, 0, e) < 0)
        return -1;
    return build_mask(k, k->n_q, k->n_k, rng, e);
}

static int build_pe(struct pc_call *k, const struct spec_case *c,
                    struct err *e)
{
    k->n = pu_size(c, "n", 16);
    k->d = pu_size(c, "d", 8);
    return add_out(k, "pe", k->n, k->d, NULL, 0, e);
}

/* Weights are N(0, 1/d_model): activations keep their scale through the
 * projections, so softmax neither saturates nor flattens by construction. */
static int build_mha(struct pc_call *k, const struct spec_case *c,
                     struct pu_rng *rng, double scale, struct err *e)
{
    static const char *const w[] = {"Wq", "Wk", "Wv", "Wo"};
    size_t hw;

    k->n_q = pu_size(c, "n_q", 4);
    k->n_k = pu_size(c, "n_kv", pu_size(c, "n_k", k->n_q));
    k->d_model = pu_size(c, "d_model", 8);
    k->heads = pu_size(c, "heads", 2);
    if (add_in(k, "Xq", k->n_q, k->d_model, rng, scale, e) < 0 ||
        add_in(k, "Xkv", k->n_k, k->d_model, rng, scale, e) < 0)
        return -1;
    for (size_t i = 0; i < 4; i++)
        if (add_in(k, w[i], k->d_model, k->d_model, rng,
                   1.0 / sqrt((double)(k->d_model ? k->d_model : 1)), e) < 0)
            return -1;
    if (elems(k->heads, k->n_q, &hw, e) < 0 ||
        add_out(k, "out", k->n_q, k->d_model, NULL, 0, e) < 0 ||
        add_out(k, "weights", hw, k->n_k, NULL, 0, e) < 0)
        return -1;
    return build_mask(k, k->n_q, k->n_k, rng, e);
}

static int build_block(struct pc_call *k, const struct spec_case *c,
                       struct pu_rng *rng, double scale, struct err *e)
{
    static const char *const w[] = {"Wq", "Wk", "Wv", "Wo"};
    double sd, sf;

    k->n = pu_size(c, "n", 4);
    k->d_model = pu_size(c, "d_model", 8);
    k->heads = pu_size(c, "heads", 2);
    k->d_ff = pu_size(c, "d_ff", 16);
    k->eps = (float)spec_num(c, "eps", 1e-5);
    sd = 1.0 / sqrt((double)(k->d_model ? k->d_model : 1));
    sf = 1.0 / sqrt((double)(k->d_ff ? k->d_ff : 1));
    for (size_t i = 0; i < 4; i++)
        if (add_in(k, w[i], k->d_model, k->d_model, rng, sd, e) < 0)
            return -1;
    if (add_in(k, "W1", k->d_model, k->d_ff, rng, sd, e) < 0 ||
        add_in(k, "b1", 1, k->d_ff, rng, 0.1, e) < 0 ||
        add_in(k, "W2", k->d_ff, k->d_model, rng, sf, e) < 0 ||
        add_in(k, "b2", 1, k->d_model, rng, 0.1, e) < 0 ||
        add_out(k, "X", k->n, k->d_model, rng, scale, e) < 0)
        return -1;
    return build_mask(k, k->n, k->n, rng, e);
}

static int build_fn(struct pc_call *k, const struct spec_case *c,
                    struct pu_rng *rng, double scale, struct err *e)
{
    switch (k->fn) {
    case ASG_SOFTMAX:
    case ASG_LAYERNORM:
        return build_softmax_like(k, c, rng, scale, e);
    case ASG_SDPA:
        return build_sdpa(k, c, rng, scale, e);
    case ASG_PE:
        return build_pe(k, c, e);
    case ASG_MHA:
        return build_mha(k, c, rng, scale, e);
    case ASG_BLOCK:
        return build_block(k, c, rng, scale, e);
    default:
        return err_set(e, NULL, 0, 0, "no standard call for function %d", (int)k->fn);
    }
}

int pc_build(enum asg_fn fn, const struct prop_env *env,
             const struct spec_test *t, const struct spec_case *c,
             struct pc_call *k, struct err *e)
{
    return pc_build_draw(fn, env, t, c, 0, k, e);
}

int pc_build_draw(enum asg_fn fn, const struct prop_env *env,
                  const struct spec_test *t, const struct spec_case *c,
                  uint64_t draw, struct pc_call *k, struct err *e)
{
    struct pu_rng rng;

    memset(k, 0, sizeof *k);
    k->fn = fn;
    k->orc = env->orc;
    k->mask_kind = spec_str(c, "mask", "none");
    /* draw 0 is the case's own inputs; any other an independent stream */
    pu_rng_seed(&rng, pu_case_seed(env, t, c) ^ (draw * 0x9e3779b97f4a7c15ull));
    if (build_fn(k, c, &rng, spec_num(c, "scale", 1.0), e) < 0) {
        pc_release(k);
        return -1;
    }
    return 0;
}

void pc_release(struct pc_call *k)
{
    for (size_t i = 0; i < PC_MAX_IN; i++)
        free(k->in[i]);
    for (size_t i = 0; i < PC_MAX_OUT; i++) {
        free(k->out[i]);
        free(k->init[i]);
    }
    free(k->mask);
    memset(k, 0, sizeof *k);
}

/* ---- calling ------------------------------------------------------------- */

/* The call with k's pointers and sizes exactly as they are (no reset). */
int pc_call_raw(const struct impl *im, const struct pc_call *k,
                struct impl_result *r, struct err *e)
{
    const struct impl_ops *o = im->ops;
    float *const *in = k->in;

    switch (k->fn) {
    case ASG_SOFTMAX:
        return o->softmax_rows(im->self, k->out[0], k->rows, k->cols, r, e);
    case ASG_SDPA:
        return o->scaled_dot_product(im->self, in[0], in[1], in[2], k->n_q, k->n_k,
                                     k->d_k, k->d_v, k->mask, k->out[0], k->out[1], r, e);
    case ASG_PE:
        return o->positional_encoding(im->self, k->out[0], k->n, k->d, r, e);
    case ASG_MHA:
        return o->multi_head(im->self, in[0], k->n_q, in[1], k->n_k, k->d_model,
                             k->heads, in[2], in[3], in[4], in[5], k->mask,
                             k->out[0], k->out[1], r, e);
    case ASG_LAYERNORM:
        return o->layer_norm(im->self, k->out[0], k->rows, k->cols, k->eps, r, e);
    case ASG_BLOCK:
        return o->transformer_block(im->self, k->out[0], k->n, k->d_model, k->heads,
                                    k->d_ff, in[0], in[1], in[2], in[3], in[4], in[5],
                                    in[6], in[7], k->mask, k->eps, r, e);
    default:
        return err_set(e, NULL, 0, 0, "no standard call for function %d", (int)k->fn);
    }
}

int pc_invoke(const struct impl *im, struct pc_call *k, struct impl_result *r,
              struct err *e)
{
    for (size_t i = 0; i < k->n_out; i++)
        memcpy(k->out[i], k->init[i], k->out_len[i] * sizeof(float));
    return pc_call_raw(im, k, r, e);
}

/* ---- labels and small helpers ------------------------------------------- */

static size_t case_index(const struct spec_test *t, const struct spec_case *c)
{
    if (t->cases != NULL && c >= t->cases && c < t->cases + t->n_cases)
        return (size_t)(c - t->cases);
    return 0;
}

char *pc_label(const struct spec_test *t, const struct spec_case *c,
               const struct pc_call *k, char *buf, size_t n)
{
    size_t i = case_index(t, c) + 1; /* 1-based, like the repro's "#1" */

    switch (k->fn) {
    case ASG_SOFTMAX:
        snprintf(buf, n, "case %zu (rows=%zu, cols=%zu)", i, k->rows, k->cols);
        break;
    case ASG_LAYERNORM:
        snprintf(buf, n, "case %zu (rows=%zu, cols=%zu, eps=%g)", i, k->rows,
                 k->cols, (double)k->eps);
        break;
    case ASG_SDPA:
        snprintf(buf, n, "case %zu (n_q=%zu, n_k=%zu, d_k=%zu, d_v=%zu, mask=%s)", i,
                 k->n_q, k->n_k, k->d_k, k->d_v, k->mask_kind);
        break;
    case ASG_PE:
        snprintf(buf, n, "case %zu (n=%zu, d=%zu)", i, k->n, k->d);
        break;
    case ASG_MHA:
        snprintf(buf, n, "case %zu (n_q=%zu, n_kv=%zu, d_model=%zu, heads=%zu, mask=%s)",
                 i, k->n_q, k->n_k, k->d_model, k->heads, k->mask_kind);
        break;
    default:
        snprintf(buf, n, "case %zu (n=%zu, d_model=%zu, heads=%zu, d_ff=%zu, mask=%s)",
                 i, k->n, k->d_model, k->heads, k->d_ff, k->mask_kind);
        break;
    }
    return buf;
}

double pc_tol_of(const struct spec_test *t, const struct prop_def *d)
{
    if (t->tolerance >= 0)
        return t->tolerance;
    return d != NULL ? d->default_tol : 1e-5;
}

double pc_tol(const struct prop_ctx *x)
{
    return pc_tol_of(x->t, x->def);
}

int pc_fn(const struct spec_test *t, enum asg_fn *fn)
{
    return asg_fn_parse(t->function, fn);
}

int pc_setup(const struct prop_ctx *x, struct pc_call *k)
{
    enum asg_fn fn;

    memset(k, 0, sizeof *k);
    if (pc_fn(x->t, &fn) < 0)
        return err_set(x->e, NULL, 0, 0, "unknown function '%s'", x->t->function);
    return pc_build(fn, x->env, x->t, x->c, k, x->e);
}

void pc_fresh(const struct impl *im)
{
    if (im->ops->restart != NULL)
        im->ops->restart(im->self);
}

int pc_call_ok(const struct prop_ctx *x, struct pc_call *k)
{
    struct impl_result r;

    if (pc_invoke(&x->env->student, k, &r, x->e) < 0)
        return -1;
    return pu_returned_ok(x->v, &r, asg_fn_cname(k->fn));
}

int pc_call_again(const struct prop_ctx *x, struct pc_call *k)
{
    pc_fresh(&x->env->student);
    return pc_call_ok(x, k);
}

int pc_no_call(const struct prop_ctx *x, struct pc_call *k)
{
    (void)x, (void)k;
    return 1;
}

/* ---- the property runner ------------------------------------------------ */

static int build_step(const struct prop_ctx *x, const struct pc_prop *p,
                      struct pc_call *k)
{
    if (p->build != NULL)
        return p->build(x, k);
    if (p->fn == PC_TEST_FN)
        return pc_setup(x, k);
    return pc_build(p->fn, x->env, x->t, x->c, k, x->e);
}

int pc_steps(const struct prop_ctx *x, const struct pc_prop *p, void *arg)
{
    struct pc_call k;
    char label[160];
    int ok;

    memset(&k, 0, sizeof k);
    if (build_step(x, p, &k) < 0) {
        pc_release(&k);
        return -1;
    }
    k.arg = arg;
    ok = p->fill != NULL ? p->fill(x, &k) : 1;
    pc_label(x->t, x->c, &k, label, sizeof label);
    if (ok == 1)
        ok = p->call != NULL ? p->call(x, &k) : pc_call_ok(x, &k);
    if (ok == 1)
        ok = p->check(x, &k, label);
    /* The spec's hint stands in for a hint of the property's own: shown
     * only when its premise holds on what this failing call measured. */
    if (ok == 0 && x->v->hint[0] == '\0' && x->t->hint_premise != NULL) {
        int holds = ppr_holds(x->t->hint_premise, x, &k);
        x->v->hint_refuted = holds == 0;
        ok = holds < 0 ? -1 : 0;
    }
    pc_release(&k);
    return ok;
}

int pc_run(const struct prop_ctx *x, const struct pc_prop *p)
{
    return pu_outcome(pc_steps(x, p, NULL), x->v);
}

int pc_run_def(const struct prop_ctx *x)
{
    if (x->def == NULL || x->def->steps == NULL)
        return err_set(x->e, NULL, 0, 0, "property '%s.%s' has no steps to run",
                       x->t->function, x->t->property);
    return pc_run(x, x->def->steps);
}
