/*
 * spec_cases.c -- the `cases` of a test (see spec.h and specs/README.md):
 * each case a map of numbers, strings and flat lists of numbers. Numbers
 * are checked here, at load, so that no property ever sees a NaN, an
 * infinity, a negative or fractional size, or a seed it cannot convert.
 */
#include "spec/spec.h"

#include <math.h>
#include <string.h>

#include "assign/assign.h"
#include "spec/spec_internal.h"
#include "spec/spec_yaml.h"

#define SPEC_PARAMS_CAP 64
#define SPEC_LIST_CAP 4096
#define SPEC_SIZE_MAX (1 << 20)          /* largest size key in a case */
#define SPEC_SEED_MAX 9007199254740992.0 /* 2^53: every seed exact in a double */

static int param_list(struct spec_ld *l, struct spec_param *p, const struct sy_node *v)
{
    double *list;
    size_t i = 0;

    if (v->n > SPEC_LIST_CAP)
        return spec_ld_fail(l, v, "list '%s' is too long (at most %d items)", p->key,
                    SPEC_LIST_CAP);
    list = sy_array(&l->keep, v->n, sizeof *list);
    if (list == NULL)
        return spec_ld_oom(l);
    for (const struct sy_node *x = v->first; x != NULL; x = x->next, i++) {
        int rc = spec_ld_number(l, x, &list[i]);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return spec_ld_fail(l, x, "'%s' must be a flat list of numbers", p->key);
        if (!isfinite(list[i]))
            return spec_ld_fail(l, x, "'%s' must hold finite numbers, not %.*s", p->key, spec_ld_show(x),
                        x->str);
    }
    p->kind = SPEC_LIST;
    p->list = v->n ? list : NULL;
    p->list_len = v->n;
    return 0;
}

/* A number of a case: finite; sizes (the keys of the assignment's
 * functions' sizes, asg_is_size_key) and seeds whole and in range, so that
 * no property ever rounds -1 to 0, 2.5 to 3, or casts 2^64 (UB). */
static int check_case_number(struct spec_ld *l, const struct spec_param *p,
                             const struct sy_node *v, double x)
{
    if (!isfinite(x))
        return spec_ld_fail(l, v, "'%s' must be a finite number, not %.*s", p->key, spec_ld_show(v), v->str);
    if (asg_is_size_key(p->key) && (x < 0 || x > SPEC_SIZE_MAX || x != floor(x)))
        return spec_ld_fail(l, v, "'%s' is a size: a whole number from 0 to %d, not %.*s", p->key,
                    SPEC_SIZE_MAX, spec_ld_show(v), v->str);
    if (strcmp(p->key, "seed") == 0 && (x < 0 || x > SPEC_SEED_MAX || x != floor(x)))
        return spec_ld_fail(l, v, "'seed' must be a whole number from 0 to 2^53, not %.*s", spec_ld_show(v),
                    v->str);
    return 0;
}

static int param_value(struct spec_ld *l, struct spec_param *p, const struct sy_node *v)
{
    int rc;

    p->line = v->line;
    p->col = v->col;
    if (v->kind == SY_SEQ)
        return param_list(l, p, v);
    if (v->kind == SY_MAP)
        return spec_ld_fail(l, v, "'%s' must be a number, a string or a list of numbers, "
                    "not a map", p->key);
    if (v->plain && v->len == 0)
        return spec_ld_fail(l, v, "missing value for '%s'", p->key);
    rc = spec_ld_number(l, v, &p->num);
    p->kind = SPEC_NUM;
    if (rc != 0)
        return rc < 0 ? -1 : check_case_number(l, p, v, p->num);
    p->kind = SPEC_STR;
    p->str = sy_strndup(&l->keep, v->str, v->len);
    return p->str == NULL ? spec_ld_oom(l) : 0;
}

int spec_parse_case(struct spec_ld *l, struct spec_case *c, const struct sy_node *map)
{
    struct spec_param *ps;
    size_t i = 0;

    c->line = map->line;
    c->col = map->col;
    if (map->kind != SY_MAP)
        return spec_ld_fail(l, map, "expected a map for a case, found %s", sy_kind_name(map));
    if (map->n / 2 > SPEC_PARAMS_CAP)
        return spec_ld_fail(l, map, "too many keys in a case (at most %d)", SPEC_PARAMS_CAP);
    ps = sy_array(&l->keep, map->n / 2, sizeof *ps);
    if (ps == NULL)
        return spec_ld_oom(l);
    for (const struct sy_node *k = map->first; k != NULL; k = k->next->next, i++) {
        if (k->kind != SY_SCALAR || k->len == 0)
            return spec_ld_fail(l, k, "expected a key name in a case");
        for (size_t j = 0; j < i; j++)
            if (strcmp(ps[j].key, k->str) == 0)
                return spec_ld_fail(l, k, "duplicate key '%.*s' (first at %d:%d)", spec_ld_show(k),
                            k->str, ps[j].line, ps[j].col);
        if ((ps[i].key = sy_strndup(&l->keep, k->str, k->len)) == NULL)
            return spec_ld_oom(l);
        if (param_value(l, &ps[i], k->next) != 0)
            return -1;
    }
    c->params = ps;
    c->n_params = i;
    return 0;
}
