/* cmd_grade.c -- `grader grade`: grade one submission and print a rubric. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assign/assign.h"
#include "build/build.h"
#include "build/jail.h"
#include "cli/cli.h"
#include "grade/grade.h"
#include "sandbox/sbx.h"
#include "oracle/oracle.h"
#include "report/report.h"
#include "core/strbuf.h"

static const char usage[] =
    "usage: grader grade [--spec FILE]... [--only REGEX] [--seed N]\n"
    "                    [--format text|markdown|gradescope|classroom|junit|tap|github]\n"
    "                    [--require-pass] [--github-output] [--repro CMD]\n"
    "                    [--test-jobs N] [--verbose] [--stats] SUBMISSION\n"
    "--require-pass: exit 1 unless every test passed (a manual item a TA scores counts\n"
    "as passed here).\n"
    "SUBMISSION is an " ASG_SOURCE ", an " ASG_OBJECT ", or a directory holding " ASG_SOURCE ".\n"
    "A failure's \"reproduce:\" line is this command with --only for that case,\n"
    "or, with --repro CMD, CMD ONLY='...' (what `make check` passes: --repro 'make check').\n"
    "--test-jobs N: run the tests N at a time, 1 to 16 (default: the CPUs it may use,\n"
    "at most 4); the rubric is the same for every N.\n"
    "--verbose: a row for every passing test (the text and Markdown rubrics show the\n"
    "failures in full, then one line per function), and on stderr which limits the\n"
    "compiler and the runners got (the grader's, or the account's hard limit where\n"
    "that is lower).\n"
    "--stats: on stderr, after the grade, how many runner processes ran and their\n"
    "minor page faults (the kernel's count: the pages each touched after its fork).\n"
    "Exit status 2 with one line \"grader: the grader could not grade ...\" and no score:\n"
    "the grader's own trouble (a tool or runner it could not start, a stalled\n"
    "machine), never a verdict on the submission; grade it again.\n";

struct grade_args {
    struct cli_common c;
    int format;
    int require_pass;
    int github_output;
    int verbose;
    int stats;
    const char *repro;
    unsigned test_jobs;
    const char *submission;
    int argc;
    char **argv;
};

static int parse_args(struct grade_args *a, int argc, char **argv)
{
    const struct cli_option opts[] = {
        CLI_OPT_SPECS(&a->c),
        CLI_OPT_STRING("only", &a->c.only),
        CLI_OPT_ENUM("format", &a->format, rpt_format_parse,
                     "unknown --format (text, markdown, gradescope, classroom, junit, tap, github)"),
        CLI_OPT_SEED(&a->c),
        CLI_OPT_FLAG("require-pass", &a->require_pass),
        CLI_OPT_FLAG("github-output", &a->github_output),
        CLI_OPT_STRING("repro", &a->repro),
        CLI_OPT_TEST_JOBS(&a->test_jobs),
        CLI_OPT_FLAG("verbose", &a->verbose),
        CLI_OPT_FLAG("stats", &a->stats),
        CLI_OPT_HELP,
        CLI_OPT_END(NULL),
    };
    int first, rc;

    memset(a, 0, sizeof *a);
    a->format = RPT_TEXT;
    a->c.seed = 1;
    if ((rc = cli_parse_options(argc, argv, opts, usage, &first)) != 0)
        return rc;
    if (first != argc - 1)
        return cli_usage("expected exactly one SUBMISSION", usage);
    a->submission = argv[first];
    a->argc = argc;
    a->argv = argv;
    return 0;
}

/* Append `w` to sb as one shell word, after a space unless sb is empty:
 * as is when it holds only safe characters, else in single quotes (a
 * quote inside becomes '\''). */
static int add_word(struct sb *sb, const char *w)
{
    int bad = sb->len > 0 && sb->buf[sb->len - 1] != ' ' && sb_addch(sb, ' ');

    if (w[0] && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "0123456789_./:=+-@%,") == strlen(w))
        return bad || sb_adds(sb, w);
    bad = bad || sb_addch(sb, '\'');
    for (; *w && !bad; w++)
        bad = *w == '\'' ? sb_adds(sb, "'\\''") : sb_addch(sb, *w);
    return bad || sb_addch(sb, '\'');
}

/*
 * The repro line's two halves: with --repro CMD, "CMD ONLY=" and ""; else
 * this very command line without its --only, --repro, --format and --test-jobs
 * (a rerun is read by a person), "--only " before the pattern and the
 * submission after it. Returns 0, or -1 when out of memory.
 */
static int repro_parts(const struct grade_args *a, struct sb *pre, struct sb *post)
{
    int bad = 0;

    if (a->repro)
        return sb_adds(pre, a->repro) || sb_adds(pre, " ONLY=");
    /* main() passes argv + 1: argv[-1] is the program as it was invoked
     * (build/grader), argv[0] the command. */
    bad = add_word(pre, a->argv[-1]) || sb_adds(pre, " grade");
    for (int i = 1; i < a->argc - 1 && !bad; i++) {
        const char *w = a->argv[i];

        /* --test-jobs too: it changes the speed, never the rubric, which
         * must not differ by the lanes it was graded on */
        if (strcmp(w, "--github-output") == 0 || strcmp(w, "--") == 0 ||
            strcmp(w, "--verbose") == 0 ||
            strncmp(w, "--only=", 7) == 0 || strncmp(w, "--repro=", 8) == 0 ||
            strncmp(w, "--format=", 9) == 0 || strncmp(w, "--test-jobs=", 12) == 0)
            continue;
        if (strcmp(w, "--only") == 0 || strcmp(w, "--repro") == 0 ||
            strcmp(w, "--format") == 0 || strcmp(w, "--test-jobs") == 0)
            i++;   /* and its value */
        else
            bad = add_word(pre, w);
    }
    bad = bad || sb_adds(pre, " --only ");
    return bad || sb_addch(post, ' ') || sb_adds(post, a->submission[0] == '-' ? "-- " : "") ||
           add_word(post, a->submission);
}

/* --require-pass: every test passed, or is a manual item a TA scores
 * (make check-written must pass once the claims hold). */
static int all_passed(const struct grade_result *r)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (r->tests[i].status != TEST_PASSED && r->tests[i].status != TEST_MANUAL_PENDING)
            return 0;
    return r->status == GRADE_OK;
}

static int emit(const struct grade_args *a, const struct grade_result *r,
                struct err *e)
{
    struct sb sb;
    struct rpt_opts ro = {a->format == RPT_TEXT && rpt_want_color(STDOUT_FILENO), 0, 0, 0,
                          a->verbose};
    const char *gh = getenv("GITHUB_OUTPUT");
    int rc;

    sb_init(&sb, 0);
    rc = rpt_write(r, a->format, &ro, &sb, e);
    if (rc == 0)
        fwrite(sb_str(&sb), 1, sb.len, stdout);
    if (rc == 0 && a->github_output && a->format == RPT_CLASSROOM && gh && gh[0])
        rc = rpt_append_github_output(gh, "result", sb_str(&sb), e);
    sb_release(&sb);
    return rc;
}

/* The grader could not grade: one line that says so and why, exit 2 and
 * no score; with --format github an annotation too, so that the failed
 * job says the grader failed, not the submission. */
static int grader_error(const struct grade_args *a, const struct err *e)
{
    char buf[ERR_MSG_MAX + ERR_FILE_MAX + 32];

    err_format(e, buf, sizeof buf);
    if (a->format == RPT_GITHUB)
        printf("::error title=grader error::the grader could not grade this submission "
               "(no score; not a verdict on it): %s\n", buf);
    fprintf(stderr, "grader: the grader could not grade '%s' (no score): %s\n", a->submission,
            buf);
    return CLI_EXIT_USAGE;
}

/* --verbose: the limits the tools and the runners get on this machine. */
static void say_limits(void)
{
    char buf[512];
    struct sbx_config cfg;

    jail_describe(BLD_COMPILE_CPU_S, buf, sizeof buf);
    fprintf(stderr, "grader: compiler limits: %s\n", buf);
    memset(&cfg, 0, sizeof cfg);
    sbx_describe_limits(&cfg, buf, sizeof buf);
    fprintf(stderr, "grader: runner limits: %s\n", buf);
}

static int oracle_ready(void *ctx, struct err *e)
{
    return cli_open_oracle_wait(ctx, e);
}

static int oracle_needed(void *ctx, struct err *e)
{
    return cli_open_oracle_need(ctx, e);
}

int cmd_grade(int argc, char **argv)
{
    struct grade_args a;
    struct grade_opts o;
    struct grade_result *r = NULL;
    struct spec_set *s = NULL;
    struct orc orc;
    struct cli_oracle_load load;
    struct err e;
    struct sb pre, post;
    int rc = parse_args(&a, argc, argv);

    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    err_clear(&e);
    a.c.submissions = 1;
    if ((s = cli_prepare(&a.c)) == NULL)
        return CLI_EXIT_USAGE;
    /* the golden data is read while the submission compiles (the
     * diagnosis data when a failure needs it) */
    if (cli_open_oracle_start(&load, &a.c, s, &orc, &e) < 0 &&
        cli_open_oracle(&a.c, s, &orc, &e) < 0) {
        spec_set_free(s);
        return cli_fail(&e);
    }
    memset(&o, 0, sizeof o);
    o.specs = s;
    o.only = a.c.only;
    o.seed = a.c.seed;
    o.data_dir = a.c.data_dir;
    o.orc = &orc;
    o.lanes = a.test_jobs;
    o.before_tests = oracle_ready;
    o.before_ctx = &load;
    o.before_diag = oracle_needed;
    o.diag_ctx = &load;
    sb_init(&pre, 0);
    sb_init(&post, 0);
    if (repro_parts(&a, &pre, &post) < 0)
        rc = err_set(&e, NULL, 0, 0, "out of memory"), cli_fail(&e);
    else {
        o.repro_pre = sb_str(&pre);
        o.repro_post = sb_str(&post);
        /* a refused submission runs no test: the load is waited for here,
         * and bad golden data fails the command as it always did */
        if (a.verbose)
            say_limits();
        if (grade_check_use(a.submission, &o, &e) < 0)
            rc = cli_fail(&e);
        else if (grade_submission(a.submission, &o, &r, &e) < 0)
            rc = grader_error(&a, &e);
        else if (cli_open_oracle_wait(&load, &e) < 0 || emit(&a, r, &e) < 0)
            rc = cli_fail(&e);
        else
            rc = a.require_pass && !all_passed(r) ? CLI_EXIT_NOT_PASSED : CLI_EXIT_OK;
        if (r != NULL && a.stats)
            fprintf(stderr, "grader: %u runners, %ld minor faults, %.0f per runner\n",
                    r->runners, r->runner_minflt,
                    r->runners ? (double)r->runner_minflt / r->runners : 0.0);
    }
    sb_release(&pre);
    sb_release(&post);
    grade_result_free(r);
    (void)cli_open_oracle_wait(&load, NULL); /* on every path, before the close */
    cli_close_oracle(&orc);
    spec_set_free(s);
    return rc;
}
