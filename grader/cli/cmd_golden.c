/*
 * cmd_golden.c -- `grader golden`: make the golden data of one spec (staff
 * build; `make template` runs it). It grades the reference and then every
 * catalogue submission given with the oracle recording (oracle/oracle.h),
 * so that every expected value any of those gradings needed -- the right
 * ones and the wrong variants a diagnosis compares with -- is kept; then
 * it records each buggy catalogue entry as a known variant
 * (grade/diag_record.h) and writes the store next to the spec
 * (oracle/golden.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/util.h"
#include "grade/grade.h"
#include "grade/diag_record.h"
#include "oracle/golden.h"
#include "oracle/oracle.h"

static const char usage[] =
    "usage: grader golden --spec FILE... [--seed N] [--jobs N] [--out FILE] [--progress]\n"
    "                     REFERENCE [CATALOGUE.c]...\n"
    "Grades REFERENCE and each catalogue submission with the specs, recording\n"
    "every expected value, and writes the golden data (default, for one spec:\n"
    "its name with .yaml replaced by .golden). Catalogue files whose header says\n"
    "'bug: none' only add expected values; the others are also recorded as\n"
    "known wrong variants for the diagnosis. --jobs N grades N at a time (the\n"
    "file is the same byte for byte). --progress prints a line every 10 s on\n"
    "stderr (submissions recorded, seconds spent). Staff build only.\n";

/* How far the workers are, in memory they all share (MAP_SHARED): the
 * submissions recorded, when the recording started and when the last
 * progress line was printed (ut_now_ms() times, whole ms). */
struct progress {
    unsigned done;
    long long t0, last;
};

#define PROGRESS_EVERY_MS 10000

struct golden_args {
    struct cli_common c;
    const char *out;
    char **subs;
    int n_subs;
    unsigned jobs;
    int progress;
    struct progress *p;   /* NULL without --progress */
};

static int parse_args(struct golden_args *a, int argc, char **argv)
{
    const struct cli_option opts[] = {
        CLI_OPT_SPECS(&a->c),
        CLI_OPT_SEED(&a->c),
        CLI_OPT_STRING("out", &a->out),
        CLI_OPT_FLAG("progress", &a->progress),
        CLI_OPT_COUNT("jobs", &a->jobs, 64, "--jobs takes a number from 1 to 64"),
        CLI_OPT_HELP,
        CLI_OPT_END(NULL),
    };
    int first, rc;

    memset(a, 0, sizeof *a);
    a->c.seed = 1;
    a->jobs = 1;
    if ((rc = cli_parse_options(argc, argv, opts, usage, &first)) != 0)
        return rc;
    if (a->c.n_specs == 0 || first >= argc)
        return cli_usage("expected --spec FILE and a REFERENCE", usage);
    a->subs = argv + first;
    a->n_subs = argc - first;
    return 0;
}

/* Grade one submission with the recording oracle; the result in *r. A
 * compile stopped by its time limit on a loaded machine is tried again
 * (the catalogue all compiles: a missing entry would change the data). */
static int grade_one(const struct golden_args *a, const struct spec_set *s,
                     struct orc *o, const char *sub, struct grade_result **r,
                     struct err *e)
{
    struct grade_opts go;
    int tries = 0;

    memset(&go, 0, sizeof go);
    go.specs = s;
    go.seed = a->c.seed;
    go.data_dir = a->c.data_dir;
    go.orc = o;
    /* Recording is not grading: a loaded machine must not cut it short
     * (a missed test would leave its expected values out). */
    go.budget_ms = 3600e3;
    while (1) {
        if (grade_submission(sub, &go, r, e) < 0)
            return -1;
        if ((*r)->status == GRADE_OK || ++tries == 5)
            break;
        grade_result_free(*r);
        *r = NULL;
        sleep(2);
    }
    if ((*r)->status != GRADE_OK)
        return err_set(e, sub, 0, 0, "did not grade (%s): %s", grade_status_name((*r)->status),
                       (*r)->status_detail ? (*r)->status_detail : "");
    return 0;
}

/* One more submission recorded: a progress line when PROGRESS_EVERY_MS
 * passed since the last one (whichever worker sees it first prints). */
static void progress_step(const struct golden_args *a)
{
    struct progress *p = a->p;
    long long now = (long long)ut_now_ms(), last;
    unsigned done;

    if (p == NULL)
        return;
    done = __atomic_add_fetch(&p->done, 1, __ATOMIC_SEQ_CST);
    last = __atomic_load_n(&p->last, __ATOMIC_SEQ_CST);
    if (now - last >= PROGRESS_EVERY_MS &&
        __atomic_compare_exchange_n(&p->last, &last, now, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
        fprintf(stderr, "golden: %u of %d submissions recorded (%lld s)\n", done, a->n_subs,
                (now - p->t0 + 500) / 1000);
}

/* Grade submissions k, k + step, ...; record the buggy ones as variants. */
static int record_some(const struct golden_args *a, const struct spec_set *s,
                       struct orc *o, int k, int step, struct err *e)
{
    for (int i = k; i < a->n_subs; i += step) {
        struct grade_result *r = NULL;
        int rc = grade_one(a, s, o, a->subs[i], &r, e);
        /* (The reference's own score does not matter here: the expected
         * values come from the trusted math, the gradings only walk every
         * path that asks for one.) */
        for (int tries = 0; rc == 0; tries++) {
            rc = i == 0 ? dgr_record_reference(o, s, a->c.seed, a->c.data_dir, a->subs[i], e)
                        : dgr_record_variant(o, s, a->c.seed, a->c.data_dir, a->subs[i], r, e);
            if (rc == 0 || tries == 4 || strstr(e->msg, "refused") == NULL)
                break;
            rc = 0; /* refused before anything was recorded: try again */
            sleep(2);
        }
        grade_result_free(r);
        if (rc < 0)
            return -1;
        progress_step(a);
    }
    return 0;
}

/* Worker k of n: record its share into `part`; exits the child. */
static void worker(const struct golden_args *a, const struct spec_set *s, int k, int n,
                   const char *part)
{
    struct orc o = {ORC_RECORD, gold_new()};
    struct err e;
    int rc;

    err_clear(&e);
    rc = o.store == NULL ? err_set(&e, NULL, 0, 0, "out of memory")
                         : record_some(a, s, &o, k, n, &e);
    if (rc == 0) {
        gold_set_origin(o.store, spec_sha256(s), a->c.seed);
        rc = gold_save(o.store, part, &e);
    }
    gold_free(o.store);
    _exit(rc == 0 ? 0 : cli_fail(&e));
}

/* Record everything into o->store with a->jobs workers (forked; each saves
 * its share to <out>.part<k>, merged here in worker order). */
static int record_all(const struct golden_args *a, const struct spec_set *s,
                      struct orc *o, const char *out, struct err *e)
{
    const int n = (int)a->jobs < a->n_subs ? (int)a->jobs : a->n_subs;
    char part[CLI_PATH_MAX + 32];
    int failed = 0;

    if (n <= 1)
        return record_some(a, s, o, 0, 1, e);
    fflush(NULL);
    for (int k = 0; k < n; k++) {
        pid_t pid = fork();
        snprintf(part, sizeof part, "%s.part%d", out, k);
        if (pid == 0)
            worker(a, s, k, n, part);
        failed |= pid < 0;
    }
    for (int k = 0; k < n; k++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed = 1;
    }
    for (int k = 0; k < n; k++) {
        struct gold *g;
        snprintf(part, sizeof part, "%s.part%d", out, k);
        g = failed ? NULL : gold_load(part, e);
        if (!failed && (g == NULL || gold_merge(o->store, g, e) < 0))
            failed = 1;
        gold_free(g);
        remove(part);
    }
    return failed ? (e->msg[0] ? -1 : err_set(e, NULL, 0, 0, "a golden worker failed")) : 0;
}

static int make_golden(const struct golden_args *a, const struct spec_set *s,
                       struct err *e)
{
    char out[CLI_PATH_MAX];
    struct orc o = {ORC_RECORD, gold_new()};
    int rc = -1;

    if (o.store == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    if (a->out == NULL && (a->c.n_specs != 1 || gold_path_for(a->c.specs[0], out, sizeof out) < 0))
        err_set(e, a->c.specs[0], 0, 0, "give --out (one .yaml spec has a default)");
    else if (record_all(a, s, &o, a->out ? a->out : out, e) == 0) {
        gold_set_origin(o.store, spec_sha256(s), a->c.seed);
        rc = gold_save(o.store, a->out ? a->out : out, e);
    }
    if (rc == 0)
        fprintf(stderr, "golden: %zu expected values, %zu variants -> %s\n",
                gold_count(o.store), gold_variant_count(o.store), a->out ? a->out : out);
    gold_free(o.store);
    return rc;
}

int cmd_golden(int argc, char **argv)
{
    struct golden_args a;
    struct spec_set *s;
    struct err e;
    int rc = parse_args(&a, argc, argv);

    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (!orc_can_compute()) {
        fprintf(stderr, "grader: golden needs the staff build (this one has no "
                        "trusted math to record)\n");
        return CLI_EXIT_USAGE;
    }
    err_clear(&e);
    if ((s = cli_prepare(&a.c)) == NULL)
        return CLI_EXIT_USAGE;
    if (a.progress) {
        /* shared with the forked workers; without it, no progress lines */
        void *m = mmap(NULL, sizeof *a.p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                       -1, 0);
        if (m != MAP_FAILED) {
            a.p = m;
            a.p->done = 0;
            a.p->t0 = a.p->last = (long long)ut_now_ms();
        }
    }
    rc = make_golden(&a, s, &e) < 0 ? cli_fail(&e) : CLI_EXIT_OK;
    if (a.p != NULL)
        munmap(a.p, sizeof *a.p);
    spec_set_free(s);
    return rc;
}
