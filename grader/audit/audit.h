/*
 * audit.h -- `grader audit`: the mutation score of a spec set.
 *
 * Every mutant of a source (mutate.h) is graded with the specs through the
 * normal pipeline (source rules, compile, object checks, sandbox), each on
 * one lane and stopped at its first failing test, several mutants at once.
 * Each ends in one class:
 *   killed      a test failed: the first failing test in spec order (and
 *               its function) is recorded;
 *   invalid     it did not compile or the grader refused it;
 *   survived    every test passed and its outputs differ from those of
 *               the audited source itself on some input the grader drew;
 *   equivalent  every test passed and its outputs equal the audited
 *               source's (not the reference's: another correct solution
 *               rounds its own way), bit for bit (a zero's sign aside), on
 *               the spec's shapes and on random inputs within the header's
 *               contract ("likely equivalent"): listed, with the reason,
 *               when the kept list (specs/equivalent.txt) names it for
 *               that source.
 * The mutation score is killed / (killed + survived).
 */
#ifndef GRD_AUDIT_H
#define GRD_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "audit/mutate.h"
#include "core/err.h"
#include "core/strbuf.h"
#include "spec/spec.h"

struct orc;

enum aud_class { AUD_KILLED, AUD_SURVIVED, AUD_EQUIVALENT, AUD_INVALID };

#define AUD_LINE_MAX 200

struct aud_mutant {
    struct mut_mutant m;
    enum aud_class cls;
    char test[128];             /* killed: the first failing test's id */
    char status[32];            /* killed: how it failed ("failed", "crashed") */
    char before[AUD_LINE_MAX], after[AUD_LINE_MAX]; /* the one-line diff */
    char detail[256];           /* invalid: why; survived: where outputs differ;
                                   equivalent: the kept reason, or "" */
    int listed;                 /* equivalent and named by the kept list */
    int rounding;               /* equivalent up to rounding only, not bit
                                   for bit (aud_equivalent's 2) */
    /* --matrix (aud_opts.matrix), killed: graded through every test */
    int alone;                  /* 1 + the index of the one case of `test`
                                   that fails, when no other case of any
                                   test does (deleting that case lets the
                                   mutant survive); 0 otherwise */
    int unsure;                 /* a failing test did not run all its cases
                                   (a timeout, the budget): alone unknown */
};

/* One case of the specs, with how many mutants it alone kills (--matrix). */
struct aud_case {
    char test[128];
    char file[256];
    int line;                   /* of the case in its spec file */
    size_t k, n_cases;          /* 0-based index, and of how many */
    size_t alone;               /* mutants with alone == k + 1 in test */
};

struct aud_opts {
    const struct spec_set *specs;
    const char *source;          /* the file to mutate */
    const char *source_name;     /* as shown (file:line) */
    const struct mut_ops *ops;
    const char *equivalents;     /* the kept list; NULL: none */
    const char *data_dir;        /* the grader's build directory */
    struct orc *orc;             /* as grade_opts.orc */
    unsigned jobs;               /* mutants graded at once (>= 1) */
    uint64_t seed;
    size_t equiv_trials;         /* random inputs per function (0: 40) */
    const char *function;        /* only the mutants of this function; NULL: all */
    const char *same_as;         /* an earlier source of the same run, or NULL:
                                    the functions `source` defines exactly as
                                    it does (mut_same_functions) are not
                                    mutated again (aud_result.same) */
    int matrix;                  /* grade killed mutants through every test, not
                                    to the first failure, and tell per case the
                                    mutants only it kills (aud_result.cases) */
    /* Called (may be NULL) in the calling process as each mutant ends,
     * with how many have ended of how many: for a progress line. */
    void (*progress)(void *ctx, size_t done, size_t total, const struct aud_mutant *m);
    void *progress_ctx;
};

#define AUD_SAME_MAX 64

struct aud_result {
    char source[256];
    char same_as[256];           /* aud_opts.same_as, or "" */
    char same[AUD_SAME_MAX][MUT_NAME_MAX]; /* its functions left to same_as */
    size_t n_same;
    char spec_sha256[65];
    struct aud_mutant *mut;      /* in source order (owned) */
    size_t n;
    size_t killed, survived, equivalent, invalid, unlisted;
    struct aud_case *cases;      /* --matrix: every case in spec order (owned) */
    size_t n_cases, unsure;      /* unsure: killed mutants with alone unknown */
    double wall_ms, cpu_ms;      /* the audit's cost: wall clock, and CPU
                                    of the grader and every child (compiler,
                                    runners) */
};

/*
 * Audit o->source. Returns 0 with *out set (free with aud_result_free),
 * or -1 with e set: unreadable source or kept list, a source that does not
 * pass its own specs (a failure would then prove nothing), a grader error.
 */
int aud_run(const struct aud_opts *o, struct aud_result **out, struct err *e)
    __attribute__((warn_unused_result));

void aud_result_free(struct aud_result *r);

/* The report, for a person (AUD_TEXT, AUD_MARKDOWN) or for tools
 * (AUD_JSON), appended to sb. 0, or -1 when out of memory. */
enum aud_format { AUD_TEXT, AUD_JSON, AUD_MARKDOWN };
int aud_write(const struct aud_result *r, enum aud_format f, struct sb *sb)
    __attribute__((warn_unused_result));

/* Parse "text", "json", "markdown"; -1 when unknown. */
int aud_format_parse(const char *s);

/*
 * Whether the mutant at path `mutant` (a source file) gives the outputs
 * of `original` (the source it was made from, built the same way; NULL:
 * the reference linked into the grader): every function, on every case
 * shape of `specs` and on trials_per_fn random inputs (sizes, one in five
 * above every size a `guard` operator tests, masks, magnitudes from 1e-7
 * to 1e4 and mixed, ties, eps, with and without weights). 1 bit for bit;
 * 2 up to rounding (where they differ, the mutant is no farther from the
 * reference's outputs than 4 times the source's own distance plus 8 float
 * ulps: it moves the rounding, like a constant added to every score of a
 * row in float); 0 no (why says where it differs, or that it was
 * refused); -1 grader error (e set). Staff build.
 */
int aud_equivalent(const char *mutant, const char *original, const char *data_dir,
                   const struct spec_set *specs, size_t trials_per_fn, uint64_t seed,
                   char *why, size_t why_n, struct err *e);

/*
 * The kept list of equivalent mutants: one per line,
 *     FUNCTION: BEFORE ==> AFTER  # REASON
 * (BEFORE and AFTER as the report's one-line diff shows them); blank
 * lines and lines starting with '#' are skipped. A line
 *     [source PATH]
 * starts the entries of one source: they name mutants of a source shown as
 * PATH (or ending in /PATH) only, so the reference's confirmed entries are
 * never taken for another solution's; entries before any such line hold
 * for every source. Several "[source PATH]" lines in a row (comments
 * between them aside) head one block whose entries hold for each of those
 * sources: code that several solutions share word for word. Sets m->listed and the reason in m->detail for each
 * equivalent mutant of `source` the list names.
 * 0, or -1 with e set at the malformed line.
 */
int aud_apply_kept(const char *path, const char *source, struct aud_mutant *m, size_t n,
                   struct err *e);

#endif
