/*
 * cmd_batch.c -- `grader batch` (grade a class) and `grader merge`
 * (combine shard outputs). The CLI half of batch.h: options, signals and
 * the progress line.
 */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assign/assign.h"
#include "batch/batch.h"
#include "batch/export.h"
#include "core/strbuf.h"
#include "cli/cli.h"
#include "grade/grade.h"
#include "oracle/oracle.h"
#include "core/util.h"

#define DEFAULT_OUT "gradebook"
#define CANVAS_STAGE ".canvas"  /* <out>/.canvas/<prefix>/: bat_discover_lms */

static const char batch_usage[] =
    "usage: grader batch [--spec FILE]... [--jobs N] [--test-jobs N] [--out DIR]\n"
    "                    [--id-regex PCRE2] [--shard K/N] [--force] [--no-cache]\n"
    "                    [--seed N] [--similarity] SUBMISSIONS...\n"
    "Each entry of a SUBMISSIONS directory is a submission: a directory holding\n"
    ASG_SOURCE ", or a single .c file. Writes DIR/grades.csv, DIR/summary.md,\n"
    "DIR/summary.svg and DIR/<id>/{results.json,feedback.md,staff.md} (feedback.md\n"
    "for the student: hidden tests only as a count; staff.md for you). Every folder\n"
    "gets a row, its name in the 'name' column: status 'missing' (no " ASG_SOURCE "),\n"
    "'skipped' (its name does not match --id-regex) or 'rejected' (a link, no\n"
    "regular file, over 1 MiB: never read), the reason in the 'note' column.\n"
    "An id is the name when it is plain (A-Z a-z 0-9 . _ -), else a readable part,\n"
    "'~' and 12 hex digits of the name's SHA-256 (docs/TA.md).\n"
    "Manual points: fill in DIR/manual.csv (written on the first run) and rerun;\n"
    "every run, resumed or --force, adds them to grades.csv.\n"
    "  --spec FILE   a spec to grade with (repeatable; default " CLI_DEFAULT_SPEC ")\n"
    "  --jobs N      submissions graded at once, 1 to 256 (default: the CPUs it may use)\n"
    "  --test-jobs N the tests of one submission run N at a time, 1 to 16 (default:\n"
    "                1 with --jobs above 1, else the CPUs it may use, at most 4)\n"
    "  --out DIR     where the gradebook goes (default: " DEFAULT_OUT ")\n"
    "  --id-regex P  the id is made from group 'id' of P matched on the name\n"
    "  --shard K/N   grade only the ids whose FNV-1a hash modulo N is K-1\n"
    "  --force       regrade submissions that are already up to date\n"
    "  --no-cache    compile every submission and run every test (by default\n"
    "                DIR/<id>/compile.o is kept and a regrade reuses it while the\n"
    "                source, compiler, flags, header, source rules and grader are\n"
    "                the same; DIR/<id>/verdicts.kept too, while the tests would run\n"
    "                exactly as before: only points changed)\n"
    "  --seed N      the seed of the generated cases (default 1; recorded per row)\n"
    "  --similarity  also compare every pair (grader similar): DIR/similarity.csv and\n"
    "                a section of DIR/summary.md\n"
    "  --help        this text\n";

static const char merge_usage[] =
    "usage: grader merge --out DIR DIR...\n"
    "Combine the output directories of sharded batches into one gradebook.\n"
    "  --out DIR     the combined gradebook (may be one of the inputs)\n"
    "  --help        this text\n";

/* The one piece of state a signal handler may touch: the signal seen. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

struct batch_args {
    struct cli_common c;
    struct bat_opts o;
    const char *id_regex;
    unsigned shard_k, shard_n;
    char **dirs;
    size_t n_dirs;
    int similarity;
};

struct progress {
    int tty;
    double t0;
    size_t graded;     /* not skipped */
    size_t reused;     /* graded with a kept object: no compile */
    size_t kept;       /* graded with kept verdicts: no test ran */
    size_t current;    /* up to date: not graded again */
    int line_open;     /* a TTY progress line is on screen */
};

/* --shard K/N (batch.h says what it accepts and why not). */
static int take_shard(void *value, const char *arg, struct err *e)
{
    struct batch_args *a = value;

    return bat_shard_parse(arg, &a->shard_k, &a->shard_n, e);
}

static int parse_args(struct batch_args *a, int argc, char **argv)
{
    const struct cli_option opts[] = {
        CLI_OPT_SPECS(&a->c),
        CLI_OPT_COUNT("jobs", &a->o.jobs, 256, NULL),
        CLI_OPT_TEST_JOBS(&a->o.test_jobs),
        CLI_OPT_STRING("out", &a->o.out_dir),
        CLI_OPT_STRING("id-regex", &a->id_regex),
        CLI_OPT_CALL("shard", a, take_shard, 1, NULL),
        CLI_OPT_FLAG("force", &a->o.force),
        CLI_OPT_SEED(&a->c),
        CLI_OPT_HELP,
        CLI_OPT_FLAG("similarity", &a->similarity),
        CLI_OPT_FLAG("no-cache", &a->o.no_cache),
        CLI_OPT_END(NULL),
    };
    int first, rc;

    memset(a, 0, sizeof *a);
    a->c.seed = 1;
    a->o.out_dir = DEFAULT_OUT;
    if ((rc = cli_parse_options(argc, argv, opts, batch_usage, &first)) != 0)
        return rc;
    if (first >= argc)
        return cli_usage("expected at least one SUBMISSIONS directory", batch_usage);
    a->dirs = argv + first;
    a->n_dirs = (size_t)(argc - first);
    return 0;
}

/* ---- progress ---- */

static void end_line(struct progress *p)
{
    if (p->line_open)
        fputs("\r\033[K", stderr);
    p->line_open = 0;
}

/* The library shows names through bat_show already; a note is shown
 * again so that nothing printed here can hold a control character. */
static void on_note(void *ctx, const char *msg)
{
    char shown[BAT_PATH_MAX + 512];

    end_line(ctx);
    bat_show(msg, shown, sizeof shown);
    fprintf(stderr, "grader: %s\n", shown);
}

static void tty_line(struct progress *p, const struct bat_event *ev, const char *id)
{
    double t = (ut_now_ms() / 1e3) - p->t0, rate = t > 0 ? (double)p->graded / t : 0;
    double eta = rate > 0 ? (double)(ev->total - ev->done) / rate : 0;

    fprintf(stderr, "\r\033[K[%zu/%zu] %.2f/s  eta %d:%02d  not ok %zu  (%s)", ev->done,
            ev->total, rate, (int)eta / 60, (int)eta % 60, ev->failures, id);
    p->line_open = 1;
}

/* One line per entry whatever its fate; every text in it shown safe
 * (ids are safe by construction, reasons may quote a student's file). */
static void on_event(void *ctx, const struct bat_event *ev)
{
    struct progress *p = ctx;
    char id[BAT_ID_MAX * 4 + 8], why[BAT_MSG_MAX * 4 + 8];

    bat_show(ev->id, id, sizeof id);
    bat_show(ev->why ? ev->why : "", why, sizeof why);
    p->graded += !ev->skipped;
    p->current += ev->skipped && strcmp(ev->status, "up to date") == 0;
    p->reused += ev->object_reused != 0;
    p->kept += ev->verdicts_reused != 0;
    if (p->tty) {
        if (ev->why != NULL) {
            end_line(p);
            fprintf(stderr, "grader: '%s': %s: %s\n", id, ev->status, why);
        }
        tty_line(p, ev, id);
    } else if (ev->skipped && ev->why != NULL) {
        fprintf(stderr, "[%zu/%zu] %s: %s: %s\n", ev->done, ev->total, id, ev->status, why);
    } else if (ev->skipped) {
        fprintf(stderr, "[%zu/%zu] %s: up to date (%g/%g)\n", ev->done, ev->total, id,
                ev->score, ev->max_score);
    } else {
        fprintf(stderr, "[%zu/%zu] %s: %s %g/%g (%.1f s)%s%s\n", ev->done, ev->total, id,
                ev->status, ev->score, ev->max_score, ev->elapsed_ms / 1e3,
                ev->why ? ": " : "", why);
    }
}

/* ---- batch ---- */

static void install_handlers(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: sleeps end early */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int discover(struct batch_args *a, struct bat_list *l, struct progress *p,
                    struct err *e)
{
    struct bat_idre *re = NULL;
    int rc;

    char stage[BAT_PATH_MAX];

    if (a->id_regex != NULL && (re = bat_idre_new(a->id_regex, e)) == NULL)
        return -1;
    /* Canvas's flattened files are regrouped in the gradebook's own hidden
     * folder (no id starts with '.'), so a rerun finds them again */
    if (bat_path_join(a->o.out_dir, CANVAS_STAGE, stage, sizeof stage) < 0 ||
        (mkdir(a->o.out_dir, 0755) < 0 && errno != EEXIST)) {
        bat_idre_free(re);
        return err_set(e, NULL, 0, 0, "cannot create '%s': %s", a->o.out_dir,
                       strerror(errno));
    }
    rc = bat_discover_lms((const char *const *)a->dirs, a->n_dirs, re, stage, l, on_note, p, e);
    bat_idre_free(re);
    if (rc == 0 && a->shard_n > 0)
        bat_list_shard(l, a->shard_k, a->shard_n);
    return rc;
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static size_t count_absent(const struct bat_list *l, const char *status)
{
    size_t k = 0;

    for (size_t i = 0; i < l->n; i++)
        k += l->v[i].absent && strcmp(l->v[i].absent, status) == 0;
    return k;
}

/* "grader: 3 submissions graded, 1 missing (no attention.c): out/grades.csv, ..."
 * ("0 graded, 11 up to date" on a rerun; with "2 with their kept object,
 * not compiled" and "2 with their kept verdicts, no test run" when a
 * regrade reused) */
static void done_line(const struct bat_list *l, const char *out, const struct progress *p)
{
    size_t missing = count_absent(l, "missing"), skipped = count_absent(l, "skipped");
    size_t rejected = count_absent(l, "rejected"), graded = l->n - missing - skipped - rejected;
    size_t reused = p->reused, kept = p->kept;
    char csv[BAT_PATH_MAX], md[BAT_PATH_MAX], shown[2][BAT_PATH_MAX];

    graded = p->current <= graded ? graded - p->current : 0;
    if (p->current > 0)
        fprintf(stderr, "grader: %zu graded, %zu up to date", graded, p->current);
    else
        fprintf(stderr, "grader: %zu %s graded", graded,
                plural(graded, "submission", "submissions"));
    if (missing)
        fprintf(stderr, ", %zu missing (no " ASG_SOURCE ")", missing);
    if (skipped)
        fprintf(stderr, ", %zu skipped (not matching --id-regex)", skipped);
    if (rejected)
        fprintf(stderr, ", %zu rejected unread (a link or no regular file)", rejected);
    if (reused)
        fprintf(stderr, ", %zu with %s kept object, not compiled", reused,
                plural(reused, "its", "their"));
    if (kept)
        fprintf(stderr, ", %zu with %s kept verdicts, no test run", kept,
                plural(kept, "its", "their"));
    bat_path_join(out, "grades.csv", csv, sizeof csv);
    bat_path_join(out, "summary.md", md, sizeof md);
    bat_show(csv, shown[0], sizeof shown[0]);
    bat_show(md, shown[1], sizeof shown[1]);
    fprintf(stderr, ": %s, %s\n", shown[0], shown[1]);
}

/* A warning when the specs' total is not the max_score of the gradebook
 * already in `out` (a point value changed, on purpose or not: Canvas's
 * "Points Possible" and every percentage follow it). Nothing when there
 * is no earlier gradebook or it cannot be read. */
static void warn_total_change(const char *out, const struct spec_set *s, struct progress *p)
{
    char path[BAT_PATH_MAX], shown[BAT_PATH_MAX];
    double total = 0, before;
    struct gbx_table t;
    struct sb sb;
    int col;

    for (size_t i = 0; i < spec_test_count(s); i++)
        total += spec_test_at(s, i)->points;
    if (bat_path_join(out, "grades.csv", path, sizeof path) < 0)
        return;
    sb_init(&sb, 64u << 20);
    if (sb_read_file(&sb, path, 0) != SB_READ_OK ||
        gbx_csv_parse(sb_str(&sb), sb.len, path, &t, NULL) < 0) {
        sb_release(&sb);
        return;
    }
    sb_release(&sb);
    col = gbx_col(&t, "max_score");
    if (col >= 0 && t.n_rows > 1) {
        before = strtod(t.cells[t.n_cols + (size_t)col], NULL);
        if (before > 0 && (total - before > 1e-9 || before - total > 1e-9)) {
            end_line(p);
            bat_show(path, shown, sizeof shown);
            fprintf(stderr, "grader: warning: the specs total %g points, the gradebook of "
                            "the previous run (%s) %g: a point value changed (max_score, "
                            "Canvas's Points Possible and every percentage follow it)\n",
                    total, shown, before);
        }
    }
    gbx_table_free(&t);
}

static int run_batch(struct batch_args *a, struct spec_set *s, struct err *e)
{
    struct progress p = {isatty(STDERR_FILENO), (ut_now_ms() / 1e3), 0, 0, 0, 0, 0};
    struct bat_list l = {NULL, 0, 0};
    struct orc o;
    int rc = discover(a, &l, &p, e), gradebook;

    /* the diagnosis data (staff) or golden data, loaded once for every
     * worker: feedback.md and staff.md carry the diagnosis lines */
    if (rc == 0 && (rc = cli_open_oracle(&a->c, s, &o, e)) == 0)
        a->o.orc = &o;

    a->o.specs = s;
    a->o.data_dir = a->c.data_dir;
    a->o.version = GRADER_VERSION;
    a->o.seed = a->c.seed;
    a->o.on_event = on_event;
    a->o.ctx = &p;
    a->o.stop = &stop_signal;
    if (rc == 0) {
        warn_total_change(a->o.out_dir, s, &p);
        install_handlers();
        rc = bat_run(&l, &a->o, e);
    }
    /* the gradebook is written whatever the page and the similarity do */
    gradebook = rc == 0 || rc == BAT_NO_PAGE;
    if (gradebook && a->similarity) {
        struct err se;
        int s_rc;

        err_clear(&se);
        /* it writes the page again: its outcome is the page's */
        if ((s_rc = cmd_batch_similarity(&l, a->o.out_dir, &se)) != 0 || rc == BAT_NO_PAGE)
            rc = s_rc, *e = se;
    }
    end_line(&p);
    if (gradebook)
        done_line(&l, a->o.out_dir, &p);
    if (a->o.orc)
        cli_close_oracle(a->o.orc);
    a->o.orc = NULL;
    bat_list_release(&l);
    return rc;
}

int cmd_batch(int argc, char **argv)
{
    struct batch_args a;
    struct spec_set *s = NULL;
    struct err e;
    int rc = parse_args(&a, argc, argv);

    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    err_clear(&e);
    a.c.submissions = 1;
    if ((s = cli_prepare(&a.c)) == NULL)
        return CLI_EXIT_USAGE;
    rc = run_batch(&a, s, &e);
    spec_set_free(s);
    if (rc == BAT_NO_PAGE)
        return cli_no_page(a.o.out_dir, &e);
    if (rc < 0)
        return cli_fail(&e);
    if (rc > 0) {
        fprintf(stderr, "grader: interrupted: finished submissions are kept; "
                        "rerun the same command to resume\n");
        return 128 + (stop_signal ? (int)stop_signal : SIGINT);
    }
    return CLI_EXIT_OK;
}

/* ---- merge ---- */

int cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    const struct cli_option opts[] = {
        CLI_OPT_STRING("out", &out),
        CLI_OPT_HELP,
        CLI_OPT_END(NULL),
    };
    struct err e;
    int first, rc = cli_parse_options(argc, argv, opts, merge_usage, &first);

    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (out == NULL || first >= argc)
        return cli_usage("merge needs --out DIR and at least one input DIR", merge_usage);
    err_clear(&e);
    rc = bat_merge(out, (const char *const *)(argv + first), (size_t)(argc - first), &e);
    if (rc == BAT_NO_PAGE)
        return cli_no_page(out, &e);
    if (rc < 0)
        return cli_fail(&e);
    fprintf(stderr, "grader: merged %d %s into %s/grades.csv\n", argc - first,
            argc - first == 1 ? "directory" : "directories", out);
    return CLI_EXIT_OK;
}
