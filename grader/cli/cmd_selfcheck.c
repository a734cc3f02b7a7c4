/*
 * cmd_selfcheck.c -- `grader map`, `grader saturation`, `grader permute`:
 * the hands-on part of the assignment, computed with the student's own
 * functions (run in the sandbox through a grade_session) and printed.
 *
 * Exit status: 0 when the figures were computed; 1 when one of the
 * student's functions failed (crashed, timed out, not implemented,
 * non-finite output: the message says which); 2 for usage errors, bad
 * input (file:line:col) and refused submissions.
 *
 * --spec FILE names the spec whose source rules the submission must pass
 * (as for `grader grade`); default <data dir>/../specs/public.yaml.
 *
 * The terminal heatmap uses Unicode shading (" ░▒▓█") with --unicode, or
 * when LC_ALL, else LC_CTYPE, else LANG names a UTF-8 locale; the ASCII
 * ramp " .:-=+*#%@" otherwise or with --ascii. (`make map` passes one of
 * the two from the locale the student's shell had: the Makefile runs the
 * grader itself with LC_ALL=C.) The glyphs change nothing else.
 *
 * `grader vectors --text TEXT` prints the hash-seeded vectors of TEXT's
 * words as a VECTORS file (no submission needed): the start of part 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "grade/grade.h"
#include "selfcheck/selfcheck.h"
#include "core/svg.h"

#define CLI_EXIT_STUDENT 1
#define COL_WORD 8       /* letters of a column label */
#define ROW_WORD 12      /* letters of a row label */
#define SHOW_DIMS 6      /* output dimensions printed by permute */

static const char lesson[] =
    "the vectors are arbitrary (hash-seeded from each word's letters), so this\n"
    "picture proves nothing about language: an attention map is a description,\n"
    "not an explanation";

static const char map_usage[] =
    "usage: grader map [--vectors FILE] [--pe] [--svg FILE] [--ascii|--unicode] [--spec FILE]\n"
    "                  --text TEXT SUBMISSION\n"
    "  one-layer, one-head self-attention map of TEXT (Q = K = V = X) with your\n"
    "  attn_scaled_dot_product; writes attention_map.svg unless --svg says otherwise\n";
static const char sat_usage[] =
    "usage: grader saturation [--svg FILE] [--spec FILE] SUBMISSION\n"
    "  mean max softmax weight for d = 2..1024, with and without 1/sqrt(d), with your\n"
    "  attn_softmax_rows; writes saturation.svg unless --svg says otherwise\n";
static const char vec_usage[] =
    "usage: grader vectors --text TEXT\n"
    "  the hash-seeded vectors of TEXT's words (d = 16), one line per distinct word,\n"
    "  as a VECTORS file: save it, edit it, pass it back with --vectors (VECTORS=file)\n";
static const char perm_usage[] =
    "usage: grader permute --text TEXT --order \"3 1 2 ...\" [--vectors FILE] [--pe] [--spec FILE]\n"
    "                      SUBMISSION\n"
    "  outputs of TEXT in its order and in ORDER (a permutation of 1..n), compared\n";

struct sc_opts {
    const char *text, *vectors, *svg, *order, *spec, *submission;
    int pe, ascii, unicode;
};

/* Parse the options; `allowed` lists the codes this command takes (t text,
 * v vectors, s svg, o order, p pe, a ascii, u unicode, S spec; @: no
 * SUBMISSION). Every command knows every name: one it does not take says
 * so. Returns 0, 1 for --help (usage printed), or -1 (usage error printed). */
static int parse_opts(int argc, char **argv, const char *allowed, const char *usage,
                      struct sc_opts *o)
{
    static const char codes[] = "tvsopaSHu";   /* the entries' order, H: help */
    struct cli_option opts[] = {
        CLI_OPT_STRING("text", &o->text),   CLI_OPT_STRING("vectors", &o->vectors),
        CLI_OPT_STRING("svg", &o->svg),     CLI_OPT_STRING("order", &o->order),
        CLI_OPT_FLAG("pe", &o->pe),         CLI_OPT_FLAG("ascii", &o->ascii),
        CLI_OPT_STRING("spec", &o->spec),   CLI_OPT_HELP,
        CLI_OPT_FLAG("unicode", &o->unicode),
        CLI_OPT_END("unknown option for this command"),
    };
    int first, rc;

    memset(o, 0, sizeof *o);
    for (size_t i = 0; codes[i]; i++)
        if (codes[i] != 'H' && strchr(allowed, codes[i]) == NULL) {
            opts[i].has_arg = opts[i].type == CLI_OPT_T_STRING;
            opts[i].type = CLI_OPT_T_REFUSED;
        }
    if ((rc = cli_parse_options(argc, argv, opts, usage, &first)) != 0)
        return rc < 0 ? 1 : -1;
    if (strchr(allowed, '@') != NULL) {   /* a command without a SUBMISSION */
        if (first != argc)
            return cli_usage("unexpected argument", usage), -1;
        return 0;
    }
    if (first != argc - 1)
        return cli_usage(first < argc ? "expected one SUBMISSION" : "missing SUBMISSION",
                         usage), -1;
    o->submission = argv[first];
    return 0;
}

/* ---- the student's implementation ----------------------------------------------- */

/* Open the sandboxed submission. Returns the session, or NULL after
 * printing why (the return code in *rc). */
static struct grade_session *open_submission(const char *submission, const char *spec,
                                             int *rc)
{
    struct cli_common c;
    struct spec_set *specs;
    struct grade_session *g;
    struct err e;
    char *refusal = NULL;

    memset(&c, 0, sizeof c);
    err_clear(&e);
    if (spec != NULL)
        c.specs[c.n_specs++] = spec;
    if ((specs = cli_prepare(&c)) == NULL)
        return *rc = CLI_EXIT_USAGE, NULL;
    g = grade_session_open(submission, c.data_dir, specs, &refusal, &e);
    spec_set_free(specs);
    if (g != NULL)
        return g;
    if (refusal != NULL) {
        fprintf(stderr, "grader: '%s' was refused:\n%s\n", submission, refusal);
        free(refusal);
        return *rc = CLI_EXIT_USAGE, NULL;
    }
    return *rc = cli_fail(&e), NULL;
}

/* Report a library failure: the student's function (exit 1) or ours (2). */
static int report(int rc, const struct err *e)
{
    if (rc == SC_ESTUDENT) {
        char buf[ERR_MSG_MAX + ERR_FILE_MAX + 32];
        fprintf(stderr, "grader: %s\n", err_format(e, buf, sizeof buf));
        return CLI_EXIT_STUDENT;
    }
    return cli_fail(e);
}

/* ---- map ------------------------------------------------------------------------ */

static int utf8_terminal(void)
{
    static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};

    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && v[0] != '\0')
            return strcasestr(v, "utf-8") != NULL || strcasestr(v, "utf8") != NULL;
    }
    return 0;
}

/* The shade of weight w on a 0..wmax scale, as a 2-column cell. */
static const char *shade(float w, float wmax, int ascii)
{
    static const char *const uni[] = {"  ", "\u2591\u2591", "\u2592\u2592", "\u2593\u2593",
                                      "\u2588\u2588"};
    static const char *const asc[] = {"  ", "..", "::", "--", "==", "++", "**", "##",
                                      "%%", "@@"};
    size_t levels = ascii ? 10 : 5;
    double t = wmax > 0 ? (double)w / (double)wmax : 0;
    size_t i = (size_t)(t * (double)(levels - 1) + 0.5);

    i = i >= levels ? levels - 1 : i;
    return ascii ? asc[i] : uni[i];
}

static void print_col_labels(const struct sc_map *m)
{
    for (size_t r = 0; r < COL_WORD; r++) {
        int any = 0;
        for (size_t c = 0; c < m->n; c++)
            any |= strlen(m->words.w[c]) > r;
        if (!any)
            break;
        printf("%*s", ROW_WORD + 5, "");
        for (size_t c = 0; c < m->n; c++)
            printf("%c ", strlen(m->words.w[c]) > r ? m->words.w[c][r] : ' ');
        printf("\n");
    }
}

static float max_weight(const struct sc_map *m)
{
    float mx = 0;

    for (size_t i = 0; i < m->n * m->n; i++)
        mx = m->w[i] > mx ? m->w[i] : mx;
    return mx;
}

static void print_heatmap(const struct sc_map *m, int ascii)
{
    float wmax = max_weight(m);

    printf("rows = queries (the word that looks), columns = keys (the word looked at);\n"
           "each row sums to 1. Shading from 0 (blank) to the largest weight, %.4f (%s)\n\n",
           (double)wmax, ascii ? "@@" : "\u2588\u2588");
    print_col_labels(m);
    for (size_t q = 0; q < m->n; q++) {
        printf("%3zu %-*.*s ", q + 1, ROW_WORD, ROW_WORD, m->words.w[q]);
        for (size_t k = 0; k < m->n; k++)
            fputs(shade(m->w[q * m->n + k], wmax, ascii), stdout);
        printf("|\n");
    }
}

static void print_top(const struct sc_map *m, int ascii)
{
    struct sc_pair top[SC_TOP];
    size_t n = sc_top_pairs(m, top, SC_TOP);

    printf("\nthe %zu word pairs with the largest weight (query %s key). Left out: each word\n"
           "with itself at the same place (with Q = K a word resembles itself most, an\n"
           "artefact by construction); a repeated word pair counts once, at its largest:\n",
           n, ascii ? "->" : "\u2192");
    for (size_t i = 0; i < n; i++)
        printf("  %zu. %s %s %s  %.4f   (positions %zu, %zu)\n", i + 1,
               m->words.w[top[i].q], ascii ? "->" : "\u2192", m->words.w[top[i].k],
               (double)top[i].weight, top[i].q + 1, top[i].k + 1);
}

static int map_svg(const struct sc_map *m, const char *path, const char *vectors,
                   struct err *e)
{
    const char *labels[SC_MAX_WORDS];
    double *vals = calloc(m->n * m->n, sizeof *vals);
    struct sb b;
    char sub[256];
    int rc = -1;

    for (size_t i = 0; i < m->n; i++)
        labels[i] = m->words.w[i];
    for (size_t i = 0; vals && i < m->n * m->n; i++)
        vals[i] = m->w[i];
    snprintf(sub, sizeof sub, "1 layer, 1 head, Q = K = V = X, d = %zu, %s, vectors: %s. "
             "Arbitrary vectors: a description, not an explanation", m->d,
             m->pe ? "with PE" : "no PE", vectors ? vectors : "hash-seeded");
    struct svg_heatmap_opts o = {"Self-attention map (your attn_scaled_dot_product)", sub,
                                 "query", "key", labels, labels, m->n, m->n, vals, 0,
                                 (double)max_weight(m) > 0 ? (double)max_weight(m) : 1,
                                 m->n <= 16};
    sb_init(&b, SVG_DEFAULT_CAP);
    if (vals == NULL)
        err_set(e, NULL, 0, 0, "out of memory");
    else if (svg_heatmap(&b, &o, e) == 0)
        rc = svg_save(&b, path, e);
    sb_release(&b);
    free(vals);
    return rc;
}

/* Load the words and (optional) vectors of a command; 0 or -1 with e set. */
static int load_input(const struct sc_opts *o, struct sc_words *w, struct sc_vectors **vs,
                      struct err *e)
{
    *vs = NULL;
    if (o->text == NULL)
        return err_set(e, NULL, 0, 0, "missing --text (TEXT=\"...\" with make)");
    if (sc_tokenize(o->text, "TEXT", w, e) < 0)
        return -1;
    if (o->vectors != NULL && (*vs = sc_vectors_load(o->vectors, e)) == NULL)
        return -1;
    return 0;
}

static int map_run(const struct impl *im, const struct sc_opts *o)
{
    struct sc_words w;
    struct sc_vectors *vs;
    struct sc_map m;
    struct err e;
    const char *svg = o->svg ? o->svg : "attention_map.svg";
    int rc, ascii = o->ascii || (!o->unicode && !utf8_terminal());

    err_clear(&e);
    if (load_input(o, &w, &vs, &e) < 0)
        return cli_fail(&e);
    rc = sc_map_build(im, &w, vs, o->pe, &m, &e);
    sc_vectors_free(vs);
    if (rc != SC_OK)
        return report(rc, &e);
    printf("self-attention map: 1 layer, 1 head, Q = K = V = X, %zu words, d = %zu, %s\n"
           "vectors: %s\n", m.n, m.d, o->pe ? "with your attn_positional_encoding added"
           : "no positional encoding", o->vectors ? o->vectors : "hash-seeded, d = 16");
    print_heatmap(&m, ascii);
    print_top(&m, ascii);
    printf("\nnote: %s\n", o->vectors ? "your vectors set the similarities; even so, a map "
           "of weights is\na description, not an explanation" : lesson);
    rc = map_svg(&m, svg, o->vectors, &e);
    sc_map_release(&m);
    if (rc < 0)
        return cli_fail(&e);
    printf("wrote %s\n", svg);
    return CLI_EXIT_OK;
}

/* Run fn on the submission's sandboxed implementation. */
static int with_submission(const struct sc_opts *o,
                           int (*fn)(const struct impl *, const struct sc_opts *))
{
    int rc = CLI_EXIT_USAGE;
    struct grade_session *g = open_submission(o->submission, o->spec, &rc);
    struct impl im;

    if (g == NULL)
        return rc;
    im = grade_session_impl(g, 0);
    rc = fn(&im, o);
    grade_session_close(g);
    return rc;
}

int cmd_map(int argc, char **argv)
{
    struct sc_opts o;
    int rc = parse_opts(argc, argv, "tvspauS", map_usage, &o);

    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (o.text == NULL)
        return cli_usage("missing --text", map_usage);
    return with_submission(&o, map_run);
}

/* ---- vectors ---------------------------------------------------------------------- */

/* Whether word i of w appeared before (each word gets one line). */
static int seen_before(const struct sc_words *w, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (strcmp(w->w[k], w->w[i]) == 0)
            return 1;
    return 0;
}

int cmd_vectors(int argc, char **argv)
{
    struct sc_opts o;
    struct sc_words w;
    struct err e;
    float v[SC_D];
    int rc = parse_opts(argc, argv, "t@", vec_usage, &o);

    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (o.text == NULL)
        return cli_usage("missing --text", vec_usage);
    err_clear(&e);
    if (sc_tokenize(o.text, "TEXT", &w, &e) < 0)
        return cli_fail(&e);
    printf("# VECTORS for part 3: the hash-seeded vector (d = %d) of each word of\n#   ", SC_D);
    for (const char *p = o.text; *p; p++)   /* one comment line, whatever TEXT holds */
        putchar(*p == '\n' || *p == '\r' ? ' ' : *p);
    printf("\n# one line per word: the word, then its %d numbers. Save this output\n"
           "# (make vectors TEXT=\"...\" > vectors.txt), edit it (give a new word the\n"
           "# numbers of the word it replaces), then: make map TEXT=\"...\" VECTORS=vectors.txt\n",
           SC_D);
    for (size_t i = 0; i < w.n; i++) {
        if (seen_before(&w, i))
            continue;
        sc_word_vector(w.w[i], v, SC_D);
        printf("%s", w.w[i]);
        for (size_t k = 0; k < SC_D; k++)
            printf(" %.9g", (double)v[k]);   /* 9 digits: a float round-trips */
        printf("\n");
    }
    return CLI_EXIT_OK;
}

/* ---- saturation -------------------------------------------------------------------- */

static int sat_svg(const struct sc_sat_row *rows, const char *path, struct err *e)
{
    double x[SC_SAT_ROWS], ys[SC_SAT_ROWS], yu[SC_SAT_ROWS];
    struct svg_series s[2] = {{"with 1/sqrt(d)", ys}, {"without (raw q.k)", yu}};
    struct svg_lines_opts o = {"Softmax saturation (your attn_softmax_rows)",
                               "mean max weight over 256 random queries, 16 keys each; "
                               "1/16 = uniform, 1 = one-hot", "dimension d (log2 scale)",
                               "mean max softmax weight", x, SC_SAT_ROWS, 1, s, 2, 0, 1};
    struct sb b;
    int rc = -1;

    for (size_t i = 0; i < SC_SAT_ROWS; i++) {
        x[i] = (double)rows[i].d;
        ys[i] = rows[i].scaled;
        yu[i] = rows[i].unscaled;
    }
    sb_init(&b, SVG_DEFAULT_CAP);
    if (svg_lines(&b, &o, e) == 0)
        rc = svg_save(&b, path, e);
    sb_release(&b);
    return rc;
}

static int sat_run(const struct impl *im, const struct sc_opts *o)
{
    struct sc_sat_row rows[SC_SAT_ROWS];
    const char *svg = o->svg ? o->svg : "saturation.svg";
    struct err e;
    int rc;

    err_clear(&e);
    if ((rc = sc_saturation(im, SC_SAT_SEED, rows, &e)) != SC_OK)
        return report(rc, &e);
    printf("softmax saturation with your attn_softmax_rows: mean max weight over %d random\n"
           "queries against %d keys, unit-variance components, seed %u\n"
           "(1/%d = %.4f is uniform attention, 1 is one-hot)\n\n", SC_SAT_TRIALS,
           SC_SAT_KEYS, (unsigned)SC_SAT_SEED, SC_SAT_KEYS, 1.0 / SC_SAT_KEYS);
    printf("%6s  %16s  %16s\n", "d", "with 1/sqrt(d)", "without");
    for (size_t i = 0; i < SC_SAT_ROWS; i++)
        printf("%6zu  %16.4f  %16.4f\n", rows[i].d, rows[i].scaled, rows[i].unscaled);
    printf("\nwithout the division the similarities swell like sqrt(d) and the softmax creeps\n"
           "towards one-hot: attention collapses and its gradient vanishes. With it, it holds.\n");
    if (sat_svg(rows, svg, &e) < 0)
        return cli_fail(&e);
    printf("wrote %s\n", svg);
    return CLI_EXIT_OK;
}

int cmd_saturation(int argc, char **argv)
{
    struct sc_opts o;
    int rc = parse_opts(argc, argv, "sS", sat_usage, &o);

    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    return with_submission(&o, sat_run);
}

/* ---- permute ------------------------------------------------------------------------ */

static void print_outputs(const char *title, const struct sc_map *m)
{
    size_t show = m->d < SHOW_DIMS ? m->d : SHOW_DIMS;

    printf("%s (first %zu of %zu dimensions):\n", title, show, m->d);
    for (size_t r = 0; r < m->n; r++) {
        printf("  %3zu %-*.*s", r + 1, ROW_WORD, ROW_WORD, m->words.w[r]);
        for (size_t c = 0; c < show; c++)
            printf(" %9.5f", (double)m->out[r * m->d + c]);
        printf("\n");
    }
}

static void print_verdict(const struct sc_perm *p, int pe)
{
    const char *w = p->perm.words.w[p->at_row];

    if (!pe && p->same_set)
        printf("verdict: without a positional encoding the outputs are the same set of rows,\n"
               "just permuted: row p of the permuted output is row ORDER[p] of the original\n"
               "(max abs diff %.3g after un-permuting). Attention works on a set, not a\n"
               "sequence: it does not see the order of words.\n", p->max_abs_diff);
    else if (!pe)
        printf("verdict: without a positional encoding the outputs should be the same set,\n"
               "just permuted, but they differ by %.6f (row %zu '%s', dimension %zu):\n"
               "something in your attn_scaled_dot_product depends on the position\n",
               p->max_abs_diff, p->at_row + 1, w, p->at_col + 1);
    else if (!p->same_set)
        printf("verdict: with the positional encoding the outputs differ: max abs diff\n"
               "after un-permuting = %.6f (row %zu '%s', dimension %zu). The order of words\n"
               "is no longer invisible. For answers.yaml, part4: max_abs_diff: %.6f\n",
               p->max_abs_diff, p->at_row + 1, w, p->at_col + 1, p->max_abs_diff);
    else
        printf("verdict: with the positional encoding the outputs are still the same set\n"
               "(max abs diff %.3g): is your encoding non-zero, and does ORDER move words?\n",
               p->max_abs_diff);
}

static int perm_run(const struct impl *im, const struct sc_opts *o)
{
    struct sc_words w;
    struct sc_vectors *vs;
    size_t order[SC_MAX_WORDS];
    struct sc_perm p;
    struct err e;
    int rc;

    err_clear(&e);
    if (load_input(o, &w, &vs, &e) < 0)
        return cli_fail(&e);
    if (sc_parse_order(o->order, w.n, order, &e) < 0) {
        sc_vectors_free(vs);
        snprintf(e.file, sizeof e.file, "ORDER");
        return cli_fail(&e);
    }
    rc = sc_permute(im, &w, vs, order, o->pe, &p, &e);
    sc_vectors_free(vs);
    if (rc != SC_OK)
        return report(rc, &e);
    printf("permutation check: 1 layer, 1 head, Q = K = V = X, d = %zu, %s\n\n", p.orig.d,
           o->pe ? "with your attn_positional_encoding" : "no positional encoding");
    print_outputs("outputs, original order", &p.orig);
    print_outputs("outputs, permuted order (position p holds word ORDER[p])", &p.perm);
    printf("\n");
    print_verdict(&p, o->pe);
    sc_perm_release(&p);
    return CLI_EXIT_OK;
}

int cmd_permute(int argc, char **argv)
{
    struct sc_opts o;
    int rc = parse_opts(argc, argv, "tvopS", perm_usage, &o);

    if (rc != 0)
        return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (o.text == NULL || o.order == NULL)
        return cli_usage("missing --text or --order", perm_usage);
    return with_submission(&o, perm_run);
}
