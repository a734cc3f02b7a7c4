/*
 * test_props_a.c -- the softmax, sdpa and pe properties (prop_softmax.c,
 * prop_sdpa.c, prop_pe.c) and the generic runners of prop_common.c.
 *
 * Every property passes on the reference for every case of both specs;
 * every catalogue entry of props-A fails exactly its expect-fail tests and
 * passes every other softmax/sdpa/pe test (run in-process through the
 * TEST-ONLY impl_dl.h: these entries are ours and not hostile).
 * PA_DISCOVER=1 prints each entry's failing ids instead of asserting.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impl_dl.h"
#include "grade/grade_props.h"
#include "props/prop.h"
#include "props/prop_common.h"
#include "props/prop_util.h"
#include "spec/spec.h"

static const char *const my_fns[] = {"softmax", "sdpa", "pe"};

/* ---- loading only props-A's sections of a spec file --------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = calloc((size_t)n + 1, 1)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = buf ? strlen(buf) : 0;
    return buf;
}

/* Append the text between "# ---- fn (owner: props-A) ----" and its end. */
static void append_section(char *dst, size_t cap, const char *file, const char *fn)
{
    char start[80], end[80];
    const char *a, *b;

    snprintf(start, sizeof start, "# ---- %s (owner: props-A) ----\n", fn);
    snprintf(end, sizeof end, "# ---- end %s ----", fn);
    a = strstr(file, start);
    cr_assert(a != NULL, "no section '%s'", fn);
    a += strlen(start);
    b = strstr(a, end);
    cr_assert(b != NULL && strlen(dst) + (size_t)(b - a) < cap);
    strncat(dst, a, (size_t)(b - a));
}

/* The set of our tests in specs/public.yaml and specs/hidden.yaml. */
static struct spec_set *load_ours(void)
{
    static const char *const files[] = {"public.yaml", "hidden.yaml"};
    struct spec_set *s = spec_set_new();
    struct err e = {0};

    cr_assert(s != NULL);
    for (size_t f = 0; f < 2; f++) {
        char path[512];
        size_t len, cap;
        char *file, *buf;
        snprintf(path, sizeof path, "%s/specs/%s", TEST_SRCDIR, files[f]);
        file = slurp(path, &len);
        cr_assert(file != NULL, "cannot read %s", path);
        cap = len + 64;
        buf = calloc(cap, 1);
        cr_assert(buf != NULL);
        strncat(buf, "version: 1\ntests:\n", cap - 1);
        for (size_t i = 0; i < 3; i++)
            append_section(buf, cap, file, my_fns[i]);
        cr_assert(spec_load_buffer(s, path, buf, strlen(buf), gprop_check_case, &e) == 0,
                  "%s:%d:%d: %s", e.file, e.line, e.col, e.msg);
        free(buf);
        free(file);
    }
    return s;
}

/* ---- running tests ------------------------------------------------------- */

/* 1 when every case of t passes on `student`; the first failure in msg. */
static int test_passes(const struct spec_test *t, struct impl student, char *msg,
                       size_t n)
{
    struct impl ref = impl_local();
    struct prop_env env = {.student = student, .reference = &ref, .seed = 1};
    const struct prop_def *d = gprop_find(t->function, t->property);

    cr_assert(d != NULL, "no property for %s", t->id);
    for (size_t i = 0; i < t->n_cases; i++) {
        struct prop_verdict v;
        struct err e = {0};
        const struct prop_ctx x = {&env, t, &t->cases[i], d, &v, &e};
        memset(&v, 0, sizeof v);
        cr_assert(d->run(&x) == 0, "%s case %zu: grader error: %s", t->id, i, e.msg);
        if (!v.passed) {
            snprintf(msg, n, "%s: %s [hint: %s]", t->id, v.msg, v.hint);
            cr_assert(v.msg[0] != '\0', "%s failed without a message", t->id);
            return 0;
        }
    }
    return 1;
}

Test(props_a, reference_passes_every_case_of_both_specs)
{
    struct spec_set *s = load_ours();
    char msg[4096];

    cr_assert(spec_test_count(s) >= 40);
    for (size_t i = 0; i < spec_test_count(s); i++)
        cr_expect(test_passes(spec_test_at(s, i), impl_local(), msg, sizeof msg), "%s", msg);
    spec_set_free(s);
}

Test(props_a, points_total_32_public_and_22_hidden)
{
    struct spec_set *s = load_ours();
    double pub = 0, hid = 0;

    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        cr_expect(t->hint != NULL, "%s has no hint", t->id);
        if (strstr(t->file, "public.yaml"))
            pub += t->points;
        else
            hid += t->points;
    }
    cr_expect(fabs(pub - 32) < 1e-9, "public points %g", pub);
    cr_expect(fabs(hid - 22) < 1e-9, "hidden points %g", hid);
    spec_set_free(s);
}

/* ---- the catalogue ------------------------------------------------------- */

/* Whether `id` appears as a word in the header line starting with `tag`. */
static int header_lists(const char *src, const char *tag, const char *id)
{
    const char *line = strstr(src, tag), *eol;
    size_t n = strlen(id);

    if (line == NULL)
        return 0;
    eol = strchr(line, '\n');
    for (const char *p = line + strlen(tag); p && p < eol; p = strchr(p + 1, ' '))
        if (strncmp(p + 1, id, n) == 0 && (p[1 + n] == ' ' || p[1 + n] == '\n'))
            return 1;
    return 0;
}

/* Whether t is about the function an entry named "<fn>_<bug>" changes:
 * the entry's other functions are the reference's code, already checked. */
static int entry_concerns(const char *name, const struct spec_test *t)
{
    size_t n = strlen(t->function);

    return strncmp(name, t->function, n) == 0 && name[n] == '_';
}

/* Tests that an in-process impl cannot judge: it counts no allocations. */
static int in_process_blind(const struct spec_test *t)
{
    return strcmp(t->property, "no_leaks") == 0;
}

static void check_entry(const char *name)
{
    char path[512], err[256], msg[4096];
    struct impl_dl dl;
    struct spec_set *s = load_ours();
    size_t len;
    char *src;
    int discover = getenv("PA_DISCOVER") != NULL;

    snprintf(path, sizeof path, "%s/submissions/%s.c", TEST_CATDIR, name);
    src = slurp(path, &len);
    cr_assert(src != NULL && strstr(src, "/* CATALOGUE") == src, "%s: no header", name);
    cr_assert(impl_dl_open(&dl, path, err, sizeof err) == 0, "%s", err);
    if (discover)
        printf("DISCOVER %s:", name);
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        int passed, must_fail = header_lists(src, " * expect-fail:", t->id);
        if (!entry_concerns(name, t)) {
            cr_expect(!must_fail, "%s: lists '%s' of another function", name, t->id);
            continue;
        }
        passed = test_passes(t, impl_dl_impl(&dl), msg, sizeof msg);
        if (discover && !passed)
            printf(" %s", t->id);
        if (discover || in_process_blind(t) ||
            header_lists(src, " * expect-maybe:", t->id))
            continue;
        if (must_fail)
            cr_expect(!passed, "%s: '%s' should fail but passed", name, t->id);
        else
            cr_expect(passed, "%s: unexpected failure %s", name, msg);
    }
    if (discover)
        printf("\n");
    impl_dl_close(&dl);
    spec_set_free(s);
    free(src);
}

#define ENTRY(n) Test(props_a_catalogue, n) { check_entry(#n); }
ENTRY(softmax_float_ok)
ENTRY(sdpa_float_ok)
ENTRY(pe_float_ok)
ENTRY(softmax_no_max_shift)
ENTRY(softmax_wrong_axis)
ENTRY(softmax_exp_no_norm)
ENTRY(softmax_no_einval)
ENTRY(sdpa_no_scale)
ENTRY(sdpa_scale_by_d)
ENTRY(sdpa_transposed_index)
ENTRY(sdpa_inverted_mask)
ENTRY(sdpa_masked_nan)
ENTRY(sdpa_mask_minus_big)
ENTRY(sdpa_weights_unnormalised)
ENTRY(sdpa_weights_required)
ENTRY(sdpa_always_causal)
ENTRY(sdpa_late_v_check)
ENTRY(sdpa_leaks_scores)
ENTRY(pe_sin_cos_swapped)
ENTRY(pe_wrong_exponent)
ENTRY(pe_odd_d_cos)
ENTRY(pe_integer_division)
ENTRY(pe_ignores_position)
ENTRY(pe_missing_sin)

/* ---- in-test fakes for properties no realistic catalogue entry isolates -- */

/* The reference with one function replaced; `calls` counts calls. */
struct fake {
    struct impl_ops ops;
    int calls;
};

static void fake_done(struct impl_result *r, int rc)
{
    memset(r, 0, sizeof *r);
    r->status = CALL_RETURNED;
    r->rc = rc;
}

/* Normalises each query to unit length first: not bilinear in Q . K. */
static int fake_sdpa_qnorm(void *self, const float *Q, const float *K, const float *V,
                           size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                           const unsigned char *mask, float *out, float *w,
                           struct impl_result *r, struct err *e)
{
    float *q = malloc(n_q * d_k * sizeof *q);

    (void)self, (void)e;
    cr_assert(q != NULL);
    for (size_t i = 0; i < n_q; i++) {
        double norm = 0;
        for (size_t t = 0; t < d_k; t++)
            norm += (double)Q[i * d_k + t] * Q[i * d_k + t];
        for (size_t t = 0; t < d_k; t++)
            q[i * d_k + t] = (float)(Q[i * d_k + t] / sqrt(norm + 1e-30));
    }
    fake_done(r, attn_scaled_dot_product(q, K, V, n_q, n_k, d_k, d_v, mask, out, w));
    free(q);
    return 0;
}

/* Writes to its const Q after computing. */
static int fake_sdpa_writes_q(void *self, const float *Q, const float *K, const float *V,
                              size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                              const unsigned char *mask, float *out, float *w,
                              struct impl_result *r, struct err *e)
{
    (void)self, (void)e;
    fake_done(r, attn_scaled_dot_product(Q, K, V, n_q, n_k, d_k, d_v, mask, out, w));
    ((float *)Q)[n_q * d_k - 1] *= 0.5f;
    return 0;
}

/* A result that drifts from call to call. */
static int fake_softmax_drift(void *self, float *x, size_t rows, size_t cols,
                              struct impl_result *r, struct err *e)
{
    struct fake *f = self;

    (void)e;
    fake_done(r, attn_softmax_rows(x, rows, cols));
    x[0] = nextafterf(x[0], (float)(f->calls++ % 2));
    return 0;
}

static int fake_pe_drift(void *self, float *pe, size_t n, size_t d,
                         struct impl_result *r, struct err *e)
{
    struct fake *f = self;

    (void)e;
    fake_done(r, attn_positional_encoding(pe, n, d));
    pe[n * d - 1] = nextafterf(pe[n * d - 1], (float)(f->calls++ % 2) * 4 - 2);
    return 0;
}

static void expect_fails(struct spec_set *s, const char *id, struct fake *f)
{
    const struct spec_test *t = spec_find(s, id);
    struct impl im = {&f->ops, f};
    char msg[4096];

    cr_assert(t != NULL, "no test '%s'", id);
    cr_expect(!test_passes(t, im, msg, sizeof msg), "'%s' passed a fake built to fail it", id);
}

Test(props_a, generic_and_invariance_properties_can_fail)
{
    struct spec_set *s = load_ours();
    struct fake f = {*impl_local().ops, 0};

    f.ops.scaled_dot_product = fake_sdpa_qnorm;
    expect_fails(s, "sdpa.cq_k_over_c_invariance", &f);
    f.ops = *impl_local().ops;
    f.ops.scaled_dot_product = fake_sdpa_writes_q;
    expect_fails(s, "sdpa.inputs_unchanged", &f);
    f.ops = *impl_local().ops;
    f.ops.softmax_rows = fake_softmax_drift;
    expect_fails(s, "softmax.deterministic", &f);
    f.ops = *impl_local().ops;
    f.ops.positional_encoding = fake_pe_drift;
    expect_fails(s, "pe.deterministic", &f);
    spec_set_free(s);
}

/* A softmax whose running max starts at 0, not -INFINITY (issue 36): right
 * unless every logit of a row is below about -745, where exp underflows in
 * double and the row becomes 0/0. */
static int fake_softmax_max_at_zero(void *self, float *x, size_t rows, size_t cols,
                                    struct impl_result *r, struct err *e)
{
    (void)self, (void)e;
    for (size_t i = 0; i < rows; i++) {
        float *row = x + i * cols;
        double m = 0.0, sum = 0.0;
        for (size_t j = 0; j < cols; j++)
            m = row[j] > m ? row[j] : m;
        for (size_t j = 0; j < cols; j++)
            sum += exp(row[j] - m);
        for (size_t j = 0; j < cols; j++)
            row[j] = (float)(exp(row[j] - m) / sum);
    }
    fake_done(r, ATTN_OK);
    return 0;
}

/* A positional encoding whose angles are accumulated position by position
 * in float (angle += w): right on short sequences, off by about u p^2 w / 2
 * over thousands of positions. */
static int fake_pe_float_accumulated(void *self, float *pe, size_t n, size_t d,
                                     struct impl_result *r, struct err *e)
{
    (void)self, (void)e;
    for (size_t i = 0; i < d; i++) {
        float w = (float)pow(10000.0, -(double)(2 * (i / 2)) / (double)d), a = 0.0f;
        for (size_t p = 0; p < n; p++, a += w)
            pe[p * d + i] = (float)(i % 2 ? cos(a) : sin(a));
    }
    fake_done(r, ATTN_OK);
    return 0;
}

/* Head h's softmax of query i over the keys mask allows, on exp of the raw
 * scores (no max subtracted): NaN or 0 once a score passes about 709. */
static void unshifted_head(const double *q, const double *k, const double *v, size_t d,
                           size_t dh, size_t h, size_t i, size_t n_kv,
                           const unsigned char *mask, double *cat, float *w)
{
    double s = 0.0, *e = calloc(n_kv, sizeof *e);

    cr_assert(e != NULL);
    for (size_t j = 0; j < n_kv; j++) {
        double dot = 0.0;
        for (size_t t = h * dh; t < (h + 1) * dh; t++)
            dot += q[i * d + t] * k[j * d + t];
        e[j] = mask && !mask[i * n_kv + j] ? 0.0 : exp(dot / sqrt((double)dh));
        s += e[j];
    }
    for (size_t j = 0; j < n_kv; j++) {
        if (w)
            w[j] = s > 0 ? (float)(e[j] / s) : 0.0f;
        for (size_t t = h * dh; t < (h + 1) * dh && s > 0; t++)
            cat[i * d + t] += e[j] / s * v[j * d + t];
    }
    free(e);
}

static int fake_mha_unshifted(void *self, const float *Xq, size_t n_q, const float *Xkv,
                              size_t n_kv, size_t d, size_t heads, const float *Wq,
                              const float *Wk, const float *Wv, const float *Wo,
                              const unsigned char *mask, float *out, float *weights,
                              struct impl_result *r, struct err *e)
{
    double *q = calloc(n_q * d, sizeof *q), *k = calloc(n_kv * d, sizeof *k);
    double *v = calloc(n_kv * d, sizeof *v), *cat = calloc(n_q * d, sizeof *cat);
    float *catf = calloc(n_q * d, sizeof *catf);

    (void)self, (void)e;
    cr_assert(q && k && v && cat && catf);
    pu_matmul_d(Xq, Wq, n_q, d, d, q);
    pu_matmul_d(Xkv, Wk, n_kv, d, d, k);
    pu_matmul_d(Xkv, Wv, n_kv, d, d, v);
    for (size_t h = 0; h < heads; h++)
        for (size_t i = 0; i < n_q; i++)
            unshifted_head(q, k, v, d, d / heads, h, i, n_kv, mask, cat,
                           weights ? weights + (h * n_q + i) * n_kv : NULL);
    for (size_t i = 0; i < n_q * d; i++)
        catf[i] = (float)cat[i];
    pu_matmul_d(catf, Wo, n_q, d, d, cat);
    for (size_t i = 0; i < n_q * d; i++)
        out[i] = (float)cat[i];
    free(q), free(k), free(v), free(cat), free(catf);
    fake_done(r, ATTN_OK);
    return 0;
}

/* A block that takes eps = 0 for "no eps" and uses 1e-5: right unless a
 * row's variance before a norm is far below 1e-5. */
static int fake_block_eps_defaulted(void *self, float *X, size_t n, size_t d, size_t heads,
                                    size_t d_ff, const float *Wq, const float *Wk,
                                    const float *Wv, const float *Wo, const float *W1,
                                    const float *b1, const float *W2, const float *b2,
                                    const unsigned char *mask, float eps,
                                    struct impl_result *r, struct err *e)
{
    (void)self, (void)e;
    fake_done(r, attn_transformer_block(X, n, d, heads, d_ff, Wq, Wk, Wv, Wo, W1, b1, W2,
                                        b2, mask, eps == 0.0f ? 1e-5f : eps));
    return 0;
}

/* Both spec files whole (the domain tests of props-B's functions too). */
static struct spec_set *load_both(void)
{
    static const char *const files[] = {TEST_SRCDIR "/specs/public.yaml",
                                        TEST_SRCDIR "/specs/hidden.yaml"};
    struct spec_set *s = spec_set_new();
    struct err e = {0};

    cr_assert(s != NULL);
    for (size_t i = 0; i < 2; i++)
        cr_assert(spec_load(s, files[i], gprop_check_case, &e) == 0, "%s: %s", files[i], e.msg);
    return s;
}

/* One domain test, a known bug of its function that only the drawn domain
 * shows, and the family its failure must name. */
struct domain_row {
    const char *id, *family;
    void (*plant)(struct impl_ops *ops);
    int shrinks;    /* the failing draw is larger than the smallest that fails */
};

static void plant_softmax(struct impl_ops *o) { o->softmax_rows = fake_softmax_max_at_zero; }
static void plant_pe(struct impl_ops *o) { o->positional_encoding = fake_pe_float_accumulated; }
static void plant_mha(struct impl_ops *o) { o->multi_head = fake_mha_unshifted; }
static void plant_block(struct impl_ops *o) { o->transformer_block = fake_block_eps_defaulted; }

/* Run every case of t on `student` at run seed `seed`: 1 when all pass,
 * else 0 with the first failure's message in msg. */
static int domain_passes(const struct spec_test *t, struct impl student, uint64_t seed,
                         char *msg, size_t n)
{
    const struct prop_def *d = gprop_find(t->function, t->property);
    struct impl ref = impl_local();
    struct prop_env env = {.student = student, .reference = &ref, .seed = seed};

    cr_assert(d != NULL);
    for (size_t c = 0; c < t->n_cases; c++) {
        struct prop_verdict v;
        struct err e = {0};
        memset(&v, 0, sizeof v);
        cr_assert(d->run(&(const struct prop_ctx){&env, t, &t->cases[c], d, &v, &e}) == 0,
                  "%s: %s", t->id, e.msg);
        if (!v.passed) {
            snprintf(msg, n, "%s", v.msg);
            return 0;
        }
    }
    return 1;
}

/* softmax, pe, mha and block .domain: the reference passes every case at
 * several run seeds; a bug that only the drawn domain shows (a max started
 * at 0, angles accumulated in float, a head's softmax unshifted, eps = 0
 * taken for 1e-5) fails on the family meant for it, shrunk where halving
 * keeps it failing, and the same seed gives the same verdict (what the
 * reproduce line relies on). */
Test(props_a, domain_draws_the_whole_header_reproducibly)
{
    static const struct domain_row rows[] = {
        {"softmax.domain", "very negative", plant_softmax, 1},
        {"pe.domain", "large positions", plant_pe, 0},
        {"mha.domain", "scores up to +-1e4", plant_mha, 0},
        {"block.domain", "rows of variance", plant_block, 0},
    };
    struct spec_set *s = load_both();
    char msg[PROP_MSG_MAX], again[PROP_MSG_MAX];

    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const struct spec_test *t = spec_find(s, rows[i].id);
        struct fake f = {*impl_local().ops, 0};
        struct impl bad = {&f.ops, &f};
        cr_assert(t != NULL, "no test '%s'", rows[i].id);
        for (uint64_t seed = 1; seed <= 3; seed++)
            cr_expect(domain_passes(t, impl_local(), seed, msg, sizeof msg),
                      "the reference, seed %llu: %s", (unsigned long long)seed, msg);
        rows[i].plant(&f.ops);
        cr_expect(!domain_passes(t, bad, 7, msg, sizeof msg), "%s: the bug passed", t->id);
        cr_expect(strstr(msg, rows[i].family) != NULL, "%s: %s", t->id, msg);
        cr_expect(!rows[i].shrinks || strstr(msg, "shrunk from") != NULL,
                  "%s: not shrunk: %s", t->id, msg);
        cr_expect(!domain_passes(t, bad, 7, again, sizeof again));
        cr_expect_str_eq(again, msg, "%s: the same seed drew another case", t->id);
    }
    spec_set_free(s);
}

/* A verdict without the reference: the generic reference runners refuse. */
Test(props_a, reference_runners_need_the_reference)
{
    struct spec_set *s = load_ours();
    const struct spec_test *t = spec_find(s, "sdpa.matches_reference");
    struct prop_env env = {.student = impl_local(), .reference = NULL, .seed = 1};
    struct prop_verdict v;
    struct err e = {0};

    memset(&v, 0, sizeof v);
    cr_assert(t != NULL);
    cr_expect(pc_run_matches_reference(&(const struct prop_ctx){&env, t, &t->cases[0],
                                                                  NULL, &v, &e}) == -1);
    cr_expect(strstr(e.msg, "reference") != NULL);
    cr_expect(!v.passed);
    spec_set_free(s);
}

/* The generic runners on every function's standard call (default shapes,
 * and a masked variant), against the reference: all must pass. */
Test(props_a, generic_runners_pass_on_the_reference_for_all_six_functions)
{
    static const char *const fns[] = {"softmax", "sdpa", "pe", "mha", "layernorm", "block"};
    static const prop_run_fn runs[] = {pc_run_inputs_unchanged, pc_run_einval,
                                       pc_run_deterministic, pc_run_no_leaks,
                                       pc_run_matches_reference, pc_run_speed};
    struct spec_param mask = {.key = "mask", .kind = SPEC_STR, .str = "random"};
    struct spec_case cases[2] = {{NULL, 0, 0, 0}, {&mask, 1, 0, 0}};
    struct impl ref = impl_local();
    struct prop_env env = {.student = impl_local(), .reference = &ref, .seed = 3};

    for (size_t f = 0; f < 6; f++)
        for (size_t r = 0; r < 6; r++)
            for (size_t c = 0; c < 2; c++) {
                struct spec_test t = {.id = "x.generic", .function = fns[f],
                                      .property = "generic", .cases = cases,
                                      .n_cases = 2, .tolerance = 1e-6};
                struct prop_verdict v;
                struct err e = {0};
                const struct prop_ctx x = {&env, &t, &cases[c], NULL, &v, &e};
                memset(&v, 0, sizeof v);
                cr_expect(runs[r](&x) == 0, "%s runner %zu: %s", fns[f], r, e.msg);
                cr_expect(v.passed, "%s runner %zu case %zu: %s", fns[f], r, c, v.msg);
            }
}

/* ---- the property runner (pc_steps) --------------------------------------- */

static int steps_seen;   /* which steps ran, one bit each */

static int fill_fails(const struct prop_ctx *x, struct pc_call *k)
{
    (void)k;
    steps_seen |= 1;
    return pu_fail(x->v, "fill refused");
}

static int check_counts(const struct prop_ctx *x, struct pc_call *k, const char *label)
{
    (void)x, (void)label;
    steps_seen |= 2;
    return k->arg != NULL ? 1 : 0;
}

/* A verdict passes only when the check is reached and passes: a failing
 * fill stops the sequence before the call and the check; a row that names
 * pc_run_def without steps is a grader error, never a pass. */
Test(props_a, runner_passes_only_through_the_check)
{
    static const struct pc_prop stop = {ASG_SOFTMAX, NULL, fill_fails, NULL, check_counts};
    static const struct pc_prop go = {ASG_SOFTMAX, NULL, NULL, NULL, check_counts};
    const struct prop_def bare = {"softmax", "bare", pc_run_def, pc_generic_keys, 0, 0,
                                  "no steps", NULL, PROP_INVARIANT};
    struct spec_case c = {NULL, 0, 1, 1};
    struct spec_test t = {.id = "softmax.x", .function = "softmax", .property = "x",
                          .cases = &c, .n_cases = 1, .tolerance = -1};
    struct impl ref = impl_local();
    struct prop_env env = {.student = impl_local(), .reference = &ref, .seed = 1};
    struct prop_verdict v;
    struct err e = {0};
    const struct prop_ctx x = {&env, &t, &c, NULL, &v, &e};
    const struct prop_ctx xb = {&env, &t, &c, &bare, &v, &e};
    int state = 0;

    memset(&v, 0, sizeof v);
    steps_seen = 0;
    cr_expect_eq(pc_run(&x, &stop), 0);
    cr_expect(!v.passed && strcmp(v.msg, "fill refused") == 0, "%s", v.msg);
    cr_expect_eq(steps_seen, 1, "the check ran after a failed fill");

    memset(&v, 0, sizeof v);
    steps_seen = 0;
    cr_expect_eq(pc_steps(&x, &go, NULL), 0, "a check that fails is a failed run");
    cr_expect_eq(pc_steps(&x, &go, &state), 1);
    cr_expect(!v.passed, "pc_steps marked the verdict passed");
    cr_expect_eq(pc_run(&x, &go), 0);
    cr_expect(!v.passed, "a check returning 0 passed");
    cr_expect_eq(steps_seen, 2);

    cr_expect_eq(pu_outcome(pc_steps(&x, &go, &state), &v), 0);
    cr_expect(v.passed, "a check that passed did not pass the verdict");

    memset(&v, 0, sizeof v);
    cr_expect_eq(pc_run_def(&xb), -1);
    cr_expect(strstr(e.msg, "no steps") != NULL, "%s", e.msg);
    cr_expect(!v.passed);
}
