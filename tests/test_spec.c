/*
 * test_spec.c -- loading and validating YAML specs (spec.h).
 *
 * The malformed specs live in tests/specs_bad/, each with the exact
 * message it must produce on its first line:
 *     # expect: LINE:COL: message      (or "# expect: message")
 * The good specs are written inline, to buffers or temporary files.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sha256.h"
#include "spec/spec.h"

#define BAD_DIR "tests/specs_bad"

static const char *const empty_sha =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/* What the property registry would say, without the registry: the six
 * functions are checked by spec.c itself, so only a few names are refused
 * here, to exercise how spec_load places the callback's errors. */
static int check_stub(const struct spec_test *t, const struct spec_case *c,
                      struct err *e)
{
    if (strcmp(t->property, "nope") == 0)
        return err_set(e, NULL, 0, 0, "unknown property '%s' for function '%s'",
                       t->property, t->function);
    if (spec_param(c, "bogus") != NULL)
        return err_set(e, "elsewhere.yaml", 7, 3, "key 'bogus' is not allowed");
    return 0;
}

static char *format(const struct err *e)
{
    static char buf[1024];

    return err_format(e, buf, sizeof buf);
}

/* The "# expect: " line of a bad spec, as err_format() would print it for
 * `path`. Returns 0, or -1 when the file has no expectation. */
static int expectation(const char *path, char *out, size_t n)
{
    char line[512] = "";
    FILE *f = fopen(path, "r");
    const char *prefix = "# expect: ";

    if (f == NULL)
        return -1;
    if (fgets(line, sizeof line, f) == NULL)
        line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, prefix, strlen(prefix)) != 0)
        return -1;
    const char *msg = line + strlen(prefix);
    snprintf(out, n, "%s%s%s", path, msg[0] >= '0' && msg[0] <= '9' ? ":" : ": ", msg);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of every *.yaml in BAD_DIR, sorted; *n receives the count. */
static char **bad_specs(size_t *n)
{
    DIR *d = opendir(BAD_DIR);
    char **names = NULL;
    struct dirent *de;

    cr_assert_not_null(d, "cannot open %s", BAD_DIR);
    *n = 0;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0)
            continue;
        names = realloc(names, (*n + 1) * sizeof *names);
        cr_assert_not_null(names);
        names[(*n)++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, *n, sizeof *names, by_name);
    return names;
}

Test(spec, every_bad_spec_reports_its_exact_message)
{
    size_t n;
    char **names;

    cr_assert_eq(chdir(TEST_SRCDIR), 0);
    names = bad_specs(&n);
    cr_assert(n >= 12, "only %zu bad specs", n);
    for (size_t i = 0; i < n; i++) {
        char path[256], want[1024];
        struct err e;
        struct spec_set *s = spec_set_new();
        snprintf(path, sizeof path, "%s/%s", BAD_DIR, names[i]);
        cr_assert_eq(expectation(path, want, sizeof want), 0, "%s: no '# expect:'", path);
        cr_assert_eq(spec_load(s, path, check_stub, &e), -1, "%s loaded", path);
        cr_expect_str_eq(format(&e), want, "%s:\n got  %s\n want %s", path, format(&e), want);
        cr_expect_eq(spec_test_count(s), 0);
        cr_expect_eq(spec_rule_count(s), 0);
        cr_expect_str_eq(spec_sha256(s), empty_sha);
        spec_set_free(s);
        free(names[i]);
    }
    free(names);
}

static const char good[] =
    "# a small valid spec\n"
    "version: 1\n"
    "source_rules:\n"
    "  - id: no_asm\n"
    "    pattern: '\\b(asm|__asm__)\\b'\n"
    "    message: \"inline assembly is not allowed: write C\"\n"
    "tests:\n"
    "  - id: softmax.rows_sum_to_one\n"
    "    title: \"softmax: every row sums to one\"\n"
    "    function: softmax\n"
    "    property: rows_sum_to_one\n"
    "    points: 1.5\n"
    "    cases:\n"
    "      - {rows: 2, cols: 3, seed: 1}\n"
    "  - id: sdpa.rows_sum_to_one\n"
    "    title: \"attention weights: every row sums to one\"\n"
    "    function: sdpa\n"
    "    property: weights_rows_sum_to_one\n"
    "    points: 2\n"
    "    visibility: after_due_date\n"
    "    scoring: partial\n"
    "    tolerance: 1e-5\n"
    "    timeout_ms: 2000\n"
    "    hint: \"each row of the weights is a softmax\"\n"
    "    depends_on: [softmax.rows_sum_to_one]\n"
    "    cases:\n"
    "      - {n_q: 4, n_k: 4, d_k: 8, d_v: 8, seed: 1}\n"
    "      - {n_q: 3, mask: causal, scale: 3.0, list: [1, -2.5, 1e300], big: -1e300,\n"
    "         odd: 0.5, quoted: \"12\", empty: []}\n";

Test(spec, good_spec_fills_every_field)
{
    struct err e;
    struct spec_set *s = spec_set_new();
    const struct spec_test *a, *b;
    const struct spec_rule *r;

    cr_assert_eq(spec_load_buffer(s, "good.yaml", good, strlen(good), check_stub, &e), 0,
                 "%s", format(&e));
    cr_assert_eq(spec_test_count(s), 2);
    cr_assert_eq(spec_rule_count(s), 1);
    r = spec_rule_at(s, 0);
    cr_expect_str_eq(r->id, "no_asm");
    cr_expect_str_eq(r->pattern, "\\b(asm|__asm__)\\b");
    cr_expect_str_eq(r->message, "inline assembly is not allowed: write C");
    cr_expect(r->line == 4 && r->col == 5 && strcmp(r->file, "good.yaml") == 0);
    a = spec_test_at(s, 0);
    cr_expect_str_eq(a->id, "softmax.rows_sum_to_one");
    cr_expect(a->points == 1.5 && a->tolerance < 0 && a->timeout_ms == 0);
    cr_expect(a->hint == NULL && a->n_depends_on == 0);
    cr_expect(a->visibility == SPEC_VISIBLE && a->scoring == SPEC_ALL_OR_NOTHING);
    cr_expect(a->line == 8 && a->col == 5);
    b = spec_find(s, "sdpa.rows_sum_to_one");
    cr_assert_eq(b, spec_test_at(s, 1));
    cr_expect_str_eq(b->title, "attention weights: every row sums to one");
    cr_expect_str_eq(b->function, "sdpa");
    cr_expect_str_eq(b->property, "weights_rows_sum_to_one");
    cr_expect(b->points == 2.0 && b->tolerance == 1e-5 && b->timeout_ms == 2000);
    cr_expect(b->visibility == SPEC_AFTER_DUE_DATE && b->scoring == SPEC_PARTIAL);
    cr_expect_str_eq(b->hint, "each row of the weights is a softmax");
    cr_assert_eq(b->n_depends_on, 1);
    cr_expect_str_eq(b->depends_on[0], "softmax.rows_sum_to_one");
    cr_assert_eq(b->n_cases, 2);
    cr_expect(b->cases[0].n_params == 5 && b->cases[0].line == 27 &&
              b->cases[0].col == 9);
    cr_expect(spec_find(s, "sdpa.nothing") == NULL);
    spec_set_free(s);
}

Test(spec, case_values_keep_their_kinds)
{
    struct spec_set *s = spec_set_new();
    const struct spec_case *c;
    const struct spec_param *p;

    cr_assert_eq(spec_load_buffer(s, "good.yaml", good, strlen(good), NULL, NULL), 0);
    c = &spec_test_at(s, 1)->cases[1];
    cr_assert_eq(c->n_params, 8);
    cr_expect(spec_num(c, "n_q", 0) == 3.0 && spec_num(c, "scale", 0) == 3.0);
    cr_expect_str_eq(spec_str(c, "mask", NULL), "causal");
    cr_expect_str_eq(spec_str(c, "quoted", NULL), "12", "a quoted number is a string");
    cr_expect(spec_num(c, "quoted", -7) == -7, "no number from a string");
    cr_expect(spec_num(c, "absent", 42) == 42 && spec_str(c, "absent", NULL) == NULL);
    cr_expect(spec_num(c, "big", 0) == -1e300 && spec_num(c, "odd", 0) == 0.5);
    p = spec_param(c, "list");
    cr_assert(p != NULL && p->kind == SPEC_LIST && p->list_len == 3);
    cr_expect(p->list[0] == 1 && p->list[1] == -2.5 && p->list[2] == 1e300);
    cr_expect(p->line == 28 && p->col == 50, "list at %d:%d", p->line, p->col);
    /* NaN, infinities, negative, fractional or huge sizes and seeds are
     * refused at load: tests/specs_bad/case_*.yaml, size_*.yaml, seed_*. */
    p = spec_param(c, "empty");
    cr_expect(p != NULL && p->kind == SPEC_LIST && p->list_len == 0);
    spec_set_free(s);
}

/* A directory of temporary files, removed by tmp_cleanup(). */
struct tmp {
    char dir[64];
    char paths[4][128];
    int n;
};

static const char *tmp_write(struct tmp *t, const char *name, const char *text)
{
    char *path = t->paths[t->n++], local[128];
    FILE *f;

    if (t->dir[0] == '\0') {
        snprintf(t->dir, sizeof t->dir, "/tmp/test_spec.XXXXXX");
        cr_assert_not_null(mkdtemp(t->dir));
    }
    snprintf(local, sizeof local, "%s/%s", t->dir, name);
    memcpy(path, local, sizeof local);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void tmp_cleanup(struct tmp *t)
{
    for (int i = 0; i < t->n; i++)
        unlink(t->paths[i]);
    if (t->dir[0])
        rmdir(t->dir);
}

#define ONE_TEST(id, fn) \
    "  - id: " id "\n    title: \"t\"\n    function: " fn "\n" \
    "    property: p\n    points: 1\n    cases: [{n: 1}]\n"

static const char file_a[] = "version: 1\ntests:\n" ONE_TEST("pe.bounded", "pe");
static const char file_b[] = "version: 1\ntests:\n"
                             ONE_TEST("mha.shapes", "mha")
                             "    depends_on: [pe.bounded]\n";
static const char file_c[] = "version: 1\ntests:\n"
                             ONE_TEST("block.shapes", "block")
                             ONE_TEST("pe.bounded", "pe");

Test(spec, several_files_share_one_set)
{
    struct tmp t = {0};
    const char *a = tmp_write(&t, "a.yaml", file_a), *b = tmp_write(&t, "b.yaml", file_b);
    struct spec_set *s = spec_set_new();
    struct err e;
    char both[sizeof file_a + sizeof file_b], want[SHA256_HEX_LEN];

    cr_assert_eq(spec_load(s, a, check_stub, &e), 0, "%s", format(&e));
    cr_assert_eq(spec_load(s, b, check_stub, &e), 0, "%s", format(&e));
    cr_assert_eq(spec_test_count(s), 2);
    cr_expect_str_eq(spec_test_at(s, 0)->id, "pe.bounded");
    cr_expect_str_eq(spec_test_at(s, 1)->id, "mha.shapes");
    cr_expect_str_eq(spec_test_at(s, 1)->file, b);
    snprintf(both, sizeof both, "%s%s", file_a, file_b);
    sha256_hex(both, strlen(both), want);
    cr_expect_str_eq(spec_sha256(s), want);
    /* the hash of the first file alone: the one golden data made for it
     * names (the template's public.golden beside written.yaml) */
    cr_expect_eq(spec_file_count(s), 2);
    sha256_hex(file_a, strlen(file_a), want);
    cr_expect_str_eq(spec_sha256_upto(s, 1), want);
    cr_expect_str_eq(spec_sha256_upto(s, 2), spec_sha256(s));
    cr_expect_null(spec_sha256_upto(s, 0));
    cr_expect_null(spec_sha256_upto(s, 3));
    spec_set_free(s);
    tmp_cleanup(&t);
}

Test(spec, depends_on_needs_the_earlier_file)
{
    struct spec_set *s = spec_set_new();
    struct err e;

    cr_assert_eq(spec_load_buffer(s, "b.yaml", file_b, strlen(file_b), NULL, &e), -1);
    cr_expect_str_eq(format(&e), "b.yaml:9:18: unknown test 'pe.bounded' in "
                     "'depends_on' (no test with this id is loaded)");
    spec_set_free(s);
}

Test(spec, duplicate_across_files_names_both_and_changes_nothing)
{
    struct tmp t = {0};
    const char *a = tmp_write(&t, "a.yaml", file_a), *c = tmp_write(&t, "c.yaml", file_c);
    struct spec_set *s = spec_set_new();
    struct err e;
    char want[1024], sha[SHA256_HEX_LEN];

    cr_assert_eq(spec_load(s, a, NULL, &e), 0, "%s", format(&e));
    snprintf(sha, sizeof sha, "%s", spec_sha256(s));
    cr_assert_eq(spec_load(s, c, NULL, &e), -1);
    snprintf(want, sizeof want, "%s:9:5: duplicate id 'pe.bounded' (first defined at "
             "%s:3:5)", c, a);
    cr_expect_str_eq(format(&e), want);
    cr_expect_eq(spec_test_count(s), 1, "block.shapes came before the error");
    cr_expect_null(spec_find(s, "block.shapes"));
    cr_expect_str_eq(spec_sha256(s), sha);
    cr_expect_eq(spec_file_count(s), 1, "the refused file counts for nothing");
    spec_set_free(s);
    tmp_cleanup(&t);
}

Test(spec, reading_failures_name_the_file)
{
    static const struct {
        const char *path, *want;
    } cases[] = {
        {"/nonexistent/x.yaml", "cannot read '/nonexistent/x.yaml': No such file or "
                                "directory"},
        {"/tmp", "cannot read '/tmp': Is a directory"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct spec_set *s = spec_set_new();
        struct err e;
        cr_assert_eq(spec_load(s, cases[i].path, NULL, &e), -1);
        cr_expect_str_eq(format(&e), cases[i].want);
        cr_expect_str_eq(e.file, "");
        spec_set_free(s);
    }
}

/* A spec whose only test has n_cases cases of n_params params, the first
 * with a list of n_list numbers. Caller frees. */
static char *generated(size_t n_cases, size_t n_params, size_t n_list)
{
    size_t cap = 64 + n_cases * 16 + n_params * 16 + n_list * 4 + 256, used;
    char *buf = malloc(cap);

    cr_assert_not_null(buf);
    used = (size_t)snprintf(buf, cap, "version: 1\ntests:\n" ONE_TEST("pe.big", "pe")
                            "      - {x: [");
    for (size_t i = 0; i < n_list; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s1", i ? "," : "");
    used += (size_t)snprintf(buf + used, cap - used, "]");
    for (size_t i = 0; i + 1 < n_params; i++)
        used += (size_t)snprintf(buf + used, cap - used, ", k%zu: 1", i);
    used += (size_t)snprintf(buf + used, cap - used, "}\n");
    for (size_t i = 1; i < n_cases; i++)
        used += (size_t)snprintf(buf + used, cap - used, "      - {n: 1}\n");
    return buf;
}

Test(spec, caps_are_enforced_at_the_limit)
{
    static const struct {
        size_t cases, params, list;
        int ok;
        const char *want;
    } rows[] = {
        {1000, 64, 4096, 0, NULL},
        {1001, 1, 1, -1, "g.yaml:9:7: too many cases (at most 1000)"},
        {1, 65, 1, -1, "g.yaml:9:9: too many keys in a case (at most 64)"},
        {1, 1, 4097, -1, "g.yaml:9:13: list 'x' is too long (at most 4096 items)"},
    };

    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *buf = generated(rows[i].cases, rows[i].params, rows[i].list);
        /* ONE_TEST's own one-case list is replaced by the generated cases. */
        char *inline_cases = strstr(buf, "cases: [{n: 1}]");
        struct spec_set *s = spec_set_new();
        struct err e;
        memcpy(inline_cases, "cases:         ", 15);
        cr_assert_eq(spec_load_buffer(s, "g.yaml", buf, strlen(buf), NULL, &e),
                     rows[i].ok, "row %zu: %s", i, format(&e));
        if (rows[i].want != NULL)
            cr_expect_str_eq(format(&e), rows[i].want, "row %zu", i);
        spec_set_free(s);
        free(buf);
    }
}

Test(spec, too_many_tests_and_too_large_files_are_refused)
{
    const size_t n = 10001, cap = n * 80 + 64;
    char *buf = malloc(cap), *big;
    size_t used = (size_t)snprintf(buf, cap, "version: 1\ntests:\n");
    struct spec_set *s = spec_set_new();
    struct err e;

    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(buf + used, cap - used, "- {id: pe.t%zu, title: t, "
                                 "function: pe, property: p, points: 1, cases: [{}]}\n", i);
    cr_assert(used < ((size_t)1 << 20));
    cr_assert_eq(spec_load_buffer(s, "many.yaml", buf, used, NULL, &e), -1);
    cr_expect_str_eq(format(&e), "many.yaml:10003:3: too many tests (at most 10000)");
    big = calloc(1, ((size_t)1 << 20) + 2);
    memset(big, '#', ((size_t)1 << 20) + 1);
    cr_assert_eq(spec_load_buffer(s, "big.yaml", big, strlen(big), NULL, &e), -1);
    cr_expect_str_eq(format(&e), "'big.yaml' is too large (spec files are limited to 1 MiB)");
    cr_expect_eq(spec_test_count(s), 0);
    spec_set_free(s);
    free(big);
    free(buf);
}

Test(spec, ten_thousand_tests_load_and_are_found)
{
    const size_t n = 10000, cap = n * 80 + 64;
    char *buf = malloc(cap);
    size_t used = (size_t)snprintf(buf, cap, "version: 1\ntests:\n");
    struct spec_set *s = spec_set_new();
    struct err e;

    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(buf + used, cap - used, "- {id: pe.t%zu, title: t, "
                                 "function: pe, property: p, points: 1, cases: [{}]}\n", i);
    cr_assert_eq(spec_load_buffer(s, "many.yaml", buf, used, NULL, &e), 0, "%s",
                 format(&e));
    cr_assert_eq(spec_test_count(s), n);
    cr_expect_eq(spec_find(s, "pe.t9999"), spec_test_at(s, 9999));
    cr_expect_eq(spec_find(s, "pe.t0"), spec_test_at(s, 0));
    spec_set_free(s);
    free(buf);
}

Test(spec, callback_position_is_kept_when_given)
{
    static const char text[] = "version: 1\ntests:\n" ONE_TEST("pe.ok", "pe")
                               "  - {id: pe.bad, title: t, function: pe, property: p,\n"
                               "     points: 1, cases: [{n: 1}, {bogus: 2}]}\n";
    struct spec_set *s = spec_set_new();
    struct err e;

    cr_assert_eq(spec_load_buffer(s, "x.yaml", text, strlen(text), check_stub, &e), -1);
    cr_expect_str_eq(format(&e), "elsewhere.yaml:7:3: key 'bogus' is not allowed");
    cr_expect_eq(spec_test_count(s), 0);
    cr_expect_eq(spec_load_buffer(s, "x.yaml", text, strlen(text), NULL, NULL), 0,
                 "a NULL error record and a NULL callback are allowed");
    spec_set_free(s);
}

Test(spec, keys_without_values_are_empty_lists)
{
    static const char text[] = "version: 1\nsource_rules:\ntests:\n"
                               ONE_TEST("pe.ok", "pe") "    depends_on:\n";
    struct spec_set *s = spec_set_new();
    struct err e;

    cr_assert_eq(spec_load_buffer(s, "x.yaml", text, strlen(text), NULL, &e), 0, "%s",
                 format(&e));
    cr_expect_eq(spec_rule_count(s), 0);
    cr_assert_eq(spec_test_count(s), 1);
    cr_expect_eq(spec_test_at(s, 0)->n_depends_on, 0);
    spec_set_free(s);
}

Test(spec, new_set_is_empty)
{
    struct spec_set *s = spec_set_new();

    cr_assert_not_null(s);
    cr_expect_eq(spec_test_count(s), 0);
    cr_expect_eq(spec_rule_count(s), 0);
    cr_expect_null(spec_test_at(s, 0));
    cr_expect_null(spec_rule_at(s, 0));
    cr_expect_null(spec_find(s, "pe.bounded"));
    cr_expect_str_eq(spec_sha256(s), empty_sha);
    spec_set_free(s);
    spec_set_free(NULL);
}
