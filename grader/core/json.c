/* json.c -- see json.h. */
#include "core/json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

/* Drop trailing zeros after a decimal point, then the point itself. */
static void trim_zeros(char *buf)
{
    char *end;

    if (strchr(buf, '.') == NULL)
        return;
    end = buf + strlen(buf);
    while (end > buf && end[-1] == '0')
        *--end = '\0';
    if (end > buf && end[-1] == '.')
        end[-1] = '\0';
}

char *json_fmt_num(double v, char buf[JSON_NUM_MAX])
{
    if (!isfinite(v)) {
        snprintf(buf, JSON_NUM_MAX, "0");
        return buf;
    }
    /* %.4f of a huge value would not fit; scores never get there */
    if (fabs(v) >= 1e15) {
        snprintf(buf, JSON_NUM_MAX, "%.6e", v);
        return buf;
    }
    snprintf(buf, JSON_NUM_MAX, "%.4f", v);
    trim_zeros(buf);
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, JSON_NUM_MAX, "0");
    return buf;
}

int json_add_num(struct sb *sb, double v)
{
    char buf[JSON_NUM_MAX];

    return sb_adds(sb, json_fmt_num(v, buf));
}

/* Append one decoded character (cp < 0: an invalid byte) escaped. */
static int add_escaped(struct sb *sb, int32_t cp)
{
    switch (cp) {
    case '"': return sb_add(sb, "\\\"", 2);
    case '\\': return sb_add(sb, "\\\\", 2);
    case '\n': return sb_add(sb, "\\n", 2);
    case '\r': return sb_add(sb, "\\r", 2);
    case '\t': return sb_add(sb, "\\t", 2);
    default: break;
    }
    if (cp < 0)
        return sb_add(sb, "\\ufffd", 6);
    if (cp < 0x20 || cp == 0x7F)
        return sb_addf(sb, "\\u%04x", (unsigned)cp);
    return sb_add_utf8(sb, (uint32_t)cp);
}

int json_add_str(struct sb *sb, const char *s, size_t n, size_t max)
{
    size_t i = 0, adv, stop = (max && n > max) ? max : n;
    int rc = sb_addch(sb, '"');

    while (rc == 0 && i < stop) {
        int32_t cp = sb_utf8_next(s + i, n - i, &adv);

        rc = add_escaped(sb, cp);
        i += adv;
    }
    if (rc == 0 && i < n)
        rc = sb_addf(sb, " [... %zu bytes cut]", n - i);
    return rc ? rc : sb_addch(sb, '"');
}

int json_add_strz(struct sb *sb, const char *s, size_t max)
{
    return s ? json_add_str(sb, s, strlen(s), max) : sb_add(sb, "\"\"", 2);
}

int json_add_key(struct sb *sb, const char *key)
{
    if (json_add_strz(sb, key, 0) < 0)
        return -1;
    return sb_addch(sb, ':');
}
