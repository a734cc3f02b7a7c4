/*
 * cmd_similar.c -- `grader similar` (similarity across a class) and the
 * `grader batch --similarity` step (similarity.csv and a section of
 * summary.md). The CLI half of similar/similar.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assign/assign.h"
#include "batch/batch.h"
#include "cli/cli.h"
#include "core/scratch.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "similar/similar.h"

#define MAX_PATHS 64
#define SUMMARY_ROWS 20

static const char similar_usage[] =
    "usage: grader similar [--base FILE]... [--archive DIR]... [--threshold P]\n"
    "                      [--format text|csv|json] [--id-regex PCRE2] CLASS_DIR...\n"
    "Compare every pair of submissions of the class (found as `grader batch` finds\n"
    "them: a folder holding " ASG_SOURCE ", or a .c file) by their token structure,\n"
    "and list the pairs that share at least P of either file, best first, with the\n"
    "matched line ranges of both files, longest first.\n"
    "  --base FILE     code everyone was given (repeatable): never counted as shared\n"
    "                  (default: student_template/" ASG_SOURCE ", student_template/\n"
    "                  " ASG_HEADER " and specs/similarity_base.c, from the current\n"
    "                  directory or beside the grader)\n"
    "  --archive DIR   earlier submissions (repeatable): compared with the class,\n"
    "                  not with each other; shown as DIRNAME/ID\n"
    "  --threshold P   the share that reports a pair, 0 to 1 or a percentage\n"
    "                  (default 0.5)\n"
    "  --format F      text (default), csv (the columns of similarity.csv) or json\n"
    "  --id-regex P    the ids of the class as `grader batch --id-regex P` makes them\n"
    "                  (group 'id' of P on the entry's name; Canvas's flattened files\n"
    "                  regrouped per student as the batch does)\n"
    "  --help          this text\n"
    "A high share is a reason to look at both files, not a verdict (docs/TA.md).\n";

static const char *const default_base[] = {
    "student_template/" ASG_SOURCE, "student_template/" ASG_HEADER,
    "specs/similarity_base.c",
};

struct similar_args {
    const char *base[MAX_PATHS], *archive[MAX_PATHS];
    size_t n_base, n_archive;
    struct sim_opts o;
    enum sim_format format;
    const char *id_regex;
    char **dirs;
    size_t n_dirs;
};

/* The CPUs this process may use, at most SIM_MAX_THREADS. */
static unsigned threads(void)
{
    long n = ut_usable_cpus();

    return n > SIM_MAX_THREADS ? SIM_MAX_THREADS : (unsigned)n;
}

/* "0.4", "40%" or "40": a share from 0 to 1. 0 or -1. */
static int parse_threshold(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);

    if (end == s || (*end != '\0' && strcmp(end, "%") != 0) || !(v >= 0.0))
        return -1;
    if (*end == '%' || v > 1.0)
        v /= 100.0;
    if (v > 1.0)
        return -1;
    *out = v;
    return 0;
}

static int take_threshold(void *value, const char *arg, struct err *e)
{
    (void)e;
    return parse_threshold(arg, value);
}

static int take_format(void *value, const char *arg, struct err *e)
{
    (void)e;
    return sim_format_parse(arg, value);
}

static int parse_args(struct similar_args *a, int argc, char **argv)
{
    const struct cli_option opts[] = {
        CLI_OPT_LIST("base", a->base, &a->n_base, MAX_PATHS, "too many --base options"),
        CLI_OPT_LIST("archive", a->archive, &a->n_archive, MAX_PATHS,
                     "too many --archive options"),
        CLI_OPT_CALL("threshold", &a->o.threshold, take_threshold, 1,
                     "--threshold takes a share from 0 to 1 (or 0% to 100%)"),
        CLI_OPT_CALL("format", &a->format, take_format, 1, "--format takes text, csv or json"),
        CLI_OPT_STRING("id-regex", &a->id_regex),
        CLI_OPT_HELP,
        CLI_OPT_END(NULL),
    };
    int first, rc;

    memset(a, 0, sizeof *a);
    a->o.threshold = SIM_DEFAULT_THRESHOLD;
    a->o.threads = threads();
    if ((rc = cli_parse_options(argc, argv, opts, similar_usage, &first)) != 0)
        return rc;
    if (first >= argc)
        return cli_usage("expected a CLASS_DIR", similar_usage);
    a->dirs = argv + first;
    a->n_dirs = (size_t)(argc - first);
    return 0;
}

static void on_note(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "grader: %s\n", msg);
}

/* The default base files that exist: in the current directory, else
 * beside the grader's build. A missing one is said once. */
static int add_default_base(struct sim_class *c, struct err *e)
{
    char dir[CLI_PATH_MAX], path[CLI_PATH_MAX + 64];

    if (cli_find_data_dir(dir, sizeof dir, e) < 0)
        return -1;
    for (size_t i = 0; i < sizeof default_base / sizeof default_base[0]; i++) {
        snprintf(path, sizeof path, "%s", default_base[i]);
        if (access(path, R_OK) != 0)
            snprintf(path, sizeof path, "%s/../%s", dir, default_base[i]);
        if (access(path, R_OK) != 0)
            fprintf(stderr, "grader: warning: no base file '%s': its code counts as shared\n",
                    default_base[i]);
        else if (sim_add_file(c, NULL, path, 0, e) < 0)
            return -1;
    }
    return 0;
}

static const char *base_name(const char *dir, char *buf, size_t n)
{
    size_t len = strlen(dir);
    const char *slash;

    while (len > 1 && dir[len - 1] == '/')
        len--;
    snprintf(buf, n, "%.*s", (int)len, dir);
    slash = strrchr(buf, '/');
    return slash != NULL && slash[1] != '\0' ? slash + 1 : buf;
}

/* The submissions of `l` (not the absent ones), ids prefixed by
 * `prefix` when not NULL. A file that cannot be read is said and left out. */
static int add_entries(struct sim_class *c, const struct bat_list *l, const char *prefix,
                       int archive, struct err *e)
{
    char id[BAT_ID_MAX + CLI_PATH_MAX];
    struct err why;

    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].absent != NULL)
            continue;
        snprintf(id, sizeof id, "%s%s%s", prefix ? prefix : "", prefix ? "/" : "",
                 l->v[i].id);
        err_clear(&why);
        if (sim_add_file(c, id, l->v[i].source, archive, &why) == 0)
            continue;
        if (strcmp(why.msg, "out of memory") == 0 || strncmp(why.msg, "more than", 9) == 0)
            return err_set(e, NULL, 0, 0, "%s", why.msg);
        fprintf(stderr, "grader: '%s' left out: %s\n", l->v[i].source, why.msg);
    }
    return 0;
}

/* Discover the submissions of `dirs` as batch does and add them: for the
 * class (`stage` not NULL), with the batch's --id-regex `re` and Canvas's
 * files regrouped in `stage`, so that the ids are the gradebook's. */
static int add_dirs(struct sim_class *c, const char *const *dirs, size_t n, int archive,
                    const struct bat_idre *re, const char *stage, struct err *e)
{
    for (size_t i = 0; i < n; i++) {
        struct bat_list l = {NULL, 0, 0};
        char name[CLI_PATH_MAX];
        int rc = bat_discover_lms(&dirs[i], 1, re, stage, &l, on_note, NULL, e);
        if (rc == 0)
            rc = add_entries(c, &l, archive ? base_name(dirs[i], name, sizeof name) : NULL,
                             archive, e);
        bat_list_release(&l);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int add_bases(struct sim_class *c, const struct similar_args *a, struct err *e)
{
    if (a->n_base == 0)
        return add_default_base(c, e);
    for (size_t i = 0; i < a->n_base; i++)
        if (sim_add_file(c, NULL, a->base[i], 0, e) < 0)
            return -1;
    return 0;
}

static int run(const struct similar_args *a, struct err *e)
{
    struct sim_class *c = sim_class_new(&a->o);
    struct sim_report r = {NULL, 0, 0, 0, 0};
    struct bat_idre *re = NULL;
    char scratch[CLI_PATH_MAX] = "", stage[CLI_PATH_MAX + 16];
    const char *tmp = getenv("TMPDIR");
    struct sb out;
    int rc;

    if (c == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = add_bases(c, a, e);
    if (rc == 0 && a->id_regex != NULL && (re = bat_idre_new(a->id_regex, e)) == NULL)
        rc = -1;
    /* Canvas's files are regrouped in a scratch folder of ours (removed
     * below; a killed run's is swept by the next) */
    if (rc == 0)
        rc = scr_make(tmp && *tmp ? tmp : "/tmp", "attn-batch-", scratch, sizeof scratch, e);
    snprintf(stage, sizeof stage, "%s/canvas", rc == 0 ? scratch : "");
    if (rc == 0)
        rc = add_dirs(c, (const char *const *)a->dirs, a->n_dirs, 0, re, stage, e);
    if (rc == 0)
        rc = add_dirs(c, a->archive, a->n_archive, 1, NULL, NULL, e);
    if (scratch[0] != '\0')
        scr_remove(scratch);
    bat_idre_free(re);
    if (rc == 0)
        rc = sim_compare(c, &r, e);
    sb_init(&out, 0);
    if (rc == 0 && (rc = sim_format_report(&r, a->format, &out)) < 0)
        err_set(e, NULL, 0, 0, "the report is larger than the output buffer");
    if (rc == 0)
        fwrite(sb_str(&out), 1, out.len, stdout);
    sb_release(&out);
    sim_report_release(&r);
    sim_class_free(c);
    return rc;
}

int cmd_similar(int argc, char **argv)
{
    struct similar_args a;
    struct err e;
    int rc = parse_args(&a, argc, argv);

    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    err_clear(&e);
    if (run(&a, &e) < 0)
        return cli_fail(&e);
    return CLI_EXIT_OK;
}

/* ---- grader batch --similarity ---- */

/* summary.md with the section appended, written atomically. */
static int append_summary(const char *out_dir, const struct sim_report *r,
                          struct err *e)
{
    char path[CLI_PATH_MAX + 32];
    struct sb sb;
    int rc = 0;

    snprintf(path, sizeof path, "%s/summary.md", out_dir);
    sb_init(&sb, 0);
    if (sb_read_file(&sb, path, 0) == SB_READ_CAP)
        rc = -1;
    if (rc == 0)
        rc = sim_format_summary(r, SUMMARY_ROWS, &sb);
    if (rc < 0)
        err_set(e, path, 0, 0, "too large to rewrite");
    else
        rc = bat_write_atomic(path, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    return rc;
}

static int write_csv(const char *out_dir, const struct sim_report *r, struct err *e)
{
    char path[CLI_PATH_MAX + 32];
    struct sb sb;
    int rc;

    snprintf(path, sizeof path, "%s/similarity.csv", out_dir);
    sb_init(&sb, 0);
    if ((rc = sim_format_report(r, SIM_CSV, &sb)) < 0)
        err_set(e, path, 0, 0, "too large to write");
    else
        rc = bat_write_atomic(path, sb_str(&sb), sb.len, e);
    sb_release(&sb);
    return rc;
}

/* Whether `id` is one side of a pair of r. */
static int in_a_pair(const struct sim_report *r, const char *id)
{
    for (size_t k = 0; k < r->n; k++)
        if (strcmp(r->pairs[k].id_a, id) == 0 || strcmp(r->pairs[k].id_b, id) == 0)
            return 1;
    return 0;
}

/* Keep a copy of every paired submission's source as <out>/<id>/source.c,
 * so that report.html can show each pair side by side (its regions are
 * line ranges of these files). Entries were checked by bat_discover (a
 * regular file under its size limit); a source that cannot be read is
 * left out, and the page says so. */
static int keep_sources(const struct bat_list *l, const struct sim_report *r,
                        const char *out_dir, struct err *e)
{
    char path[CLI_PATH_MAX + BAT_ID_MAX + 32];

    for (size_t i = 0; i < l->n; i++) {
        struct sb sb;
        int rc = 0;

        if (l->v[i].absent != NULL || !in_a_pair(r, l->v[i].id))
            continue;
        sb_init(&sb, BAT_SOURCE_MAX + 1);
        if (sb_read_file(&sb, l->v[i].source, 0) == SB_READ_OPEN)
            continue;
        snprintf(path, sizeof path, "%s/%s/source.c", out_dir, l->v[i].id);
        if (!sb.truncated)
            rc = bat_write_atomic(path, sb_str(&sb), sb.len, e);
        sb_release(&sb);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int cmd_batch_similarity(const struct bat_list *l, const char *out_dir, struct err *e)
{
    struct sim_opts o = {0, 0, SIM_DEFAULT_THRESHOLD, threads()};
    struct sim_class *c = sim_class_new(&o);
    struct sim_report r = {NULL, 0, 0, 0, 0};
    int rc;

    if (c == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = add_default_base(c, e);
    if (rc == 0)
        rc = add_entries(c, l, NULL, 0, e);
    if (rc == 0)
        rc = sim_compare(c, &r, e);
    if (rc == 0)
        rc = write_csv(out_dir, &r, e);
    if (rc == 0)
        rc = keep_sources(l, &r, out_dir, e);
    if (rc == 0)   /* report.html again, now with the pairs (as `grader report`) */
        rc = bat_merge(out_dir, &out_dir, 1, e);
    if (rc == 0 || rc == BAT_NO_PAGE) {   /* summary.md waits for no page */
        struct err se;

        err_clear(&se);
        if (append_summary(out_dir, &r, &se) < 0)
            rc = -1, *e = se;
    }
    if (rc == 0 || rc == BAT_NO_PAGE)
        fprintf(stderr, "grader: similarity: %zu %s at %d%% or more: %s/similarity.csv\n",
                r.n, r.n == 1 ? "pair" : "pairs", (int)(o.threshold * 100 + 0.5), out_dir);
    sim_report_release(&r);
    sim_class_free(c);
    return rc;
}
