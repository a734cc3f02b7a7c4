/*
 * json_read.h -- a small strict JSON reader for the tests: they check what
 * the grader's writers (core/json.h, report/, batch/) produce with it. It
 * is linked into the test binaries only (tests/support/, the Makefile's
 * TEST_SUPPORT); the grader itself never reads JSON.
 */
#ifndef GRD_TEST_JSON_READ_H
#define GRD_TEST_JSON_READ_H

#include <stddef.h>

#include "core/err.h"

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

/* A parsed value: a plain tree, freed with json_free(). */
struct json_value {
    enum json_type type;
    int boolean;                  /* JSON_BOOL */
    double num;                   /* JSON_NUM */
    char *str;                    /* JSON_STR: decoded, NUL-terminated */
    size_t str_len;
    size_t n;                     /* JSON_ARR / JSON_OBJ: members */
    struct json_value *items;     /* n children, in document order */
    char **keys;                  /* JSON_OBJ: n decoded keys */
};

/* Deepest nesting the reader accepts. */
#define JSON_MAX_DEPTH 64

/*
 * Parse s[0..n) as one strict RFC 8259 document (no comments, no trailing
 * commas, valid UTF-8, no control characters in strings, nothing after the
 * value but whitespace). Returns a tree the caller frees with json_free(),
 * or NULL with `e` set ("json: ... at byte N").
 */
struct json_value *json_parse(const char *s, size_t n, struct err *e)
    __attribute__((warn_unused_result));

/* Check s[0..n) as json_parse() does, keeping nothing. Returns 0 or -1. */
int json_validate(const char *s, size_t n, struct err *e);

/* Free a tree from json_parse(). NULL is a no-op. */
void json_free(struct json_value *v);

/* The member `key` of object o, or NULL (also when o is not an object). */
const struct json_value *json_get(const struct json_value *o, const char *key);

/* Item i of array a, or NULL (also when a is not an array). */
const struct json_value *json_at(const struct json_value *a, size_t i);

#endif
