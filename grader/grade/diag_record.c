/* diag_record.c -- see diag_record.h. */
#include "grade/diag_record.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "props/prop_premise.h"

/* ---- one standard call, sampled ---------------------------------------- */

/* A hash of everything k's call is made of: function, shapes, eps, inputs,
 * mask and the in-place buffers' initial contents. */
static void input_key(const struct pc_call *k, unsigned char out[GOLD_KEY_LEN])
{
    const size_t dims[] = {k->rows, k->cols, k->n_q, k->n_k, k->d_k, k->d_v,
                           k->n, k->d, k->d_model, k->heads, k->d_ff};
    struct orc_key h;

    orc_key_init(&h, "call");
    orc_key_size(&h, (size_t)k->fn);
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        orc_key_size(&h, dims[i]);
    orc_key_bytes(&h, &k->eps, sizeof k->eps);
    for (size_t i = 0; i < k->n_in; i++)
        orc_key_bytes(&h, k->in[i], k->in_len[i] * sizeof(float));
    orc_key_bytes(&h, k->mask, k->mask ? (k->fn == ASG_BLOCK ? k->n * k->n : k->n_q * k->n_k) : 0);
    for (size_t i = 0; i < k->n_out; i++)
        orc_key_bytes(&h, k->init[i], k->init[i] ? k->out_len[i] * sizeof(float) : 0);
    orc_key_final(&h, out);
}

void dgr_variant_key(const char *name, const unsigned char in[GOLD_KEY_LEN],
                     unsigned char out[GOLD_KEY_LEN])
{
    struct orc_key h;

    orc_key_init(&h, "variant");
    orc_key_bytes(&h, name, strlen(name));
    orc_key_bytes(&h, in, GOLD_KEY_LEN);
    orc_key_final(&h, out);
}

/* How the call ended, then per output its sample length and entries
 * (none unless it returned ATTN_OK), strided from the first entry to the
 * last (the last row's last column is where an odd size's bug shows). A
 * sample of just the ending (2 values) compares the ending alone. Returns
 * the count written to v. */
static size_t sample(const struct pc_call *k, const struct impl_result *cr, double *v)
{
    const int ok = cr->status == CALL_RETURNED && cr->rc == 0;
    size_t n = 0;

    v[n++] = (double)cr->status;
    v[n++] = cr->status == CALL_RETURNED ? (double)cr->rc : 0.0;
    for (size_t o = 0; o < k->n_out; o++) {
        size_t len = k->out_len[o], m = !ok ? 0 : len < DGR_SAMPLE ? len : DGR_SAMPLE;
        v[n++] = (double)m;
        for (size_t i = 0; i < m; i++)
            v[n++] = (double)k->out[o][m < 2 ? 0 : i * (len - 1) / (m - 1)];
    }
    return n;
}

int dgr_call_sample(const struct prop_env *env, enum asg_fn fn, const struct spec_test *t,
                    const struct spec_case *c, int twice, unsigned char key[GOLD_KEY_LEN],
                    double *v, size_t *n, struct err *e)
{
    struct pc_call k;
    struct impl_result cr;
    struct err ignored;
    double again[DGR_MAX_VALUES];
    int rc = 1;

    if (pc_build(fn, env, t, c, &k, &ignored) < 0)
        return 0;
    input_key(&k, key);
    if (pc_invoke(&env->student, &k, &cr, e) < 0)
        rc = -1;
    else
        *n = sample(&k, &cr, v);
    if (rc == 1 && twice && pc_invoke(&env->student, &k, &cr, e) < 0)
        rc = -1;
    else if (rc == 1 && twice && (sample(&k, &cr, again) != *n ||
                                  memcmp(again, v, *n * sizeof *v) != 0))
        *n = 2;
    if (rc == 1 && t->property && strncmp(t->property, "einval", 6) == 0)
        *n = 2;
    pc_release(&k);
    return rc;
}

/* ---- the shape of a failure message ---------------------------------- */

/* The class of the number at p ('F' a fraction or exponent, 'N' NaN, 'I'
 * Inf, 'D' an integer, whose digits are kept) and its length in *len; 0
 * when no number starts at p (prev: the character before p, or 0). */
static char number_at(const char *p, char prev, size_t *len)
{
    const char *q = p + (*p == '-' || *p == '+');
    char *end;

    if (isalnum((unsigned char)prev) || prev == '_' || prev == '.')
        return 0;
    if ((strncasecmp(q, "nan", 3) == 0 || strncasecmp(q, "inf", 3) == 0) &&
        !isalnum((unsigned char)q[3])) {
        *len = (size_t)(q + 3 - p);
        return tolower((unsigned char)*q) == 'n' ? 'N' : 'I';
    }
    if (!isdigit((unsigned char)*q) && !(*q == '.' && isdigit((unsigned char)q[1])))
        return 0;
    (void)strtod(p, &end);
    *len = (size_t)(end - p);
    return memchr(p, '.', *len) || memchr(p, 'e', *len) || memchr(p, 'E', *len) ? 'F' : 'D';
}

size_t dgr_message_key(const char *id, const char *msg, unsigned char out[GOLD_KEY_LEN])
{
    struct orc_key h;
    char prev = 0;
    size_t non_finite = 0;

    orc_key_init(&h, "message");
    orc_key_bytes(&h, id, strlen(id) + 1);
    for (const char *p = msg; *p; ) {
        size_t len = 0;
        char cls = number_at(p, prev, &len);
        if (cls == 0 || cls == 'D')
            len = cls ? len : 1;
        non_finite += cls == 'N' || cls == 'I';
        orc_key_bytes(&h, cls == 0 || cls == 'D' ? p : &cls, cls == 0 || cls == 'D' ? len : 1);
        prev = p[len - 1];
        p += len;
    }
    orc_key_final(&h, out);
    return non_finite;
}

/* ---- recording the catalogue ------------------------------------------- */

/* A property check that failed (not withheld points, not a stub). */
static int is_failure(enum grade_test_status st)
{
    return st == TEST_FAILED || st == TEST_CRASHED || st == TEST_TIMED_OUT;
}


/* The catalogue header's line " * <field>: ..." (in its first 40 lines)
 * into buf; 0, or -1 when there is none. */
static int read_field(const char *path, const char *field, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    char line[1024], tag[64];
    int found = -1;

    snprintf(tag, sizeof tag, " * %s:", field);
    for (int i = 0; f && found < 0 && i < 40 && fgets(line, sizeof line, f); i++) {
        const char *p = strncmp(line, tag, strlen(tag)) == 0 ? line + strlen(tag) : NULL;
        if (p == NULL)
            continue;
        while (*p == ' ')
            p++;
        snprintf(buf, n, "%.*s", (int)strcspn(p, "\r\n"), p);
        found = 0;
    }
    if (f)
        fclose(f);
    return found;
}

/* The variant's name (the file's base name without .c) and function. */
static int name_of(const char *path, char *name, size_t n, enum asg_fn *fn)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t len = strlen(base), us = strcspn(base, "_");
    char prefix[32];

    if (len < 3 || strcmp(base + len - 2, ".c") != 0 || len - 2 >= n || us >= sizeof prefix)
        return -1;
    snprintf(name, n, "%.*s", (int)(len - 2), base);
    snprintf(prefix, sizeof prefix, "%.*s", (int)us, base);
    return asg_fn_parse(prefix, fn);
}

static int record_failures(struct orc *o, const char *name, enum asg_fn fn,
                           const char *names, const char *bug,
                           const struct grade_result *r, struct err *e)
{
    const char **fails = calloc(r->n_tests + 1, sizeof *fails);
    size_t n = 0;
    int rc;

    if (fails == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < r->n_tests; i++)
        if (is_failure(r->tests[i].status)) /* withheld points are no failure */
            fails[n++] = r->tests[i].test->id;
    rc = gold_add_variant(o->store, name, asg_fn_name(fn), names, bug, fails, n, e);
    free(fails);
    for (size_t i = 0; rc == 0 && i < r->n_tests; i++) {
        const struct grade_test *tr = &r->tests[i];
        unsigned char m[GOLD_KEY_LEN], key[GOLD_KEY_LEN];
        if (!is_failure(tr->status) || tr->message == NULL)
            continue;
        (void)dgr_message_key(tr->test->id, tr->message, m);
        dgr_variant_key(name, m, key);
        rc = gold_put(o->store, key, (const double[]){1.0}, 1, e);
    }
    return rc;
}

void dgr_premise_key(const char *name, unsigned char out[GOLD_KEY_LEN])
{
    unsigned char tag[GOLD_KEY_LEN];
    struct orc_key h;

    orc_key_init(&h, "premise");
    orc_key_final(&h, tag);
    dgr_variant_key(name, tag, out);
}

static int record_premise(struct orc *o, const char *name, const char *premise, struct err *e)
{
    unsigned char key[GOLD_KEY_LEN];
    double v[GOLD_MAX_NAME];
    size_t n = 0;

    if (!ppr_cause_known(premise))
        return err_set(e, name, 0, 0, "unknown premise '%s' (props/prop_premise.h)", premise);
    for (; premise[n] && n < GOLD_MAX_NAME; n++)
        v[n] = (double)(unsigned char)premise[n];
    dgr_premise_key(name, key);
    return gold_put(o->store, key, v, n, e);
}

static int record_outputs(struct orc *o, const struct spec_set *s, const struct prop_env *env,
                          const char *name, enum asg_fn fn, struct err *e)
{
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        enum asg_fn tf;
        if (pc_fn(t, &tf) < 0 || tf != fn)
            continue;
        for (size_t c = 0; c < t->n_cases; c++) {
            unsigned char in[GOLD_KEY_LEN], key[GOLD_KEY_LEN];
            double v[DGR_MAX_VALUES];
            size_t n;
            int rc = dgr_call_sample(env, fn, t, &t->cases[c], 1, in, v, &n, e);
            if (rc < 0)
                return -1;
            dgr_variant_key(name, in, key);
            if (rc == 1 && gold_put(o->store, key, v, n, e) < 0)
                return -1;
        }
    }
    return 0;
}

/* A grading session on path (compiles stopped by their time limit on a
 * loaded machine are tried again); NULL with e set. */
static struct grade_session *open_session(const struct spec_set *s, const char *data_dir,
                                          const char *path, struct err *e)
{
    struct grade_session *g;
    char *refusal = NULL;

    for (int tries = 0; (g = grade_session_open(path, data_dir, s, &refusal, e)) == NULL &&
                        refusal && tries < 4; tries++) {
        free(refusal);
        refusal = NULL;
    }
    if (g == NULL && refusal)
        err_set(e, path, 0, 0, "refused: %s", refusal);
    free(refusal);
    return g;
}

int dgr_record_variant(struct orc *o, const struct spec_set *s, uint64_t seed,
                       const char *data_dir, const char *path,
                       const struct grade_result *r, struct err *e)
{
    char name[GOLD_MAX_NAME], bug[512], names[GOLD_MAX_NAME] = "-", premise[64];
    struct grade_session *g;
    struct prop_env env;
    enum asg_fn fn;
    int rc;

    if (name_of(path, name, sizeof name, &fn) < 0 ||
        read_field(path, "bug", bug, sizeof bug) < 0 || strncmp(bug, "none", 4) == 0)
        return 0;
    if (read_field(path, "names", names, sizeof names) == 0 && strpbrk(names, " \t"))
        return err_set(e, path, 0, 0, "'names:' takes one test id");
    if ((g = open_session(s, data_dir, path, e)) == NULL)
        return -1;
    memset(&env, 0, sizeof env);
    env.student = grade_session_impl(g, DGR_DEADLINE_MS);
    env.seed = seed;
    rc = record_failures(o, name, fn, names, bug, r, e);
    if (rc == 0 && read_field(path, "premise", premise, sizeof premise) == 0)
        rc = record_premise(o, name, premise, e);
    if (rc == 0)
        rc = record_outputs(o, s, &env, name, fn, e);
    grade_session_close(g);
    return rc;
}

int dgr_record_reference(struct orc *o, const struct spec_set *s, uint64_t seed,
                         const char *data_dir, const char *path, struct err *e)
{
    struct grade_session *g = open_session(s, data_dir, path, e);
    struct prop_env env;
    int rc = 0;

    if (g == NULL)
        return -1;
    memset(&env, 0, sizeof env);
    env.student = grade_session_impl(g, DGR_DEADLINE_MS);
    env.seed = seed;
    for (int fn = 0; rc == 0 && fn < ASG_FN_COUNT; fn++)
        rc = record_outputs(o, s, &env, DGR_REFERENCE, (enum asg_fn)fn, e);
    grade_session_close(g);
    return rc;
}
