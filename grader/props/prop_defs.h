/*
 * prop_defs.h -- the property tables of each function file, gathered by
 * prop.c into one registry. Internal to the property layer.
 *
 * Each prop_<fn>.c defines its table and count; the order inside a table
 * is the order of prop_at() and of the docs. The written part's table is
 * not here: it lies a layer above (selfcheck/prop_written.h), and
 * grade/grade_props.c gathers the two.
 */
#ifndef GRD_PROP_DEFS_H
#define GRD_PROP_DEFS_H

#include <stddef.h>

#include "props/prop.h"

extern const struct prop_def prop_softmax_defs[];
extern const size_t prop_softmax_count;
extern const struct prop_def psd_defs[];
extern const size_t psd_count;
extern const struct prop_def prop_pe_defs[];
extern const size_t prop_pe_count;
extern const struct prop_def pmha_defs[];
extern const size_t pmha_count;
extern const struct prop_def prop_layernorm_defs[];
extern const size_t prop_layernorm_count;
extern const struct prop_def prop_block_defs[];
extern const size_t prop_block_count;
/* prop_domain.c: `domain` of every function (props/prop_domain.h) */
extern const struct prop_def pdom_defs[];
extern const size_t pdom_count;

#endif
