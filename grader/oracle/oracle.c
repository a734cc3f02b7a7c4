/* oracle.c -- see oracle.h. */
#include "oracle/oracle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if GRADER_STAFF
#include "oracle/trusted.h"
#endif

int orc_can_compute(void)
{
    return GRADER_STAFF;
}

void orc_key_init(struct orc_key *k, const char *tag)
{
    sha256_init(&k->c);
    sha256_update(&k->c, tag, strlen(tag) + 1);
}

void orc_key_size(struct orc_key *k, size_t v)
{
    uint64_t x = (uint64_t)v;

    sha256_update(&k->c, &x, sizeof x);
}

/* A NULL array hashes differently from every array, an empty one too. */
void orc_key_bytes(struct orc_key *k, const void *p, size_t n)
{
    orc_key_size(k, p == NULL ? SIZE_MAX : n);
    if (p != NULL)
        sha256_update(&k->c, p, n);
}

void orc_key_final(struct orc_key *k, unsigned char out[GOLD_KEY_LEN])
{
    unsigned char d[SHA256_DIGEST_LEN];

    sha256_final(&k->c, d);
    memcpy(out, d, GOLD_KEY_LEN);
}

static void key_double(struct orc_key *k, double x)
{
    sha256_update(&k->c, &x, sizeof x);
}

/* Up to three output arrays of one computation. */
struct outs {
    double *p[3];
    size_t n[3];
    size_t count;
};

static size_t outs_total(const struct outs *o)
{
    size_t t = 0;

    for (size_t i = 0; i < o->count; i++)
        t += o->n[i];
    return t;
}

/* Copy the stored vector under key into the outputs; ORC_MISSING when it is
 * absent or has another length. */
static int fetch(const struct orc *o, const unsigned char key[GOLD_KEY_LEN],
                 const struct outs *out)
{
    size_t n, at = 0;
    const double *v = gold_get(o ? o->store : NULL, key, &n);

    if (v == NULL || n != outs_total(out))
        return ORC_MISSING;
    for (size_t i = 0; i < out->count; i++) {
        memcpy(out->p[i], v + at, out->n[i] * sizeof *v);
        at += out->n[i];
    }
    return 0;
}

/* In RECORD mode, keep the outputs under key. 0 or -1. */
static int keep(struct orc *o, const unsigned char key[GOLD_KEY_LEN], const struct outs *out)
{
    size_t total = outs_total(out), at = 0;
    double *v;
    int rc;

    if (o == NULL || o->mode != ORC_RECORD || o->store == NULL)
        return 0;
    if ((v = malloc((total ? total : 1) * sizeof *v)) == NULL)
        return -1;
    for (size_t i = 0; i < out->count; i++) {
        memcpy(v + at, out->p[i], out->n[i] * sizeof *v);
        at += out->n[i];
    }
    rc = gold_put(o->store, key, v, total, NULL);
    free(v);
    return rc;
}

/* Whether this call computes (staff, not replaying). */
static int computes(const struct orc *o)
{
    return orc_can_compute() && (o == NULL || o->mode != ORC_REPLAY);
}

/* Whether the call needs its key: to fetch (replay) or to keep (record).
 * A staff grade computes and keeps nothing, and hashing the inputs cost it
 * a quarter of its CPU time (the large scale_across_d cases). */
static int keyed(const struct orc *o)
{
    return !computes(o) || (o != NULL && o->mode == ORC_RECORD && o->store != NULL);
}

int orc_sdpa(struct orc *o, const float *Q, const float *K, const float *V,
             size_t n_q, size_t n_k, size_t d_k, size_t d_v,
             const unsigned char *mask, double scale, double *out, double *w)
{
    double *wb = w ? w : calloc(n_q * n_k + 1, sizeof *wb);
    struct outs res = {{out, wb, NULL}, {n_q * d_v, n_q * n_k, 0}, 2};
    unsigned char key[GOLD_KEY_LEN] = {0};
    struct orc_key k;
    int rc = -1;

    if (wb == NULL)
        return -1;
    if (keyed(o)) {
        orc_key_init(&k, "sdpa");
        orc_key_size(&k, n_q), orc_key_size(&k, n_k), orc_key_size(&k, d_k);
        orc_key_size(&k, d_v), key_double(&k, scale);
        orc_key_bytes(&k, Q, n_q * d_k * sizeof *Q), orc_key_bytes(&k, K, n_k * d_k * sizeof *K);
        orc_key_bytes(&k, V, n_k * d_v * sizeof *V), orc_key_bytes(&k, mask, mask ? n_q * n_k : 0);
        orc_key_final(&k, key);
    }
    if (!computes(o))
        rc = fetch(o, key, &res);
#if GRADER_STAFF
    else if ((rc = trm_sdpa(Q, K, V, n_q, n_k, d_k, d_v, mask, scale, out, wb)) == 0)
        rc = keep(o, key, &res);
#endif
    if (w == NULL)
        free(wb);
    return rc;
}

int orc_layernorm(struct orc *o, enum orc_ln g, const double *in, double *out,
                  size_t cols, double eps)
{
    struct outs res = {{out, NULL, NULL}, {cols, 0, 0}, 1};
    unsigned char key[GOLD_KEY_LEN] = {0};
    struct orc_key k;

    if (keyed(o)) {
        orc_key_init(&k, "layernorm");
        orc_key_size(&k, (size_t)g), orc_key_size(&k, cols), key_double(&k, eps);
        orc_key_bytes(&k, in, cols * sizeof *in);
        orc_key_final(&k, key);
    }
    if (!computes(o))
        return fetch(o, key, &res);
#if GRADER_STAFF
    if (trm_layernorm(g, in, out, cols, eps) < 0)
        return -1;
#endif
    return keep(o, key, &res);
}

static void key_mha(struct orc_key *k, const struct orc_mha_dims *s,
                    const struct orc_mha_variant *va, const double *xq, const double *xkv,
                    const float *const w[4], const unsigned char *mask,
                    unsigned char key[GOLD_KEY_LEN])
{
    const size_t dd = s->d_model * s->d_model;

    orc_key_init(k, "mha");
    orc_key_size(k, s->n_q), orc_key_size(k, s->n_kv), orc_key_size(k, s->d_model);
    orc_key_size(k, s->heads), orc_key_size(k, (size_t)va->sl);
    orc_key_size(k, (size_t)va->cat_sl), orc_key_size(k, (size_t)va->scale_by_dmodel);
    orc_key_size(k, (size_t)va->no_wo);
    orc_key_bytes(k, xq, s->n_q * s->d_model * sizeof *xq);
    orc_key_bytes(k, xkv, s->n_kv * s->d_model * sizeof *xkv);
    for (int i = 0; i < 4; i++)
        orc_key_bytes(k, w[i], dd * sizeof *w[i]);
    orc_key_bytes(k, mask, mask ? s->n_q * s->n_kv : 0);
    orc_key_final(k, key);
}

int orc_mha(struct orc *o, const struct orc_mha_dims *s, const struct orc_mha_variant *va,
            const double *xq, const double *xkv, const float *const w[4],
            const unsigned char *mask, double *out, double *weights)
{
    const size_t nw = s->heads * s->n_q * s->n_kv;
    double *wb = weights ? weights : calloc(nw ? nw : 1, sizeof *wb);
    struct outs res = {{out, wb, NULL}, {s->n_q * s->d_model, nw, 0}, 2};
    unsigned char key[GOLD_KEY_LEN] = {0};
    struct orc_key k;
    int rc = -1;

    if (wb == NULL)
        return -1;
    if (keyed(o))
        key_mha(&k, s, va, xq, xkv, w, mask, key);
    if (!computes(o))
        rc = fetch(o, key, &res);
#if GRADER_STAFF
    else if ((rc = trm_mha(s, va, xq, xkv, w, mask, out, wb)) == 0)
        rc = keep(o, key, &res);
#endif
    if (weights == NULL)
        free(wb);
    return rc;
}

static void key_block(struct orc_key *k, const struct orc_block *b,
                      const struct orc_bvariant *va)
{
    const size_t dd = b->d * b->d;

    orc_key_init(k, "block");
    orc_key_size(k, b->n), orc_key_size(k, b->d), orc_key_size(k, b->heads);
    orc_key_size(k, b->d_ff), key_double(k, b->eps);
    orc_key_size(k, (size_t)va->prenorm), orc_key_size(k, (size_t)va->no_relu);
    orc_key_size(k, (size_t)va->no_b1), orc_key_size(k, (size_t)va->no_b2);
    orc_key_size(k, (size_t)va->no_residual);
    orc_key_bytes(k, b->x0, b->n * b->d * sizeof *b->x0);
    for (int i = 0; i < 4; i++)
        orc_key_bytes(k, b->w[i], dd * sizeof *b->w[i]);
    orc_key_bytes(k, b->w1, b->d * b->d_ff * sizeof *b->w1);
    orc_key_bytes(k, b->b1, b->d_ff * sizeof *b->b1);
    orc_key_bytes(k, b->w2, b->d_ff * b->d * sizeof *b->w2);
    orc_key_bytes(k, b->b2, b->d * sizeof *b->b2);
    orc_key_bytes(k, b->mask, b->mask ? b->n * b->n : 0);
}

int orc_block(struct orc *o, const struct orc_block *b, const struct orc_bvariant *va,
              double *out)
{
    static const struct orc_bvariant right = {0, 0, 0, 0, 0};
    struct outs res = {{out, NULL, NULL}, {b->n * b->d, 0, 0}, 1};
    unsigned char key[GOLD_KEY_LEN] = {0};
    struct orc_key k;

    if (va == NULL)
        va = &right;
    if (keyed(o)) {
        key_block(&k, b, va);
        orc_key_final(&k, key);
    }
    if (!computes(o))
        return fetch(o, key, &res);
#if GRADER_STAFF
    if (trm_block(b, va, out) < 0)
        return -1;
#endif
    return keep(o, key, &res);
}

int orc_pe(struct orc *o, enum orc_pe g, size_t n, size_t d, double *out)
{
    struct outs res = {{out, NULL, NULL}, {n * d, 0, 0}, 1};
    unsigned char key[GOLD_KEY_LEN] = {0};
    struct orc_key k;

    orc_key_init(&k, "pe");
    orc_key_size(&k, (size_t)g), orc_key_size(&k, n), orc_key_size(&k, d);
    orc_key_final(&k, key);
    if (!computes(o))
        return fetch(o, key, &res);
#if GRADER_STAFF
    if (trm_pe(g, n, d, out) < 0)
        return -1;
#endif
    return keep(o, key, &res);
}
