/*
 * cli.h -- what the grader's commands share: where the grader's data lives,
 * loading the specs named on the command line, and reporting errors. The
 * CLI layer (main.c, cmd_*.c) is the only code that prints or exits.
 */
#ifndef GRD_CLI_H
#define GRD_CLI_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli_opt.h"
#include "core/err.h"
#include "spec/spec.h"

/* Recorded in gradebooks: a regrade with another version is not skipped. */
#define GRADER_VERSION "1.0.0"

#define CLI_EXIT_OK 0
#define CLI_EXIT_NOT_PASSED 1 /* --require-pass and a test did not pass */
#define CLI_EXIT_USAGE 2      /* usage, spec or environment error */
#define CLI_MAX_SPECS 16
#define CLI_PATH_MAX 4096
#define CLI_DEFAULT_SPEC "specs/public.yaml"

/* The options every grading command takes. */
struct cli_common {
    const char *specs[CLI_MAX_SPECS];
    size_t n_specs;
    const char *only;
    uint64_t seed;
    char data_dir[CLI_PATH_MAX]; /* the directory holding the grader */
    int submissions;             /* grades students' files (grade, batch):
                                    hidden tests need the toolchain's jail
                                    (cli_prepare) */
};

/*
 * Find the grader's data directory: the one that holds runner_main.o,
 * include/attention.h, diag.golden and (installed) specs/. That is the
 * executable's own directory in a build tree, else PREFIX/share/
 * attention-grader beside the PREFIX/bin it runs from (`make install`,
 * DESTDIR or not). The executable is found without /proc where there is
 * none (core/compat.h).
 * Returns 0, or -1 with e set.
 */
int cli_find_data_dir(char *buf, size_t n, struct err *e);

/*
 * Load every spec in c (or, when none was given, specs/public.yaml of the
 * current directory, else <data_dir>/specs/public.yaml (installed), else
 * <data_dir>/../specs/public.yaml (a build tree)) into a new set. Returns
 * the set, or NULL with e set.
 */
struct spec_set *cli_load_specs(const struct cli_common *c, struct err *e);

/*
 * What every grading command does first: find the data directory, load
 * the specs of c, and warn on stderr when the sandbox has no seccomp.
 * Returns the set (the caller frees it), or NULL after printing the error
 * (exit with CLI_EXIT_USAGE).
 */
struct spec_set *cli_prepare(struct cli_common *c);

struct orc;

/*
 * Where a grading command's expected values come from (oracle/oracle.h).
 * The student build replays the golden data beside the spec (specs/
 * public.golden next to specs/public.yaml) and refuses data made for
 * another spec or seed. The staff build computes; it also loads
 * <data_dir>/diag.golden when present (the catalogue's variants, made by
 * `make diag-data`) so that its rubrics diagnose too. Returns 0 with *o
 * set (release it with cli_close_oracle), or -1 with e set.
 */
int cli_open_oracle(const struct cli_common *c, const struct spec_set *s, struct orc *o,
                    struct err *e);
void cli_close_oracle(struct orc *o);

/*
 * The same, started early and finished when needed. The student build
 * replays, so its tests need the golden data: it is read in a thread of
 * its own, overlapping the submission's compile. The staff build's tests
 * compute; only a diagnosis reads diag.golden (megabytes: its read, hash
 * and parse cost a correct submission's grade a sixth of its CPU), so it
 * is read only when cli_open_oracle_need is first called.
 * cli_open_oracle_start returns at once (0, or -1 with e set when no
 * thread could start: then call cli_open_oracle). cli_open_oracle_wait
 * waits for the thread and returns what cli_open_oracle would have (the
 * error in e); in the staff build it reads nothing and returns 0 until
 * the data was needed. cli_open_oracle_need waits, then reads deferred
 * data once, and returns what cli_open_oracle would have. Call wait at
 * least once before *o is closed; calling either again returns the same.
 */
struct cli_oracle_load {
    const struct cli_common *c;
    const struct spec_set *s;
    struct orc *o;
    pthread_t thread;
    int started, joined, deferred, rc;
    struct err e;
};
int cli_open_oracle_start(struct cli_oracle_load *l, const struct cli_common *c,
                          const struct spec_set *s, struct orc *o, struct err *e);
int cli_open_oracle_wait(struct cli_oracle_load *l, struct err *e);
int cli_open_oracle_need(struct cli_oracle_load *l, struct err *e);

/* Parse a seed: a decimal number that fits 64 bits. 0 or -1. */
int cli_parse_seed(const char *s, uint64_t *out);

/* Parse a whole number from 1 to max (--test-jobs): 0, or -1. */
int cli_parse_count(const char *s, unsigned max, unsigned *out);

/* Print "grader: <file:line:col: msg>" on stderr; returns CLI_EXIT_USAGE. */
int cli_fail(const struct err *e);

/* Print that out_dir's gradebook (grades.csv, summary.md, summary.svg) was
 * written but its report.html was not, and why (e); returns
 * CLI_EXIT_USAGE (batch.h: BAT_NO_PAGE). */
int cli_no_page(const char *out_dir, const struct err *e);

/* Print "grader: msg" and the usage text; returns CLI_EXIT_USAGE. */
int cli_usage(const char *msg, const char *usage);

/* The commands (cmd_*.c): each returns the process's exit status. */
int cmd_grade(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_saturation(int argc, char **argv);
int cmd_permute(int argc, char **argv);
int cmd_vectors(int argc, char **argv);
int cmd_golden(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_similar(int argc, char **argv);

struct bat_list;
/*
 * `grader batch --similarity` (cmd_similar.c): compare the submissions of
 * `l` with the default base, write <out_dir>/similarity.csv and add the
 * similarity section to <out_dir>/summary.md (both atomically), and
 * report.html again. Returns 0, BAT_NO_PAGE (everything but report.html
 * written; `e` says why), or -1 with `e` set.
 */
int cmd_batch_similarity(const struct bat_list *l, const char *out_dir, struct err *e);

#endif
