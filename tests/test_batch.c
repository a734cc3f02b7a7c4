/*
 * test_batch.c -- batch grading: ids and --id-regex, shards, RFC 4180
 * escaping, atomic writes, and whole batches through the real pipeline
 * (forked workers grading a small class built from the reference, the
 * buggy catalogue and tests/batch_fixtures/): the expected rows, resuming,
 * merge of three shards, an interrupted batch, the CLI.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "support/json_read.h"
#include "grade/grade_props.h"
#include "props/prop.h"
#include "batch/summary.h"
#include "batch_util.h"

#define FIX TEST_SRCDIR "/tests/batch_fixtures/"
#define IDRE "^attention-(?<id>.+?)(?:\\.c)?$"
#define COMMA_ID "smith, \"jo\""
/* The id bat_id_make gives it (documented, stable: it is part of the
 * gradebook's contract, so a change here is a change for every TA). */
#define COMMA_ID_MADE "smith_jo_~0edae6ac21db"

/* The class: entry name (a trailing '/' makes a directory holding
 * attention.c) and the file it is a copy of. */
struct entry_src {
    const char *name, *src;
};

static const struct entry_src class_full[] = {
    {"attention-alice/", TEST_SRCDIR "/reference/attention.c"},
    {"attention-bob.c", TEST_CATDIR "/submissions/softmax_wrong_axis.c"},
    {"attention-dave.c", FIX "broken.c"},
    {"attention-eve-loop.c", FIX "loop_forever.c"},
    {"attention-eve-exit.c", FIX "calls_exit.c"},
    {"attention-" COMMA_ID ".c", FIX "broken.c"},
    {"attn_frank.c", TEST_SRCDIR "/reference/attention.c"},  /* misnamed */
    {"notes.txt", FIX "broken.c"},                           /* not a submission */
    {"attention-gil/", NULL},                                /* no attention.c */
};

/* The expected rows of class_full, in id order. */
static const struct {
    const char *id, *status;
} expected_rows[] = {
    {"alice", "ok"}, {"attn_frank", "skipped"}, {"bob", "ok"}, {"dave", "compile_error"},
    {"eve-exit", "rejected"}, {"eve-loop", "ok"}, {"gil", "missing"},
    {COMMA_ID_MADE, "compile_error"},
};
#define N_EXPECTED (sizeof expected_rows / sizeof expected_rows[0])
#define N_ABSENT 2   /* frank and gil get a row but are not graded */

/* ---- helpers ---- */

static char *make_class(const struct entry_src *v, size_t n)
{
    char tmpl[] = "/tmp/test-batch-XXXXXX", path[4096];
    char *root = strdup(mkdtemp(tmpl));

    snprintf(path, sizeof path, "%s/class", root);
    cr_assert(mkdir(path, 0755) == 0);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(v[i].name);

        if (v[i].name[len - 1] == '/') {
            snprintf(path, sizeof path, "%s/class/%.*s", root, (int)(len - 1), v[i].name);
            cr_assert(mkdir(path, 0755) == 0);
            snprintf(path, sizeof path, "%s/class/%sattention.c", root, v[i].name);
        } else {
            snprintf(path, sizeof path, "%s/class/%s", root, v[i].name);
        }
        if (v[i].src != NULL)   /* NULL: an empty folder */
            bu_copy(v[i].src, path);
    }
    return root;
}

static struct spec_set *load_specs(void)
{
    struct spec_set *s = spec_set_new();
    struct err e;

    cr_assert(s != NULL);
    cr_assert(spec_load(s, TEST_SRCDIR "/specs/public.yaml", gprop_check_case, &e) == 0,
              "spec: %s", e.msg);
    return s;
}

static void discover(const char *root, const char *pattern, struct bat_list *l)
{
    char dir[4096];
    const char *dirs[1] = {dir};
    struct bat_idre *re = NULL;
    struct err e;

    snprintf(dir, sizeof dir, "%s/class", root);
    if (pattern != NULL)
        cr_assert((re = bat_idre_new(pattern, &e)) != NULL, "%s", e.msg);
    cr_assert(bat_discover(dirs, 1, re, l, NULL, NULL, &e) == 0, "%s", e.msg);
    bat_idre_free(re);
}

struct counts {
    size_t graded, skipped;
};

static void count_event(void *ctx, const struct bat_event *ev)
{
    struct counts *c = ctx;

    if (ev->skipped)
        c->skipped++;
    else
        c->graded++;
}

static int run(const struct bat_list *l, const struct spec_set *s, const char *out,
               struct counts *c, const volatile sig_atomic_t *stop)
{
    struct bat_opts o = {s, out, TEST_BUILDDIR, "test", 1, 2, 0, 0, 0,
                         count_event, c, stop, 0, NULL, 0};
    struct err e;
    int rc = bat_run(l, &o, &e);

    cr_assert(rc >= 0, "batch: %s", e.msg);
    return rc;
}

static void out_path(const char *root, const char *sub, const char *file, char *buf,
                     size_t n)
{
    int k = snprintf(buf, n, "%s/%s%s%s", root, sub, file[0] ? "/" : "", file);

    cr_assert(k > 0 && (size_t)k < n, "path too long");
}

/* ---- pure functions ---- */

Test(batch, csv_escapes_rfc4180)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"alice", "alice"},
        {"smith, jo", "\"smith, jo\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"two\nlines", "\"two\nlines\""},
        {"cr\rhere", "\"cr\rhere\""},
        {" padded", "\" padded\""},
        {"", ""},
        {"ünï", "ünï"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sb sb;

        sb_init(&sb, 0);
        cr_assert(bat_csv_field(&sb, cases[i].in) == 0);
        cr_expect_str_eq(sb_str(&sb), cases[i].out, "field %zu", i);
        sb_release(&sb);
    }
}

Test(batch, csv_leaves_manual_items_blank)
{
    struct bat_test_row tests[] = {
        {(char *)"written.top_pairs", "passed", 4, 4, (char *)""},
        {(char *)"written.manual.part2", "manual_pending", 0, 6, (char *)""},
    };
    struct bat_row row;
    const char *const ids[] = {"written.top_pairs", "written.manual.part2"};
    struct sb sb;

    memset(&row, 0, sizeof row);
    row.id = (char *)"alice";
    snprintf(row.status, sizeof row.status, "ok");
    row.score = 4;
    row.max_score = 10;
    row.tests = tests;
    row.n_tests = 2;
    sb_init(&sb, 0);
    cr_assert(bat_csv_write(ids, 2, &row, 1, &sb) == 0);
    /* A TA has not scored the manual item yet: blank, never a 0 grade. */
    cr_expect(strstr(sb_str(&sb), "\r\nalice,4,10,ok,4,,") != NULL, "%s", sb_str(&sb));
    sb_release(&sb);
}

Test(batch, id_regex_extracts_named_group)
{
    static const struct {
        const char *pattern, *name, *id; /* id NULL: no match */
    } cases[] = {
        {"^attention-(?<id>.+)$", "attention-octocat", "octocat"},
        {"^attention-(?<id>.+)$", "homework-octocat", NULL},
        {"_(?<id>\\d+)_assignsubmission_file_?$",
         "Ada Lovelace_12345_assignsubmission_file_", "12345"},
        {"^(?<id>[^_]+)_(?:LATE_)?\\d+_\\d+_", "lovelaceada_12345_67890_attention.c",
         "lovelaceada"},
        {"^(?<id>[^_]+)_(?:LATE_)?\\d+_\\d+_", "lovelaceada_LATE_12345_67890_attention.c",
         "lovelaceada"},
        {"^(?<id>x)?y", "y", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct err e;
        struct bat_idre *re = bat_idre_new(cases[i].pattern, &e);
        char id[BAT_ID_MAX + 1];
        int rc;

        cr_assert(re != NULL, "%s", e.msg);
        rc = bat_idre_match(re, cases[i].name, id, sizeof id, &e);
        cr_expect(rc == (cases[i].id != NULL), "case %zu: rc %d", i, rc);
        if (rc == 1 && cases[i].id != NULL)
            cr_expect_str_eq(id, cases[i].id);
        bat_idre_free(re);
    }
}

Test(batch, id_regex_refuses_bad_patterns)
{
    static const char *const bad[] = {"^(?<login>.+)$", "(?<id>", "[a-"};

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct err e;

        err_clear(&e);
        cr_expect(bat_idre_new(bad[i], &e) == NULL, "'%s' accepted", bad[i]);
        cr_expect(e.msg[0] != '\0');
    }
}

Test(batch, id_check_refuses_unsafe_names)
{
    static const struct {
        const char *id;
        int ok;
    } cases[] = {
        {"alice", 1}, {COMMA_ID, 0}, {COMMA_ID_MADE, 1}, {"a.b", 1}, {"", 0}, {"a/b", 0},
        {"..", 0}, {".hidden", 0}, {"x..y", 0}, {"grades.csv", 0}, {"Summary.SVG", 0},
        {"-rf", 0}, {"a b", 0}, {"z\xc3\xab" "e", 0}, {"a\nb", 0}, {"::error", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect((bat_id_check(cases[i].id, NULL) == 0) == cases[i].ok, "'%s'",
                  cases[i].id);
}

Test(batch, shards_partition_the_ids)
{
    static const char *const bad[] = {"0/3", "4/3", "1/0", "a/b", "3", "1/3x", "1/20000"};
    unsigned k, n, seen[4] = {0};
    char id[32];

    cr_assert(bat_shard_parse("2/3", &k, &n, NULL) == 0 && k == 2 && n == 3);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect(bat_shard_parse(bad[i], &k, &n, NULL) < 0, "'%s' accepted", bad[i]);
    for (int i = 0; i < 300; i++) {
        snprintf(id, sizeof id, "student%d", i);
        k = bat_shard_of(id, 3);
        cr_assert(k >= 1 && k <= 3);
        cr_assert(bat_shard_of(id, 3) == k, "not deterministic");
        seen[k]++;
    }
    for (unsigned s = 1; s <= 3; s++)
        cr_expect(seen[s] > 60, "shard %u holds only %u of 300", s, seen[s]);
}

Test(batch, atomic_write_replaces_whole_file)
{
    char tmpl[] = "/tmp/test-batch-XXXXXX", path[4096];
    char *root = strdup(mkdtemp(tmpl)), *got;
    struct err e;
    size_t n;

    snprintf(path, sizeof path, "%s/file.txt", root);
    cr_assert(bat_write_atomic(path, "first\n", 6, &e) == 0, "%s", e.msg);
    cr_assert(bat_write_atomic(path, "second\n", 7, &e) == 0, "%s", e.msg);
    got = bu_slurp(path, &n);
    cr_expect_str_eq(got, "second\n");
    free(got);
    cr_expect(bat_remove_temps(root) == 0, "a temporary file was left behind");
    snprintf(path, sizeof path, "%s/missing/file.txt", root);
    cr_expect(bat_write_atomic(path, "x", 1, &e) < 0, "wrote into a missing directory");
    bu_remove_tree(root);
}

Test(batch, row_round_trips)
{
    char id0[] = "softmax.values", msg0[] = "row 1\tsums to 0.25\nnot 1 \\ oops";
    char id1[] = "pe.bounded", msg1[] = "", rid[] = COMMA_ID, detail[] = "detail\nline 2";
    char name[] = "Ada Lovelace_12345_assignsubmission_file_\n\t\\";
    struct bat_test_row t[2] = {
        {id0, "failed", 0, 2, msg0},
        {id1, "passed", 1.5, 1.5, msg1},
    };
    struct bat_row r = {rid, "ok", 1.5, 3.5, "1.0.0", "ab", "cd", 7, detail, t, 2, name,
                        "ef"}, back;
    struct sb sb;
    struct err e;

    sb_init(&sb, 0);
    cr_assert(bat_row_format(&r, &sb) == 0);
    cr_assert(bat_row_parse(sb_str(&sb), sb.len, &back, &e) == 0, "%s", e.msg);
    cr_expect_str_eq(back.id, r.id);
    cr_expect_str_eq(back.detail, r.detail);
    cr_expect_str_eq(back.name, name);
    cr_expect_str_eq(back.inputs_sha256, "ef");
    cr_expect(back.n_tests == 2 && back.seed == 7 && back.max_score == 3.5);
    cr_expect_str_eq(back.tests[0].message, t[0].message);
    cr_expect_str_eq(back.tests[1].status, "passed");
    bat_row_release(&back);
    sb_release(&sb);
}

/* ---- whole batches ---- */

static void expect_rows(const char *out)
{
    char path[4096];
    struct bat_row row;
    struct err e;
    double alice = 0;

    for (size_t i = 0; i < N_EXPECTED; i++) {
        out_path(out, expected_rows[i].id, "", path, sizeof path);
        cr_assert(bat_row_load(path, &row, &e) == 0, "'%s': %s", expected_rows[i].id, e.msg);
        cr_expect_str_eq(row.status, expected_rows[i].status, "'%s': %s", row.id, row.detail);
        if (i == 0)
            alice = row.score;
        if (strcmp(row.status, "ok") == 0)
            cr_expect(row.score <= alice && row.score > 0, "'%s' scores %g", row.id, row.score);
        else
            cr_expect(row.score == 0, "'%s' scores %g", row.id, row.score);
        bat_row_release(&row);
    }
}

static void expect_csv(const char *out)
{
    char path[4096], *csv;
    size_t n, lines = 0;

    out_path(out, "grades.csv", "", path, sizeof path);
    csv = bu_slurp(path, &n);
    cr_expect(strncmp(csv, "id,score,max_score,status,softmax.", 34) == 0, "header: %.60s", csv);
    cr_expect(strstr(csv, "\r\n" COMMA_ID_MADE ",0,") != NULL &&
              strstr(csv, ",\"attention-smith, \"\"jo\"\".c\"\r\n") != NULL,
              "the comma name is not in its row, escaped: %s", csv);
    /* Every folder of the class has a row that says why it has no grade. */
    cr_expect(strstr(csv, "\r\nattn_frank,0,") != NULL &&
              strstr(csv, ",skipped,") != NULL &&
              strstr(csv, ",the name does not match --id-regex,attn_frank.c\r\n") != NULL,
              "a misnamed entry has no 'skipped' row: %s", csv);
    cr_expect(strstr(csv, "\r\ngil,0,") != NULL && strstr(csv, ",missing,") != NULL &&
              strstr(csv, ",no attention.c in the folder 'attention-gil',attention-gil\r\n")
                  != NULL,
              "a folder without attention.c has no 'missing' row: %s", csv);
    cr_expect(strstr(csv, ",submission_sha256,note,name\r\n") != NULL, "header: %s", csv);
    cr_expect(strstr(csv, "notes") == NULL, "a stray file got a row");
    cr_expect(strstr(csv, "\r\nalice,") != NULL && strstr(csv, "\r\nbob,") != NULL);
    cr_expect(strstr(csv, "\r\nalice,") < strstr(csv, "\r\nbob,"), "rows not sorted");
    for (size_t i = 0; i < n; i++)
        lines += csv[i] == '\n';
    cr_expect(lines == 1 + N_EXPECTED, "%zu lines", lines);
    free(csv);
}

Test(batch, class_gives_expected_rows_and_resumes, .timeout = 120)
{
    char *root = make_class(class_full, sizeof class_full / sizeof class_full[0]);
    char out[4096], path[4096], *before, *after, *bob;
    struct spec_set *s = load_specs();
    struct bat_list l = {NULL, 0, 0};
    struct counts c = {0, 0};
    size_t n1, n2;
    FILE *f;

    snprintf(out, sizeof out, "%s/out", root);
    discover(root, IDRE, &l);
    cr_assert(l.n == N_EXPECTED, "%zu entries", l.n);
    cr_assert(run(&l, s, out, &c, NULL) == 0);
    cr_expect(c.graded == N_EXPECTED - N_ABSENT && c.skipped == N_ABSENT,
              "graded %zu, skipped %zu", c.graded, c.skipped);
    expect_rows(out);
    expect_csv(out);
    out_path(out, "grades.csv", "", path, sizeof path);
    before = bu_slurp(path, &n1);

    c = (struct counts){0, 0};
    cr_assert(run(&l, s, out, &c, NULL) == 0);
    cr_expect(c.graded == 0 && c.skipped == N_EXPECTED, "graded %zu, skipped %zu",
              c.graded, c.skipped);
    after = bu_slurp(path, &n2);
    cr_expect(n1 == n2 && memcmp(before, after, n1) == 0, "resumed gradebook differs");

    /* bob resubmits: only bob is regraded */
    snprintf(path, sizeof path, "%s/class/attention-bob.c", root);
    cr_assert((f = fopen(path, "a")) != NULL);
    fputs("/* late fix */\n", f);
    fclose(f);
    c = (struct counts){0, 0};
    cr_assert(run(&l, s, out, &c, NULL) == 0);
    cr_expect(c.graded == 1 && c.skipped == N_EXPECTED - 1, "graded %zu", c.graded);
    out_path(out, "bob", "results.json", path, sizeof path);
    bob = bu_slurp(path, &n1);
    cr_expect(json_validate(bob, n1, NULL) == 0, "bob's results.json does not parse");
    free(bob);
    free(before);
    free(after);
    bat_list_release(&l);
    spec_set_free(s);
    bu_remove_tree(root);
}

static const struct entry_src class_small[] = {
    {"ada/", TEST_SRCDIR "/reference/attention.c"},
    {"ben.c", TEST_CATDIR "/submissions/sdpa_no_scale.c"},
    {"cy.c", FIX "broken.c"},
    {"dee.c", FIX "calls_exit.c"},
    {"eli.c", FIX "broken.c"},
    {"fay, \"f\".c", FIX "broken.c"},
    {"gus.c", FIX "broken.c"},
};

/* buf = a "/" b, asserted to fit. */
static void join(char *buf, size_t n, const char *a, const char *b)
{
    int k = snprintf(buf, n, "%s%s%s", a, a[0] && b[0] ? "/" : "", b);

    cr_assert(k > 0 && (size_t)k < n, "path too long");
}

/* The regular files under root (relative paths, sorted) into v[0..*n). */
static void list_files(const char *root, const char *rel, char **v, size_t cap, size_t *n)
{
    char path[4096], sub[4096];
    struct dirent **names;
    struct stat st;
    int k;

    join(path, sizeof path, root, rel);
    k = scandir(path, &names, NULL, alphasort);
    cr_assert(k >= 0, "cannot list '%s'", path);
    for (int i = 0; i < k; i++) {
        const char *name = names[i]->d_name;

        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            join(sub, sizeof sub, rel, name);
            join(path, sizeof path, root, sub);
            cr_assert(lstat(path, &st) == 0);
            if (S_ISDIR(st.st_mode)) {
                list_files(root, sub, v, cap, n);
            } else {
                cr_assert(*n < cap, "more than %zu files under '%s'", cap, root);
                v[(*n)++] = strdup(sub);
            }
        }
        free(names[i]);
    }
    free(names);
}

/* A file's bytes with what two runs of the same grade may write
 * differently taken out: results.json's execution_time; in verdicts.kept
 * the times (the last field of the "diag" and "t" lines) and the sum. */
static char *without_times(const char *path, size_t *n)
{
    char *b = bu_slurp(path, n), *out = malloc(*n + 1), *o = out;
    const char *p = b, *end = b + *n;
    int kept = strstr(path, "/verdicts.kept") != NULL;

    cr_assert(out != NULL);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end, *cut = stop;

        if (kept && (strncmp(p, "diag ", 5) == 0 || strncmp(p, "t ", 2) == 0))
            while (cut > p && cut[-1] != ' ')
                cut--;
        if (kept && strncmp(p, "sum ", 4) == 0)
            cut = p;
        memcpy(o, p, (size_t)(cut - p));
        o += cut - p;
        *o++ = '\n';
        p = stop + 1;
    }
    *n = (size_t)(o - out);
    *o = '\0';
    free(b);
    if (!kept && (p = strstr(out, "\"execution_time\":")) != NULL) {
        char *digits = out + (p - out) + 17;
        size_t k = strspn(digits, "0123456789");

        memmove(digits, digits + k, *n - (size_t)(digits - out) - k + 1);
        *n -= k;
    }
    return out;
}

/* Whether file `rel` is the same in both trees, bytes (exact) or bytes
 * without the times (without_times). */
static int same_file(const char *a, const char *b, const char *rel, int exact)
{
    char pa[4096], pb[4096], *x, *y;
    size_t nx, ny;
    int same;

    join(pa, sizeof pa, a, rel);
    join(pb, sizeof pb, b, rel);
    x = exact ? bu_slurp(pa, &nx) : without_times(pa, &nx);
    y = exact ? bu_slurp(pb, &ny) : without_times(pb, &ny);
    same = nx == ny && memcmp(x, y, nx) == 0;
    free(x);
    free(y);
    return same;
}

/* The shard among shard[0..3) that holds rel's id folder; NULL if none. */
static const char *shard_of(char shard[3][4096], const char *rel)
{
    char path[8192];

    for (int k = 0; k < 3; k++) {
        join(path, sizeof path, shard[k], rel);
        if (access(path, F_OK) == 0)
            return shard[k];
    }
    return NULL;
}

/* Every file of the merge: the same list as the single run's, each the
 * same bytes as the single run's (times aside) and as its shard's copy
 * (no exception: the merge copies). */
static void expect_same_tree(const char *single, const char *merged, char shard[3][4096])
{
    char *a[256], *b[256];
    size_t na = 0, nb = 0, kept = 0;

    list_files(single, "", a, 256, &na);
    list_files(merged, "", b, 256, &nb);
    cr_expect(na == nb, "the merge holds %zu files, the single run %zu", nb, na);
    for (size_t i = 0; i < na && i < nb; i++) {
        const char *from;

        cr_expect(strcmp(a[i], b[i]) == 0, "file %zu: '%s' in the single run, '%s' merged",
                  i, a[i], b[i]);
        if (strcmp(a[i], b[i]) != 0)
            break;
        cr_expect(same_file(single, merged, a[i], 0), "merged %s differs from the single run",
                  a[i]);
        if (strchr(a[i], '/') != NULL) {
            cr_expect((from = shard_of(shard, a[i])) != NULL &&
                          same_file(from, merged, a[i], 1),
                      "merged %s is not its shard's", a[i]);
        }
        kept += strstr(a[i], "/compile.o") != NULL || strstr(a[i], "/verdicts.kept") != NULL;
    }
    cr_expect(kept >= 3, "only %zu kept files: the test tests nothing", kept);
    for (size_t i = 0; i < na; i++)
        free(a[i]);
    for (size_t i = 0; i < nb; i++)
        free(b[i]);
}

Test(batch, merge_of_three_shards_equals_single_run, .timeout = 120)
{
    char *root = make_class(class_small, sizeof class_small / sizeof class_small[0]);
    char out[4096], shard[3][4096], merged[4096];
    const char *dirs[3] = {shard[0], shard[1], shard[2]};
    struct spec_set *s = load_specs();
    struct bat_list l = {NULL, 0, 0};
    struct counts c = {0, 0};
    struct err e;
    size_t total = 0;

    snprintf(out, sizeof out, "%s/single", root);
    snprintf(merged, sizeof merged, "%s/merged", root);
    discover(root, NULL, &l);
    cr_assert(run(&l, s, out, &c, NULL) == 0);
    for (unsigned k = 1; k <= 3; k++) {
        struct bat_list part = {NULL, 0, 0};

        snprintf(shard[k - 1], sizeof shard[k - 1], "%s/shard%u", root, k);
        discover(root, NULL, &part);
        bat_list_shard(&part, k, 3);
        total += part.n;
        cr_assert(run(&part, s, shard[k - 1], &c, NULL) == 0);
        bat_list_release(&part);
    }
    cr_expect(total == l.n, "shards hold %zu of %zu", total, l.n);
    cr_assert(bat_merge(merged, dirs, 3, &e) == 0, "merge: %s", e.msg);
    /* every file, the gradebook's and each student's kept object and
     * verdicts (without which the merged class's regrade does it all) */
    expect_same_tree(out, merged, shard);
    cr_expect(bat_merge(merged, dirs, 2, &e) == 0, "merging again: %s", e.msg);
    const char *twice[2] = {shard[0], out};
    cr_expect(bat_merge(merged, twice, 2, &e) < 0, "an id in two inputs was accepted");
    bat_list_release(&l);
    spec_set_free(s);
    bu_remove_tree(root);
}

/* A shard's kept files in `dir`, damaged one way each. */
enum damage { DMG_OBJECT_BYTE, DMG_KEY_LINK, DMG_KEPT_BYTE, DMG_KEPT_LINK, DMG_COUNT };

static void damage(const char *dir, enum damage d)
{
    char path[4096], other[4096];
    const char *name = d <= DMG_KEY_LINK ? "compile.o" : "verdicts.kept";
    FILE *f;

    join(path, sizeof path, dir, d == DMG_KEY_LINK ? "compile.key" : name);
    if (d == DMG_OBJECT_BYTE || d == DMG_KEPT_BYTE) {
        cr_assert((f = fopen(path, "r+b")) != NULL, "no %s", path);
        cr_assert(fseek(f, 40, SEEK_SET) == 0);
        int ch = fgetc(f);
        cr_assert(ch != EOF && fseek(f, 40, SEEK_SET) == 0);
        fputc(ch ^ 1, f);
        fclose(f);
        return;
    }
    /* the real file moved aside, a link to it in its place */
    join(other, sizeof other, dir, "real");
    cr_assert(rename(path, other) == 0 && symlink(other, path) == 0);
}

/* The merge checks what it carries as a regrade would read it: a kept
 * object whose bytes no longer hash to its key file's value, a key file
 * or verdicts behind a link, verdicts whose sum is wrong: left out, and a
 * stale pair in the output removed; the intact ones still carried. */
Test(batch, merge_leaves_out_damaged_kept_files, .timeout = 120)
{
    static const struct entry_src two[] = {
        {"ada/", TEST_SRCDIR "/reference/attention.c"},
    };
    char *root = make_class(two, 1);
    char in[4096], merged[4096], id[4096], mid[4096], path[8192];
    const char *dirs[1] = {in};
    struct spec_set *s = load_specs();
    struct bat_list l = {NULL, 0, 0};
    struct counts c = {0, 0};
    struct err e;

    join(in, sizeof in, root, "in");
    join(merged, sizeof merged, root, "merged");
    join(id, sizeof id, in, "ada");
    join(mid, sizeof mid, merged, "ada");
    discover(root, NULL, &l);
    cr_assert(run(&l, s, in, &c, NULL) == 0);
    for (int d = 0; d < DMG_COUNT; d++) {
        const char *gone = d <= DMG_KEY_LINK ? "compile.o" : "verdicts.kept";
        const char *stays = d <= DMG_KEY_LINK ? "verdicts.kept" : "compile.o";

        bu_remove_tree(strdup(in));
        cr_assert(run(&l, s, in, &c, NULL) == 0);
        cr_assert(bat_merge(merged, dirs, 1, &e) == 0, "merge: %s", e.msg);
        join(path, sizeof path, mid, gone);
        cr_assert(access(path, F_OK) == 0, "case %d: the intact %s was not carried", d, gone);
        damage(id, (enum damage)d);
        cr_assert(bat_merge(merged, dirs, 1, &e) == 0, "merge: %s", e.msg);
        cr_expect(access(path, F_OK) != 0, "case %d: a damaged %s was carried", d, gone);
        if (d <= DMG_KEY_LINK) {
            join(path, sizeof path, mid, "compile.key");
            cr_expect(access(path, F_OK) != 0, "case %d: a key without its object", d);
        }
        join(path, sizeof path, mid, stays);
        cr_expect(access(path, F_OK) == 0, "case %d: the intact %s was left out", d, stays);
    }
    bat_list_release(&l);
    spec_set_free(s);
    bu_remove_tree(root);
}

/* ---- interrupts ---- */

static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
    got_sigint = sig;
}

/* The batch in a child of ours, stopped by SIGINT like the CLI. */
static pid_t start_batch(const struct bat_list *l, const struct spec_set *s, const char *out)
{
    pid_t pid = fork();
    struct counts c = {0, 0};
    struct sigaction sa;
    int rc;

    cr_assert(pid >= 0);
    if (pid > 0)
        return pid;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    rc = run(l, s, out, &c, &got_sigint);
    _exit(rc == 1 ? 130 : rc == 0 ? 0 : 1);
}

/* Every file under dir: no temporary names, every results.json parses.
 * Returns the number of ids with a row file. */
static size_t check_complete(const char *out)
{
    DIR *d = opendir(out);
    struct dirent *de;
    char path[4096], *buf;
    size_t rows = 0, n;

    cr_assert(d != NULL);
    cr_expect(bat_remove_temps(out) == 0, "temporary file in '%s'", out);
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || strchr(de->d_name, '.') != NULL)
            continue;
        out_path(out, de->d_name, "", path, sizeof path);
        cr_expect(bat_remove_temps(path) == 0, "temporary file in '%s'", path);
        out_path(out, de->d_name, "results.json", path, sizeof path);
        if (access(path, F_OK) == 0) {
            buf = bu_slurp(path, &n);
            cr_expect(json_validate(buf, n, NULL) == 0, "'%s' does not parse", path);
            free(buf);
        }
        out_path(out, de->d_name, BAT_ROW_NAME, path, sizeof path);
        rows += access(path, F_OK) == 0;
    }
    closedir(d);
    return rows;
}

Test(batch, interrupted_batch_leaves_complete_files, .timeout = 120)
{
    static const struct entry_src cls[] = {
        {"a/", TEST_SRCDIR "/reference/attention.c"},
        {"b.c", FIX "loop_forever.c"},
        {"c.c", TEST_SRCDIR "/reference/attention.c"},
        {"d.c", FIX "loop_forever.c"},
        {"e.c", TEST_CATDIR "/submissions/softmax_wrong_axis.c"},
        {"f.c", TEST_SRCDIR "/reference/attention.c"},
    };
    char *root = make_class(cls, sizeof cls / sizeof cls[0]);
    const struct timespec wait = {0, 500000000L};
    struct spec_set *s = load_specs();
    struct bat_list l = {NULL, 0, 0};
    struct counts c = {0, 0};
    char out[4096];
    size_t finished;
    int status;
    pid_t pid;

    snprintf(out, sizeof out, "%s/out", root);
    discover(root, NULL, &l);
    pid = start_batch(&l, s, out);
    nanosleep(&wait, NULL);
    cr_assert(kill(pid, SIGINT) == 0);
    cr_assert(waitpid(pid, &status, 0) == pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status 0x%x", status);
    finished = check_complete(out);
    cr_expect(finished < l.n, "the batch finished before the interrupt");
    cr_assert(run(&l, s, out, &c, NULL) == 0);
    cr_expect(c.skipped == finished && c.graded == l.n - finished,
              "resumed: %zu skipped, %zu graded; %zu were finished", c.skipped, c.graded,
              finished);
    cr_expect(check_complete(out) == l.n);
    bat_list_release(&l);
    spec_set_free(s);
    bu_remove_tree(root);
}

/* ---- the command line ---- */

Test(batch, cli_reports_misnamed_and_escapes_ids, .timeout = 60)
{
    static const struct entry_src cls[] = {
        {"attention-" COMMA_ID ".c", FIX "broken.c"},
        {"attention-zed.c", FIX "broken.c"},
        {"attn_frank.c", FIX "broken.c"},
    };
    char *root = make_class(cls, sizeof cls / sizeof cls[0]);
    char dir[4096], out[4096], err[4096], path[4096], *text, *csv;
    const char *argv[] = {TEST_BUILDDIR "/grader", "batch", "--spec",
                    TEST_SRCDIR "/specs/public.yaml", "--jobs", "1", "--out", out,
                    "--id-regex", IDRE, dir, NULL};
    size_t n;
    int rc;

    snprintf(dir, sizeof dir, "%s/class", root);
    snprintf(out, sizeof out, "%s/out", root);
    snprintf(err, sizeof err, "%s/stderr.txt", root);
    rc = bu_run(argv, err, NULL);
    text = bu_slurp(err, &n);
    cr_expect(rc == 0, "exit %d: %s", rc, text);
    cr_expect(strstr(text, "] attn_frank: skipped: the name does not match --id-regex\n") != NULL,
              "%s", text);
    out_path(out, "grades.csv", "", path, sizeof path);
    if (rc == 0) {
        csv = bu_slurp(path, &n);
        cr_expect(strstr(csv, "\r\n" COMMA_ID_MADE ",0,") != NULL, "%s", csv);
        free(csv);
    }
    free(text);
    bu_remove_tree(root);
}

/* The cell of row `id`, column `name` of a gradebook without quoted
 * fields (a static copy, "?" when there is none). */
static const char *csv_cell(const char *csv, const char *id, const char *name)
{
    static char cell[256];
    const char *hdr = csv, *row = NULL, *p;
    size_t col = 0, k, idn = strlen(id);

    for (p = csv; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, id, idn) == 0 && p[idn] == ',')
            row = p;
    for (p = hdr, k = 0; *p && *p != '\r'; k++, p += strcspn(p, ",\r") + (p[strcspn(p, ",\r")] == ','))
        if (strncmp(p, name, strlen(name)) == 0 && strchr(",\r", p[strlen(name)]))
            col = k + 1;
    snprintf(cell, sizeof cell, "?");
    if (row == NULL || col == 0)
        return cell;
    for (p = row, k = 1; k < col && *p; k++)
        p += strcspn(p, ",") + 1;
    snprintf(cell, sizeof cell, "%.*s", (int)strcspn(p, ",\r"), p);
    return cell;
}

/* What a student receives names no TA path; with no answers.yaml the
 * manual items stay pending (blank cells), never a 0 or a FAIL; the
 * closing line counts right ("1 submission"). */
Test(batch, cli_feedback_is_path_free_and_manual_cells_blank, .timeout = 120)
{
    static const struct entry_src cls[] = {
        {"ada/", TEST_SRCDIR "/reference/attention.c"},   /* no answers.yaml */
    };
    char *root = make_class(cls, 1);
    char dir[4096], out[4096], err[4096], path[4096], *text, *csv, *fb, *json;
    const char *argv[] = {TEST_BUILDDIR "/grader", "batch", "--spec",
                    TEST_SRCDIR "/specs/public.yaml", "--spec",
                    TEST_SRCDIR "/specs/written.yaml", "--jobs", "1", "--out", out,
                    dir, NULL};
    const char *col;
    size_t n;
    int rc;

    snprintf(dir, sizeof dir, "%s/class", root);
    snprintf(out, sizeof out, "%s/out", root);
    snprintf(err, sizeof err, "%s/stderr.txt", root);
    rc = bu_run(argv, err, NULL);
    text = bu_slurp(err, &n);
    cr_assert(rc == 0, "exit %d: %s", rc, text);
    cr_expect(strstr(text, "1 submission graded") != NULL, "%s", text);
    out_path(out, "ada", "feedback.md", path, sizeof path);
    fb = bu_slurp(path, &n);
    out_path(out, "ada", "results.json", path, sizeof path);
    json = bu_slurp(path, &n);
    cr_expect(strstr(fb, root) == NULL && strstr(fb, "class/") == NULL,
              "feedback.md shows the TA's path:\n%s", fb);
    cr_expect(strstr(json, root) == NULL, "results.json shows the TA's path");
    cr_expect(strstr(fb, "| MANUAL |") != NULL && strstr(fb, "FAIL: written.manual") == NULL,
              "a manual item failed without answers.yaml:\n%s", fb);
    out_path(out, "grades.csv", "", path, sizeof path);
    csv = bu_slurp(path, &n);
    col = csv_cell(csv, "ada", "written.manual.part2");
    cr_expect_str_eq(col, "", "manual cell: '%s'", col);
    col = csv_cell(csv, "ada", "written.manual.part3");
    cr_expect_str_eq(col, "", "manual cell: '%s'", col);
    col = csv_cell(csv, "ada", "softmax.values");
    cr_expect_str_eq(col, "2", "a scored cell: '%s'", col);
    free(text);
    free(fb);
    free(json);
    free(csv);
    bu_remove_tree(root);
}

/* s with '_' written as Markdown writes it in a table cell ("\_"). */
static void md_escaped(const char *s, char *buf, size_t n)
{
    size_t j = 0;

    for (; *s && j + 3 < n; s++) {
        if (*s == '_')
            buf[j++] = '\\';
        buf[j++] = *s;
    }
    buf[j] = '\0';
}

/* Whether text names `id` as a whole (not as the start of a longer id,
 * "mha.einval" in "mha.einval\_heads..."). */
static int names_id(const char *text, const char *id)
{
    static const char idch[] = "abcdefghijklmnopqrstuvwxyz0123456789_.\\";
    size_t n = strlen(id);

    for (const char *p = strstr(text, id); p != NULL; p = strstr(p + 1, id))
        if ((p == text || strchr(idch, p[-1]) == NULL) &&
            (p[n] == '\0' || strchr(idch, p[n]) == NULL))
            return 1;
    return 0;
}

/* Whether some visible test has this hint too (then it may show). */
static int visible_hint(const struct spec_set *s, const char *hint)
{
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        if (t->visibility == SPEC_VISIBLE && t->hint && strcmp(t->hint, hint) == 0)
            return 1;
    }
    return 0;
}

/* feedback.md is what the student receives before the grades are
 * published: of the hidden tests only their count and points. staff.md,
 * beside it, and grades.csv keep everything. */
Test(batch, feedback_hides_hidden_tests_staff_report_keeps_them, .timeout = 120)
{
    static const struct entry_src cls[] = {
        {"attention-hal.c", TEST_CATDIR "/submissions/sdpa_no_scale.c"},
    };
    char *root = make_class(cls, 1);
    char out[4096], path[4096], esc[256], line[128], *fb, *staff, *csv;
    struct spec_set *s = load_specs();
    struct bat_list l;
    struct counts c = {0, 0};
    struct err e;
    size_t n, hidden = 0, hidden_failed_hints = 0;
    long long hidden_cents = 0;

    cr_assert(spec_load(s, TEST_SRCDIR "/specs/hidden.yaml", gprop_check_case, &e) == 0, "%s",
              e.msg);
    discover(root, IDRE, &l);
    snprintf(out, sizeof out, "%s/out", root);
    cr_assert(run(&l, s, out, &c, NULL) == 0);
    out_path(out, "hal", "feedback.md", path, sizeof path);
    fb = bu_slurp(path, &n);
    out_path(out, "hal", "staff.md", path, sizeof path);
    staff = bu_slurp(path, &n);
    out_path(out, "grades.csv", "", path, sizeof path);
    csv = bu_slurp(path, &n);
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        if (t->visibility == SPEC_VISIBLE)
            continue;
        hidden++;
        hidden_cents += (long long)(t->points * 100 + 0.5);
        md_escaped(t->id, esc, sizeof esc);
        cr_expect(!names_id(fb, esc) && !names_id(fb, t->id),
                  "feedback.md names the hidden test '%s'", t->id);
        cr_expect(names_id(staff, esc), "staff.md lacks '%s'", t->id);
        cr_expect(strstr(csv, t->id) != NULL, "grades.csv lacks '%s'", t->id);
        if (t->hint && !visible_hint(s, t->hint)) {
            cr_expect(strstr(fb, t->hint) == NULL, "feedback.md shows the hint of '%s'",
                      t->id);
            hidden_failed_hints += strstr(staff, t->hint) != NULL;
        }
    }
    cr_assert(hidden > 0);
    cr_expect(hidden_failed_hints > 0, "staff.md shows no hidden test's hint");
    snprintf(line, sizeof line, "%zu more tests worth %lld.%lld points", hidden,
             hidden_cents / 100, hidden_cents % 100 / 10);
    cr_expect(strstr(fb, line) != NULL, "no '%s' in feedback.md:\n%s", line, fb);
    cr_expect(strstr(fb, " / 60.0**") != NULL, "feedback.md's score is not the visible one");
    cr_expect(strstr(staff, " / 100.0**") != NULL, "staff.md's score is not the whole one");
    free(fb);
    free(staff);
    free(csv);
    bat_list_release(&l);
    spec_set_free(s);
    bu_remove_tree(root);
}

Test(batch, cli_usage_errors_exit_2)
{
    char err[] = "/tmp/test-batch-err-XXXXXX";
    const char *bad_shard[] = {TEST_BUILDDIR "/grader", "batch", "--shard", "4/3", "x", NULL};
    const char *no_group[] = {TEST_BUILDDIR "/grader", "batch", "--id-regex", "^(.+)$",
                        TEST_SRCDIR "/tests/batch_fixtures", NULL};
    const char *merge[] = {TEST_BUILDDIR "/grader", "merge", "x", NULL};
    int fd = mkstemp(err);

    cr_assert(fd >= 0);
    close(fd);
    cr_expect(bu_run(bad_shard, err, NULL) == 2);
    cr_expect(bu_run(no_group, err, NULL) == 2);
    cr_expect(bu_run(merge, err, NULL) == 2);
    unlink(err);
}
