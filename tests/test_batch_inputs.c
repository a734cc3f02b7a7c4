/*
 * test_batch_inputs.c -- a batch is safe from its own inputs, and keeps the
 * TA's: ids made from hostile names (safe, distinct, stable), every name
 * shown safe, a class folder named as Canvas, Moodle and Gradescope name
 * theirs plus hostile names (newlines, ESC and OSC sequences, "::error",
 * bidi overrides, markup, quotes, formulas, names of the gradebook's own
 * files, "..", long names that differ late, a symbolic link to
 * /proc/self/pagemap, a FIFO, a sparse 2 GiB file) giving one row per
 * folder and no forged line on any output; the resume key over
 * answers.yaml and the files it names; the manual scores of manual.csv
 * through resume, --force and the Canvas export.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch.h"
#include "build/objcache.h"
#include "batch_util.h"

#define REF TEST_SRCDIR "/reference/attention.c"
#define BROKEN TEST_SRCDIR "/tests/batch_fixtures/broken.c"
#define GRADER TEST_BUILDDIR "/grader"
#define PUBLIC TEST_SRCDIR "/specs/public.yaml"
#define WRITTEN TEST_SRCDIR "/specs/written.yaml"

/* Two names of 215 bytes that differ after byte 200. */
#define L50 "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"
#define LONG_A L50 L50 L50 L50 "AAAAAAAAAAAAAAA"
#define LONG_B L50 L50 L50 L50 "BBBBBBBBBBBBBBB"

static const char *const hostile[] = {
    "evil\n[9/9] zz-forged: ok 100/100",
    "esc\x1b]0;pwned\x07\x1b[2Kx",
    "::error title=x::forged",
    "bidi\xe2\x80\xae" "cod.exe",
    "<svg onload=alert(1)>",
    "]]>",
    "tab\there",
    "quote\"d 'single'",
    "=HYPERLINK(\"x\")",
    "grades.csv", "Summary.SVG", "manual.csv", "..", "x..y", "a.b.c", ".c",
    "Ada Lovelace_12345_assignsubmission_file_",
    "Zo\xc3\xab \xc3\x9cnal", "bad\xff\xfe" "utf8",
    LONG_A, LONG_B,
};
#define N_HOSTILE (sizeof hostile / sizeof hostile[0])

/* ---- ids and shown names ---- */

Test(batch_inputs, ids_are_safe_distinct_and_stable)
{
    char ids[N_HOSTILE + 2][BAT_ID_MAX + 1], again[BAT_ID_MAX + 1];

    for (size_t i = 0; i < N_HOSTILE; i++) {
        struct err e;
        const char *raw = strchr(hostile[i], '/') ? "slash" : hostile[i];

        bat_id_make(raw, ids[i]);
        err_clear(&e);
        cr_expect(bat_id_check(ids[i], &e) == 0, "'%s' from name %zu: %s", ids[i], i, e.msg);
        bat_id_make(raw, again);
        cr_expect_str_eq(again, ids[i], "name %zu: not stable", i);
        for (size_t j = 0; j < i; j++)
            cr_expect(strcmp(ids[i], ids[j]) != 0, "names %zu and %zu: both '%s'", j, i,
                      ids[i]);
    }
    bat_id_make("alice", ids[0]);
    cr_expect_str_eq(ids[0], "alice", "a plain name is its own id");
    bat_id_make("j.smith-2", ids[0]);
    cr_expect_str_eq(ids[0], "j.smith-2");
    bat_id_make("Ada Lovelace_12345_assignsubmission_file_", ids[0]);
    cr_expect(strncmp(ids[0], "Ada_Lovelace_12345_assignsubmission_file_~", 42) == 0 &&
              strlen(ids[0]) == 42 + BAT_ID_HASH, "'%s'", ids[0]);
    bat_id_make("grades.csv", ids[0]);
    cr_expect(strncmp(ids[0], "grades.csv~", 11) == 0, "'%s'", ids[0]);
    /* a name that looks like a made id is made again: '~' is never kept */
    bat_id_make("alice~0123456789ab", ids[1]);
    cr_expect(strcmp(ids[1], "alice~0123456789ab") != 0, "'%s'", ids[1]);
}

Test(batch_inputs, shown_names_hold_nothing_a_terminal_or_runner_acts_on)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"a\nb", "a\\x0ab"},
        {"\x1b]0;t\x07", "\\x1b]0;t\\x07"},
        {"::error::x", "\\x3a:error::x"},
        {"bidi\xe2\x80\xae" "x", "bidi\\u{202e}x"},
        {"zw\xe2\x80\x8b" "j", "zw\\u{200b}j"},
        {"c1\xc2\x9b" "x", "c1\\u{009b}x"},
        {"Zo\xc3\xab", "Zo\xc3\xab"},
        {"bad\xff", "bad\\xff"},
        {"back\\slash", "back\\\\slash"},
        {"tab\there", "tab\\x09here"},
        {"del\x7f", "del\\x7f"},
    };
    char buf[256];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bat_show(cases[i].in, buf, sizeof buf);
        cr_expect_str_eq(buf, cases[i].out, "case %zu", i);
    }
    bat_show("abcdef\nghij", buf, 8);
    cr_expect_str_eq(buf, "abcdef", "cut before an escape that does not fit");
}

Test(batch_inputs, paths_join_without_double_slashes)
{
    char buf[64];

    cr_assert(bat_path_join("class/", "a", buf, sizeof buf) == 0);
    cr_expect_str_eq(buf, "class/a");
    cr_assert(bat_path_join("class//", "a", buf, sizeof buf) == 0);
    cr_expect_str_eq(buf, "class/a");
    cr_assert(bat_path_join("/", "a", buf, sizeof buf) == 0);
    cr_expect_str_eq(buf, "/a");
    cr_expect(bat_path_join("class", "abcdefgh", buf, 8) < 0);
}

/* ---- a hostile class through `grader batch` ---- */

static char *tmp_root(void)
{
    char tmpl[] = "/tmp/test-batch-inputs-XXXXXX";

    cr_assert(mkdtemp(tmpl) != NULL);
    return strdup(tmpl);
}

static void path_of(char *buf, size_t n, const char *a, const char *b)
{
    int k = snprintf(buf, n, "%s/%s", a, b);

    cr_assert(k > 0 && (size_t)k < n);
}

/* A folder `name` in dir holding a copy of src as attention.c. */
static void folder(const char *dir, const char *name, const char *src)
{
    char path[4096], file[4200];

    path_of(path, sizeof path, dir, name);
    cr_assert(mkdir(path, 0755) == 0, "mkdir '%s': %s", path, strerror(errno));
    path_of(file, sizeof file, path, "attention.c");
    if (src != NULL)
        bu_copy(src, file);
}

/*
 * The class: real LMS layouts and the hostile names. Returns how many
 * entries must get a row.
 */
static size_t hostile_class(const char *dir)
{
    char path[4096], file[4200];
    size_t rows = 0;
    int fd;

    cr_assert(mkdir(dir, 0755) == 0);
    folder(dir, "alice", REF), rows++;
    /* Canvas: one file per student, lastname_userid_submissionid_file */
    path_of(path, sizeof path, dir, "lovelaceada_12345_67890_attention.c");
    bu_copy(BROKEN, path), rows++;
    path_of(path, sizeof path, dir, "lovelaceada_LATE_12345_67891_attention.c");
    bu_copy(BROKEN, path), rows++;
    /* Moodle: a folder per student and file (in `hostile` too) */
    folder(dir, "Grace Hopper_67890_assignsubmission_file_", BROKEN), rows++;
    /* Gradescope: submission_<id> folders and a metadata file beside them */
    folder(dir, "submission_123456789", BROKEN), rows++;
    path_of(path, sizeof path, dir, "submission_metadata.yml");
    bu_copy(BROKEN, path);   /* a stray file: a note, no row */
    for (size_t i = 0; i < N_HOSTILE; i++)
        if (strchr(hostile[i], '/') == NULL && hostile[i][0] != '.')   /* hidden */
            folder(dir, hostile[i], BROKEN), rows++;
    folder(dir, "evil\n[9 of 9] zz-forged: ok 100 of 100", BROKEN), rows++;
    folder(dir, "dots..", BROKEN), rows++;
    path_of(path, sizeof path, dir, "summary.svg.c");
    bu_copy(BROKEN, path), rows++;
    /* what git can commit, and what a careless class leaves */
    folder(dir, "linked", NULL), rows++;
    path_of(path, sizeof path, dir, "linked/attention.c");
    cr_assert(symlink("/proc/self/pagemap", path) == 0);
    folder(dir, "fifo", NULL), rows++;
    path_of(path, sizeof path, dir, "fifo/attention.c");
    cr_assert(mkfifo(path, 0644) == 0);
    folder(dir, "sparse", NULL), rows++;
    path_of(path, sizeof path, dir, "sparse/attention.c");
    cr_assert((fd = open(path, O_WRONLY | O_CREAT, 0644)) >= 0);
    cr_assert(ftruncate(fd, (off_t)2 << 30) == 0);
    close(fd);
    folder(dir, "dir-source", NULL), rows++;
    path_of(path, sizeof path, dir, "dir-source/attention.c");
    cr_assert(mkdir(path, 0755) == 0);
    path_of(path, sizeof path, dir, "linked-folder");
    cr_assert(symlink("/proc/self", path) == 0);
    rows++;
    path_of(path, sizeof path, dir, "pipe.c");
    cr_assert(mkfifo(path, 0644) == 0);
    rows++;
    folder(dir, "empty", NULL), rows++;
    path_of(file, sizeof file, dir, "empty/notes.txt");
    bu_copy(BROKEN, file);
    return rows;
}

/* No byte a terminal or a log reader acts on: controls other than
 * '\t', '\n', '\r' (tabs only where allowed), no bidi override, and no
 * line that starts a workflow command or forges a progress line; in a
 * document a browser renders (`markup`), no live tag. */
static void expect_inert(const char *what, const char *s, size_t n, int tabs, int markup)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int line_start = i == 0 || s[i - 1] == '\n';

        cr_expect(!(c < 0x20 && c != '\n' && c != '\r' && !(tabs && c == '\t')) && c != 0x7f,
                  "%s: byte 0x%02x at %zu", what, c, i);
        cr_expect(!(c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                    ((unsigned char)s[i + 2] & 0xf0) == 0xa0 &&
                    (unsigned char)s[i + 2] >= 0xaa && (unsigned char)s[i + 2] <= 0xae),
                  "%s: a bidi control at %zu", what, i);
        cr_expect(!(line_start && strncmp(s + i, "::", 2) == 0), "%s: '::' starts line at %zu",
                  what, i);
        cr_expect(!(line_start && strncmp(s + i, "[9 of 9] zz-forged", 18) == 0),
                  "%s: a forged progress line at %zu", what, i);
    }
    cr_expect(!markup || strstr(s, "<svg onload") == NULL, "%s: live markup", what);
}

/* Every file the batch wrote, checked by expect_inert. Returns how many. */
static size_t expect_tree_inert(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t files = 0;

    cr_assert(d != NULL, "cannot open '%s'", dir);
    while ((de = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;
        size_t n;
        char *text;

        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        path_of(path, sizeof path, dir, de->d_name);
        cr_assert(lstat(path, &st) == 0);
        if (S_ISDIR(st.st_mode)) {
            files += expect_tree_inert(path);
            continue;
        }
        /* the kept object is the compiler's binary, read only by the
         * grader (build/objcache.h), never shown to a person */
        if (strcmp(de->d_name, BLD_CACHE_OBJECT) == 0)
            continue;
        text = bu_slurp(path, &n);
        expect_inert(path, text, n, strcmp(de->d_name, BAT_ROW_NAME) == 0,
                     strstr(de->d_name, ".csv") == NULL && strstr(de->d_name, ".tsv") == NULL);
        free(text);
        files++;
    }
    closedir(d);
    return files;
}

static size_t count_lines(const char *s, const char *prefix)
{
    size_t k = 0;

    for (const char *p = s; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        k += strncmp(p, prefix, strlen(prefix)) == 0;
    return k;
}

/* How many lines of s contain `what`. */
static size_t lines_naming(const char *s, const char *what)
{
    size_t k = 0;

    for (const char *p = s; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *hit = strstr(p, what), *nl = strchr(p, '\n');

        k += hit != NULL && (nl == NULL || hit < nl);
    }
    return k;
}

Test(batch_inputs, hostile_class_gets_one_row_per_folder_and_no_forged_line, .timeout = 900)
{
    char *root = tmp_root();
    char dir[4096], arg[4200], out[4096], outarg[4200], err[4096], path[4200];
    /* bounded: before this change the batch hashed the 256 GiB pagemap
     * and did not stop on SIGTERM, hence -k */
    const char *argv[] = {"/usr/bin/timeout", "-k", "10", "600", GRADER, "batch", "--spec",
                          PUBLIC, "--jobs", "2", "--out", outarg, arg, NULL};
    char *text, *csv;
    size_t n, rows;
    int rc;

    path_of(dir, sizeof dir, root, "class");
    path_of(out, sizeof out, root, "out");
    path_of(err, sizeof err, root, "stderr.txt");
    snprintf(arg, sizeof arg, "%s/", dir);        /* as a shell completes it */
    snprintf(outarg, sizeof outarg, "%s/", out);
    rows = hostile_class(dir);
    rc = bu_run(argv, err, NULL);
    text = bu_slurp(err, &n);
    cr_assert(rc == 0, "exit %d (124: the batch did not finish):\n%s", rc, text);
    expect_inert("stderr", text, n, 0, 0);
    cr_expect(count_lines(text, "[") == rows, "%zu progress lines for %zu rows:\n%s",
              count_lines(text, "["), rows, text);
    cr_expect(strstr(text, "//") == NULL, "a double slash:\n%s", text);
    cr_expect(strstr(text, "] empty: missing: no attention.c in the folder 'empty'\n") != NULL &&
                  lines_naming(text, "empty") == 1,
              "the missing folder is not one line:\n%s", text);
    cr_expect(strstr(text, "linked: rejected: 'attention.c' is a symbolic link") != NULL &&
                  strstr(text, "fifo: rejected: 'attention.c' is a FIFO") != NULL &&
                  strstr(text, "sparse: rejected: 'attention.c' is larger than 1 MiB") != NULL &&
                  strstr(text, "dir-source: rejected: 'attention.c' is a directory") != NULL &&
                  strstr(text, "linked-folder: rejected: 'linked-folder' is a symbolic link") &&
                  strstr(text, "pipe: rejected: 'pipe.c' is a FIFO") != NULL,
              "a link or special file without its own line:\n%s", text);
    cr_expect(strstr(text, "submission_metadata.yml' is neither") != NULL, "%s", text);
    path_of(path, sizeof path, out, "grades.csv");
    csv = bu_slurp(path, &n);
    cr_expect(count_lines(csv, "") == rows + 1, "%zu lines for %zu rows:\n%s",
              count_lines(csv, ""), rows, csv);
    cr_expect(strstr(csv, ",evil\\x0a[9 of 9] zz-forged: ok 100 of 100\r\n") != NULL &&
                  strstr(csv, ",\"quote\"\"d 'single'\"\r\n") != NULL &&
                  strstr(csv, ",\"'=HYPERLINK(\"\"x\"\")\"\r\n") != NULL &&
                  strstr(csv, ",bidi\\u{202e}cod.exe\r\n") != NULL &&
                  strstr(csv, ",Ada Lovelace_12345_assignsubmission_file_\r\n") != NULL &&
                  strstr(csv, "," LONG_A "\r\n") != NULL && strstr(csv, "," LONG_B "\r\n"),
              "an original name is not in its row:\n%s", csv);
    cr_expect(strstr(csv, "\r\nalice,60,60,ok,") != NULL, "%s", csv);
    cr_expect(expect_tree_inert(out) > rows, "too few files");
    free(csv);
    free(text);
    bu_remove_tree(root);
}

/* ---- the resume key and the manual scores ---- */

static void write_text(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");

    cr_assert(f != NULL, "cannot write '%s'", path);
    fputs(s, f);
    fclose(f);
}

static void append_text(const char *path, const char *s)
{
    FILE *f = fopen(path, "a");

    cr_assert(f != NULL, "cannot write '%s'", path);
    fputs(s, f);
    fclose(f);
}

/* Run `grader batch` (public and written specs, plus `extra` when not
 * NULL) over root/class into root/out; the exit status, stderr in *text. */
static int batch(const char *root, const char *extra, char **text)
{
    char dir[4096], out[4096], err[4096];
    const char *argv[] = {"/usr/bin/timeout", "-k", "10", "600", GRADER, "batch", "--spec",
                          PUBLIC, "--spec", WRITTEN, "--jobs", "2", "--out", out, dir, NULL,
                          NULL};
    size_t n;
    int rc;

    path_of(dir, sizeof dir, root, "class");
    path_of(out, sizeof out, root, "out");
    path_of(err, sizeof err, root, "stderr.txt");
    if (extra != NULL) {
        argv[15] = dir;
        argv[14] = extra;
    }
    rc = bu_run(argv, err, NULL);
    *text = bu_slurp(err, &n);
    return rc;
}

static char *read_out(const char *root, const char *name)
{
    char path[4096];
    size_t n;

    snprintf(path, sizeof path, "%s/out/%s", root, name);
    return bu_slurp(path, &n);
}

/* Field k (0-based) of the line of grades.csv starting "id," (no quoted
 * fields in these rows), as a static copy; "?" when there is none. */
static const char *field(const char *csv, const char *id, size_t k)
{
    static char cell[128];
    char key[64];
    const char *p;

    snprintf(key, sizeof key, "\n%s,", id);
    snprintf(cell, sizeof cell, "?");
    if ((p = strstr(csv, key)) == NULL)
        return cell;
    for (p++; k > 0 && p != NULL; k--)
        p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
    if (p != NULL)
        snprintf(cell, sizeof cell, "%.*s", (int)strcspn(p, ",\r\n"), p);
    return cell;
}

/* The column of header name `col` in grades.csv. */
static size_t column(const char *csv, const char *col)
{
    size_t k = 0, n = strlen(col);

    for (const char *p = csv; *p && *p != '\r'; p += strcspn(p, ",\r") + (p[strcspn(p, ",\r")] == ','), k++)
        if (strncmp(p, col, n) == 0 && strchr(",\r", p[n]) != NULL)
            return k;
    cr_assert(0, "no column '%s'", col);
    return 0;
}

Test(batch_inputs, resume_key_covers_answers_and_the_files_they_name, .timeout = 900)
{
    char *root = tmp_root(), dir[4096], path[4200], *text;

    path_of(dir, sizeof dir, root, "class");
    cr_assert(mkdir(dir, 0755) == 0);
    folder(dir, "alice", REF);
    path_of(path, sizeof path, dir, "alice/answers.yaml");
    write_text(path, "text: \"the cat sat\"\n"
                     "top_pairs:\n  - {query: cat, key: sat, weight: 0.5}\n"
                     "part3:\n  text: \"the dog sat\"\n  vectors: part3_vectors.txt\n"
                     "  note: \"same vectors\"\n");
    path_of(path, sizeof path, dir, "alice/part3_vectors.txt");
    write_text(path, "cat 1 0\n");
    cr_assert(batch(root, NULL, &text) == 0, "%s", text);
    free(text);
    cr_assert(batch(root, NULL, &text) == 0, "%s", text);
    cr_expect(strstr(text, "alice: up to date") != NULL, "not resumed:\n%s", text);
    free(text);
    path_of(path, sizeof path, dir, "alice/answers.yaml");
    append_text(path, "# edited after the first run\n");
    cr_assert(batch(root, NULL, &text) == 0, "%s", text);
    cr_expect(strstr(text, "alice: up to date") == NULL, "answers.yaml edited, not regraded:\n%s",
              text);
    free(text);
    path_of(path, sizeof path, dir, "alice/part3_vectors.txt");
    append_text(path, "dog 0 1\n");
    cr_assert(batch(root, NULL, &text) == 0, "%s", text);
    cr_expect(strstr(text, "alice: up to date") == NULL,
              "the VECTORS file answers.yaml names was edited, not regraded:\n%s", text);
    free(text);
    bu_remove_tree(root);
}

/* `id`'s score in grades.csv is the one its progress line, staff.md
 * (the whole score) and report.html's staff view show, and feedback.md
 * (the visible tests) counts the manual points too; the rubrics show each
 * item's points (p2, p3: "5.0/6.0"; NULL: a rubric without a table). */
static void expect_one_score(const char *root, const char *progress, const char *csv,
                             const char *id, const char *p2, const char *p3)
{
    char want[128], path[64], score[32], *staff, *fb, *html;
    double total = strtod(field(csv, id, 1), NULL);

    snprintf(score, sizeof score, "%g", total);
    snprintf(want, sizeof want, "%s: up to date (%s/", id, score);
    cr_expect(strstr(progress, want) != NULL, "no '%s' in:\n%s", want, progress);
    snprintf(path, sizeof path, "%s/staff.md", id);
    staff = read_out(root, path);
    snprintf(want, sizeof want, "**Score: %s%s / ", score, strchr(score, '.') ? "" : ".0");
    cr_expect(strstr(staff, want) != NULL, "no '%s' in %s's staff.md:\n%.400s", want, id, staff);
    snprintf(path, sizeof path, "%s/feedback.md", id);
    fb = read_out(root, path);
    cr_expect(strstr(fb, "| MANUAL | -/") == NULL || p2 == NULL,
              "an item scored is still pending in %s's feedback.md", id);
    if (p2 != NULL) {
        snprintf(want, sizeof want, "| MANUAL | %s | written.manual.part2 |", p2);
        cr_expect(strstr(staff, want) != NULL && strstr(fb, want) != NULL, "no '%s'", want);
        snprintf(want, sizeof want, "| MANUAL | %s | written.manual.part3 |", p3);
        cr_expect(strstr(staff, want) != NULL && strstr(fb, want) != NULL, "no '%s'", want);
    } else {
        cr_expect(strstr(staff, "- Manual points (scored by the course staff): ") != NULL &&
                      strstr(fb, "- Manual points (scored by the course staff): ") != NULL,
                  "%s's rubrics do not name the manual points:\n%.600s", id, staff);
    }
    html = read_out(root, "report.html");
    snprintf(want, sizeof want, "**Score: %s%s / ", score, strchr(score, '.') ? "" : ".0");
    cr_expect(strstr(html, want) != NULL, "report.html's staff view lacks '%s'", want);
    free(html);
    free(staff);
    free(fb);
}

Test(batch_inputs, manual_scores_survive_resume_and_force_and_reach_canvas, .timeout = 900)
{
    char *root = tmp_root(), dir[4096], manual[4200], roster[4200], err[4200], canvas[4200];
    char *text, *csv, *before, *tmpl, *again, *imp, base[32], want[64];
    const char *export[] = {GRADER, "export", "--canvas", "--roster", roster, "--out", canvas,
                            NULL, NULL};
    size_t p2, p3, n;

    path_of(dir, sizeof dir, root, "class");
    cr_assert(mkdir(dir, 0755) == 0);
    folder(dir, "alice", REF);
    path_of(manual, sizeof manual, dir, "alice/answers.yaml");
    bu_copy(TEST_SRCDIR "/student_template/answers.yaml", manual);
    folder(dir, "bob", BROKEN);
    cr_assert(batch(root, NULL, &text) == 0, "%s", text);
    free(text);
    /* the template of manual.csv; a compile error's manual cells blank */
    tmpl = read_out(root, BAT_MANUAL_NAME);
    cr_expect_str_eq(tmpl, "id,name,written.manual.part2,written.manual.part3\r\n"
                           "alice,alice,,\r\nbob,bob,,\r\n");
    csv = read_out(root, "grades.csv");
    p2 = column(csv, "written.manual.part2");
    p3 = column(csv, "written.manual.part3");
    cr_expect_str_eq(field(csv, "bob", 3), "compile_error");
    cr_expect_str_eq(field(csv, "bob", p2), "", "a compile error's manual cell is not blank");
    /* every row that is not ok says why in its note, in one line */
    cr_expect(strncmp(field(csv, "bob", column(csv, "note")), "did not compile: ", 17) == 0 &&
                  strstr(field(csv, "bob", column(csv, "note")), "error:") != NULL,
              "bob's note: '%s'", field(csv, "bob", column(csv, "note")));
    cr_expect_str_eq(field(csv, "alice", column(csv, "note")), "");
    snprintf(base, sizeof base, "%s", field(csv, "alice", 1));
    free(csv);
    /* the TA scores: alice 5 + 3.5, bob 2 and part 3 not yet */
    snprintf(manual, sizeof manual, "%s/out/%s", root, BAT_MANUAL_NAME);
    write_text(manual, "id,name,written.manual.part2,written.manual.part3,comment\n"
                       "alice,alice,5,3.5,clear\nbob,bob,2,,\n");
    cr_assert(batch(root, NULL, &text) == 0, "%s", text);
    cr_expect(strstr(text, "alice: up to date") != NULL, "%s", text);
    cr_expect(strstr(text, "grader: 0 graded, 2 up to date: ") != NULL, "%s", text);
    csv = read_out(root, "grades.csv");
    expect_one_score(root, text, csv, "alice", "5.0/6.0", "3.5/4.0");
    expect_one_score(root, text, csv, "bob", NULL, NULL);
    free(text);
    free(csv);
    csv = read_out(root, "grades.csv");
    cr_expect_str_eq(field(csv, "alice", p2), "5");
    cr_expect_str_eq(field(csv, "alice", p3), "3.5");
    cr_expect_str_eq(field(csv, "bob", p2), "2");
    cr_expect_str_eq(field(csv, "bob", p3), "");
    snprintf(want, sizeof want, "%g", strtod(base, NULL) + 8.5);
    cr_expect_str_eq(field(csv, "alice", 1), want, "the score lacks the manual points");
    cr_expect_str_eq(field(csv, "bob", 1), "2");
    /* --force regrades every submission, and keeps the TA's scores */
    cr_assert(batch(root, "--force", &text) == 0, "%s", text);
    cr_expect(strstr(text, "up to date") == NULL, "%s", text);
    free(text);
    again = read_out(root, "grades.csv");
    cr_expect_str_eq(again, csv, "--force changed the gradebook");
    free(again);
    before = read_out(root, BAT_MANUAL_NAME);
    cr_expect(strstr(before, "alice,alice,5,3.5,clear") != NULL, "manual.csv was rewritten");
    /* into the Canvas import */
    snprintf(roster, sizeof roster, "%s/roster.csv", root);
    snprintf(canvas, sizeof canvas, "%s/canvas.csv", root);
    snprintf(err, sizeof err, "%s/export-err.txt", root);
    write_text(roster, "id,name,canvas_id\nalice,Ada,11\nbob,Bob,12\n");
    snprintf(manual, sizeof manual, "%s/out/grades.csv", root);
    export[7] = manual;
    cr_assert(bu_run(export, err, NULL) == 0);
    imp = bu_slurp(canvas, &n);
    snprintf(want, sizeof want, "\r\nAda,11,,,,%g\r\n", strtod(base, NULL) + 8.5);
    cr_expect(strstr(imp, want) != NULL, "no '%s' in:\n%s", want, imp);
    cr_expect(strstr(imp, "\r\nBob,12,,,,2\r\n") != NULL, "%s", imp);
    free(imp);
    /* bad input: one line with file:line:col; nothing lost */
    snprintf(manual, sizeof manual, "%s/out/%s", root, BAT_MANUAL_NAME);
    write_text(manual, "id,written.manual.part2\nalice,5\nbob,seven\n");
    cr_expect(batch(root, NULL, &text) == 2, "%s", text);
    cr_expect(strstr(text, "manual.csv:3:5: 'seven' is not a score from 0 to 6") != NULL &&
                  count_lines(text, "grader:") == 1 && strchr(text, '\n') ==
                  text + strlen(text) - 1, "%s", text);
    free(text);
    write_text(manual, "id,written.manual.part9\nalice,5\n");
    cr_expect(batch(root, NULL, &text) == 2, "%s", text);
    cr_expect(strstr(text, "manual.csv:1:4: column 'written.manual.part9'") != NULL, "%s", text);
    free(text);
    write_text(manual, "id,written.manual.part2\nalice,5\ncarol,1\n");
    cr_expect(batch(root, NULL, &text) == 2, "%s", text);
    cr_expect(strstr(text, "manual.csv:3:1: id 'carol' has no row") != NULL, "%s", text);
    free(text);
    again = read_out(root, "grades.csv");
    cr_expect_str_eq(again, csv, "a bad manual.csv changed the gradebook");
    free(again);
    again = read_out(root, BAT_MANUAL_NAME);
    cr_expect_str_eq(again, "id,written.manual.part2\nalice,5\ncarol,1\n");
    free(again);
    free(before);
    free(csv);
    free(tmpl);
    bu_remove_tree(root);
}

/* ---- the LMS's own layouts, as they download ---- */

#define GOOD_ANSWERS TEST_SRCDIR "/tests/answers_fixtures/good"
#define WRONG_ANSWERS TEST_SRCDIR "/tests/answers_fixtures/wrong_pair"

/* Five students: their code, and the folder of their answers (NULL: none). */
static const struct { const char *canvas, *moodle, *src, *answers; } lms_class[] = {
    {"smith_2345_6793_", "Jo Smith_2345_assignsubmission_file_", REF, GOOD_ANSWERS},
    {"jones_LATE_2346_7001_", "Al Jones_2346_assignsubmission_file_", REF, GOOD_ANSWERS},
    {"lee_2347_7101_", "Kim Lee_2347_assignsubmission_file_", REF, WRONG_ANSWERS},
    {"ng_2348_7201_", "Bo Ng_2348_assignsubmission_file_", BROKEN, GOOD_ANSWERS},
    {"ortiz_2349_7301_", "Cy Ortiz_2349_assignsubmission_file_", REF, NULL},
};
#define N_LMS (sizeof lms_class / sizeof lms_class[0])

/* The class as Canvas's "Download Submissions" flattens it: each file
 * "<login>_[LATE_]<user id>_<file id>_<name>", the file ids differing per
 * file; lee uploaded every file a second time ("-1" before the extension,
 * beside an older attention.c that must not be graded). Moodle's: one
 * folder per student and plugin, the online text beside the files. */
static void lms_classes(const char *root)
{
    char canvas[4096], moodle[4096], path[4300], file[8800];

    path_of(canvas, sizeof canvas, root, "canvas");
    path_of(moodle, sizeof moodle, root, "moodle");
    cr_assert(mkdir(canvas, 0755) == 0 && mkdir(moodle, 0755) == 0);
    for (size_t i = 0; i < N_LMS; i++) {
        int again = strncmp(lms_class[i].canvas, "lee_", 4) == 0;
        const char *dash = again ? "-1" : "";

        snprintf(path, sizeof path, "%s/%s%s", canvas, lms_class[i].canvas, "attention");
        snprintf(file, sizeof file, "%s%s.c", path, dash);
        bu_copy(lms_class[i].src, file);
        if (again) {  /* the first upload, which the second replaced */
            snprintf(file, sizeof file, "%s/%.*s9999_attention.c", canvas,
                     (int)(strlen(lms_class[i].canvas) - 5), lms_class[i].canvas);
            bu_copy(BROKEN, file);
        }
        folder(moodle, lms_class[i].moodle, lms_class[i].src);
        snprintf(path, sizeof path, "%s/%.*sassignsubmission_onlinetext_", moodle,
                 (int)(strlen(lms_class[i].moodle) - 22), lms_class[i].moodle);
        cr_assert(mkdir(path, 0755) == 0);
        snprintf(file, sizeof file, "%s/onlinetext.html", path);
        write_text(file, "<p>see my answers.yaml</p>\n");
        if (lms_class[i].answers == NULL)
            continue;
        snprintf(path, sizeof path, "%s/answers.yaml", lms_class[i].answers);
        snprintf(file, sizeof file, "%s/%.*s%u_answers%s.yaml", canvas,
                 (int)(strlen(lms_class[i].canvas) - 5), lms_class[i].canvas, 8000 + (unsigned)i,
                 dash);
        bu_copy(path, file);
        snprintf(file, sizeof file, "%s/%s/answers.yaml", moodle, lms_class[i].moodle);
        bu_copy(path, file);
        snprintf(path, sizeof path, "%s/part3_vectors.txt", lms_class[i].answers);
        snprintf(file, sizeof file, "%s/%.*s%u_part3_vectors%s.txt", canvas,
                 (int)(strlen(lms_class[i].canvas) - 5), lms_class[i].canvas, 8100 + (unsigned)i,
                 dash);
        bu_copy(path, file);
        snprintf(file, sizeof file, "%s/%s/part3_vectors.txt", moodle, lms_class[i].moodle);
        bu_copy(path, file);
    }
}

/* `grader batch` of root/<class> into root/out-<class> with the LMS's
 * --id-regex: the exit status, stderr in *text, grades.csv in *csv. */
static int lms_batch(const char *root, const char *class, const char *re, char **text,
                     char **csv)
{
    char dir[4096], out[4096], err[4096], path[4200];
    const char *argv[] = {"/usr/bin/timeout", "-k", "10", "600", GRADER, "batch", "--spec",
                          PUBLIC, "--spec", WRITTEN, "--jobs", "2", "--id-regex", re,
                          "--out", out, dir, NULL};
    size_t n;
    int rc;

    path_of(dir, sizeof dir, root, class);
    snprintf(out, sizeof out, "%s/out-%s", root, class);
    path_of(err, sizeof err, root, "stderr.txt");
    rc = bu_run(argv, err, NULL);
    *text = bu_slurp(err, &n);
    path_of(path, sizeof path, out, "grades.csv");
    *csv = rc == 0 ? bu_slurp(path, &n) : NULL;
    return rc;
}

/* The feedback back into each LMS in bulk, from the two batches' output
 * trees: Moodle's zip read back as Moodle's importer reads it, each entry
 * in a folder of the download; Canvas's bulk comments keyed by the
 * roster's canvas_id (tests/lms_feedback.py). */
static void lms_feedback_back(const char *root)
{
    char zip[4096], json[4096], roster[4096], grades[4300], cls[4096], out[4200],
         err[4096], py[4096], *text;
    const char *moodle[] = {GRADER, "export", "--feedback", "--moodle", "--out", zip, grades,
                            NULL};
    const char *canvas[] = {GRADER, "export", "--feedback", "--canvas", "--roster", roster,
                            "--out", json, grades, NULL};
    const char *read_zip[] = {"/usr/bin/python3", TEST_SRCDIR "/tests/lms_feedback.py",
                              "moodle", zip, cls, out, NULL};
    const char *read_json[] = {"/usr/bin/python3", TEST_SRCDIR "/tests/lms_feedback.py",
                               "canvas", json, roster, out, NULL};
    size_t n;

    path_of(zip, sizeof zip, root, "feedback.zip");
    path_of(json, sizeof json, root, "comments.json");
    path_of(roster, sizeof roster, root, "roster.csv");
    path_of(err, sizeof err, root, "export-err.txt");
    path_of(py, sizeof py, root, "py.txt");
    write_text(roster, "id,canvas_id\n2345,2345\n2346,2346\n2347,2347\n2348,2348\n"
                       "2349,2349\n");
    path_of(cls, sizeof cls, root, "moodle");
    snprintf(out, sizeof out, "%s/out-moodle", root);
    snprintf(grades, sizeof grades, "%s/grades.csv", out);
    cr_assert(bu_run(moodle, err, NULL) == 0);
    text = bu_slurp(err, &n);
    cr_expect(strstr(text, "5 feedback files in the zip, 0 gradebook rows left out") != NULL,
              "%s", text);
    free(text);
    cr_expect(bu_run(read_zip, err, py) == 0);
    text = bu_slurp(py, &n);
    cr_expect(count_lines(text, "ok: ") == N_LMS && strstr(text, "ok: Jo Smith_2345_"
              "assignsubmission_file_/feedback.md (participant 2345)") != NULL, "%s", text);
    free(text);
    snprintf(out, sizeof out, "%s/out-canvas", root);
    snprintf(grades, sizeof grades, "%s/grades.csv", out);
    cr_assert(bu_run(canvas, err, NULL) == 0);
    text = bu_slurp(err, &n);
    cr_expect(strstr(text, "5 feedback files as Canvas comments, 0 gradebook rows left out")
                  != NULL, "%s", text);
    free(text);
    cr_expect(bu_run(read_json, err, py) == 0);
    text = bu_slurp(py, &n);
    cr_expect(count_lines(text, "ok: ") == N_LMS, "%s", text);
    free(text);
}

Test(batch_inputs, canvas_flattened_class_gets_its_written_points_as_moodle_folders,
     .timeout = 1200)
{
    char *root = tmp_root(), *ctext, *mtext, *ccsv, *mcsv, path[4200], *fb;
    size_t auto_col, n;

    lms_classes(root);
    cr_assert(lms_batch(root, "canvas", "^[^_]+_(?:LATE_)?(?<id>\\d+)_\\d+_", &ctext,
                        &ccsv) == 0, "%s", ctext);
    cr_assert(lms_batch(root, "moodle", "_(?<id>\\d+)_assignsubmission_file_?$", &mtext,
                        &mcsv) == 0, "%s", mtext);
    /* Moodle's online text is said once and gets no row */
    cr_expect(count_lines(mcsv, "") == N_LMS + 1 && count_lines(ccsv, "") == N_LMS + 1,
              "one row per student:\n%s\n%s", mcsv, ccsv);
    cr_expect(strstr(mtext, "onlinetext_' is Moodle's online text") != NULL &&
                  strstr(mtext, "missing") == NULL, "%s", mtext);
    cr_expect(strstr(ctext, "neither a .c file") == NULL, "a Canvas file skipped:\n%s", ctext);
    auto_col = column(ccsv, "written.top_pairs");
    cr_expect_eq(auto_col, column(mcsv, "written.top_pairs"));
    for (size_t i = 0; i < N_LMS; i++) {
        char id[8], score[32];

        snprintf(id, sizeof id, "%u", 2345 + (unsigned)i);
        snprintf(score, sizeof score, "%s", field(mcsv, id, 1));
        cr_expect_str_eq(field(ccsv, id, 1), score, "%s's score differs", id);
        snprintf(score, sizeof score, "%s", field(mcsv, id, auto_col));
        cr_expect_str_eq(field(ccsv, id, auto_col), score, "%s's written points differ", id);
        snprintf(score, sizeof score, "%s", field(mcsv, id, 3));
        cr_expect_str_eq(field(ccsv, id, 3), score, "%s's status differs", id);
    }
    /* the written points arrived: the good answers score, the code's too */
    cr_expect(strtod(field(ccsv, "2345", auto_col), NULL) > 0, "%s", ccsv);
    cr_expect_str_eq(field(ccsv, "2345", 3), "ok");
    cr_expect_str_eq(field(ccsv, "2347", 3), "ok", "lee's older upload was graded:\n%s", ccsv);
    snprintf(path, sizeof path, "%s/out-canvas/2345/feedback.md", root);
    fb = bu_slurp(path, &n);
    cr_expect(strstr(fb, "cannot open") == NULL, "%s", fb);
    free(fb);
    lms_feedback_back(root);
    free(ctext);
    free(mtext);
    free(ccsv);
    free(mcsv);
    bu_remove_tree(root);
}

/* A folder whose file is misnamed: the row, the progress line and the
 * student's feedback.md say what was found and what to do, as the
 * Gradescope bundle does; a folder with no .c at all just says none. */
Test(batch_inputs, a_misnamed_file_gets_the_hint_in_its_row_and_feedback, .timeout = 600)
{
    char *root = tmp_root(), dir[4096], path[4200], *text, *csv, *fb;

    path_of(dir, sizeof dir, root, "class");
    cr_assert(mkdir(dir, 0755) == 0);
    folder(dir, "wrong", NULL);
    path_of(path, sizeof path, dir, "wrong/Attention.c");
    bu_copy(REF, path);
    folder(dir, "none", NULL);
    cr_assert(batch(root, NULL, &text) == 0, "%s", text);
    cr_expect(strstr(text, "wrong: missing: no attention.c in the folder 'wrong'; found "
                           "instead: Attention.c (rename your file to attention.c, lower "
                           "case)\n") != NULL, "%s", text);
    csv = read_out(root, "grades.csv");
    cr_expect(strstr(csv, "found instead: Attention.c (rename") != NULL, "%s", csv);
    fb = read_out(root, "wrong/feedback.md");
    cr_expect(strstr(fb, "Found instead: Attention.c. Rename your file to attention.c") != NULL,
              "%s", fb);
    free(fb);
    fb = read_out(root, "none/feedback.md");
    cr_expect(strstr(fb, "Found instead") == NULL && strstr(fb, "No file named attention.c"),
              "%s", fb);
    free(fb);
    free(text);
    /* the same command again: no warning; then with one point value
     * raised (written.top_pairs 4 to 6), the total changes (80 to 82)
     * and the batch says so before grading */
    cr_assert(batch(root, NULL, &text) == 0, "%s", text);
    cr_expect(strstr(text, "warning") == NULL, "%s", text);
    free(text);
    {
        char out[4096], err[4096], class[4096], spec[4096];
        const char *argv[] = {GRADER, "batch", "--spec", PUBLIC, "--spec", spec, "--out", out,
                              class, NULL};
        char *w, *p;
        size_t n;

        path_of(out, sizeof out, root, "out");
        path_of(class, sizeof class, root, "class");
        path_of(err, sizeof err, root, "stderr.txt");
        path_of(spec, sizeof spec, root, "written.yaml");
        w = bu_slurp(WRITTEN, &n);
        cr_assert((p = strstr(w, "property: top_pairs\n    points: 4\n")) != NULL);
        p[strlen("property: top_pairs\n    points: ")] = '6';
        write_text(spec, w);
        free(w);
        cr_assert(bu_run(argv, err, NULL) == 0);
        text = bu_slurp(err, &n);
        cr_expect(strstr(text, "grader: warning: the specs total 82 points, the gradebook of "
                               "the previous run (") != NULL &&
                      strstr(text, "grades.csv) 80: a point value changed") != NULL,
                  "%s", text);
        free(text);
    }
    free(csv);
    bu_remove_tree(root);
}
