/*
 * grade_repro.h -- a failure's "reproduce:" line: the one command that
 * reruns the failing case alone. Prefix grp_.
 */
#ifndef GRD_GRADE_REPRO_H
#define GRD_GRADE_REPRO_H

#include <stddef.h>

#include "grade/grade.h"
#include "spec/spec.h"

/*
 * The one command that reruns case k (0-based) of t:
 * "make check ONLY='^sdpa\.causal#2$'" by default ("make check-written
 * ONLY=" for the written part, which grades answers.yaml), or o's
 * repro_pre/repro_post around the quoted pattern (grade.h). Test ids hold
 * no quote (spec.c checks their characters), so single quotes suffice.
 * Returns a new string (the caller frees it), or NULL when out of memory.
 */
char *grp_command(const struct grade_opts *o, const struct spec_test *t, size_t k);

#endif
