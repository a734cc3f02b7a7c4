/* A stand-in for runner_main.o in test_build: defines main and the grd_*
 * allocator, calls the submission and checks that (1) its allocations went
 * through grd_malloc & co, (2) the C library's memcmp and malloc are still
 * the real ones whatever the submission defined. Exit status 0 when all
 * holds, else the number of the failed check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"

#pragma weak attn_scaled_dot_product

static size_t allocs, frees;

void *grd_malloc(size_t n);
void *grd_calloc(size_t n, size_t size);
void *grd_realloc(void *p, size_t n);
void grd_free(void *p);

void *grd_malloc(size_t n) { allocs++; return malloc(n); }
void *grd_calloc(size_t n, size_t size) { allocs++; return calloc(n, size); }
void *grd_realloc(void *p, size_t n) { allocs++; return realloc(p, n); }
void grd_free(void *p) { if (p) frees++; free(p); }

int main(void)
{
    float q[2] = {1, 0}, k[4] = {1, 0, 0, 1}, v[4] = {1, 2, 3, 4}, out[2], row[3] = {1, 2, 3};
    static const char a[4] = "abc", b[4] = "abd";
    void *p = malloc(16);

    if (p == NULL || memcmp(a, b, 4) >= 0)
        return 1;                            /* libc's were interposed */
    free(p);
    if (attn_softmax_rows(row, 1, 3) == ATTN_OK &&
        fabsf(row[0] + row[1] + row[2] - 1.0f) > 1e-5f)
        return 2;
    if (attn_scaled_dot_product == NULL)
        return 0;                            /* a stub-only object */
    if (attn_scaled_dot_product(q, k, v, 1, 2, 2, 2, NULL, out, NULL) == ATTN_OK &&
        (allocs == 0 || allocs != frees))
        return 3;                            /* malloc not redirected */
    return 0;
}
