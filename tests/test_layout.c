/*
 * test_layout.c -- the folders of grader/ keep to the map in docs/DESIGN.md.
 *
 * The map's table says, for each folder, which folders it may include. This
 * suite reads that table (so the document is the rule, and cannot drift
 * from the code) and every `#include "folder/file.h"` under grader/, and
 * fails on an include the table does not allow, on a folder missing from
 * the table, and on an include that does not name its folder. The same
 * document's module map gives each module its one prefix (checked on the
 * objects' symbols and the headers' types, below).
 */
#include <criterion/criterion.h>
#include <fnmatch.h>
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

/* No source file grows past about 800 lines (docs/STYLE.md: split a file well
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

/*
 * One prefix per module. docs/DESIGN.md's section "One prefix per module"
 * maps each module (a header and the .c files behind it: `folder/name`) to
 * its one prefix and lists its files; a second table lists the symbols an
 * outside ABI names (main, the runner's allocator), with the reason. Every
 * global symbol an object defines (`nm`) starts with its module's prefix,
 * and no longer prefix of another module claims it (bld_cache_ is not
 * bld_'s); every struct, union or enum tag and typedef a header defines
 * starts with it too, or is its stem (struct sbx beside sbx_, as git names
 * its strbuf type after strbuf_). Static helpers carry none (docs/STYLE.md).
 */
#define MAX_MODULES 96
#define MAX_MFILES 16
#define MAX_EXC 8

struct module {
    char name[2 * NAME_LEN];       /* folder/name */
    char folder[NAME_LEN];
    char prefix[NAME_LEN];
    char files[MAX_MFILES][NAME_LEN]; /* names or fnmatch patterns */
    size_t n_files;
    char exc[MAX_EXC][NAME_LEN];
    size_t n_exc;
};

struct modmap {
    struct module m[MAX_MODULES];
    size_t n;
};

/* The text of cell k (0-based) of a table row, without its blanks. */
static int row_cell(const char *line, int k, char *out, size_t cap)
{
    const char *p = line, *end;
    size_t n;

    if (*p != '|')
        return 0;
    for (int i = 0; i <= k; i++)
        if ((p = strchr(p + (i > 0), '|')) == NULL)
            return 0;
    if ((end = strchr(p + 1, '|')) == NULL)
        return 0;
    p++;
    while (p < end && *p == ' ')
        p++;
    while (end > p && end[-1] == ' ')
        end--;
    n = (size_t)(end - p);
    if (n >= cap)
        return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

/* The i-th `backticked` word of `cell` into out; 0 when there is none. */
static int ticked(const char *cell, size_t i, char out[NAME_LEN])
{
    const char *p = cell, *q;

    for (;;) {
        if ((p = strchr(p, '`')) == NULL || (q = strchr(p + 1, '`')) == NULL)
            return 0;
        if (i-- == 0) {
            size_t n = (size_t)(q - p - 1);
            if (n == 0 || n >= NAME_LEN)
                return 0;
            memcpy(out, p + 1, n);
            out[n] = '\0';
            return 1;
        }
        p = q + 1;
    }
}

/* Whether `cell` is exactly one `folder/name` (a module's name). */
static int module_name(const char *cell, char out[2 * NAME_LEN])
{
    size_t n = strlen(cell);

    if (n < 5 || cell[0] != '`' || cell[n - 1] != '`' || n - 2 >= 2 * NAME_LEN)
        return 0;
    memcpy(out, cell + 1, n - 2);
    out[n - 2] = '\0';
    return strspn(out, "abcdefghijklmnopqrstuvwxyz0123456789_/") == n - 2 &&
           strchr(out, '/') != NULL && strchr(out, '/') == strrchr(out, '/') &&
           out[0] != '/' && out[n - 3] != '/';
}

static struct module *module_named(struct modmap *mm, const char *name)
{
    for (size_t i = 0; i < mm->n; i++)
        if (strcmp(mm->m[i].name, name) == 0)
            return &mm->m[i];
    return NULL;
}

/* A row "| `folder/name` | `prefix_` | `a.h`, `a.c` |" or, in the table of
 * exceptions, "| `sym`, `sym2` | `folder/name` | why |". */
static void modmap_row(struct modmap *mm, const char *line)
{
    char c0[1024], c1[256], name[2 * NAME_LEN], w[NAME_LEN];
    struct module *m;

    if (!row_cell(line, 0, c0, sizeof c0) || !row_cell(line, 1, c1, sizeof c1))
        return;
    if (module_name(c0, name) && mm->n < MAX_MODULES) {
        m = &mm->m[mm->n++];
        memset(m, 0, sizeof *m);
        snprintf(m->name, sizeof m->name, "%s", name);
        snprintf(m->folder, sizeof m->folder, "%.*s", (int)(strchr(name, '/') - name), name);
        ticked(c1, 0, m->prefix);
        if (row_cell(line, 2, c0, sizeof c0))
            while (m->n_files < MAX_MFILES && ticked(c0, m->n_files, m->files[m->n_files]))
                m->n_files++;
    } else if (module_name(c1, name) && (m = module_named(mm, name)) != NULL) {
        for (size_t i = 0; m->n_exc < MAX_EXC && ticked(c0, i, w); i++)
            snprintf(m->exc[m->n_exc++], NAME_LEN, "%s", w);
    }
}

/* The module map of `root`/docs/DESIGN.md: the rows of the section whose
 * heading holds "One prefix per module", up to the next heading. */
static void load_modmap_of(const char *root, struct modmap *mm)
{
    char path[4096], line[2048];
    FILE *fp;
    int in = 0;

    snprintf(path, sizeof path, "%s/docs/DESIGN.md", root);
    cr_assert_not_null(fp = fopen(path, "r"), "cannot read '%s'", path);
    mm->n = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        if (line[0] == '#')
            in = strstr(line, "One prefix per module") != NULL;
        else if (in)
            modmap_row(mm, line);
    }
    fclose(fp);
}

/* The module of grader/<folder>/<base>; *count says how many claim it. */
static const struct module *module_of(const struct modmap *mm, const char *folder,
                                      const char *base, size_t *count)
{
    const struct module *found = NULL;

    *count = 0;
    for (size_t i = 0; i < mm->n; i++) {
        if (strcmp(mm->m[i].folder, folder) != 0)
            continue;
        for (size_t j = 0; j < mm->m[i].n_files; j++)
            if (fnmatch(mm->m[i].files[j], base, 0) == 0) {
                found = &mm->m[i];
                (*count)++;
                break;
            }
    }
    return found;
}

/* Count into *bad each source file no module (or more than one) claims,
 * and each prefix that is not `x_`-shaped or is another module's too. */
static void check_modmap(const struct modmap *mm, const char *src_root, int log, size_t *bad)
{
    glob_t g;

    sources_of(src_root, &g);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char folder[NAME_LEN];
        size_t n;
        folder_of(g.gl_pathv[i], folder);
        module_of(mm, folder, strrchr(g.gl_pathv[i], '/') + 1, &n);
        if (n != 1) {
            if (log)
                cr_log_error("'%s' belongs to %zu modules of DESIGN.md's prefix map "
                             "(one expected)", g.gl_pathv[i], n);
            (*bad)++;
        }
    }
    globfree(&g);
    for (size_t i = 0; i < mm->n; i++) {
        size_t len = strlen(mm->m[i].prefix);
        int dup = 0;
        for (size_t j = 0; j < i; j++)
            dup |= strcmp(mm->m[i].prefix, mm->m[j].prefix) == 0;
        if (len < 2 || mm->m[i].prefix[len - 1] != '_' || dup) {
            if (log)
                cr_log_error("module '%s': prefix '%s' is empty, has no final '_' or is "
                             "another module's", mm->m[i].name, mm->m[i].prefix);
            (*bad)++;
        }
    }
}

/* Count into *bad each prefix a folder's row of the folder table lists that
 * is no module's of that folder, and each module prefix of the folder that
 * neither it nor a shorter listed one covers (bld_cache_ is under bld_). */
static void check_folder_prefixes(const struct modmap *mm, const char *root, int log,
                                  size_t *bad)
{
    char path[4096], line[2048], cell[1024], w[NAME_LEN], name[NAME_LEN];
    FILE *fp;

    snprintf(path, sizeof path, "%s/docs/DESIGN.md", root);
    cr_assert_not_null(fp = fopen(path, "r"), "cannot read '%s'", path);
    while (fgets(line, sizeof line, fp) != NULL) {
        struct folder f;
        if (!parse_row(line, &f) || !row_cell(line, 1, cell, sizeof cell))
            continue;
        snprintf(name, sizeof name, "%s", f.name);
        for (size_t i = 0; ticked(cell, i, w); i++) {
            int found = 0;
            for (size_t j = 0; j < mm->n; j++)
                found |= strcmp(mm->m[j].folder, name) == 0 && strcmp(mm->m[j].prefix, w) == 0;
            if (!found && log)
                cr_log_error("folder table: %s/ lists '%s', the prefix of none of its "
                             "modules", name, w);
            *bad += !found;
        }
        for (size_t j = 0; j < mm->n; j++) {
            int covered = 0;
            if (strcmp(mm->m[j].folder, name) != 0)
                continue;
            for (size_t i = 0; ticked(cell, i, w); i++)
                covered |= strncmp(mm->m[j].prefix, w, strlen(w)) == 0;
            if (!covered && log)
                cr_log_error("folder table: %s/ does not list its module %s's prefix '%s'",
                             name, mm->m[j].name, mm->m[j].prefix);
            *bad += !covered;
        }
    }
    fclose(fp);
}

/* Whether `name` is m's: an exception, its stem, or it starts with m's
 * prefix and no longer prefix of another module also fits it. */
static int name_is_modules(const struct modmap *mm, const struct module *m, const char *name)
{
    size_t len = strlen(m->prefix);

    for (size_t i = 0; i < m->n_exc; i++)
        if (strcmp(m->exc[i], name) == 0)
            return 1;
    if (strlen(name) == len - 1 && strncmp(name, m->prefix, len - 1) == 0)
        return 1;
    if (strncmp(name, m->prefix, len) != 0)
        return 0;
    for (size_t i = 0; i < mm->n; i++) {
        size_t l2 = strlen(mm->m[i].prefix);
        if (l2 > len && strncmp(name, mm->m[i].prefix, l2) == 0)
            return 0;
    }
    return 1;
}

/* Count into *bad each global symbol an object under obj_root defines that
 * is not its module's (objects of unmapped sources are check_modmap's). */
static void check_symbol_prefixes(const struct modmap *mm, const char *src_root,
                                  const char *obj_root, int log, size_t *bad)
{
    struct syms defs = {0}, refs = {0};

    read_symbols(src_root, obj_root, &defs, &refs);
    cr_assert_gt(defs.n, 0, "no symbols in the objects of '%s' (build first)", obj_root);
    for (size_t i = 0; i < defs.n; i++) {
        char base[NAME_LEN];
        const char *b = strrchr(defs.v[i].object, '/') + 1;
        size_t n;
        const struct module *m;
        snprintf(base, sizeof base, "%.*s.c", (int)(strlen(b) - 2), b);
        if ((m = module_of(mm, defs.v[i].folder, base, &n)) == NULL || n != 1 ||
            name_is_modules(mm, m, defs.v[i].name))
            continue;
        if (log)
            cr_log_error("'%s' defines '%s': not the prefix '%s' of its module %s "
                         "(docs/DESIGN.md)", defs.v[i].object, defs.v[i].name, m->prefix,
                         m->name);
        (*bad)++;
    }
    free(defs.v);
    free(refs.v);
}

/* The C text of `path` with comments, literals and preprocessor lines
 * blanked, so that only declarations remain; the caller frees it. */
static char *c_text(const char *path)
{
    FILE *fp = fopen(path, "r");
    char *t;
    long n;

    cr_assert_not_null(fp, "cannot read '%s'", path);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    rewind(fp);
    cr_assert_not_null(t = calloc((size_t)n + 1, 1));
    cr_assert_eq(fread(t, 1, (size_t)n, fp), (size_t)n, "cannot read '%s'", path);
    fclose(fp);
    for (char *p = t; *p != '\0'; p++) {
        char *q = NULL;
        if (p[0] == '/' && p[1] == '*')
            q = strstr(p + 2, "*/"), q = q ? q + 1 : p + strlen(p) - 1;
        else if ((p[0] == '/' && p[1] == '/') || (p[0] == '#' && (p == t || p[-1] == '\n')))
            for (q = p; q[1] != '\0' && (q[1] != '\n' || q[0] == '\\'); q++)
                ;
        else if (*p == '"' || *p == '\'')
            for (q = p + 1; *q != '\0' && *q != *p; q += (*q == '\\' && q[1]) + 1)
                ;
        if (q != NULL)
            for (; p <= q && *p != '\0'; p++)
                *p = *p == '\n' ? '\n' : ' ';
        if (*p == '\0')
            break;
    }
    return t;
}

/* The next token of *p into tok (an identifier, or one punctuation
 * character); 0 at the end. */
static int next_token(const char **p, char tok[128])
{
    const char *s = *p;
    size_t n = 1;

    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        s++;
    if (*s == '\0')
        return 0;
    if (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
        n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    if (n >= 128)
        n = 127;
    memcpy(tok, s, n);
    tok[n] = '\0';
    *p = s + n;
    return 1;
}

static int is_ident(const char *t)
{
    return *t == '_' || (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z');
}

/* The name a typedef defines, its tokens read from *p up to its ';':
 * `typedef int (*name)(...)`, `typedef int name(...)`, `typedef T name;`. */
static void typedef_name(const char **p, char name[128])
{
    char tok[128], last[128] = "";
    int brace = 0, bracket = 0, done = 0;

    name[0] = '\0';
    while (next_token(p, tok) && !(brace == 0 && strcmp(tok, ";") == 0)) {
        brace += (tok[0] == '{') - (tok[0] == '}');
        bracket += (tok[0] == '[') - (tok[0] == ']');
        if (done || brace > 0 || bracket > 0)
            continue;
        if (tok[0] == '(') {
            const char *save = *p;
            char t2[128];
            if (next_token(p, t2) && t2[0] == '*' && next_token(p, t2) && is_ident(t2))
                snprintf(last, sizeof last, "%s", t2);
            else
                *p = save;
            done = 1;
        } else if (is_ident(tok)) {
            snprintf(last, sizeof last, "%s", tok);
        }
    }
    snprintf(name, 128, "%s", last);
}

/* Count into *bad each tag (struct, union, enum with a body) and typedef
 * `path`'s text defines that is not its module's. */
static void check_header_names(const struct modmap *mm, const struct module *m,
                               const char *path, int log, size_t *bad)
{
    char *text = c_text(path), tok[128], name[128];
    const char *p = text;
    int depth = 0;

    while (next_token(&p, tok)) {
        name[0] = '\0';
        depth += (tok[0] == '{') - (tok[0] == '}');
        if (strcmp(tok, "typedef") == 0 && depth == 0) {
            typedef_name(&p, name);
        } else if (strcmp(tok, "struct") == 0 || strcmp(tok, "union") == 0 ||
                   strcmp(tok, "enum") == 0) {
            const char *save = p;
            char t2[128];
            if (next_token(&p, name) && is_ident(name) && next_token(&p, t2) && t2[0] == '{')
                depth++;
            else
                name[0] = '\0';
            if (name[0] == '\0')
                p = save;
        }
        if (name[0] != '\0' && !name_is_modules(mm, m, name)) {
            if (log)
                cr_log_error("'%s' defines '%s': not the prefix '%s' of its module %s "
                             "(docs/DESIGN.md)", path, name, m->prefix, m->name);
            (*bad)++;
        }
    }
    free(text);
}

static void check_tag_prefixes(const struct modmap *mm, const char *src_root, int log,
                               size_t *bad)
{
    glob_t g;
    char pat[4096];

    snprintf(pat, sizeof pat, "%s/grader/*/*.h", src_root);
    cr_assert_eq(glob(pat, 0, NULL, &g), 0, "no headers under '%s'", pat);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char folder[NAME_LEN];
        size_t n;
        const struct module *m;
        folder_of(g.gl_pathv[i], folder);
        m = module_of(mm, folder, strrchr(g.gl_pathv[i], '/') + 1, &n);
        if (m != NULL && n == 1)
            check_header_names(mm, m, g.gl_pathv[i], log, bad);
    }
    globfree(&g);
}

static void load_modmap(struct modmap *mm)
{
    load_modmap_of(TEST_SRCDIR, mm);
    cr_assert_gt(mm->n, 20, "docs/DESIGN.md has no module prefix map (found %zu rows)", mm->n);
}

Test(layout, every_source_is_in_one_module)
{
    struct modmap mm;
    size_t bad = 0;

    load_modmap(&mm);
    check_modmap(&mm, TEST_SRCDIR, 1, &bad);
    check_folder_prefixes(&mm, TEST_SRCDIR, 1, &bad);
    cr_expect_eq(bad, 0, "%zu sources or prefixes break DESIGN.md's prefix map (see the "
                 "log above)", bad);
}

Test(layout, symbols_carry_their_module_prefix)
{
    struct modmap mm;
    size_t bad = 0;

    load_modmap(&mm);
    check_symbol_prefixes(&mm, TEST_SRCDIR, TEST_BUILDDIR, 1, &bad);
    cr_expect_eq(bad, 0, "%zu global symbols without their module's prefix (see the log "
                 "above)", bad);
}

Test(layout, header_types_carry_their_module_prefix)
{
    struct modmap mm;
    size_t bad = 0;

    load_modmap(&mm);
    check_tag_prefixes(&mm, TEST_SRCDIR, 1, &bad);
    cr_expect_eq(bad, 0, "%zu struct/enum/union tags or typedefs without their module's "
                 "prefix (see the log above)", bad);
}

/*
 * The prefix checks can fail: a planted folder low/ of two modules, low
 * (`lo_`, main an exception) and low_cache (`lo_cache_`), where low.c
 * defines a stray function and one in low_cache's longer prefix, low.h a
 * struct and a typedef without the prefix, and extra.c belongs to no
 * module, and the folder table lists a prefix hi_ no module has. What is
 * right is not counted: low.c's static helper and main, low.h's forward
 * declaration, its own tag, enum and function-pointer typedef, the stem
 * `lo` itself, lo_cache_ left out of the folder table (under lo_).
 */
Test(layout, planted_wrong_prefixes_are_caught)
{
    char root[] = "/tmp/test_layout_XXXXXX", cmd[8400];
    size_t bad_map = 0, bad_sym = 0, bad_tag = 0;
    struct modmap mm;

    cr_assert_not_null(mkdtemp(root));
    plant(root, "docs/DESIGN.md", "# Design\n\n| folder | prefixes | owns | may include |\n"
          "|---|---|---|---|\n| `low/` | `lo_`, `hi_` | the bottom | nothing of ours |\n\n"
          "## One prefix per module\n\n"
          "| module | prefix | files |\n|---|---|---|\n"
          "| `low/low` | `lo_` | `low.h`, `low.c` |\n"
          "| `low/low_cache` | `lo_cache_` | `low_cache.c` |\n\n"
          "| symbols | module | why |\n|---|---|---|\n"
          "| `main` | `low/low` | the entry point |\n\n## Next\n\n"
          "| `low/extra` | `ex_` | `extra.c` |\n");
    plant(root, "grader/low/low.h", "/* low.h -- \"struct quoted {\" */\n#define X struct h {\n"
          "struct fwd;\nstruct lo { int a; };\nstruct lo_ok { struct { int x; } in; };\n"
          "struct bad_tag { int b; };\nenum lo_kind { LO_A };\n"
          "typedef int (*lo_fn_t)(struct fwd *f);\ntypedef int lo_check(int a[3]);\n"
          "typedef struct lo_ok bad_t;\nint lo_fn(void);\n");
    plant(root, "grader/low/low.c", "#include \"low/low.h\"\nint stray_fn(void);\n"
          "int lo_cache_steal(void);\nint main(void);\nstatic int helper(void) { return 4; }\n"
          "int lo_fn(void) { return 1; }\nint stray_fn(void) { return 2; }\n"
          "int lo_cache_steal(void) { return 3; }\nint main(void) { return helper(); }\n");
    plant(root, "grader/low/low_cache.c", "int lo_cache_get(void);\n"
          "int lo_cache_get(void) { return 0; }\n");
    plant(root, "grader/low/extra.c", "int ex_x(void);\nint ex_x(void) { return 0; }\n");
    snprintf(cmd, sizeof cmd, "cd '%s' && mkdir -p obj/low && "
             "cc -c -Igrader grader/low/low.c -o obj/low/low.o && "
             "cc -c -Igrader grader/low/low_cache.c -o obj/low/low_cache.o && "
             "cc -c -Igrader grader/low/extra.c -o obj/low/extra.o", root);
    cr_assert_eq(system(cmd), 0, "cannot compile the planted tree in '%s'", root);
    load_modmap_of(root, &mm);
    cr_assert_eq(mm.n, 2, "the planted map has 2 modules (the third is past its section), "
                 "read %zu", mm.n);
    cr_expect_eq(mm.m[0].n_exc, 1, "low/low's one exception, read %zu", mm.m[0].n_exc);
    check_modmap(&mm, root, 0, &bad_map);
    check_folder_prefixes(&mm, root, 0, &bad_map);
    check_symbol_prefixes(&mm, root, root, 0, &bad_sym);
    check_tag_prefixes(&mm, root, 0, &bad_tag);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_expect_eq(system(cmd), 0);
    cr_expect_eq(bad_map, 2, "extra.c is the one file of no module, hi_ the one prefix the "
                 "folder table lists and no module has (%zu found)", bad_map);
    cr_expect_eq(bad_sym, 2, "stray_fn and lo_cache_steal are low.o's two wrong names (%zu "
                 "found)", bad_sym);
    cr_expect_eq(bad_tag, 2, "struct bad_tag and bad_t are low.h's two wrong names (%zu "
                 "found)", bad_tag);
}
