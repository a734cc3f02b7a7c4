/*
 * main.c -- the grader's entry point: dispatch to a command.
 *
 *   grader grade ...    grade one submission (cmd_grade.c)
 *   grader batch|merge  a whole class (cmd_batch.c)
 *   grader report       a gradebook's report.html again (cmd_report.c)
 *   grader export       grades.csv for Canvas, Moodle or Excel (cmd_export.c)
 *   grader list ...     list the tests of the specs (cmd_list.c)
 *   grader map|saturation|permute|vectors   self-check tools (cmd_selfcheck.c)
 *   grader golden ...   the golden data of a spec (cmd_golden.c)
 *   grader similar ...  similarity across a class (cmd_similar.c)
 *   grader audit ...    the mutation score of the specs (cmd_audit.c)
 *   grader version | --version       grader help [CMD] | -h | --help
 *
 * Exit status: 0 done; 1 `--require-pass` and a test did not pass; 2 a
 * usage, spec or environment error, with one line on stderr.
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
};

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("attention-grader %s (API %d, %s build)\n", GRADER_VERSION, 1,
           GRADER_STAFF ? "staff" : "student");
    return CLI_EXIT_OK;
}

static const struct command commands[] = {
    {"grade", cmd_grade},
    {"batch", cmd_batch},
    {"merge", cmd_merge},
    {"report", cmd_report},
    {"export", cmd_export},
    {"list", cmd_list},
    {"map", cmd_map},
    {"saturation", cmd_saturation},
    {"permute", cmd_permute},
    {"vectors", cmd_vectors},
    {"golden", cmd_golden},
    {"similar", cmd_similar},
    {"audit", cmd_audit},
    {"version", cmd_version},
};

static const char usage[] =
    "usage: grader <command> [options]\n"
    "commands:\n"
    "  grade       grade one submission and print its rubric\n"
    "  batch       grade a whole class in parallel into a gradebook\n"
    "  merge       combine the outputs of sharded batches\n"
    "  report      write a gradebook's report.html again, without grading\n"
    "  export      grades.csv as Canvas's or Moodle's import, or for Excel\n"
    "  list        list the tests of the specs\n"
    "  map         the attention map of a text, computed with a submission\n"
    "  saturation  mean max softmax weight against d, with and without 1/sqrt(d)\n"
    "  permute     permute the words: does the output only permute?\n"
    "  vectors     the hash-seeded vectors of a text's words, as a VECTORS file\n"
    "  similar     pairs of submissions that share code (copies through renames)\n"
    "  golden      record the golden data of a spec (staff build; make template)\n"
    "  audit       the mutation score of the specs: what mutants of the reference survive\n"
    "  version     print the grader's version (also --version)\n"
    "  help        this list, or 'grader help CMD': a command's options\n"
    "Run 'grader <command> --help' for a command's options.\n";

/* `grader help CMD` is `grader CMD --help`. */
static int help(int argc, char **argv)
{
    char opt[] = "--help";
    char *args[] = {argc > 1 ? argv[1] : NULL, opt, NULL};

    if (argc < 2) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(2, args);
    return cli_usage("unknown command", usage);
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C");
    if (argc < 2)
        return cli_usage("missing command", usage);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    if (strcmp(argv[1], "--version") == 0)
        return cmd_version(argc - 1, argv + 1);
    if (strcmp(argv[1], "help") == 0)
        return help(argc - 1, argv + 1);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    return cli_usage("unknown command", usage);
}
