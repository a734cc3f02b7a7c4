/* golden.c -- see golden.h. */
#include "oracle/golden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "oracle/golden_internal.h"

struct gold *gold_new(void)
{
    return calloc(1, sizeof(struct gold));
}

void gold_free(struct gold *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->cap; i++)
        free(g->slots[i].v);
    free(g->slots);
    for (size_t i = 0; i < g->n_vars; i++) {
        free(g->vars[i].bug);
        for (size_t j = 0; j < g->vars[i].n_fails; j++)
            free(g->vars[i].fails[j]);
        free(g->vars[i].fails);
    }
    free(g->vars);
    free(g);
}

/* The key's first 8 bytes are already a hash: use them as the index. */
static size_t slot_of(const struct gold *g, const unsigned char key[GOLD_KEY_LEN])
{
    uint64_t h;
    size_t i;

    memcpy(&h, key, sizeof h);
    i = (size_t)h & (g->cap - 1);
    while (g->slots[i].v != NULL && memcmp(g->slots[i].key, key, GOLD_KEY_LEN) != 0)
        i = (i + 1) & (g->cap - 1);
    return i;
}

static int grow(struct gold *g)
{
    size_t cap = g->cap ? g->cap * 2 : 1024;
    struct gold_entry *old = g->slots;
    size_t old_cap = g->cap;

    if ((g->slots = calloc(cap, sizeof *g->slots)) == NULL) {
        g->slots = old;
        return -1;
    }
    g->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].v != NULL)
            g->slots[slot_of(g, old[i].key)] = old[i];
    free(old);
    return 0;
}

int gold_put(struct gold *g, const unsigned char key[GOLD_KEY_LEN], const double *v,
             size_t n, struct err *e)
{
    struct gold_entry *s;

    if ((g->count + 1) * 2 > g->cap && grow(g) < 0)
        return err_set(e, NULL, 0, 0, "out of memory in the golden store");
    s = &g->slots[slot_of(g, key)];
    if (s->v != NULL)
        return 0;
    if ((s->v = malloc((n ? n : 1) * sizeof *v)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory in the golden store");
    memcpy(s->key, key, GOLD_KEY_LEN);
    memcpy(s->v, v, n * sizeof *v);
    s->n = n;
    g->count++;
    return 0;
}

const double *gold_get(const struct gold *g, const unsigned char key[GOLD_KEY_LEN],
                       size_t *n)
{
    const struct gold_entry *s;

    if (g == NULL || g->cap == 0)
        return NULL;
    s = &g->slots[slot_of(g, key)];
    if (s->v == NULL)
        return NULL;
    *n = s->n;
    return s->v;
}

size_t gold_count(const struct gold *g)
{
    return g ? g->count : 0;
}

static int copy_name(char *dst, const char *src)
{
    size_t n = strlen(src);

    if (n == 0 || n >= GOLD_MAX_NAME || strpbrk(src, " \t\n|") != NULL)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

static int fill_variant(struct gold_variant *v, const char *name, const char *function,
                        const char *names, const char *bug, const char *const *fails,
                        size_t n_fails)
{
    memset(v, 0, sizeof *v);
    if (copy_name(v->name, name) < 0 || copy_name(v->function, function) < 0 ||
        copy_name(v->names, names && names[0] ? names : "-") < 0 || strchr(bug, '\n') != NULL)
        return -2;
    if ((v->bug = strdup(bug)) == NULL ||
        (v->fails = calloc(n_fails ? n_fails : 1, sizeof *v->fails)) == NULL)
        return -1;
    for (; v->n_fails < n_fails; v->n_fails++) {
        if (fails[v->n_fails][0] == '\0' || strpbrk(fails[v->n_fails], " \t\n|"))
            return -2;
        if ((v->fails[v->n_fails] = strdup(fails[v->n_fails])) == NULL)
            return -1;
    }
    return 0;
}

int gold_add_variant(struct gold *g, const char *name, const char *function,
                     const char *names, const char *bug, const char *const *fails,
                     size_t n_fails, struct err *e)
{
    struct gold_variant *v;
    int rc;

    for (size_t i = 0; i < g->n_vars; i++)
        if (strcmp(g->vars[i].name, name) == 0)
            return err_set(e, NULL, 0, 0, "variant '%s' is already in the store", name);
    if ((v = ut_grow(g->vars, &g->vars_cap, g->n_vars + 1, sizeof *v, 16)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    g->vars = v;
    v = &g->vars[g->n_vars];
    rc = fill_variant(v, name, function, names, bug, fails, n_fails);
    g->n_vars++; /* counted even when incomplete, so gold_free releases it */
    if (rc == 0)
        return 0;
    return err_set(e, NULL, 0, 0, rc == -2 ? "variant '%s': a name holds a blank or "
                   "'|', or its bug text a newline" : "out of memory (variant '%s')", name);
}

size_t gold_variant_count(const struct gold *g)
{
    return g ? g->n_vars : 0;
}

const struct gold_variant *gold_variant_at(const struct gold *g, size_t i)
{
    return g && i < g->n_vars ? &g->vars[i] : NULL;
}

void gold_set_origin(struct gold *g, const char *spec_sha256, uint64_t seed)
{
    snprintf(g->spec_sha256, sizeof g->spec_sha256, "%s", spec_sha256);
    g->seed = seed;
}

const char *gold_spec_sha256(const struct gold *g)
{
    return g->spec_sha256;
}

uint64_t gold_seed(const struct gold *g)
{
    return g->seed;
}

int gold_path_for(const char *spec_path, char *buf, size_t n)
{
    size_t len = strlen(spec_path), cut;

    if (len > 5 && strcmp(spec_path + len - 5, ".yaml") == 0)
        cut = len - 5;
    else if (len > 4 && strcmp(spec_path + len - 4, ".yml") == 0)
        cut = len - 4;
    else
        return -1;
    if ((size_t)snprintf(buf, n, "%.*s.golden", (int)cut, spec_path) >= n)
        return -1;
    return 0;
}

int gold_merge(struct gold *g, const struct gold *src, struct err *e)
{
    for (size_t i = 0; i < src->cap; i++)
        if (src->slots[i].v != NULL &&
            gold_put(g, src->slots[i].key, src->slots[i].v, src->slots[i].n, e) < 0)
            return -1;
    for (size_t i = 0; i < src->n_vars; i++) {
        const struct gold_variant *v = &src->vars[i];
        if (gold_add_variant(g, v->name, v->function, v->names, v->bug,
                             (const char *const *)v->fails, v->n_fails, e) < 0)
            return -1;
    }
    return 0;
}
