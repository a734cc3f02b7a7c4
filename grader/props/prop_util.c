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

double pu_rng_gauss(struct pu_rng *r)
{
    double u1 = 1.0 - pu_rng_uniform(r); /* (0, 1]: log is finite */
    double u2 = pu_rng_uniform(r);

    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
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

int pu_returned_ok(struct prop_verdict *v, const struct call_result *r,
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

void pu_softmax_d(const double *in, double *out, size_t n,
                  const unsigned char *mask)
{
    double mx = -INFINITY, sum = 0.0;

    for (size_t j = 0; j < n; j++)
        if ((!mask || mask[j]) && in[j] > mx)
            mx = in[j];
    for (size_t j = 0; j < n; j++) {
        out[j] = (!mask || mask[j]) ? exp(in[j] - mx) : 0.0;
        sum += out[j];
    }
    for (size_t j = 0; j < n; j++)
        out[j] = sum > 0.0 ? out[j] / sum : 0.0;
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

int pu_sdpa_d(const float *Q, const float *K, const float *V, size_t n_q,
              size_t n_k, size_t d_k, size_t d_v, const unsigned char *mask,
              double scale, double *out, double *w)
{
    double *s = calloc(n_k, sizeof *s), *p = calloc(n_k, sizeof *p);

    if (s == NULL || p == NULL) {
        free(s);
        free(p);
        return -1;
    }
    for (size_t i = 0; i < n_q; i++) {
        for (size_t j = 0; j < n_k; j++) {
            double dot = 0.0;
            for (size_t t = 0; t < d_k; t++)
                dot += (double)Q[i * d_k + t] * (double)K[j * d_k + t];
            s[j] = dot * scale;
        }
        pu_softmax_d(s, p, n_k, mask ? mask + i * n_k : NULL);
        for (size_t c = 0; c < d_v; c++) {
            double acc = 0.0;
            for (size_t j = 0; j < n_k; j++)
                acc += p[j] * (double)V[j * d_v + c];
            out[i * d_v + c] = acc;
        }
        if (w != NULL)
            memcpy(w + i * n_k, p, n_k * sizeof *p);
    }
    free(s);
    free(p);
    return 0;
}

void pu_layernorm_d(const double *in, double *out, size_t cols, double eps)
{
    double mean = 0.0, var = 0.0;

    for (size_t j = 0; j < cols; j++)
        mean += in[j];
    mean /= (double)cols;
    for (size_t j = 0; j < cols; j++)
        var += (in[j] - mean) * (in[j] - mean);
    var /= (double)cols;
    for (size_t j = 0; j < cols; j++)
        out[j] = var + eps > 0.0 ? (in[j] - mean) / sqrt(var + eps) : 0.0;
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
