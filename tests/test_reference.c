/*
 * test_reference.c -- the reference solution (reference/attention.c)
 * against hand-computed values, against the independent double-precision
 * oracle in oracle.h on random shapes with explicit seeds, on edge cases,
 * and on every ATTN_EINVAL case (outputs must stay untouched); plus the
 * name tables of grader/sandbox/impl.c and the local impl of grader/sandbox/impl_local.c.
 *
 * Tolerances. u = 2^-24 is float32's unit roundoff: one rounding of a
 * real number y to float changes it by at most u*|y|. The reference does
 * all arithmetic in double (unit roundoff 2^-53, i.e. 2^-29 u) and rounds
 * once per stored value, so:
 *   - softmax, sdpa, pe, layer norm: result = exact * (1 + d), |d| <= u,
 *     plus double error of about n * 2^-53 per sum of n terms, which for
 *     our n <= 64 stays under 2^-46 -- far below u. We allow rtol = 2u and
 *     an atol of 2^-40 times the scale of the terms summed (a sum that
 *     cancels to near 0 keeps an absolute double error of that order).
 *   - multi-head: Q, K, V, each head's output and `out` are each rounded
 *     to float once (5 roundings on a path). A relative error u in q and
 *     in k moves a score s = q.k/sqrt(dh) by <= 2u * S, S = sum|q_c k_c| /
 *     sqrt(dh); softmax turns a score error e into a relative weight error
 *     <= 2e; so a head output is off by <= u(1 + 2 + 4S) of max|V|, and
 *     `. Wo` sums d such terms: err <= u (3 + 4S) d max|V| max|Wo| + u|out|.
 *     With our inputs (X ~ N(0,1), W ~ N(0, 1/d), d <= 16) S < 16 and
 *     d max|V| max|Wo| < 64, giving under 2^13 u = 2^-11 absolute in the
 *     worst imaginable case; typical errors are a few u (measured worst over
 *     this file's cases: 5.2 u). We use atol = 2^-14 * max(1, max|out|): ~1000x the
 *     measured error, and still ~100x below the smallest real bug we know
 *     (a wrong scale or a head-block mix-up changes outputs by > 1e-2).
 *   - transformer block: two layer norms each divide absolute errors by
 *     their row's standard deviation (~1 here), the FFN adds 3 roundings
 *     through sums of d_ff terms; same reasoning, atol = 2^-12 (measured
 *     worst: 4.5 u; 2^-12 = 4096 u).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "sandbox/impl.h"
#include "oracle.h"

#define U (1.0 / 16777216.0)          /* 2^-24 */
#define SUM_ATOL (1.0 / 1099511627776.0) /* 2^-40 */
#define SENTINEL (-12345.5f)

/* ---- helpers ----------------------------------------------------------- */

static float *gauss_floats(struct orc_rng *r, size_t n, double scale)
{
    float *x = malloc((n ? n : 1) * sizeof *x);

    cr_assert(x != NULL);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(orc_gauss(r) * scale);
    return x;
}

static float *filled(size_t n, float v)
{
    float *x = malloc((n ? n : 1) * sizeof *x);

    cr_assert(x != NULL);
    for (size_t i = 0; i < n; i++)
        x[i] = v;
    return x;
}

static double *wide(const float *x, size_t n)
{
    double *y = orc_widen(x, n);

    cr_assert(y != NULL);
    return y;
}

static double *doubles(size_t n)
{
    double *y = calloc(n ? n : 1, sizeof *y);

    cr_assert(y != NULL);
    return y;
}

/* A random mask with about `hidden` of its entries 0; nonzero entries take
 * varied byte values, since any nonzero byte means "visible". */
static unsigned char *random_mask(struct orc_rng *r, size_t n, double hidden)
{
    unsigned char *m = malloc(n ? n : 1);

    cr_assert(m != NULL);
    for (size_t i = 0; i < n; i++)
        m[i] = orc_uniform(r) < hidden ? 0 : (unsigned char)orc_range(r, 1, 255);
    return m;
}

static double max_abs(const double *x, size_t n)
{
    double m = 0.0;

    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* Every got[i] within atol + rtol*|want[i]|; reports the first miss. */
static int close_all(const float *got, const double *want, size_t n,
                     double atol, double rtol, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - want[i]);
        if (!(err <= atol + rtol * fabs(want[i]))) {
            cr_expect(0, "%s[%zu]: got %.9g, want %.9g (err %.3g = %.1f u)",
                      what, i, (double)got[i], want[i], err, err / U);
            return 0;
        }
    }
    return 1;
}

static int all_equal(const float *x, size_t n, float v)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&x[i], &v, sizeof v) != 0)
            return 0;
    return 1;
}

/* ---- softmax ----------------------------------------------------------- */

Test(reference, softmax_of_log_1_2_3_is_sixths)
{
    float x[3] = { 0.0f, (float)log(2.0), (float)log(3.0) };
    const double want[3] = { 1.0 / 6, 2.0 / 6, 3.0 / 6 };

    cr_assert_eq(attn_softmax_rows(x, 1, 3), ATTN_OK);
    /* the inputs themselves were rounded to float: exp() turns their
     * relative error u*ln3 into a relative error of the output of ~2u */
    close_all(x, want, 3, 0.0, 4 * U, "softmax");
}

Test(reference, softmax_survives_logits_of_1e4)
{
    float x[8] = { 1e4f, -1e4f, 0.0f, 1e4f, -1e4f, -1e4f, -1e4f, 1e4f };
    const double want[4] = { 0.5, 0, 0, 0.5 };

    cr_assert_eq(attn_softmax_rows(x, 2, 4), ATTN_OK);
    cr_expect(x[4] == 0.0f && x[5] == 0.0f && x[6] == 0.0f && x[7] == 1.0f);
    close_all(x, want, 4, 0.0, 2 * U, "softmax");
}

Test(reference, softmax_matches_oracle_on_random_shapes)
{
    for (unsigned seed = 1; seed <= 40; seed++) {
        struct orc_rng r = { seed };
        size_t rows = orc_range(&r, 1, 7), cols = orc_range(&r, 1, 40);
        float *x = gauss_floats(&r, rows * cols, 3.0);
        double *in = wide(x, rows * cols), *want = doubles(rows * cols);

        orc_softmax(in, rows, cols, want);
        cr_assert_eq(attn_softmax_rows(x, rows, cols), ATTN_OK);
        cr_expect(close_all(x, want, rows * cols, 1e-30, 2 * U, "softmax"),
                  "seed %u rows %zu cols %zu", seed, rows, cols);
        free(x);
        free(in);
        free(want);
    }
}

/* ---- scaled dot-product attention -------------------------------------- */

Test(reference, sdpa_with_one_key_returns_its_value)
{
    const float Q[6] = { 1, -2, 3, 0.5f, 0, 9 }, K[2] = { 4, -1 };
    const float V[3] = { 0.25f, -7, 1e3f };
    float out[9], w[3];

    cr_assert_eq(attn_scaled_dot_product(Q, K, V, 3, 1, 2, 3, NULL, out, w),
                 ATTN_OK);
    for (size_t i = 0; i < 3; i++) {
        cr_expect_eq(w[i], 1.0f, "weight of query %zu", i);
        cr_expect(memcmp(out + 3 * i, V, sizeof V) == 0, "row %zu", i);
    }
}

/* Random Q, K, V, optional mask; compare out and weights to the oracle. */
static void sdpa_case(unsigned seed, size_t n_q, size_t n_k, size_t d_k,
                      size_t d_v, double hidden)
{
    struct orc_rng r = { seed };
    float *Q = gauss_floats(&r, n_q * d_k, 1.0);
    float *K = gauss_floats(&r, n_k * d_k, 1.0);
    float *V = gauss_floats(&r, n_k * d_v, 1.0);
    unsigned char *mask = hidden > 0 ? random_mask(&r, n_q * n_k, hidden) : NULL;
    float *out = filled(n_q * d_v, SENTINEL), *w = filled(n_q * n_k, SENTINEL);
    double *wq = wide(Q, n_q * d_k), *wk = wide(K, n_k * d_k);
    double *wv = wide(V, n_k * d_v);
    double *eo = doubles(n_q * d_v), *ew = doubles(n_q * n_k);

    cr_assert_eq(orc_sdpa(wq, wk, wv, n_q, n_k, d_k, d_v, mask, eo, ew), 0);
    cr_assert_eq(attn_scaled_dot_product(Q, K, V, n_q, n_k, d_k, d_v, mask,
                                         out, w), ATTN_OK);
    cr_expect(close_all(out, eo, n_q * d_v, SUM_ATOL * max_abs(wv, n_k * d_v),
                        2 * U, "out"), "seed %u", seed);
    cr_expect(close_all(w, ew, n_q * n_k, SUM_ATOL, 2 * U, "weights"),
              "seed %u", seed);
    for (size_t i = 0; mask && i < n_q * n_k; i++)
        cr_expect(mask[i] || w[i] == 0.0f, "masked weight %zu is %g", i, w[i]);
    free(Q); free(K); free(V); free(mask); free(out); free(w);
    free(wq); free(wk); free(wv); free(eo); free(ew);
}

Test(reference, sdpa_matches_oracle_on_edge_shapes)
{
    /* n_q, n_k, d_k, d_v: n = 1, d = 1, n_q != n_k, d_k != d_v */
    static const size_t shapes[][4] = {
        { 1, 1, 1, 1 }, { 1, 5, 1, 1 }, { 5, 1, 3, 2 }, { 3, 7, 4, 9 },
        { 8, 2, 16, 1 }, { 2, 9, 1, 16 }, { 16, 16, 8, 8 },
    };

    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const size_t *s = shapes[i];
        sdpa_case(100 + (unsigned)i, s[0], s[1], s[2], s[3], 0.0);
        sdpa_case(200 + (unsigned)i, s[0], s[1], s[2], s[3], 0.4);
    }
}

Test(reference, sdpa_matches_oracle_on_random_shapes)
{
    for (unsigned seed = 1; seed <= 30; seed++) {
        struct orc_rng r = { seed * 7919u };
        size_t n_q = orc_range(&r, 1, 12), n_k = orc_range(&r, 1, 12);
        size_t d_k = orc_range(&r, 1, 20), d_v = orc_range(&r, 1, 20);
        sdpa_case(seed, n_q, n_k, d_k, d_v, seed % 3 == 0 ? 0.5 : 0.0);
    }
}

Test(reference, sdpa_fully_masked_row_gives_zeros)
{
    struct orc_rng r = { 42 };
    float *Q = gauss_floats(&r, 3 * 4, 1.0), *K = gauss_floats(&r, 5 * 4, 1.0);
    float *V = gauss_floats(&r, 5 * 2, 1.0);
    float out[3 * 2], w[3 * 5];
    unsigned char mask[3 * 5];

    memset(mask, 1, sizeof mask);
    memset(mask + 5, 0, 5);          /* query 1 sees nothing */
    V[0] = INFINITY;                 /* key 0 hidden from query 2 below */
    mask[10] = 0;
    cr_assert_eq(attn_scaled_dot_product(Q, K, V, 3, 5, 4, 2, mask, out, w),
                 ATTN_OK);
    cr_expect(all_equal(w + 5, 5, 0.0f), "weights of the hidden row");
    cr_expect(all_equal(out + 2, 2, 0.0f), "output of the hidden row");
    cr_expect(w[10] == 0.0f && isfinite(out[4]) && isfinite(out[5]),
              "a hidden key's Inf value leaked: %g %g", out[4], out[5]);
    free(Q); free(K); free(V);
}

Test(reference, sdpa_weights_buffer_is_optional)
{
    struct orc_rng r = { 9 };
    float *Q = gauss_floats(&r, 4 * 3, 1.0), *K = gauss_floats(&r, 6 * 3, 1.0);
    float *V = gauss_floats(&r, 6 * 5, 1.0);
    float a[4 * 5], b[4 * 5], w[4 * 6];

    cr_assert_eq(attn_scaled_dot_product(Q, K, V, 4, 6, 3, 5, NULL, a, w), ATTN_OK);
    cr_assert_eq(attn_scaled_dot_product(Q, K, V, 4, 6, 3, 5, NULL, b, NULL), ATTN_OK);
    cr_expect(memcmp(a, b, sizeof a) == 0);
    free(Q); free(K); free(V);
}

/* ---- positional encoding ----------------------------------------------- */

Test(reference, pe_at_position_zero_is_0_1_0_1)
{
    float pe[7];

    cr_assert_eq(attn_positional_encoding(pe, 1, 7), ATTN_OK);
    for (size_t i = 0; i < 7; i++)
        cr_expect_eq(pe[i], (i % 2) ? 1.0f : 0.0f, "pe[0][%zu] = %g", i, pe[i]);
}

Test(reference, pe_matches_oracle)
{
    static const size_t shapes[][2] = {
        { 1, 1 }, { 5, 1 }, { 3, 2 }, { 50, 3 }, { 17, 7 }, { 200, 16 },
        { 64, 63 }, { 10, 128 },
    };

    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t n = shapes[s][0], d = shapes[s][1];
        float *pe = filled(n * d, SENTINEL);
        double *want = doubles(n * d);

        orc_pe(n, d, want);
        cr_assert_eq(attn_positional_encoding(pe, n, d), ATTN_OK);
        /* sin/cos of arguments <= 200 computed two ways in double agree
         * to ~200 * 2^-52; the float rounding dominates */
        cr_expect(close_all(pe, want, n * d, 1e-12, 2 * U, "pe"),
                  "n %zu d %zu", n, d);
        free(pe);
        free(want);
    }
}

Test(reference, pe_odd_width_ends_with_a_sine)
{
    float pe[9 * 5];

    cr_assert_eq(attn_positional_encoding(pe, 9, 5), ATTN_OK);
    for (size_t p = 0; p < 9; p++) {
        double want = sin((double)p / pow(10000.0, 4.0 / 5.0));
        cr_expect(fabs(pe[p * 5 + 4] - want) <= 2 * U, "p %zu: %g vs %g",
                  p, pe[p * 5 + 4], want);
    }
}

/* ---- layer norm -------------------------------------------------------- */

Test(reference, layer_norm_of_1_2_3)
{
    float x[3] = { 1, 2, 3 };
    const double s = sqrt(1.5); /* (x - 2) / sqrt(2/3) */
    const double want[3] = { -s, 0.0, s };

    cr_assert_eq(attn_layer_norm(x, 1, 3, 0.0f), ATTN_OK);
    close_all(x, want, 3, 0.0, 2 * U, "layer_norm");
    cr_expect(fabs(x[2] - 1.2247449) < 1e-6);
}

Test(reference, layer_norm_constant_rows_become_zero)
{
    static const float eps[] = { 0.0f, 1e-5f };
    float x[2 * 4] = { 5, 5, 5, 5, -3e7f, -3e7f, -3e7f, -3e7f };
    float one[1] = { 42.0f };

    for (size_t e = 0; e < 2; e++) {
        float y[8];
        memcpy(y, x, sizeof y);
        cr_assert_eq(attn_layer_norm(y, 2, 4, eps[e]), ATTN_OK);
        cr_expect(all_equal(y, 8, 0.0f), "eps %g", (double)eps[e]);
    }
    cr_assert_eq(attn_layer_norm(one, 1, 1, 0.0f), ATTN_OK);
    cr_expect_eq(one[0], 0.0f);
}

Test(reference, layer_norm_matches_oracle)
{
    for (unsigned seed = 1; seed <= 30; seed++) {
        struct orc_rng r = { seed * 31u };
        size_t rows = orc_range(&r, 1, 6), cols = orc_range(&r, 2, 64);
        float eps = (seed % 2) ? 1e-5f : 0.0f;
        float *x = gauss_floats(&r, rows * cols, 2.0);
        double *want;

        /* a large mean is the two-pass algorithm's reason to exist */
        for (size_t i = 0; seed % 5 == 0 && i < rows * cols; i++)
            x[i] += 1000.0f;
        want = wide(x, rows * cols);
        orc_layer_norm(want, rows, cols, eps);
        cr_assert_eq(attn_layer_norm(x, rows, cols, eps), ATTN_OK);
        cr_expect(close_all(x, want, rows * cols, SUM_ATOL, 2 * U, "layer_norm"),
                  "seed %u rows %zu cols %zu", seed, rows, cols);
        free(x);
        free(want);
    }
}

/* ---- multi-head attention ---------------------------------------------- */

struct mha_in {
    size_t n_q, n_kv, d, heads;
    float *xq, *xkv, *w[4];          /* Wq, Wk, Wv, Wo */
    unsigned char *mask;
};

static void mha_in_make(struct mha_in *m, unsigned seed, double hidden)
{
    struct orc_rng r = { seed };

    m->xq = gauss_floats(&r, m->n_q * m->d, 1.0);
    m->xkv = gauss_floats(&r, m->n_kv * m->d, 1.0);
    for (size_t i = 0; i < 4; i++)
        m->w[i] = gauss_floats(&r, m->d * m->d, 1.0 / sqrt((double)m->d));
    m->mask = hidden > 0 ? random_mask(&r, m->n_q * m->n_kv, hidden) : NULL;
}

static void mha_in_free(struct mha_in *m)
{
    free(m->xq);
    free(m->xkv);
    for (size_t i = 0; i < 4; i++)
        free(m->w[i]);
    free(m->mask);
}

/* The oracle's out and weights for m. Caller frees both. */
static void mha_oracle(const struct mha_in *m, double **out, double **w)
{
    size_t dd = m->d * m->d;
    double *xq = wide(m->xq, m->n_q * m->d), *xkv = wide(m->xkv, m->n_kv * m->d);
    double *W[4];

    for (size_t i = 0; i < 4; i++)
        W[i] = wide(m->w[i], dd);
    *out = doubles(m->n_q * m->d);
    *w = doubles(m->heads * m->n_q * m->n_kv);
    cr_assert_eq(orc_mha(xq, m->n_q, xkv, m->n_kv, m->d, m->heads, W[0], W[1],
                         W[2], W[3], m->mask, *out, *w), 0);
    free(xq);
    free(xkv);
    for (size_t i = 0; i < 4; i++)
        free(W[i]);
}

static void mha_case(unsigned seed, size_t n_q, size_t n_kv, size_t d,
                     size_t heads, double hidden)
{
    struct mha_in m = { .n_q = n_q, .n_kv = n_kv, .d = d, .heads = heads };
    size_t nw = heads * n_q * n_kv;
    float *out = filled(n_q * d, SENTINEL), *w = filled(nw, SENTINEL);
    double *eo, *ew;

    mha_in_make(&m, seed, hidden);
    mha_oracle(&m, &eo, &ew);
    cr_assert_eq(attn_multi_head(m.xq, n_q, m.xkv, n_kv, d, heads, m.w[0],
                                 m.w[1], m.w[2], m.w[3], m.mask, out, w), ATTN_OK);
    cr_expect(close_all(out, eo, n_q * d, fmax(1.0, max_abs(eo, n_q * d)) / 16384,
                        0.0, "out"), "seed %u n_q %zu n_kv %zu d %zu heads %zu",
              seed, n_q, n_kv, d, heads);
    cr_expect(close_all(w, ew, nw, 1.0 / 16384, 0.0, "weights"), "seed %u", seed);
    mha_in_free(&m);
    free(out); free(w); free(eo); free(ew);
}

Test(reference, mha_matches_oracle_on_edge_shapes)
{
    /* n_q, n_kv, d_model, heads: n = 1, d = 1, heads = d_model, n_q != n_kv */
    static const size_t shapes[][4] = {
        { 1, 1, 1, 1 }, { 1, 4, 4, 4 }, { 5, 1, 6, 3 }, { 3, 7, 8, 8 },
        { 6, 6, 8, 1 }, { 4, 9, 12, 4 }, { 8, 8, 16, 2 },
    };

    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const size_t *s = shapes[i];
        mha_case(300 + (unsigned)i, s[0], s[1], s[2], s[3], 0.0);
        mha_case(400 + (unsigned)i, s[0], s[1], s[2], s[3], 0.4);
    }
}

Test(reference, mha_matches_oracle_on_random_shapes)
{
    static const size_t heads_of[] = { 1, 2, 4, 8 };

    for (unsigned seed = 1; seed <= 20; seed++) {
        struct orc_rng r = { seed * 104729u };
        size_t heads = heads_of[orc_range(&r, 0, 3)];
        size_t d = heads * orc_range(&r, 1, 16 / heads);
        size_t n_q = orc_range(&r, 1, 10), n_kv = orc_range(&r, 1, 10);
        mha_case(seed, n_q, n_kv, d, heads, seed % 2 ? 0.3 : 0.0);
    }
}

Test(reference, mha_with_identity_weights_and_one_head_is_sdpa)
{
    struct orc_rng r = { 5 };
    const size_t n = 4, d = 3;
    float I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    float *X = gauss_floats(&r, n * d, 1.0);
    float a[4 * 3], b[4 * 3], wa[16], wb[16];

    cr_assert_eq(attn_multi_head(X, n, X, n, d, 1, I, I, I, I, NULL, a, wa), ATTN_OK);
    cr_assert_eq(attn_scaled_dot_product(X, X, X, n, n, d, d, NULL, b, wb), ATTN_OK);
    cr_expect(memcmp(a, b, sizeof a) == 0 && memcmp(wa, wb, sizeof wa) == 0);
    free(X);
}

Test(reference, mha_accepts_xq_equal_to_xkv)
{
    struct mha_in m = { .n_q = 5, .n_kv = 5, .d = 8, .heads = 2 };
    float a[5 * 8], b[5 * 8], wa[2 * 25], wb[2 * 25];

    mha_in_make(&m, 77, 0.3);
    memcpy(m.xkv, m.xq, sizeof a);   /* same values, different buffers */
    cr_assert_eq(attn_multi_head(m.xq, 5, m.xq, 5, 8, 2, m.w[0], m.w[1], m.w[2],
                                 m.w[3], m.mask, a, wa), ATTN_OK);
    cr_assert_eq(attn_multi_head(m.xq, 5, m.xkv, 5, 8, 2, m.w[0], m.w[1], m.w[2],
                                 m.w[3], m.mask, b, wb), ATTN_OK);
    cr_expect(memcmp(a, b, sizeof a) == 0 && memcmp(wa, wb, sizeof wa) == 0);
    mha_in_free(&m);
}

/* ---- transformer block ------------------------------------------------- */

struct block_in {
    size_t n, d, heads, d_ff;
    float *x, *w[4], *w1, *b1, *w2, *b2;
    unsigned char *mask;
};

static void block_in_make(struct block_in *b, unsigned seed, double hidden)
{
    struct orc_rng r = { seed };

    b->x = gauss_floats(&r, b->n * b->d, 1.0);
    for (size_t i = 0; i < 4; i++)
        b->w[i] = gauss_floats(&r, b->d * b->d, 1.0 / sqrt((double)b->d));
    b->w1 = gauss_floats(&r, b->d * b->d_ff, 1.0 / sqrt((double)b->d));
    b->b1 = gauss_floats(&r, b->d_ff, 0.1);
    b->w2 = gauss_floats(&r, b->d_ff * b->d, 1.0 / sqrt((double)b->d_ff));
    b->b2 = gauss_floats(&r, b->d, 0.1);
    b->mask = hidden > 0 ? random_mask(&r, b->n * b->n, hidden) : NULL;
}

static void block_in_free(struct block_in *b)
{
    free(b->x);
    for (size_t i = 0; i < 4; i++)
        free(b->w[i]);
    free(b->w1); free(b->b1); free(b->w2); free(b->b2); free(b->mask);
}

/* The oracle's block output for b (n x d). Caller frees. */
static double *block_oracle(const struct block_in *b, double eps)
{
    double *x = wide(b->x, b->n * b->d), *W[4];
    double *w1 = wide(b->w1, b->d * b->d_ff), *b1 = wide(b->b1, b->d_ff);
    double *w2 = wide(b->w2, b->d_ff * b->d), *b2 = wide(b->b2, b->d);

    for (size_t i = 0; i < 4; i++)
        W[i] = wide(b->w[i], b->d * b->d);
    cr_assert_eq(orc_block(x, b->n, b->d, b->heads, b->d_ff, W[0], W[1], W[2],
                           W[3], w1, b1, w2, b2, b->mask, eps), 0);
    for (size_t i = 0; i < 4; i++)
        free(W[i]);
    free(w1); free(b1); free(w2); free(b2);
    return x;
}

static void block_case(unsigned seed, size_t n, size_t d, size_t heads,
                       size_t d_ff, double hidden, float eps)
{
    struct block_in b = { .n = n, .d = d, .heads = heads, .d_ff = d_ff };
    double *want;

    block_in_make(&b, seed, hidden);
    want = block_oracle(&b, eps);
    cr_assert_eq(attn_transformer_block(b.x, n, d, heads, d_ff, b.w[0], b.w[1],
                                        b.w[2], b.w[3], b.w1, b.b1, b.w2, b.b2,
                                        b.mask, eps), ATTN_OK);
    cr_expect(close_all(b.x, want, n * d, 1.0 / 4096, 0.0, "X"),
              "seed %u n %zu d %zu heads %zu d_ff %zu", seed, n, d, heads, d_ff);
    free(want);
    block_in_free(&b);
}

Test(reference, block_matches_oracle)
{
    /* n, d_model, heads, d_ff */
    static const size_t shapes[][4] = {
        { 1, 2, 1, 1 }, { 3, 4, 4, 8 }, { 5, 6, 2, 3 }, { 7, 8, 2, 32 },
        { 4, 16, 4, 16 }, { 9, 12, 3, 5 },
    };

    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const size_t *s = shapes[i];
        block_case(500 + (unsigned)i, s[0], s[1], s[2], s[3], 0.0, 1e-5f);
        block_case(600 + (unsigned)i, s[0], s[1], s[2], s[3], 0.3, 0.0f);
    }
}

Test(reference, block_rows_are_normalised)
{
    struct block_in b = { .n = 6, .d = 8, .heads = 2, .d_ff = 16 };

    block_in_make(&b, 4242, 0.0);
    cr_assert_eq(attn_transformer_block(b.x, 6, 8, 2, 16, b.w[0], b.w[1], b.w[2],
                                        b.w[3], b.w1, b.b1, b.w2, b.b2, NULL,
                                        0.0f), ATTN_OK);
    for (size_t i = 0; i < 6; i++) {
        double s = 0, s2 = 0;
        for (size_t j = 0; j < 8; j++) {
            s += b.x[i * 8 + j];
            s2 += (double)b.x[i * 8 + j] * b.x[i * 8 + j];
        }
        cr_expect(fabs(s / 8) < 1e-6 && fabs(s2 / 8 - 1) < 1e-5,
                  "row %zu: mean %g, var %g", i, s / 8, s2 / 8);
    }
    block_in_free(&b);
}

/* ---- ATTN_EINVAL: rejected, nothing written ---------------------------- */

Test(reference, softmax_and_layer_norm_reject_bad_arguments)
{
    float x[6];

    for (size_t i = 0; i < 6; i++)
        x[i] = SENTINEL;
    cr_expect_eq(attn_softmax_rows(NULL, 2, 3), ATTN_EINVAL);
    cr_expect_eq(attn_softmax_rows(x, 0, 3), ATTN_EINVAL);
    cr_expect_eq(attn_softmax_rows(x, 2, 0), ATTN_EINVAL);
    cr_expect_eq(attn_layer_norm(NULL, 2, 3, 0.0f), ATTN_EINVAL);
    cr_expect_eq(attn_layer_norm(x, 0, 3, 0.0f), ATTN_EINVAL);
    cr_expect_eq(attn_layer_norm(x, 2, 0, 0.0f), ATTN_EINVAL);
    cr_expect_eq(attn_layer_norm(x, 2, 3, -1e-5f), ATTN_EINVAL);
    cr_expect_eq(attn_layer_norm(x, 2, 3, NAN), ATTN_EINVAL);
    cr_expect_eq(attn_layer_norm(x, 2, 3, -INFINITY), ATTN_EINVAL);
    cr_expect(all_equal(x, 6, SENTINEL), "x was written");
}

Test(reference, sdpa_and_pe_reject_bad_arguments)
{
    const float q[64] = { 1 };
    float out[64], w[64];

    for (size_t i = 0; i < 64; i++)
        out[i] = w[i] = SENTINEL;
    /* Q, K, V, n_q, n_k, d_k, d_v, out */
    cr_expect_eq(attn_scaled_dot_product(NULL, q, q, 2, 2, 2, 2, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_scaled_dot_product(q, NULL, q, 2, 2, 2, 2, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_scaled_dot_product(q, q, NULL, 2, 2, 2, 2, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_scaled_dot_product(q, q, q, 2, 2, 2, 2, NULL, NULL, w), ATTN_EINVAL);
    cr_expect_eq(attn_scaled_dot_product(q, q, q, 0, 2, 2, 2, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_scaled_dot_product(q, q, q, 2, 0, 2, 2, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_scaled_dot_product(q, q, q, 2, 2, 0, 2, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_scaled_dot_product(q, q, q, 2, 2, 2, 0, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_positional_encoding(NULL, 2, 2), ATTN_EINVAL);
    cr_expect_eq(attn_positional_encoding(out, 0, 2), ATTN_EINVAL);
    cr_expect_eq(attn_positional_encoding(out, 2, 0), ATTN_EINVAL);
    cr_expect(all_equal(out, 64, SENTINEL) && all_equal(w, 64, SENTINEL),
              "an output was written");
}

Test(reference, mha_rejects_bad_arguments)
{
    const float x[64] = { 1 };
    const float *W = x;
    float out[64], w[64];

    for (size_t i = 0; i < 64; i++)
        out[i] = w[i] = SENTINEL;
    /* Xq, n_q, Xkv, n_kv, d_model, heads, Wq, Wk, Wv, Wo, mask, out, w */
    cr_expect_eq(attn_multi_head(NULL, 2, x, 2, 4, 2, W, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, NULL, 2, 4, 2, W, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 4, 2, NULL, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 4, 2, W, NULL, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 4, 2, W, W, NULL, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 4, 2, W, W, W, NULL, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 4, 2, W, W, W, W, NULL, NULL, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 0, x, 2, 4, 2, W, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 0, 4, 2, W, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 0, 2, W, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 4, 0, W, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 4, 3, W, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(x, 2, x, 2, 4, 8, W, W, W, W, NULL, out, w), ATTN_EINVAL);
    cr_expect(all_equal(out, 64, SENTINEL) && all_equal(w, 64, SENTINEL),
              "an output was written");
}

Test(reference, block_rejects_bad_arguments)
{
    const float *W;
    float x[64], X[64];

    for (size_t i = 0; i < 64; i++) {
        x[i] = 0.5f;
        X[i] = SENTINEL;
    }
    W = x;
#define BLK(Xp, n, d, h, ff, q, k, v, o, w1, b1, w2, b2, eps) \
    cr_expect_eq(attn_transformer_block(Xp, n, d, h, ff, q, k, v, o, w1, b1, \
                                        w2, b2, NULL, eps), ATTN_EINVAL)
    BLK(NULL, 2, 4, 2, 3, W, W, W, W, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 2, 3, NULL, W, W, W, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 2, 3, W, NULL, W, W, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 2, 3, W, W, NULL, W, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 2, 3, W, W, W, NULL, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 2, 3, W, W, W, W, NULL, W, W, W, 0.0f);
    BLK(X, 2, 4, 2, 3, W, W, W, W, W, NULL, W, W, 0.0f);
    BLK(X, 2, 4, 2, 3, W, W, W, W, W, W, NULL, W, 0.0f);
    BLK(X, 2, 4, 2, 3, W, W, W, W, W, W, W, NULL, 0.0f);
    BLK(X, 0, 4, 2, 3, W, W, W, W, W, W, W, W, 0.0f);
    BLK(X, 2, 0, 2, 3, W, W, W, W, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 0, 3, W, W, W, W, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 3, 3, W, W, W, W, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 2, 0, W, W, W, W, W, W, W, W, 0.0f);
    BLK(X, 2, 4, 2, 3, W, W, W, W, W, W, W, W, -1.0f);
    BLK(X, 2, 4, 2, 3, W, W, W, W, W, W, W, W, NAN);
#undef BLK
    cr_expect(all_equal(X, 64, SENTINEL), "X was written");
}

/* A temporary that cannot be allocated (its byte count overflows size_t)
 * takes the same road as a failed malloc: ATTN_EINVAL, nothing written.
 * The inputs are never read on that road, so small buffers are safe. */
Test(reference, allocation_failure_writes_nothing)
{
    const size_t huge = SIZE_MAX / 2;
    const float in[64] = { 1 };
    float out[64], X[64];

    for (size_t i = 0; i < 64; i++)
        out[i] = X[i] = SENTINEL;
    cr_expect_eq(attn_scaled_dot_product(in, in, in, 1, huge, 2, 1, NULL, out, NULL),
                 ATTN_EINVAL);
    cr_expect_eq(attn_multi_head(in, huge, in, 2, 4, 2, in, in, in, in, NULL, out,
                                 NULL), ATTN_EINVAL);
    cr_expect_eq(attn_transformer_block(X, huge, 4, 2, 3, in, in, in, in, in, in,
                                        in, in, NULL, 0.0f), ATTN_EINVAL);
    cr_expect_eq(attn_transformer_block(X, 2, 4, 2, huge, in, in, in, in, in, in,
                                        in, in, NULL, 0.0f), ATTN_EINVAL);
    cr_expect(all_equal(out, 64, SENTINEL) && all_equal(X, 64, SENTINEL),
              "an output was written");
}

/* ---- assign.c names, impl.c statuses and impl_local() ------------------ */

Test(impl, names_parse_back)
{
    for (int f = 0; f < ASG_FN_COUNT; f++) {
        enum asg_fn back = ASG_FN_COUNT;
        cr_assert(asg_fn_name((enum asg_fn)f) != NULL);
        cr_expect(strncmp(asg_fn_cname((enum asg_fn)f), "attn_", 5) == 0);
        cr_expect_eq(asg_fn_parse(asg_fn_name((enum asg_fn)f), &back), 0);
        cr_expect_eq((int)back, f);
    }
    cr_expect_null(asg_fn_name(ASG_FN_COUNT));
    cr_expect_eq(asg_fn_parse("attention", NULL), -1);
    cr_expect_str_eq(impl_status_name(CALL_TIMEOUT), "timed out");
    cr_expect_str_eq(impl_status_name((enum impl_status)99), "unknown status");
}

Test(impl, local_calls_the_linked_functions)
{
    struct impl im = impl_local();
    struct impl_result r;
    float x[3] = { 0.0f, (float)log(2.0), (float)log(3.0) };

    cr_assert_eq(im.ops->softmax_rows(im.self, x, 1, 3, &r, NULL), 0);
    cr_expect(r.status == CALL_RETURNED && r.rc == ATTN_OK && r.elapsed_ms >= 0);
    cr_expect(fabs(x[2] - 0.5) < 1e-6);
    cr_assert_eq(im.ops->layer_norm(im.self, x, 1, 3, -1.0f, &r, NULL), 0);
    cr_expect(r.status == CALL_RETURNED && r.rc == ATTN_EINVAL);
}
