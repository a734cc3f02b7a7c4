/* cmd_export.c -- `grader export`: a gradebook for the LMS (export.h):
 * Canvas's or Moodle's grade-import CSV from grades.csv and a roster, or
 * grades.csv with the byte-order mark Excel needs; with --feedback, the
 * students' feedback.md in the layout each LMS takes in bulk (Moodle's
 * feedback-files zip, Canvas's bulk-comment request). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch.h"
#include "batch/export.h"
#include "cli/cli.h"

#define EXPORT_READ_MAX ((size_t)64 << 20)
/* A class's feedback: a thousand students at 1 MiB each, at most. */
#define EXPORT_FEEDBACK_MAX ((size_t)1 << 30)

static const char usage[] =
    "usage: grader export (--canvas | --moodle) --roster FILE [--assignment NAME]\n"
    "                     [--excel] [--out FILE] GRADES.csv\n"
    "       grader export --excel [--out FILE] GRADES.csv\n"
    "       grader export --feedback --moodle --out FILE.zip GRADES.csv\n"
    "       grader export --feedback --canvas --roster FILE [--out FILE.json] GRADES.csv\n"
    "Writes the LMS's grade-import CSV from a batch's grades.csv (docs/TA.md).\n"
    "  --canvas      Student,ID,SIS User ID,SIS Login ID,Section,<assignment>\n"
    "  --moodle      Username,Email address,ID number,<assignment>,Feedback\n"
    "  --roster F    CSV with a header: id (the gradebook's) and name, canvas_id,\n"
    "                sis_user_id, sis_login_id, section (Canvas) or username,\n"
    "                email, idnumber (Moodle); rows come out in its order\n"
    "  --assignment  the grade column's title (default: Attention); Canvas\n"
    "                matches 'Name (id)' as its own export writes it\n"
    "  --excel       start with a UTF-8 byte-order mark (Excel reads \"Zoe\" with\n"
    "                its accents then); alone: grades.csv itself with the mark\n"
    "  --feedback    each student's feedback.md (beside GRADES.csv, in <id>/) for\n"
    "                the LMS's bulk route: --moodle, the zip of Moodle's 'Upload\n"
    "                multiple feedback files in a zip' (<name>/feedback.md, <name>\n"
    "                the submission's folder as Moodle downloaded it); --canvas,\n"
    "                the JSON body of Canvas's 'Grade or comment on multiple\n"
    "                submissions' (a comment per canvas_id of the roster)\n"
    "  --out FILE    write FILE atomically (default: standard output)\n"
    "  --help        this text\n";

struct export_args {
    int lms;   /* -1: none */
    int excel, feedback;
    const char *roster, *assignment, *out, *grades;
};

/* --canvas or --moodle: one of them. */
static int take_lms(int *lms, enum gbx_lms which)
{
    if (*lms >= 0)
        return -1;
    *lms = which;
    return 0;
}

static int take_canvas(void *lms, const char *arg, struct err *e)
{
    (void)arg, (void)e;
    return take_lms(lms, GBX_CANVAS);
}

static int take_moodle(void *lms, const char *arg, struct err *e)
{
    (void)arg, (void)e;
    return take_lms(lms, GBX_MOODLE);
}

static int parse_args(struct export_args *a, int argc, char **argv)
{
    static const char one_lms[] = "give one of --canvas and --moodle";
    const struct cli_option opts[] = {
        CLI_OPT_CALL("canvas", &a->lms, take_canvas, 0, one_lms),
        CLI_OPT_CALL("moodle", &a->lms, take_moodle, 0, one_lms),
        CLI_OPT_STRING("roster", &a->roster),
        CLI_OPT_STRING("assignment", &a->assignment),
        CLI_OPT_FLAG("excel", &a->excel),
        CLI_OPT_FLAG("feedback", &a->feedback),
        CLI_OPT_STRING("out", &a->out),
        CLI_OPT_HELP,
        CLI_OPT_END(NULL),
    };
    int first, rc;

    memset(a, 0, sizeof *a);
    a->lms = -1;
    a->assignment = "Attention";
    if ((rc = cli_parse_options(argc, argv, opts, usage, &first)) != 0)
        return rc;
    if (first != argc - 1)
        return cli_usage("expected exactly one GRADES.csv", usage);
    a->grades = argv[first];
    if (a->feedback && (a->lms < 0 || a->excel))
        return cli_usage("--feedback takes --moodle or --canvas, and no --excel", usage);
    if (a->feedback && a->lms == GBX_MOODLE && a->out == NULL)
        return cli_usage("--feedback --moodle writes a zip: give --out FILE.zip", usage);
    if (a->feedback && a->lms == GBX_MOODLE)
        return 0;
    if (a->lms < 0 && !a->excel)
        return cli_usage("nothing to do: give --canvas, --moodle or --excel", usage);
    if (a->lms >= 0 && a->roster == NULL)
        return cli_usage("--canvas and --moodle need --roster FILE", usage);
    return 0;
}

/* The whole file into sb (capped). 0, or -1 with e set. */
static int read_whole(const char *path, struct sb *sb, struct err *e)
{
    return sb_load_file(sb, path, 0, e) < 0 ? -1 : 0;
}

static int load_table(const char *path, struct gbx_table *t, struct err *e)
{
    struct sb sb;
    int rc;

    sb_init(&sb, EXPORT_READ_MAX);
    rc = read_whole(path, &sb, e);
    if (rc == 0)
        rc = gbx_csv_parse(sb_str(&sb), sb.len, path, t, e);
    sb_release(&sb);
    return rc;
}

/* One line per gradebook row no roster row names: a typo in an id, or a
 * student missing from the roster. Ids are shown safe (bat_show). */
static void report_unmatched(const struct gbx_table *g, const struct gbx_stats *st,
                             const char *grades)
{
    int c_id = gbx_col(g, "id");
    char id[BAT_PATH_MAX], file[BAT_PATH_MAX];

    bat_show(grades, file, sizeof file);
    for (size_t i = 0; c_id >= 0 && i < st->not_in_roster; i++) {
        size_t r = st->unmatched[i];

        bat_show(gbx_untext(g->cells[r * g->n_cols + (size_t)c_id]), id, sizeof id);
        fprintf(stderr, "grader: export: %s:%d: '%s' is in the gradebook, not in the roster: "
                "not exported\n", file, gbx_line(g, r, (size_t)c_id), id);
    }
}

/* The folder that holds GRADES.csv: the batch's output, with <id>/. */
static void out_dir(const char *grades, char *dir, size_t n)
{
    const char *slash = strrchr(grades, '/');

    if (slash == NULL)
        snprintf(dir, n, ".");
    else if (slash == grades)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - grades), grades);
}

struct skip_ctx {
    const struct gbx_table *g;
    const char *grades;
    const char *col;   /* the column the line names: name (Moodle), id */
    size_t n;
};

/* One line per gradebook row a feedback export leaves out, with its line. */
static void say_skipped(void *ctx, size_t row, const char *why)
{
    struct skip_ctx *c = ctx;
    int col = gbx_col(c->g, c->col);
    char what[BAT_PATH_MAX], file[BAT_PATH_MAX];

    if (col < 0)
        col = gbx_col(c->g, "id");
    bat_show(c->grades, file, sizeof file);
    bat_show(gbx_untext(c->g->cells[row * c->g->n_cols + (size_t)col]), what, sizeof what);
    fprintf(stderr, "grader: export: %s:%d: '%s' left out: %s\n", file,
            gbx_line(c->g, row, (size_t)col), what, why);
    c->n++;
}

/* --feedback: the zip or the JSON into out; *written files, *skipped rows. */
static int build_feedback(const struct export_args *a, struct sb *out, size_t *written,
                          size_t *skipped, struct err *e)
{
    struct gbx_table g, r;
    struct skip_ctx ctx;
    char dir[BAT_PATH_MAX];
    int rc;

    out_dir(a->grades, dir, sizeof dir);
    if (load_table(a->grades, &g, e) < 0)
        return -1;
    ctx.g = &g, ctx.grades = a->grades, ctx.n = 0;
    if (a->lms == GBX_MOODLE) {
        ctx.col = "name";
        rc = gbx_feedback_moodle(&g, dir, out, say_skipped, &ctx, written, e);
    } else if ((rc = load_table(a->roster, &r, e)) == 0) {
        ctx.col = "id";
        rc = gbx_feedback_canvas(&g, &r, dir, out, say_skipped, &ctx, written, e);
        gbx_table_free(&r);
    }
    *skipped = ctx.n;
    gbx_table_free(&g);
    return rc;
}

static int build(const struct export_args *a, struct sb *out,
                 struct gbx_stats *st, struct err *e)
{
    struct gbx_table g, r;
    struct sb raw;
    int rc;

    if (a->excel && gbx_add_bom(out) < 0)
        return err_set(e, NULL, 0, 0, "out of memory");
    if (a->lms < 0) {   /* --excel alone: grades.csv, checked, with the mark */
        sb_init(&raw, EXPORT_READ_MAX);
        rc = read_whole(a->grades, &raw, e);
        if (rc == 0 && (rc = gbx_csv_parse(sb_str(&raw), raw.len, a->grades, &g, e)) == 0) {
            gbx_table_free(&g);
            size_t skip = raw.len >= 3 && !memcmp(sb_str(&raw), "\xEF\xBB\xBF", 3) ? 3 : 0;
            rc = sb_add(out, sb_str(&raw) + skip, raw.len - skip) < 0
                     ? err_set(e, NULL, 0, 0, "out of memory") : 0;
        }
        sb_release(&raw);
        return rc;
    }
    if (load_table(a->grades, &g, e) < 0)
        return -1;
    if (load_table(a->roster, &r, e) < 0) {
        gbx_table_free(&g);
        return -1;
    }
    rc = gbx_export((enum gbx_lms)a->lms, &g, &r, a->assignment, out, st, e);
    if (rc == 0)
        report_unmatched(&g, st, a->grades);
    gbx_table_free(&g);
    gbx_table_free(&r);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    struct export_args a;
    struct gbx_stats st = { 0, 0, 0, NULL };
    struct sb out;
    struct err e;
    struct gbx_stats shown;
    int rc = parse_args(&a, argc, argv);

    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    err_clear(&e);
    if (a.feedback) {
        size_t written = 0, skipped = 0;

        sb_init(&out, EXPORT_FEEDBACK_MAX);
        rc = build_feedback(&a, &out, &written, &skipped, &e);
        if (rc == 0 && a.out)
            rc = bat_write_atomic(a.out, sb_str(&out), out.len, &e);
        else if (rc == 0 && fwrite(sb_str(&out), 1, out.len, stdout) != out.len)
            rc = err_set(&e, NULL, 0, 0, "cannot write the export");
        sb_release(&out);
        if (rc < 0)
            return cli_fail(&e);
        fprintf(stderr, "grader: export: %zu feedback %s %s, %zu gradebook %s left out%s\n",
                written, written == 1 ? "file" : "files",
                a.lms == GBX_MOODLE ? "in the zip" : "as Canvas comments", skipped,
                skipped == 1 ? "row" : "rows", skipped ? " (named above)" : "");
        return CLI_EXIT_OK;
    }
    sb_init(&out, 0);
    rc = build(&a, &out, &st, &e);
    if (rc == 0 && a.out)
        rc = bat_write_atomic(a.out, sb_str(&out), out.len, &e);
    else if (rc == 0 && fwrite(sb_str(&out), 1, out.len, stdout) != out.len)
        rc = err_set(&e, NULL, 0, 0, "cannot write the export");
    sb_release(&out);
    shown = st;
    shown.unmatched = NULL;
    gbx_stats_release(&st);
    if (rc < 0)
        return cli_fail(&e);
    if (a.lms >= 0)
        fprintf(stderr, "grader: export: %zu graded, %zu left blank (no grade of "
                "their own), %zu gradebook %s not in the roster%s\n", shown.graded, shown.blank,
                shown.not_in_roster, shown.not_in_roster == 1 ? "row" : "rows",
                shown.not_in_roster ? " (named above)" : "");
    return CLI_EXIT_OK;
}
