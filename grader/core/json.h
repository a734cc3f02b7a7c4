/*
 * json.h -- a tiny JSON writer into a capped strbuf, and a small strict
 * reader used to check what the writers produce.
 *
 * The writer never emits invalid JSON for any input bytes: strings are
 * escaped (\" \\ \n \r \t, other control characters as \u00XX) and bytes
 * that are not valid UTF-8 become U+FFFD; numbers are printed with at most
 * four decimals and never as nan or inf.
 */
#ifndef GRD_JSON_H
#define GRD_JSON_H

#include <stddef.h>

#include "core/err.h"
#include "core/strbuf.h"

/* ---- writing ---- */

/* Room json_fmt_num() needs, NUL included. */
#define JSON_NUM_MAX 48

/*
 * Format v with up to four decimals, trailing zeros and a trailing point
 * trimmed ("2", "1.5", "0.3333"); -0 and anything rounding to zero print
 * "0"; nan and +-inf print "0" (JSON has no spelling for them). Returns buf.
 */
char *json_fmt_num(double v, char buf[JSON_NUM_MAX]);

/* Append v as formatted by json_fmt_num(). Returns 0 or -1 (as sb_add). */
int json_add_num(struct strbuf *sb, double v)
    __attribute__((warn_unused_result));

/*
 * Append s[0..n) as a quoted JSON string. At most `max` input bytes are
 * taken (0: no limit); when more are left, " [... N bytes cut]" is added
 * inside the string. Returns 0 or -1 (as sb_add).
 */
int json_add_str(struct strbuf *sb, const char *s, size_t n, size_t max)
    __attribute__((warn_unused_result));

/* json_add_str() of a NUL-terminated string, NULL written as "". */
int json_add_strz(struct strbuf *sb, const char *s, size_t max)
    __attribute__((warn_unused_result));

/* Append "key": (the key is escaped like any string). Returns 0 or -1. */
int json_add_key(struct strbuf *sb, const char *key)
    __attribute__((warn_unused_result));

/* ---- reading ---- */

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
struct json_value *json_parse(const char *s, size_t n, struct grd_err *e)
    __attribute__((warn_unused_result));

/* Check s[0..n) as json_parse() does, keeping nothing. Returns 0 or -1. */
int json_validate(const char *s, size_t n, struct grd_err *e);

/* Free a tree from json_parse(). NULL is a no-op. */
void json_free(struct json_value *v);

/* The member `key` of object o, or NULL (also when o is not an object). */
const struct json_value *json_get(const struct json_value *o, const char *key);

/* Item i of array a, or NULL (also when a is not an array). */
const struct json_value *json_at(const struct json_value *a, size_t i);

#endif
