/* equiv.c -- is a surviving mutant likely equivalent? Its outputs against
 * those of the source it was made from, bit for bit (a zero's sign aside)
 * or up to rounding, on random inputs within the header's contract at the
 * spec's shapes, at random small ones and at some above every size guard
 * (audit.h). Against its own source, not the reference: an equivalent
 * mutant of another correct solution rounds as that solution does, never
 * as the reference (issue 36 item 2). "Up to rounding" because a float
 * solution's mutant that adds a constant to every score of a row (softmax
 * is shift-invariant) computes the same function and rounds differently:
 * no test can fail it without failing correct solutions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "grade/grade.h"

#define EQ_MAX_DIM 64        /* shapes above are cut to this (a 64 x 64 case
                                keeps every loop's shape and stays cheap) */

struct eq_rng {
    uint64_t s;
};

static uint64_t rnd(struct eq_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

static size_t rnd_size(struct eq_rng *r, size_t lo, size_t hi)
{
    return lo + (size_t)(rnd(r) % (hi - lo + 1));
}

/* Values of one trial, by style: uniform in [-m, m] for a magnitude m of
 * 1 to 1000 (0-3), the header's +-1e4 (6) or 1e-7 (8: a product or a
 * variance below any threshold); small whole numbers (4-5: ties, a max
 * met twice); or each value in a decade of its own from 1e-7 to 1e4, of
 * either sign, or 0 (7: a value guard, `if (fabs(v) >= 1e-6)`, meets both
 * sides of its threshold in one row). */
#define EQ_STYLES 9
static void fill(struct eq_rng *r, float *x, size_t n, int style)
{
    static const double mags[] = {1.0, 3.0, 30.0, 1000.0};
    /* A table, not pow(): the shipped grader holds no exp/pow (the
     * template's no-answer-key check). */
    static const double decade[] = {1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1,
                                    1.0,  1e1,  1e2,  1e3,  1e4};
    double m = style == 6 ? 1e4 : style == 8 ? 1e-7 : mags[style % 4];

    for (size_t i = 0; i < n; i++) {
        double u = (double)(rnd(r) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (style == 7) {
            size_t dec = (size_t)(rnd(r) % 13); /* a decade of 1e-7 .. 1e4, or 0 */
            x[i] = dec == 12 ? 0.0f : (float)(u * decade[dec]);
        } else {
            x[i] = style == 4 || style == 5 ? (float)floor(u * 3.0) : (float)(u * m);
        }
    }
}

/* A mask: all visible, causal, random, or with fully hidden rows. */
static void fill_mask(struct eq_rng *r, unsigned char *mask, size_t nq, size_t nk, int kind)
{
    for (size_t i = 0; i < nq; i++)
        for (size_t t = 0; t < nk; t++) {
            unsigned char v = 1;
            if (kind == 1)
                v = t <= i;
            else if (kind == 2)
                v = rnd(r) % 3 != 0;
            else if (kind == 3)
                v = i % 2 ? 0 : (unsigned char)(rnd(r) % 2);
            mask[i * nk + t] = v;
        }
}

/* Both results the same: how the calls ended, the codes, the outputs, bit
 * for bit but for a zero's sign: the header's "an output row of 0", like
 * every tolerance, takes -0 for 0, and no test can tell them apart. */
static int same(const struct impl_result *a, const struct impl_result *b,
                const float *x, const float *y, size_t n)
{
    if (a->status != CALL_RETURNED || b->status != CALL_RETURNED || a->rc != b->rc)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&x[i], &y[i], sizeof *x) != 0 && !(x[i] == 0.0f && y[i] == 0.0f))
            return 0;
    return 1;
}

/*
 * One output buffer of a trial: 1 the same as the source's bit for bit, 2
 * the same up to rounding, 0 different. `ex` holds the reference's
 * outputs (computed in double, rounded once: near the exact values). Up
 * to rounding: the mutant's largest error against them is at most 4 times
 * the source's own plus 8 float ulps of the outputs' scale, and it is
 * finite wherever the source is. A mutant that only moves the rounding (a
 * constant added to every score of a row before a softmax, in float)
 * stays within that; one that drops a step, a term or a row does not.
 * The source itself when it is the reference: 8 ulps, no more.
 */
static int judge(const struct impl_result *a, const struct impl_result *b, const float *mut,
                 const float *src, const float *ex, size_t n)
{
    double e_src = 0.0, e_mut = 0.0, scale = 0.0;

    if (same(a, b, mut, src, n))
        return 1;
    if (a->status != CALL_RETURNED || b->status != CALL_RETURNED || a->rc != b->rc || ex == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(ex[i]) || !isfinite(src[i]) || !isfinite(mut[i])) {
            if (memcmp(&mut[i], &src[i], sizeof *mut) != 0)
                return 0;
            continue;
        }
        e_src = fmax(e_src, fabs((double)src[i] - ex[i]));
        e_mut = fmax(e_mut, fabs((double)mut[i] - ex[i]));
        scale = fmax(scale, fabs((double)ex[i]));
    }
    return e_mut <= 4.0 * e_src + 8.0 * 0x1p-24 * scale ? 2 : 0;
}

/* The worse of two verdicts (0 < 2 < 1). */
static int worse(int v, int w)
{
    return v == 0 || w == 0 ? 0 : v == 2 || w == 2 ? 2 : 1;
}

/* One trial's shapes: from the spec's case `c` of the function, or random. */
struct eq_shape {
    size_t a, b, c, d, heads, ff;   /* meanings per function, below */
    float eps;
    int style, mask;                /* values style; mask kind (-1: NULL) */
    int weights;                    /* ask for the weights */
};

static size_t dim(const struct spec_case *c, const char *key, size_t def)
{
    double v = c ? spec_num(c, key, (double)def) : (double)def;

    if (!(v >= 1))
        return def;
    return v > EQ_MAX_DIM ? EQ_MAX_DIM : (size_t)v;
}

struct eq_ctx {
    struct impl mut, ref;            /* ref: the audited source */
    struct impl ex;                  /* the reference, near the exact values */
    struct eq_rng rng;
    char *why;
    size_t why_n;
};

/* The buffers of one trial (all NULL-safe to free). */
struct eq_bufs {
    float *in[8], *out[6];
    unsigned char *mask;
};

static void bufs_free(struct eq_bufs *b)
{
    for (size_t i = 0; i < 8; i++)
        free(b->in[i]);
    for (size_t i = 0; i < 6; i++)
        free(b->out[i]);
    free(b->mask);
}

static float *vec(struct eq_ctx *x, size_t n, int style)
{
    float *p = calloc(n ? n : 1, sizeof *p);

    if (p)
        fill(&x->rng, p, n, style);
    return p;
}

static int differs(struct eq_ctx *x, const char *fn, const struct eq_shape *s)
{
    snprintf(x->why, x->why_n, "%s differs from its source (sizes %zu %zu %zu %zu, "
             "heads %zu, d_ff %zu, mask %d)", fn, s->a, s->b, s->c, s->d, s->heads, s->ff, s->mask);
    return 0;
}

/* A trial's verdict: 1 or 2 as judged, 0 with why set. */
static int verdict(struct eq_ctx *x, int v, const char *fn, const struct eq_shape *s)
{
    return v ? v : differs(x, fn, s);
}

/* Each trial returns 1 same, 2 the same up to rounding, 0 differs (why
 * set), -1 grader error. */
static int trial_softmax(struct eq_ctx *x, const struct eq_shape *s, struct err *e)
{
    struct impl_result ra, rb, rx;
    size_t n = s->a * s->b;
    float *p = vec(x, n, s->style), *q = p ? malloc(n * sizeof *q) : NULL;
    float *t = q ? malloc(n * sizeof *t) : NULL;
    int rc = -1;

    if (t && (memcpy(q, p, n * sizeof *q), memcpy(t, p, n * sizeof *t),
              x->mut.ops->softmax_rows(x->mut.self, p, s->a, s->b, &ra, e) == 0 &&
              x->ref.ops->softmax_rows(x->ref.self, q, s->a, s->b, &rb, e) == 0 &&
              x->ex.ops->softmax_rows(x->ex.self, t, s->a, s->b, &rx, e) == 0))
        rc = verdict(x, judge(&ra, &rb, p, q, t, n), "attn_softmax_rows", s);
    free(p);
    free(q);
    free(t);
    return rc;
}

static int trial_layernorm(struct eq_ctx *x, const struct eq_shape *s, struct err *e)
{
    struct impl_result ra, rb, rx;
    size_t n = s->a * s->b;
    float *p = vec(x, n, s->style), *q = p ? malloc(n * sizeof *q) : NULL;
    float *t = q ? malloc(n * sizeof *t) : NULL;
    int rc = -1;

    if (p && s->mask == 3 && s->b > 1)
        for (size_t j = 0; j < s->b; j++)
            p[j] = p[0]; /* a constant first row */
    if (t && (memcpy(q, p, n * sizeof *q), memcpy(t, p, n * sizeof *t),
              x->mut.ops->layer_norm(x->mut.self, p, s->a, s->b, s->eps, &ra, e) == 0 &&
              x->ref.ops->layer_norm(x->ref.self, q, s->a, s->b, s->eps, &rb, e) == 0 &&
              x->ex.ops->layer_norm(x->ex.self, t, s->a, s->b, s->eps, &rx, e) == 0))
        rc = verdict(x, judge(&ra, &rb, p, q, t, n), "attn_layer_norm", s);
    free(p);
    free(q);
    free(t);
    return rc;
}

static int trial_pe(struct eq_ctx *x, const struct eq_shape *s, struct err *e)
{
    struct impl_result ra, rb, rx;
    size_t n = s->a * s->b;
    float *p = calloc(n, sizeof *p), *q = calloc(n, sizeof *q), *t = calloc(n, sizeof *t);
    int rc = -1;

    if (p && q && t && x->mut.ops->positional_encoding(x->mut.self, p, s->a, s->b, &ra, e) == 0 &&
        x->ref.ops->positional_encoding(x->ref.self, q, s->a, s->b, &rb, e) == 0 &&
        x->ex.ops->positional_encoding(x->ex.self, t, s->a, s->b, &rx, e) == 0)
        rc = verdict(x, judge(&ra, &rb, p, q, t, n), "attn_positional_encoding", s);
    free(p);
    free(q);
    free(t);
    return rc;
}

static int trial_sdpa(struct eq_ctx *x, const struct eq_shape *s, struct err *e)
{
    struct impl_result ra, rb, rx;
    struct eq_bufs b;
    size_t nq = s->a, nk = s->b, dk = s->c, dv = s->d;
    int rc = -1;

    memset(&b, 0, sizeof b);
    b.in[0] = vec(x, nq * dk, s->style);
    b.in[1] = vec(x, nk * dk, s->style);
    b.in[2] = vec(x, nk * dv, s->style);
    b.mask = malloc(nq * nk);
    for (size_t i = 0; i < 6; i++)
        b.out[i] = calloc(nq * (nk > dv ? nk : dv), sizeof(float));
    if (b.in[0] && b.in[1] && b.in[2] && b.mask && b.out[0] && b.out[1] && b.out[2] && b.out[3] &&
        b.out[4] && b.out[5]) {
        const unsigned char *m = s->mask < 0 ? NULL : b.mask;
        fill_mask(&x->rng, b.mask, nq, nk, s->mask < 0 ? 0 : s->mask);
        if (x->mut.ops->scaled_dot_product(x->mut.self, b.in[0], b.in[1], b.in[2], nq, nk, dk, dv,
                                           m, b.out[0], s->weights ? b.out[1] : NULL, &ra, e) == 0 &&
            x->ref.ops->scaled_dot_product(x->ref.self, b.in[0], b.in[1], b.in[2], nq, nk, dk, dv,
                                           m, b.out[2], s->weights ? b.out[3] : NULL, &rb, e) == 0 &&
            x->ex.ops->scaled_dot_product(x->ex.self, b.in[0], b.in[1], b.in[2], nq, nk, dk, dv,
                                          m, b.out[4], s->weights ? b.out[5] : NULL, &rx, e) == 0)
            rc = verdict(x, worse(judge(&ra, &rb, b.out[0], b.out[2], b.out[4], nq * dv),
                                  judge(&ra, &rb, b.out[1], b.out[3], b.out[5], nq * nk)),
                         "attn_scaled_dot_product", s);
    }
    bufs_free(&b);
    return rc;
}

static int trial_mha(struct eq_ctx *x, const struct eq_shape *s, struct err *e)
{
    struct impl_result ra, rb, rx;
    struct eq_bufs b;
    size_t nq = s->a, nkv = s->b, d = s->c, h = s->heads, nw = h * nq * nkv;
    int rc = -1;

    memset(&b, 0, sizeof b);
    b.in[0] = vec(x, nq * d, s->style);
    b.in[1] = vec(x, nkv * d, s->style);
    for (size_t i = 2; i < 6; i++)
        b.in[i] = vec(x, d * d, s->style % 4 == 3 ? 0 : s->style);
    b.mask = malloc(nq * nkv);
    b.out[0] = calloc(nq * d, sizeof(float));
    b.out[1] = calloc(nw, sizeof(float));
    b.out[2] = calloc(nq * d, sizeof(float));
    b.out[3] = calloc(nw, sizeof(float));
    b.out[4] = calloc(nq * d, sizeof(float));
    b.out[5] = calloc(nw, sizeof(float));
    if (b.in[5] && b.in[0] && b.in[1] && b.in[2] && b.in[3] && b.in[4] && b.mask && b.out[0] &&
        b.out[1] && b.out[2] && b.out[3] && b.out[4] && b.out[5]) {
        const unsigned char *m = s->mask < 0 ? NULL : b.mask;
        fill_mask(&x->rng, b.mask, nq, nkv, s->mask < 0 ? 0 : s->mask);
        if (x->mut.ops->multi_head(x->mut.self, b.in[0], nq, b.in[1], nkv, d, h, b.in[2], b.in[3],
                                   b.in[4], b.in[5], m, b.out[0], s->weights ? b.out[1] : NULL,
                                   &ra, e) == 0 &&
            x->ref.ops->multi_head(x->ref.self, b.in[0], nq, b.in[1], nkv, d, h, b.in[2], b.in[3],
                                   b.in[4], b.in[5], m, b.out[2], s->weights ? b.out[3] : NULL,
                                   &rb, e) == 0 &&
            x->ex.ops->multi_head(x->ex.self, b.in[0], nq, b.in[1], nkv, d, h, b.in[2], b.in[3],
                                  b.in[4], b.in[5], m, b.out[4], s->weights ? b.out[5] : NULL,
                                  &rx, e) == 0)
            rc = verdict(x, worse(judge(&ra, &rb, b.out[0], b.out[2], b.out[4], nq * d),
                                  judge(&ra, &rb, b.out[1], b.out[3], b.out[5], nw)),
                         "attn_multi_head", s);
    }
    bufs_free(&b);
    return rc;
}

static int trial_block(struct eq_ctx *x, const struct eq_shape *s, struct err *e)
{
    struct impl_result ra, rb, rx;
    struct eq_bufs b;
    size_t n = s->a, d = s->c, ff = s->ff;
    int rc = -1, st = s->style % 4 == 3 ? 0 : s->style;

    memset(&b, 0, sizeof b);
    b.out[0] = vec(x, n * d, s->style);
    for (size_t i = 0; i < 4; i++)
        b.in[i] = vec(x, d * d, st);
    b.in[4] = vec(x, d * ff, st);
    b.in[5] = vec(x, ff, st);
    b.in[6] = vec(x, ff * d, st);
    b.in[7] = vec(x, d, st);
    b.mask = malloc(n * n);
    b.out[1] = b.out[0] ? malloc(n * d * sizeof(float)) : NULL;
    b.out[2] = b.out[1] ? malloc(n * d * sizeof(float)) : NULL;
    if (b.out[2] && b.in[0] && b.in[1] && b.in[2] && b.in[3] && b.in[4] && b.in[5] && b.in[6] &&
        b.in[7] && b.mask) {
        const unsigned char *m = s->mask < 0 || s->mask == 3 ? NULL : b.mask;
        memcpy(b.out[1], b.out[0], n * d * sizeof(float));
        memcpy(b.out[2], b.out[0], n * d * sizeof(float));
        fill_mask(&x->rng, b.mask, n, n, s->mask < 0 ? 0 : s->mask);
        if (x->mut.ops->transformer_block(x->mut.self, b.out[0], n, d, s->heads, ff, b.in[0],
                                          b.in[1], b.in[2], b.in[3], b.in[4], b.in[5], b.in[6],
                                          b.in[7], m, s->eps, &ra, e) == 0 &&
            x->ref.ops->transformer_block(x->ref.self, b.out[1], n, d, s->heads, ff, b.in[0],
                                          b.in[1], b.in[2], b.in[3], b.in[4], b.in[5], b.in[6],
                                          b.in[7], m, s->eps, &rb, e) == 0 &&
            x->ex.ops->transformer_block(x->ex.self, b.out[2], n, d, s->heads, ff, b.in[0],
                                         b.in[1], b.in[2], b.in[3], b.in[4], b.in[5], b.in[6],
                                         b.in[7], m, s->eps, &rx, e) == 0)
            rc = verdict(x, judge(&ra, &rb, b.out[0], b.out[1], b.out[2], n * d),
                         "attn_transformer_block", s);
    }
    bufs_free(&b);
    return rc;
}

/* A divisor of d, drawn. */
static size_t heads_of(struct eq_rng *r, size_t d, size_t want)
{
    size_t h = want ? want : rnd_size(r, 1, d < 4 ? d : 4);

    while (h > 1 && d % h != 0)
        h--;
    return h ? h : 1;
}

/* Shape of trial k for function fn; c is a spec case (or NULL). */
static void shape(struct eq_rng *r, enum asg_fn fn, const struct spec_case *c, size_t k,
                  struct eq_shape *s)
{
    static const float epss[] = {1e-5f, 0.0f, 1e-3f, 0.5f};

    memset(s, 0, sizeof *s);
    s->style = (int)(k % EQ_STYLES);
    s->mask = (int)(k % 5) - 1;
    s->weights = k % 3 != 0;
    s->eps = c ? (float)spec_num(c, "eps", 1e-5) : epss[k % 4];
    if (!(s->eps >= 0))
        s->eps = 1e-5f;
    s->a = dim(c, fn == ASG_SOFTMAX || fn == ASG_LAYERNORM ? "rows" : fn == ASG_SDPA ||
           fn == ASG_MHA ? "n_q" : "n", rnd_size(r, 1, 6));
    s->b = dim(c, fn == ASG_SOFTMAX || fn == ASG_LAYERNORM ? "cols" : fn == ASG_SDPA ? "n_k"
           : fn == ASG_MHA ? "n_kv" : "d", rnd_size(r, 1, 7));
    if (fn == ASG_MHA && c && !spec_param(c, "n_kv"))
        s->b = s->a;
    s->c = dim(c, fn == ASG_SDPA ? "d_k" : "d_model", rnd_size(r, 1, 8));
    s->d = dim(c, "d_v", rnd_size(r, 1, 6));
    s->ff = dim(c, "d_ff", rnd_size(r, 1, 8));
    s->heads = heads_of(r, s->c, c ? dim(c, "heads", 0) : 0);
    if (fn == ASG_PE && !c && k % 2)
        s->b = 2 * (s->b / 2) + 1; /* odd widths too */
}

/*
 * A random shape above every size a `guard size` operator tests (16, 64:
 * specs/mutators.txt): a step skipped above some row length, head count
 * or width must show here, or a "likely equivalent" would hide it. One
 * length of 65 to 130 (cols, n_k or n_q, d_v, positions and width, d_ff),
 * d_model 65 to 72 with as many heads (d_k 1) or a divisor, the rest small.
 */
static void shape_big(struct eq_rng *r, enum asg_fn fn, size_t k, struct eq_shape *s)
{
    shape(r, fn, NULL, k, s);
    if (fn == ASG_SDPA && rnd(r) % 2)
        s->a = rnd_size(r, 65, 130); /* many queries */
    else
        s->b = rnd_size(r, 65, 130); /* cols, keys, positions' width */
    if (fn == ASG_PE)
        s->a = rnd_size(r, 65, 130), s->b += k % 2 ? 0 : 1; /* positions; odd and even */
    s->c = fn == ASG_SDPA ? rnd_size(r, 65, 130) : rnd_size(r, 65, 72);
    s->d = rnd_size(r, 65, 130);
    s->ff = rnd_size(r, 65, 130);
    s->heads = rnd(r) % 2 ? s->c : heads_of(r, s->c, rnd_size(r, 1, s->c));
}

typedef int (*eq_trial_fn)(struct eq_ctx *, const struct eq_shape *, struct err *);

static const eq_trial_fn trials[ASG_FN_COUNT] = {
    [ASG_SOFTMAX] = trial_softmax, [ASG_SDPA] = trial_sdpa, [ASG_PE] = trial_pe,
    [ASG_MHA] = trial_mha, [ASG_LAYERNORM] = trial_layernorm, [ASG_BLOCK] = trial_block,
};

/* Every case of the spec for fn, then `extra` random shapes: 1 the same
 * on each, 2 the same up to rounding on some, 0 differs on one (the first
 * ends it), -1 grader error. */
static int check_fn(struct eq_ctx *x, const struct spec_set *specs, enum asg_fn fn,
                    size_t extra, struct err *e)
{
    struct eq_shape s;
    size_t k = 0;
    int rc = 1, v = 1;

    /* a function added to the registry (assign.h) without its trial here */
    if (trials[fn] == NULL)
        return err_set(e, NULL, 0, 0, "no equivalence trial for '%s' (audit/equiv.c)",
                       asg_fn_name(fn));
    for (size_t i = 0; rc > 0 && i < spec_test_count(specs); i++) {
        const struct spec_test *t = spec_test_at(specs, i);
        for (size_t c = 0; rc > 0 && strcmp(t->function, asg_fn_name(fn)) == 0 &&
                           c < t->n_cases; c++) {
            shape(&x->rng, fn, &t->cases[c], k++, &s);
            if ((rc = trials[fn](x, &s, e)) > 0)
                v = worse(v, rc);
        }
    }
    for (size_t i = 0; rc > 0 && i < extra; i++) {
        if (i % 5 == 4) /* one random trial in five: above every size guard */
            shape_big(&x->rng, fn, k++, &s);
        else
            shape(&x->rng, fn, NULL, k++, &s);
        if ((rc = trials[fn](x, &s, e)) > 0)
            v = worse(v, rc);
    }
    return rc > 0 ? v : rc;
}

#if GRADER_STAFF
/* A session on path; a toolchain stopped by its deadline is the busy
 * machine's trouble: tried again. NULL with *refusal or e set. */
static struct grade_session *open_session(const char *path, const char *data_dir,
                                          const struct spec_set *specs, char **refusal,
                                          struct err *e)
{
    struct grade_session *g = grade_session_open(path, data_dir, specs, refusal, e);

    for (int again = 0; g == NULL && *refusal && strstr(*refusal, " took longer than ") &&
                        again < 3; again++) {
        free(*refusal);
        *refusal = NULL;
        g = grade_session_open(path, data_dir, specs, refusal, e);
    }
    return g;
}
#endif

int aud_equivalent(const char *mutant, const char *original, const char *data_dir,
                   const struct spec_set *specs, size_t trials_per_fn, uint64_t seed,
                   char *why, size_t why_n, struct err *e)
{
#if GRADER_STAFF
    char *refusal = NULL;
    struct grade_session *g = open_session(mutant, data_dir, specs, &refusal, e), *o = NULL;
    struct eq_ctx x;
    int rc = 1;

    if (g == NULL) {
        snprintf(why, why_n, "refused: %s", refusal ? refusal : "grader error");
        free(refusal);
        return refusal ? 0 : -1;
    }
    if (original && (o = open_session(original, data_dir, specs, &refusal, e)) == NULL) {
        grade_session_close(g);
        if (refusal == NULL)
            return -1;
        free(refusal);
        return err_set(e, original, 0, 0, "'%s' no longer builds in a session", original);
    }
    x.mut = grade_session_impl(g, 2000.0);
    x.ref = o ? grade_session_impl(o, 2000.0) : impl_local();
    x.ex = impl_local();
    x.rng.s = seed | 1;
    x.why = why;
    x.why_n = why_n;
    for (int f = 0, v; rc > 0 && f < ASG_FN_COUNT; f++)
        if ((v = check_fn(&x, specs, (enum asg_fn)f, trials_per_fn, e)) <= 0)
            rc = v;
        else
            rc = worse(rc, v);
    grade_session_close(g);
    if (o)
        grade_session_close(o);
    if (rc > 0)
        snprintf(why, why_n, "same outputs as its source, %s, on every case shape and %zu "
                 "random inputs per function", rc == 1 ? "bit for bit" : "up to rounding",
                 trials_per_fn);
    return rc;
#else
    (void)mutant, (void)original, (void)data_dir, (void)specs, (void)trials_per_fn, (void)seed;
    (void)why, (void)why_n;
    (void)check_fn; /* the trials need the reference: staff build only */
    return err_set(e, NULL, 0, 0, "an audit needs the staff build (the reference)");
#endif
}
