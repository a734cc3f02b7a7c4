/*
 * prop_domain.h -- the parts of the `domain` property (prefix pdom_): the
 * helpers a draw is made with, and one row per function saying how its
 * cases are drawn and how far a float implementation may err on them.
 * prop_domain.c holds the property itself (drawing, comparing, shrinking)
 * and the rows of softmax, sdpa, layer norm and pe; prop_domain_mha.c the
 * rows of multi-head attention and the transformer block. Internal to
 * props/.
 */
#ifndef GRD_PROP_DOMAIN_H
#define GRD_PROP_DOMAIN_H

#include <stddef.h>

#include "props/prop_common.h"
#include "props/prop_util.h"

/* float32 unit roundoff */
#define PDOM_U 0x1p-24
/* Draw i of a case uses family i mod PDOM_FAMILIES of its function. */
#define PDOM_FAMILIES 6

/* What pc_build reads, as a case of our own: a draw's shapes. */
struct pdom_case {
    struct spec_param p[10];
    size_t n;
    struct spec_case c;
};

/* Add a number or a string key to d (at most 10 keys). */
void pdom_num(struct pdom_case *d, const char *key, double v);
void pdom_str(struct pdom_case *d, const char *key, const char *v);

/* pc_build of fn from d, at x's case's position in the spec. Returns like
 * pc_build. */
int pdom_build(const struct prop_ctx *x, enum asg_fn fn, struct pdom_case *d,
               struct pc_call *k) __attribute__((warn_unused_result));

/* An integer of [lo, hi] (lo <= hi). */
size_t pdom_between(struct pu_rng *r, size_t lo, size_t hi);

/* 10^x without pow (the student build ships these files and holds no
 * exp/pow: tests/template.sh), a few ulps from pow. */
double pdom_pow10(double x);

/* 10^uniform(lo, hi): magnitudes spread evenly over decades. */
double pdom_log_uniform(struct pu_rng *r, double lo, double hi);

/* A drawn size halved `shrink` times, at least 1. */
size_t pdom_shrunk(size_t n, int shrink);

/*
 * One function's domain.
 *   family  its PDOM_FAMILIES families, named in messages
 *   max     the default of the case key `max` (the largest drawn size)
 *   draw    builds k for family `fam`, sizes halved `shrink` times, from r:
 *           0, or -1 with x->e set (k then holds what pc_release frees). A
 *           draw may pass one buffer as two inputs (k->in[i] == k->in[j]:
 *           self-attention); the property frees it once.
 *   bound   after the reference's call (k->out holds its outputs): b[o][j]
 *           is how far a correct float implementation's output o, element
 *           j, may lie from the reference's, by the arithmetic on this
 *           very input; the test's tolerance x max(1, |ref|) is added.
 *           0, or -1 with x->e set.
 *   hint    the hint of a failure
 */
struct pdom_fn {
    enum asg_fn fn;
    const char *const *family;
    size_t max;
    int (*draw)(const struct prop_ctx *x, int fam, size_t max, int shrink,
                struct pu_rng *r, struct pc_call *k);
    int (*bound)(const struct prop_ctx *x, const struct pc_call *k,
                 double *const b[PC_MAX_OUT]);
    const char *hint;
};

/* prop_domain_mha.c */
extern const struct pdom_fn pdom_mha;
extern const struct pdom_fn pdom_block;

#endif
