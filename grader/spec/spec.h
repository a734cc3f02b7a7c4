/*
 * spec.h -- the YAML test specifications (libyaml), loaded and validated.
 *
 * A spec file holds a list of tests (see specs/README.md for the schema).
 * A `struct spec_set` gathers the tests of one or more files, in file
 * order, so that `--spec a.yaml --spec b.yaml` grades both together.
 * Everything a test or case points to is owned by the set and lives until
 * spec_set_free().
 *
 * Validation is complete before anything is graded: an unknown key, a wrong
 * type, an unknown function or property, a duplicate id, points <= 0, a
 * dangling depends_on or an empty `cases` list is refused with the
 * file:line:column of the offending node.
 */
#ifndef GRD_SPEC_H
#define GRD_SPEC_H

#include <stddef.h>

#include "core/err.h"

enum spec_visibility { SPEC_VISIBLE, SPEC_HIDDEN, SPEC_AFTER_DUE_DATE };
enum spec_scoring { SPEC_ALL_OR_NOTHING, SPEC_PARTIAL };
enum spec_value_kind { SPEC_NUM, SPEC_STR, SPEC_LIST };

/* One `key: value` of a case. A list holds numbers only. */
struct spec_param {
    const char *key;
    enum spec_value_kind kind;
    double num;            /* SPEC_NUM */
    const char *str;       /* SPEC_STR */
    const double *list;    /* SPEC_LIST */
    size_t list_len;
    int line, col;
};

/* One case: a map of parameters (shapes, seeds, magnitudes, masks). */
struct spec_case {
    const struct spec_param *params;
    size_t n_params;
    int line, col;
};

struct spec_test {
    const char *id;          /* "<function>.<property>[...]", unique */
    const char *title;
    const char *function;    /* softmax, sdpa, pe, mha, layernorm, block */
    const char *property;
    double points;           /* > 0 */
    enum spec_visibility visibility;
    const struct spec_case *cases; /* n_cases >= 1, in file order */
    size_t n_cases;
    double tolerance;        /* < 0 when not given: the property's default */
    long timeout_ms;         /* 0 when not given: derived (see sbx.h) */
    const char *hint;        /* NULL when not given */
    const char *hint_premise;/* the evidence the hint assumes, a predicate
                                of props/prop_premise.h; NULL: none (the
                                hint is shown for any failure) */
    const char *const *depends_on;
    size_t n_depends_on;
    enum spec_scoring scoring;
    const char *file;        /* the spec file it came from */
    int line, col;           /* where the test's map starts */
};

/* A regular expression that the submission's source must not match. */
struct spec_rule {
    const char *id;
    const char *pattern;     /* PCRE2 syntax, validated at load */
    const char *message;     /* shown to the student when it matches */
    const char *file;
    int line, col;
};

/*
 * The part of validation that only the property registry knows: is
 * (function, property) known, and are these case keys allowed? Returns 0 or
 * -1 with `e` set (spec_load fills in file/line/col when the callback left
 * them empty).
 */
typedef int (*spec_check_fn)(const struct spec_test *t, const struct spec_case *c,
                             struct err *e);

struct spec_set;

/* A new empty set; NULL when out of memory. */
struct spec_set *spec_set_new(void);

/* Free the set and everything it owns. NULL is a no-op. */
void spec_set_free(struct spec_set *s);

/*
 * Load and validate one file into `s`. `check` (may be NULL) is called for
 * every case of every test. Returns 0, or -1 with `e` set; on failure the
 * set is left exactly as it was before the call.
 */
int spec_load(struct spec_set *s, const char *path, spec_check_fn check,
              struct err *e) __attribute__((warn_unused_result));

/* Same as spec_load, from a buffer; `name` is used in messages. */
int spec_load_buffer(struct spec_set *s, const char *name, const char *buf,
                     size_t len, spec_check_fn check, struct err *e)
    __attribute__((warn_unused_result));

size_t spec_test_count(const struct spec_set *s);
const struct spec_test *spec_test_at(const struct spec_set *s, size_t i);

/* The test with this id, or NULL. */
const struct spec_test *spec_find(const struct spec_set *s, const char *id);

size_t spec_rule_count(const struct spec_set *s);
const struct spec_rule *spec_rule_at(const struct spec_set *s, size_t i);

/* Lowercase hex SHA-256 over the bytes of every loaded file, in load
 * order (65 bytes with the NUL). Recorded in gradebooks. */
const char *spec_sha256(const struct spec_set *s);

/* The number of files loaded, and the SHA-256 (hex) over the bytes of the
 * first k of them, in load order (1 <= k <= count; k = count gives
 * spec_sha256), or NULL when k is out of range: golden data made for the
 * first files of a set names this hash (cli.c). */
size_t spec_file_count(const struct spec_set *s);
const char *spec_sha256_upto(const struct spec_set *s, size_t k);

/* Helpers for properties reading a case. Each returns `def` when the key
 * is absent (validation has already checked types). */
double spec_num(const struct spec_case *c, const char *key, double def);
const char *spec_str(const struct spec_case *c, const char *key, const char *def);
const struct spec_param *spec_param(const struct spec_case *c, const char *key);

#endif
