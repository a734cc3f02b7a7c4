/* cmd_audit.c -- `grader audit`: the mutation score of the specs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign/assign.h"
#include "audit/audit.h"
#include "cli/cli.h"
#include "core/util.h"

static const char usage[] =
    "usage: grader audit [--spec FILE]... [--jobs N] [--format text|json|markdown]\n"
    "                    [--mutators FILE] [--equivalent FILE] [--function NAME]\n"
    "                    [--list] [--seed N] [--matrix] [--every-function]\n"
    "                    [SOURCE]...\n"
    "Grade every mutant of SOURCE (default reference/" ASG_SOURCE ") with the specs and\n"
    "report the mutation score: killed / (killed + survived), each survivor with its\n"
    "file:line, diff and function, the likely equivalent ones, and the cost.\n"
    "Several SOURCEs are audited in one run, one after another, each mutant judged\n"
    "against its own source; a last table gives the survivors per source. A function\n"
    "a later SOURCE defines word for word as the first does is not mutated again\n"
    "(its mutants are the first's; the report names it); --every-function mutates it.\n"
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
    int format, list, matrix, every_function;
    unsigned jobs;
    const char *mutators, *equivalent, *source, *function;
    char *const *sources;       /* argv's SOURCEs (n_sources >= 1) */
    size_t n_sources;
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
        CLI_OPT_FLAG("every-function", &a->every_function),
        CLI_OPT_HELP,
        CLI_OPT_END(NULL),
    };
    int first, rc;

    memset(a, 0, sizeof *a);
    a->c.seed = 1;
    a->source = "reference/" ASG_SOURCE;
    if ((rc = cli_parse_options(argc, argv, opts, usage, &first)) != 0)
        return rc;
    if (first < argc) {
        a->sources = argv + first;
        a->n_sources = (size_t)(argc - first);
    } else {
        a->sources = (char *const *)&a->source;
        a->n_sources = 1;
    }
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

/* What a run of several sources says of each, for the last table. */
struct audit_total {
    char source[256];
    size_t n, killed, survived, equivalent, unlisted, invalid;
    double wall_ms, cpu_ms;
};

static int run(const struct audit_args *a, const struct spec_set *s, const struct mut_ops *ops,
               const char *same_as, struct audit_total *tot)
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
    o.same_as = same_as;
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
        snprintf(tot->source, sizeof tot->source, "%s", a->source);
        tot->n = r->n, tot->killed = r->killed, tot->survived = r->survived;
        tot->equivalent = r->equivalent, tot->unlisted = r->unlisted;
        tot->invalid = r->invalid, tot->wall_ms = r->wall_ms, tot->cpu_ms = r->cpu_ms;
    }
    sb_release(&sb);
    aud_result_free(r);
    return rc;
}

/* Every SOURCE in turn (each judged against itself), then, for more than
 * one, a table of each one's survivors: 1 when any survived or has an
 * unlisted equivalent, 2 on the first error. */
static int run_all(struct audit_args *a, const struct spec_set *s, const struct mut_ops *ops)
{
    struct audit_total *tot = calloc(a->n_sources, sizeof *tot);
    struct audit_total sum = {"all", 0, 0, 0, 0, 0, 0, 0, 0};
    int rc = CLI_EXIT_OK;
    struct err e;

    if (tot == NULL) {
        err_clear(&e);
        err_set(&e, NULL, 0, 0, "out of memory");
        return cli_fail(&e);
    }
    for (size_t i = 0; i < a->n_sources; i++) {
        int one;
        a->source = a->sources[i];
        if (a->n_sources > 1)
            printf("%s== %s ==\n", i ? "\n" : "", a->source);
        fflush(stdout);
        one = run(a, s, ops, i && !a->every_function ? a->sources[0] : NULL, &tot[i]);
        if (one != CLI_EXIT_OK && one != CLI_EXIT_NOT_PASSED) {
            free(tot);
            return one;
        }
        if (one == CLI_EXIT_NOT_PASSED)
            rc = one;
    }
    if (a->n_sources > 1 && a->format == AUD_TEXT) {
        printf("\nsurvivors per source (each judged against its own outputs):\n");
        printf("  %-44s %7s %7s %8s %10s %8s %8s\n", "source", "mutants", "killed",
               "survived", "equivalent", "unlisted", "invalid");
        for (size_t i = 0; i <= a->n_sources; i++) {
            const struct audit_total *t = i < a->n_sources ? &tot[i] : &sum;
            if (i < a->n_sources) {
                sum.n += t->n, sum.killed += t->killed, sum.survived += t->survived;
                sum.equivalent += t->equivalent, sum.unlisted += t->unlisted;
                sum.invalid += t->invalid, sum.wall_ms += t->wall_ms, sum.cpu_ms += t->cpu_ms;
            }
            printf("  %-44s %7zu %7zu %8zu %10zu %8zu %8zu\n", t->source, t->n, t->killed,
                   t->survived, t->equivalent, t->unlisted, t->invalid);
        }
        printf("cost: %.0f s wall clock, %.0f s CPU, for %zu sources\n", sum.wall_ms / 1000,
               sum.cpu_ms / 1000, a->n_sources);
    }
    free(tot);
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
        for (size_t i = 0; i < a.n_sources && rc == 0; i++) {
            a.source = a.sources[i];
            rc = list_mutants(&a, ops);
        }
        mut_ops_free(ops);
        return rc;
    }
    if ((s = cli_prepare(&a.c)) == NULL) {
        mut_ops_free(ops);
        return CLI_EXIT_USAGE;
    }
    rc = run_all(&a, s, ops);
    spec_set_free(s);
    mut_ops_free(ops);
    return rc;
}
