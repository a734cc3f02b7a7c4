/*
 * test_layout.c -- the folders of grader/ keep to the map in docs/DESIGN.md.
 *
 * The map's table says, for each folder, which folders it may include. This
 * suite reads that table (so the document is the rule, and cannot drift
 * from the code) and every `#include "folder/file.h"` under grader/, and
 * fails on an include the table does not allow, on a folder missing from
 * the table, and on an include that does not name its folder.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#define MAX_FOLDERS 16
#define NAME_LEN 32

struct folder {
    char name[NAME_LEN];
    char may[MAX_FOLDERS][NAME_LEN];
    size_t n_may;
    int everything_below;
};

struct map {
    struct folder f[MAX_FOLDERS];
    size_t n;
};

/* "| `cli/` | ... | everything below |": the folder and the last cell. */
static int parse_row(const char *line, struct folder *out)
{
    const char *name_end, *last;
    size_t len;

    if (strncmp(line, "| `", 3) != 0 || (name_end = strstr(line + 3, "/` |")) == NULL)
        return 0;
    len = (size_t)(name_end - (line + 3));
    if (len == 0 || len >= NAME_LEN)
        return 0;
    memset(out, 0, sizeof *out);
    memcpy(out->name, line + 3, len);
    last = strrchr(line, '|');
    while (last > line && last[-1] != '|')
        last--;
    out->everything_below = strstr(last, "everything below") != NULL;
    for (const char *p = last; *p != '\0' && out->n_may < MAX_FOLDERS;) {
        size_t w = strcspn(p, ", |\n");
        if (w > 0 && w < NAME_LEN)
            memcpy(out->may[out->n_may++], p, w);
        p += w + (p[w] != '\0');
    }
    return 1;
}

static void load_map(struct map *m)
{
    char path[4096], line[1024];
    FILE *fp;

    snprintf(path, sizeof path, "%s/docs/DESIGN.md", TEST_SRCDIR);
    cr_assert_not_null(fp = fopen(path, "r"), "cannot read '%s'", path);
    m->n = 0;
    while (fgets(line, sizeof line, fp) != NULL && m->n < MAX_FOLDERS)
        m->n += (size_t)parse_row(line, &m->f[m->n]);
    fclose(fp);
    cr_assert_gt(m->n, 5, "docs/DESIGN.md has no folder map (found %zu rows)", m->n);
}

static const struct folder *find(const struct map *m, const char *name, size_t *at)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->f[i].name, name) == 0) {
            if (at != NULL)
                *at = i;
            return &m->f[i];
        }
    return NULL;
}

/* Whether folder `from` may include folder `to` by the map. */
static int allowed(const struct map *m, const char *from, const char *to)
{
    size_t i, j;
    const struct folder *f = find(m, from, &i);

    if (strcmp(from, to) == 0)
        return 1;
    if (f == NULL || find(m, to, &j) == NULL)
        return 0;
    if (f->everything_below)
        return j > i;
    for (size_t k = 0; k < f->n_may; k++)
        if (strcmp(f->may[k], to) == 0)
            return 1;
    return 0;
}

/* grader/<folder>/<file>: the folder part, or "" for a top-level file. */
static void folder_of(const char *path, char out[NAME_LEN])
{
    const char *a = strstr(path, "/grader/"), *b;

    out[0] = '\0';
    if (a == NULL || (b = strchr(a + 8, '/')) == NULL || (size_t)(b - a - 8) >= NAME_LEN)
        return;
    memcpy(out, a + 8, (size_t)(b - a - 8));
    out[b - a - 8] = '\0';
}

static void check_file(const struct map *m, const char *path, size_t *bad)
{
    char from[NAME_LEN], line[1024];
    FILE *fp = fopen(path, "r");

    cr_assert_not_null(fp, "cannot read '%s'", path);
    folder_of(path, from);
    cr_expect_not_null(find(m, from, NULL), "'%s': folder '%s' is not in DESIGN.md's map",
                       path, from);
    while (fgets(line, sizeof line, fp) != NULL) {
        char to[NAME_LEN] = "";
        int end = 0;
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "#include \"%31[a-z_]%n", to, &end) == 1 && line[end] == '/') {
            if (!allowed(m, from, to)) {
                cr_log_error("'%s': %s/ may not include: %s (docs/DESIGN.md)", path, from,
                             line);
                (*bad)++;
            }
        } else if (strncmp(line, "#include \"", 10) == 0 &&
                   strncmp(line, "#include \"attention.h\"", 22) != 0) {
            cr_log_error("'%s': an include that does not name its folder: %s", path, line);
            (*bad)++;
        }
    }
    fclose(fp);
}

/* Every grader source, grader/<folder>/<file>.[ch]; the caller globfree()s. */
static void sources(glob_t *g)
{
    char pat[4096];

    snprintf(pat, sizeof pat, "%s/grader/*/*.[ch]", TEST_SRCDIR);
    cr_assert_eq(glob(pat, 0, NULL, g), 0, "no sources under '%s'", pat);
}

Test(layout, includes_follow_the_map)
{
    struct map m;
    glob_t g;
    size_t bad = 0;

    load_map(&m);
    sources(&g);
    for (size_t i = 0; i < g.gl_pathc; i++)
        check_file(&m, g.gl_pathv[i], &bad);
    globfree(&g);
    cr_expect_eq(bad, 0, "%zu includes break the folder map (see the log above)", bad);
}

/* The parser itself: a row that allows nothing, one that lists folders, and
 * "everything below" -- so that a misparsed table cannot pass everything. */
Test(layout, map_parser_reads_the_rules)
{
    struct map m;

    load_map(&m);
    cr_expect(allowed(&m, "cli", "core"));
    cr_expect(allowed(&m, "grade", "props"));
    cr_expect_not(allowed(&m, "core", "spec"), "core/ must include nothing of ours");
    cr_expect_not(allowed(&m, "props", "grade"), "props/ lies below grade/");
    cr_expect_not(allowed(&m, "sandbox", "spec"), "sandbox/ and spec/ are side by side");
    cr_expect_not(allowed(&m, "batch", "cli"), "nothing includes cli/");
}

/* No source file grows past about 800 lines (STYLE.md: split a file well
 * before 1,000 along its own seams); 850 leaves "about" some room. */
#define MAX_LINES 850

static size_t count_lines(const char *path)
{
    FILE *fp = fopen(path, "r");
    size_t n = 0;
    int ch;

    cr_assert_not_null(fp, "cannot read '%s'", path);
    while ((ch = getc(fp)) != EOF)
        n += ch == '\n';
    fclose(fp);
    return n;
}

Test(layout, no_file_past_about_800_lines)
{
    glob_t g;
    size_t bad = 0;

    sources(&g);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        size_t n = count_lines(g.gl_pathv[i]);
        if (n > MAX_LINES) {
            cr_log_error("'%s' has %zu lines (at most %d): split it along its seams",
                         g.gl_pathv[i], n, MAX_LINES);
            bad++;
        }
    }
    globfree(&g);
    cr_expect_eq(bad, 0, "%zu files are longer than %d lines", bad, MAX_LINES);
}
