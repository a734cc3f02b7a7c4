/*
 * attention.c -- your implementation of attention.h.
 *
 * Every function below is a stub that returns ATTN_ENOTIMPL. Replace the
 * body (and the `(void)` lines, which only silence "unused parameter"
 * warnings) with your code. Suggested order: softmax, scaled dot-product,
 * positional encoding, layer norm, multi-head, transformer block -- each
 * builds on the ones before.
 *
 * Read attention.h first: it is the contract the grader checks, down to
 * which calls must return ATTN_EINVAL and write nothing.
 */
#include "attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int attn_softmax_rows(float *x, size_t rows, size_t cols)
{
    /*
     * TODO: turn each row of scores into weights: non-negative, summing
     * to one. Subtract the row's maximum before exponentiating: softmax
     * does not change when a constant is added to a whole row, and
     * exp(1e4) overflows to Inf (then Inf / Inf = NaN).
     */
    (void)x;
    (void)rows;
    (void)cols;
    return ATTN_ENOTIMPL;
}

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    /*
     * TODO: a weighted average of values, where the weight of each value
     * is larger the more the query resembles its key. Similarity is the
     * dot product Q_i . K_j; divide it by sqrt(d_k), or for large d_k the
     * scores spread out and softmax saturates into one-hot. A hidden key
     * (mask 0) gets weight exactly 0; a query that sees no key at all gets
     * an output row of zeros, not 0/0.
     */
    (void)Q;
    (void)K;
    (void)V;
    (void)n_q;
    (void)n_k;
    (void)d_k;
    (void)d_v;
    (void)mask;
    (void)out;
    (void)weights;
    return ATTN_ENOTIMPL;
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    /*
     * TODO: attention on its own does not see the order of words -- permute
     * the rows and the output permutes the same way. Give each position p
     * its own vector of sines and cosines of different frequencies, so the
     * same word at two places enters the sum differently. Columns 2k and
     * 2k+1 share one frequency; with odd d the last column is a sine.
     */
    (void)pe;
    (void)n;
    (void)d;
    return ATTN_ENOTIMPL;
}

int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights)
{
    /*
     * TODO: one attention holds one kind of link; several heads attend in
     * parallel, each in its own slice of the columns of Q = Xq.Wq,
     * K = Xkv.Wk, V = Xkv.Wv, with scale 1/sqrt(d_model / heads). Put the
     * heads' outputs side by side, in order, and multiply by Wo. Reuse
     * your scaled dot-product; free every temporary you allocate.
     */
    (void)Xq;
    (void)n_q;
    (void)Xkv;
    (void)n_kv;
    (void)d_model;
    (void)heads;
    (void)Wq;
    (void)Wk;
    (void)Wv;
    (void)Wo;
    (void)mask;
    (void)out;
    (void)weights;
    return ATTN_ENOTIMPL;
}

int attn_layer_norm(float *x, size_t rows, size_t cols, float eps)
{
    /*
     * TODO: normalisation keeps the scale of the activations in check from
     * block to block: shift each row to mean 0 and scale it to variance 1
     * (divide by cols, not cols - 1). Compute the mean first, then the
     * variance around it. A constant row with eps = 0 must become zeros,
     * not 0/0 = NaN.
     */
    (void)x;
    (void)rows;
    (void)cols;
    (void)eps;
    return ATTN_ENOTIMPL;
}

int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps)
{
    /*
     * TODO: attention mixes information between words, the MLP processes
     * each word on its own. Around each sublayer, the residual connection
     * adds its output to its input (a short road for the gradient) and
     * the norm follows: X <- LN(X + MHA(X, X)), then X <- LN(X + FFN(X)).
     * Validate everything before you write to X.
     */
    (void)X;
    (void)n;
    (void)d_model;
    (void)heads;
    (void)d_ff;
    (void)Wq;
    (void)Wk;
    (void)Wv;
    (void)Wo;
    (void)W1;
    (void)b1;
    (void)W2;
    (void)b2;
    (void)mask;
    (void)eps;
    return ATTN_ENOTIMPL;
}
