/*
 * spec.c -- see spec.h: the set and its accessors. The loader, which fills
 * a set, is spec_load.c; the schema is documented in specs/README.md.
 */
#include "spec/spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"
#include "core/util.h"
#include "spec/spec_internal.h"

/* ---- pointer vectors and the id table ---------------------------------- */

/* Make room for `extra` more items without changing the contents. */
int spec_pvec_reserve(struct spec_pvec *p, size_t extra)
{
    void **v;

    if (extra > SIZE_MAX / 4 - p->n)
        return -1;
    /* an empty vector gets its first 16 even for extra == 0 */
    if ((v = ut_grow(p->v, &p->cap, p->n + extra ? p->n + extra : 1, sizeof *v, 16)) == NULL)
        return -1;
    p->v = v;
    return 0;
}

int spec_pvec_push(struct spec_pvec *p, void *x)
{
    if (spec_pvec_reserve(p, 1) != 0)
        return -1;
    p->v[p->n++] = x;
    return 0;
}

static size_t hash_str(const char *s)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211u;
    return (size_t)h;
}

const struct spec_test *spec_idtab_get(const struct spec_idtab *t, const char *id)
{
    if (t->cap == 0)
        return NULL;
    for (size_t i = hash_str(id) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (t->slot[i] == NULL)
            return NULL;
        if (strcmp(t->slot[i]->id, id) == 0)
            return t->slot[i];
    }
}

/* Only after spec_idtab_reserve() made room: cannot fail. */
void spec_idtab_put(struct spec_idtab *t, const struct spec_test *x)
{
    size_t i = hash_str(x->id) & (t->cap - 1);

    while (t->slot[i] != NULL)
        i = (i + 1) & (t->cap - 1);
    t->slot[i] = x;
    t->n++;
}

/* Room for `total` entries; on failure the table is unchanged. */
int spec_idtab_reserve(struct spec_idtab *t, size_t total)
{
    struct spec_idtab bigger = {NULL, t->cap ? t->cap : 64, 0};

    while (bigger.cap < 2 * total)
        bigger.cap *= 2;
    if (bigger.cap == t->cap)
        return 0;
    bigger.slot = calloc(bigger.cap, sizeof *bigger.slot);
    if (bigger.slot == NULL)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i] != NULL)
            spec_idtab_put(&bigger, t->slot[i]);
    free(t->slot);
    *t = bigger;
    return 0;
}

/* ---- the set ----------------------------------------------------------- */

struct spec_set *spec_set_new(void)
{
    struct spec_set *s = calloc(1, sizeof *s);

    if (s == NULL)
        return NULL;
    sha256_init(&s->sha);
    sha256_hex("", 0, s->hex);
    return s;
}

void spec_set_free(struct spec_set *s)
{
    if (s == NULL)
        return;
    sy_arena_free(&s->arena);
    free(s->tests.v);
    free(s->rules.v);
    free(s->ids.slot);
    free(s->upto);
    free(s);
}

size_t spec_test_count(const struct spec_set *s)
{
    return s->tests.n;
}

const struct spec_test *spec_test_at(const struct spec_set *s, size_t i)
{
    return i < s->tests.n ? s->tests.v[i] : NULL;
}

const struct spec_test *spec_find(const struct spec_set *s, const char *id)
{
    return spec_idtab_get(&s->ids, id);
}

size_t spec_rule_count(const struct spec_set *s)
{
    return s->rules.n;
}

const struct spec_rule *spec_rule_at(const struct spec_set *s, size_t i)
{
    return i < s->rules.n ? s->rules.v[i] : NULL;
}

const char *spec_sha256(const struct spec_set *s)
{
    return s->hex;
}

size_t spec_file_count(const struct spec_set *s)
{
    return s->n_files;
}

const char *spec_sha256_upto(const struct spec_set *s, size_t k)
{
    return k >= 1 && k <= s->n_files ? s->upto[k - 1] : NULL;
}

const struct spec_param *spec_param(const struct spec_case *c, const char *key)
{
    for (size_t i = 0; i < c->n_params; i++)
        if (strcmp(c->params[i].key, key) == 0)
            return &c->params[i];
    return NULL;
}

double spec_num(const struct spec_case *c, const char *key, double def)
{
    const struct spec_param *p = spec_param(c, key);

    return p != NULL && p->kind == SPEC_NUM ? p->num : def;
}

const char *spec_str(const struct spec_case *c, const char *key, const char *def)
{
    const struct spec_param *p = spec_param(c, key);

    return p != NULL && p->kind == SPEC_STR ? p->str : def;
}
