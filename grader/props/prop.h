/*
 * prop.h -- the property tests: one reusable check per property,
 * parameterised by a spec case.
 *
 * A property is trusted code. It builds inputs from the case (shapes,
 * seeds, magnitudes, masks), calls ONE function of the implementation under
 * test through `struct impl` (fault isolation: any other stage it needs
 * comes from trusted code), checks the outputs, and fills a verdict. It
 * never trusts anything the submission returns beyond the numbers in its
 * output buffers and its return code.
 *
 * A property case passes only when its run function reaches its final check
 * and sets verdict->passed = 1; every path that stops early leaves it 0.
 */
#ifndef GRD_PROP_H
#define GRD_PROP_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "sandbox/impl.h"
#include "spec/spec.h"

#define PROP_MSG_MAX 1024

struct orc; /* oracle/oracle.h */

/* Everything a property may use besides the case. */
struct prop_env {
    struct impl student;     /* the implementation under test */
    const struct impl *reference; /* trusted reference; NULL in the
                                     student (public) build */
    uint64_t seed;           /* the run's seed (--seed), mixed into cases */
    double timeout_ms;       /* per-call deadline the sandbox applies, for
                                messages; 0 when unknown */
    const char *submission_dir; /* directory of the submission (where the
                                   written part's answers.yaml lives), or
                                   NULL */
    struct orc *orc;         /* where expected values come from: trusted
                                math or golden data (oracle.h); NULL:
                                computed (staff), none (student build) */
};

struct prop_verdict {
    int passed;              /* 1 only when the final check was reached */
    int not_implemented;     /* the function returned ATTN_ENOTIMPL */
    int manual_pending;      /* a manual item: a TA scores it later */
    struct impl_result call; /* the call that decided a failure, if any */
    char msg[PROP_MSG_MAX];  /* what broke, where, expected vs actual, tol */
    char hint[PROP_MSG_MAX]; /* a hint tied to the likely mistake, or "" */
    int hint_refuted;        /* 1: the measured outputs contradict the
                                premise of the spec's hint (its
                                hint_premise, props/prop_premise.h): the
                                spec's hint is not shown */
};

struct prop_def;
struct pc_prop; /* props/prop_common.h */

/*
 * One run of one property on one case: what a run function is given (the
 * context of Lua's lua_State, for properties). Every field is set by the
 * caller (grade/grade_run.c run_case; the tests), none is NULL but `def`,
 * which a caller outside the registry may leave NULL (tolerance 1e-5).
 */
struct prop_ctx {
    const struct prop_env *env;   /* the implementations, seed, oracle */
    const struct spec_test *t;    /* the test (its tolerance, its id) */
    const struct spec_case *c;    /* the case (its keys) */
    const struct prop_def *def;   /* the property run: its default_tol,
                                     without a lookup by name */
    struct prop_verdict *v;       /* filled by the run */
    struct err *e;            /* set on an error of the grader */
};

/*
 * A property's checker. Returns 0 when x->v is filled (pass or fail), -1
 * on an error of the grader itself (x->e set).
 */
typedef int (*prop_run_fn)(const struct prop_ctx *x);

struct prop_def {
    const char *function;    /* short name: softmax, sdpa, ... */
    const char *property;    /* e.g. "rows_sum_to_one" */
    prop_run_fn run;
    const char *const *keys; /* case keys it accepts, NULL-terminated */
    double default_tol;      /* used when the spec gives no tolerance */
    int needs_reference;     /* 1: only in the staff build */
    const char *summary;     /* one line for docs and --list */
    const struct pc_prop *steps; /* with run = pc_run_def: the steps of a
                                    property over the standard call
                                    (prop_common.h); NULL for a run
                                    function of its own */
    int value_test;          /* PROP_VALUE_TEST or PROP_INVARIANT */
};

/* A value test compares a function's outputs with values computed
 * independently (by hand, in double, or by the reference), so that no
 * trivial output passes it, as an invariant may; the gates withhold a
 * test's points behind its value tests (grade/grade_gate.h). */
#define PROP_VALUE_TEST 1
#define PROP_INVARIANT 0

/* The property (function, property) of an API function, or NULL. The
 * written part's properties live a layer above (selfcheck/prop_written.h);
 * gprop_find() (grade/grade_props.h) looks in both. */
const struct prop_def *prop_find(const char *function, const char *property);

/* The number of properties, and the i-th in a fixed order (NULL when out
 * of range): softmax, sdpa, pe, layernorm, mha, block. */
size_t prop_count(void);
const struct prop_def *prop_at(size_t i);

/* Whether case c of test t suits d, the property t names: keys allowed,
 * the reference available when d needs it. Returns 0, or -1 with e set
 * (the key's line and column when a key is refused). The spec loader's
 * check (gprop_check_case) finds d and calls this. */
int prop_check_def(const struct prop_def *d, const struct spec_test *t,
                   const struct spec_case *c, struct err *e);

/* Whether this build has the reference (the staff build). */
int prop_have_reference(void);

#endif
