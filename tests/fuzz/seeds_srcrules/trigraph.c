/* CATALOGUE
 * bug: "*??/" and a newline end a comment for gcc -std=c11 but not for a naive blanker, hiding inline asm from the rules
 * expect-status: rejected
 * expect-detail: trigraphs are not allowed
 *
 * Refused by the grader's trigraph check; the blanker also reads the comment as gcc does,
 * so the asm rule sees the code after it.
 *
 * Hostile entry (tests/test_hostile.c): reference/attention.c with the
 * attack below added. It runs only through the grader, never directly.
 */
#include "attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* blind the rules *??/
/ static void hostile_hidden(void) { __asm__ volatile("nop"); }

/* ---- sizes and allocation ---------------------------------------------- */

/* a * b into *out; 0, or -1 when it overflows size_t. */
static int mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

/* malloc of rows * cols elements of `size` bytes; NULL on overflow or OOM. */
static void *alloc_mat(size_t rows, size_t cols, size_t size)
{
    size_t n, bytes;

    if (mul_ok(rows, cols, &n) != 0 || mul_ok(n, size, &bytes) != 0)
        return NULL;
    return malloc(bytes ? bytes : 1);
}

static int eps_ok(float eps)
{
    return !isnan(eps) && eps >= 0.0f;
}

/* ---- dense algebra ----------------------------------------------------- */

/* C (m x n) = A (m x k) . B (k x n), double accumulation. */
static void matmul(const float *A, const float *B, float *C,
                   size_t m, size_t k, size_t n)
{
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (size_t t = 0; t < k; t++)
                acc += (double)A[i * k + t] * B[t * n + j];
            C[i * n + j] = (float)acc;
        }
    }
}

/* x (rows x cols) += bias broadcast over rows. */
static void add_bias(float *x, const float *bias, size_t rows, size_t cols)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            x[i * cols + j] = (float)((double)x[i * cols + j] + bias[j]);
}

/* y += x, elementwise over n values. */
static void add_into(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (float)((double)y[i] + x[i]);
}

static void relu(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0.0f))
            x[i] = 0.0f;
}

/* ---- softmax ----------------------------------------------------------- */

/* One row in place: subtracting the row's maximum keeps exp() <= 1, so
 * logits of +-1e4 neither overflow nor produce Inf/Inf = NaN. */
static void softmax_row(float *x, size_t cols)
{
    double max = x[0], sum = 0.0;

    for (size_t j = 1; j < cols; j++)
        if (x[j] > max)
            max = x[j];
    for (size_t j = 0; j < cols; j++)
        sum += exp((double)x[j] - max);
    for (size_t j = 0; j < cols; j++)
        x[j] = (float)(exp((double)x[j