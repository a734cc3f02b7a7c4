/*
 * oracle.h -- every expected value a property needs from trusted math goes
 * through here; prefix orc_. The properties ask it; the layers above make
 * one (cli/ picks compute or replay, grade/ hands it to the properties).
 *
 * In the staff build the oracle computes in double (oracle/trusted.c, which
 * is never shipped). In the student build there is no such code -- it
 * would be an answer key -- and the oracle answers from golden data
 * (golden.h) that `make template` recorded with the staff build on the
 * same inputs: each computation is looked up by a hash of its kind, sizes,
 * scale or eps, and input bytes. Inputs that were never recorded (a
 * different seed, or inputs derived from a student's own outputs) give
 * ORC_MISSING, never a guess.
 *
 * Every function returns 0 (outputs written), ORC_MISSING (outputs
 * untouched) or -1 when out of memory (e set where an e is taken).
 */
#ifndef GRD_ORACLE_H
#define GRD_ORACLE_H

#include <stddef.h>

#include "core/err.h"
#include "oracle/golden.h"

#define ORC_MISSING 1

/* The shapes and wrong variants of multi-head attention orc_mha computes
 * (the properties of mha and block build them). */
struct orc_mha_dims {
    size_t n_q, n_kv, d_model, heads; /* heads > 0 divides d_model */
};

/* How a head reads Q, K and V (and writes the concatenation): the right
 * way (column blocks) and the usual wrong ones, for diagnosis. */
enum orc_mha_slicing { ORC_SL_BLOCKS, ORC_SL_INTERLEAVED, ORC_SL_ROWS };

struct orc_mha_variant {
    enum orc_mha_slicing sl;       /* how a head reads Q, K, V */
    enum orc_mha_slicing cat_sl;   /* how it writes the concatenation */
    int scale_by_dmodel;   /* 1/sqrt(d_model) instead of 1/sqrt(d_head) */
    int no_wo;             /* out = concat(heads), no final projection */
};

enum orc_mode {
    ORC_COMPUTE = 0, /* staff: compute, keep nothing */
    ORC_RECORD,      /* staff: compute and keep every result in the store */
    ORC_REPLAY       /* answer from the store only (the student build) */
};

/* How a grading run reaches its oracle (prop_env.orc). A NULL oracle is
 * ORC_COMPUTE in the staff build and has no data in the student build. */
struct orc {
    enum orc_mode mode;
    struct gold *store;      /* RECORD: filled; REPLAY: read */
};

/* Whether this build can compute (1, staff) or only replay (0). */
int orc_can_compute(void);

/* The usual wrong layer-norm formulas, for diagnosis (and the right one). */
enum orc_ln {
    ORC_LN_RIGHT = 0,        /* (x - mean) / sqrt(var + eps), var over cols */
    ORC_LN_SAMPLE,           /* the variance over cols - 1 */
    ORC_LN_EPS_OUTSIDE,      /* (x - mean) / (sqrt(var) + eps) */
    ORC_LN_NO_MEAN,          /* x / sqrt(var + eps) */
    ORC_LN_BY_VAR,           /* (x - mean) / (var + eps) */
    ORC_LN_COUNT
};

/* The positional encoding and a wrong one, for diagnosis. */
enum orc_pe {
    ORC_PE_RIGHT = 0,        /* sin/cos(p / 10000^(2 floor(i/2) / d)) */
    ORC_PE_EXPONENT_I,       /* the exponent i/d instead of 2 floor(i/2)/d */
    ORC_PE_COUNT
};

/* A transformer block's inputs (attention.h's attn_transformer_block). */
struct orc_block {
    size_t n, d, heads, d_ff;
    double eps;
    const float *x0;         /* n x d, the input */
    const float *w[4];       /* Wq, Wk, Wv, Wo: d x d */
    const float *w1, *b1, *w2, *b2;
    const unsigned char *mask; /* NULL or n x n */
};

/* What a block variant leaves out or changes (all 0: the right block). */
struct orc_bvariant {
    int prenorm, no_relu, no_b1, no_b2, no_residual;
};

/*
 * Scaled dot-product attention with an explicit scale: out (n_q x d_v) and,
 * when w != NULL, the weights (n_q x n_k); mask NULL or n_q x n_k (0 hides;
 * an all-hidden row gives zeros).
 */
int orc_sdpa(struct orc *o, const float *Q, const float *K, const float *V,
             size_t n_q, size_t n_k, size_t d_k, size_t d_v,
             const unsigned char *mask, double scale, double *out, double *w)
    __attribute__((warn_unused_result));

/* Layer norm of one row of `cols` values by formula g (a row whose
 * denominator is 0 gives zeros). */
int orc_layernorm(struct orc *o, enum orc_ln g, const double *in, double *out,
                  size_t cols, double eps) __attribute__((warn_unused_result));

/* Multi-head attention computed the way `va` says (above): out
 * (n_q x d_model) and, when weights != NULL, heads x n_q x n_kv. */
int orc_mha(struct orc *o, const struct orc_mha_dims *s, const struct orc_mha_variant *va,
            const double *xq, const double *xkv, const float *const w[4],
            const unsigned char *mask, double *out, double *weights)
    __attribute__((warn_unused_result));

/* The whole block (variant va; NULL: the right one) into out (n x d). */
int orc_block(struct orc *o, const struct orc_block *b, const struct orc_bvariant *va,
              double *out) __attribute__((warn_unused_result));

/* The n x d positional encoding by formula g into out. */
int orc_pe(struct orc *o, enum orc_pe g, size_t n, size_t d, double *out)
    __attribute__((warn_unused_result));

/* The key of one computation: a hash of its tag and arguments, built with
 * orc_key_* (used by the diagnosis for its own entries). */
struct orc_key {
    struct sha256_ctx c;
};
void orc_key_init(struct orc_key *k, const char *tag);
void orc_key_size(struct orc_key *k, size_t v);
void orc_key_bytes(struct orc_key *k, const void *p, size_t n); /* p may be NULL */
void orc_key_final(struct orc_key *k, unsigned char out[GOLD_KEY_LEN]);

#endif
