/*
 * spec_load.c -- spec_load() and spec_load_buffer() (see spec.h); the
 * schema is documented in specs/README.md.
 *
 * A load runs in three steps. libyaml's events are turned into a small
 * tree (spec_yaml.c: anchors, aliases and tags refused) in a scratch
 * arena; the tree is walked in file order into tests and rules allocated
 * in a second arena, the "batch"; only when everything validated is the
 * batch spliced into the set. A failed load therefore frees both arenas
 * and leaves the set exactly as it was.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "spec/spec.h"

#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign/assign.h"
#include "core/sha256.h"
#include "core/strbuf.h"
#include "spec/spec_internal.h"
#include "spec/spec_yaml.h"

#define SPEC_FILE_CAP ((size_t)1 << 20)
#define SPEC_TESTS_CAP 10000
#define SPEC_RULES_CAP 1000
#define SPEC_CASES_CAP 1000
#define SPEC_TIMEOUT_MAX_MS 600000L

/* ---- the loader's context ---------------------------------------------- */

int spec_ld_fail(struct spec_ld *l, const struct sy_node *at, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(l->e, l->name, at ? at->line : 0, at ? at->col : 0, "%s", msg);
}

int spec_ld_oom(struct spec_ld *l)
{
    return err_set(l->e, l->name, 0, 0, "out of memory");
}

/* "unknown <what> 'x' (did you mean 'y'?)" or "... (expected one of a, b)". */
static int fail_unknown(struct spec_ld *l, const struct sy_node *k, const char *what,
                        const char *const *names, size_t n)
{
    const char *s = sy_suggest(k, names, n);
    char list[256] = "";
    size_t used = 0;

    if (s != NULL)
        return spec_ld_fail(l, k, "unknown %s '%.*s' (did you mean '%s'?)", what, spec_ld_show(k),
                    k->str, s);
    for (size_t i = 0; i < n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 i ? ", " : "", names[i]);
    return spec_ld_fail(l, k, "unknown %s '%.*s' (expected one of %s)", what, spec_ld_show(k), k->str,
                list);
}

/* A non-empty string value, copied into the batch. */
static int get_string(struct spec_ld *l, const struct sy_node *v, const char *key,
                      const char **out)
{
    if (v->kind != SY_SCALAR || v->len == 0)
        return spec_ld_fail(l, v, "'%s' must be a non-empty string", key);
    *out = sy_strndup(&l->keep, v->str, v->len);
    return *out == NULL ? spec_ld_oom(l) : 0;
}

/* A finite number value with v > min (or v >= min when `or_equal`). */
static int get_number(struct spec_ld *l, const struct sy_node *v, const char *key,
                      double min, int or_equal, double *out)
{
    int rc = spec_ld_number(l, v, out);

    if (rc < 0)
        return -1;
    if (rc == 0 || !isfinite(*out) || *out < min || (!or_equal && *out == min))
        return spec_ld_fail(l, v, "'%s' must be a number %s %g", key, or_equal ? ">=" : ">",
                    min);
    return 0;
}

/* ---- maps with known keys ---------------------------------------------- */

typedef int (*field_fn)(struct spec_ld *l, void *obj, const struct sy_node *v);

struct field {
    const char *name;
    field_fn fn;
    int required;
};

#define MAX_FIELDS 16

static int field_index(struct spec_ld *l, const struct sy_node *k, const struct field *f,
                       size_t nf)
{
    const char *names[MAX_FIELDS];

    if (k->kind != SY_SCALAR)
        return spec_ld_fail(l, k, "expected a key name, found %s", sy_kind_name(k));
    for (size_t i = 0; i < nf; i++) {
        if (strcmp(k->str, f[i].name) == 0)
            return (int)i;
        names[i] = f[i].name;
    }
    return fail_unknown(l, k, "key", names, nf);
}

static int check_required(struct spec_ld *l, const struct sy_node *map, const struct field *f,
                          size_t nf, const struct sy_node *const *seen)
{
    for (size_t i = 0; i < nf; i++)
        if (f[i].required && seen[i] == NULL)
            return spec_ld_fail(l, map, "missing required key '%s'", f[i].name);
    return 0;
}

/* Walk a map of known keys in file order, calling each key's function;
 * refuses unknown and repeated keys, then reports missing required ones. */
static int walk_fields(struct spec_ld *l, const struct sy_node *map, const char *what,
                       const struct field *f, size_t nf, void *obj)
{
    const struct sy_node *seen[MAX_FIELDS] = {NULL};

    if (map->kind != SY_MAP)
        return spec_ld_fail(l, map, "expected a map for %s, found %s", what, sy_kind_name(map));
    for (const struct sy_node *k = map->first; k != NULL; k = k->next->next) {
        int i = field_index(l, k, f, nf);
        if (i < 0)
            return -1;
        if (seen[i] != NULL)
            return spec_ld_fail(l, k, "duplicate key '%s' (first at %d:%d)", f[i].name,
                        seen[i]->line, seen[i]->col);
        seen[i] = k;
        if (f[i].fn(l, obj, k->next) != 0)
            return -1;
    }
    return check_required(l, map, f, nf, seen);
}

/* A key written with no value (`tests:`), read as an empty list where
 * one is allowed. */
static int is_empty(const struct sy_node *v)
{
    return v->kind == SY_SCALAR && v->plain && v->len == 0;
}

static int expect_list(struct spec_ld *l, const struct sy_node *v, const char *key)
{
    if (v->kind != SY_SEQ && !is_empty(v))
        return spec_ld_fail(l, v, "expected a list for '%s', found %s", key, sy_kind_name(v));
    return 0;
}

/* ---- test fields ----------------------------------------------------------- */

/* What a test's `function:` may name: the assignment's (assign.h). */
#define MAX_FUNCTIONS (ASG_FN_COUNT + 1)

/* ^[a-z]+\.[a-z0-9_]+(\.[a-z0-9_]+)*$ */
static int valid_test_id(const char *s)
{
    size_t head = strspn(s, "abcdefghijklmnopqrstuvwxyz");

    if (head == 0 || s[head] != '.')
        return 0;
    for (s += head; *s == '.';) {
        size_t part = strspn(s + 1, "abcdefghijklmnopqrstuvwxyz0123456789_");
        if (part == 0)
            return 0;
        s += 1 + part;
    }
    return *s == '\0';
}

static int f_id(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    struct spec_tbuild *b = obj;

    if (get_string(l, v, "id", &b->t->id) != 0)
        return -1;
    b->id_node = v;
    if (!valid_test_id(b->t->id))
        return spec_ld_fail(l, v, "invalid id '%.*s': expected '<function>.<property>' in "
                    "lowercase letters, digits and '_'", spec_ld_show(v), v->str);
    return 0;
}

static int f_title(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    return get_string(l, v, "title", &((struct spec_tbuild *)obj)->t->title);
}

static int f_function(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    struct spec_tbuild *b = obj;
    const char *functions[MAX_FUNCTIONS];
    size_t n = 0;

    if (get_string(l, v, "function", &b->t->function) != 0)
        return -1;
    for (; n < MAX_FUNCTIONS && (functions[n] = asg_spec_function(n)) != NULL; n++)
        if (strcmp(b->t->function, functions[n]) == 0)
            return 0;
    return fail_unknown(l, v, "function", functions, n);
}

static int f_property(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    return get_string(l, v, "property", &((struct spec_tbuild *)obj)->t->property);
}

static int f_points(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    double *pts = &((struct spec_tbuild *)obj)->t->points;

    if (get_number(l, v, "points", 0.0, 0, pts) < 0)
        return -1;
    /* Scores are kept in whole hundredths of a point (grade.h), so that
     * every report's total is the exact sum of its parts. */
    if (*pts > 1e9 || fabs(*pts * 100.0 - nearbyint(*pts * 100.0)) > 1e-6)
        return spec_ld_fail(l, v, "'points' must be a whole number of hundredths (such as 1.25), "
                    "at most 1e9");
    return 0;
}

/* Index of the scalar in names, or -1 with "unknown <what> ..." set. */
static int get_enum(struct spec_ld *l, const struct sy_node *v, const char *what,
                    const char *const *names, size_t n)
{
    if (v->kind != SY_SCALAR)
        return spec_ld_fail(l, v, "'%s' must be one of its names, not a %s", what,
                    sy_kind_name(v));
    for (size_t i = 0; i < n; i++)
        if (strcmp(v->str, names[i]) == 0)
            return (int)i;
    return fail_unknown(l, v, what, names, n);
}

static int f_visibility(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    static const char *const names[] = {"visible", "hidden", "after_due_date"};
    static const enum spec_visibility vals[] = {SPEC_VISIBLE, SPEC_HIDDEN,
                                                SPEC_AFTER_DUE_DATE};
    int i = get_enum(l, v, "visibility", names, 3);

    if (i < 0)
        return -1;
    ((struct spec_tbuild *)obj)->t->visibility = vals[i];
    return 0;
}

static int f_scoring(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    static const char *const names[] = {"all_or_nothing", "partial"};
    int i = get_enum(l, v, "scoring", names, 2);

    if (i < 0)
        return -1;
    ((struct spec_tbuild *)obj)->t->scoring = i == 0 ? SPEC_ALL_OR_NOTHING : SPEC_PARTIAL;
    return 0;
}

static int f_tolerance(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    return get_number(l, v, "tolerance", 0.0, 1, &((struct spec_tbuild *)obj)->t->tolerance);
}

static int f_timeout(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    char *end = NULL;
    long ms;

    errno = 0;
    ms = v->kind == SY_SCALAR && v->plain ? strtol(v->str, &end, 10) : 0;
    if (ms <= 0 || errno != 0 || *end != '\0')
        return spec_ld_fail(l, v, "'timeout_ms' must be an integer > 0");
    if (ms > SPEC_TIMEOUT_MAX_MS)
        return spec_ld_fail(l, v, "'timeout_ms' must be at most %ld (10 minutes)",
                    (long)SPEC_TIMEOUT_MAX_MS);
    ((struct spec_tbuild *)obj)->t->timeout_ms = ms;
    return 0;
}

static int f_hint(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    return get_string(l, v, "hint", &((struct spec_tbuild *)obj)->t->hint);
}

static int f_hint_premise(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    return get_string(l, v, "hint_premise", &((struct spec_tbuild *)obj)->t->hint_premise);
}

static int f_depends_on(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    struct spec_tbuild *b = obj;
    const char **ids;
    size_t i = 0;

    if (expect_list(l, v, "depends_on") != 0)
        return -1;
    if ((ids = sy_array(&l->keep, v->n, sizeof *ids)) == NULL)
        return spec_ld_oom(l);
    for (const struct sy_node *x = v->first; x != NULL; x = x->next)
        if (get_string(l, x, "depends_on", &ids[i++]) != 0)
            return -1;
    b->t->depends_on = ids;
    b->t->n_depends_on = v->n;
    b->deps = v;
    return 0;
}

static int f_cases(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    struct spec_tbuild *b = obj;
    struct spec_case *cs;
    size_t i = 0;

    if (expect_list(l, v, "cases") != 0)
        return -1;
    if (v->n == 0)
        return spec_ld_fail(l, v, "empty 'cases': a test needs at least one case");
    if (v->n > SPEC_CASES_CAP)
        return spec_ld_fail(l, v, "too many cases (at most %d)", SPEC_CASES_CAP);
    if ((cs = sy_array(&l->keep, v->n, sizeof *cs)) == NULL)
        return spec_ld_oom(l);
    for (const struct sy_node *x = v->first; x != NULL; x = x->next)
        if (spec_parse_case(l, &cs[i++], x) != 0)
            return -1;
    b->t->cases = cs;
    b->t->n_cases = v->n;
    return 0;
}

static const struct field test_fields[] = {
    {"id", f_id, 1},           {"title", f_title, 1},
    {"function", f_function, 1}, {"property", f_property, 1},
    {"points", f_points, 1},   {"visibility", f_visibility, 0},
    {"scoring", f_scoring, 0}, {"tolerance", f_tolerance, 0},
    {"timeout_ms", f_timeout, 0}, {"hint", f_hint, 0}, {"hint_premise", f_hint_premise, 0},
    {"depends_on", f_depends_on, 0}, {"cases", f_cases, 1},
};
#define N_TEST_FIELDS (sizeof test_fields / sizeof test_fields[0])

/* ---- whole tests ------------------------------------------------------------ */

static int check_unique(struct spec_ld *l, const struct spec_tbuild *b)
{
    const struct spec_test *t = b->t;
    const struct spec_test *first = spec_find(l->set, t->id);
    struct sy_node at = {.line = t->line, .col = t->col};

    if (first == NULL)
        first = spec_idtab_get(&l->ids, t->id);
    if (first != NULL)
        return spec_ld_fail(l, &at, "duplicate id '%s' (first defined at %s:%d:%d)", t->id,
                    first->file, first->line, first->col);
    return 0;
}

/* The property registry's verdict on every case. A rejection it did not
 * place is placed at the case. */
static int check_cases(struct spec_ld *l, const struct spec_test *t)
{
    for (size_t i = 0; l->check != NULL && i < t->n_cases; i++) {
        const struct spec_case *c = &t->cases[i];
        err_clear(l->e);
        if (l->check(t, c, l->e) == 0)
            continue;
        if (l->e->msg[0] == '\0')
            snprintf(l->e->msg, sizeof l->e->msg, "case rejected for '%s'", t->id);
        if (l->e->file[0] == '\0') {
            snprintf(l->e->file, sizeof l->e->file, "%s", l->name);
            l->e->line = c->line;
            l->e->col = c->col;
        }
        return -1;
    }
    return 0;
}

/* Checks that need the whole test: id prefix, uniqueness, the registry. */
static int finish_test(struct spec_ld *l, struct spec_tbuild *b)
{
    const struct spec_test *t = b->t;
    size_t fl = strlen(t->function);

    if (strncmp(t->id, t->function, fl) != 0 || t->id[fl] != '.')
        return spec_ld_fail(l, b->id_node, "id '%s' must begin with '%s.' (its function)",
                    t->id, t->function);
    if (check_unique(l, b) != 0 || check_cases(l, t) != 0)
        return -1;
    if (spec_idtab_reserve(&l->ids, l->ids.n + 1) != 0 || spec_pvec_push(&l->tests, b->t) != 0)
        return spec_ld_oom(l);
    spec_idtab_put(&l->ids, t);
    if (b->deps != NULL && spec_pvec_push(&l->pending, b) != 0)
        return spec_ld_oom(l);
    return 0;
}

static int parse_test(struct spec_ld *l, const struct sy_node *map)
{
    struct spec_tbuild *b = sy_alloc(&l->tmp, sizeof *b);

    if (b == NULL || (b->t = sy_alloc(&l->keep, sizeof *b->t)) == NULL)
        return spec_ld_oom(l);
    b->t->tolerance = -1.0;
    b->t->file = l->file;
    b->t->line = map->line;
    b->t->col = map->col;
    if (walk_fields(l, map, "a test", test_fields, N_TEST_FIELDS, b) != 0)
        return -1;
    return finish_test(l, b);
}

/* After the whole file: every depends_on names a loaded test. */
static int check_depends(struct spec_ld *l)
{
    for (size_t i = 0; i < l->pending.n; i++) {
        const struct spec_tbuild *b = l->pending.v[i];
        const struct sy_node *x = b->deps->first;
        for (size_t j = 0; j < b->t->n_depends_on; j++, x = x->next) {
            const char *id = b->t->depends_on[j];
            if (strcmp(id, b->t->id) == 0)
                return spec_ld_fail(l, x, "test '%s' depends on itself", id);
            if (spec_find(l->set, id) == NULL && spec_idtab_get(&l->ids, id) == NULL)
                return spec_ld_fail(l, x, "unknown test '%s' in 'depends_on' (no test with "
                            "this id is loaded)", id);
        }
    }
    return 0;
}

/* ---- source rules ------------------------------------------------------------ */

static int valid_rule_id(const char *s)
{
    return *s >= 'a' && *s <= 'z' &&
           s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_")] == '\0';
}

static int r_id(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    struct spec_rule *r = obj;

    if (get_string(l, v, "id", &r->id) != 0)
        return -1;
    if (!valid_rule_id(r->id))
        return spec_ld_fail(l, v, "invalid rule id '%.*s': expected lowercase letters, digits "
                    "and '_'", spec_ld_show(v), v->str);
    for (size_t i = 0; i < l->set->rules.n + l->rules.n; i++) {
        const struct spec_rule *o = i < l->set->rules.n
                                        ? l->set->rules.v[i]
                                        : l->rules.v[i - l->set->rules.n];
        if (strcmp(o->id, r->id) == 0)
            return spec_ld_fail(l, v, "duplicate rule id '%s' (first defined at %s:%d:%d)",
                        r->id, o->file, o->line, o->col);
    }
    return 0;
}

static int r_pattern(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    struct spec_rule *r = obj;
    PCRE2_UCHAR why[256];
    PCRE2_SIZE off;
    int code;
    pcre2_code *re;

    if (get_string(l, v, "pattern", &r->pattern) != 0)
        return -1;
    /* The same options as srcrules.c, which applies the rule. */
    re = pcre2_compile((PCRE2_SPTR)r->pattern, v->len, PCRE2_MULTILINE, &code, &off,
                       NULL);
    if (re != NULL) {
        pcre2_code_free(re);
        return 0;
    }
    if (pcre2_get_error_message(code, why, sizeof why) < 0)
        snprintf((char *)why, sizeof why, "error %d", code);
    return spec_ld_fail(l, v, "invalid 'pattern': %s at offset %zu", (const char *)why,
                (size_t)off);
}

static int r_message(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    return get_string(l, v, "message", &((struct spec_rule *)obj)->message);
}

static const struct field rule_fields[] = {
    {"id", r_id, 1}, {"pattern", r_pattern, 1}, {"message", r_message, 1}};

static int parse_rule(struct spec_ld *l, const struct sy_node *map)
{
    struct spec_rule *r = sy_alloc(&l->keep, sizeof *r);

    if (r == NULL)
        return spec_ld_oom(l);
    r->file = l->file;
    r->line = map->line;
    r->col = map->col;
    if (walk_fields(l, map, "a source rule", rule_fields, 3, r) != 0)
        return -1;
    return spec_pvec_push(&l->rules, r) != 0 ? spec_ld_oom(l) : 0;
}

/* ---- the top level -------------------------------------------------------------- */

static int top_version(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    double ver;
    int rc = spec_ld_number(l, v, &ver);

    (void)obj;
    if (rc < 0)
        return -1;
    if (v->kind != SY_SCALAR)
        return spec_ld_fail(l, v, "'version' must be 1, not %s", sy_kind_name(v));
    if (rc == 0 || ver != 1.0)
        return spec_ld_fail(l, v, "unsupported 'version' '%.*s' (this grader reads version 1)",
                    spec_ld_show(v), v->str);
    return 0;
}

static int top_rules(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    (void)obj;
    if (expect_list(l, v, "source_rules") != 0)
        return -1;
    for (const struct sy_node *x = v->first; x != NULL; x = x->next) {
        if (l->set->rules.n + l->rules.n >= SPEC_RULES_CAP)
            return spec_ld_fail(l, x, "too many source rules (at most %d)", SPEC_RULES_CAP);
        if (parse_rule(l, x) != 0)
            return -1;
    }
    return 0;
}

static int top_tests(struct spec_ld *l, void *obj, const struct sy_node *v)
{
    (void)obj;
    if (expect_list(l, v, "tests") != 0)
        return -1;
    for (const struct sy_node *x = v->first; x != NULL; x = x->next) {
        if (l->set->tests.n + l->tests.n >= SPEC_TESTS_CAP)
            return spec_ld_fail(l, x, "too many tests (at most %d)", SPEC_TESTS_CAP);
        if (parse_test(l, x) != 0)
            return -1;
    }
    return 0;
}

static const struct field top_fields[] = {
    {"version", top_version, 1}, {"source_rules", top_rules, 0}, {"tests", top_tests, 0}};

static int walk_root(struct spec_ld *l, const struct sy_node *root)
{
    if (root == NULL || (root->kind == SY_SCALAR && root->plain && root->len == 0))
        return err_set(l->e, l->name, 0, 0,
                       "empty spec: expected a map with 'version' and 'tests'");
    if (root->kind != SY_MAP)
        return spec_ld_fail(l, root, "expected a map with 'version' and 'tests' at the top "
                    "level, found %s", sy_kind_name(root));
    if (walk_fields(l, root, "the top level", top_fields, 3, NULL) != 0)
        return -1;
    if (l->tests.n == 0 && l->rules.n == 0)
        return spec_ld_fail(l, root, "the spec defines no tests and no source rules");
    return check_depends(l);
}

/* ---- load ----------------------------------------------------------------------- */

/* Move the batch into the set. Everything that can fail happens before
 * the first change, so a failure leaves the set as it was. */
static int commit(struct spec_ld *l)
{
    struct spec_set *s = l->set;
    unsigned char d[SHA256_DIGEST_LEN];
    struct sha256_ctx done;
    char (*upto)[SHA256_HEX_LEN] = realloc(s->upto, (s->n_files + 1) * sizeof *upto);

    if (upto == NULL)
        return spec_ld_oom(l);
    s->upto = upto; /* the same hashes, room for one more */
    if (spec_pvec_reserve(&s->tests, l->tests.n) != 0 ||
        spec_pvec_reserve(&s->rules, l->rules.n) != 0 ||
        spec_idtab_reserve(&s->ids, s->tests.n + l->tests.n) != 0)
        return spec_ld_oom(l);
    for (size_t i = 0; i < l->tests.n; i++) {
        s->tests.v[s->tests.n++] = l->tests.v[i];
        spec_idtab_put(&s->ids, l->tests.v[i]);
    }
    for (size_t i = 0; i < l->rules.n; i++)
        s->rules.v[s->rules.n++] = l->rules.v[i];
    sy_arena_splice(&s->arena, &l->keep);
    sha256_update(&s->sha, l->buf, l->len);
    done = s->sha;
    sha256_final(&done, d);
    sha256_to_hex(d, s->hex);
    memcpy(s->upto[s->n_files++], s->hex, sizeof s->hex);
    return 0;
}

static void ld_release(struct spec_ld *l)
{
    sy_arena_free(&l->tmp);
    sy_arena_free(&l->keep);
    free(l->tests.v);
    free(l->rules.v);
    free(l->pending.v);
    free(l->ids.slot);
}

int spec_load_buffer(struct spec_set *s, const char *name, const char *buf,
                     size_t len, spec_check_fn check, struct err *e)
{
    struct err local;
    struct spec_ld l = {.set = s, .name = name ? name : "<buffer>", .buf = buf,
                   .len = len, .check = check, .e = e ? e : &local};
    struct sy_node *root = NULL;
    int rc;

    if (len > SPEC_FILE_CAP)
        return err_set(l.e, NULL, 0, 0, "'%s' is too large (spec files are limited "
                       "to 1 MiB)", l.name);
    l.file = sy_strndup(&l.keep, l.name, strlen(l.name));
    if (l.file == NULL)
        rc = spec_ld_oom(&l);
    else if ((rc = sy_parse(l.name, buf, len, &l.tmp, &root, l.e)) == 0 &&
             (rc = walk_root(&l, root)) == 0)
        rc = commit(&l);
    ld_release(&l);
    return rc;
}

/* The spec file into sb, at most the cap. 0, or -1 with e set. */
static int read_capped(const char *path, struct sb *sb, struct err *e)
{
    enum sb_read r = sb_read_file(sb, path, SPEC_FILE_CAP);

    if (r == SB_READ_OPEN || r == SB_READ_IO)
        return err_set(e, NULL, 0, 0, "cannot read '%s': %s", path,
                       strerror(errno ? errno : EIO));
    if (r == SB_READ_CUT)
        return err_set(e, NULL, 0, 0, "'%s' is too large (spec files are limited to "
                       "1 MiB)", path);
    return r == SB_READ_CAP ? err_set(e, NULL, 0, 0, "out of memory") : 0;
}

int spec_load(struct spec_set *s, const char *path, spec_check_fn check,
              struct err *e)
{
    struct sb sb;
    int rc;

    sb_init(&sb, 0);
    rc = read_capped(path, &sb, e);
    if (rc == 0)
        rc = spec_load_buffer(s, path, sb_str(&sb), sb.len, check, e);
    sb_release(&sb);
    return rc;
}
