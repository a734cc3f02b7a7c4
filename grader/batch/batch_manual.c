/*
 * batch_manual.c -- see batch.h: the TA's scores of the manual items, kept
 * in <out>/manual.csv beside the gradebook. The grader writes that file
 * once, when it is absent (a row per student, blank cells), and never
 * again: the TA's numbers live there, apart from the rows a regrade
 * rewrites, and every rebuild of the gradebook (a run, a resumed run,
 * --force, a merge) adds them in.
 */
#include "batch/batch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/export.h"
#include "core/json.h"
#include "core/strbuf.h"

#define MANUAL_READ_MAX ((size_t)16 << 20)
#define MANUAL_SCORED "manual_scored"

/* The manual items: their ids and points. */
struct items {
    const char **id;
    double *max;
    size_t n;
};

static int items_add(struct items *it, const char *id, double max)
{
    const char **v = realloc(it->id, (it->n + 1) * sizeof *v);
    double *m = v == NULL ? NULL : realloc(it->max, (it->n + 1) * sizeof *m);

    if (v != NULL)
        it->id = v;
    if (m == NULL)
        return -1;
    it->max = m;
    it->id[it->n] = id;
    it->max[it->n++] = max;
    return 0;
}

static void items_release(struct items *it)
{
    free(it->id);
    free(it->max);
    memset(it, 0, sizeof *it);
}

static long items_find(const struct items *it, const char *id)
{
    for (size_t i = 0; i < it->n; i++)
        if (strcmp(it->id[i], id) == 0)
            return (long)i;
    return -1;
}

/* The manual items of the rows: tests pending in some row. */
static int items_of_rows(const struct bat_row *rows, size_t n, struct items *it)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < rows[i].n_tests; j++) {
            const struct bat_test_row *t = &rows[i].tests[j];

            if (strcmp(t->status, "manual_pending") == 0 && items_find(it, t->id) < 0 &&
                items_add(it, t->id, t->max_score) < 0)
                return -1;
        }
    return 0;
}

static int items_of_specs(const struct spec_set *s, struct items *it)
{
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);

        if (strcmp(t->property, "manual") == 0 && items_add(it, t->id, t->points) < 0)
            return -1;
    }
    return 0;
}

/* ---- reading and checking manual.csv ---- */

/* manual.csv of out_dir into t. 1 read, 0 absent, -1 error (e set). */
static int read_table(const char *path, struct gbx_table *t, struct err *e)
{
    struct sb sb;
    enum sb_read r;
    int rc = 0;

    sb_init(&sb, MANUAL_READ_MAX);
    if ((r = sb_read_file(&sb, path, 0)) == SB_READ_OPEN)
        return errno == ENOENT ? 0 : err_set(e, path, 0, 0, "cannot read: %s", strerror(errno));
    if (r != SB_READ_OK)
        rc = err_set(e, path, 0, 0, "cannot read (or larger than 16 MiB)");
    if (rc == 0)
        rc = gbx_csv_parse(sb_str(&sb), sb.len, path, t, e);
    sb_release(&sb);
    return rc < 0 ? -1 : 1;
}

/* Columns other than id and the manual items that the file may carry. */
static int ignored_column(const char *name)
{
    return strcmp(name, "name") == 0 || strcmp(name, "comment") == 0;
}

static int check_header(const char *path, const struct gbx_table *t, const struct items *it,
                        long *col_item, struct err *e)
{
    if (gbx_col(t, "id") < 0)
        return err_set(e, path, 1, 1, "no 'id' column (the header is: id,<manual item>...)");
    for (size_t c = 0; c < t->n_cols; c++) {
        const char *h = t->cells[c];

        col_item[c] = items_find(it, h);
        if (col_item[c] < 0 && strcmp(h, "id") != 0 && !ignored_column(h))
            return err_set(e, path, gbx_line(t, 0, c), gbx_column(t, 0, c),
                           "column '%.80s' is not a manual item of the specs%s%.80s%s", h,
                           it->n ? " (the first is '" : "", it->n ? it->id[0] : "",
                           it->n ? "')" : "");
    }
    return 0;
}

/* A cell's points: blank (-1 in *v), or a number from 0 to max. */
static int cell_points(const char *path, const struct gbx_table *t, size_t r, size_t c,
                       double max, double *v, struct err *e)
{
    const char *s = t->cells[r * t->n_cols + c];
    char *end;

    s += strspn(s, " ");
    *v = -1;
    if (*s == '\0')
        return 0;
    errno = 0;
    *v = strtod(s, &end);
    end += strspn(end, " ");
    if (errno != 0 || *end != '\0' || !isfinite(*v) || *v < 0 || *v > max)
        return err_set(e, path, gbx_line(t, r, c), gbx_column(t, r, c),
                       "'%.40s' is not a score from 0 to %g for '%s' (leave the cell "
                       "blank when it is not scored)", t->cells[r * t->n_cols + c], max,
                       t->cells[c]);
    return 0;
}

/* Every row: an id once, each score in range. */
static int check_rows(const char *path, const struct gbx_table *t, const struct items *it,
                      const long *col_item, struct err *e)
{
    int c_id = gbx_col(t, "id");
    double v;

    for (size_t r = 1; r < t->n_rows; r++) {
        const char *id = gbx_untext(t->cells[r * t->n_cols + (size_t)c_id]);

        for (size_t q = 1; q < r; q++)
            if (strcmp(id, gbx_untext(t->cells[q * t->n_cols + (size_t)c_id])) == 0)
                return err_set(e, path, gbx_line(t, r, (size_t)c_id),
                               gbx_column(t, r, (size_t)c_id),
                               "id '%.80s' again (first on line %d)", id,
                               gbx_line(t, q, (size_t)c_id));
        for (size_t c = 0; c < t->n_cols; c++)
            if (col_item[c] >= 0 &&
                cell_points(path, t, r, c, it->max[col_item[c]], &v, e) < 0)
                return -1;
    }
    return 0;
}

/* Read and check manual.csv against the items. 1, 0 (absent) or -1. */
static int load(const char *path, const struct items *it, struct gbx_table *t,
                long **col_item, struct err *e)
{
    int rc = read_table(path, t, e);

    *col_item = NULL;
    if (rc <= 0)
        return rc;
    if ((*col_item = calloc(t->n_cols, sizeof **col_item)) == NULL)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    else if (check_header(path, t, it, *col_item, e) < 0 ||
             check_rows(path, t, it, *col_item, e) < 0)
        rc = -1;
    if (rc < 0) {
        free(*col_item);
        *col_item = NULL;
        gbx_table_free(t);
    }
    return rc;
}

int bat_manual_check(const char *out_dir, const struct spec_set *specs, struct err *e)
{
    char path[BAT_PATH_MAX];
    struct items it = {NULL, NULL, 0};
    struct gbx_table t;
    long *col_item;
    int rc;

    if (bat_path_join(out_dir, BAT_MANUAL_NAME, path, sizeof path) < 0)
        return err_set(e, NULL, 0, 0, "path '%.64s...' is too long", out_dir);
    if (items_of_specs(specs, &it) < 0)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    else
        rc = load(path, &it, &t, &col_item, e);
    if (rc > 0) {
        free(col_item);
        gbx_table_free(&t);
    }
    items_release(&it);
    return rc < 0 ? -1 : 0;
}

/* ---- applying ---- */

static struct bat_row *row_of(struct bat_row *rows, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].id, id) == 0)
            return &rows[i];
    return NULL;
}

static void score_item(struct bat_row *row, const char *test, double v)
{
    for (size_t j = 0; j < row->n_tests; j++) {
        struct bat_test_row *t = &row->tests[j];

        if (strcmp(t->id, test) != 0 || strcmp(t->status, "manual_pending") != 0)
            continue;
        snprintf(t->status, sizeof t->status, MANUAL_SCORED);
        t->score = v;
        row->score += v;
    }
}

/* With `strict`, an id with no row is an error; else it is passed over
 * (one row of many is being scored). */
static int apply_rows(const char *path, const struct gbx_table *t, const struct items *it,
                      const long *col_item, struct bat_row *rows, size_t n, int strict,
                      struct err *e)
{
    int c_id = gbx_col(t, "id");
    double v;

    for (size_t r = 1; r < t->n_rows; r++) {
        const char *id = gbx_untext(t->cells[r * t->n_cols + (size_t)c_id]);
        struct bat_row *row = row_of(rows, n, id);

        if (row == NULL && !strict)
            continue;
        if (row == NULL)
            return err_set(e, path, gbx_line(t, r, (size_t)c_id), gbx_column(t, r, (size_t)c_id),
                           "id '%.80s' has no row in the gradebook (fix the id, or delete "
                           "the line)", id);
        for (size_t c = 0; c < t->n_cols; c++)
            if (col_item[c] >= 0 && cell_points(path, t, r, c, it->max[col_item[c]], &v, e) == 0 &&
                v >= 0)
                score_item(row, it->id[col_item[c]], v);
    }
    return 0;
}

/* The file a TA fills in: id, name, one blank column per manual item. */
static int write_template(const char *path, const struct items *it, const struct bat_row *rows,
                          size_t n, struct err *e)
{
    struct sb sb;
    int rc;

    sb_init(&sb, 0);
    rc = sb_adds(&sb, "id,name");
    for (size_t i = 0; i < it->n; i++)
        rc |= sb_addch(&sb, ',') | bat_csv_field(&sb, it->id[i]);
    rc |= sb_adds(&sb, "\r\n");
    for (size_t r = 0; r < n; r++) {
        rc |= bat_csv_text(&sb, rows[r].id) | sb_addch(&sb, ',') |
              bat_csv_text(&sb, rows[r].name ? rows[r].name : rows[r].id);
        for (size_t i = 0; i < it->n; i++)
            rc |= sb_addch(&sb, ',');
        rc |= sb_adds(&sb, "\r\n");
    }
    rc = rc || sb.truncated ? err_set(e, NULL, 0, 0, "manual.csv is larger than its cap")
                            : bat_write_atomic(path, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    return rc;
}

int bat_manual_apply(const char *out_dir, struct bat_row *rows, size_t n, struct err *e)
{
    char path[BAT_PATH_MAX];
    struct items it = {NULL, NULL, 0};
    struct gbx_table t;
    long *col_item = NULL;
    int rc;

    if (bat_path_join(out_dir, BAT_MANUAL_NAME, path, sizeof path) < 0)
        return err_set(e, NULL, 0, 0, "path '%.64s...' is too long", out_dir);
    if (items_of_rows(rows, n, &it) < 0)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    else
        rc = load(path, &it, &t, &col_item, e);
    if (rc == 0 && it.n > 0 && n > 0)
        rc = write_template(path, &it, rows, n, e);
    else if (rc > 0) {
        rc = apply_rows(path, &t, &it, col_item, rows, n, 1, e);
        free(col_item);
        gbx_table_free(&t);
    }
    items_release(&it);
    return rc < 0 ? -1 : 0;
}

int bat_manual_row(const char *out_dir, struct bat_row *row)
{
    char path[BAT_PATH_MAX];
    struct items it = {NULL, NULL, 0};
    struct gbx_table t;
    long *col_item = NULL;
    struct err e;
    int rc = 0;

    if (bat_path_join(out_dir, BAT_MANUAL_NAME, path, sizeof path) < 0 ||
        items_of_rows(row, 1, &it) < 0) {
        items_release(&it);
        return -1;
    }
    if (it.n > 0 && (rc = load(path, &it, &t, &col_item, &e)) > 0) {
        rc = apply_rows(path, &t, &it, col_item, row, 1, 0, &e);
        free(col_item);
        gbx_table_free(&t);
    }
    items_release(&it);
    return rc < 0 ? -1 : 0;
}

/* ---- the rubrics: staff.md and feedback.md with the TA's points ---- */

/* v as the rubric writes points (report.c's rpti_pts: "6.0", "3.5"). */
static const char *pts(double v, char buf[JSON_NUM_MAX])
{
    json_fmt_num(v, buf);
    if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL)
        snprintf(buf + strlen(buf), JSON_NUM_MAX - strlen(buf), ".0");
    return buf;
}

/* The row's test whose id the Markdown cell `cell` (n bytes, escaped with
 * backslashes) names, if it is a manual item; else NULL. */
static const struct bat_test_row *manual_of_cell(const struct bat_row *row, const char *cell,
                                                 size_t n)
{
    char id[256];
    size_t k = 0;

    for (size_t i = 0; i < n && k + 1 < sizeof id; i++)
        if (cell[i] != '\\' || (i > 0 && cell[i - 1] == '\\'))
            id[k++] = cell[i];
    id[k] = '\0';
    for (size_t j = 0; j < row->n_tests; j++)
        if (strcmp(row->tests[j].id, id) == 0 &&
            (strcmp(row->tests[j].status, "manual_pending") == 0 ||
             strcmp(row->tests[j].status, MANUAL_SCORED) == 0))
            return &row->tests[j];
    return NULL;
}

/*
 * The rubric `text` with the manual items' rows ("| MANUAL | -/6.0 | id |")
 * showing the row's points (or "-" when not scored) and the score line
 * grown or shrunk by the difference, into out. Idempotent: it reads the
 * points each row shows now, so it may run on its own output.
 */
#define MANUAL_LINE "- Manual points (scored by the course staff): "

/* The sum of the TA's points of the row's manual items, and their total. */
static double manual_sum(const struct bat_row *row, double *max)
{
    double v = 0;

    *max = 0;
    for (size_t j = 0; j < row->n_tests; j++) {
        const struct bat_test_row *t = &row->tests[j];

        if (strcmp(t->status, MANUAL_SCORED) == 0 || strcmp(t->status, "manual_pending") == 0)
            *max += t->max_score;
        if (strcmp(t->status, MANUAL_SCORED) == 0)
            v += t->score;
    }
    return v;
}

static int patch_rubric(const char *text, const struct bat_row *row, struct sb *out)
{
    static const char lead[] = "| MANUAL | ";
    const char *score_at = strstr(text, "**Score: "), *p = text;
    const char *marker = strstr(text, "\n" MANUAL_LINE);
    double delta = 0, max, sum = manual_sum(row, &max);
    int rc = 0, table = 0;

    /* a rubric with a table shows the items in it; one without (a compile
     * error) gets the line MANUAL_LINE under its score */
    for (const char *q = strstr(text, "\n| MANUAL | "); q != NULL && !table;
         q = strstr(q + 1, "\n| MANUAL | ")) {
        const char *bar = strstr(q + sizeof lead, " | "), *id_end;

        table = bar != NULL && (id_end = strstr(bar + 3, " | ")) != NULL &&
                manual_of_cell(row, bar + 3, (size_t)(id_end - bar - 3)) != NULL;
    }
    while (*p) {
        const char *eol = p + strcspn(p, "\n"), *pt, *bar, *id_end;
        const struct bat_test_row *t = NULL;
        char a[JSON_NUM_MAX], b[JSON_NUM_MAX];

        if (strncmp(p, lead, sizeof lead - 1) == 0 &&
            (bar = strstr(p + sizeof lead - 1, " | ")) != NULL && bar < eol &&
            (id_end = strstr(bar + 3, " | ")) != NULL && id_end < eol &&
            (t = manual_of_cell(row, bar + 3, (size_t)(id_end - bar - 3))) != NULL) {
            pt = p + sizeof lead - 1;
            delta -= *pt == '-' ? 0 : strtod(pt, NULL);
            delta += strcmp(t->status, MANUAL_SCORED) == 0 ? t->score : 0;
            rc |= sb_adds(out, lead);
            rc |= sb_adds(out, strcmp(t->status, MANUAL_SCORED) == 0 ? pts(t->score, a) : "-");
            rc |= sb_addf(out, "/%s", pts(t->max_score, b));
            rc |= sb_add(out, bar, (size_t)(eol - bar));
        } else if (marker != NULL && p == marker + 1) {
            /* no table (a compile error): the line says what was added */
            delta -= strtod(p + sizeof MANUAL_LINE - 1, NULL);
            p = *eol ? eol + 1 : eol;
            if (*p == '\n')  /* and the blank line written with it */
                p++;
            continue;
        } else {
            rc |= sb_add(out, p, (size_t)(eol - p));
        }
        if (*eol == '\n')
            rc |= sb_addch(out, '\n');
        if (!table && sum > 0 && score_at != NULL && p == score_at) {
            char x[JSON_NUM_MAX], y[JSON_NUM_MAX];

            rc |= sb_addf(out, "\n" MANUAL_LINE "%s / %s\n", pts(sum, x), pts(max, y));
        }
        p = *eol ? eol + 1 : eol;
    }
    if (!table)
        delta += sum;
    if (rc == 0 && delta != 0 && score_at != NULL) {
        /* the score line is the report's first: rewrite it in place */
        char *s = out->buf + (score_at - text) + 9, *end, a[JSON_NUM_MAX];
        double v = strtod(s, &end);
        struct sb again;

        sb_init(&again, 0);
        rc |= sb_add(&again, out->buf, (size_t)(s - out->buf));
        rc |= sb_adds(&again, pts(v + delta, a));
        rc |= sb_add(&again, end, out->len - (size_t)(end - out->buf));
        sb_reset(out);
        rc |= sb_add(out, again.buf, again.len);
        sb_release(&again);
    }
    return rc;
}

int bat_manual_rubrics(const char *out_dir, const struct bat_row *rows, size_t n,
                       struct err *e)
{
    static const char *const files[] = {"staff.md", "feedback.md"};

    for (size_t i = 0; i < n; i++) {
        const struct bat_row *row = &rows[i];
        char dir[BAT_PATH_MAX], path[BAT_PATH_MAX + 16];
        int manual = 0;

        for (size_t j = 0; j < row->n_tests; j++)
            manual |= strcmp(row->tests[j].status, MANUAL_SCORED) == 0 ||
                      strcmp(row->tests[j].status, "manual_pending") == 0;
        if (!manual || bat_path_join(out_dir, row->id, dir, sizeof dir) < 0)
            continue;
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            struct sb in, out;
            int rc = 0;

            sb_init(&in, 4u << 20);
            sb_init(&out, 8u << 20);
            if (bat_path_join(dir, files[f], path, sizeof path) == 0 &&
                sb_read_file(&in, path, 4u << 20) == SB_READ_OK) {
                if (patch_rubric(sb_str(&in), row, &out) != 0 || out.truncated)
                    rc = err_set(e, path, 0, 0, "the rubric is larger than its cap");
                else if (out.len != in.len || memcmp(out.buf, in.buf, in.len) != 0)
                    rc = bat_write_atomic(path, out.buf, out.len, e);
            }
            sb_release(&in);
            sb_release(&out);
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}
