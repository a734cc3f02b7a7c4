/*
 * cli_opt.h -- one option table per command (after Git's parse-options.h).
 *
 * A command describes its long options as an array of `struct cli_option`
 * built in the function that parses (the entries point into its own
 * arguments struct) and ends with CLI_OPT_END. The options every grading
 * command shares -- --spec, --seed, --test-jobs, --help -- are macros, so
 * that their parsing, their checks and their error messages exist once,
 * here and in cli_opt.c. The order of a table is the order getopt_long
 * knows the names in (its "ambiguous" message lists them so).
 *
 *     struct cli_option opts[] = {
 *         CLI_OPT_SPECS(&a->c),
 *         CLI_OPT_STRING("only", &a->c.only),
 *         CLI_OPT_SEED(&a->c),
 *         CLI_OPT_HELP,
 *         CLI_OPT_END(NULL),
 *     };
 *     int rc = cli_parse_options(argc, argv, opts, usage, &first);
 */
#ifndef GRD_CLI_OPT_H
#define GRD_CLI_OPT_H

#include <stddef.h>

#include "core/err.h"

/* What an entry takes and where it puts it (`value`). */
enum cli_opt_type {
    CLI_OPT_T_END,      /* the last entry */
    CLI_OPT_T_FLAG,     /* no argument: *(int *)value = 1 */
    CLI_OPT_T_STRING,   /* *(const char **)value = the argument (the last wins) */
    CLI_OPT_T_LIST,     /* appended to (const char **)value, *count of them, at
                           most max; one more prints msg */
    CLI_OPT_T_SEED,     /* *(uint64_t *)value: a decimal that fits 64 bits */
    CLI_OPT_T_COUNT,    /* *(unsigned *)value: a whole number from 1 to max */
    CLI_OPT_T_ENUM,     /* *(int *)value = to_int(argument), refused when < 0 */
    CLI_OPT_T_CALL,     /* call(value, argument or NULL, e): 0, or -1 */
    CLI_OPT_T_REFUSED,  /* a name this command knows but does not take: what
                           an unknown option prints (has_arg as it would) */
    CLI_OPT_T_HELP,     /* print the usage on stdout: the command is done */
};

struct cli_option {
    const char *name;             /* the long name, without "--" */
    enum cli_opt_type type;
    void *value;
    size_t *count;                /* CLI_OPT_T_LIST: entries so far */
    unsigned max;                 /* CLI_OPT_T_LIST: room; _COUNT: largest */
    /* What a bad value prints before the usage (NULL: the usage alone;
     * CLI_OPT_T_COUNT's default "--NAME takes a whole number from 1 to
     * MAX"). On CLI_OPT_END, what an unknown option prints. */
    const char *msg;
    int (*to_int)(const char *arg);                        /* _ENUM */
    int (*call)(void *value, const char *arg, struct err *e); /* _CALL */
    int has_arg;                  /* _CALL, _REFUSED: 1 when it takes an argument */
};

#define CLI_OPT_END(unknown_msg) {NULL, CLI_OPT_T_END, NULL, NULL, 0, (unknown_msg), NULL, NULL, 0}
#define CLI_OPT_HELP {"help", CLI_OPT_T_HELP, NULL, NULL, 0, NULL, NULL, NULL, 0}
#define CLI_OPT_FLAG(n, p) {(n), CLI_OPT_T_FLAG, (p), NULL, 0, NULL, NULL, NULL, 0}
#define CLI_OPT_STRING(n, p) {(n), CLI_OPT_T_STRING, (p), NULL, 0, NULL, NULL, NULL, 0}
#define CLI_OPT_LIST(n, v, cnt, room, m) {(n), CLI_OPT_T_LIST, (v), (cnt), (room), (m), NULL, NULL, 0}
#define CLI_OPT_COUNT(n, p, largest, m) {(n), CLI_OPT_T_COUNT, (p), NULL, (largest), (m), NULL, NULL, 0}
#define CLI_OPT_ENUM(n, p, fn, m) {(n), CLI_OPT_T_ENUM, (p), NULL, 0, (m), (fn), NULL, 0}
#define CLI_OPT_CALL(n, p, fn, arg, m) {(n), CLI_OPT_T_CALL, (p), NULL, 0, (m), NULL, (fn), (arg)}

/* The shared rows. c is a struct cli_common * (cli.h). */
#define CLI_OPT_SPECS(c) CLI_OPT_LIST("spec", (c)->specs, &(c)->n_specs, CLI_MAX_SPECS, \
                                      "too many --spec options")
#define CLI_OPT_SEED(c) {"seed", CLI_OPT_T_SEED, &(c)->seed, NULL, 0, \
                         "--seed takes a non-negative whole number", NULL, NULL, 0}
#define CLI_OPT_TEST_JOBS(p) CLI_OPT_COUNT("test-jobs", (p), GRADE_MAX_TEST_JOBS, NULL)

/* The most entries a table may have, CLI_OPT_END included. */
#define CLI_OPT_MAX 32

/* What cli_parse_options returns besides 0 and CLI_EXIT_USAGE. */
#define CLI_OPT_DONE (-1) /* --help printed the usage: exit 0 */

/*
 * Parse argv[1..argc) against `opts` (getopt_long, long options only,
 * operands permuted to the end as GNU does). Returns 0 with *first the
 * index of the first operand; CLI_OPT_DONE after --help printed `usage` on
 * stdout; or CLI_EXIT_USAGE after printing on stderr "grader: <msg>" (the
 * entry's, or the library's message for a CLI_OPT_T_CALL that set e) and
 * `usage`. The values of the options taken before an error are set.
 */
int cli_parse_options(int argc, char **argv, const struct cli_option *opts,
                      const char *usage, int *first);

#endif
