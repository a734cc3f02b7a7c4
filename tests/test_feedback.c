/*
 * test_feedback.c -- what a student reads, across every format (issue 40):
 *
 *  - one order everywhere: the text rubric, Markdown (feedback.md, the job
 *    summary), Gradescope's results.json and the GitHub annotations of one
 *    graded submission list the tests that did not pass in the same order,
 *    and none says "depends on X: fix that first" before X is listed;
 *    results.json (top-level output and each failing test's output) and
 *    the annotations carry the text rubric's diagnosis lines, in its order.
 *    On the d_k bug (sdpa_scale_by_d.c) and `make demo`'s block_prenorm.c,
 *    graded against both specs with the diagnosis data ($(BUILD)/diag.golden).
 *  - a hint only where its premise holds: five bugs written by hand
 *    (tests/hint_premises/), each of which drew a hint written for another
 *    mistake, show none of those hints; the catalogue entries the hints
 *    were written for still get them.
 *  - no cause named on evidence that does not single it out: uniform
 *    weights for a query that sees no key are not "-1e9 added", a row
 *    never written (the grader's NaN fill) is not "0 by 0"
 *    (tests/wrong_causes/); the catalogue's own entries of those mistakes
 *    are still named.
 */
#include <criterion/criterion.h>

#include "grading.h"
#include "oracle/golden.h"
#include "oracle/oracle.h"
#include "report/report.h"
#include "support/json_read.h"

#define CAT_DIR TEST_CATDIR "/submissions"
#define DIAG_DATA TEST_BUILDDIR "/diag.golden"
#define MAX_ENT 128

/* One test as a format shows it: its id and what is written under it. */
struct ent {
    char id[TG_ID_MAX];
    char *body;
};

struct shown {
    const char *format;
    struct ent e[MAX_ENT];
    size_t n;
};

static void shown_free(struct shown *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].body);
    s->n = 0;
}

static struct ent *add(struct shown *s, const char *id, size_t n)
{
    struct ent *e;

    cr_assert_lt(s->n, MAX_ENT);
    e = &s->e[s->n++];
    snprintf(e->id, sizeof e->id, "%.*s", (int)n, id);
    e->body = strdup("");
    return e;
}

static void append(struct ent *e, const char *s, size_t n)
{
    size_t have = strlen(e->body);
    char *b = realloc(e->body, have + n + 2);

    cr_assert_not_null(b);
    memcpy(b + have, s, n);
    b[have + n] = '\n';
    b[have + n + 1] = '\0';
    e->body = b;
}

/* The text rubric: "  FAIL   0.0/1.5    id  title" rows (not PASS), each
 * followed by its indented details. */
static void parse_text(const char *t, struct shown *s)
{
    static const char *const words[] = {"FAIL ", "CRASH", "TIME ", "TODO ", "SKIP ", "HELD "};
    struct ent *cur = NULL;

    s->format = "text";
    for (const char *p = t; *p; ) {
        size_t n = strcspn(p, "\n"), w;
        int row = 0;
        for (w = 0; w < sizeof words / sizeof words[0]; w++)
            row |= n > 8 && strncmp(p, "  ", 2) == 0 && strncmp(p + 2, words[w], 5) == 0;
        if (row) {
            const char *q = p + 7;
            q += strspn(q, " ");
            q += strcspn(q, " ");      /* the points */
            q += strspn(q, " ");
            cur = add(s, q, strcspn(q, " \n"));
        } else if (n > 2 && strncmp(p, "  PASS", 6) == 0) {
            cur = NULL;
        } else if (cur && n > 0 && p[0] == ' ') {
            append(cur, p, n);
        } else {
            cur = NULL;
        }
        p += n + (p[n] == '\n');
    }
}

/* Markdown: "### FAIL: sdpa.scale\_across\_d" sections (ids unescaped). */
static void parse_md(const char *t, struct shown *s)
{
    struct ent *cur = NULL;

    s->format = "markdown";
    for (const char *p = t; *p; ) {
        size_t n = strcspn(p, "\n");
        if (strncmp(p, "### ", 4) == 0) {
            const char *q = memchr(p, ':', n);
            char id[TG_ID_MAX];
            size_t k = 0;
            cr_assert_not_null(q, "%.*s", (int)n, p);
            for (q += 2; q < p + n && k + 1 < sizeof id; q++)
                if (*q != '\\')
                    id[k++] = *q;
            cur = add(s, id, k);
        } else if (strncmp(p, "## ", 3) == 0) {
            cur = NULL;
        } else if (cur) {
            append(cur, p, n);
        }
        p += n + (p[n] == '\n');
    }
}

/* results.json: the tests not passed ("id: title" names), their output. */
static void parse_gradescope(const struct json_value *v, struct shown *s)
{
    const struct json_value *tests = json_get(v, "tests");

    s->format = "gradescope";
    cr_assert_not_null(tests);
    for (size_t i = 0; i < tests->n; i++) {
        const struct json_value *t = json_at(tests, i), *st = json_get(t, "status");
        const char *name = json_get(t, "name")->str;
        struct ent *e;
        if (st == NULL || strcmp(st->str, "passed") == 0)
            continue;
        e = add(s, name, strcspn(name, ":"));
        append(e, json_get(t, "output")->str, json_get(t, "output")->str_len);
    }
}

/* A workflow command's message, unescaped, into a fresh string. */
static char *gh_message(const char *p, size_t n)
{
    const char *m = strstr(p + 2, "::");
    char *out = calloc(1, n + 1), *w = out;

    cr_assert(m && m < p + n);
    for (m += 2; m < p + n; m++) {
        if (strncmp(m, "%0A", 3) == 0 || strncmp(m, "%0D", 3) == 0 ||
            strncmp(m, "%25", 3) == 0) {
            *w++ = m[1] == '0' ? (m[2] == 'A' ? '\n' : '\r') : '%';
            m += 2;
        } else {
            *w++ = *m;
        }
    }
    return out;
}

/* The GitHub annotations: "::error file=...,title=ID (a/b)::message"; the
 * "diagnosis" notice's message into *diag (caller frees). */
static void parse_github(const char *t, struct shown *s, char **diag)
{
    s->format = "github";
    *diag = NULL;
    for (const char *p = t; *p; ) {
        size_t n = strcspn(p, "\n");
        const char *title = strstr(p, ",title=");
        if (title && title < p + n && strncmp(p, "::error ", 8) == 0) {
            char *m = gh_message(p, n);
            struct ent *e = add(s, title + 7, strcspn(title + 7, " :"));
            append(e, m, strlen(m));
            free(m);
        } else if (title && title < p + n && strncmp(p, "::notice ", 9) == 0 &&
                   strncmp(title + 7, "diagnosis::", 11) == 0) {
            *diag = gh_message(p, n);
        }
        p += n + (p[n] == '\n');
    }
}

static size_t index_of(const struct shown *s, const char *id)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->e[i].id, id) == 0)
            return i;
    return SIZE_MAX;
}

/* No entry says "depends on X[, Y]: fix ..." before X (and Y) is listed.
 * The annotations leave withheld tests out: there a dependency may be
 * missing, never later. Returns how many "depends on" lines were seen. */
static size_t expect_dependencies_first(const struct shown *s, const char *what)
{
    size_t seen = 0;

    for (size_t i = 0; i < s->n; i++) {
        const char *d = strstr(s->e[i].body, "depends on ");
        const char *end;
        if (d == NULL)
            continue;
        seen++;
        d += 11;
        end = strstr(d, ": fix");
        cr_assert_not_null(end, "%s", s->e[i].body);
        while (d < end) {
            char id[TG_ID_MAX];
            size_t n = strcspn(d, ",:"), at;
            snprintf(id, sizeof id, "%.*s", (int)n, d);
            at = index_of(s, id);
            if (at == SIZE_MAX && strcmp(s->format, "github") == 0) {
                /* withheld itself: not annotated */
            } else {
                cr_expect(at < i, "%s, %s: %s (entry %zu) says \"depends on %s: fix ... "
                          "first\" but %s is %s", what, s->format, s->e[i].id, i + 1, id, id,
                          at == SIZE_MAX ? "not listed" : "listed after it");
            }
            d += n;
            d += strspn(d, ", ");
        }
    }
    return seen;
}

/* The tests both formats list come in the same order. */
static void expect_same_order(const struct shown *a, const struct shown *b, const char *what)
{
    size_t last = 0, common = 0;

    for (size_t i = 0; i < b->n; i++) {
        size_t at = index_of(a, b->e[i].id);
        if (at == SIZE_MAX)
            continue;
        cr_expect(common == 0 || at > last, "%s: %s lists %s after %s, %s the other way round",
                  what, b->format, b->e[i].id, a->e[last].id, a->format);
        last = at;
        common++;
    }
    cr_expect_gt(common, 1, "%s: %s and %s share no tests", what, a->format, b->format);
}

static struct gold *load_diag(void)
{
    struct err e;
    struct gold *g;

    cr_assert(access(DIAG_DATA, R_OK) == 0, "%s is missing: run `make diag-data`", DIAG_DATA);
    g = gold_load(DIAG_DATA, &e);
    cr_assert(g != NULL, "%s: %s", DIAG_DATA, e.msg);
    return g;
}

static struct grade_result *grade_both(const char *path, struct gold *g, struct spec_set **sp)
{
    struct err e;
    struct orc o = {ORC_COMPUTE, g};
    struct grade_opts go;
    struct grade_result *r = NULL;

    *sp = tg_specs(1, &e);
    cr_assert(*sp != NULL, "specs: %s", e.msg);
    memset(&go, 0, sizeof go);
    go.specs = *sp;
    go.seed = 1;
    go.data_dir = TEST_BUILDDIR;
    go.orc = &o;
    cr_assert(grade_submission(path, &go, &r, &e) == 0, "%s: %s", path, e.msg);
    return r;
}

static char *render(const struct grade_result *r, enum rpt_format f, const struct rpt_opts *o)
{
    struct sb sb;
    struct err e;

    sb_init(&sb, 0);
    cr_assert(rpt_write(r, f, o, &sb, &e) == 0, "%s", e.msg);
    return sb_detach(&sb, NULL);
}

/* The text rubric's diagnosis lines, each with its wrapped continuations
 * (indented 2 more than it) joined and its leading blanks dropped, into a
 * NULL-terminated lines[]; the count. */
static size_t diagnosis_lines(const char *text, char **lines, size_t max)
{
    const char *p = strstr(text, "\ndiagnosis (");
    size_t k = 0;

    cr_assert_not_null(p, "no diagnosis in\n%s", text);
    p += 1 + strcspn(p + 1, "\n") + 1;     /* the heading */
    while (*p && *p != '\n' && k + 1 < max) {
        size_t n = strcspn(p, "\n"), indent = strspn(p, " ");
        char *l = malloc(strlen(p) + 1), *w = l;
        for (;;) {
            size_t in = strspn(p, " ");
            if (w > l)
                *w++ = ' ';
            memcpy(w, p + in, n - in);
            w += n - in;
            p += n + (p[n] == '\n');
            n = strcspn(p, "\n");
            if (strspn(p, " ") != indent + 2)
                break;
        }
        *w = '\0';
        lines[k++] = l;
    }
    lines[k] = NULL;
    return k;
}

/* s with each line's leading blanks dropped and wrapped text joined: the
 * lines of `lines` must appear in it, in order. */
static void expect_lines_in_order(char *const *lines, const char *s, const char *what)
{
    const char *at = s;

    for (size_t i = 0; lines[i]; i++) {
        const char *f = strstr(at, lines[i]);
        cr_expect_not_null(f, "%s: the text rubric's diagnosis line\n  %s\nis not there%s "
                           "in:\n%s", what, lines[i], strstr(s, lines[i]) ? " in order" : "",
                           s);
        if (f)
            at = f + strlen(lines[i]);
    }
}

/* Whether test id is one a student sees before the grades are published
 * (the others' outputs carry no diagnosis that could name them early). */
static int visible(const struct grade_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (r->tests[i].test && strcmp(r->tests[i].test->id, id) == 0)
            return r->tests[i].test->visibility == SPEC_VISIBLE;
    return 0;
}

static void one_order(const char *name)
{
    char path[512], *text, *red, *md, *student, *gs, *gh, *gh_diag;
    char *lines[64], *red_lines[64];
    struct gold *g = load_diag();
    struct spec_set *s;
    struct grade_result *r;
    struct shown st = {0}, sm = {0}, ss = {0}, sg = {0}, sh = {0};
    struct json_value *v;
    struct err e;
    static const struct rpt_opts plain = {0}, redact = {.redact_hidden = 1},
                                 student_view = {.student_view = 1};

    snprintf(path, sizeof path, "%s/%s", CAT_DIR, name);
    r = grade_both(path, g, &s);
    cr_assert_gt(r->n_causes, 0, "%s: no cause named: the data is stale?", name);
    text = render(r, RPT_TEXT, &plain);
    red = render(r, RPT_TEXT, &redact);
    md = render(r, RPT_MARKDOWN, &plain);
    student = render(r, RPT_MARKDOWN, &student_view);
    gs = render(r, RPT_GRADESCOPE, &plain);
    gh = render(r, RPT_GITHUB, &plain);
    v = json_parse(gs, strlen(gs), &e);
    cr_assert_not_null(v, "%s", e.msg);

    parse_text(text, &st);
    parse_md(md, &sm);
    parse_md(student, &ss);
    ss.format = "feedback.md";
    parse_gradescope(v, &sg);
    parse_github(gh, &sh, &gh_diag);

    cr_expect_gt(expect_dependencies_first(&st, name), 0, "%s: no \"depends on\" line", name);
    expect_dependencies_first(&sm, name);
    expect_dependencies_first(&ss, name);
    expect_dependencies_first(&sg, name);
    expect_dependencies_first(&sh, name);
    expect_same_order(&st, &sm, name);
    expect_same_order(&st, &ss, name);
    expect_same_order(&st, &sg, name);
    expect_same_order(&st, &sh, name);

    /* The diagnosis lines: the annotations carry the rubric's, results.json
     * those of the visible tests (the rubric's with hidden tests redacted). */
    diagnosis_lines(text, lines, 64);
    diagnosis_lines(red, red_lines, 64);
    cr_assert_not_null(gh_diag, "%s: no diagnosis annotation in\n%s", name, gh);
    expect_lines_in_order(lines, gh_diag, name);
    expect_lines_in_order(red_lines, json_get(v, "output")->str, name);
    for (size_t i = 0; i < sg.n; i++) {
        const char *fn_line = NULL;
        char fn[64];
        snprintf(fn, sizeof fn, "%.*s: ", (int)strcspn(sg.e[i].id, "."), sg.e[i].id);
        for (size_t k = 0; red_lines[k] && !fn_line; k++)
            if (strncmp(red_lines[k], fn, strlen(fn)) == 0)
                fn_line = red_lines[k];
        if (fn_line && visible(r, sg.e[i].id))
            cr_expect_not_null(strstr(sg.e[i].body, fn_line), "%s: results.json's output "
                               "of %s lacks its function's diagnosis line\n  %s\n:\n%s", name,
                               sg.e[i].id, fn_line, sg.e[i].body);
    }

    for (size_t k = 0; lines[k]; k++)
        free(lines[k]);
    for (size_t k = 0; red_lines[k]; k++)
        free(red_lines[k]);
    shown_free(&st);
    shown_free(&sm);
    shown_free(&ss);
    shown_free(&sg);
    shown_free(&sh);
    json_free(v);
    free(gh_diag);
    free(text);
    free(red);
    free(md);
    free(student);
    free(gs);
    free(gh);
    grade_result_free(r);
    spec_set_free(s);
    gold_free(g);
}

Test(feedback, one_order_for_the_d_k_bug, .timeout = 600)
{
    one_order("sdpa_scale_by_d.c");
}

Test(feedback, one_order_for_the_demo_block_prenorm, .timeout = 600)
{
    one_order("block_prenorm.c");
}

/* ---- hints only where their premise holds ------------------------------- */

#define PREMISE_DIR TEST_CATDIR "/hint_premises"

/* Grade path against both specs (no diagnosis needed: hints are the
 * tests' own). */
static struct grade_result *grade_plain(const char *path, struct spec_set **sp)
{
    struct err e;
    struct grade_opts go;
    struct grade_result *r = NULL;

    *sp = tg_specs(1, &e);
    cr_assert(*sp != NULL, "specs: %s", e.msg);
    memset(&go, 0, sizeof go);
    go.specs = *sp;
    go.seed = 1;
    go.data_dir = TEST_BUILDDIR;
    cr_assert(grade_submission(path, &go, &r, &e) == 0, "%s: %s", path, e.msg);
    return r;
}

/* The test ids of r whose hint holds `words`, comma separated, into buf. */
static const char *hinted(const struct grade_result *r, const char *words, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t i = 0; i < r->n_tests; i++)
        if (r->tests[i].hint && strstr(r->tests[i].hint, words))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     r->tests[i].test->id);
    return buf;
}

struct premise_case {
    const char *file;        /* tests/hint_premises/ or tests/submissions/ */
    const char *words;       /* a hint's words */
    int shown;               /* 1: some test shows it; 0: none may */
};

/* The five wrong-way hints of issue 40, by the words of each hint (spec
 * hints and the properties' own), and the catalogue entries each hint was
 * written for. */
static const struct premise_case premise_cases[] = {
    {PREMISE_DIR "/pe_transposed.c", "sin and cos swapped", 0},
    {CAT_DIR "/pe_sin_cos_swapped.c", "sin and cos swapped", 1},
    {CAT_DIR "/pe_sin_cos_swapped_v2.c", "sin and cos swapped", 1},
    {PREMISE_DIR "/sdpa_scale_sqrt_nk.c", "leave it out of the max", 0},
    {PREMISE_DIR "/sdpa_scale_sqrt_nk.c", "hidden keys get weight exactly 0", 0},
    {PREMISE_DIR "/sdpa_scale_sqrt_nk.c", "a causal mask lets", 0},
    {PREMISE_DIR "/sdpa_scale_sqrt_nk.c", "sum of exponentials is 0", 0},
    {CAT_DIR "/sdpa_inverted_mask.c", "leave it out of the max", 1},
    {CAT_DIR "/sdpa_always_causal.c", "leave it out of the max", 1},
    {CAT_DIR "/sdpa_mask_eq_one.c", "leave it out of the max", 1},
    {CAT_DIR "/sdpa_mask_eq_one.c", "hidden keys get weight exactly 0", 1},
    {PREMISE_DIR "/sdpa_null_mask_hides_all.c", "fill `weights`", 0},
    {PREMISE_DIR "/softmax_shift_by_min.c", "visit every column", 0},
    {CAT_DIR "/softmax_max_skips_last.c", "visit every column", 1},
    {CAT_DIR "/softmax_max_skips_last_v2.c", "visit every column", 1},
    {PREMISE_DIR "/sdpa_scale_by_d_k.c", "leave it out of the max", 0},
    {PREMISE_DIR "/sdpa_scale_by_d_k.c", "test before use", 0},
    {PREMISE_DIR "/sdpa_scale_by_d_k.c", "hidden keys get weight exactly 0", 0},
    {PREMISE_DIR "/sdpa_scale_by_d_k.c", "sum of exponentials is 0", 0},
    {PREMISE_DIR "/sdpa_scale_by_d_k.c", "a causal mask lets", 0},
    {CAT_DIR "/sdpa_masked_nan.c", "sum of exponentials is 0", 1},
};

Test(feedback, hints_only_where_their_premise_holds, .timeout = 900)
{
    const char *last = NULL;
    struct grade_result *r = NULL;
    struct spec_set *s = NULL;
    char buf[1024];

    for (size_t i = 0; i < sizeof premise_cases / sizeof premise_cases[0]; i++) {
        const struct premise_case *c = &premise_cases[i];
        if (last == NULL || strcmp(last, c->file) != 0) {
            if (r) {
                grade_result_free(r);
                spec_set_free(s);
            }
            r = grade_plain(c->file, &s);
            last = c->file;
        }
        hinted(r, c->words, buf, sizeof buf);
        if (c->shown)
            cr_expect(buf[0] != '\0', "%s: no test shows the hint \"%s\" written for it",
                      c->file, c->words);
        else
            cr_expect(buf[0] == '\0', "%s: %s show%s the hint \"%s\", whose premise its "
                      "outputs contradict", c->file, buf, strchr(buf, ',') ? "" : "s",
                      c->words);
    }
    grade_result_free(r);
    spec_set_free(s);
}

/* ---- causes named only on evidence that singles them out ------------------ */

#define WRONG_DIR TEST_CATDIR "/wrong_causes"

struct cause_case {
    const char *file;
    const char *bug;         /* words of the cause's bug line */
    int named;               /* 1: sdpa's cause is it; 0: it is not named */
};

static const struct cause_case cause_cases[] = {
    {WRONG_DIR "/sdpa_all_hidden_uniform.c", "-1e9", 0},
    {WRONG_DIR "/sdpa_all_hidden_unwritten.c", "0 by 0", 0},
    {CAT_DIR "/sdpa_mask_minus_big.c", "-1e9", 1},
    {CAT_DIR "/sdpa_mask_minus_big_v2.c", "-1e9", 1},
    {CAT_DIR "/sdpa_masked_nan.c", "0 by 0", 1},
    {CAT_DIR "/sdpa_masked_nan_v2.c", "0 by 0", 1},
};

Test(feedback, causes_only_on_evidence_that_singles_them_out, .timeout = 900)
{
    struct gold *g = load_diag();

    for (size_t i = 0; i < sizeof cause_cases / sizeof cause_cases[0]; i++) {
        const struct cause_case *c = &cause_cases[i];
        struct spec_set *s;
        struct grade_result *r = grade_both(c->file, g, &s);
        const struct grade_cause *k = NULL;
        for (size_t j = 0; j < r->n_causes; j++)
            if (strcmp(r->causes[j].function, "sdpa") == 0)
                k = &r->causes[j];
        if (c->named)
            cr_expect(k && k->bug && strstr(k->bug, c->bug), "%s: sdpa's cause is %s, not "
                      "the one with \"%s\"", c->file, k && k->bug ? k->bug : "none", c->bug);
        else
            cr_expect(!(k && k->bug && strstr(k->bug, c->bug)), "%s: named \"%s\" on "
                      "evidence that does not single it out", c->file, k->bug);
        grade_result_free(r);
        spec_set_free(s);
    }
    gold_free(g);
}
