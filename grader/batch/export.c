/* export.c -- see export.h. A CSV reader for our own gradebook and a
 * TA's roster, and the two LMS import layouts. */
#include "batch/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json.h"
#include "core/util.h"
#include "core/zip.h"
#include "batch/batch.h"

/* ---- reading CSV ---- */

struct parse {
    const char *s, *end, *name, *line_start;
    size_t line, at;    /* at: where the current cell started */
    struct sb cell;
    char **cells;
    size_t *ats;
    size_t n, cap;
};

static int push_cell(struct parse *p, struct err *e)
{
    char *c;

    if (ut_grow2((void **)&p->cells, sizeof *p->cells, (void **)&p->ats, sizeof *p->ats,
                 &p->cap, p->n + 1, 64) < 0)
        return err_set(e, p->name, 0, 0, "out of memory");
    if (p->cell.truncated)
        return err_set(e, p->name, (int)p->line, 0, "field too large");
    if ((c = sb_detach(&p->cell, NULL)) == NULL)
        return err_set(e, p->name, 0, 0, "out of memory");
    p->ats[p->n] = p->at;
    p->cells[p->n++] = c;
    return 0;
}

static void keep(struct parse *p, char ch)
{
    if (sb_addch(&p->cell, ch) < 0)
        return;   /* p->cell.truncated: push_cell reports it */
}

enum { F_PLAIN, F_QUOTED, F_CLOSED };

/* One field at p->s; *eol set when it ended its row. */
static int field(struct parse *p, int *eol, struct err *e)
{
    int st = p->s < p->end && *p->s == '"' ? F_QUOTED : F_PLAIN;

    *eol = 0;
    p->at = p->line << 20 | (size_t)(p->s - p->line_start + 1);
    p->s += st == F_QUOTED;
    while (p->s < p->end) {
        char ch = *p->s++;

        if (st == F_QUOTED) {
            if (ch == '"' && p->s < p->end && *p->s == '"')
                p->s++, keep(p, '"');
            else if (ch == '"')
                st = F_CLOSED;
            else
                p->line += ch == '\n', keep(p, ch),
                p->line_start = ch == '\n' ? p->s : p->line_start;
            continue;
        }
        if (ch == ',')
            return push_cell(p, e);
        if (ch == '\r' && p->s < p->end && *p->s == '\n')
            p->s++, ch = '\n';
        if (ch == '\n') {
            *eol = 1;
            p->line_start = p->s;
            return push_cell(p, e);
        }
        if (st == F_CLOSED)
            return err_set(e, p->name, (int)p->line, 0,
                           "text after a closing quote");
        keep(p, ch);
    }
    if (st == F_QUOTED)
        return err_set(e, p->name, (int)p->line, 0, "unterminated quoted field");
    *eol = 1;
    return push_cell(p, e);
}

void gbx_table_free(struct gbx_table *t)
{
    for (size_t i = 0; t->cells && i < t->n_rows * t->n_cols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->at);
    memset(t, 0, sizeof *t);
}

int gbx_csv_parse(const char *text, size_t n, const char *name,
                  struct gbx_table *t, struct err *e)
{
    struct parse p = { text, text + n, name, text, 1, 0, { 0 }, NULL, NULL, 0, 0 };
    size_t row_start = 0;
    int eol = 1, rc = 0;

    memset(t, 0, sizeof *t);
    if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        p.s += 3, p.line_start += 3;
    sb_init(&p.cell, (size_t)1 << 20);
    /* text ending just after a comma: its row's last field is empty (it
     * used to be dropped, with the row's other cells, which then leaked) */
    while (rc == 0 && (p.s < p.end || !eol)) {
        if ((rc = field(&p, &eol, e)) < 0 || !eol)
            continue;
        if (t->n_cols == 0)
            t->n_cols = p.n;
        if (p.n - row_start != t->n_cols)
            rc = err_set(e, name, (int)p.line, 0, "%zu fields where the "
                         "header has %zu", p.n - row_start, t->n_cols);
        row_start = p.n;
        p.line++;
    }
    sb_release(&p.cell);
    t->cells = p.cells;
    t->at = p.ats;
    t->n_rows = t->n_cols ? p.n / t->n_cols : 0;
    if (rc == 0 && t->n_rows == 0)
        rc = err_set(e, name, 1, 0, "no header row");
    if (rc < 0) {
        t->n_rows = p.n, t->n_cols = 1;   /* so that every cell is freed */
        gbx_table_free(t);
    }
    return rc;
}

int gbx_line(const struct gbx_table *t, size_t row, size_t col)
{
    return (int)(t->at[row * t->n_cols + col] >> 20);
}

int gbx_column(const struct gbx_table *t, size_t row, size_t col)
{
    return (int)(t->at[row * t->n_cols + col] & (((size_t)1 << 20) - 1));
}

int gbx_col(const struct gbx_table *t, const char *name)
{
    for (size_t i = 0; i < t->n_cols; i++)
        if (strcmp(t->cells[i], name) == 0)
            return (int)i;
    return -1;
}

const char *gbx_untext(const char *cell)
{
    return cell[0] == '\'' && cell[1] != '\0' &&
                   strchr(BAT_CSV_FORMULA_LEAD, cell[1]) != NULL
               ? cell + 1 : cell;
}

static const char *cell(const struct gbx_table *t, size_t row, int col)
{
    return col < 0 ? "" : t->cells[row * t->n_cols + (size_t)col];
}

/* ---- writing the LMS's layout ---- */

/* The gradebook row of roster id `id`, or 0 (row 0 is the header). */
static size_t grade_row(const struct gbx_table *g, int c_id, const char *id)
{
    for (size_t r = 1; r < g->n_rows; r++)
        if (strcmp(gbx_untext(cell(g, r, c_id)), id) == 0)
            return r;
    return 0;
}

/* The grade to import: the score, or "" when the row has none of its own. */
static const char *grade_of(const struct gbx_table *g, size_t row, int c_score,
                            int c_status)
{
    const char *st = cell(g, row, c_status);

    if (row == 0 || strcmp(st, "missing") == 0 || strcmp(st, "skipped") == 0 ||
        strcmp(st, "error") == 0)
        return "";
    return cell(g, row, c_score);
}

static int put_cells(struct sb *out, const char *const *v, size_t n)
{
    int rc = 0;

    for (size_t i = 0; i < n; i++)
        rc |= (i ? sb_addch(out, ',') : 0) | bat_csv_text(out, v[i]);
    return rc | sb_adds(out, "\r\n") ? -1 : 0;
}

struct cols { int id, score, status, max, note; };

static int check_input(const struct gbx_table *g, const struct gbx_table *ro,
                       struct cols *c, struct err *e)
{
    c->id = gbx_col(g, "id"), c->score = gbx_col(g, "score");
    c->status = gbx_col(g, "status"), c->max = gbx_col(g, "max_score");
    c->note = gbx_col(g, "note");
    if (c->id < 0 || c->score < 0 || c->status < 0)
        return err_set(e, NULL, 0, 0, "the gradebook has no id, score or "
                       "status column: is it a grades.csv?");
    if (gbx_col(ro, "id") < 0)
        return err_set(e, NULL, 0, 0, "the roster has no 'id' column");
    for (size_t a = 1; a < ro->n_rows; a++)
        for (size_t b = a + 1; b < ro->n_rows; b++)
            if (strcmp(cell(ro, a, gbx_col(ro, "id")),
                       cell(ro, b, gbx_col(ro, "id"))) == 0)
                return err_set(e, NULL, (int)b + 1, 0, "roster id '%s' twice",
                               cell(ro, b, gbx_col(ro, "id")));
    return 0;
}

/* The points possible: the max_score of the first graded row. */
static const char *points_possible(const struct gbx_table *g, const struct cols *c)
{
    for (size_t r = 1; c->max >= 0 && r < g->n_rows; r++)
        if (grade_of(g, r, c->score, c->status)[0])
            return cell(g, r, c->max);
    return "";
}

static int roster_row(enum gbx_lms lms, const struct gbx_table *ro, size_t r,
                      const char *grade, const char *feedback, struct sb *out)
{
    static const char *const canvas[] = { "name", "canvas_id", "sis_user_id",
                                          "sis_login_id", "section" };
    static const char *const moodle[] = { "username", "email", "idnumber" };
    const char *const *names = lms == GBX_CANVAS ? canvas : moodle;
    size_t n = lms == GBX_CANVAS ? 5 : 3, i;
    const char *v[7];

    for (i = 0; i < n; i++)
        v[i] = cell(ro, r, gbx_col(ro, names[i]));
    v[i++] = grade;
    if (lms == GBX_MOODLE)
        v[i++] = feedback;
    return put_cells(out, v, i);
}

int gbx_export(enum gbx_lms lms, const struct gbx_table *grades,
               const struct gbx_table *roster, const char *assignment,
               struct sb *out, struct gbx_stats *st, struct err *e)
{
    const char *canvas_head[] = { "Student", "ID", "SIS User ID", "SIS Login ID",
                                  "Section", assignment };
    const char *moodle_head[] = { "Username", "Email address", "ID number",
                                  assignment, "Feedback" };
    struct cols c;
    int rc, ro_id = gbx_col(roster, "id");

    memset(st, 0, sizeof *st);
    if (check_input(grades, roster, &c, e) < 0)
        return -1;
    rc = lms == GBX_CANVAS ? put_cells(out, canvas_head, 6)
                           : put_cells(out, moodle_head, 5);
    if (rc == 0 && lms == GBX_CANVAS) {
        /* Canvas reads and ignores this row of its own exports */
        const char *pp[] = { "Points Possible", "", "", "", "",
                             points_possible(grades, &c) };
        rc = put_cells(out, pp, 6);
    }
    for (size_t r = 1; rc == 0 && r < roster->n_rows; r++) {
        size_t g = grade_row(grades, c.id, cell(roster, r, ro_id));
        const char *grade = grade_of(grades, g, c.score, c.status);

        *(grade[0] ? &st->graded : &st->blank) += 1;
        rc = roster_row(lms, roster, r, grade,
                        g ? cell(grades, g, c.note) : "no submission graded", out);
    }
    if (rc == 0 && (st->unmatched = calloc(grades->n_rows, sizeof *st->unmatched)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    for (size_t g = 1; rc == 0 && g < grades->n_rows; g++) {
        const char *id = gbx_untext(cell(grades, g, c.id));
        size_t r;

        for (r = 1; r < roster->n_rows && strcmp(cell(roster, r, ro_id), id); r++)
            ;
        if (r == roster->n_rows)
            st->unmatched[st->not_in_roster++] = g;
    }
    return rc || out->truncated ? err_set(e, NULL, 0, 0, "the export is "
                                          "larger than its cap") : 0;
}

void gbx_stats_release(struct gbx_stats *st)
{
    free(st->unmatched);
    memset(st, 0, sizeof *st);
}

int gbx_add_bom(struct sb *out)
{
    return sb_adds(out, "\xEF\xBB\xBF");
}

/* ---- feedback back into the LMS in bulk ---- */

#define GBX_FEEDBACK_MAX ((size_t)1 << 20)   /* bytes of one feedback.md */

/* Whether `name` is a Moodle submission folder as its download names it:
 * "<full name>_<digits>_assignsubmission_file_" (the last '_' optional),
 * the full name without '_' (Moodle writes it as ' '), '/' or '\\' (which
 * bat_show would have escaped: the name is then not the folder's). */
static int moodle_folder(const char *name)
{
    static const char tail[] = "_assignsubmission_file";
    size_t len = strlen(name), digits = 0;
    const char *end;

    if (len > 0 && name[len - 1] == '_')
        len--;
    if (len < sizeof tail || memcmp(name + len - (sizeof tail - 1), tail, sizeof tail - 1))
        return 0;
    end = name + len - (sizeof tail - 1);
    while (end > name && end[-1] >= '0' && end[-1] <= '9')
        end--, digits++;
    if (digits == 0 || end - 1 <= name || end[-1] != '_')
        return 0;
    for (const char *p = name; p < end - 1; p++)
        if (*p == '_' || *p == '/' || *p == '\\')
            return 0;
    return 1;
}

/* dir/<id>/feedback.md into fb: 1 read, 0 absent (*why set), -1 (e set). */
static int load_feedback(const char *dir, const char *id, struct sb *fb, const char **why,
                         struct err *e)
{
    char path[BAT_PATH_MAX];
    struct stat st;
    int n;

    if (bat_id_check(id, NULL) < 0) {
        *why = "its id is not one the batch makes";
        return 0;
    }
    n = snprintf(path, sizeof path, "%s/%s/feedback.md", dir, id);
    if (n < 0 || (size_t)n >= sizeof path)
        return err_set(e, dir, 0, 0, "path too long");
    if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
        *why = "no feedback.md in its folder";
        return 0;
    }
    sb_reset(fb);
    if (sb_load_file(fb, path, GBX_FEEDBACK_MAX, e) != SB_READ_OK)
        return err_set(e, path, 0, 0, "cannot read, or larger than %zu bytes",
                       GBX_FEEDBACK_MAX);
    return 1;
}

static void say_skip(gbx_skip_fn skip, void *ctx, size_t row, const char *why)
{
    if (skip)
        skip(ctx, row, why);
}

int gbx_feedback_moodle(const struct gbx_table *grades, const char *dir,
                        struct sb *zip, gbx_skip_fn skip, void *ctx,
                        size_t *written, struct err *e)
{
    int c_id = gbx_col(grades, "id"), c_name = gbx_col(grades, "name"), rc = 0;
    struct zip_writer z;
    struct sb fb;

    *written = 0;
    if (c_id < 0 || c_name < 0)
        return err_set(e, NULL, 0, 0, "the gradebook has no id or name column: is it a "
                       "grades.csv?");
    sb_init(&fb, GBX_FEEDBACK_MAX + 1);
    zip_begin(&z, zip);
    for (size_t r = 1; rc == 0 && r < grades->n_rows; r++) {
        const char *id = gbx_untext(cell(grades, r, c_id));
        const char *name = gbx_untext(cell(grades, r, c_name)), *why = NULL;
        char entry[BAT_PATH_MAX];
        int got;

        if (!moodle_folder(name)) {
            say_skip(skip, ctx, r, "its name is not a Moodle submission folder "
                     "('Full Name_<id>_assignsubmission_file_')");
            continue;
        }
        if ((got = load_feedback(dir, id, &fb, &why, e)) < 0) {
            rc = -1;
            break;
        }
        if (got == 0) {
            say_skip(skip, ctx, r, why);
            continue;
        }
        snprintf(entry, sizeof entry, "%s/feedback.md", name);
        if ((rc = zip_add(&z, entry, sb_str(&fb), fb.len, e)) == 0)
            ++*written;
    }
    sb_release(&fb);
    if (rc < 0) {
        zip_abort(&z);
        return -1;
    }
    return zip_finish(&z, e);
}

/* The Canvas student id of roster row r: "<canvas_id>", or
 * "sis_user_id:<sis_user_id>" (the API's SIS id form), or NULL. */
static const char *canvas_student(const struct gbx_table *ro, size_t r, char *buf, size_t n)
{
    const char *id = cell(ro, r, gbx_col(ro, "canvas_id"));
    const char *sis = cell(ro, r, gbx_col(ro, "sis_user_id"));

    if (id[0] && strspn(id, "0123456789") == strlen(id))
        return id;
    if (sis[0] && (size_t)snprintf(buf, n, "sis_user_id:%s", sis) < n)
        return buf;
    return NULL;
}

int gbx_feedback_canvas(const struct gbx_table *grades, const struct gbx_table *roster,
                        const char *dir, struct sb *json, gbx_skip_fn skip, void *ctx,
                        size_t *written, struct err *e)
{
    int c_id = gbx_col(grades, "id"), ro_id = gbx_col(roster, "id"), rc = 0;
    struct sb fb;

    *written = 0;
    if (c_id < 0)
        return err_set(e, NULL, 0, 0, "the gradebook has no id column: is it a grades.csv?");
    if (ro_id < 0)
        return err_set(e, NULL, 0, 0, "the roster has no 'id' column");
    sb_init(&fb, GBX_FEEDBACK_MAX + 1);
    rc = sb_adds(json, "{\"grade_data\": {");
    for (size_t g = 1; rc == 0 && g < grades->n_rows; g++) {
        const char *id = gbx_untext(cell(grades, g, c_id)), *student, *why = NULL;
        char sis[512];
        size_t r;
        int got;

        for (r = 1; r < roster->n_rows && strcmp(cell(roster, r, ro_id), id); r++)
            ;
        if (r == roster->n_rows) {
            say_skip(skip, ctx, g, "not in the roster");
            continue;
        }
        if ((student = canvas_student(roster, r, sis, sizeof sis)) == NULL) {
            say_skip(skip, ctx, g, "its roster row has no canvas_id or sis_user_id");
            continue;
        }
        if ((got = load_feedback(dir, id, &fb, &why, e)) < 0) {
            sb_release(&fb);
            return -1;
        }
        if (got == 0) {
            say_skip(skip, ctx, g, why);
            continue;
        }
        rc = (*written ? sb_adds(json, ",\n  ") : sb_adds(json, "\n  ")) < 0 ||
             json_add_key(json, student) < 0 || sb_adds(json, "{") < 0 ||
             json_add_key(json, "text_comment") < 0 ||
             json_add_str(json, sb_str(&fb), fb.len, 0) < 0 || sb_adds(json, "}") < 0
                 ? -1 : 0;
        ++*written;
    }
    sb_release(&fb);
    if (rc == 0 && (sb_adds(json, *written ? "\n}}\n" : "}}\n") < 0 || json->truncated))
        rc = -1;
    return rc < 0 ? err_set(e, NULL, 0, 0, "the comments are larger than their cap") : 0;
}
