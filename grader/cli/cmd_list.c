/* cmd_list.c -- `grader list`: the tests of the specs, one per line. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "spec/spec.h"

static const char usage[] = "usage: grader list [--spec FILE]...\n";

static const char *visibility_name(enum spec_visibility v)
{
    return v == SPEC_HIDDEN ? "hidden" : v == SPEC_AFTER_DUE_DATE ? "after_due_date" : "visible";
}

static void print_tests(const struct spec_set *s)
{
    double total = 0;

    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        printf("%-40s %5g  %-14s %zu case%s  %s\n", t->id, t->points,
               visibility_name(t->visibility), t->n_cases,
               t->n_cases == 1 ? " " : "s", t->title);
        total += t->points;
    }
    printf("%zu tests, %g points, spec sha256 %s\n", spec_test_count(s), total,
           spec_sha256(s));
}

int cmd_list(int argc, char **argv)
{
    struct cli_common c;
    /* more than CLI_MAX_SPECS prints the usage alone */
    const struct cli_option opts[] = {
        CLI_OPT_LIST("spec", c.specs, &c.n_specs, CLI_MAX_SPECS, NULL),
        CLI_OPT_HELP,
        CLI_OPT_END(NULL),
    };
    struct spec_set *s;
    struct err e;
    int first, rc;

    memset(&c, 0, sizeof c);
    err_clear(&e);
    if ((rc = cli_parse_options(argc, argv, opts, usage, &first)) != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (first != argc)
        return cli_usage("unexpected argument", usage);
    if (cli_find_data_dir(c.data_dir, sizeof c.data_dir, &e) < 0 ||
        (s = cli_load_specs(&c, &e)) == NULL)
        return cli_fail(&e);
    print_tests(s);
    spec_set_free(s);
    return CLI_EXIT_OK;
}
