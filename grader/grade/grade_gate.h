/*
 * grade_gate.h -- points require correct values: a test earns its points
 * only when every test it depends on (the spec's `depends_on`, its gates)
 * earned all of its own. Internal to grading (grade_run.c); the rule is
 * documented in specs/README.md ("depends_on: the gates").
 */
#ifndef GRD_GRADE_GATE_H
#define GRD_GRADE_GATE_H

#include "grade/grade.h"

/*
 * Close the gates of `r` (every test already run): a test one of whose
 * dependencies did not pass, or had its own points withheld, scores 0, gets
 * withheld_by (the dependencies that failed, as the student should fix
 * them), and a passed one becomes TEST_WITHHELD with the one-line message
 * "depends on <ids>: fix that first". Dependencies outside the selection
 * (--only) are not run and close nothing. r's totals are not updated (see
 * grun_total). Returns 0, or -1 when out of memory (r stays consistent:
 * the tests already withheld keep a message).
 */
int grade_gate_apply(struct grade_result *r) __attribute__((warn_unused_result));

#endif
