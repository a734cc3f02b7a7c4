/* A correct attn_softmax_rows, shared by the hostile fixtures so that a
 * test can check that a fresh runner works after an attack. */
#include <math.h>

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    size_t r, c;

    if (x == NULL || rows == 0 || cols == 0)
        return ATTN_EINVAL;
    for (r = 0; r < rows; r++) {
        float *row = x + r * cols, m = row[0], sum = 0.0f;

        for (c = 1; c < cols; c++)
            m = row[c] > m ? row[c] : m;
        for (c = 0; c < cols; c++)
            sum += (row[c] = expf(row[c] - m));
        for (c = 0; c < cols; c++)
            row[c] /= sum;
    }
    return ATTN_OK;
}
