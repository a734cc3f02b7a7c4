/* cmd_audit.c -- `grader audit`: the mutation score of the specs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "cli/cli.h"
#include "core/util.h"

static const char usage[] =
    "usage: grader audit [--spec FILE]... [--jobs N] [--format text|json|markdown]\n"
    "                    [--mutators FILE] [--equivalent FILE] [--function NAME]\n"
    "                    [--list] [--seed N] [--matrix]\n"
    "                    [SOURCE]\n"
    "Grade every mutant of SOURCE (default reference/attention.c) with the specs and\n"
    "report the mutation score: killed / (killed + survived), each survivor with its\n"
    "file:line, diff and function, the likely equivalent ones, and the cost.\n"
    "--mutators FILE: the operators (default specs/mutators.txt beside the first spec)\n"
    "--equivalent FILE: the kept list of equivalent mutants (default\n"
    "specs/equivalent.txt beside the first spec, when it exists)\n"
    "--jobs N: mutants graded at once, 1 to 16 (default: the CPUs it may use)\n"
    "--function NAME: only the mutants of that function of SOURCE\n"
    "--list: print the mutants and grade nothing\n"
    "--matrix: grade each killed mutant through every test (slower) and list, per\n"
    "spec case, the mutants only that case kills (deleting it lets them survive)\n"
    "and the cases that kill nothing alone\n"
    "Exit status: 0 every mutant killed, invalid or a listed equivalent; 1 a mutant\n"
    "survived or an equivalent one is not in the kept list; 2 an error.\n";

struct audit_args {
    struct cli_common c;
    int format, list, matrix;
    unsigned jobs;
    const char *mutators, *equivalent, *source, *function;
    char mut_path[CLI_PATH_MAX], eq_path[CLI_PATH_MAX];
};

/* The file `name` in the directory of the first spec (or specs/). */
static void beside_spec(const struct audit_args *a, const char *name, char *buf, size_t n)
{
    const char *spec = a->c.n_specs ? a->c.specs[0] : CLI_DEFAULT_SPEC;
    const char *slash = strrchr(spec, '/');

    if (slash)
        snprintf(buf, n, "%.*s/%s", (int)(slash - spec), spec, name);
    else
        snprintf(buf, n, "%s", name);
}

static int parse_args(struct audit_args *a, int argc, char **argv)
{
    const struct cli_option opts[] = {
        CLI_OPT_SPECS(&a->c),
        CLI_OPT_COUNT("jobs", &a->jobs, 16, NULL),
        CLI_OPT_ENUM("format", &a->format, aud_format_parse,
                     "unknown --format (text, json, markdown)"),
        CLI_OPT_STRING("mutators", &a->mutators),
        CLI_OPT_STRING("equivalent", &a->equivalent),
        CLI_OPT_STRING("function", &a->function),
        CLI_OPT_FLAG("list", &a->list),
        CLI_OPT_SEED(&a->c),
        CLI_OPT_FLAG("matrix", &a->matrix),
        CLI_OPT_HELP,
        CLI_OPT_END(NULL),
    };
    int first, rc;

    memset(a, 0, sizeof *a);
    a->c.seed = 1;
    a->source = "reference/attention.c";
    if ((rc = cli_parse_options(argc, argv, opts, usage, &first)) != 0)
        return rc;
    if (first < argc - 1)
        return cli_usage("expected at most one SOURCE", usage);
    if (first == argc - 1)
        a->source = argv[first];
    if (a->mutators == NULL) {
        beside_spec(a, "mutators.txt", a->mut_path, sizeof a->mut_path);
        a->mutators = a->mut_path;
    }
    if (a->equivalent == NULL) {
        FILE *f;
        beside_spec(a, "equivalent.txt", a->eq_path, sizeof a->eq_path);
        if ((f = fopen(a->eq_path, "r")) != NULL) {
            fclose(f);
            a->equivalent = a->eq_path;
        }
    }
    if (a->jobs == 0) {
        long n = ut_usable_cpus();
        a->jobs = n < 1 ? 1 : n > 16 ? 16 : (unsigned)n;
    }
    return 0;
}

static int list_mutants(const struct audit_args *a, const struct mut_ops *ops)
{
    struct err e;
    size_t n = 0, shown = 0, len = 0;
    struct mut_mutant *m = NULL;
    struct sb sb;
    char *src;

    /* at most 1 MiB less one byte of SOURCE (a longer one is listed from its
     * start, as before) */
    sb_init(&sb, 0);
    err_clear(&e);
    if (sb_read_file(&sb, a->source, ((size_t)1 << 20) - 1) < 0) {
        sb_release(&sb);
        err_set(&e, a->source, 0, 0, "cannot read '%s'", a->source);
        return cli_fail(&e);
    }
    src = sb_detach(&sb, &len);
    if (src == NULL || mut_generate(ops, src, len, &m, &n, &e) < 0) {
        free(src);
        if (src == NULL)
            err_set(&e, NULL, 0, 0, "out of memory");
        return cli_fail(&e);
    }
    for (size_t i = 0; i < n; i++) {
        if (a->function && strcmp(m[i].function, a->function) != 0)
            continue;
        char before[AUD_LINE_MAX], after[AUD_LINE_MAX];
        mut_diff(&m[i], src, len, before, after, sizeof before);
        printf("%s:%d:%d: %s [%s]: %s  ==>  %s\n", a->source, m[i].line, m[i].col,
               m[i].function, m[i].op, before, after);
        shown++;
    }
    printf("%zu mutants\n", shown);
    free(m);
    free(src);
    return CLI_EXIT_OK;
}

/* Survivors as they are found, and a count every 50 mutants, on stderr. */
static void progress(void *ctx, size_t done, size_t total, const struct aud_mutant *m)
{
    (void)ctx;
    if (m->cls == AUD_SURVIVED || m->cls == AUD_EQUIVALENT)
        fprintf(stderr, "audit: %s at line %d in %s(): %s  ==>  %s\n",
                m->cls == AUD_SURVIVED ? "survived" : "likely equivalent", m->m.line,
                m->m.function, m->before, m->after);
    if (done % 50 == 0 || done == total)
        fprintf(stderr, "audit: %zu of %zu mutants graded\n", done, total);
}

static int run(const struct audit_args *a, const struct spec_set *s, const struct mut_ops *ops)
{
    struct aud_opts o;
    struct aud_result *r = NULL;
    struct err e;
    struct sb sb;
    int rc;

    memset(&o, 0, sizeof o);
    o.specs = s;
    o.source = a->source;
    o.ops = ops;
    o.equivalents = a->equivalent;
    o.data_dir = a->c.data_dir;
    o.jobs = a->jobs;
    o.seed = a->c.seed;
    o.function = a->function;
    o.matrix = a->matrix;
    o.progress = progress;
    err_clear(&e);
    if (aud_run(&o, &r, &e) < 0)
        return cli_fail(&e);
    sb_init(&sb, 0);
    if (aud_write(r, (enum aud_format)a->format, &sb) < 0) {
        rc = err_set(&e, NULL, 0, 0, "out of memory"), cli_fail(&e);
    } else {
        fwrite(sb_str(&sb), 1, sb.len, stdout);
        rc = r->survived || r->unlisted ? CLI_EXIT_NOT_PASSED : CLI_EXIT_OK;
    }
    sb_release(&sb);
    aud_result_free(r);
    return rc;
}

int cmd_audit(int argc, char **argv)
{
    struct audit_args a;
    struct spec_set *s;
    struct mut_ops *ops;
    struct err e;
    int rc = parse_args(&a, argc, argv);

    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    err_clear(&e);
    if (!GRADER_STAFF) {
        err_set(&e, NULL, 0, 0, "an audit needs the staff build (the reference)");
        return cli_fail(&e);
    }
    if ((ops = mut_ops_load(a.mutators, &e)) == NULL)
        return cli_fail(&e);
    if (a.list) {
        rc = list_mutants(&a, ops);
        mut_ops_free(ops);
        return rc;
    }
    if ((s = cli_prepare(&a.c)) == NULL) {
        mut_ops_free(ops);
        return CLI_EXIT_USAGE;
    }
    rc = run(&a, s, ops);
    spec_set_free(s);
    mut_ops_free(ops);
    return rc;
}
