/*
 * assign.h -- the assignment: the functions a submission implements, as
 * the engine names and numbers them.
 *
 * This is the one place that lists the assignment's functions; the
 * sandbox, the object checks, the spec loader and the reports read the
 * list from here, so a function of the assignment is added here once.
 * Header-only parts (the numbers) are what the runner's trusted half may
 * use, since it links no grader code.
 */
#ifndef GRD_ASSIGN_H
#define GRD_ASSIGN_H

#include <stddef.h>

/* The submission's files, as the assignment names them: the source a
 * student hands in, its object, and the header it is compiled against
 * (the grader's own copy: <data dir>/include/ASG_HEADER). */
#define ASG_SOURCE "attention.c"
#define ASG_OBJECT "attention.o"
#define ASG_HEADER "attention.h"
#define ASG_HEADER_RE "attention\\.h" /* ASG_HEADER as a PCRE2 pattern */

/* The prefix of the API's C names (asg_fn_cname), which no name of a
 * submission's own may take. */
#define ASG_API_PREFIX "attn_"

/* The functions, numbered: the order of the table in assign.c, of the
 * call protocol (runner_proto.h) and of every per-function array. */
enum asg_fn {
    ASG_SOFTMAX,
    ASG_SDPA,
    ASG_PE,
    ASG_MHA,
    ASG_LAYERNORM,
    ASG_BLOCK,
    ASG_FN_COUNT
};

/* The short name a spec's `function:` names and test ids start with
 * ("softmax", "sdpa", ...). Returns NULL for an out-of-range value. */
const char *asg_fn_name(enum asg_fn fn);

/* The function's C name, e.g. "attn_scaled_dot_product"; NULL for an
 * out-of-range value. */
const char *asg_fn_cname(enum asg_fn fn);

/* Parse a short name; returns 0 and sets *fn (when fn is not NULL), or -1
 * when name is NULL or names no function of the assignment. */
int asg_fn_parse(const char *name, enum asg_fn *fn);

/* The function's sizes, by the case keys that give them ("rows", "n_q",
 * "d_model", ...), in the order the diagnosis shows and shrinks them;
 * *n of them (static strings). NULL and *n = 0 for an out-of-range
 * value. */
const char *const *asg_fn_dims(enum asg_fn fn, size_t *n);

/* Whether a case key is a size of some function (asg_fn_dims). */
int asg_is_size_key(const char *key);

/* The names a spec's `function:` may take, i from 0: the functions' short
 * names in asg_fn order, then "written" (the written part's answers, which
 * no function of the submission computes); NULL past the last. */
const char *asg_spec_function(size_t i);

#endif
