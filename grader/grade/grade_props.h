/*
 * grade_props.h -- every property a spec may name: the API functions'
 * (props/prop.h) and the written part's (selfcheck/prop_written.h),
 * gathered here, the lowest layer that sees both.
 */
#ifndef GRD_GRADE_PROPS_H
#define GRD_GRADE_PROPS_H

#include "core/err.h"
#include "props/prop.h"
#include "spec/spec.h"

/* The property (function, property), or NULL. */
const struct prop_def *gprop_find(const char *function, const char *property);

/* spec_check_fn for spec_load(): function/property known, keys allowed,
 * reference available when needed. Returns 0, or -1 with e set. */
int gprop_check_case(const struct spec_test *t, const struct spec_case *c,
                     struct err *e);

#endif
