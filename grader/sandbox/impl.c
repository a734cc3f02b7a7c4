/* impl.c -- names of the API functions and call statuses; see impl.h. */
#include "sandbox/impl.h"

#include <string.h>

static const char *const fn_names[IMPL_FN_COUNT] = {
    [IMPL_SOFTMAX] = "softmax",
    [IMPL_SDPA] = "sdpa",
    [IMPL_PE] = "pe",
    [IMPL_MHA] = "mha",
    [IMPL_LAYERNORM] = "layernorm",
    [IMPL_BLOCK] = "block",
};

static const char *const fn_cnames[IMPL_FN_COUNT] = {
    [IMPL_SOFTMAX] = "attn_softmax_rows",
    [IMPL_SDPA] = "attn_scaled_dot_product",
    [IMPL_PE] = "attn_positional_encoding",
    [IMPL_MHA] = "attn_multi_head",
    [IMPL_LAYERNORM] = "attn_layer_norm",
    [IMPL_BLOCK] = "attn_transformer_block",
};

static const char *const status_names[] = {
    [CALL_RETURNED] = "returned",
    [CALL_CRASHED] = "crashed",
    [CALL_TIMEOUT] = "timed out",
    [CALL_EXITED] = "called exit",
    [CALL_OVERRUN] = "touched memory outside its buffers",
    [CALL_CONST_WRITE] = "modified a const input",
    [CALL_SYSCALL] = "made a forbidden system call",
    [CALL_MEMORY] = "ran out of memory",
    [CALL_SKIPPED] = "skipped",
};

const char *impl_fn_name(enum impl_fn fn)
{
    if ((unsigned)fn >= IMPL_FN_COUNT)
        return NULL;
    return fn_names[fn];
}

const char *impl_fn_cname(enum impl_fn fn)
{
    if ((unsigned)fn >= IMPL_FN_COUNT)
        return NULL;
    return fn_cnames[fn];
}

int impl_fn_parse(const char *name, enum impl_fn *fn)
{
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < IMPL_FN_COUNT; i++) {
        if (strcmp(name, fn_names[i]) == 0) {
            if (fn != NULL)
                *fn = (enum impl_fn)i;
            return 0;
        }
    }
    return -1;
}

const char *impl_status_name(enum impl_status st)
{
    if ((unsigned)st >= sizeof status_names / sizeof status_names[0])
        return "unknown status";
    return status_names[st];
}
