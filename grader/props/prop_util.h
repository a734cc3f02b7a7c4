/*
 * prop_util.h -- helpers shared by the property files (prop_*.c): a
 * deterministic random generator, buffers, comparisons, and the wording of
 * verdicts. For every file that writes properties: props/ and the written
 * part's (selfcheck/).
 */
#ifndef GRD_PROP_UTIL_H
#define GRD_PROP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "props/prop.h"

/* xoshiro256**: fast, well-mixed, and the same on every platform. */
struct pu_rng {
    uint64_t s[4];
};

void pu_rng_seed(struct pu_rng *r, uint64_t seed);
uint64_t pu_rng_u64(struct pu_rng *r);
double pu_rng_uniform(struct pu_rng *r);          /* [0, 1) */
double pu_rng_gauss(struct pu_rng *r);            /* N(0, 1), polar method */
size_t pu_rng_below(struct pu_rng *r, size_t n);  /* [0, n), n > 0 */

/*
 * The seed of one case: the run's seed, the test id and the case's own
 * `seed` key (default 1) mixed together, so that every case of every test
 * draws different numbers and `--seed` changes them all.
 */
uint64_t pu_case_seed(const struct prop_env *env, const struct spec_test *t,
                      const struct spec_case *c);

/* calloc of n floats (n*sizeof checked); NULL on overflow or OOM. */
float *pu_floats(size_t n);
/* calloc of n bytes; NULL on OOM. */
unsigned char *pu_bytes(size_t n);
/* n floats from N(0, scale^2). */
void pu_fill_gauss(float *x, size_t n, struct pu_rng *r, double scale);
/* A random permutation of 0..n-1 (Fisher-Yates). */
void pu_permutation(size_t *p, size_t n, struct pu_rng *r);
/* Checked a*b; returns 0 and sets *out, or -1 on overflow. */
int pu_mul(size_t a, size_t b, size_t *out);

/* |a - e| <= atol + rtol*|e|, with NaN never close. */
int pu_close(double expected, double actual, double atol, double rtol);

/*
 * Fail the verdict with a formatted message (replaces any earlier one).
 * Always returns 0 so that `return pu_fail(v, ...)` ends a run function.
 */
int pu_fail(struct prop_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Set the verdict's hint. */
void pu_hint(struct prop_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Mark the verdict passed (the final check was reached). Returns 0. */
int pu_pass(struct prop_verdict *v);

/*
 * Turn a check's outcome into a run function's return value: ok < 0 is a
 * grader error (-1), ok == 0 a failed verdict (0), ok > 0 the final check
 * reached (pu_pass, 0). The last step of every property runner.
 */
int pu_outcome(int ok, struct prop_verdict *v);

/*
 * Check a call that is expected to return ATTN_OK. Returns 1 when it did.
 * Otherwise fills the verdict (crashed / timed out / called exit() /
 * not implemented / returned ATTN_EINVAL for valid arguments / ...) naming
 * `fn` and returns 0.
 */
int pu_returned_ok(struct prop_verdict *v, const struct impl_result *r,
                   const char *fn);

/* The first index where a non-finite float appears, or n when none. */
size_t pu_first_nonfinite(const float *x, size_t n);

/* Case parameters as sizes: spec_num() rounded, with a default. */
size_t pu_size(const struct spec_case *c, const char *key, size_t def);

/* C (n x m) = A (n x k) . B (k x m), accumulated in double. (Products
 * alone are no answer key; softmax, attention and layer norm live behind
 * oracle.h.) */
void pu_matmul_d(const float *A, const float *B, size_t n, size_t k, size_t m,
                 double *C);

/*
 * Fail the verdict because the oracle had no expected value (ORC_MISSING,
 * oracle.h) for `what`: in the student build the golden data holds only
 * the inputs the public spec makes at its seed. Returns 0.
 */
int pu_no_oracle(struct prop_verdict *v, const char *what);

/* Largest |a[i] - b[i]| and its index; *at = n when n == 0. */
double pu_max_abs_diff_fd(const float *a, const double *b, size_t n, size_t *at);

/*
 * Fill an n_q x n_kv mask of `kind`: "causal" (key j visible to query i
 * when j <= i), "random" (each entry visible with probability 0.7, key 0
 * always visible), "bytes" (random, with visible entries any byte of
 * 1..255, not only 1) or "full_row" (random, with query 0's keys all
 * hidden).
 * Returns 0, or -1 for any other kind (the caller handles "none").
 */
int pu_fill_mask(unsigned char *m, size_t n_q, size_t n_kv,
                 const char *kind, struct pu_rng *r);

#endif
