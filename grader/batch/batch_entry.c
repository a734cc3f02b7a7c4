/*
 * batch_entry.c -- see batch.h: what a class folder holds, as entries with
 * ids. Every name here is the students' (or their LMS's): nothing is read,
 * hashed or printed before it is checked (lstat, then a safe id and a
 * shown form).
 */
#include "assign/assign.h"
#include "batch/batch.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sha256.h"
#include "core/strbuf.h"
#include "core/util.h"

/* ---- ids ---- */

static int id_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-' || c == '~';
}

static int reserved(const char *id)
{
    static const char *const names[] = BAT_RESERVED;

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(id, names[i]) == 0)
            return 1;
    return 0;
}

int bat_id_check(const char *id, struct err *e)
{
    size_t n = strlen(id);

    if (n == 0)
        return err_set(e, NULL, 0, 0, "empty id");
    if (n > BAT_ID_MAX)
        return err_set(e, NULL, 0, 0, "id is longer than %d bytes", BAT_ID_MAX);
    for (size_t i = 0; i < n; i++)
        if (!id_byte((unsigned char)id[i]))
            return err_set(e, NULL, 0, 0, "id holds a byte other than A-Z a-z 0-9 . _ ~ -");
    if (id[0] == '.' || id[0] == '-' || id[0] == '~')
        return err_set(e, NULL, 0, 0, "id starts with '%c'", id[0]);
    if (strstr(id, "..") != NULL)
        return err_set(e, NULL, 0, 0, "id holds '..'");
    if (reserved(id))
        return err_set(e, NULL, 0, 0, "id '%s' is the name of a gradebook file", id);
    return 0;
}

void bat_id_make(const char *raw, char *out)
{
    unsigned char d[SHA256_DIGEST_LEN];
    char hex[SHA256_HEX_LEN];
    struct sha256_ctx c;
    size_t j = 0;

    if (strlen(raw) <= BAT_ID_KEEP && strchr(raw, '~') == NULL && bat_id_check(raw, NULL) == 0) {
        snprintf(out, BAT_ID_MAX + 1, "%s", raw);
        return;
    }
    for (const unsigned char *p = (const unsigned char *)raw; *p && j < BAT_ID_PART; p++) {
        int keep = id_byte(*p) && *p != '~' && !(*p == '.' && j > 0 && out[j - 1] == '.') &&
                   !(j == 0 && (*p == '.' || *p == '-'));

        if (keep)
            out[j++] = (char)*p;
        else if (j == 0 || out[j - 1] != '_')
            out[j++] = '_';
    }
    sha256_init(&c);
    sha256_update(&c, raw, strlen(raw));
    sha256_final(&c, d);
    sha256_to_hex(d, hex);
    snprintf(out + j, BAT_ID_MAX + 1 - j, "~%.*s", BAT_ID_HASH, hex);
}

/* ---- showing a name ---- */

/* The code point of the UTF-8 sequence at s, its length in *len; -1 when
 * the bytes are no valid (shortest-form, non-surrogate) sequence. */
static long utf8_at(const unsigned char *s, size_t *len)
{
    size_t n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    long cp = n == 4 ? s[0] & 0x07 : n == 3 ? s[0] & 0x0F : s[0] & 0x1F;

    if (n == 0 || s[0] > 0xF4)
        return -1;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *len = n;
    return cp;
}

/* Code points that move or hide text without being seen: C1 controls,
 * the soft hyphen, Arabic letter mark, zero widths, bidi marks,
 * embeddings, overrides and isolates, line and paragraph separators, the
 * BOM, interlinear annotations, tags. */
static int invisible(long cp)
{
    return (cp >= 0x80 && cp < 0xA0) || cp == 0xAD || cp == 0x61C || cp == 0x180E ||
           (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
           (cp >= 0xE0000 && cp <= 0xE007F);
}

void bat_show(const char *s, char *out, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t j = 0;

    out[0] = '\0';
    while (*p) {
        char piece[24];
        size_t len = 1;
        long cp = *p < 0x80 ? *p : utf8_at(p, &len);

        if (cp < 0)
            snprintf(piece, sizeof piece, "\\x%02x", *p);
        else if (cp < 0x20 || cp == 0x7F || (cp == ':' && p == (const unsigned char *)s))
            snprintf(piece, sizeof piece, "\\x%02lx", cp);
        else if (invisible(cp))
            snprintf(piece, sizeof piece, "\\u{%04lx}", cp);
        else if (cp == '\\')
            snprintf(piece, sizeof piece, "\\\\");
        else
            snprintf(piece, sizeof piece, "%.*s", (int)len, (const char *)p);
        if (j + strlen(piece) + 1 > n)
            return;
        memcpy(out + j, piece, strlen(piece) + 1);
        j += strlen(piece);
        p += len;
    }
}

int bat_path_join(const char *dir, const char *name, char *out, size_t n)
{
    size_t d = strlen(dir);
    int k;

    while (d > 1 && dir[d - 1] == '/')
        d--;
    k = snprintf(out, n, "%.*s%s%s", (int)d, dir, d == 1 && dir[0] == '/' ? "" : "/", name);
    return k >= 0 && (size_t)k < n ? 0 : -1;
}

/* ---- entries ---- */

static void note(bat_note_fn fn, void *ctx, const char *fmt, const char *path)
{
    char shown[BAT_PATH_MAX], buf[BAT_PATH_MAX + 256];

    if (fn == NULL)
        return;
    bat_show(path, shown, sizeof shown);
    snprintf(buf, sizeof buf, fmt, shown);
    fn(ctx, buf);
}

static int list_has(const struct bat_list *l, const char *id)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].id, id) == 0)
            return 1;
    return 0;
}

void bat_entry_release(struct bat_entry *v)
{
    free(v->id);
    free(v->name);
    free(v->path);
    free(v->source);
    free(v->why);
}

/* What one entry becomes, before it joins the list. */
struct found_entry {
    const char *name, *path, *source;  /* source "" when not graded */
    const char *absent;
    int folder;                        /* a directory: its name is the id's */
    char why[BAT_PATH_MAX + 128];
};

static int list_push(struct bat_list *l, const char *id, const struct found_entry *f,
                     struct err *e)
{
    struct bat_entry *v;

    if (l->n == BAT_MAX_ENTRIES)
        return err_set(e, NULL, 0, 0, "more than %d submissions", BAT_MAX_ENTRIES);
    if ((v = ut_grow(l->v, &l->cap, l->n + 1, sizeof *v, 32)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    l->v = v;
    v = memset(&l->v[l->n], 0, sizeof *v);
    v->id = strdup(id);
    v->name = strdup(f->name);
    v->path = strdup(f->path);
    v->source = strdup(f->source);
    v->absent = f->absent;
    v->why = f->absent ? strdup(f->why) : NULL;
    if (v->id == NULL || v->name == NULL || v->path == NULL || v->source == NULL ||
        (f->absent && v->why == NULL)) {
        bat_entry_release(v);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    l->n++;
    return 0;
}

static const char *kind_of(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket"
           : "not a regular file";
}

/* Whether a source file, as lstat saw it, may be read: 1, or 0 with the
 * reason in f->why and f->absent "rejected". Nothing is opened. */
static int source_ok(const struct stat *st, const char *shown, struct found_entry *f)
{
    if (!S_ISREG(st->st_mode)) {
        snprintf(f->why, sizeof f->why, "'%s' is %s, not a regular file: never read", shown,
                 kind_of(st->st_mode));
    } else if ((uintmax_t)st->st_size > BAT_SOURCE_MAX) {
        snprintf(f->why, sizeof f->why, "'%s' is larger than 1 MiB (%ju bytes): never read",
                 shown, (uintmax_t)st->st_size);
    } else {
        return 1;
    }
    f->absent = "rejected";
    return 0;
}

/* The .c files of folder `dir` that could be the one misnamed
 * ("Attention.c", "attention.c.c", "main.c"), shown safe, joined by ", "
 * into out (the first five, then "..."). Returns how many. Names are read,
 * nothing is opened. */
static size_t c_files(const char *dir, char *out, size_t n)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t k = 0;

    out[0] = '\0';
    while (d != NULL && (de = readdir(d)) != NULL) {
        char shown[512];
        size_t len = strlen(de->d_name);

        if (de->d_name[0] == '.' || len < 3 || strcasecmp(de->d_name + len - 2, ".c") != 0)
            continue;
        if (++k > 5) {
            if (k == 6 && strlen(out) + 5 < n)
                strcat(out, ", ...");
            continue;
        }
        bat_show(de->d_name, shown, sizeof shown);
        if (strlen(out) + strlen(shown) + 3 < n)
            snprintf(out + strlen(out), n - strlen(out), "%s%s", k > 1 ? ", " : "", shown);
    }
    if (d != NULL)
        closedir(d);
    return k;
}

/* Classify the entry at f->path (lstat only): a folder, a .c file, a
 * link or special file (rejected), or a stray file (returns 0: no row). */
static int classify(struct found_entry *f, char *src, size_t n)
{
    char shown[BAT_PATH_MAX];
    struct stat st;

    bat_show(f->name, shown, sizeof shown);
    f->absent = NULL;
    f->source = src;
    src[0] = '\0';
    if (lstat(f->path, &st) < 0)
        return 0;
    f->folder = S_ISDIR(st.st_mode);
    if (S_ISDIR(st.st_mode)) {
        if (bat_path_join(f->path, ASG_SOURCE, src, n) < 0 || lstat(src, &st) < 0) {
            char other[BAT_PATH_MAX / 2];

            snprintf(f->why, sizeof f->why, "no " ASG_SOURCE " in the folder '%s'", shown);
            if (c_files(f->path, other, sizeof other) > 0)
                snprintf(f->why + strlen(f->why), sizeof f->why - strlen(f->why),
                         "; " BAT_FOUND_INSTEAD "%s (" BAT_RENAME ")", other);
            f->absent = "missing";
        } else {
            source_ok(&st, ASG_SOURCE, f);
        }
    } else if (S_ISREG(st.st_mode) && !ut_has_suffix(f->name, ".c")) {
        return 0;
    } else if (S_ISREG(st.st_mode)) {
        snprintf(src, n, "%s", f->path);
        source_ok(&st, shown, f);
    } else {
        source_ok(&st, shown, f);
    }
    if (f->absent != NULL)
        src[0] = '\0';
    return 1;
}

/* The id of the entry: from the regex, or the name minus ".c" (also when
 * the regex does not match: the entry is then "skipped"). 0 or -1. */
static int entry_id(struct found_entry *f, const struct bat_idre *re, char *id,
                    struct err *e)
{
    char raw[BAT_PATH_MAX];
    int rc = 0;

    if (re != NULL && (rc = bat_idre_match(re, f->name, raw, sizeof raw, e)) < 0)
        return -1;
    if (rc == 0) {
        snprintf(raw, sizeof raw, "%s", f->name);
        if (!f->folder && ut_has_suffix(raw, ".c") && strlen(raw) > 2)
            raw[strlen(raw) - 2] = '\0';
        if (re != NULL && f->absent == NULL) {
            f->absent = "skipped";
            f->source = "";
            snprintf(f->why, sizeof f->why, "the name does not match --id-regex");
        }
    }
    bat_id_make(raw, id);
    return 0;
}

/* Moodle's download holds a folder per student and submission plugin:
 * "<name>_<id>_assignsubmission_file_" (the files) beside
 * "<name>_<id>_assignsubmission_onlinetext_" (the online text, an HTML
 * page) and others of the kind. Only the first is a submission here. */
static int moodle_other_plugin(const char *name)
{
    const char *p = strstr(name, "_assignsubmission_");

    while (p != NULL && strstr(p + 1, "_assignsubmission_") != NULL)
        p = strstr(p + 1, "_assignsubmission_");
    return p != NULL && strncmp(p + 18, "file", 4) != 0;
}

static int add_entry(const char *dir, const char *name, const struct bat_idre *re,
                     struct bat_list *out, bat_note_fn fn, void *ctx, struct err *e)
{
    char path[BAT_PATH_MAX], src[BAT_PATH_MAX + 16], id[BAT_ID_MAX + 1];
    struct found_entry f = {name, path, "", NULL, 0, ""};
    struct stat st;

    if (bat_path_join(dir, name, path, sizeof path) < 0) {
        note(fn, ctx, "entry '%s' has too long a path: skipped", name);
        return 0;
    }
    if (moodle_other_plugin(name) && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        note(fn, ctx, "entry '%s' is Moodle's online text (or another plugin's folder), "
                      "not a file submission: skipped", path);
        return 0;
    }
    if (!classify(&f, src, sizeof src)) {
        note(fn, ctx, "entry '%s' is neither a .c file nor a folder: skipped", path);
        return 0;
    }
    if (entry_id(&f, re, id, e) < 0)
        return -1;
    if (list_has(out, id)) {
        note(fn, ctx, "entry '%s' gives an id an earlier entry took: skipped", path);
        return 0;
    }
    return list_push(out, id, &f, e);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted, hidden ones left out. */
static int read_names(const char *dir, char ***names, size_t *n, struct err *e)
{
    struct dirent **list;
    int k = scandir(dir, &list, NULL, NULL);

    if (k < 0)
        return err_set(e, NULL, 0, 0, "cannot read '%s': %s", dir, strerror(errno));
    *names = calloc((size_t)k + 1, sizeof **names);
    *n = 0;
    for (int i = 0; i < k; i++) {
        if (*names != NULL && list[i]->d_name[0] != '.')
            (*names)[(*n)++] = strdup(list[i]->d_name);
        free(list[i]);
    }
    free(list);
    if (*names == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    qsort(*names, *n, sizeof **names, cmp_name);
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct bat_entry *)a)->id, ((const struct bat_entry *)b)->id);
}

/* ---- Canvas: the flattened files of a submission, one folder again ---- */

/*
 * Canvas's "Download Submissions" writes every file of every submission
 * side by side as "<login>_[LATE_]<user id>_<file id>_<file name>"; a
 * file the student uploaded again under a name already used gets "-1",
 * "-2" before its extension ("attention-1.c"). Whether `name` is one:
 * 1 with *key the length of "<login>_[LATE_]<user id>_" (one student's
 * submission) and *prefix that of the whole prefix, else 0.
 */
static int canvas_parse(const char *name, size_t *key, size_t *prefix)
{
    size_t i = strcspn(name, "_"), d;

    if (i == 0 || name[i] != '_')
        return 0;
    i++;
    if (strncmp(name + i, "LATE_", 5) == 0)
        i += 5;
    for (int part = 0; part < 2; part++) {
        for (d = i; name[d] >= '0' && name[d] <= '9'; d++)
            ;
        if (d == i || name[d] != '_')
            return 0;
        i = d + 1;
        if (part == 0)
            *key = i;
    }
    *prefix = i;
    return name[i] != '\0' && name[i] != '.';
}

/* The file's own name without Canvas's "-N" before the extension, into
 * out; returns N (0 when there is none): the highest is the last upload. */
static unsigned long canvas_file(const char *file, char *out, size_t n)
{
    const char *dot = strrchr(file, '.'), *p;
    unsigned long k;

    snprintf(out, n, "%s", file);
    if (dot == NULL || dot == file)
        return 0;
    for (p = dot; p > file && p[-1] >= '0' && p[-1] <= '9'; p--)
        ;
    if (p == dot || p - 1 <= file || p[-1] != '-' || dot - p > 6)
        return 0;
    k = strtoul(p, NULL, 10);
    snprintf(out, n, "%.*s%s", (int)(p - 1 - file), file, dot);
    return k;
}

/* Copy the regular file `from` (at most BAT_SOURCE_MAX bytes, never
 * through a link) to `to`. 0, or -1 with the reason in why. */
static int copy_regular(const char *from, const char *to, char *why, size_t n)
{
    struct sb sb;
    struct stat st;
    int rc = -1;

    if (lstat(from, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, n, "%s", "not a regular file");
        return -1;
    }
    if ((uintmax_t)st.st_size > BAT_SOURCE_MAX) {
        snprintf(why, n, "%s", "larger than 1 MiB");
        return -1;
    }
    sb_init(&sb, BAT_SOURCE_MAX + 1);
    if (sb_read_file(&sb, from, BAT_SOURCE_MAX) != SB_READ_OK)
        snprintf(why, n, "%s", "cannot be read");
    else if (ut_write_atomic(to, sb_str(&sb), sb.len, 0, NULL) < 0)
        snprintf(why, n, "%s", "cannot be written in the stage folder");
    else
        rc = 0;
    sb_release(&sb);
    return rc;
}

/* Empty the staged folder `dir` of what an earlier run put there (plain
 * files only: it is the grader's own), creating it when absent. */
static int stage_reset(const char *dir, struct err *e)
{
    char **names = NULL, path[BAT_PATH_MAX];
    size_t k = 0;

    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return err_set(e, NULL, 0, 0, "cannot create '%s': %s", dir, strerror(errno));
    if (read_names(dir, &names, &k, e) < 0)
        return -1;
    for (size_t i = 0; i < k; i++) {
        if (names[i] != NULL && bat_path_join(dir, names[i], path, sizeof path) == 0)
            unlink(path);
        free(names[i]);
    }
    free(names);
    return 0;
}

/* One student's files, names[0..k) of `dir` (one Canvas key), copied into
 * stage/<prefix of their .c file> under their own names, then that folder
 * is the entry. */
static int canvas_group(const char *dir, char *const *names, size_t k, const char *stage,
                        const struct bat_idre *re, struct bat_list *out, bat_note_fn fn,
                        void *ctx, struct err *e)
{
    char folder[BAT_PATH_MAX], from[BAT_PATH_MAX], to[BAT_PATH_MAX + 256], name[256];
    char file[BAT_PATH_MAX], other[BAT_PATH_MAX], why[128], msg[BAT_PATH_MAX + 512];
    size_t key, prefix, pick = 0;

    for (size_t i = 0; i < k; i++)
        if (ut_has_suffix(names[i], ".c")) {
            pick = i;
            break;
        }
    canvas_parse(names[pick], &key, &prefix);
    snprintf(name, sizeof name, "%.*s", (int)(prefix < sizeof name ? prefix : 0), names[pick]);
    if (name[0] == '\0' || bat_path_join(stage, name, folder, sizeof folder) < 0) {
        note(fn, ctx, "Canvas entry '%s' has too long a name: skipped", names[pick]);
        return 0;
    }
    if (stage_reset(folder, e) < 0)
        return -1;
    for (size_t i = 0; i < k; i++) {
        unsigned long v, w;
        int newest = 1;

        canvas_parse(names[i], &key, &prefix);
        v = canvas_file(names[i] + prefix, file, sizeof file);
        for (size_t j = 0; j < k; j++) {  /* a later upload of the same name wins */
            size_t kj, pj;

            canvas_parse(names[j], &kj, &pj);
            w = canvas_file(names[j] + pj, other, sizeof other);
            if (j != i && strcmp(file, other) == 0 && (w > v || (w == v && j > i)))
                newest = 0;
        }
        if (!newest || bat_path_join(dir, names[i], from, sizeof from) < 0 ||
            bat_path_join(folder, file, to, sizeof to) < 0)
            continue;
        if (copy_regular(from, to, why, sizeof why) < 0) {
            snprintf(msg, sizeof msg, "Canvas file '%%s' is %s: left out of the submission",
                     why);
            note(fn, ctx, msg, from);
        }
    }
    return add_entry(stage, name, re, out, fn, ctx, e);
}

/* Every entry of `dir`; with a stage, Canvas's flattened files (regular
 * files named as canvas_parse says) are regrouped there first. */
static int discover_dir(const char *dir, const char *stage, const struct bat_idre *re,
                        struct bat_list *out, bat_note_fn fn, void *ctx, struct err *e)
{
    char **names = NULL, path[BAT_PATH_MAX];
    size_t k = 0, key, prefix;
    int rc = read_names(dir, &names, &k, e);

    for (size_t i = 0; rc == 0 && i < k; i++)
        if (names[i] == NULL)
            rc = err_set(e, NULL, 0, 0, "out of memory");
    for (size_t i = 0; rc == 0 && i < k;) {
        struct stat st;
        size_t j = i + 1;

        if (stage != NULL && canvas_parse(names[i], &key, &prefix) &&
            bat_path_join(dir, names[i], path, sizeof path) == 0 && lstat(path, &st) == 0 &&
            S_ISREG(st.st_mode)) {
            /* names are sorted, so one student's "<login>_<user id>_" are together */
            while (j < k && strncmp(names[j], names[i], key) == 0 &&
                   canvas_parse(names[j], &prefix, &prefix) &&
                   bat_path_join(dir, names[j], path, sizeof path) == 0 &&
                   lstat(path, &st) == 0 && S_ISREG(st.st_mode))
                j++;
            rc = canvas_group(dir, names + i, j - i, stage, re, out, fn, ctx, e);
        } else {
            rc = add_entry(dir, names[i], re, out, fn, ctx, e);
        }
        i = j;
    }
    for (size_t i = 0; i < k; i++)
        free(names[i]);
    free(names);
    return rc;
}

int bat_discover(const char *const *dirs, size_t n, const struct bat_idre *re,
                 struct bat_list *out, bat_note_fn fn, void *ctx, struct err *e)
{
    return bat_discover_lms(dirs, n, re, NULL, out, fn, ctx, e);
}

int bat_discover_lms(const char *const *dirs, size_t n, const struct bat_idre *re,
                     const char *stage, struct bat_list *out, bat_note_fn fn, void *ctx,
                     struct err *e)
{
    int rc = 0;

    if (stage != NULL && mkdir(stage, 0755) < 0 && errno != EEXIST)
        return err_set(e, NULL, 0, 0, "cannot create '%s': %s", stage, strerror(errno));
    for (size_t d = 0; d < n && rc == 0; d++)
        rc = discover_dir(dirs[d], stage, re, out, fn, ctx, e);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_entry);
    return rc;
}

void bat_list_release(struct bat_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        bat_entry_release(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}
