/* batch fixture: does not compile (a missing semicolon and an unknown type) */
#include "attention.h"

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    flaot y = 0
    (void)x, (void)rows, (void)cols;
    return ATTN_OK;
}
