/* prop_premise.c -- see prop_premise.h. */
#include "props/prop_premise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention.h"
#include "props/prop_sdpa.h"
#include "props/prop_util.h"

static int visible(const struct pc_call *k, size_t i, size_t j)
{
    return k->mask == NULL || k->mask[i * k->n_k + j] != 0;
}

/* Keys of row i the mask hides. */
static size_t hidden_in_row(const struct pc_call *k, size_t i)
{
    size_t n = 0;

    for (size_t j = 0; j < k->n_k; j++)
        n += !visible(k, i, j);
    return n;
}

/* Whether row i of k's weights and output is within tolerance of the
 * trusted w and out (a scratch verdict: x->v is not touched). */
static int row_right(const struct prop_ctx *x, const struct pc_call *k, const double *out,
                     const double *w, size_t i)
{
    struct prop_verdict scratch;
    double atol = psd_out_atol(k, pc_tol(x));

    memset(&scratch, 0, sizeof scratch);
    return psd_close_matrix(k->out[1] + i * k->n_k, w + i * k->n_k, 1, k->n_k, atol,
                            "weight", &scratch, "") &&
           psd_close_matrix(k->out[0] + i * k->d_v, out + i * k->d_v, 1, k->d_v, atol, "out",
                            &scratch, "");
}

/* A zero weight where the trusted one is not, or the other way round (a
 * NaN is not zero): where the mask's hiding went wrong. */
static int zeros_differ(const struct pc_call *k, const double *w)
{
    for (size_t e = 0; e < k->n_q * k->n_k; e++)
        if ((k->out[1][e] == 0.0f) != (w[e] == 0.0))
            return 1;
    return 0;
}

/* The sdpa call's rows against trusted attention with its own mask:
 * `mask` or `hidden_rows` (hidden_only). */
static int rows_premise(const struct prop_ctx *x, const struct pc_call *k, int hidden_only)
{
    double *out, *w;
    size_t wrong = 0, wrong_hiding = 0, wrong_all_hidden = 0, right_plain = 0;
    int rc;

    if (k->fn != ASG_SDPA || k->mask == NULL || k->n_out < 2)
        return 0;
    if ((rc = psd_trusted(k, k->mask, psd_api_scale(k), &out, &w, x->e)) != 0)
        return rc < 0 ? -1 : 0;   /* no expected values: nothing holds */
    for (size_t i = 0; i < k->n_q; i++) {
        size_t h = hidden_in_row(k, i);
        if (row_right(x, k, out, w, i)) {
            right_plain += h == 0;
            continue;
        }
        wrong++;
        wrong_hiding += h > 0;
        wrong_all_hidden += h == k->n_k;
    }
    rc = hidden_only ? wrong > 0 && wrong_all_hidden == wrong
                     : zeros_differ(k, w) || (wrong > 0 && wrong_hiding == wrong &&
                                             right_plain > 0);
    free(out);
    free(w);
    return rc;
}

/* The same inputs with a weights buffer and no mask: right? */
static int null_premise(const struct prop_ctx *x, struct pc_call *k);

/* Whether the sdpa call's outputs are trusted attention under the mask its
 * own zero weights show (a key hidden where its weight is 0): a failure
 * wholly in which keys are hidden (a mask always causal, an inverted one). */
static int own_hiding(const struct prop_ctx *x, const struct pc_call *k)
{
    unsigned char *own = malloc(k->n_q * k->n_k + 1);
    double *out, *w;
    int rc = 1;

    if (own == NULL)
        return err_set(x->e, NULL, 0, 0, "out of memory");
    for (size_t e = 0; e < k->n_q * k->n_k; e++)
        own[e] = k->out[1][e] != 0.0f;   /* a NaN hides nothing */
    if ((rc = psd_trusted(k, own, psd_api_scale(k), &out, &w, x->e)) != 0) {
        free(own);
        return rc < 0 ? -1 : 0;
    }
    rc = 1;
    for (size_t i = 0; rc && i < k->n_q; i++)
        rc = row_right(x, k, out, w, i);
    free(own);
    free(out);
    free(w);
    return rc;
}

/* `mask`: the rows' evidence, and the failure depends on the mask: it is
 * wholly in which keys are hidden, or the same inputs without a mask give
 * the right answer (a scale, a sum, an index wrong everywhere also leaves
 * hidden keys' weights non-zero or NaN, and fails without a mask too). */
static int mask_premise(const struct prop_ctx *x, struct pc_call *k)
{
    float *seen[PC_MAX_OUT] = {NULL, NULL};
    int rc = rows_premise(x, k, 0);

    if (rc != 1)
        return rc;
    if ((rc = own_hiding(x, k)) != 0)
        return rc;
    /* the call without a mask overwrites k's outputs: kept, so that the
     * premise measured again (a property's hint, then the spec's) reads
     * the same failing call */
    for (size_t o = 0; o < k->n_out; o++)
        if ((seen[o] = pu_floats(k->out_len[o])) == NULL)
            rc = err_set(x->e, NULL, 0, 0, "out of memory");
        else
            memcpy(seen[o], k->out[o], k->out_len[o] * sizeof(float));
    if (rc == 0)
        rc = null_premise(x, k);
    for (size_t o = 0; o < k->n_out; o++) {
        if (seen[o])
            memcpy(k->out[o], seen[o], k->out_len[o] * sizeof(float));
        free(seen[o]);
    }
    return rc;
}

static int null_premise(const struct prop_ctx *x, struct pc_call *k)
{
    struct prop_verdict scratch;
    struct prop_ctx y = *x;
    unsigned char *mask = k->mask;
    int rc;

    if (k->fn != ASG_SDPA || k->n_out < 2)
        return 0;
    memset(&scratch, 0, sizeof scratch);
    y.v = &scratch;
    k->mask = NULL;
    rc = pc_call_again(&y, k);
    if (rc == 1)
        rc = psd_matches_trusted(k, pc_tol(x), &scratch, "", x->e);
    k->mask = mask;
    return rc;
}

static const char *const names[] = {"mask", "hidden_rows", "null"};

int ppr_known(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

int ppr_holds(const char *name, const struct prop_ctx *x, struct pc_call *k)
{
    if (strcmp(name, "mask") == 0)
        return mask_premise(x, k);
    if (strcmp(name, "hidden_rows") == 0)
        return rows_premise(x, k, 1);
    if (strcmp(name, "null") == 0)
        return null_premise(x, k);
    return 0;
}

/* ---- the premises of causes (grade/diag.c) -------------------------------- */

/* The fill of the outputs before a cause's call: finite, and no value
 * attention computes from these inputs. */
#define PPR_FILL 12345.0f

static int cause_call(const struct impl *student, const float *q, const float *k,
                      const float *v, size_t n_q, size_t n_k, const unsigned char *mask,
                      float *out, float *w, struct err *e)
{
    struct impl_result r;

    for (size_t i = 0; i < n_q; i++)
        out[i] = PPR_FILL;
    for (size_t i = 0; i < n_q * n_k; i++)
        w[i] = PPR_FILL;
    if (student->ops->scaled_dot_product(student->self, q, k, v, n_q, n_k, 1, 1, mask, out, w,
                                         &r, e) < 0)
        return -1;
    return r.status == CALL_RETURNED && r.rc == ATTN_OK;
}

static const char *const cause_names[] = {"hidden_key_outweighs", "all_hidden_nan"};

int ppr_cause_known(const char *name)
{
    for (size_t i = 0; i < sizeof cause_names / sizeof cause_names[0]; i++)
        if (strcmp(name, cause_names[i]) == 0)
            return 1;
    return 0;
}

int ppr_cause_holds(const char *name, const struct impl *student, struct err *e)
{
    static const float q[2] = {1.0f, 1.0f}, v[2] = {1.0f, 2.0f};
    float out[2], w[4];
    int rc;

    if (strcmp(name, "hidden_key_outweighs") == 0) {
        static const float k[2] = {0.0f, 4e9f};
        static const unsigned char mask[2] = {1, 0};
        if ((rc = cause_call(student, q, k, v, 1, 2, mask, out, w, e)) != 1)
            return rc;
        return fabsf(out[0] - v[1]) < 1e-3f; /* the hidden key's value */
    }
    if (strcmp(name, "all_hidden_nan") == 0) {
        static const float k[2] = {1.0f, 2.0f};
        static const unsigned char mask[4] = {1, 1, 0, 0};   /* query 1 sees nothing */
        if ((rc = cause_call(student, q, k, v, 2, 2, mask, out, w, e)) != 1)
            return rc;
        return isnan(out[1]) || isnan(w[2]) || isnan(w[3]);
    }
    return 0;
}
