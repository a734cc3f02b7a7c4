/* cmd_report.c -- `grader report OUT_DIR`: the class report again. */
#include <stdio.h>
#include <string.h>

#include "batch/batch.h"
#include "cli/cli.h"

static const char report_usage[] =
    "usage: grader report OUT_DIR\n"
    "Write OUT_DIR/report.html again (and grades.csv, summary.md, summary.svg) from\n"
    "the rows of a gradebook that `grader batch` made, without grading anything:\n"
    "after a merge by hand, a new similarity.csv, or a newer grader's report.\n"
    "  --help        this text\n";

int cmd_report(int argc, char **argv)
{
    const char *dirs[1];
    struct err e;
    int rc;

    if (argc == 2 && strcmp(argv[1], "--help") == 0)
        return fputs(report_usage, stdout), CLI_EXIT_OK;
    if (argc != 2 || argv[1][0] == '-')
        return cli_usage("report needs one gradebook folder", report_usage);
    dirs[0] = argv[1];
    err_clear(&e);
    rc = bat_merge(argv[1], dirs, 1, &e);
    if (rc == BAT_NO_PAGE)
        return cli_no_page(argv[1], &e);
    if (rc < 0)
        return cli_fail(&e);
    fprintf(stderr, "grader: wrote %s/report.html\n", argv[1]);
    return CLI_EXIT_OK;
}
