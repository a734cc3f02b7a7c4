/*
 * test_diag.c -- diagnosis first (grade/diag.h) and the golden data it
 * reads (props/golden.h).
 *
 * For every buggy entry of the catalogue (a function's prefix, a bug that
 * is not "none"), graded against both specs with $(BUILD)/diag.golden (made
 * by `make diag-data` from the same catalogue): the rubric opens with a
 * diagnosis line for the entry's function that names this very mistake,
 * and the first failure the rubric shows for that function is the one the
 * entry's "names:" line gives (when that test fails). Correct submissions
 * get no diagnosis. The golden file itself round-trips byte for byte and a
 * changed byte is refused.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <unistd.h>

#include "grading.h"
#include "props/golden.h"
#include "props/oracle.h"
#include "report/report.h"

#define CAT_DIR TEST_SRCDIR "/tests/submissions"
#define DIAG_DATA TEST_BUILDDIR "/diag.golden"

struct entry {
    char name[256];
};

static int is_buggy(const char *name)
{
    static const char *const fns[] = {"softmax_", "sdpa_", "pe_", "mha_", "layernorm_",
                                      "block_"};
    char path[512];
    struct tg_expect x;
    FILE *f;
    int prefixed = 0;

    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        prefixed |= strncmp(name, fns[i], strlen(fns[i])) == 0;
    snprintf(path, sizeof path, "%s/%s", CAT_DIR, name);
    if (!prefixed || (f = fopen(path, "r")) == NULL)
        return 0;
    fclose(f);
    tg_expectations(path, &x);
    return strncmp(x.bug, "none", 4) != 0;
}

static struct criterion_test_params buggy_entries(void)
{
    struct dirent **list = NULL;
    int n = scandir(CAT_DIR, &list, tg_is_c, tg_by_name);
    struct entry *p = cr_malloc(sizeof *p * (size_t)(n > 0 ? n : 1));
    size_t k = 0;

    for (int i = 0; i < n; i++) {
        if (is_buggy(list[i]->d_name))
            snprintf(p[k++].name, sizeof p->name, "%s", list[i]->d_name);
        free(list[i]);
    }
    free(list);
    return cr_make_param_array(struct entry, p, k, NULL);
}

/* The catalogue header's "names:" test, or "" when none. */
static void names_of(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    char line[1024];

    out[0] = '\0';
    for (int i = 0; f && i < 40 && fgets(line, sizeof line, f); i++)
        if (strncmp(line, " * names: ", 10) == 0)
            snprintf(out, n, "%.*s", (int)strcspn(line + 10, " \r\n"), line + 10);
    if (f)
        fclose(f);
}

/* The text rubric's diagnosis lines as one line each: their wrapped
 * continuations (indented 4) joined back, in place. */
static void join_cause_lines(char *s)
{
    char *w = s;

    for (const char *p = s; *p; p++) {
        if (p[0] == '\n' && strncmp(p + 1, "    ", 4) == 0 && p[5] != ' ') {
            *w++ = ' ';
            p += 4;
            continue;
        }
        *w++ = *p;
    }
    *w = '\0';
}

/* Grade path against both specs with the diagnosis data; the text rubric
 * into *text (caller frees), its diagnosis lines unwrapped. */
static struct grade_result *grade_diag(const char *path, struct gold *g, char **text,
                                       struct spec_set **sp)
{
    struct grd_err e;
    struct spec_set *s = *sp = tg_specs(1, &e);
    struct orc o = {ORC_COMPUTE, g};
    struct grade_opts go;
    struct grade_result *r = NULL;
    struct rpt_opts ro = {0};
    struct strbuf sb;

    cr_assert(s != NULL, "specs: %s", e.msg);
    memset(&go, 0, sizeof go);
    go.specs = s;
    go.seed = 1;
    go.data_dir = TEST_BUILDDIR;
    go.orc = &o;
    cr_assert(grade_submission(path, &go, &r, &e) == 0, "%s: %s", path, e.msg);
    sb_init(&sb, 0);
    cr_assert(rpt_write(r, RPT_TEXT, &ro, &sb, &e) == 0, "%s", e.msg);
    *text = sb_detach(&sb, NULL);
    join_cause_lines(*text);
    return r; /* its tests point into *sp: free r first */
}

static struct gold *load_diag(void)
{
    struct grd_err e;
    struct gold *g;

    cr_assert(access(DIAG_DATA, R_OK) == 0, "%s is missing: run `make diag-data`", DIAG_DATA);
    g = gold_load(DIAG_DATA, &e);
    cr_assert(g != NULL, "%s: %s", DIAG_DATA, e.msg);
    return g;
}

/* The first rubric row (PASS/FAIL/...) of function fn that is not a PASS. */
static const char *first_failure_row(const char *text, const char *fn, char *id, size_t n)
{
    char pat[64];
    const char *p = text;

    snprintf(pat, sizeof pat, "  %s.", fn);
    id[0] = '\0';
    while ((p = strchr(p, '\n')) != NULL) {
        const char *row = ++p, *at;
        if (strncmp(row, "  PASS", 6) == 0 || strncmp(row, "  ", 2) != 0 || row[2] == ' ')
            continue;
        at = strstr(row, pat);
        if (at == NULL || at > strchr(row, '\n'))
            continue;
        snprintf(id, n, "%.*s", (int)strcspn(at + 2, " "), at + 2);
        return id;
    }
    return id;
}

ParameterizedTestParameters(diag, names_the_bug)
{
    return buggy_entries();
}

ParameterizedTest(struct entry *p, diag, names_the_bug, .timeout = 600)
{
    char path[512], fn[32], line[512], names[96], first[96], *text = NULL;
    struct gold *g = load_diag();
    struct tg_expect x;
    struct grade_result *r;
    struct spec_set *s;
    const char *diag, *rows;

    snprintf(path, sizeof path, "%s/%s", CAT_DIR, p->name);
    snprintf(fn, sizeof fn, "%.*s", (int)strcspn(p->name, "_"), p->name);
    tg_expectations(path, &x);
    names_of(path, names, sizeof names);
    r = grade_diag(path, g, &text, &s);
    /* The opening line for fn names this entry's mistake, in its words. */
    snprintf(line, sizeof line, "\n  %s: most likely cause: %.*s", fn,
             (int)strcspn(x.bug, "\r\n"), x.bug);
    diag = strstr(text, "\ndiagnosis (");
    rows = strstr(text, "\n  PASS");
    cr_assert(diag != NULL, "%s: the rubric has no diagnosis:\n%.2000s", p->name, text);
    cr_expect(strstr(text, line) != NULL && (rows == NULL || strstr(text, line) < rows),
              "%s: no opening line '%s' before the tests:\n%.3000s", p->name, line + 1, text);
    snprintf(line, sizeof line, "the known mistake '%.*s')", (int)(strlen(p->name) - 2),
             p->name);
    cr_expect(strstr(text, line) != NULL, "%s: the diagnosis does not name it:\n%.2000s",
              p->name, diag);
    /* The first failure shown for fn is the one that names the bug. */
    first_failure_row(text, fn, first, sizeof first);
    if (names[0] && tg_find(r, names) && tg_find(r, names)->status != TEST_PASSED)
        cr_expect(strcmp(first, names) == 0, "%s: the first %s failure shown is '%s', not "
                  "'%s' (names:)", p->name, fn, first, names);
    free(text);
    grade_result_free(r);
    spec_set_free(s);
    gold_free(g);
}

Test(diag, correct_gets_none, .timeout = 600)
{
    struct gold *g = load_diag();
    char *text = NULL;
    struct spec_set *s;
    struct grade_result *r = grade_diag(TEST_SRCDIR "/reference/attention.c", g, &text, &s);

    cr_expect(r->n_causes == 0 && strstr(text, "\ndiagnosis (") == NULL,
              "the reference got a diagnosis:\n%.2000s", text);
    free(text);
    grade_result_free(r);
    spec_set_free(s);
    gold_free(g);
}

/* ---- the golden file ---------------------------------------------------- */

static struct gold *small_store(void)
{
    static const unsigned char k1[GOLD_KEY_LEN] = {1, 2, 3}, k2[GOLD_KEY_LEN] = {9};
    static const double v1[] = {1.0, -0.0, 1e-300, 0.1}, v2[] = {3.5};
    static const char *const fails[] = {"sdpa.values", "sdpa.causal"};
    struct gold *g = gold_new();
    struct grd_err e;

    cr_assert(g != NULL);
    cr_assert(gold_put(g, k1, v1, 4, &e) == 0 && gold_put(g, k2, v2, 1, &e) == 0);
    cr_assert(gold_add_variant(g, "sdpa_no_scale", "sdpa", "sdpa.causal",
                               "attention forgets the division by sqrt(d_k)", fails, 2,
                               &e) == 0, "%s", e.msg);
    gold_set_origin(g, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                    42);
    return g;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 1 << 20);

    cr_assert(f != NULL && buf != NULL);
    *n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    return buf;
}

Test(golden, round_trip_is_byte_identical)
{
    char a[] = "/tmp/golden-test-XXXXXX", b[64];
    struct gold *g = small_store(), *h;
    struct grd_err e;
    const double *v;
    size_t n, na, nb;
    int fd = mkstemp(a);
    char *ta, *tb;

    cr_assert(fd >= 0);
    close(fd);
    snprintf(b, sizeof b, "%s.2", a);
    cr_assert(gold_save(g, a, &e) == 0, "%s", e.msg);
    h = gold_load(a, &e);
    cr_assert(h != NULL, "%s", e.msg);
    cr_expect(gold_count(h) == 2 && gold_seed(h) == 42 && gold_variant_count(h) == 1);
    v = gold_get(h, (const unsigned char[GOLD_KEY_LEN]){1, 2, 3}, &n);
    cr_assert(v != NULL && n == 4);
    cr_expect(v[2] == 1e-300 && v[3] == 0.1 && v[1] == 0.0, "values are not exact");
    cr_expect(strcmp(gold_variant_at(h, 0)->names, "sdpa.causal") == 0);
    cr_expect(gold_variant_at(h, 0)->n_fails == 2);
    cr_assert(gold_save(h, b, &e) == 0, "%s", e.msg);
    ta = slurp(a, &na);
    tb = slurp(b, &nb);
    cr_expect(na == nb && memcmp(ta, tb, na) == 0, "saving a loaded store changed its bytes");
    free(ta);
    free(tb);
    unlink(a);
    unlink(b);
    gold_free(g);
    gold_free(h);
}

Test(golden, a_changed_byte_is_refused)
{
    char a[] = "/tmp/golden-test-XXXXXX";
    struct gold *g = small_store();
    struct grd_err e;
    int fd = mkstemp(a);
    size_t n;
    char *t;
    FILE *f;

    cr_assert(fd >= 0);
    close(fd);
    cr_assert(gold_save(g, a, &e) == 0, "%s", e.msg);
    t = slurp(a, &n);
    t[n / 2] = t[n / 2] == '0' ? '1' : '0';
    f = fopen(a, "wb");
    fwrite(t, 1, n, f);
    fclose(f);
    cr_expect(gold_load(a, &e) == NULL, "a changed golden file was loaded");
    cr_expect(strstr(e.msg, "closing hash") != NULL, "%s", e.msg);
    f = fopen(a, "wb");
    fwrite(t, 1, n - 20, f); /* truncated */
    fclose(f);
    cr_expect(gold_load(a, &e) == NULL, "a truncated golden file was loaded");
    free(t);
    unlink(a);
    gold_free(g);
}
