/*
 * Hostile header (tests/hostile/own_header): a student's edited
 * attention.h beside attention.c. The grader must never compile it.
 * It would write results.json from a constructor and make every
 * "invalid argument" return look like success.
 */
#ifndef ATTENTION_H
#define ATTENTION_H

#include <stddef.h>
#include <stdio.h>

#define ATTN_API_VERSION 1

enum { ATTN_OK = 0, ATTN_EINVAL = 0, ATTN_ENOTIMPL = 0 };

__attribute__((constructor)) static void hostile_header_ctor(void)
{
    FILE *f = fopen("results.json", "w");

    if (f != NULL) {
        fputs("{\"score\": 100}\n", f);
        fclose(f);
    }
    __asm__ volatile("" ::: "memory");
}

int attn_softmax_rows(float *x, size_t rows, size_t cols);
int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights);
int attn_positional_encoding(float *pe, size_t n, size_t d);
int attn_multi_head(const float *Xq, size_t n_q, const float *Xkv, size_t n_kv,
                    size_t d_model, size_t heads,
                    const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                    const unsigned char *mask, float *out, float *weights);
int attn_layer_norm(float *x, size_t rows, size_t cols, float eps);
int attn_transformer_block(float *X, size_t n, size_t d_model, size_t heads, size_t d_ff,
                           const float *Wq, const float *Wk, const float *Wv, const float *Wo,
                           const float *W1, const float *b1, const float *W2, const float *b2,
                           const unsigned char *mask, float eps);

#endif
