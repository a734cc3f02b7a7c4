/*
 * test_summary.c -- summary.h: summary.md and summary.svg from hand-built
 * gradebook rows, and summary.svg as a person sees it: rendered to PNG by
 * rsvg-convert (installed with apt-get when missing and we are root;
 * skipped with a clear line otherwise), its size checked, and the boxes
 * of its texts measured so that no two overlap, at 100 tests.
 */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch/batch.h"
#include "batch/html.h"
#include "batch/summary.h"

#define N_FN 6
#define MAX_TESTS 128
#define MAX_ROWS 64

static const char *const fns[N_FN] = {"softmax", "sdpa", "pe", "layernorm", "mha", "block"};

/* A class: n_rows rows over n_tests tests spread over the six functions,
 * with long test names; row i fails test j when (i * 7 + j * 3) % 10 < i % 4,
 * the last two tests are manual items. Scores count the passes. */
struct klass {
    char ids[MAX_TESTS][96];
    const char *idp[MAX_TESTS];
    char msgs[MAX_ROWS][MAX_TESTS][64];
    struct bat_test_row tests[MAX_ROWS][MAX_TESTS];
    struct bat_row rows[MAX_ROWS + 2];
    char row_ids[MAX_ROWS + 2][16];
    size_t n_rows, n_tests;
};

static struct klass *make_class(size_t n_rows, size_t n_tests, int absent)
{
    struct klass *k = calloc(1, sizeof *k);

    cr_assert_not_null(k);
    k->n_rows = n_rows;
    k->n_tests = n_tests;
    for (size_t j = 0; j < n_tests; j++) {
        if (j + 2 >= n_tests)
            snprintf(k->ids[j], sizeof k->ids[j], "written.manual.part%zu", j + 4 - n_tests);
        else
            snprintf(k->ids[j], sizeof k->ids[j], "%s.a_rather_long_property_name_number_%zu",
                     fns[j * N_FN / n_tests], j);
        k->idp[j] = k->ids[j];
    }
    for (size_t i = 0; i < n_rows; i++) {
        struct bat_row *r = &k->rows[i];
        double score = 0;

        for (size_t j = 0; j < n_tests; j++) {
            struct bat_test_row *t = &k->tests[i][j];
            int manual = j + 2 >= n_tests, fail = (i * 7 + j * 3) % 10 < i % 4;

            snprintf(k->msgs[i][j], sizeof k->msgs[i][j],
                     fail ? "weight (%zu, 0) is 0.%zu, expected 0.5 +- 1e-05" : "", i, j + 1);
            *t = (struct bat_test_row){k->ids[j], "", fail ? 0 : 1, 1, k->msgs[i][j]};
            snprintf(t->status, sizeof t->status, "%s",
                     manual ? "manual_pending" : fail ? "failed" : "passed");
            score += !manual && !fail;
        }
        snprintf(k->row_ids[i], sizeof k->row_ids[i], "s%02zu", i);
        *r = (struct bat_row){.id = k->row_ids[i], .score = score,
                              .max_score = (double)n_tests, .tests = k->tests[i],
                              .n_tests = n_tests, .detail = (char *)""};
        snprintf(r->status, sizeof r->status, "ok");
    }
    for (int a = 0; a < absent; a++) {
        struct bat_row *r = &k->rows[k->n_rows];

        snprintf(k->row_ids[k->n_rows], sizeof k->row_ids[k->n_rows], "z%d", a);
        *r = (struct bat_row){.id = k->row_ids[k->n_rows], .max_score = (double)n_tests,
                              .detail = (char *)"no attention.c in the folder"};
        snprintf(r->status, sizeof r->status, a ? "skipped" : "missing");
        k->n_rows++;
    }
    return k;
}

static char *md_of(const struct klass *k)
{
    struct sb sb;

    sb_init(&sb, 0);
    cr_assert(sum_write_md(k->rows, k->n_rows, k->idp, k->n_tests, &sb) == 0);
    return sb_detach(&sb, NULL);
}

static char *svg_of(const struct klass *k)
{
    struct sb sb;

    sb_init(&sb, 0);
    cr_assert(sum_write_svg(k->rows, k->n_rows, k->idp, k->n_tests, &sb) == 0);
    return sb_detach(&sb, NULL);
}

/* ---- summary.md ---- */

Test(summary, md_counts_absent_folders_and_leaves_manual_items_unranked)
{
    struct klass *k = make_class(5, 20, 2);
    char *md = md_of(k);
    const char *rank = strstr(md, "## Pass rate per test");
    const char *manual = strstr(md, "Manual items (a TA scores them");

    cr_expect(strstr(md, "5 submissions graded of 7 folders") != NULL, "%s", md);
    cr_expect(strstr(md, "| missing | 1 |") != NULL && strstr(md, "| skipped | 1 |") != NULL,
              "%s", md);
    cr_assert(rank != NULL && manual != NULL, "%s", md);
    /* no manual item in the ranking table, which ends where they are named */
    cr_expect(strstr(rank, "| written.manual") == NULL || strstr(rank, "| written.manual") > manual,
              "a manual item is ranked:\n%s", rank);
    cr_expect(strstr(manual, "written.manual.part2, written.manual.part3") != NULL, "%s", manual);
    free(md);
    free(k);
}

Test(summary, md_groups_messages_that_differ_only_in_numbers)
{
    struct klass *k = make_class(8, 12, 0);
    char *md = md_of(k), *tab = strstr(md, "## Most common failure messages");
    unsigned count = 0;

    cr_assert_not_null(tab);
    /* every failure of a test reads "weight (i, 0) is 0.j, expected ...":
     * one line per test with the number of rows that failed it */
    cr_expect(sscanf(strstr(tab, "|---:|---|---|\n") + 15, "| %u |", &count) == 1, "%s", tab);
    cr_expect(count > 1, "messages were not grouped:\n%s", tab);
    free(md);
    free(k);
}

Test(summary, md_says_one_submission)
{
    struct klass *k = make_class(1, 6, 0);
    char *md = md_of(k);

    cr_expect(strstr(md, "1 submission graded.") != NULL, "%s", md);
    free(md);
    free(k);
}

/* ---- summary.svg: text boxes ---- */

struct box {
    double x0, y0, x1, y1;
    char text[96];
};

static double attr(const char *tag, const char *name, double dflt)
{
    char key[32];
    const char *p;

    snprintf(key, sizeof key, " %s=\"", name);
    p = strstr(tag, key);
    return p && p < strchr(tag, '>') ? strtod(p + strlen(key), NULL) : dflt;
}

/* Characters (not bytes) of the text up to '<'; entities count as one. */
static size_t text_chars(const char *s, char *copy, size_t n)
{
    size_t chars = 0, j = 0;

    for (; *s && *s != '<'; s++) {
        if (*s == '&')
            s += strcspn(s, ";");
        if (((unsigned char)*s & 0xC0) != 0x80)
            chars++;
        if (j + 1 < n)
            copy[j++] = *s;
    }
    copy[j] = '\0';
    return chars;
}

/* The box of every <text>: width from its characters at 0.62 em (0.68
 * bold), which is at or above what a sans-serif font uses for these
 * labels; height from the ascent (0.8 em) and descent (0.25 em). */
static size_t text_boxes(const char *svg, struct box *b, size_t max)
{
    size_t n = 0;

    for (const char *p = strstr(svg, "<text "); p && n < max; p = strstr(p + 1, "<text ")) {
        double x = attr(p, "x", 0), y = attr(p, "y", 0), fs = attr(p, "font-size", 16);
        const char *anchor = strstr(p, "text-anchor=\"");
        int bold = strstr(p, "font-weight=\"bold\"") != NULL &&
                   strstr(p, "font-weight=\"bold\"") < strchr(p, '>');
        double w = (double)text_chars(strchr(p, '>') + 1, b[n].text, sizeof b[n].text) * fs *
                   (bold ? 0.68 : 0.62);

        if (anchor && strncmp(anchor + 13, "middle", 6) == 0)
            x -= w / 2;
        else if (anchor && strncmp(anchor + 13, "end", 3) == 0)
            x -= w;
        b[n] = (struct box){x, y - 0.8 * fs, x + w, y + 0.25 * fs, ""};
        text_chars(strchr(p, '>') + 1, b[n].text, sizeof b[n].text);
        n++;
    }
    return n;
}

static void expect_no_overlap(const char *svg, double width, double height)
{
    static struct box b[2048];
    size_t n = text_boxes(svg, b, 2048), bad = 0;

    cr_assert(n > 10, "only %zu texts", n);
    for (size_t i = 0; i < n; i++) {
        cr_expect(b[i].x0 >= 0 && b[i].x1 <= width && b[i].y0 >= 0 && b[i].y1 <= height,
                  "'%s' [%.0f,%.0f]-[%.0f,%.0f] leaves the %.0fx%.0f figure", b[i].text,
                  b[i].x0, b[i].y0, b[i].x1, b[i].y1, width, height);
        for (size_t j = i + 1; j < n && bad < 5; j++)
            if (b[i].x0 < b[j].x1 && b[j].x0 < b[i].x1 && b[i].y0 < b[j].y1 &&
                b[j].y0 < b[i].y1) {
                bad++;
                cr_expect(0, "'%s' overlaps '%s'", b[i].text, b[j].text);
            }
    }
}

static double svg_size(const char *svg, const char *name)
{
    return attr(strstr(svg, "<svg "), name, -1);
}

Test(summary, svg_at_100_tests_has_no_overlapping_text)
{
    struct klass *k = make_class(30, 100, 1);
    char *svg = svg_of(k);

    expect_no_overlap(svg, svg_size(svg, "width"), svg_size(svg, "height"));
    free(svg);
    free(k);
}

Test(summary, svg_nests_tests_under_each_function_once)
{
    struct klass *k = make_class(10, 40, 0);
    char *svg = svg_of(k);

    for (size_t f = 0; f < N_FN; f++) {
        char tag[64];
        const char *p;

        snprintf(tag, sizeof tag, "font-weight=\"bold\">%s</text>", fns[f]);
        p = strstr(svg, tag);
        cr_expect(p != NULL, "no row for function '%s'", fns[f]);
        cr_expect(p == NULL || strstr(p + 1, tag) == NULL, "'%s' has two rows", fns[f]);
    }
    cr_expect(strstr(svg, ">written.manual") == NULL && strstr(svg, ">manual.part") == NULL,
              "a manual item is drawn");
    free(svg);
    free(k);
}

/* 5 of 8 pass: summary.md and summary.svg both say 62.5 %; the longest
 * label (a real one of the hidden spec, made longer) is drawn whole, and
 * still overlaps nothing and stays inside the figure. */
Test(summary, percentages_read_alike_and_long_labels_are_whole)
{
    static const char *const ids[] = {
        "mha.self_attention_permutation_equivariance_across_heads", "softmax.values"};
    struct bat_test_row tests[8][2];
    struct bat_row rows[8];
    char names[8][8];
    struct sb md, svg;

    for (size_t i = 0; i < 8; i++) {
        for (size_t j = 0; j < 2; j++) {
            tests[i][j] = (struct bat_test_row){(char *)ids[j], "", 1, 1, (char *)""};
            snprintf(tests[i][j].status, sizeof tests[i][j].status, "%s",
                     j == 0 && i >= 5 ? "failed" : "passed");
        }
        snprintf(names[i], sizeof names[i], "s%zu", i);
        rows[i] = (struct bat_row){.id = names[i], .score = 2, .max_score = 2,
                                   .tests = tests[i], .n_tests = 2, .detail = (char *)""};
        snprintf(rows[i].status, sizeof rows[i].status, "ok");
    }
    sb_init(&md, 0);
    sb_init(&svg, 0);
    cr_assert(sum_write_md(rows, 8, ids, 2, &md) == 0);
    cr_assert(sum_write_svg(rows, 8, ids, 2, &svg) == 0);
    cr_expect(strstr(sb_str(&md), " | 5/8 | 62.5 % |") != NULL, "%s", sb_str(&md));
    cr_expect(strstr(sb_str(&svg), ">62.5 %</text>") != NULL, "summary.svg rounds otherwise");
    cr_expect(strstr(sb_str(&svg), ">self_attention_permutation_equivariance_across_heads<") !=
                  NULL, "the long label is cut:\n%s", sb_str(&svg));
    expect_no_overlap(sb_str(&svg), svg_size(sb_str(&svg), "width"),
                      svg_size(sb_str(&svg), "height"));
    sb_release(&md);
    sb_release(&svg);
}

/* The histogram's y ticks: whole numbers of submissions, from 0. */
Test(summary, svg_histogram_ticks_are_whole_counts)
{
    static const size_t sizes[] = {1, 3, 5, 7, 30, 45};

    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        struct klass *k = make_class(sizes[s] < MAX_ROWS ? sizes[s] : MAX_ROWS, 12, 0);
        char *svg = svg_of(k), *hist = strstr(svg, ">submissions</text>");
        size_t ticks = 0;

        cr_assert_not_null(hist);
        for (const char *p = strstr(hist, "text-anchor=\"end\">"); p;
             p = strstr(p + 1, "text-anchor=\"end\">")) {
            const char *t = p + strlen("text-anchor=\"end\">");
            char *end;
            double v = strtod(t, &end);

            cr_expect(*end == '<' && v == (double)(long)v, "tick '%.10s' is not whole", t);
            ticks++;
        }
        cr_expect(ticks >= 2, "%zu ticks for %zu submissions", ticks, sizes[s]);
        free(svg);
        free(k);
    }
}

/* ---- summary.svg rendered ---- */

static int have_rsvg(void)
{
    return system("command -v rsvg-convert >/dev/null 2>&1") == 0;
}

/* rsvg-convert, installed from Debian's librsvg2-bin when missing (root
 * with apt-get only). 1 when it can be run. */
static int ensure_rsvg(void)
{
    if (have_rsvg())
        return 1;
    if (geteuid() != 0 || system("command -v apt-get >/dev/null 2>&1") != 0)
        return 0;
    if (system("DEBIAN_FRONTEND=noninteractive apt-get install -y -qq librsvg2-bin "
               ">/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive "
               "apt-get install -y -qq librsvg2-bin; } >/dev/null 2>&1") != 0)
        return 0;
    return have_rsvg();
}

static unsigned be32(const unsigned char *p)
{
    return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

Test(summary, svg_renders_to_a_png_of_its_size, .timeout = 300)
{
    struct klass *k = make_class(30, 100, 1);
    char dir[] = "/tmp/test-summary-XXXXXX", svgp[64], pngp[64], cmd[256];
    unsigned char head[24];
    char *svg;
    FILE *f;
    long len;

    if (!ensure_rsvg()) {
        free(k);
        cr_skip_test("rsvg-convert is missing and cannot be installed here "
                     "(apt-get install librsvg2-bin): the PNG rendering is not checked");
    }
    svg = svg_of(k);
    cr_assert_not_null(mkdtemp(dir));
    snprintf(svgp, sizeof svgp, "%s/summary.svg", dir);
    snprintf(pngp, sizeof pngp, "%s/summary.png", dir);
    cr_assert_not_null(f = fopen(svgp, "w"));
    fputs(svg, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "rsvg-convert '%s' -o '%s'", svgp, pngp);
    cr_assert_eq(system(cmd), 0, "%s failed", cmd);
    cr_assert_not_null(f = fopen(pngp, "rb"));
    cr_assert_eq(fread(head, 1, sizeof head, f), sizeof head);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fclose(f);
    cr_expect(memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(head + 12, "IHDR", 4) == 0);
    cr_expect_eq(be32(head + 16), (unsigned)svg_size(svg, "width"));
    cr_expect_eq(be32(head + 20), (unsigned)svg_size(svg, "height"));
    cr_expect(len > 20000, "a %ld-byte PNG for 100 tests: nearly empty?", len);
    unlink(svgp);
    unlink(pngp);
    rmdir(dir);
    free(svg);
    free(k);
}

/* ---- report.html (batch/html.h) ---- */

/* Text from the class is HTML text: markup escaped, controls and bidi
 * overrides visible, invalid UTF-8 replaced; one_line shows newlines. */
Test(summary, html_text_is_escaped_and_visible)
{
    static const struct { const char *in; int one_line; const char *out; } cases[] = {
        {"<svg onload=x>", 1, "&lt;svg onload=x&gt;"},
        {"a\"b'c&d", 1, "a&quot;b&#39;c&amp;d"},
        {"]]>", 1, "]]&gt;"},
        {"line\nnext\tcol", 1, "line\\nnext\\tcol"},
        {"line\nnext", 0, "line\nnext"},
        {"\x1b]0;title\x07", 1, "\xef\xbf\xbd]0;title\xef\xbf\xbd"},
        {"abc\xe2\x80\xaexyz", 1, "abc[U+202E]xyz"},
        {"\xe2\x81\xa6iso", 1, "[U+2066]iso"},
        {"bad\xff", 1, "bad\xef\xbf\xbd"},
        {"Zo\xc3\xab", 1, "Zo\xc3\xab"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sb sb;

        sb_init(&sb, 0);
        cr_assert_eq(html_add_text(&sb, cases[i].in, strlen(cases[i].in), cases[i].one_line), 0);
        cr_expect_str_eq(sb_str(&sb), cases[i].out, "case %zu", i);
        sb_release(&sb);
    }
}

/* The page from hand-built rows: a CSP that forbids every request, one
 * table row per gradebook row (absent folders too), every test column,
 * and nothing of the class outside escaped text. */
Test(summary, html_report_has_a_row_per_folder_and_forbids_requests)
{
    struct klass *k = make_class(12, 20, 1);
    struct sb sb;
    struct err e;
    const char *p;
    size_t rows = 0;

    k->rows[0].id = (char *)"<img src=x onerror=alert(1)>";
    sb_init(&sb, 0);
    err_clear(&e);
    cr_assert_eq(html_write_report("/nonexistent", k->rows, k->n_rows, k->idp,
                                   k->n_tests, &sb, &e), 0, "%s", e.msg);
    cr_expect(strstr(sb_str(&sb), "default-src 'none'") != NULL);
    cr_expect(strstr(sb_str(&sb), "script-src 'sha256-") != NULL);
    cr_expect(strstr(sb_str(&sb), "'unsafe-inline'") == NULL);
    for (p = sb_str(&sb); (p = strstr(p, "<tr data-status=")) != NULL; p++)
        rows++;
    cr_expect_eq(rows, k->n_rows);
    cr_expect(strstr(sb_str(&sb), "<img src=x") == NULL);
    cr_expect(strstr(sb_str(&sb), "&lt;img src=x onerror=alert(1)&gt;") != NULL);
    cr_expect(strstr(sb_str(&sb), k->ids[k->n_tests - 1]) != NULL);
    /* no similarity.csv: no section, and no link to one */
    cr_expect(strstr(sb_str(&sb), "href=\"#similar\"") == NULL &&
                  strstr(sb_str(&sb), "id=\"similar\"") == NULL, "a dead 'Similar pairs' link");
    sb_release(&sb);
    free(k);
}

/* A class of 30 from the catalogue in headless Chromium: sort, filter, a
 * student's failures, a hostile id as text, no request, no console
 * message, screenshots (tests/report_browser.sh). Skipped, saying so,
 * where there is no Chromium. */
Test(summary, html_report_in_a_browser, .timeout = 900)
{
    char *cmd = NULL, *text;
    FILE *p;
    size_t n;
    int rc;

    cr_assert(asprintf(&cmd, "cd '%s' && sh tests/report_browser.sh . '%s' 2>&1", TEST_SRCDIR,
                       TEST_BUILDDIR) > 0);
    text = calloc(1, 1 << 16);
    cr_assert_not_null(text);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    n = fread(text, 1, (1 << 16) - 1, p);
    text[n] = '\0';
    rc = pclose(p);
    rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    if (rc == 77)
        cr_skip_test("%s", text);
    cr_expect_eq(rc, 0, "%s", text);
    cr_expect(strstr(text, "report browser: all checks passed") != NULL, "%s", text);
    printf("%s", text);
    free(text);
    free(cmd);
}

/* ---- the page's bounds: a gradebook folder built by hand ---- */

static void put_file(const char *dir, const char *id, const char *name, const char *text,
                     size_t n)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s/%s", dir, id, name);
    cr_assert_not_null(f = fopen(path, "wb"), "cannot write '%s'", path);
    cr_assert_eq(fwrite(text, 1, n, f), n);
    fclose(f);
}

/* n copies of `unit` (a string), NUL-terminated; *len its length. */
static char *repeat(const char *unit, size_t n, size_t *len)
{
    size_t u = strlen(unit);
    char *s = malloc(u * n + 1);

    cr_assert_not_null(s);
    for (size_t i = 0; i < n; i++)
        memcpy(s + i * u, unit, u);
    s[u * n] = '\0';
    *len = u * n;
    return s;
}

/* k's rows as a gradebook folder (row.tsv per id) with heavy files: each
 * staff.md 60 KiB of markup (4 bytes rendered per byte read), a
 * feedback.md apart, and with `pairs`, similarity.csv pairing the first
 * ten ids, whose source.c is 30000 comment lines all in the regions. */
static char *heavy_gradebook(struct klass *k, int pairs)
{
    char *dir = strdup("/tmp/grader-page-XXXXXX"), path[4096], *staff, *fb, *src;
    size_t ns, nf, nsrc;
    struct sb csv;

    cr_assert(dir != NULL && mkdtemp(dir) != NULL);
    staff = repeat("<&>\n", 15 << 10, &ns);
    fb = repeat("<b>\n", 7 << 10, &nf);
    src = repeat("// <x>\n", 30000, &nsrc);
    for (size_t i = 0; i < k->n_rows; i++) {
        struct bat_row *r = &k->rows[i];
        struct sb row;

        snprintf(r->grader_version, sizeof r->grader_version, "test");
        memset(r->spec_sha256, 'a', 64);
        memset(r->submission_sha256, 'b', 64);
        memset(r->inputs_sha256, 'c', 64);
        snprintf(path, sizeof path, "%s/%s", dir, r->id);
        cr_assert(mkdir(path, 0755) == 0);
        sb_init(&row, 0);
        cr_assert(bat_row_format(r, &row) == 0);
        put_file(dir, r->id, "row.tsv", sb_str(&row), row.len);
        sb_release(&row);
        put_file(dir, r->id, "staff.md", staff, ns);
        put_file(dir, r->id, "feedback.md", fb, nf);
        if (pairs && i < 10)
            put_file(dir, r->id, "source.c", src, nsrc);
    }
    sb_init(&csv, 0);
    cr_assert(sb_adds(&csv, "id_a,id_b,share_a,share_b,matched_tokens,regions\r\n") == 0);
    for (size_t a = 0; pairs && a < 10; a++)
        for (size_t b = a + 1; b < 10; b++)
            cr_assert(sb_addf(&csv, "%s,%s,1.0000,1.0000,900,1-30000:1-30000\r\n",
                              k->row_ids[a], k->row_ids[b]) == 0);
    if (pairs) {
        snprintf(path, sizeof path, "%s/similarity.csv", dir);
        cr_assert(bat_write_atomic(path, sb_str(&csv), csv.len, NULL) == 0);
    }
    sb_release(&csv);
    free(staff);
    free(fb);
    free(src);
    return dir;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)f;
    return (flag == FTW_DP ? rmdir(p) : unlink(p)), 0;
}

static size_t count(const char *s, const char *needle)
{
    size_t k = 0;

    for (const char *p = s; (p = strstr(p, needle)) != NULL; p++)
        k++;
    return k;
}

/* A class whose files and views would make a page of 20 MB: at any cap
 * the page is made, fits, keeps every gradebook row while it can, and
 * says what it left out; parts stop at what they render, even at the
 * default cap (each file 240 KiB rendered, each view 700 KiB). */
Test(summary, html_page_shrinks_to_its_cap_and_never_fails, .timeout = 120)
{
    static const struct {
        size_t cap;
        const char *says[3];
    } cases[] = {
        {0, {"10 side-by-side views stop at their limit of 256 KiB",
             "40 files stop at their limit of 128 KiB", NULL}},
        {4u << 20, {"to stay under its cap of 4 MiB", "lines of context", NULL}},
        {1u << 20, {"to stay under its cap of 1 MiB", "side-by-side views are collapsed",
                    NULL}},
        {300u << 10, {"to stay under its cap of 300 KiB",
                      "the students' files are not embedded", NULL}},
        {100u << 10, {"to stay under its cap of 100 KiB", "gradebook rows, 45 pairs and 40 "
                      "students did not fit", NULL}},
    };
    struct klass *k = make_class(40, 20, 0);
    char *dir = heavy_gradebook(k, 1);

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct sb sb;
        struct err e;

        sb_init(&sb, cases[c].cap);
        err_clear(&e);
        cr_assert_eq(html_write_report(dir, k->rows, k->n_rows, k->idp, k->n_tests, &sb, &e),
                     0, "cap %zu: %s", cases[c].cap, e.msg);
        cr_expect(!sb.truncated && sb.len <= sb.cap, "cap %zu: %zu bytes", sb.cap, sb.len);
        cr_expect(strstr(sb_str(&sb), "<p id=\"shrunk\"") != NULL &&
                  strstr(sb_str(&sb), "This page was shrunk") != NULL, "cap %zu", sb.cap);
        for (size_t j = 0; j < 3 && cases[c].says[j]; j++)
            cr_expect(strstr(sb_str(&sb), cases[c].says[j]) != NULL, "cap %zu: no '%s'",
                      sb.cap, cases[c].says[j]);
        cr_expect(strstr(sb_str(&sb), "</html>\n") != NULL, "cap %zu: no end", sb.cap);
        if (cases[c].cap != (100u << 10))
            cr_expect_eq(count(sb_str(&sb), "<tr data-status="), k->n_rows, "cap %zu", sb.cap);
        fprintf(stderr, "summary: page at a cap of %zu KiB: %zu KiB\n", sb.cap >> 10,
                sb.len >> 10);
        sb_release(&sb);
    }
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
    free(k);
}

/* A similarity.csv that does not parse is a line on the page, not a
 * failed page (the gradebook never depends on it). */
Test(summary, html_page_survives_a_broken_similarity_csv)
{
    struct klass *k = make_class(3, 4, 0);
    char *dir = heavy_gradebook(k, 0), path[4096];
    struct sb sb;
    struct err e;

    snprintf(path, sizeof path, "%s/similarity.csv", dir);
    cr_assert(bat_write_atomic(path, "id_a,who\r\n\"x,y\r\n", 17, NULL) == 0);
    sb_init(&sb, 0);
    err_clear(&e);
    cr_assert_eq(html_write_report(dir, k->rows, k->n_rows, k->idp, k->n_tests, &sb, &e), 0,
                 "%s", e.msg);
    cr_expect(strstr(sb_str(&sb), "similarity.csv could not be shown: ") != NULL);
    sb_release(&sb);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
    free(k);
}

/* The gradebook before the page: where report.html cannot be written (a
 * folder of that name, not empty), bat_finish and `grader report` still
 * write grades.csv, summary.md and summary.svg, and say the page was not. */
Test(summary, a_page_that_cannot_be_written_leaves_the_gradebook_written, .timeout = 60)
{
    struct klass *k = make_class(5, 6, 0);
    char *dir = heavy_gradebook(k, 0), path[4096], errp[4096 + 16], buf[4096] = "";
    const char *ids[5], *argv[] = {TEST_BUILDDIR "/grader", "report", dir, NULL};
    struct stat st;
    struct err e;
    FILE *f;
    int rc, status;
    pid_t pid;

    for (size_t i = 0; i < 5; i++)
        ids[i] = k->row_ids[i];
    snprintf(path, sizeof path, "%s/report.html", dir);
    cr_assert(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/report.html/keep", dir);
    cr_assert(mkdir(path, 0755) == 0);
    err_clear(&e);
    rc = bat_finish(dir, ids, 5, NULL, 0, &e);
    cr_expect_eq(rc, BAT_NO_PAGE, "rc %d: %s", rc, e.msg);
    cr_expect(e.msg[0] != '\0');
    snprintf(path, sizeof path, "%s/grades.csv", dir);
    cr_expect(stat(path, &st) == 0 && st.st_size > 100, "no grades.csv after a failed page");
    cr_assert(unlink(path) == 0);
    snprintf(errp, sizeof errp, "%s.err", dir);
    cr_assert((pid = fork()) >= 0);
    if (pid == 0) {
        if (freopen(errp, "w", stderr) == NULL || freopen("/dev/null", "w", stdout) == NULL)
            _exit(127);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    cr_assert(waitpid(pid, &status, 0) == pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
    cr_assert_not_null(f = fopen(errp, "r"));
    buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
    fclose(f);
    unlink(errp);
    cr_expect(strstr(buf, "grader: report.html not written: ") == buf, "%s", buf);
    cr_expect(strstr(buf, "the gradebook is written all the same") != NULL, "%s", buf);
    cr_expect(stat(path, &st) == 0 && st.st_size > 100, "grader report left no grades.csv");
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
    free(k);
}

/* The figure after function fn's label in `doc` ("<label>fn</text>" then
 * the first "N.N %"), or -1. */
static double fn_figure(const char *doc, const char *fn, const char *label_end)
{
    char key[128];
    const char *p, *pct;

    snprintf(key, sizeof key, "%s%s</text>", label_end, fn);
    if ((p = strstr(doc, key)) == NULL || (pct = strstr(p, " %</text>")) == NULL)
        return -1;
    while (pct > p && pct[-1] != '>')
        pct--;
    return strtod(pct, NULL);
}

/* One definition of "passed" (manual items in no pass rate, every row
 * counted) in summary.svg and the page's chart: each function shows the
 * same figure in both, and the page's chart has the height and viewBox a
 * browser needs to draw every row. */
Test(summary, html_and_svg_give_each_function_the_same_pass_rate)
{
    struct klass *k = make_class(12, 20, 1);
    char *svg = svg_of(k), key[64];
    const char *fn_all[N_FN + 1] = {"softmax", "sdpa", "pe", "layernorm", "mha", "block",
                                    "written"};
    struct sb sb;
    struct err e;

    sb_init(&sb, 0);
    err_clear(&e);
    cr_assert_eq(html_write_report("/nonexistent", k->rows, k->n_rows, k->idp, k->n_tests,
                                   &sb, &e), 0, "%s", e.msg);
    for (size_t f = 0; f < N_FN + 1; f++) {
        double in_svg = fn_figure(svg, fn_all[f], "font-weight=\"bold\">");
        double in_html = fn_figure(sb_str(&sb), fn_all[f], "font-size=\"12\">");

        if (f == N_FN) {  /* only manual items: in neither */
            cr_expect(in_svg < 0 && in_html < 0, "written: %g in the SVG, %g in the page",
                      in_svg, in_html);
            continue;
        }
        cr_expect(in_svg >= 0 && in_svg == in_html, "%s: %g %% in summary.svg, %g %% in the page",
                  fn_all[f], in_svg, in_html);
    }
    snprintf(key, sizeof key, "height=\"%d\" viewBox=\"0 0 420 %d\"", 30 + N_FN * 26,
             30 + N_FN * 26);
    cr_expect(strstr(sb_str(&sb), key) != NULL, "the chart is not sized for its %d rows", N_FN);
    sb_release(&sb);
    free(svg);
    free(k);
}
