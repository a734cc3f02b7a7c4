/* cli_opt.c -- see cli_opt.h. */
#include "cli/cli_opt.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"

/* getopt_long's code for entry i: above every character it may return. */
#define VAL_BASE 0x100

/* The getopt_long array of `opts`; -1 when the table is too long. */
static int to_getopt(const struct cli_option *opts, struct option *lo)
{
    size_t i;

    for (i = 0; opts[i].type != CLI_OPT_T_END; i++) {
        enum cli_opt_type t = opts[i].type;
        int arg = t == CLI_OPT_T_CALL || t == CLI_OPT_T_REFUSED
                      ? opts[i].has_arg : !(t == CLI_OPT_T_FLAG || t == CLI_OPT_T_HELP);

        if (i + 1 >= CLI_OPT_MAX)
            return -1;
        lo[i].name = opts[i].name;
        lo[i].has_arg = arg ? required_argument : no_argument;
        lo[i].flag = NULL;
        lo[i].val = VAL_BASE + (int)i;
    }
    lo[i].name = NULL, lo[i].has_arg = 0, lo[i].flag = NULL, lo[i].val = 0;
    return (int)i;
}

/* "grader: <msg>" (none when msg is NULL) and the usage: CLI_EXIT_USAGE. */
static int bad_value(const struct cli_option *o, const char *usage)
{
    char msg[128];

    if (o->type == CLI_OPT_T_COUNT && o->msg == NULL) {
        snprintf(msg, sizeof msg, "--%s takes a whole number from 1 to %u", o->name, o->max);
        return cli_usage(msg, usage);
    }
    return cli_usage(o->msg, usage);
}

static int take_list(const struct cli_option *o, const char *arg)
{
    if (*o->count == o->max)
        return -1;
    ((const char **)o->value)[(*o->count)++] = arg;
    return 0;
}

static int take_enum(const struct cli_option *o, const char *arg)
{
    int v = o->to_int(arg);

    *(int *)o->value = v;
    return v < 0 ? -1 : 0;
}

/* A CLI_OPT_T_CALL entry: its own message, or the library's when it set e. */
static int take_call(const struct cli_option *o, const char *arg, const char *usage)
{
    struct err e;

    err_clear(&e);
    if (o->call(o->value, arg, &e) == 0)
        return 0;
    return e.msg[0] ? cli_fail(&e) : bad_value(o, usage);
}

/* Take one option. Returns 0, CLI_OPT_DONE or CLI_EXIT_USAGE (printed). */
static int take(const struct cli_option *o, const char *arg, const char *usage,
                const char *unknown)
{
    int bad = 0;

    switch (o->type) {
    case CLI_OPT_T_FLAG: *(int *)o->value = 1; break;
    case CLI_OPT_T_STRING: *(const char **)o->value = arg; break;
    case CLI_OPT_T_LIST: bad = take_list(o, arg); break;
    case CLI_OPT_T_SEED: bad = cli_parse_seed(arg, (uint64_t *)o->value); break;
    case CLI_OPT_T_COUNT: bad = cli_parse_count(arg, o->max, (unsigned *)o->value); break;
    case CLI_OPT_T_ENUM: bad = take_enum(o, arg); break;
    case CLI_OPT_T_CALL: return take_call(o, arg, usage);
    case CLI_OPT_T_HELP: return fputs(usage, stdout), CLI_OPT_DONE;
    default: return cli_usage(unknown, usage);
    }
    return bad ? bad_value(o, usage) : 0;
}

int cli_parse_options(int argc, char **argv, const struct cli_option *opts,
                      const char *usage, int *first)
{
    struct option lo[CLI_OPT_MAX];
    int n = to_getopt(opts, lo), opt, rc;

    if (n < 0)
        return cli_usage("too many options in a command's table", usage);
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        /* '?': getopt_long said what it did not know or what lacked a value */
        if (opt < VAL_BASE || opt >= VAL_BASE + n)
            return cli_usage(opts[n].msg, usage);
        if ((rc = take(&opts[opt - VAL_BASE], optarg, usage, opts[n].msg)) != 0)
            return rc;
    }
    *first = optind;
    return 0;
}
