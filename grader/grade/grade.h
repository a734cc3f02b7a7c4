/*
 * grade.h -- grade one submission against a spec set: compile, check,
 * contain, run every selected test, and record the verdicts.
 *
 * The result is plain data that the report writers (report.h) print; it is
 * computed entirely by the trusted side: a submission's own output never
 * decides a verdict.
 */
#ifndef GRD_GRADE_H
#define GRD_GRADE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "sandbox/impl.h"
#include "spec/spec.h"

struct orc;

#define GRADE_MAX_LANES 4        /* lanes when grade_opts.lanes is 0 */
#define GRADE_MAX_TEST_JOBS 16   /* the most lanes one may ask for */

/* How grading of the whole submission ended. */
enum grade_status {
    GRADE_OK = 0,            /* tests ran (whatever the score) */
    GRADE_COMPILE_ERROR,     /* the submission did not compile */
    GRADE_REJECTED,          /* static checks or source rules refused it */
    GRADE_BUDGET_EXHAUSTED,  /* the time budget ran out; later tests 0 */
    GRADE_ERROR              /* the grader itself failed */
};

/* How one test ended. */
enum grade_test_status {
    TEST_PASSED = 0,
    TEST_FAILED,             /* a property check failed */
    TEST_CRASHED,            /* the submission crashed in this test */
    TEST_TIMED_OUT,
    TEST_NOT_IMPLEMENTED,
    TEST_NOT_RUN,            /* compile error, rejection, budget */
    TEST_MANUAL_PENDING,     /* a manual item awaiting a TA */
    TEST_WITHHELD            /* passed, but a test it depends on did not:
                                no points (see depends_on, grade_gate.h) */
};

/*
 * Points are counted in whole hundredths (score_cents), exactly: a partial
 * test earns round(max_cents * passed / cases) hundredths, half up, in
 * integer arithmetic, and a total is the integer sum of its parts. The
 * doubles beside them are cents / 100.0 for the writers, so a total printed
 * to two decimals is the sum of the parts printed to two decimals.
 */
struct grade_test {
    const struct spec_test *test; /* owned by the spec set */
    enum grade_test_status status;
    double score;            /* score_cents / 100.0 */
    double max_score;        /* max_cents / 100.0 */
    long long score_cents, max_cents;
    size_t cases_passed, cases_run;
    size_t cases_scored;     /* the cases a partial score is a share of */
    size_t failed_case;      /* index of the smallest failing case */
    int dependency_failed;   /* points withheld: a depends_on test did not
                                earn its own (score 0 whatever the status) */
    char *withheld_by;       /* the failed tests behind it, "a, b" (owned;
                                NULL when nothing is withheld) */
    char *message;           /* failure text (owned), "" when passed */
    char *hint;              /* owned, "" when none */
    char *repro;             /* "make check ONLY='^sdpa\\.mask$'" (owned) */
    size_t explained_by;     /* 1 + the index in grade_result.causes of the
                                cause that explains this failure; 0 none */
    double elapsed_ms;
};

/* How far a result's diagnosis went (grade/diag.h). */
enum grade_diag {
    GRADE_DIAG_NO_DATA = 0,  /* no known mistakes were loaded */
    GRADE_DIAG_DONE,         /* every failing function was looked at */
    GRADE_DIAG_CUT,          /* the time budget ran out before the end */
    GRADE_DIAG_SELECTED      /* done, on the tests --only selected */
};

/* The most likely cause of one function's failures (grade/diag.h): the
 * known mistake of the catalogue whose outputs the submission's follow. */
struct grade_cause {
    char function[32];       /* "sdpa" */
    char variant[128];       /* the catalogue's name, e.g. "sdpa_no_scale"
                                (for staff tools and tests; never shown) */
    char *bug;               /* the mistake in words (owned); NULL when the
                                cause is a failing callee */
    int strong;              /* 1: the most likely cause (grade/diag.h's
                                rule); 0: only some failures look like it */
    int callee;              /* 1 + the asg_fn this function calls that
                                fails too (fix it first); 0 none */
    int confirmed;           /* 1: its catalogue entry states a premise
                                and the submission's own call confirmed
                                it (grade/diag.c's refuse): evidence that
                                singles the mistake out */
    size_t explained;        /* failures of the function it explains */
    size_t failures;         /* failures of the function */
    size_t lead;             /* index in tests[] of the explained failure
                                that names it best (shown first) */
};

struct grade_result {
    enum grade_status status;
    char *status_detail;     /* compile errors, rejection reasons (owned) */
    char *warnings;          /* e.g. localised helper symbols (owned) */
    char *submission;        /* as given on the command line (owned) */
    char submission_sha256[65];
    char spec_sha256[65];
    uint64_t seed;
    double score, max_score;     /* score_cents / 100.0, max_cents / 100.0 */
    long long score_cents, max_cents; /* sums of the tests' (see grade_test) */
    double elapsed_ms;
    size_t n_tests;
    struct grade_test *tests;   /* in spec order (owned) */
    struct grade_cause *causes;  /* one per function with failures that a
                                    known mistake explains (owned) */
    size_t n_causes;
    enum grade_diag diag;    /* how far the diagnosis went */
    char *facts[ASG_FN_COUNT]; /* per function: measured facts of where its
                                   failures show, one a line (owned; NULL
                                   none; grade/diag_fit.h) */
    double diag_ms;          /* CPU time its calls cost (within the budget) */
    /* calls[f][g]: the object shows API function f calling g (directly or
     * through helpers; build/objcheck.h), for the diagnosis */
    unsigned char calls[ASG_FN_COUNT][ASG_FN_COUNT];
    size_t tests_cap;            /* entries allocated in tests */
    int object_reused;           /* 1: the object came from the cache
                                    (grade_opts.obj_cache), not a compile */
    int verdicts_reused;         /* 1: the tests' verdicts came from the
                                    kept ones (grade_opts.keep_env), no
                                    test ran */
    unsigned runners;            /* runner processes the tests and the
                                    diagnosis started */
    long runner_minflt;          /* their minor faults in all (the kernel's
                                    count, sbx_runner_faults): what
                                    `grader grade --stats` and `make bench`
                                    report per runner */
};

struct grade_opts {
    const struct spec_set *specs;
    const char *only;        /* PCRE2 pattern on test ids, or NULL */
    uint64_t seed;
    const char *data_dir;    /* holds runner_main.o and include/attention.h
                                (the grader's build directory) */
    const char *scratch_dir; /* parent of the private scratch directory;
                                NULL: $TMPDIR or /tmp */
    double budget_ms;        /* whole-submission budget; 0: default 15 s */
    /* A failure's "reproduce:" line is repro_pre, the case's pattern in
     * single quotes, then repro_post: e.g. "make check ONLY=" and "", or
     * "build/grader grade --only " and " attention.c" (the caller quotes
     * what it passes for the shell). NULL repro_pre: "make check ONLY="
     * ("make check-written ONLY=" for the written part), the command of
     * the student's repository. */
    const char *repro_pre;
    const char *repro_post;  /* NULL: "" */
    struct orc *orc;         /* where expected values come from (props/
                                oracle.h): NULL computes them (staff); the
                                student build replays golden data */
    unsigned lanes;          /* tests of this submission run at once, each
                                function's on one lane: 0, the CPUs the
                                process may use (at most GRADE_MAX_LANES);
                                1, one at a time
                                (what a batch with --jobs > 1 asks). The
                                rubric is the same for every value. */
    /* Called once the submission is built, before its first test (may be
     * NULL): the caller finishes what it started meanwhile, such as
     * reading the golden data behind orc while the compiler ran. 0, or -1
     * with e set (grading stops with that error). */
    int (*before_tests)(void *ctx, struct err *e);
    void *before_ctx;
    /* A known mistake the diagnosis must not use (its catalogue name), as
     * if it had never been recorded: the cross-validation of the
     * diagnosis (tests/test_diag.c). NULL: use all. */
    const char *diag_exclude;
    /* Stop at the first test that does not pass (`grader audit`, where
     * only killed or not matters): the value tests (grade_is_value_test)
     * run first, then the others, each group in spec order, and
     * result.tests follows that order; once a test fails the later ones
     * are "not run", and no diagnosis is made. With one lane the failure
     * recorded is the first in that order. 0: every test, in spec order. */
    int stop_at_failure;
    /* The object cache (build/objcache.h), for `grader batch`: the folder
     * that keeps this submission's compiled object (the TA's, never the
     * student's) and the environment part of its key (bld_cache_env).
     * A source whose key matches is not compiled again; its object still
     * goes through every check. NULL obj_cache: compile every time. */
    const char *obj_cache;
    const char *obj_cache_env;
    /* Called once, before the diagnosis first reads orc's store (may be
     * NULL): only when a test failed, so the caller can defer reading the
     * diagnosis data until a failure needs it (a correct submission never
     * does). 0, or -1 with e set (grading stops with that error). */
    int (*before_diag)(void *ctx, struct err *e);
    void *diag_ctx;
    /* The kept verdicts (grade/grade_keep.h), for `grader batch`: the
     * grader's part of their key (gk_env) and the batch's key of the
     * submission's files. With obj_cache's folder, a grade whose key
     * matches the verdicts kept there takes them instead of running its
     * tests, and one that ran them keeps them. NULL either: run every
     * test, keep nothing. */
    const char *keep_env;
    const char *keep_inputs;
};

/*
 * Grade `submission` (an attention.c, attention.o or a directory holding
 * attention.c). Returns 0 with *out set (the caller frees it with
 * grade_result_free) whenever a rubric can be produced -- including compile
 * errors and rejections. Returns -1 with `e` set only for errors of use or
 * environment (missing file, bad --only pattern or one that matches no
 * test, no compiler, a tool or runner that could not start, the machine's
 * trouble twice): never a verdict on the submission. Errors of use are
 * the ones grade_check_use() finds first.
 */
/*
 * The errors of use grade_submission would meet before grading anything:
 * `submission` missing or not an attention.c, an attention.o or a
 * directory; a bad --only pattern or one that matches no test. Returns 0,
 * or -1 with `e` set. What grade_submission fails with after this
 * returned 0 is the grader's own trouble (the CLI says so).
 */
int grade_check_use(const char *submission, const struct grade_opts *o, struct err *e)
    __attribute__((warn_unused_result));

int grade_submission(const char *submission, const struct grade_opts *o,
                     struct grade_result **out, struct err *e)
    __attribute__((warn_unused_result));

void grade_result_free(struct grade_result *r);

/*
 * The environment part of the object cache's key (grade_opts
 * .obj_cache_env) into env: the toolchain's id (bld_toolchain_id, its
 * `--version` run in `scratch_dir`) with the source rules of `specs` and
 * the grader's `version` (bld_cache_env). Returns 0, or -1 with `e` set
 * (e may be NULL).
 */
int grade_cache_env(const char *data_dir, const char *scratch_dir,
                    const struct spec_set *specs, const char *version,
                    char env[65], struct err *e) __attribute__((warn_unused_result));

/*
 * A submission compiled, checked and linked into a sandboxed
 * implementation, for the self-check tools (map, saturation, permute) that
 * call a student's functions outside a grading run.
 */
struct grade_session;

/*
 * Open a session on `submission` (as for grade_submission). `specs` gives
 * the source rules (may be NULL: none). Returns the session, or NULL: with
 * *refusal set (owned by the caller; compile errors or rejections) when the
 * submission was refused, or with `e` set on a grader error.
 */
struct grade_session *grade_session_open(const char *submission, const char *data_dir,
                                         const struct spec_set *specs,
                                         char **refusal, struct err *e);

/* The sandboxed implementation; valid until grade_session_close. Each call
 * has a deadline of `deadline_ms` (0: the sandbox default). */
struct impl grade_session_impl(struct grade_session *g, double deadline_ms);

/* Kill the runner, remove the scratch directory, free. NULL is a no-op. */
void grade_session_close(struct grade_session *g);

/*
 * Whether `property` of `function` is a value test: it compares outputs
 * with independently computed values (by hand, in double, or against the
 * reference), so that no trivial output passes it. Every other test of the
 * shipped specs depends on a value test of its function (specs/README.md).
 */
int grade_is_value_test(const char *function, const char *property);

/*
 * The one line a withheld test shows: "depends on sdpa.values: fix that
 * first" (from t->withheld_by). Returns a string the caller frees, or NULL
 * when out of memory.
 */
char *grade_withheld_label(const struct grade_test *t);

const char *grade_status_name(enum grade_status s);  /* "ok", "compile_error", ... */
const char *grade_test_status_name(enum grade_test_status s);    /* "passed", "failed", ... */

#endif
