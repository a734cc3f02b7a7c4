/* prop_util.c -- see prop_util.h. */
#include "props/prop_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void pu_rng_seed(struct pu_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

uint64_t pu_rng_u64(struct pu_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double pu_rng_uniform(struct pu_rng *r)
{
    return (double)(pu_rng_u64(r) >> 11) * 0x1.0p-53;
}

/* Marsaglia's polar method: no trigonometry (the student build has none,
 * see tests/template.sh); the second deviate is dropped so that every call
 * consumes whole draws and a case's inputs depend on its seed alone. */
double pu_rng_gauss(struct pu_rng *r)
{
    double u, v, s;

    do {
        u = 2.0 * pu_rng_uniform(r) - 1.0;
        v = 2.0 * pu_rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * sqrt(-2.0 * log(s) / s);
}

size_t pu_rng_below(struct pu_rng *r, size_t n)
{
    return (size_t)(pu_rng_uniform(r) * (double)n) % n;
}

/* FNV-1a: a stable hash of the test id for seeding. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

uint64_t pu_case_seed(const struct prop_env *env, const struct spec_test *t,
                      const struct spec_case *c)
{
    uint64_t x = env->seed ^ fnv1a(t->id);
    uint64_t s = (uint64_t)spec_num(c, "seed", 1.0);

    x ^= splitmix64(&s);
    return splitmix64(&x);
}

int pu_mul(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

float *pu_floats(size_t n)
{
    size_t bytes;

    if (pu_mul(n ? n : 1, sizeof(float), &bytes) < 0)
        return NULL;
    return calloc(1, bytes);
}

unsigned char *pu_bytes(size_t n)
{
    return calloc(n ? n : 1, 1);
}

void pu_fill_gauss(float *x, size_t n, struct pu_rng *r, double scale)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)(scale * pu_rng_gauss(r));
}

void pu_permutation(size_t *p, size_t n, struct pu_rng *r)
{
    for (size_t i = 0; i < n; i++)
        p[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = pu_rng_below(r, i);
        size_t tmp = p[i - 1];
        p[i - 1] = p[j];
        p[j] = tmp;
    }
}

int pu_close(double expected, double actual, double atol, double rtol)
{
    if (isnan(expected) || isnan(actual))
        return 0;
    if (isinf(expected) || isinf(actual))
        return expected == actual;
    return fabs(actual - expected) <= atol + rtol * fabs(expected);
}

int pu_fail(struct prop_verdict *v, const char *fmt, ...)
{
    va_list ap;

    v->passed = 0;
    va_start(ap, fmt);
    vsnprintf(v->msg, sizeof v->msg, fmt, ap);
    va_end(ap);
    return 0;
}

void pu_hint(struct prop_verdict *v, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(v->hint, sizeof v->hint, fmt, ap);
    va_end(ap);
}

int pu_pass(struct prop_verdict *v)
{
    v->passed = 1;
    v->msg[0] = '\0';
    return 0;
}

int pu_outcome(int ok, struct prop_verdict *v)
{
    if (ok < 0)
        return -1;
    return ok ? pu_pass(v) : 0;
}

int pu_returned_ok(struct prop_verdict *v, const struct impl_result *r,
                   const char *fn)
{
    v->call = *r;
    if (r->status != CALL_RETURNED) {
        pu_fail(v, "%s %s%s%s", fn, impl_status_name(r->status),
                r->detail[0] ? ": " : "", r->detail);
        return 0;
    }
    if (r->rc == ATTN_ENOTIMPL) {
        v->not_implemented = 1;
        pu_fail(v, "%s is not implemented yet (returned ATTN_ENOTIMPL)", fn);
        return 0;
    }
    if (r->rc != ATTN_OK) {
        pu_fail(v, "%s returned %d for valid arguments; expected ATTN_OK (0)",
                fn, r->rc);
        return 0;
    }
    return 1;
}

size_t pu_first_nonfinite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return i;
    return n;
}

size_t pu_size(const struct spec_case *c, const char *key, size_t def)
{
    double v = spec_num(c, key, (double)def);

    return v < 0 ? 0 : (size_t)llround(v);
}

void pu_matmul_d(const float *A, const float *B, size_t n, size_t k, size_t m,
                 double *C)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            double acc = 0.0;
            for (size_t t = 0; t < k; t++)
                acc += (double)A[i * k + t] * (double)B[t * m + j];
            C[i * m + j] = acc;
        }
}

int pu_no_oracle(struct prop_verdict *v, const char *what)
{
    pu_fail(v, "no expected value for %s: the golden data (specs/public.golden) holds "
            "only the public spec's own inputs at its seed", what);
    pu_hint(v, "grade with the spec and --seed the golden data was made for (make "
            "template made it); the course's grader computes this case itself");
    return 0;
}

int pu_fill_mask(unsigned char *m, size_t n_q, size_t n_kv,
                 const char *kind, struct pu_rng *r)
{
    int causal = strcmp(kind, "causal") == 0, bytes = strcmp(kind, "bytes") == 0;

    if (!causal && !bytes && strcmp(kind, "random") != 0 && strcmp(kind, "full_row") != 0)
        return -1;
    for (size_t i = 0; i < n_q; i++)
        for (size_t j = 0; j < n_kv; j++)
            m[i * n_kv + j] = causal ? j <= i
                                     : (j == 0 || pu_rng_uniform(r) < 0.7);
    /* any nonzero byte means visible (attention.h): 255, 2, 128, ... */
    for (size_t i = 0; bytes && i < n_q * n_kv; i++)
        if (m[i])
            m[i] = (unsigned char)(i % 3 == 0 ? 255 : i % 3 == 1 ? 2 : 1 + pu_rng_below(r, 255));
    if (strcmp(kind, "full_row") == 0)
        memset(m, 0, n_kv);
    return 0;
}

double pu_max_abs_diff_fd(const float *a, const double *b, size_t n, size_t *at)
{
    double worst = 0.0;

    *at = n;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (isnan(d))
            d = INFINITY;
        if (*at == n || d > worst) {
            worst = d;
            *at = i;
        }
    }
    return worst;
}
