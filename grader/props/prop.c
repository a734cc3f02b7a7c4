/* prop.c -- the property registry; see prop.h. */
#include "props/prop.h"

#include <string.h>

#include "props/prop_defs.h"

struct table {
    const struct prop_def *defs;
    const size_t *count;
};

static const struct table tables[] = {
    {prop_softmax_defs, &prop_softmax_count},
    {psd_defs, &psd_count},
    {prop_pe_defs, &prop_pe_count},
    {prop_layernorm_defs, &prop_layernorm_count},
    {pmha_defs, &pmha_count},
    {prop_block_defs, &prop_block_count},
    {pdom_defs, &pdom_count},
};

#define N_TABLES (sizeof tables / sizeof tables[0])

int prop_have_reference(void)
{
    return GRADER_STAFF;
}

const struct prop_def *prop_find(const char *function, const char *property)
{
    size_t n = prop_count();

    for (size_t i = 0; i < n; i++) {
        const struct prop_def *d = prop_at(i);
        if (strcmp(d->function, function) == 0 &&
            strcmp(d->property, property) == 0)
            return d;
    }
    return NULL;
}

size_t prop_count(void)
{
    size_t n = 0;

    for (size_t t = 0; t < N_TABLES; t++)
        n += *tables[t].count;
    return n;
}

const struct prop_def *prop_at(size_t i)
{
    for (size_t t = 0; t < N_TABLES; t++) {
        if (i < *tables[t].count)
            return &tables[t].defs[i];
        i -= *tables[t].count;
    }
    return NULL;
}

static int key_allowed(const struct prop_def *d, const char *key)
{
    if (strcmp(key, "seed") == 0)
        return 1;
    for (const char *const *k = d->keys; k && *k; k++)
        if (strcmp(*k, key) == 0)
            return 1;
    return 0;
}

int prop_check_def(const struct prop_def *d, const struct spec_test *t,
                   const struct spec_case *c, struct err *e)
{
    if (d->needs_reference && !prop_have_reference())
        return err_set(e, NULL, 0, 0,
                       "property '%s.%s' needs the reference solution (staff build only)",
                       t->function, t->property);
    for (size_t i = 0; i < c->n_params; i++)
        if (!key_allowed(d, c->params[i].key))
            return err_set(e, NULL, c->params[i].line, c->params[i].col,
                           "unknown case key '%s' for property '%s.%s'",
                           c->params[i].key, t->function, t->property);
    return 0;
}
