/*
 * batch_row.c -- see batch.h: one graded submission as a row, and its
 * text form (row.tsv). One "key<TAB>value" line per field and one "test"
 * line per test; tabs, newlines and backslashes in values are escaped;
 * numbers are printed with %.17g so that they read back exactly.
 */
#include "batch/batch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade.h"

#define ROW_MAGIC "attention-grader-row 1"
#define ROW_FILE_MAX ((size_t)4 << 20)
#define ROW_MAX_TESTS 10000

static char *dup_n(const char *s, size_t n)
{
    char *p;

    if (s == NULL)
        s = "", n = 0;
    if ((p = malloc(n + 1)) != NULL) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* A copy of at most `max` bytes of s, not cutting a UTF-8 sequence. */
static char *dup_capped(const char *s, size_t max)
{
    size_t n = s == NULL ? 0 : strlen(s);

    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    return dup_n(s, n);
}

void bat_row_release(struct bat_row *row)
{
    for (size_t i = 0; i < row->n_tests; i++) {
        free(row->tests[i].id);
        free(row->tests[i].message);
    }
    free(row->tests);
    free(row->id);
    free(row->detail);
    free(row->name);
    memset(row, 0, sizeof *row);
}

static int row_start(struct bat_row *row, const char *id, const char *version,
                     size_t n_tests, struct err *e)
{
    memset(row, 0, sizeof *row);
    row->id = dup_n(id, strlen(id));
    row->tests = calloc(n_tests ? n_tests : 1, sizeof *row->tests);
    snprintf(row->grader_version, sizeof row->grader_version, "%s", version);
    if (row->id != NULL && row->tests != NULL)
        return 0;
    bat_row_release(row);
    return err_set(e, NULL, 0, 0, "out of memory");
}

/* A manual item stays the TA's to score whatever happened to the code
 * (a compile error, a refusal): its cell is blank, never a 0. */
static int manual_item(const struct spec_test *t)
{
    return strcmp(t->property, "manual") == 0;
}

int bat_row_from_result(const struct grade_result *r, const char *id,
                        const char *version, struct bat_row *row, struct err *e)
{
    if (row_start(row, id, version, r->n_tests, e) < 0)
        return -1;
    snprintf(row->status, sizeof row->status, "%s", grade_status_name(r->status));
    row->score = r->score;
    row->max_score = r->max_score;
    memcpy(row->spec_sha256, r->spec_sha256, sizeof row->spec_sha256);
    memcpy(row->submission_sha256, r->submission_sha256, sizeof row->submission_sha256);
    row->seed = r->seed;
    row->detail = dup_capped(r->status_detail, BAT_MSG_MAX);
    for (size_t i = 0; i < r->n_tests && row->detail != NULL; i++, row->n_tests++) {
        const struct grade_test *t = &r->tests[i];
        struct bat_test_row *tr = &row->tests[i];

        tr->id = dup_n(t->test->id, strlen(t->test->id));
        tr->message = dup_capped(t->message, BAT_MSG_MAX);
        snprintf(tr->status, sizeof tr->status, "%s", grade_test_status_name(
                 manual_item(t->test) ? TEST_MANUAL_PENDING : t->status));
        tr->score = t->score;
        tr->max_score = t->max_score;
        if (tr->id == NULL || tr->message == NULL)
            break;
    }
    if (row->detail != NULL && row->n_tests == r->n_tests)
        return 0;
    row->n_tests += row->n_tests < r->n_tests;
    bat_row_release(row);
    return err_set(e, NULL, 0, 0, "out of memory");
}

static int error_tests(struct bat_row *row, const struct spec_set *specs)
{
    size_t n = specs == NULL ? 0 : spec_test_count(specs);

    for (; row->n_tests < n; row->n_tests++) {
        const struct spec_test *t = spec_test_at(specs, row->n_tests);
        struct bat_test_row *tr = &row->tests[row->n_tests];

        tr->id = dup_n(t->id, strlen(t->id));
        tr->message = dup_n("not run: the grader failed", 26);
        snprintf(tr->status, sizeof tr->status, "%s", grade_test_status_name(
                 manual_item(t) ? TEST_MANUAL_PENDING : TEST_NOT_RUN));
        tr->max_score = t->points;
        if (tr->id == NULL || tr->message == NULL)
            return -1;
        row->max_score += t->points;
    }
    return 0;
}

int bat_row_error(const char *id, const char *sub_sha256, const char *spec_sha,
                  const struct spec_set *specs, const char *version, uint64_t seed,
                  const char *why, struct bat_row *row, struct err *e)
{
    size_t n = specs == NULL ? 0 : spec_test_count(specs);

    if (row_start(row, id, version, n, e) < 0)
        return -1;
    snprintf(row->status, sizeof row->status, "%s", grade_status_name(GRADE_ERROR));
    snprintf(row->submission_sha256, sizeof row->submission_sha256, "%s", sub_sha256);
    snprintf(row->spec_sha256, sizeof row->spec_sha256, "%s", spec_sha);
    row->seed = seed;
    row->detail = dup_capped(why, BAT_MSG_MAX);
    if (row->detail != NULL && error_tests(row, specs) == 0)
        return 0;
    row->n_tests += row->n_tests < n;
    bat_row_release(row);
    return err_set(e, NULL, 0, 0, "out of memory");
}

/* ---- text form ---- */

static int add_escaped(struct sb *sb, const char *s)
{
    int rc = 0;

    for (; *s; s++) {
        switch (*s) {
        case '\\': rc |= sb_add(sb, "\\\\", 2); break;
        case '\t': rc |= sb_add(sb, "\\t", 2); break;
        case '\n': rc |= sb_add(sb, "\\n", 2); break;
        case '\r': rc |= sb_add(sb, "\\r", 2); break;
        default: rc |= sb_addch(sb, *s); break;
        }
    }
    return rc ? -1 : 0;
}

static int add_field(struct sb *sb, const char *key, const char *value)
{
    int rc = sb_adds(sb, key) | sb_addch(sb, '\t') | add_escaped(sb, value);

    return (rc | sb_addch(sb, '\n')) ? -1 : 0;
}

int bat_row_format(const struct bat_row *row, struct sb *out)
{
    int rc = sb_adds(out, ROW_MAGIC "\n") | add_field(out, "id", row->id);

    rc |= add_field(out, "status", row->status);
    rc |= sb_addf(out, "score\t%.17g\nmax_score\t%.17g\n", row->score, row->max_score);
    rc |= add_field(out, "grader_version", row->grader_version);
    rc |= add_field(out, "spec_sha256", row->spec_sha256);
    rc |= add_field(out, "submission_sha256", row->submission_sha256);
    rc |= sb_addf(out, "seed\t%" PRIu64 "\n", row->seed);
    rc |= add_field(out, "detail", row->detail ? row->detail : "");
    rc |= add_field(out, "name", row->name ? row->name : row->id);
    rc |= add_field(out, "inputs_sha256", row->inputs_sha256);
    for (size_t i = 0; i < row->n_tests; i++) {
        const struct bat_test_row *t = &row->tests[i];

        rc |= sb_adds(out, "test\t") | add_escaped(out, t->id);
        rc |= sb_addf(out, "\t%s\t%.17g\t%.17g\t", t->status, t->score, t->max_score);
        rc |= add_escaped(out, t->message ? t->message : "") | sb_addch(out, '\n');
    }
    return rc ? -1 : 0;
}

/* ---- parsing ---- */

/* Unescape s[0..n) into a new string (NULL: out of memory or bad escape). */
static char *unescape(const char *s, size_t n)
{
    char *p = malloc(n + 1), *q = p;

    for (size_t i = 0; p != NULL && i < n; i++) {
        if (s[i] != '\\') {
            *q++ = s[i];
            continue;
        }
        if (++i == n || strchr("\\tnr", s[i]) == NULL) {
            free(p);
            return NULL;
        }
        *q++ = s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i] == 'r' ? '\r' : '\\';
    }
    if (p != NULL)
        *q = '\0';
    return p;
}

/* Split line[0..n) at tabs into at most max fields. Returns the count. */
static size_t split(const char *line, size_t n, const char **f, size_t *len, size_t max)
{
    size_t k = 0, start = 0;

    for (size_t i = 0; i <= n && k < max; i++) {
        if (i < n && line[i] != '\t')
            continue;
        f[k] = line + start;
        len[k++] = i - start;
        start = i + 1;
    }
    return k;
}

static int num(const char *s, size_t n, double *out)
{
    char buf[64], *end;

    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtod(buf, &end);
    return errno == 0 && *end == '\0' ? 0 : -1;
}

static int copy_fixed(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap || memchr(s, '\\', n) != NULL)
        return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

static int parse_test(struct bat_row *row, const char **f, const size_t *len)
{
    struct bat_test_row *v, *t;

    if (row->n_tests == ROW_MAX_TESTS)
        return -1;
    if ((v = realloc(row->tests, (row->n_tests + 1) * sizeof *v)) == NULL)
        return -1;
    row->tests = v;
    t = memset(&v[row->n_tests++], 0, sizeof *t);
    t->id = unescape(f[1], len[1]);
    t->message = unescape(f[5], len[5]);
    if (t->id == NULL || t->message == NULL ||
        copy_fixed(t->status, sizeof t->status, f[2], len[2]) < 0)
        return -1;
    return num(f[3], len[3], &t->score) | num(f[4], len[4], &t->max_score);
}

static int parse_seed(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;

    if (n == 0 || n > 20)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

#define KEY_IS(k) (len[0] == sizeof(k) - 1 && memcmp(f[0], k, len[0]) == 0)

static int parse_line(struct bat_row *row, const char *line, size_t n)
{
    const char *f[6];
    size_t len[6], k = split(line, n, f, len, 6);

    if (k == 6 && KEY_IS("test"))
        return parse_test(row, f, len);
    if (k != 2)
        return -1;
    if (KEY_IS("id"))
        return row->id != NULL || (row->id = unescape(f[1], len[1])) == NULL ? -1 : 0;
    if (KEY_IS("detail"))
        return row->detail != NULL || (row->detail = unescape(f[1], len[1])) == NULL ? -1 : 0;
    if (KEY_IS("name"))
        return row->name != NULL || (row->name = unescape(f[1], len[1])) == NULL ? -1 : 0;
    if (KEY_IS("inputs_sha256"))
        return copy_fixed(row->inputs_sha256, sizeof row->inputs_sha256, f[1], len[1]);
    if (KEY_IS("status"))
        return copy_fixed(row->status, sizeof row->status, f[1], len[1]);
    if (KEY_IS("score"))
        return num(f[1], len[1], &row->score);
    if (KEY_IS("max_score"))
        return num(f[1], len[1], &row->max_score);
    if (KEY_IS("grader_version"))
        return copy_fixed(row->grader_version, sizeof row->grader_version, f[1], len[1]);
    if (KEY_IS("spec_sha256"))
        return copy_fixed(row->spec_sha256, sizeof row->spec_sha256, f[1], len[1]);
    if (KEY_IS("submission_sha256"))
        return copy_fixed(row->submission_sha256, sizeof row->submission_sha256, f[1], len[1]);
    if (KEY_IS("seed"))
        return parse_seed(f[1], len[1], &row->seed);
    return -1;
}

int bat_row_parse(const char *buf, size_t n, struct bat_row *row, struct err *e)
{
    size_t pos = sizeof ROW_MAGIC, lineno = 1;

    memset(row, 0, sizeof *row);
    if (n < pos || memcmp(buf, ROW_MAGIC "\n", pos) != 0)
        return err_set(e, NULL, 1, 0, "not a row file (no '" ROW_MAGIC "' line)");
    while (pos < n) {
        const char *nl = memchr(buf + pos, '\n', n - pos);
        size_t len = nl == NULL ? n - pos : (size_t)(nl - (buf + pos));

        lineno++;
        if (parse_line(row, buf + pos, len) < 0) {
            bat_row_release(row);
            return err_set(e, NULL, (int)lineno, 0, "bad line in a row file");
        }
        pos += len + 1;
    }
    if (row->id != NULL && row->status[0] != '\0' && row->detail != NULL)
        return 0;
    bat_row_release(row);
    return err_set(e, NULL, 0, 0, "incomplete row file");
}

int bat_row_load(const char *dir, struct bat_row *row, struct err *e)
{
    char path[BAT_PATH_MAX];
    struct sb sb;
    enum sb_read r;
    int rc = 0;

    memset(row, 0, sizeof *row);
    snprintf(path, sizeof path, "%s/%s", dir, BAT_ROW_NAME);
    sb_init(&sb, ROW_FILE_MAX);
    if ((r = sb_read_file(&sb, path, 0)) == SB_READ_OPEN)
        return err_set(e, path, 0, 0, "cannot read: %s", strerror(errno));
    if (r != SB_READ_OK)
        rc = err_set(e, path, 0, 0, "cannot read (or larger than 4 MiB)");
    if (rc == 0 && bat_row_parse(sb_str(&sb), sb.len, row, e) < 0) {
        if (e != NULL)
            snprintf(e->file, sizeof e->file, "%.255s", path);
        rc = -1;
    }
    sb_release(&sb);
    return rc;
}
