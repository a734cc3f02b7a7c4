/*
 * json.h -- a tiny JSON writer into a capped strbuf (the tests read what
 * it writes with their own strict reader, tests/support/json_read.h).
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
int json_add_num(struct sb *sb, double v)
    __attribute__((warn_unused_result));

/*
 * Append s[0..n) as a quoted JSON string. At most `max` input bytes are
 * taken (0: no limit); when more are left, " [... N bytes cut]" is added
 * inside the string. Returns 0 or -1 (as sb_add).
 */
int json_add_str(struct sb *sb, const char *s, size_t n, size_t max)
    __attribute__((warn_unused_result));

/* json_add_str() of a NUL-terminated string, NULL written as "". */
int json_add_strz(struct sb *sb, const char *s, size_t max)
    __attribute__((warn_unused_result));

/* Append "key": (the key is escaped like any string). Returns 0 or -1. */
int json_add_key(struct sb *sb, const char *key)
    __attribute__((warn_unused_result));

#endif
