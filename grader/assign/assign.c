/* assign.c -- the assignment's table of functions; see assign.h. */
#include "assign/assign.h"

#include <string.h>

#define ASG_DIMS_MAX 4

struct asg_def {
    const char *name;   /* the spec's `function:` and the test ids' head */
    const char *cname;  /* the C name the submission defines */
    const char *dims[ASG_DIMS_MAX + 1]; /* its sizes' case keys, NULL-ended */
};

static const struct asg_def fns[ASG_FN_COUNT] = {
    [ASG_SOFTMAX] = {"softmax", "attn_softmax_rows", {"rows", "cols", NULL}},
    [ASG_SDPA] = {"sdpa", "attn_scaled_dot_product", {"n_q", "n_k", "d_k", "d_v", NULL}},
    [ASG_PE] = {"pe", "attn_positional_encoding", {"n", "d", NULL}},
    [ASG_MHA] = {"mha", "attn_multi_head", {"n_q", "n_kv", "heads", "d_model", NULL}},
    [ASG_LAYERNORM] = {"layernorm", "attn_layer_norm", {"rows", "cols", NULL}},
    [ASG_BLOCK] = {"block", "attn_transformer_block", {"n", "heads", "d_model", "d_ff", NULL}},
};

const char *asg_fn_name(enum asg_fn fn)
{
    return (unsigned)fn < ASG_FN_COUNT ? fns[fn].name : NULL;
}

const char *asg_fn_cname(enum asg_fn fn)
{
    return (unsigned)fn < ASG_FN_COUNT ? fns[fn].cname : NULL;
}

const char *asg_spec_function(size_t i)
{
    return i < ASG_FN_COUNT ? fns[i].name : i == ASG_FN_COUNT ? "written" : NULL;
}

const char *const *asg_fn_dims(enum asg_fn fn, size_t *n)
{
    size_t k = 0;

    if ((unsigned)fn >= ASG_FN_COUNT) {
        *n = 0;
        return NULL;
    }
    while (fns[fn].dims[k] != NULL)
        k++;
    *n = k;
    return fns[fn].dims;
}

int asg_is_size_key(const char *key)
{
    for (size_t f = 0; f < ASG_FN_COUNT; f++)
        for (size_t k = 0; fns[f].dims[k] != NULL; k++)
            if (strcmp(key, fns[f].dims[k]) == 0)
                return 1;
    return 0;
}

int asg_fn_parse(const char *name, enum asg_fn *fn)
{
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < ASG_FN_COUNT; i++) {
        if (strcmp(name, fns[i].name) == 0) {
            if (fn != NULL)
                *fn = (enum asg_fn)i;
            return 0;
        }
    }
    return -1;
}
