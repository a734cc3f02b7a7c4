/*
 * sbx_internal.h -- what sbx.c and sbx_ops.c share: one call of the API as
 * plain data. Internal to the sandbox module.
 */
#ifndef GRD_SBX_INTERNAL_H
#define GRD_SBX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sandbox/impl.h"
#include "sandbox/runner_proto.h"
#include "sandbox/sbx.h"

/* One pointer argument of a call, as the caller passed it. */
enum sbx_arg_kind { SBX_IN, SBX_INOUT, SBX_OUT };

struct sbx_arg {
    const char *name;
    void *ptr;           /* the caller's buffer; NULL passes NULL */
    size_t len;          /* bytes */
    enum sbx_arg_kind kind;
};

struct sbx_call {
    enum impl_fn fn;
    uint64_t dim[RP_NDIM];
    float eps;
    struct sbx_arg arg[RP_NBUF];
    size_t narg;
};

/*
 * Run one call in the runner (starting one if needed) and fill r: 0 when
 * the call could be made (r says how it ended), -1 with e set on an error
 * of the grader. Buffers of kind SBX_INOUT/SBX_OUT are updated only when
 * the call returned.
 */
int sbx_run_call(struct sbx *s, const struct sbx_call *c, struct call_result *r,
                 struct grd_err *e);

#endif
