/*
 * prop_written.c -- the written (hands-on) part's checks, function
 * "written". Each numeric claim in the student's answers.yaml is recomputed
 * with the student's own functions (env->student: the sandbox) and
 * compared; the judgement items are left to a TA ("manual: pending").
 *
 * A missing or malformed answers.yaml fails every numeric check with the
 * parse error (file:line:col) as the message; the manual items stay
 * pending whatever the file holds (a TA scores them, and a grade book
 * leaves their cells blank until then), the problem noted in the message.
 * Paths in messages are relative to the submission's directory: the
 * rubric goes to the student, who must not see where a TA keeps the class.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfcheck/prop_written.h"

#include "selfcheck/answers.h"
#include "props/prop_common.h"
#include "props/prop_util.h"
#include "selfcheck/selfcheck.h"
#include "core/util.h"

/* What every check loads: the answers, the text's words, its vectors. */
struct written {
    struct ans_answers a;
    struct sc_words words;
    struct sc_vectors *vs;   /* NULL: the hash-seeded vectors */
};

/* `e` with its file made relative to `dir` when it lies inside it. */
static void relative_err(const char *dir, struct err *e)
{
    size_t n = dir ? strlen(dir) : 0;

    if (n > 0 && strncmp(e->file, dir, n) == 0 && e->file[n] == '/')
        memmove(e->file, e->file + n + 1, strlen(e->file + n + 1) + 1);
}

/* Fail v with e, its file made relative to `dir` (the submission's). */
static int fail_err(const char *dir, struct prop_verdict *v, struct err *e)
{
    char buf[ERR_MSG_MAX + ERR_FILE_MAX + 32];

    relative_err(dir, e);
    return pu_fail(v, "%s", err_format(e, buf, sizeof buf));
}

/* Load `rel` (a VECTORS path from the answers) into *out. */
static int load_vectors(const struct ans_answers *a, const char *rel,
                        struct sc_vectors **out, struct err *e)
{
    char path[ERR_FILE_MAX];
    char why[ERR_MSG_MAX];

    *out = NULL;
    if (rel == NULL)
        return 0;
    if (ans_path(a, rel, path, sizeof path, e) < 0)
        return -1;
    /* Only files of the submission: never /etc/passwd or ../../ */
    if (ut_check_inside(a->dir, path, rel, why, sizeof why) < 0)
        return err_set(e, a->file, a->vectors_at.line, a->vectors_at.col, "%s", why);
    return (*out = sc_vectors_load(path, e)) == NULL ? -1 : 0;
}

/* Load answers.yaml and the part-1 input. Returns 1 when loaded (release
 * with written_release), 0 when the verdict was failed instead. */
static int written_load(const struct prop_env *env, struct written *w,
                        struct prop_verdict *v)
{
    char path[ERR_FILE_MAX];
    struct err e;

    memset(w, 0, sizeof *w);
    err_clear(&e);
    if (env->submission_dir == NULL)
        return pu_fail(v, "no submission directory: cannot find answers.yaml"), 0;
    snprintf(path, sizeof path, "%s/answers.yaml", env->submission_dir);
    if (ans_load(path, &w->a, &e) < 0)
        return fail_err(env->submission_dir, v, &e), 0;
    /* a->dir keeps the real directory (relative VECTORS paths); only the
     * name in messages changes. */
    snprintf(w->a.file, sizeof w->a.file, "answers.yaml");
    if (w->a.text == NULL) {
        ans_release(&w->a);
        return pu_fail(v, "answers.yaml: 'text' is missing: give the text of your map"), 0;
    }
    if (sc_tokenize(w->a.text, w->a.file, &w->words, &e) < 0 ||
        load_vectors(&w->a, w->a.vectors, &w->vs, &e) < 0) {
        ans_release(&w->a);
        return fail_err(env->submission_dir, v, &e), 0;
    }
    return 1;
}

static void written_release(struct written *w)
{
    ans_release(&w->a);
    sc_vectors_free(w->vs);
}

/* Build a map with the student's functions; on failure fail the verdict. */
static int student_map(const struct prop_env *env, const struct sc_words *words,
                       const struct sc_vectors *vs, int pe, struct sc_map *m,
                       struct prop_verdict *v)
{
    struct err e;

    err_clear(&e);
    if (sc_map_build(&env->student, words, vs, pe, m, &e) == SC_OK)
        return 1;
    fail_err(env->submission_dir, v, &e);
    return 0;
}

/* ---- top_pairs -------------------------------------------------------------------- */

/* The occurrence (q != k) of the words of claim p whose weight is closest
 * to the claim; 0 when a word is not in the text. */
static int find_claim(const struct sc_map *m, const struct ans_pair *p, struct sc_pair *best)
{
    int found = 0;

    for (size_t q = 0; q < m->n; q++)
        for (size_t k = 0; k < m->n; k++) {
            double w = m->w[q * m->n + k];
            if (q == k || strcmp(m->words.w[q], p->query) || strcmp(m->words.w[k], p->key))
                continue;
            if (!found || fabs(w - p->weight) < fabs(best->weight - p->weight))
                *best = (struct sc_pair){q, k, (float)w};
            found = 1;
        }
    return found;
}

static int check_claim(const struct written *w, const struct sc_map *m, size_t i,
                       const struct sc_pair *third, double tol, struct prop_verdict *v)
{
    const struct ans_pair *p = &w->a.pairs[i];
    struct sc_pair got = {0, 0, 0};

    if (!find_claim(m, p, &got))
        return pu_fail(v, "%s:%d:%d: claimed pair (%s \u2192 %s): the text has no such "
                       "pair of two different positions", w->a.file, p->at.line, p->at.col,
                       p->query, p->key), 0;
    if (!pu_close(got.weight, p->weight, tol, 0))
        return pu_fail(v, "%s:%d:%d: claimed weight %g for (%s \u2192 %s) but your "
                       "attn_scaled_dot_product gives %.4f (tolerance %g)", w->a.file,
                       p->at.line, p->at.col, p->weight, p->query, p->key,
                       (double)got.weight, tol), 0;
    if (got.weight < third->weight - tol)
        return pu_fail(v, "%s:%d:%d: (%s \u2192 %s) has weight %.4f, but it is not among "
                       "the three largest: (%s \u2192 %s) has %.4f", w->a.file, p->at.line,
                       p->at.col, p->query, p->key, (double)got.weight,
                       m->words.w[third->q], m->words.w[third->k], (double)third->weight), 0;
    return 1;
}

static int duplicate_claim(const struct ans_answers *a, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (!strcmp(a->pairs[j].query, a->pairs[i].query) &&
            !strcmp(a->pairs[j].key, a->pairs[i].key))
            return 1;
    return 0;
}

static int check_pairs(const struct written *w, const struct sc_map *m, double tol,
                       struct prop_verdict *v)
{
    struct sc_pair top[SC_TOP];
    size_t n_top = sc_top_pairs(m, top, SC_TOP);

    if (w->a.n_pairs != SC_TOP)
        return pu_fail(v, "%s:%d:%d: 'top_pairs' has %zu pair%s; the assignment asks for "
                       "the three with the largest weight", w->a.file, w->a.pairs_at.line,
                       w->a.pairs_at.col, w->a.n_pairs, w->a.n_pairs == 1 ? "" : "s");
    for (size_t i = 0; i < w->a.n_pairs; i++) {
        if (duplicate_claim(&w->a, i))
            return pu_fail(v, "%s:%d:%d: (%s \u2192 %s) is claimed twice", w->a.file,
                           w->a.pairs[i].at.line, w->a.pairs[i].at.col,
                           w->a.pairs[i].query, w->a.pairs[i].key);
        if (!check_claim(w, m, i, &top[n_top - 1], tol, v))
            return 0;
    }
    return pu_pass(v);
}

static int run_top_pairs(const struct prop_ctx *x)
{
    struct written w;
    struct sc_map m;

    if (!written_load(x->env, &w, x->v))
        return 0;
    if (student_map(x->env, &w.words, w.vs, w.a.pe, &m, x->v)) {
        check_pairs(&w, &m, pc_tol(x), x->v);
        sc_map_release(&m);
    }
    written_release(&w);
    return 0;
}

/* ---- part 3 ----------------------------------------------------------------------- */

static int same_words(const struct sc_words *a, const struct sc_words *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->w[i], b->w[i]) != 0)
            return 0;
    return 1;
}

/* Compare the two maps' weights; pass or fail the verdict. */
static int compare_weights(const struct written *w, const struct sc_map *orig,
                           const struct sc_map *mod, double tol, struct prop_verdict *v)
{
    size_t n = orig->n, at = 0;
    double worst = -1;

    for (size_t i = 0; i < n * n; i++)
        if (fabs((double)orig->w[i] - (double)mod->w[i]) > worst) {
            worst = fabs((double)orig->w[i] - (double)mod->w[i]);
            at = i;
        }
    if (worst > tol)
        return pu_fail(v, "%s:%d:%d: the weights changed: (%s \u2192 %s) is %.4f on the "
                       "original text but (%s \u2192 %s) is %.4f on part 3's input "
                       "(tolerance %g)", w->a.file, w->a.part3_text_at.line,
                       w->a.part3_text_at.col, orig->words.w[at / n], orig->words.w[at % n],
                       (double)orig->w[at], mod->words.w[at / n], mod->words.w[at % n],
                       (double)mod->w[at], tol);
    return pu_pass(v);
}

/* Tokenise part 3's input and check it can be compared; 1 when it can. */
static int part3_input(const struct written *w, struct sc_words *words,
                       struct sc_vectors **vs, struct prop_verdict *v)
{
    const struct ans_answers *a = &w->a;
    struct err e;

    err_clear(&e);
    if (a->part3_text == NULL)
        return pu_fail(v, "%s: 'part3.text' is missing: give the modified input", a->file), 0;
    if (sc_tokenize(a->part3_text, a->file, words, &e) < 0)
        return fail_err(a->dir, v, &e), 0;
    if (words->n != w->words.n)
        return pu_fail(v, "%s:%d:%d: part 3's input has %zu words but the original has %zu: "
                       "weights can only stay the same on an input of the same length",
                       a->file, a->part3_text_at.line, a->part3_text_at.col, words->n,
                       w->words.n), 0;
    if (same_words(words, &w->words))
        return pu_fail(v, "%s:%d:%d: part 3's input has the same words as the original: "
                       "change the words, keep the weights", a->file,
                       a->part3_text_at.line, a->part3_text_at.col), 0;
    if (load_vectors(a, a->part3_vectors ? a->part3_vectors : a->vectors, vs, &e) < 0)
        return fail_err(a->dir, v, &e), 0;
    return 1;
}

static int run_part3(const struct prop_ctx *x)
{
    struct written w;
    struct sc_words words;
    struct sc_vectors *vs = NULL;
    struct sc_map orig, mod;

    if (!written_load(x->env, &w, x->v))
        return 0;
    if (part3_input(&w, &words, &vs, x->v) && student_map(x->env, &w.words, w.vs, w.a.pe, &orig, x->v)) {
        if (student_map(x->env, &words, vs, w.a.pe, &mod, x->v)) {
            compare_weights(&w, &orig, &mod, pc_tol(x), x->v);
            sc_map_release(&mod);
        }
        sc_map_release(&orig);
    }
    sc_vectors_free(vs);
    written_release(&w);
    return 0;
}

/* ---- part 4 ------------------------------------------------------------------------ */

static int part4_claims(const struct written *w, size_t *order, struct prop_verdict *v)
{
    const struct ans_answers *a = &w->a;
    struct err e;

    err_clear(&e);
    if (!a->part4_has_order || !a->part4_has_diff)
        return pu_fail(v, "%s: 'part4' needs 'order' and 'max_abs_diff'", a->file), 0;
    if (sc_check_order(a->part4_order, a->part4_order_len, w->words.n, order, &e) < 0)
        return pu_fail(v, "%s:%d:%d: 'part4.order': %s", a->file, a->part4_order_at.line,
                       a->part4_order_at.col, e.msg), 0;
    if (!a->part4_pe)
        return pu_fail(v, "%s:%d:%d: part 4 is about the positional encoding: set "
                       "'pe: true' and measure with PE", a->file, a->part4_at.line,
                       a->part4_at.col), 0;
    for (size_t i = 0; i < w->words.n; i++)
        if (strcmp(w->words.w[order[i]], w->words.w[i]) != 0)
            return 1;
    return pu_fail(v, "%s:%d:%d: 'part4.order' leaves every word where it was: choose an "
                   "order that moves words", a->file, a->part4_order_at.line,
                   a->part4_order_at.col), 0;
}

static int check_perm(const struct written *w, const struct sc_perm *p, double tol,
                      struct prop_verdict *v)
{
    const struct ans_answers *a = &w->a;

    if (p->same_set)
        return pu_fail(v, "with your positional encoding, the permuted text still gives the "
                       "same set of outputs (max abs diff %.3g): is the encoding added to "
                       "the word vectors?", p->max_abs_diff);
    if (!pu_close(p->max_abs_diff, a->part4_max_abs_diff, tol, 0.01))
        return pu_fail(v, "%s:%d:%d: claimed max_abs_diff %g for this order with PE but "
                       "your functions give %.6f (tolerance %g + 1%%)", a->file,
                       a->part4_diff_at.line, a->part4_diff_at.col, a->part4_max_abs_diff,
                       p->max_abs_diff, tol);
    return pu_pass(v);
}

static int run_part4(const struct prop_ctx *x)
{
    struct written w;
    size_t order[SC_MAX_WORDS];
    struct sc_perm p;
    struct err ce;

    err_clear(&ce);
    if (!written_load(x->env, &w, x->v))
        return 0;
    if (part4_claims(&w, order, x->v)) {
        if (sc_permute(&x->env->student, &w.words, w.vs, order, 1, &p, &ce) == SC_OK) {
            check_perm(&w, &p, pc_tol(x), x->v);
            sc_perm_release(&p);
        } else {
            fail_err(x->env->submission_dir, x->v, &ce);
        }
    }
    written_release(&w);
    return 0;
}

/* ---- manual items ---------------------------------------------------------------------- */

static int blank(const char *s)
{
    for (; s && *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* Check that the field holds text for a TA; 1 when it does. */
static int manual_present(const struct ans_answers *a, const char *field,
                          struct prop_verdict *v)
{
    if (strcmp(field, "part3.note") == 0)
        return blank(a->part3_note)
                   ? (pu_fail(v, "%s: 'part3.note' is empty: nothing for a TA to review",
                              a->file), 0) : 1;
    if (a->n_part2 < a->n_pairs || a->n_part2 == 0)
        return pu_fail(v, "%s: 'part2' has %zu answer%s for %zu pairs: answer for each pair",
                       a->file, a->n_part2, a->n_part2 == 1 ? "" : "s", a->n_pairs), 0;
    for (size_t i = 0; i < a->n_part2; i++)
        if (blank(a->part2[i]))
            return pu_fail(v, "%s: answer %zu of 'part2' is empty: nothing for a TA to "
                           "review", a->file, i + 1), 0;
    return 1;
}

/* Make v a pending manual item, keeping the problem in its message. */
static void pending(struct prop_verdict *v, const char *field)
{
    char why[PROP_MSG_MAX];

    snprintf(why, sizeof why, "%s", v->msg);
    v->passed = 0;
    v->manual_pending = 1;
    v->hint[0] = '\0';
    if (why[0])
        snprintf(v->msg, sizeof v->msg, "manual: pending (a TA reads '%s'); note: %.400s",
                 field, why);
    else
        snprintf(v->msg, sizeof v->msg, "manual: pending (a TA reads '%s')", field);
}

static int run_manual(const struct prop_ctx *x)
{
    const char *field = spec_str(x->c, "field", "part2");
    struct written w;

    if (strcmp(field, "part2") != 0 && strcmp(field, "part3.note") != 0)
        return err_set(x->e, NULL, x->c->line, x->c->col, "unknown manual field '%s' "
                       "(expected 'part2' or 'part3.note')", field);
    /* Pending whatever the file holds: a TA scores the item, and a problem
     * with the file (missing, malformed, the field empty) is what the TA
     * reads first, not a failure that would score 0 before they do. */
    if (written_load(x->env, &w, x->v)) {
        manual_present(&w.a, field, x->v);
        written_release(&w);
    } else {
        /* The load error is already the message of every numeric check. */
        snprintf(x->v->msg, sizeof x->v->msg, "answers.yaml could not be read (see above)");
    }
    pending(x->v, field);
    return 0;
}

static const char *const no_keys[] = {NULL};
static const char *const manual_keys[] = {"field", NULL};

const struct prop_def sc_written_defs[] = {
    {"written", "top_pairs", run_top_pairs, no_keys, 1e-3, 0,
     "the claimed top three pairs and weights hold on the student's own map",
     NULL, PROP_INVARIANT},
    {"written", "part3_weights_unchanged", run_part3, no_keys, 1e-4, 0,
     "part 3's modified input gives the same weights as the original text",
     NULL, PROP_INVARIANT},
    {"written", "part4_permutation_changes_output", run_part4, no_keys, 1e-3, 0,
     "with PE the claimed permutation changes the output by the claimed figure",
     NULL, PROP_INVARIANT},
    {"written", "manual", run_manual, manual_keys, 0, 0,
     "a written answer a TA scores (manual: pending)", NULL, PROP_INVARIANT},
};
const size_t sc_written_count = sizeof sc_written_defs / sizeof sc_written_defs[0];

const struct prop_def *sc_written_find(const char *property)
{
    for (size_t i = 0; i < sc_written_count; i++)
        if (strcmp(sc_written_defs[i].property, property) == 0)
            return &sc_written_defs[i];
    return NULL;
}
