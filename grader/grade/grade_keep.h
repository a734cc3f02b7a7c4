/*
 * grade_keep.h -- a submission's verdicts kept for a regrade.
 *
 * A TA regrades a class after changing a test's points far more often
 * than after changing what a test runs. `grader batch` keeps each
 * submission's verdicts beside its kept object (build/objcache.h), in the
 * submission's output folder, which is the TA's:
 *     <out>/<id>/verdicts.kept
 * and a regrade whose tests would run exactly as before takes them from
 * there instead of running them: it scores them with the points the specs
 * give now, so a change of points costs no runner at all.
 *
 * "Exactly as before" is a key, SHA-256 over everything a test's outcome
 * depends on, points excepted:
 *   - the grader (gk_env, once per batch): its executable's bytes, the
 *     identity (device, inode, size, time) of every library it has mapped
 *     -- the C and maths libraries the runner links too -- and the bytes of
 *     the diagnosis data in its build folder;
 *   - the submission: its path, the batch's key over every file its
 *     grading reads (batch.h), and the bytes of the runner it was just
 *     linked into (object, runner_main.o, linker, in one), so the compile,
 *     the object checks and the link still run on a regrade;
 *   - the run: the seed, the time budget, the --only pattern, the
 *     reproduce command and the grader's build folder;
 *   - every selected test, in order, with every field of its spec but its
 *     points (id, title, function, property, visibility, tolerance,
 *     timeout, hint, depends_on, scoring) and every selected case's
 *     parameters.
 * Scores follow from points and outcomes alone (grade.h: passed cases of
 * the cases scored, or nothing when a gate withheld them; the gates look
 * at statuses and depends_on, never at points), so they are computed
 * afresh; everything else -- statuses, messages, hints, the reproduce
 * lines, the diagnosis -- is what the run that computed them said.
 *
 * Only verdicts no machine trouble can have touched are kept: a grade that
 * ran out of its budget, whose diagnosis was cut, or with a test that
 * timed out or was not run is graded again in full next time. The file is
 * written atomically and carries a SHA-256 of its own bytes; a file that
 * is missing, damaged, a link, for another key, or whose contents do not
 * fit the result (a count, an index or a status out of range) is not used,
 * and the tests run. Nothing a student controls is read.
 */
#ifndef GRD_GRADE_KEEP_H
#define GRD_GRADE_KEEP_H

#include "core/err.h"
#include "core/sha256.h"
#include "grade/grade.h"
#include "grade/grade_run.h"

#define GK_FILE "verdicts.kept"

/*
 * The grader's part of the key into env (see above), for `data_dir`, the
 * grader's build folder. Returns 0, or -1 when the grader cannot identify
 * itself (no /proc/self/exe: keeping is then off), `e` set.
 */
int gk_env(const char *data_dir, char env[SHA256_HEX_LEN], struct err *e)
    __attribute__((warn_unused_result));

/*
 * The key of one grade into key: env (gk_env), the submission's path as
 * given (a message may name a file by it) and inputs (the batch's key of
 * the submission's files), the linked runner at `runner`, the run's
 * options (the grader's build folder among them) and the selected tests
 * of `specs`. Returns 0, or -1 with `e` set (the runner could not be read).
 */
int gk_key(const char *env, const char *submission, const char *inputs, const char *runner,
           const struct spec_set *specs, const struct grun_sel *sel,
           const struct grade_opts *o, char key[SHA256_HEX_LEN], struct err *e)
    __attribute__((warn_unused_result));

/* Whether r's verdicts may be kept (see above): 1 or 0. */
int gk_keepable(const struct grade_result *r);

/*
 * Keep r's verdicts in dir/verdicts.kept under key (atomically; an old
 * file goes first). Returns 0, or -1 with `e` set.
 */
int gk_store(const char *dir, const char *key, const struct grade_result *r, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Fill r -- whose tests[] has room for the selected tests, none filled --
 * from dir/verdicts.kept when it was kept under key, with the tests of
 * `specs` that `sel` selects and their points now. Returns 1 (r's tests,
 * causes, diagnosis and scores set), 0 when there is nothing to use (r
 * untouched), -1 when out of memory (e set; r's tests are then released).
 */
int gk_load(const char *dir, const char *key, const struct spec_set *specs,
            const struct grun_sel *sel, struct grade_result *r, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Copy dir `from`'s kept object (bld_cache_copy, build/objcache.h) and
 * kept verdicts into dir `to` (`grader merge` carrying a shard's): when
 * from's verdicts pass the checks gk_load makes before it parses (a
 * regular file, never through a link, at most its size, its sum right)
 * and start as ours (title and a key of 64 hex digits), the checked
 * bytes are written atomically to `to`; else to's file is removed. The
 * rest -- the key, the counts against today's specs -- only a regrade can
 * check, and gk_load does. Returns 1 when the verdicts were copied, 0
 * when not, -1 with `e` set when `to` could not be written or cleared.
 */
int gk_copy(const char *from, const char *to, struct err *e)
    __attribute__((warn_unused_result));

#endif
