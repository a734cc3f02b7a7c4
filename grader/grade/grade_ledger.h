/*
 * grade_ledger.h -- the books of one grading run, shared by its lanes: what
 * each selected test cost and whether it timed out, by its place in spec
 * order (its slot).
 *
 * Two rules decide that a test is not run, and both are read in spec
 * order, whatever lane ran what first:
 *   - the budget: a test runs only while the tests run before it cost no
 *     more than the budget (CPU time);
 *   - timeouts: a test runs only while fewer than GL_MAX_TIMEOUTS tests of
 *     its function before it timed out.
 * The ledger replays the rules over the prefix of slots that have all
 * ended, so a lane can skip a test as soon as the rules certainly cut it
 * (both only ever grow), and, once every test ended, gl_final gives each
 * slot the state a run one test at a time in spec order would have given
 * it. A lane may thus run a test that the rules cut afterwards (its result
 * is replaced), never skip one they keep.
 */
#ifndef GRD_GRADE_LEDGER_H
#define GRD_GRADE_LEDGER_H

#include <stddef.h>

#define GL_MAX_TIMEOUTS 2        /* then the function's later tests are cut */

enum gl_state {
    GL_RUN = 0,                  /* run it (gl_before), it ran (gl_final) */
    GL_CUT_BUDGET,               /* not run: the budget was spent before it */
    GL_CUT_TIMEOUTS              /* not run: its function timed out enough */
};

struct gl_ledger;

/* A ledger for n slots; fn[j] is slot j's function (any small index below
 * n_fns). NULL when out of memory. */
struct gl_ledger *gl_new(size_t n, const size_t *fn, size_t n_fns, double budget_ms);
void gl_free(struct gl_ledger *g);

/* Before slot j runs: GL_RUN, or the rule that certainly cuts it. */
enum gl_state gl_before(struct gl_ledger *g, size_t j);

/* Slot j ended: what it cost (CPU ms) and whether it timed out; a slot
 * that was skipped ends with 0 and 0. */
void gl_done(struct gl_ledger *g, size_t j, double cost_ms, int timed_out);

/* Once every slot ended: the CPU ms all of them cost together. */
double gl_spent(const struct gl_ledger *g);

/* Once every slot ended: its state in a run in spec order. */
enum gl_state gl_final(const struct gl_ledger *g, size_t j);

#endif
