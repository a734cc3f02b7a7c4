/*
 * test_objcache.c -- `grader batch` keeps each submission's compiled
 * object and a regrade reuses it (build/objcache.h): after a spec change
 * the objects are reused and the gradebook is byte for byte the one a
 * regrade without the cache writes; a damaged or replaced object, a wrong
 * key or a changed source compiles again; nothing in a student's folder
 * is ever taken for a kept object. Reuse is seen in the batch's events
 * (bat_event.object_reused), never in timings. (results.json is not
 * compared: it records each test's execution time.)
 *
 * And its verdicts (grade/grade_keep.h, suite "verdicts"): a regrade after
 * a change of points alone runs no test and writes, byte for byte, the
 * gradebook, rows and reports of a regrade that runs them all; a changed
 * case, a damaged, linked or foreign kept file, or verdicts a timeout
 * touched run the tests again; a student's folder cannot plant them.
 * Reuse is seen in bat_event.verdicts_reused.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch.h"
#include "build/objcache.h"
#include "core/sha256.h"
#include "grade/grade_keep.h"
#include "grade/grade.h"
#include "grade/grade_props.h"
#include "props/prop.h"
#include "batch_util.h"

#define FIX TEST_SRCDIR "/tests/batch_fixtures/"
#define REF TEST_SRCDIR "/reference/attention.c"
#define VERSION "test"

struct counts {
    size_t graded, reused, kept;
    char reused_ids[512];  /* " id id ..." of the entries that reused */
    char kept_ids[512];    /* ... that reused their verdicts */
};

static void count_event(void *ctx, const struct bat_event *ev)
{
    struct counts *c = ctx;
    size_t n = strlen(c->reused_ids), k = strlen(c->kept_ids);

    c->graded += !ev->skipped;
    c->reused += ev->object_reused != 0;
    c->kept += ev->verdicts_reused != 0;
    if (ev->object_reused)
        snprintf(c->reused_ids + n, sizeof c->reused_ids - n, " %s", ev->id);
    if (ev->verdicts_reused)
        snprintf(c->kept_ids + k, sizeof c->kept_ids - k, " %s", ev->id);
}

/* A class folder under a new temporary root: name -> source file (a
 * trailing '/' makes a folder holding attention.c). */
static char *make_class(const char *const (*v)[2], size_t n)
{
    char tmpl[] = "/tmp/test-objcache-XXXXXX", path[4096];
    char *root = strdup(mkdtemp(tmpl));

    snprintf(path, sizeof path, "%s/class", root);
    cr_assert(mkdir(path, 0755) == 0);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(v[i][0]);
        if (v[i][0][len - 1] == '/') {
            snprintf(path, sizeof path, "%s/class/%.*s", root, (int)(len - 1), v[i][0]);
            cr_assert(mkdir(path, 0755) == 0);
            snprintf(path, sizeof path, "%s/class/%sattention.c", root, v[i][0]);
        } else {
            snprintf(path, sizeof path, "%s/class/%s", root, v[i][0]);
        }
        bu_copy(v[i][1], path);
    }
    return root;
}

static struct spec_set *load_spec(const char *path)
{
    struct spec_set *s = spec_set_new();
    struct err e;

    cr_assert(s != NULL);
    cr_assert(spec_load(s, path, gprop_check_case, &e) == 0, "spec: %s", e.msg);
    return s;
}

/* A copy of spec `src` as root/name with `from` replaced by `to` (every
 * occurrence, or only the first), loaded into `set` (NULL: a new set). */
static struct spec_set *edited_spec(struct spec_set *set, const char *root, const char *name,
                                    const char *src, const char *from, const char *to,
                                    int every)
{
    char path[4096];
    size_t n, done = 0;
    char *text = bu_slurp(src, &n);
    const char *p = text, *at;
    struct err e;
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", root, name);
    cr_assert((f = fopen(path, "wb")) != NULL);
    while ((at = strstr(p, from)) != NULL && (every || done == 0)) {
        fwrite(p, 1, (size_t)(at - p), f);
        fputs(to, f);
        p = at + strlen(from);
        done++;
    }
    fputs(p, f);
    fclose(f);
    free(text);
    cr_assert(done > 0, "'%s' is not in %s", from, src);
    if (set == NULL)
        return load_spec(path);
    cr_assert(spec_load(set, path, gprop_check_case, &e) == 0, "spec: %s", e.msg);
    return set;
}

/* public.yaml with the first test's points changed: another spec (its
 * hash differs), the same source rules. */
static struct spec_set *changed_spec(const char *root)
{
    return edited_spec(NULL, root, "changed.yaml", TEST_SRCDIR "/specs/public.yaml",
                       "\n  points: 2\n", "\n  points: 3\n", 0);
}

static void discover(const char *root, struct bat_list *l)
{
    char dir[4096];
    const char *dirs[1] = {dir};
    struct err e;

    snprintf(dir, sizeof dir, "%s/class", root);
    cr_assert(bat_discover(dirs, 1, NULL, l, NULL, NULL, &e) == 0, "%s", e.msg);
}

/* One batch; `force` regrades what is up to date, `no_cache` compiles all. */
static struct counts run(const struct bat_list *l, const struct spec_set *s, const char *out,
                         int force, int no_cache)
{
    struct counts c;
    struct bat_opts o = {s, out, TEST_BUILDDIR, VERSION, 1, 2, force, 0, 0,
                         count_event, &c, NULL, 0, NULL, no_cache};
    struct err e;

    memset(&c, 0, sizeof c);
    cr_assert(bat_run(l, &o, &e) == 0, "batch: %s", e.msg);
    return c;
}

static char *slurp_in(const char *dir, const char *id, const char *name, size_t *n)
{
    char path[8192];

    snprintf(path, sizeof path, "%s%s%s/%s", dir, id[0] ? "/" : "", id, name);
    return bu_slurp(path, n);
}

static void expect_same(const char *a, const char *b, const char *id, const char *name)
{
    size_t n1, n2;
    char *x = slurp_in(a, id, name, &n1), *y = slurp_in(b, id, name, &n2);

    cr_expect(n1 == n2 && memcmp(x, y, n1) == 0, "%s/%s differs", id, name);
    free(x);
    free(y);
}

static int listed(const char *ids, const char *id)
{
    char word[256];

    snprintf(word, sizeof word, " %s", id);
    for (const char *p = ids; (p = strstr(p, word)) != NULL; p++)
        if (p[strlen(word)] == ' ' || p[strlen(word)] == '\0')
            return 1;
    return 0;
}

static int reused(const struct counts *c, const char *id)
{
    return listed(c->reused_ids, id);
}

static int kept(const struct counts *c, const char *id)
{
    return listed(c->kept_ids, id);
}

/* A link the test put at out/rel was replaced by a regular file. */
static void expect_regular(const char *out, const char *rel)
{
    char path[4096];
    struct stat st;

    snprintf(path, sizeof path, "%s/%s", out, rel);
    cr_expect(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "the link at %s was not replaced",
              rel);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");

    cr_assert(f != NULL, "cannot write '%s'", path);
    fputs(text, f);
    fclose(f);
}

static const char *const class3[][2] = {
    {"alice/", REF},
    {"bob.c", TEST_CATDIR "/submissions/softmax_wrong_axis.c"},
    {"dave.c", FIX "broken.c"},
};

Test(objcache, regrade_after_spec_change_reuses_and_matches_no_cache, .timeout = 300)
{
    char *root = make_class(class3, 3);
    char out[1024], plain[1024];
    struct spec_set *pub = load_spec(TEST_SRCDIR "/specs/public.yaml");
    struct spec_set *changed = changed_spec(root);
    struct bat_list l = {NULL, 0, 0};
    struct counts c;
    static const char *const files[] = {"grades.csv", "summary.md", "summary.svg"};

    snprintf(out, sizeof out, "%s/out", root);
    snprintf(plain, sizeof plain, "%s/plain", root);
    discover(root, &l);
    c = run(&l, pub, out, 0, 0);
    cr_expect(c.graded == 3 && c.reused == 0, "first grade: %zu graded, %zu reused",
              c.graded, c.reused);
    /* the spec changed: every entry is regraded, the two that compiled
     * with their kept objects (a compile error keeps none) */
    c = run(&l, changed, out, 0, 0);
    cr_expect(c.graded == 3 && c.reused == 2 && reused(&c, "alice") && reused(&c, "bob"),
              "regrade: %zu graded, reused:%s", c.graded, c.reused_ids);
    /* the same regrade compiling everything: the same gradebook */
    c = run(&l, pub, plain, 0, 1);
    c = run(&l, changed, plain, 1, 1);
    cr_expect(c.graded == 3 && c.reused == 0, "--no-cache reused:%s", c.reused_ids);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        expect_same(out, plain, "", files[i]);
    static const char *const ids[] = {"alice", "bob", "dave"};
    for (size_t i = 0; i < 3; i++) {
        expect_same(out, plain, ids[i], "row.tsv");
        expect_same(out, plain, ids[i], "staff.md");
    }
    /* --force with the cache: reused again, same gradebook */
    c = run(&l, changed, out, 1, 0);
    cr_expect(c.graded == 3 && c.reused == 2, "--force: reused:%s", c.reused_ids);
    expect_same(out, plain, "", "grades.csv");
    bat_list_release(&l);
    spec_set_free(pub);
    spec_set_free(changed);
    bu_remove_tree(root);
}

static const char *const class4[][2] = {
    {"ann.c", REF},
    {"bea.c", REF},
    {"cid.c", TEST_CATDIR "/submissions/softmax_wrong_axis.c"},
    {"dot.c", REF},
    {"eve.c", REF},
};

Test(objcache, damaged_object_wrong_key_or_changed_source_compiles_again, .timeout = 300)
{
    char *root = make_class(class4, 5);
    char out[1024], path[4096], other[4096], *key, *obj, *before, *after;
    struct spec_set *pub = load_spec(TEST_SRCDIR "/specs/public.yaml");
    struct bat_list l = {NULL, 0, 0};
    struct counts c;
    size_t n, n2;
    FILE *f;

    snprintf(out, sizeof out, "%s/out", root);
    discover(root, &l);
    c = run(&l, pub, out, 0, 0);
    cr_assert(c.graded == 5 && c.reused == 0);
    before = slurp_in(out, "", "grades.csv", &n);

    /* ann: one byte of the object flipped (its length kept) */
    snprintf(path, sizeof path, "%s/ann/compile.o", out);
    obj = bu_slurp(path, &n2);
    obj[n2 / 2] ^= 0x5a;
    cr_assert((f = fopen(path, "wb")) != NULL);
    cr_assert(fwrite(obj, 1, n2, f) == n2);
    fclose(f);
    free(obj);
    /* bea: the key file names another key */
    snprintf(path, sizeof path, "%s/bea/compile.key", out);
    key = bu_slurp(path, &n2);
    cr_assert(strncmp(key, "attention-grader object 1\nkey ", 30) == 0);
    key[30] = key[30] == '0' ? '1' : '0';
    write_text(path, key);
    free(key);
    /* cid: the student resubmits (a comment added) */
    snprintf(path, sizeof path, "%s/class/cid.c", root);
    cr_assert((f = fopen(path, "a")) != NULL);
    fputs("/* resubmitted */\n", f);
    fclose(f);
    /* dot: its object replaced by a link to a copy of its own bytes (the
     * hash matches; a link is never followed) */
    snprintf(path, sizeof path, "%s/dot/compile.o", out);
    snprintf(other, sizeof other, "%s/dot-object-copy.o", root);
    bu_copy(path, other);
    cr_assert(unlink(path) == 0 && symlink(other, path) == 0);
    /* eve: untouched, the control */

    c = run(&l, pub, out, 1, 0);
    cr_expect(c.graded == 5 && c.reused == 1 && reused(&c, "eve"),
              "regrade: %zu graded, reused:%s", c.graded, c.reused_ids);
    after = slurp_in(out, "", "grades.csv", &n2);
    /* the same verdicts (cid's submission hash changes with its bytes) */
    cr_expect(strstr(after, "\r\nann,") && strstr(after, "\r\nbea,") &&
              strstr(after, "\r\ndot,") && strstr(after, "\r\neve,"));
    cr_expect(strncmp(strstr(before, "\r\nann,"), strstr(after, "\r\nann,"), 40) == 0);
    /* the damaged ones were compiled and kept again: reused next time */
    c = run(&l, pub, out, 1, 0);
    cr_expect(c.reused == 5, "third run reused:%s", c.reused_ids);
    expect_regular(out, "dot/compile.o");
    free(before);
    free(after);
    bat_list_release(&l);
    spec_set_free(pub);
    bu_remove_tree(root);
}

/* The key file a kept object would need for `src` (what a student who
 * knows the toolchain could compute). */
static void forge_key(const struct spec_set *s, const char *src, const char *obj,
                      const char *key_path)
{
    char tmpl[] = "/tmp/test-objcache-env-XXXXXX", env[65], key[65], sha[65], text[512];
    struct err e;
    size_t n;
    char *bytes = bu_slurp(src, &n);

    cr_assert(mkdtemp(tmpl) != NULL);
    cr_assert(grade_cache_env(TEST_BUILDDIR, tmpl, s, VERSION, env, &e) == 0, "%s", e.msg);
    rmdir(tmpl);
    bld_cache_key(env, bytes, n, key);
    free(bytes);
    cr_assert(sha256_file(obj, sha, &e) == 0);
    snprintf(text, sizeof text, "attention-grader object 1\nkey %s\nobject %s\n", key, sha);
    write_text(key_path, text);
}

Test(objcache, a_student_folder_cannot_plant_an_object, .timeout = 300)
{
    static const char *const cls[][2] = {{"mallory/", FIX "broken.c"}, {"ref/", REF}};
    char *root = make_class(cls, 2);
    char out[1024], path[4096], obj[4096], src[4096], *csv;
    struct spec_set *pub = load_spec(TEST_SRCDIR "/specs/public.yaml");
    struct bat_list l = {NULL, 0, 0};
    struct counts c;
    size_t n;

    snprintf(out, sizeof out, "%s/out", root);
    snprintf(src, sizeof src, "%s/class/mallory/attention.c", root);
    discover(root, &l);
    c = run(&l, pub, out, 0, 0);
    cr_assert(c.graded == 2 && c.reused == 0);
    /* mallory's folder holds the reference's object under a key that
     * matches mallory's own (broken) source */
    snprintf(obj, sizeof obj, "%s/class/mallory/compile.o", root);
    snprintf(path, sizeof path, "%s/ref/compile.o", out);
    bu_copy(path, obj);
    snprintf(path, sizeof path, "%s/class/mallory/compile.key", root);
    forge_key(pub, src, obj, path);
    c = run(&l, pub, out, 1, 0);
    cr_expect(!reused(&c, "mallory"), "a planted object was used:%s", c.reused_ids);
    csv = slurp_in(out, "", "grades.csv", &n);
    cr_expect(strstr(csv, "\r\nmallory,0,60,compile_error,") != NULL, "%s", csv);
    free(csv);
    /* the control: the same files in the TA's output folder are a valid
     * cache entry (so the test above would see a reader of the student's
     * folder) */
    snprintf(path, sizeof path, "%s/mallory/compile.o", out);
    bu_copy(obj, path);
    snprintf(path, sizeof path, "%s/mallory/compile.key", out);
    forge_key(pub, src, obj, path);
    c = run(&l, pub, out, 1, 0);
    cr_expect(reused(&c, "mallory"), "the control was not reused:%s", c.reused_ids);
    bat_list_release(&l);
    spec_set_free(pub);
    bu_remove_tree(root);
}

/* ---- the kept verdicts (grade/grade_keep.h) ---- */

static struct spec_set *load_public_hidden(void)
{
    struct spec_set *s = load_spec(TEST_SRCDIR "/specs/public.yaml");
    struct err e;

    cr_assert(spec_load(s, TEST_SRCDIR "/specs/hidden.yaml", gprop_check_case, &e) == 0,
              "spec: %s", e.msg);
    return s;
}

/* Every output a regrade writes, compared between two output folders. */
static void expect_same_outputs(const char *a, const char *b, const char *const *ids,
                                size_t n)
{
    static const char *const top[] = {"grades.csv", "summary.md", "summary.svg"};
    static const char *const each[] = {"row.tsv", "staff.md", "feedback.md"};

    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        expect_same(a, b, "", top[i]);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof each / sizeof each[0]; k++)
            expect_same(a, b, ids[i], each[k]);
}

static int has_kept(const char *out, const char *id)
{
    char path[4096];
    struct stat st;

    snprintf(path, sizeof path, "%s/%s/" GK_FILE, out, id);
    return lstat(path, &st) == 0;
}

static const char *const class_pts[][2] = {
    {"alice/", REF},
    {"bob.c", TEST_CATDIR "/submissions/softmax_wrong_axis.c"},
    {"carl.c", TEST_CATDIR "/submissions/layernorm_eps_ignored.c"},
    {"dave.c", FIX "broken.c"},
};

Test(verdicts, a_points_change_runs_no_test_and_matches_a_full_regrade, .timeout = 600)
{
    static const char *const ids[] = {"alice", "bob", "carl", "dave"};
    char *root = make_class(class_pts, 4);
    char out[1024], plain[1024];
    struct spec_set *all = load_public_hidden();
    /* every 1-point hidden test is worth 1.25: partial scores move too */
    struct spec_set *changed = edited_spec(load_spec(TEST_SRCDIR "/specs/public.yaml"), root,
                                           "hidden.yaml", TEST_SRCDIR "/specs/hidden.yaml",
                                           "\n  points: 1\n", "\n  points: 1.25\n", 1);
    struct bat_list l = {NULL, 0, 0};
    struct counts c;
    size_t n1, n2;
    char *before, *after;

    snprintf(out, sizeof out, "%s/out", root);
    snprintf(plain, sizeof plain, "%s/plain", root);
    discover(root, &l);
    c = run(&l, all, out, 0, 0);
    cr_expect(c.graded == 4 && c.kept == 0, "first grade: kept:%s", c.kept_ids);
    cr_expect(has_kept(out, "alice") && has_kept(out, "bob") && has_kept(out, "carl") &&
              !has_kept(out, "dave"), "a compile error keeps no verdicts");
    before = slurp_in(out, "", "grades.csv", &n1);
    c = run(&l, changed, out, 0, 0);
    cr_expect(c.graded == 4 && c.kept == 3 && kept(&c, "alice") && kept(&c, "bob") &&
              kept(&c, "carl"), "regrade: %zu graded, kept:%s", c.graded, c.kept_ids);
    after = slurp_in(out, "", "grades.csv", &n2);
    cr_expect(n1 != n2 || memcmp(before, after, n1) != 0, "the points change changed nothing");
    /* the same two grades with every test run */
    c = run(&l, all, plain, 0, 1);
    c = run(&l, changed, plain, 1, 1);
    cr_expect(c.graded == 4 && c.kept == 0 && c.reused == 0, "--no-cache kept:%s", c.kept_ids);
    expect_same_outputs(out, plain, ids, 4);
    free(before);
    free(after);
    bat_list_release(&l);
    spec_set_free(all);
    spec_set_free(changed);
    bu_remove_tree(root);
}

Test(verdicts, a_changed_case_runs_the_tests_again, .timeout = 300)
{
    static const char *const ids[] = {"alice", "bob", "carl", "dave"};
    char *root = make_class(class_pts, 4);
    char out[1024], plain[1024];
    struct spec_set *pub = load_spec(TEST_SRCDIR "/specs/public.yaml");
    /* one case of one test draws other inputs; no points change */
    struct spec_set *changed = edited_spec(NULL, root, "case.yaml",
                                           TEST_SRCDIR "/specs/public.yaml", "seed: 2}",
                                           "seed: 5}", 0);
    struct bat_list l = {NULL, 0, 0};
    struct counts c;

    snprintf(out, sizeof out, "%s/out", root);
    snprintf(plain, sizeof plain, "%s/plain", root);
    discover(root, &l);
    c = run(&l, pub, out, 0, 0);
    c = run(&l, changed, out, 0, 0);
    cr_expect(c.graded == 4 && c.kept == 0 && c.reused == 3,
              "a changed case: kept:%s, reused:%s", c.kept_ids, c.reused_ids);
    c = run(&l, changed, plain, 0, 1);
    expect_same_outputs(out, plain, ids, 4);
    /* what ran was kept: the next regrade runs nothing */
    c = run(&l, changed, out, 1, 0);
    cr_expect(c.kept == 3, "kept again: %s", c.kept_ids);
    bat_list_release(&l);
    spec_set_free(pub);
    spec_set_free(changed);
    bu_remove_tree(root);
}

static void write_bytes(const char *path, const char *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");

    cr_assert(f != NULL, "cannot write '%s'", path);
    cr_assert(fwrite(bytes, 1, n, f) == n);
    fclose(f);
}

Test(verdicts, damaged_linked_or_foreign_verdicts_are_not_used, .timeout = 300)
{
    char *root = make_class(class4, 5);
    char out[1024], path[4096], other[4096], *bytes, *before, *after;
    struct spec_set *pub = load_spec(TEST_SRCDIR "/specs/public.yaml");
    struct bat_list l = {NULL, 0, 0};
    struct counts c;
    size_t n, n1, n2;

    snprintf(out, sizeof out, "%s/out", root);
    discover(root, &l);
    c = run(&l, pub, out, 0, 0);
    cr_assert(c.graded == 5 && c.kept == 0);
    before = slurp_in(out, "", "grades.csv", &n1);

    /* ann: one byte flipped in the middle (its sum no longer matches) */
    snprintf(path, sizeof path, "%s/ann/" GK_FILE, out);
    bytes = bu_slurp(path, &n);
    bytes[n / 2] ^= 0x01;
    write_bytes(path, bytes, n);
    free(bytes);
    /* bea: a link to a copy of its own bytes (never followed) */
    snprintf(path, sizeof path, "%s/bea/" GK_FILE, out);
    snprintf(other, sizeof other, "%s/bea-verdicts-copy", root);
    bu_copy(path, other);
    cr_assert(unlink(path) == 0 && symlink(other, path) == 0);
    /* cid: dot's file, whole and valid, for another submission's key */
    snprintf(path, sizeof path, "%s/dot/" GK_FILE, out);
    snprintf(other, sizeof other, "%s/cid/" GK_FILE, out);
    bu_copy(path, other);
    /* dot: cut in half */
    bytes = bu_slurp(path, &n);
    write_bytes(path, bytes, n / 2);
    free(bytes);
    /* eve: untouched, the control */

    c = run(&l, pub, out, 1, 0);
    cr_expect(c.graded == 5 && c.kept == 1 && kept(&c, "eve"), "kept:%s", c.kept_ids);
    after = slurp_in(out, "", "grades.csv", &n2);
    cr_expect(n1 == n2 && memcmp(before, after, n1) == 0, "the verdicts changed");
    /* each was kept again, as a file of its own: all reused next time */
    c = run(&l, pub, out, 1, 0);
    cr_expect(c.kept == 5, "third run kept:%s", c.kept_ids);
    expect_regular(out, "bea/" GK_FILE);
    free(before);
    free(after);
    bat_list_release(&l);
    spec_set_free(pub);
    bu_remove_tree(root);
}

Test(verdicts, a_grade_a_timeout_touched_keeps_none, .timeout = 300)
{
    static const char *const cls[][2] = {{"lou.c", FIX "loop_forever.c"}, {"ref.c", REF}};
    char *root = make_class(cls, 2);
    char out[1024];
    struct spec_set *pub = load_spec(TEST_SRCDIR "/specs/public.yaml");
    struct bat_list l = {NULL, 0, 0};
    struct counts c;

    snprintf(out, sizeof out, "%s/out", root);
    discover(root, &l);
    c = run(&l, pub, out, 0, 0);
    cr_expect(c.graded == 2 && has_kept(out, "ref") && !has_kept(out, "lou"),
              "a grade with timeouts kept its verdicts");
    c = run(&l, pub, out, 1, 0);
    cr_expect(c.kept == 1 && kept(&c, "ref") && reused(&c, "lou"), "kept:%s", c.kept_ids);
    bat_list_release(&l);
    spec_set_free(pub);
    bu_remove_tree(root);
}

/* The kept file of `from` with every test that did not pass made a pass
 * (a gate may still withhold its points), its sum recomputed: what a
 * forger who knows the format would write. */
static void forge_passes(const char *from, const char *to)
{
    size_t n;
    char *text = bu_slurp(from, &n), *p, sum[65];
    size_t body;

    for (p = text; (p = strstr(p, "\nt ")) != NULL; p += 3)
        if (p[3] != '0')
            p[3] = '0';
    body = (size_t)(strstr(text, "\nsum ") - text) + 1;
    sha256_hex(text, body, sum);
    snprintf(text + body, n - body + 1, "sum %s\n", sum);
    write_bytes(to, text, body + 69);
    free(text);
}

Test(verdicts, a_student_folder_cannot_plant_verdicts, .timeout = 300)
{
    static const char *const cls[][2] = {
        {"mallory/", TEST_CATDIR "/submissions/softmax_wrong_axis.c"}};
    char *root = make_class(cls, 1);
    char out[1024], kept_path[4096], planted[4096], *first, *csv;
    struct spec_set *pub = load_spec(TEST_SRCDIR "/specs/public.yaml");
    struct bat_list l = {NULL, 0, 0};
    struct counts c;
    size_t n;

    snprintf(out, sizeof out, "%s/out", root);
    snprintf(kept_path, sizeof kept_path, "%s/mallory/" GK_FILE, out);
    snprintf(planted, sizeof planted, "%s/class/mallory/" GK_FILE, root);
    discover(root, &l);
    c = run(&l, pub, out, 0, 0);
    first = slurp_in(out, "", "grades.csv", &n);
    cr_assert(strstr(first, "\r\nmallory,60,60,") == NULL, "the fixture passes: %s", first);
    /* mallory's folder holds a valid kept file that says every test
     * passed; the TA's folder holds none */
    forge_passes(kept_path, planted);
    cr_assert(unlink(kept_path) == 0);
    c = run(&l, pub, out, 1, 0);
    cr_expect(c.kept == 0, "planted verdicts were used");
    csv = slurp_in(out, "", "grades.csv", &n);
    cr_expect(strcmp(csv, first) == 0, "the grade changed:\n%s", csv);
    free(csv);
    /* the control: the same file in the TA's folder is taken (so the test
     * above would see a reader of the student's folder) */
    bu_copy(planted, kept_path);
    c = run(&l, pub, out, 1, 0);
    csv = slurp_in(out, "", "grades.csv", &n);
    cr_expect(c.kept == 1 && strcmp(csv, first) != 0, "the control was not taken: %s", csv);
    free(csv);
    free(first);
    bat_list_release(&l);
    spec_set_free(pub);
    bu_remove_tree(root);
}
