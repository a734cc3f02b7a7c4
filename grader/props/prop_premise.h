/*
 * prop_premise.h -- the evidence a spec's hint assumes (issue 40). A test's
 * `hint_premise:` names one of the predicates below; when the test fails,
 * the property runner (pc_steps) evaluates it on the failing call's
 * measured outputs, and the spec's hint is shown only when it holds
 * (prop_verdict.hint_refuted). A hint written for one known mistake is so
 * never shown for a failure that contradicts it (the d_k scale named a
 * mask problem before). The property runner and grade/ (the spec check,
 * the diagnosis) use it; prefix ppr_.
 *
 * The predicates (specs/README.md lists them for spec writers):
 *   mask         the failure depends on the mask: the weights are zero
 *                where the expected are not, or not zero where they are,
 *                or every wrong row hides a key while a row that hides
 *                none is right; and either the outputs are attention
 *                under the mask the weights' own zeros show (a mask always
 *                causal) or the same inputs with no mask give the right
 *                answer (one more call; k's outputs are kept). A scale, a
 *                sum or an index wrong everywhere also leaves hidden keys'
 *                weights non-zero or NaN (tests/test_diag_mutants.c found
 *                such mutants shown the mask's hints)
 *   hidden_rows  the failure shows only in rows whose keys are all hidden
 *   null         the failure depends on NULL weights or mask: the same
 *                inputs with a weights buffer and no mask give the right
 *                answer (one more call)
 */
/*
 * A cause's premise (grade/diag.c): a known mistake of the catalogue whose
 * header says " * premise: NAME" is named only when NAME holds for the
 * submission, measured by one small call of its own. Two mistakes leave the
 * standard calls' outputs as another mistake does, and need it:
 *   hidden_key_outweighs  -1e9 added to a hidden key's score hides nothing
 *                         when the key's score is 3e9 above the visible
 *                         one's (a query, two keys, the second hidden): the
 *                         output is the hidden key's value. A query whose
 *                         keys are all hidden given uniform weights on
 *                         purpose leaves that key hidden.
 *   all_hidden_nan        a query whose keys are all hidden gets NaN written
 *                         (0/0) into its output: with the outputs filled
 *                         with a finite value before the call, they hold a
 *                         NaN after it. A row never written keeps the fill
 *                         (the grader's own NaN otherwise looks the same).
 */
#ifndef GRD_PROP_PREMISE_H
#define GRD_PROP_PREMISE_H

#include "props/prop_common.h"

/* 1 when `name` is a predicate of the list above, else 0. */
int ppr_known(const char *name);

/*
 * Whether premise `name` holds for the failed call k of x (its outputs are
 * the student's, as the check saw them; k may be called again and its
 * outputs are then overwritten). 1 holds, 0 refuted (also when k is not
 * the call the predicate reads: another function, no mask), -1 on a
 * grader error (x->e set). x->v is left as it is.
 */
int ppr_holds(const char *name, const struct prop_ctx *x, struct pc_call *k);

/* 1 when `name` is a cause's premise of the list above, else 0. */
int ppr_cause_known(const char *name);

/* Whether cause premise `name` holds for `student` (one call): 1, 0 (also
 * when the call did not return ATTN_OK), -1 on a grader error (e set). */
int ppr_cause_holds(const char *name, const struct impl *student, struct err *e);

#endif
