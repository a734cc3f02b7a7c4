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
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The map of `root`/docs/DESIGN.md (a planted tree has a small one). */
static void load_map_of(const char *root, struct map *m)
{
    char path[4096], line[1024];
    FILE *fp;

    snprintf(path, sizeof path, "%s/docs/DESIGN.md", root);
    cr_assert_not_null(fp = fopen(path, "r"), "cannot read '%s'", path);
    m->n = 0;
    while (fgets(line, sizeof line, fp) != NULL && m->n < MAX_FOLDERS)
        m->n += (size_t)parse_row(line, &m->f[m->n]);
    fclose(fp);
}

static void load_map(struct map *m)
{
    load_map_of(TEST_SRCDIR, m);
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

/* Every grader source of `root`, grader/<folder>/<file>.[ch]; the caller
 * globfree()s. */
static void sources_of(const char *root, glob_t *g)
{
    char pat[4096];

    snprintf(pat, sizeof pat, "%s/grader/*/*.[ch]", root);
    cr_assert_eq(glob(pat, 0, NULL, g), 0, "no sources under '%s'", pat);
}

static void sources(glob_t *g)
{
    sources_of(TEST_SRCDIR, g);
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

/*
 * Layering by symbol. An include is not the only way up: a file may declare
 * `extern` what a folder above defines (props/prop.c once registered the
 * written part's table, defined in selfcheck/). So the objects are read too
 * (`nm -P`): every global symbol an object of folder A leaves undefined and
 * an object of folder B defines must be one A may include by the map.
 */
struct sym {
    char name[128];
    char folder[NAME_LEN];
    char object[256];
};

struct syms {
    struct sym *v;
    size_t n, cap;
};

static void syms_add(struct syms *s, const char *name, const char *folder,
                     const char *object)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 512;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        cr_assert_not_null(s->v, "out of memory");
    }
    snprintf(s->v[s->n].name, sizeof s->v[s->n].name, "%s", name);
    snprintf(s->v[s->n].folder, sizeof s->v[s->n].folder, "%s", folder);
    snprintf(s->v[s->n].object, sizeof s->v[s->n].object, "%s", object);
    s->n++;
}

static int sym_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sym *)a)->name, ((const struct sym *)b)->name);
}

/* obj/<folder>/<name>.o: the folder, and whether grader/<folder>/<name>.c
 * exists under src_root (an object left from a removed source is not ours). */
static int object_folder(const char *src_root, const char *obj, char folder[NAME_LEN])
{
    const char *base = strrchr(obj, '/'), *dir;
    char src[4096];
    size_t n;

    if (base == NULL || base == obj)
        return 0;
    for (dir = base - 1; dir > obj && dir[-1] != '/'; dir--)
        ;
    n = (size_t)(base - dir);
    if (n == 0 || n >= NAME_LEN)
        return 0;
    memcpy(folder, dir, n);
    folder[n] = '\0';
    snprintf(src, sizeof src, "%s/grader/%s/%.*s.c", src_root, folder,
             (int)(strlen(base + 1) - 2), base + 1);
    return access(src, F_OK) == 0;
}

/* The global symbols each object under obj_root/obj/<folder>/ defines
 * (into defs) and references (into refs): one `nm -P -A` over them all. */
static void read_symbols(const char *src_root, const char *obj_root, struct syms *defs,
                         struct syms *refs)
{
    char cmd[4200], line[1024], obj[256], name[128], folder[NAME_LEN];
    char type;
    FILE *p;

    snprintf(cmd, sizeof cmd, "cd '%s' && nm -P -A obj/*/*.o", obj_root);
    cr_assert_not_null(p = popen(cmd, "r"), "cannot run nm in '%s'", obj_root);
    while (fgets(line, sizeof line, p) != NULL) {
        if (sscanf(line, "%255[^:]: %127s %c", obj, name, &type) != 3 ||
            !object_folder(src_root, obj, folder))
            continue;
        if (type == 'U')
            syms_add(refs, name, folder, obj);
        else if (type >= 'A' && type <= 'Z')
            syms_add(defs, name, folder, obj);
    }
    cr_assert_eq(pclose(p), 0, "nm failed on the objects of '%s' (build first)", obj_root);
}

/* Count into *bad each reference from an object under obj_root to a symbol
 * an object of a folder it may not include defines (logged when `log`: a
 * logged error makes Criterion's exit status 1 even when every test passes,
 * so the planted tree's expected faults are counted silently). */
static void check_symbols(const struct map *m, const char *src_root, const char *obj_root,
                          int log, size_t *bad)
{
    struct syms defs = {0}, refs = {0};

    read_symbols(src_root, obj_root, &defs, &refs);
    cr_assert_gt(defs.n, 0, "no symbols in the objects of '%s' (build first)", obj_root);
    qsort(defs.v, defs.n, sizeof *defs.v, sym_cmp);
    for (size_t i = 0; i < refs.n; i++) {
        const struct sym *d = bsearch(&refs.v[i], defs.v, defs.n, sizeof *defs.v, sym_cmp);
        if (d != NULL && !allowed(m, refs.v[i].folder, d->folder)) {
            if (log)
                cr_log_error("'%s' (%s/) references '%s', defined in %s/ ('%s'): a "
                             "layer it may not use (docs/DESIGN.md)", refs.v[i].object,
                             refs.v[i].folder, d->name, d->folder, d->object);
            (*bad)++;
        }
    }
    free(defs.v);
    free(refs.v);
}

Test(layout, symbols_follow_the_map)
{
    struct map m;
    size_t bad = 0;

    load_map(&m);
    check_symbols(&m, TEST_SRCDIR, TEST_BUILDDIR, 1, &bad);
    cr_expect_eq(bad, 0, "%zu symbol references break the folder map (see the log above)",
                 bad);
}

/*
 * A header that says it is internal -- named *_internal.h, or "internal to"
 * or "not an API" in its opening comment -- is included only by the files
 * of its own folder.
 */
static int is_internal(const char *path)
{
    char line[512];
    FILE *fp;
    int yes;

    if (strlen(path) > 11 && strcmp(path + strlen(path) - 11, "_internal.h") == 0)
        return 1;
    cr_assert_not_null(fp = fopen(path, "r"), "cannot read '%s'", path);
    yes = 0;
    while (!yes && fgets(line, sizeof line, fp) != NULL) {
        yes = strcasestr(line, "internal to") != NULL || strcasestr(line, "not an api") != NULL;
        if (strstr(line, "*/") != NULL)
            break;
    }
    fclose(fp);
    return yes;
}

/* "folder/name.h" of grader/folder/name.h. */
static void include_name(const char *path, char out[2 * NAME_LEN + 8])
{
    char folder[NAME_LEN];

    folder_of(path, folder);
    snprintf(out, 2 * NAME_LEN + 8, "%s/%s", folder, strrchr(path, '/') + 1);
}

/* Whether `path` includes "name" (folder/file.h). */
static int includes(const char *path, const char *name)
{
    char line[1024], want[256];
    FILE *fp = fopen(path, "r");
    int yes = 0;

    cr_assert_not_null(fp, "cannot read '%s'", path);
    snprintf(want, sizeof want, "#include \"%s\"", name);
    while (!yes && fgets(line, sizeof line, fp) != NULL)
        yes = strncmp(line, want, strlen(want)) == 0;
    fclose(fp);
    return yes;
}

/* Count into *bad each include of an internal header from another folder. */
static void check_internal(const char *src_root, int log, size_t *bad)
{
    glob_t g;

    sources_of(src_root, &g);
    for (size_t h = 0; h < g.gl_pathc; h++) {
        char name[2 * NAME_LEN + 8], hf[NAME_LEN];
        const char *hp = g.gl_pathv[h];
        if (hp[strlen(hp) - 1] != 'h' || !is_internal(hp))
            continue;
        include_name(hp, name);
        folder_of(hp, hf);
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char f[NAME_LEN];
            folder_of(g.gl_pathv[i], f);
            if (strcmp(f, hf) != 0 && includes(g.gl_pathv[i], name)) {
                if (log)
                    cr_log_error("'%s' includes '%s', internal to %s/", g.gl_pathv[i],
                                 name, hf);
                (*bad)++;
            }
        }
    }
    globfree(&g);
}

Test(layout, internal_headers_stay_in_their_folder)
{
    size_t bad = 0;

    check_internal(TEST_SRCDIR, 1, &bad);
    cr_expect_eq(bad, 0, "%zu includes of another folder's internal header (see the log "
                 "above)", bad);
}

/* root/rel with `text`, its folders made. */
static void plant(const char *root, const char *rel, const char *text)
{
    char path[4096], cmd[4200];
    FILE *fp;

    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    cr_assert_eq(system(cmd), 0, "cannot make the folder of '%s'", path);
    cr_assert_not_null(fp = fopen(path, "w"), "cannot write '%s'", path);
    fputs(text, fp);
    fclose(fp);
}

/*
 * The checks can fail: a planted tree of two folders, high/ over low/, where
 * low.c calls a function of high/ through a bare declaration (no include to
 * see) and high.c includes low/'s internal header. The include check passes
 * it; each new check finds its one planted fault and nothing else (high/
 * calling down into low/, and low.c including its own internal header, are
 * fine).
 */
Test(layout, planted_upward_symbol_and_internal_include_are_caught)
{
    char root[] = "/tmp/test_layout_XXXXXX", cmd[8400];
    size_t bad_inc = 0, bad_sym = 0, bad_int = 0;
    struct map m;
    glob_t g;

    cr_assert_not_null(mkdtemp(root));
    plant(root, "docs/DESIGN.md", "| folder | prefixes | owns | may include |\n"
          "|---|---|---|---|\n| `high/` | `hi_` | the top | low |\n"
          "| `low/` | `lo_` | the bottom | nothing of ours |\n");
    plant(root, "grader/low/low.h", "/* low.h -- the low API. */\nint lo_fn(void);\n");
    plant(root, "grader/low/low_sec.h", "/* low_sec.h -- Internal to low/. */\n"
          "int lo_sec(void);\n");
    plant(root, "grader/low/low.c", "#include \"low/low_sec.h\"\nint hi_fn(void);\n"
          "int lo_fn(void);\nint lo_fn(void) { return hi_fn(); }\n");
    plant(root, "grader/high/high.c", "#include \"low/low.h\"\n#include \"low/low_sec.h\"\n"
          "int hi_fn(void);\nint hi_fn(void) { return lo_fn() + 1; }\n");
    snprintf(cmd, sizeof cmd, "cd '%s' && mkdir -p obj/low obj/high && "
             "cc -c -Igrader grader/low/low.c -o obj/low/low.o && "
             "cc -c -Igrader grader/high/high.c -o obj/high/high.o", root);
    cr_assert_eq(system(cmd), 0, "cannot compile the planted tree in '%s'", root);
    load_map_of(root, &m);
    cr_assert_eq(m.n, 2, "the planted map has 2 rows, read %zu", m.n);
    sources_of(root, &g);
    for (size_t i = 0; i < g.gl_pathc; i++)
        check_file(&m, g.gl_pathv[i], &bad_inc);
    globfree(&g);
    check_symbols(&m, root, root, 0, &bad_sym);
    check_internal(root, 0, &bad_int);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_expect_eq(system(cmd), 0);
    cr_expect_eq(bad_inc, 0, "the includes alone break no rule of the planted map");
    cr_expect_eq(bad_sym, 1, "low.o's call of hi_fn is the one upward reference (%zu found)",
                 bad_sym);
    cr_expect_eq(bad_int, 1, "high.c's include of low/low_sec.h is the one internal include "
                 "(%zu found)", bad_int);
}
