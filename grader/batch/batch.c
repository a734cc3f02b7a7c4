/* batch.c -- see batch.h: ids, entries, shards, atomic files, gradebook. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "batch/batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/compat.h"
#include "core/json.h"
#include "batch/html.h"
#include "batch/summary.h"
#include "core/util.h"

struct bat_idre {
    pcre2_code *code;
};

/* ---- student ids ---- */

struct bat_idre *bat_idre_new(const char *pattern, struct err *e)
{
    struct bat_idre *re = calloc(1, sizeof *re);
    PCRE2_UCHAR msg[256];
    PCRE2_SIZE off;
    int code;

    if (re == NULL) {
        err_set(e, NULL, 0, 0, "out of memory");
        return NULL;
    }
    re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                             PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &off, NULL);
    if (re->code == NULL) {
        pcre2_get_error_message(code, msg, sizeof msg);
        err_set(e, NULL, 0, 0, "bad --id-regex '%s' at offset %zu: %s", pattern,
                (size_t)off, (const char *)msg);
    } else if (pcre2_substring_number_from_name(re->code, (PCRE2_SPTR)"id") < 0) {
        err_set(e, NULL, 0, 0, "--id-regex '%s' has no group named 'id' (write (?<id>...))",
                pattern);
    } else {
        return re;
    }
    bat_idre_free(re);
    return NULL;
}

void bat_idre_free(struct bat_idre *re)
{
    if (re == NULL)
        return;
    pcre2_code_free(re->code);
    free(re);
}

int bat_idre_match(const struct bat_idre *re, const char *name, char *out,
                   size_t n, struct err *e)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
    PCRE2_SIZE len = n;
    int rc;

    if (md == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = pcre2_match(re->code, (PCRE2_SPTR)name, strlen(name), 0, 0, md, NULL);
    if (rc == PCRE2_ERROR_NOMATCH)
        rc = 0;
    else if (rc < 0)
        rc = err_set(e, NULL, 0, 0, "--id-regex failed on '%s' (pcre2 error %d)", name, rc);
    else
        rc = pcre2_substring_copy_byname(md, (PCRE2_SPTR)"id", (PCRE2_UCHAR *)out,
                                         &len) == 0 ? 1 : 0;
    pcre2_match_data_free(md);
    return rc;
}

/* ---- sharding ---- */

static int parse_uint(const char *s, const char *end, unsigned *out)
{
    unsigned long v = 0;

    if (s == end || end - s > 5)
        return -1;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (unsigned long)(*s - '0');
    }
    *out = (unsigned)v;
    return 0;
}

int bat_shard_parse(const char *s, unsigned *k, unsigned *n, struct err *e)
{
    const char *slash = strchr(s, '/');

    if (slash == NULL || parse_uint(s, slash, k) < 0 ||
        parse_uint(slash + 1, slash + strlen(slash), n) < 0 ||
        *k < 1 || *n > 10000 || *k > *n)
        return err_set(e, NULL, 0, 0,
                       "bad --shard '%s' (expected K/N with 1 <= K <= N <= 10000)", s);
    return 0;
}

unsigned bat_shard_of(const char *id, unsigned n)
{
    uint64_t h = 14695981039346656037u;

    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return n == 0 ? 1 : 1 + (unsigned)(h % n);
}

void bat_list_shard(struct bat_list *l, unsigned k, unsigned n)
{
    size_t j = 0;

    for (size_t i = 0; i < l->n; i++) {
        if (bat_shard_of(l->v[i].id, n) == k) {
            l->v[j++] = l->v[i];
            continue;
        }
        bat_entry_release(&l->v[i]);
    }
    l->n = j;
}

/* ---- atomic files ---- */

int bat_write_atomic(const char *path, const void *data, size_t n, struct err *e)
{
    return ut_write_atomic(path, data, n, 1, e);
}

size_t bat_remove_temps(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[BAT_PATH_MAX];
    size_t n = 0;

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, ".tmp-", 5) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        n += unlink(path) == 0;
    }
    closedir(d);
    return n;
}

/* ---- the gradebook ---- */

int bat_csv_field(struct sb *sb, const char *s)
{
    size_t n = strlen(s);
    int rc = 0;

    if (strpbrk(s, ",\"\r\n") == NULL && (n == 0 || (s[0] != ' ' && s[n - 1] != ' ')))
        return sb_add(sb, s, n);
    rc |= sb_addch(sb, '"');
    for (; *s; s++)
        rc |= *s == '"' ? sb_add(sb, "\"\"", 2) : sb_addch(sb, *s);
    rc |= sb_addch(sb, '"');
    return rc ? -1 : 0;
}

int bat_csv_text(struct sb *sb, const char *s)
{
    struct sb t;
    int rc;

    if (s[0] == '\0' || strchr(BAT_CSV_FORMULA_LEAD, s[0]) == NULL)
        return bat_csv_field(sb, s);
    /* A spreadsheet would run "=HYPERLINK(...)" as a formula: a leading
     * apostrophe makes it text (and Excel hides the apostrophe). */
    sb_init(&t, 0);
    rc = sb_addch(&t, '\'') | sb_adds(&t, s);
    rc = rc ? -1 : bat_csv_field(sb, sb_str(&t));
    sb_release(&t);
    return rc;
}

static int csv_num(struct sb *sb, double v)
{
    char buf[JSON_NUM_MAX];

    return sb_adds(sb, json_fmt_num(v, buf));
}

/* A test's cell: the points earned, or empty for a manual item a TA has
 * still to score (an empty cell reads as "not graded" in an LMS import,
 * a 0 would read as a grade). */
static int csv_points(struct sb *sb, const struct bat_row *r, const char *test_id)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (strcmp(r->tests[i].id, test_id) == 0)
            return strcmp(r->tests[i].status, "manual_pending") == 0
                       ? 0 : csv_num(sb, r->tests[i].score);
    return csv_num(sb, 0);
}

/* The note cell: why a row is not ok, in one line; empty for an ok row.
 * Missing, skipped, rejected and error rows: the first line of the
 * detail. A compile error: its first line saying "error:" (the whole log
 * stays in feedback.md, not in a spreadsheet cell). A row without a
 * detail: what its status means. */
static int csv_note(struct sb *sb, const struct bat_row *r)
{
    char line[BAT_MSG_MAX + 64], shown[4 * BAT_MSG_MAX + 300];
    const char *d = r->detail ? r->detail : "", *err = NULL;

    if (strcmp(r->status, "ok") == 0)
        return 0;
    if (strcmp(r->status, "compile_error") == 0) {
        for (const char *p = d; *p && err == NULL; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
            if (strstr(p, "error:") != NULL && strstr(p, "error:") < p + strcspn(p, "\n"))
                err = p;
        snprintf(line, sizeof line, "did not compile: %.*s", (int)strcspn(err ? err : d, "\r\n"),
                 err ? err : d);
    } else if (*d != '\0') {
        snprintf(line, sizeof line, "%.*s", (int)strcspn(d, "\r\n"), d);
    } else {
        snprintf(line, sizeof line, "%s", strcmp(r->status, "budget_exhausted") == 0
                 ? "the time budget ran out: the tests after it score 0 (staff.md)"
                 : strcmp(r->status, "rejected") == 0
                 ? "rejected: a forbidden construct or symbol (feedback.md says which)"
                 : "see staff.md");
    }
    bat_show(line, shown, sizeof shown);
    return bat_csv_text(sb, shown);
}

/* The name cell: the entry's name as the row keeps it (bat_show: its
 * controls and invisible characters escaped). */
static int csv_name(struct sb *sb, const struct bat_row *r)
{
    return bat_csv_text(sb, r->name ? r->name : r->id);
}

static int csv_row(const char *const *test_ids, size_t n_tests,
                   const struct bat_row *r, struct sb *out)
{
    int rc = bat_csv_text(out, r->id);

    rc |= sb_addch(out, ',') | csv_num(out, r->score) | sb_addch(out, ',');
    rc |= csv_num(out, r->max_score) | sb_addch(out, ',') | bat_csv_field(out, r->status);
    for (size_t i = 0; i < n_tests; i++)
        rc |= sb_addch(out, ',') | csv_points(out, r, test_ids[i]);
    rc |= sb_addch(out, ',') | bat_csv_field(out, r->grader_version);
    rc |= sb_addf(out, ",%s,%s,", r->spec_sha256, r->submission_sha256);
    rc |= csv_note(out, r) | sb_addch(out, ',') | csv_name(out, r) | sb_adds(out, "\r\n");
    return rc ? -1 : 0;
}

static int cmp_row_ptr(const void *a, const void *b)
{
    return strcmp((*(const struct bat_row *const *)a)->id,
                  (*(const struct bat_row *const *)b)->id);
}

int bat_csv_write(const char *const *test_ids, size_t n_tests,
                  const struct bat_row *rows, size_t n, struct sb *out)
{
    const struct bat_row **order = calloc(n ? n : 1, sizeof *order);
    int rc = order == NULL ? -1 : sb_adds(out, "id,score,max_score,status");

    for (size_t i = 0; rc == 0 && i < n_tests; i++)
        rc = sb_addch(out, ',') | bat_csv_field(out, test_ids[i]);
    if (rc == 0)
        rc = sb_adds(out, ",grader_version,spec_sha256,submission_sha256,note,name\r\n");
    for (size_t i = 0; order != NULL && i < n; i++)
        order[i] = &rows[i];
    if (order != NULL && n > 1)
        qsort(order, n, sizeof *order, cmp_row_ptr);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = csv_row(test_ids, n_tests, order[i], out);
    free(order);
    return rc ? -1 : 0;
}

/* ---- finishing: gradebook and summary from the row files ---- */

static int write_buf(const char *dir, const char *name, const struct sb *sb,
                     struct err *e)
{
    char path[BAT_PATH_MAX];

    if (sb->truncated)
        return err_set(e, NULL, 0, 0, "'%s' is larger than its cap", name);
    bat_path_join(dir, name, path, sizeof path);
    return bat_write_atomic(path, sb_str(sb), sb->len, e);
}

static int load_rows(const char *out_dir, const char *const *ids, size_t n,
                     struct bat_row *rows, struct err *e)
{
    char dir[BAT_PATH_MAX];

    for (size_t i = 0; i < n; i++) {
        bat_path_join(out_dir, ids[i], dir, sizeof dir);
        if (bat_row_load(dir, &rows[i], e) < 0)
            return -1;
        if (strcmp(rows[i].spec_sha256, rows[0].spec_sha256) != 0)
            return err_set(e, NULL, 0, 0, "'%s' and '%s' were graded with different specs",
                           ids[0], ids[i]);
    }
    return 0;
}

/* The columns: given, or the first row's tests in its order. */
static const char **columns(const struct bat_row *rows, size_t n,
                            const char *const *test_ids, size_t *n_tests)
{
    const char **cols;

    if (test_ids == NULL)
        *n_tests = n > 0 ? rows[0].n_tests : 0;
    if ((cols = calloc(*n_tests ? *n_tests : 1, sizeof *cols)) == NULL)
        return NULL;
    for (size_t i = 0; i < *n_tests; i++)
        cols[i] = test_ids != NULL ? test_ids[i] : rows[0].tests[i].id;
    return cols;
}

/* The gradebook's files: grades.csv first, then summary.md and summary.svg,
 * each from the rows alone (nothing of the page or of similarity.csv). */
static int write_gradebook(const char *out_dir, const struct bat_row *rows, size_t n,
                           const char *const *cols, size_t n_cols, struct err *e)
{
    struct sb csv, md, svg;
    int rc;

    sb_init(&csv, 0);
    sb_init(&md, 0);
    sb_init(&svg, 0);
    rc = bat_csv_write(cols, n_cols, rows, n, &csv) < 0 ||
                 sum_write_md(rows, n, cols, n_cols, &md) < 0 ||
                 sum_write_svg(rows, n, cols, n_cols, &svg) < 0
             ? err_set(e, NULL, 0, 0, "the gradebook is larger than its cap")
             : 0;
    if (rc == 0)
        rc = write_buf(out_dir, "grades.csv", &csv, e);
    if (rc == 0)
        rc = write_buf(out_dir, "summary.md", &md, e);
    if (rc == 0)
        rc = write_buf(out_dir, "summary.svg", &svg, e);
    sb_release(&csv);
    sb_release(&md);
    sb_release(&svg);
    return rc;
}

/* report.html after the gradebook: BAT_NO_PAGE with e set when it cannot
 * be made or written (a report.html left from before is removed then, so
 * that no page older than grades.csv is left beside it). */
static int write_page(const char *out_dir, const struct bat_row *rows, size_t n,
                      const char *const *cols, size_t n_cols, struct err *e)
{
    char path[BAT_PATH_MAX], why[ERR_MSG_MAX + ERR_FILE_MAX + 32];
    struct sb html;
    int rc;

    sb_init(&html, 0);
    rc = html_write_report(out_dir, rows, n, cols, n_cols, &html, e);
    if (rc == 0)
        rc = write_buf(out_dir, "report.html", &html, e);
    sb_release(&html);
    if (rc == 0)
        return 0;
    bat_path_join(out_dir, "report.html", path, sizeof path);
    if (e != NULL && unlink(path) == 0) {
        err_format(e, why, sizeof why);
        err_set(e, NULL, 0, 0, "%s (the old report.html was removed)", why);
    }
    return BAT_NO_PAGE;
}

int bat_finish(const char *out_dir, const char *const *ids, size_t n,
               const char *const *test_ids, size_t n_tests, struct err *e)
{
    struct bat_row *rows = calloc(n ? n : 1, sizeof *rows);
    const char **cols = NULL;
    int rc;

    if (rows == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = load_rows(out_dir, ids, n, rows, e);
    if (rc == 0)
        rc = bat_manual_apply(out_dir, rows, n, e);
    if (rc == 0)
        rc = bat_manual_rubrics(out_dir, rows, n, e);
    if (rc == 0 && (cols = columns(rows, n, test_ids, &n_tests)) == NULL)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    if (rc == 0)
        rc = write_gradebook(out_dir, rows, n, cols, n_tests, e);
    if (rc == 0)
        rc = write_page(out_dir, rows, n, cols, n_tests, e);
    for (size_t i = 0; i < n; i++)
        bat_row_release(&rows[i]);
    free(rows);
    free(cols);
    return rc;
}

unsigned bat_default_jobs(void)
{
    long n = ut_usable_cpus();

    return n > 256 ? 256 : (unsigned)n;
}
