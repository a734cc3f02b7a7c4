/*
 * prop_written.h -- the written (hands-on) part's properties, function
 * "written": the numeric claims of a student's answers.yaml recomputed with
 * the student's own functions, and the manual items a TA scores.
 *
 * The table is registered by the layer above (grade/grade_props.c gathers
 * it with the API functions' tables of props/), so that props/, below this
 * folder, never names it.
 */
#ifndef GRD_SELFCHECK_PROP_WRITTEN_H
#define GRD_SELFCHECK_PROP_WRITTEN_H

#include <stddef.h>

#include "props/prop.h"

extern const struct prop_def sc_written_defs[];
extern const size_t sc_written_count;

/* The written part's property named `property`, or NULL. */
const struct prop_def *sc_written_find(const char *property);

#endif
