/* cli.c -- see cli.h. */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/batch.h"
#include "build/jail.h"
#include "core/compat.h"
#include "grade/grade_props.h"
#include "oracle/golden.h"
#include "oracle/oracle.h"
#include "props/prop.h"
#include "sandbox/sbx.h"

/* Whether dir holds the grader's data (its runner object, at least). */
static int holds_data(const char *dir)
{
    char path[CLI_PATH_MAX + 64];
    int w = snprintf(path, sizeof path, "%s/runner_main.o", dir);

    return w > 0 && (size_t)w < sizeof path && access(path, R_OK) == 0;
}

static int take_dir(const char *dir, char *buf, size_t n)
{
    return snprintf(buf, n, "%s", dir) < (int)n ? 0 : -1;
}

int cli_find_data_dir(char *buf, size_t n, struct err *e)
{
    char exe[CLI_PATH_MAX], cand[CLI_PATH_MAX + 32];
    char *slash;

    if (cpt_exe_path(exe, sizeof exe) < 0)
        return err_set(e, NULL, 0, 0, "cannot find the grader's own path: %s",
                       strerror(errno));
    if ((slash = strrchr(exe, '/')) == NULL)
        return err_set(e, NULL, 0, 0, "cannot find the grader's own directory");
    *slash = '\0';
    /* The build tree keeps the data beside the binary; `make install`
     * puts it in PREFIX/share, found from PREFIX/bin wherever DESTDIR
     * staged it. */
    if (holds_data(exe))
        return take_dir(exe, buf, n);
    snprintf(cand, sizeof cand, "%s/../share/attention-grader", exe);
    if (holds_data(cand) && realpath(cand, exe) != NULL)
        return take_dir(exe, buf, n);
    return err_set(e, NULL, 0, 0, "cannot find the grader's data (runner_main.o) beside "
                   "'%s' or in '%s'", exe, cand);
}

struct spec_set *cli_load_specs(const struct cli_common *c, struct err *e)
{
    struct spec_set *s = spec_set_new();
    char def[CLI_PATH_MAX + 32];

    if (s == NULL) {
        err_set(e, NULL, 0, 0, "out of memory");
        return NULL;
    }
    if (c->n_specs == 0) {
        /* specs/public.yaml of the current directory (the project or the
         * student's template), else the one beside the grader's build. */
        snprintf(def, sizeof def, "%s", CLI_DEFAULT_SPEC);
        if (access(def, R_OK) != 0)
            snprintf(def, sizeof def, "%s/%s", c->data_dir, CLI_DEFAULT_SPEC);
        if (access(def, R_OK) != 0)
            snprintf(def, sizeof def, "%s/../%s", c->data_dir, CLI_DEFAULT_SPEC);
        if (spec_load(s, def, gprop_check_case, e) < 0)
            goto fail;
    }
    for (size_t i = 0; i < c->n_specs; i++)
        if (spec_load(s, c->specs[i], gprop_check_case, e) < 0)
            goto fail;
    if (spec_test_count(s) > 0)
        return s;
    err_set(e, NULL, 0, 0, "the specs hold no tests");
fail:
    spec_set_free(s);
    return NULL;
}

int cli_parse_count(const char *s, unsigned max, unsigned *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < 1 || (unsigned long)v > max)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int cli_parse_seed(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    if (s[0] == '-' || s[0] == '\0')
        return -1;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int cli_fail(const struct err *e)
{
    char buf[ERR_MSG_MAX + ERR_FILE_MAX + 32];

    fprintf(stderr, "grader: %s\n", err_format(e, buf, sizeof buf));
    return CLI_EXIT_USAGE;
}

int cli_no_page(const char *out_dir, const struct err *e)
{
    char buf[ERR_MSG_MAX + ERR_FILE_MAX + 32], shown[4 * CLI_PATH_MAX + 8];

    bat_show(out_dir, shown, sizeof shown);
    fprintf(stderr, "grader: report.html not written: %s\n"
                    "grader: the gradebook is written all the same: %s/grades.csv, "
                    "summary.md and summary.svg\n", err_format(e, buf, sizeof buf), shown);
    return CLI_EXIT_USAGE;
}

int cli_usage(const char *msg, const char *usage)
{
    if (msg != NULL)
        fprintf(stderr, "grader: %s\n", msg);
    fputs(usage, stderr);
    return CLI_EXIT_USAGE;
}

/* The tests of s a student may not see (hidden, or until the due date). */
static size_t hidden_tests(const struct spec_set *s)
{
    size_t n = 0;

    for (size_t i = 0; i < spec_test_count(s); i++)
        n += spec_test_at(s, i)->visibility != SPEC_VISIBLE;
    return n;
}

/*
 * Whether the toolchain's file jail can be set up, with why not in `why`.
 * GRADER_TEST_NO_LANDLOCK (set and not empty) makes it say no, for the
 * tests of that refusal (cli::no_landlock_no_hidden_spec): it only adds a
 * refusal or a warning; the jail itself still uses Landlock wherever the
 * kernel has it (build/jail.c never reads the variable), so it cannot
 * make the grader less strict.
 */
static int have_file_jail(char *why, size_t n)
{
    const char *sim = getenv("GRADER_TEST_NO_LANDLOCK");

    if (sim != NULL && sim[0] != '\0') {
        snprintf(why, n, "Landlock is treated as missing (GRADER_TEST_NO_LANDLOCK is set)");
        return 0;
    }
    return jail_probe(why, n) != 0;
}

struct spec_set *cli_prepare(struct cli_common *c)
{
    struct spec_set *s = NULL;
    char why[128];
    struct err e;
    size_t hidden;

    err_clear(&e);
    if (cli_find_data_dir(c->data_dir, sizeof c->data_dir, &e) < 0 ||
        (s = cli_load_specs(c, &e)) == NULL) {
        cli_fail(&e);
        return NULL;
    }
    if (!sbx_has_seccomp())
        fprintf(stderr, "grader: warning: no seccomp on this system; the sandbox is reduced\n");
    /* Issue 35: without the file jail a submission's compile can read any
     * file of the grader's (a token-pasted .incbin of the hidden spec) and
     * its functions print it into the feedback. A public-only grade (a
     * student's make check) goes on with the warning; one with hidden
     * tests is refused, since no fallback jail is proven here. */
    if (!have_file_jail(why, sizeof why)) {
        if (c->submissions && (hidden = hidden_tests(s)) > 0) {
            fprintf(stderr, "grader: the grader could not grade: %s, so a submission's compile "
                    "could read the spec's %zu hidden tests into its feedback; grade where "
                    "Landlock is enabled (Linux 5.13+, `lsm=...,landlock` on the kernel "
                    "command line) or with the public spec only\n", why, hidden);
            spec_set_free(s);
            return NULL;
        }
        fprintf(stderr, "grader: warning: %s; the compiler runs without its file jail "
                "(clean environment and limits only)\n", why);
    }
    jail_cleanup_install();
    return s;
}

/* Whether the store was made for the first k spec files loaded, for some
 * k. The specs after them (the written part beside the public tests, whose
 * claims are recomputed with the student's own functions) take no value
 * from it, or one whose inputs it recorded: a computation it lacks is
 * ORC_MISSING and its test fails saying so (oracle.h), never a guess. */
static int golden_covers(const struct gold *g, const struct spec_set *s)
{
    for (size_t k = 1; k <= spec_file_count(s); k++)
        if (strcmp(gold_spec_sha256(g), spec_sha256_upto(s, k)) == 0)
            return 1;
    return 0;
}

/* The student build: the golden data beside the first spec, checked. */
static int open_golden(const struct cli_common *c, const struct spec_set *s, struct orc *o,
                       struct err *e)
{
    const char *spec = spec_test_at(s, 0)->file;
    char path[CLI_PATH_MAX];

    if (gold_path_for(spec, path, sizeof path) < 0)
        return err_set(e, spec, 0, 0, "the student build needs golden data beside a "
                       ".yaml spec");
    if ((o->store = gold_load(path, e)) == NULL)
        return -1;
    o->mode = ORC_REPLAY;
    if (!golden_covers(o->store, s))
        return err_set(e, path, 0, 0, "made for another spec (sha256 %.12s, the first "
                       "spec loaded is %.12s): the expected values would be stale; use "
                       "the template's own specs/public.yaml, as the first --spec",
                       gold_spec_sha256(o->store), spec_sha256_upto(s, 1));
    if (gold_seed(o->store) != c->seed)
        return err_set(e, path, 0, 0, "holds the expected values for seed %llu only; "
                       "--seed %llu needs the course's grader",
                       (unsigned long long)gold_seed(o->store), (unsigned long long)c->seed);
    return 0;
}

/* The staff build: the catalogue's variants for the diagnosis, if built. */
static int open_diag(const struct cli_common *c, struct orc *o, struct err *e)
{
    char path[CLI_PATH_MAX + 16];

    snprintf(path, sizeof path, "%s/diag.golden", c->data_dir);
    o->mode = ORC_COMPUTE;
    if (access(path, R_OK) != 0)
        return 0;
    if ((o->store = gold_load(path, e)) == NULL)
        return -1;
    if (gold_seed(o->store) != c->seed) { /* its outputs are for other inputs */
        gold_free(o->store);
        o->store = NULL;
    }
    return 0;
}

int cli_open_oracle(const struct cli_common *c, const struct spec_set *s, struct orc *o,
                    struct err *e)
{
    int rc;

    memset(o, 0, sizeof *o);
    rc = orc_can_compute() ? open_diag(c, o, e) : open_golden(c, s, o, e);
    if (rc < 0)
        cli_close_oracle(o);
    return rc;
}

static void *load_oracle(void *arg)
{
    struct cli_oracle_load *l = arg;

    err_clear(&l->e);
    l->rc = cli_open_oracle(l->c, l->s, l->o, &l->e);
    return NULL;
}

int cli_open_oracle_start(struct cli_oracle_load *l, const struct cli_common *c,
                          const struct spec_set *s, struct orc *o, struct err *e)
{
    memset(l, 0, sizeof *l);
    memset(o, 0, sizeof *o);
    l->c = c, l->s = s, l->o = o;
    if (orc_can_compute()) { /* read when a diagnosis needs it */
        l->deferred = 1;
        return 0;
    }
    if (pthread_create(&l->thread, NULL, load_oracle, l) != 0)
        return err_set(e, NULL, 0, 0, "cannot start a thread");
    l->started = 1;
    return 0;
}

int cli_open_oracle_wait(struct cli_oracle_load *l, struct err *e)
{
    if (l->started && !l->joined) {
        pthread_join(l->thread, NULL);
        l->joined = 1;
    }
    if (l->rc < 0 && e != NULL)
        *e = l->e;
    return l->rc;
}

int cli_open_oracle_need(struct cli_oracle_load *l, struct err *e)
{
    if (cli_open_oracle_wait(l, e) < 0 || !l->deferred)
        return l->rc;
    l->deferred = 0;
    err_clear(&l->e);
    if ((l->rc = cli_open_oracle(l->c, l->s, l->o, &l->e)) < 0 && e != NULL)
        *e = l->e;
    return l->rc;
}

void cli_close_oracle(struct orc *o)
{
    gold_free(o->store);
    memset(o, 0, sizeof *o);
}
