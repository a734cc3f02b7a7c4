/* CATALOGUE
 * bug: no implementation at all: positional encoding writes the public spec's published pe.values answers when (n, d) is one of its two cases, and every other function and input is not implemented
 * expect-fail-functions: softmax sdpa pe layernorm mha block
 *
 * Issue 29, item 3. PE takes no input data, so the published (n, d)
 * pairs and their expected outputs are the whole of pe.values, and this
 * scored 1.5 points on the old main with nothing implemented. The staff
 * build's pe.values now also compares PE on a shape drawn from the run's
 * seed with the reference (prop_pe.c, check_seeded): 0 points, with the
 * public spec alone and with the hidden one.
 *
 * Hostile entry (tests/test_hostile.c). It runs only through the grader,
 * never directly.
 */
#include "attention.h"

#include <stddef.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    static const float one_by_six[] = { 0, 1, 0, 1, 0, 1 };
    static const float two_by_four[] = { 0, 1, 0, 1, 0.8414709848078965f,
                                         0.5403023058681398f, 0.009999833334166664f,
                                         0.9999500004166653f };

    if (pe != NULL && n == 1 && d == 6) {
        for (size_t i = 0; i < 6; i++)
            pe[i] = one_by_six[i];
        return ATTN_OK;
    }
    if (pe != NULL && n == 2 && d == 4) {
        for (size_t i = 0; i < 8; i++)
            pe[i] = two_by_four[i];
        return ATTN_OK;
    }
    return ATTN_ENOTIMPL;
}
