/* Correct code that prints diagnostics and leans on the C library in ways
 * compilers rewrite (printf -> puts, fprintf -> fwrite, memcmp == 0 -> bcmp,
 * sin + cos -> sincos, struct copies -> memcpy, isnan -> __isnan). */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stubs.inc"

struct big { float v[64]; };

static int same(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

float attn_debug_sum(const float *x, size_t n, struct big *dst, const struct big *src);
float attn_debug_sum(const float *x, size_t n, struct big *dst, const struct big *src)
{
    char buf[64];
    float s = 0.0f, c = 0.0f;
    *dst = *src;
    assert(x != NULL);
    printf("sum\n");
    fprintf(stderr, "debug\n");
    printf("%zu\n", n);
    snprintf(buf, sizeof buf, "%g", (double)n);
    puts(buf);
    for (size_t i = 0; i < n; i++) {
        s += sinf(x[i]) + cosf(x[i]);
        c += (float)(sin((double)x[i]) * cos((double)x[i]));
        if (isnan(x[i]) || isinf(x[i]) || signbit(x[i]))
            return NAN;
    }
    char *tmp = calloc(n + 1, 1);
    if (tmp) { memset(tmp, 'a', n); tmp = realloc(tmp, n + 2); s += (float)strlen(tmp); free(tmp); }
    return same(x, x, n) ? s + c + fabsf(tanhf(s)) + expf(c) + logf(1.0f + fabsf(s)) : 0.0f;
}
