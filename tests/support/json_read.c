/* json_read.c -- see json_read.h. The tests' own reader: not in the
 * grader, which writes JSON and never reads it. */
#include "support/json_read.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

struct rd {
    const char *s;
    size_t n, pos;
    int depth;
    struct err *e;
};

static int parse_value(struct rd *r, struct json_value *v);

static int fail(struct rd *r, const char *what)
{
    return err_set(r->e, NULL, 0, 0, "json: %s at byte %zu", what, r->pos);
}

static void skip_ws(struct rd *r)
{
    while (r->pos < r->n && strchr(" \t\r\n", r->s[r->pos]) && r->s[r->pos])
        r->pos++;
}

static int peek(const struct rd *r)
{
    return r->pos < r->n ? (unsigned char)r->s[r->pos] : -1;
}

static int expect_word(struct rd *r, const char *w)
{
    size_t len = strlen(w);

    if (r->n - r->pos < len || memcmp(r->s + r->pos, w, len) != 0)
        return fail(r, "unexpected character");
    r->pos += len;
    return 0;
}

static size_t digits(struct rd *r)
{
    size_t start = r->pos;

    while (r->pos < r->n && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
        r->pos++;
    return r->pos - start;
}

/* RFC 8259 number grammar; the value through strtod on a bounded copy. */
static int parse_num(struct rd *r, struct json_value *v)
{
    size_t start = r->pos;
    char tmp[64];

    if (peek(r) == '-')
        r->pos++;
    if (peek(r) == '0')
        r->pos++;
    else if (digits(r) == 0)
        return fail(r, "bad number");
    if (peek(r) == '.' && (r->pos++, digits(r) == 0))
        return fail(r, "bad fraction");
    if (peek(r) == 'e' || peek(r) == 'E') {
        r->pos++;
        if (peek(r) == '+' || peek(r) == '-')
            r->pos++;
        if (digits(r) == 0)
            return fail(r, "bad exponent");
    }
    v->type = JSON_NUM;
    snprintf(tmp, sizeof tmp, "%.*s", (int)(r->pos - start), r->s + start);
    v->num = strtod(tmp, NULL);
    return 0;
}

static int hex4(struct rd *r, uint32_t *out)
{
    size_t i;

    *out = 0;
    if (r->n - r->pos < 4)
        return fail(r, "short \\u escape");
    for (i = 0; i < 4; i++) {
        char c = r->s[r->pos++];
        int d = (c >= '0' && c <= '9') ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (d < 0)
            return fail(r, "bad \\u escape");
        *out = (*out << 4) | (uint32_t)d;
    }
    return 0;
}

/* After "\u": one code point, joining a surrogate pair. */
static int parse_u(struct rd *r, uint32_t *cp)
{
    uint32_t lo;

    if (hex4(r, cp) < 0)
        return -1;
    if (*cp >= 0xDC00 && *cp <= 0xDFFF)
        return fail(r, "lone low surrogate");
    if (*cp < 0xD800 || *cp > 0xDBFF)
        return 0;
    if (expect_word(r, "\\u") < 0 || hex4(r, &lo) < 0)
        return fail(r, "lone high surrogate");
    if (lo < 0xDC00 || lo > 0xDFFF)
        return fail(r, "bad surrogate pair");
    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
    return 0;
}

static int parse_escape(struct rd *r, struct sb *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *p;
    uint32_t cp;

    if (r->pos >= r->n)
        return fail(r, "unterminated string");
    p = strchr(from, r->s[r->pos]);
    if (p != NULL && *p) {
        r->pos++;
        return sb_addch(out, to[p - from]);
    }
    if (r->s[r->pos++] != 'u')
        return fail(r, "bad escape");
    if (parse_u(r, &cp) < 0)
        return -1;
    return sb_add_utf8(out, cp);
}

/* A string at r->pos (on the opening quote), decoded into `out`. */
static int parse_str_into(struct rd *r, struct sb *out)
{
    size_t adv;

    r->pos++;
    for (;;) {
        int c = peek(r);

        if (c < 0)
            return fail(r, "unterminated string");
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(r, "control character in string");
        if (c == '\\') {
            r->pos++;
            if (parse_escape(r, out) < 0)
                return -1;
            continue;
        }
        if (sb_utf8_next(r->s + r->pos, r->n - r->pos, &adv) < 0)
            return fail(r, "invalid utf-8");
        if (sb_add(out, r->s + r->pos, adv) < 0)
            return fail(r, "string too long");
        r->pos += adv;
    }
    r->pos++;
    return 0;
}

static int parse_str(struct rd *r, char **s, size_t *len)
{
    struct sb sb;

    sb_init(&sb, r->n + 1);
    if (parse_str_into(r, &sb) < 0) {
        sb_release(&sb);
        return -1;
    }
    *s = sb_detach(&sb, len);
    return *s ? 0 : fail(r, "out of memory");
}

/* Grow a container's arrays by one zeroed member. */
static struct json_value *add_member(struct json_value *v, int with_key)
{
    struct json_value *items = realloc(v->items, (v->n + 1) * sizeof *items);
    char **keys;

    if (items == NULL)
        return NULL;
    v->items = items;
    memset(&items[v->n], 0, sizeof *items);
    if (with_key) {
        keys = realloc(v->keys, (v->n + 1) * sizeof *keys);
        if (keys == NULL)
            return NULL;
        v->keys = keys;
        keys[v->n] = NULL;
    }
    return &items[v->n++];
}

static int parse_member(struct rd *r, struct json_value *v, int is_obj)
{
    struct json_value *m = add_member(v, is_obj);

    if (m == NULL)
        return fail(r, "out of memory");
    if (is_obj) {
        skip_ws(r);
        if (peek(r) != '"')
            return fail(r, "expected a key");
        if (parse_str(r, &v->keys[v->n - 1], NULL) < 0)
            return -1;
        skip_ws(r);
        if (peek(r) != ':')
            return fail(r, "expected ':'");
        r->pos++;
    }
    return parse_value(r, m);
}

/* An array or object at r->pos (on its opening bracket). */
static int parse_container(struct rd *r, struct json_value *v, int is_obj)
{
    char close = is_obj ? '}' : ']';

    if (++r->depth > JSON_MAX_DEPTH)
        return fail(r, "nesting too deep");
    v->type = is_obj ? JSON_OBJ : JSON_ARR;
    r->pos++;
    skip_ws(r);
    if (peek(r) == close) {
        r->pos++, r->depth--;
        return 0;
    }
    for (;;) {
        if (parse_member(r, v, is_obj) < 0)
            return -1;
        skip_ws(r);
        if (peek(r) == close)
            break;
        if (peek(r) != ',')
            return fail(r, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
        r->pos++;
    }
    r->pos++, r->depth--;
    return 0;
}

static int parse_value(struct rd *r, struct json_value *v)
{
    int c;

    skip_ws(r);
    c = peek(r);
    switch (c) {
    case '{': return parse_container(r, v, 1);
    case '[': return parse_container(r, v, 0);
    case '"':
        v->type = JSON_STR;
        return parse_str(r, &v->str, &v->str_len);
    case 't': v->type = JSON_BOOL, v->boolean = 1; return expect_word(r, "true");
    case 'f': v->type = JSON_BOOL; return expect_word(r, "false");
    case 'n': v->type = JSON_NULL; return expect_word(r, "null");
    default: break;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return parse_num(r, v);
    return fail(r, c < 0 ? "unexpected end" : "unexpected character");
}

static void free_members(struct json_value *v)
{
    size_t i;

    for (i = 0; i < v->n && v->items; i++) {
        free_members(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

void json_free(struct json_value *v)
{
    if (v == NULL)
        return;
    free_members(v);
    free(v);
}

struct json_value *json_parse(const char *s, size_t n, struct err *e)
{
    struct rd r = { s, n, 0, 0, e };
    struct json_value *v = calloc(1, sizeof *v);

    if (v == NULL) {
        err_set(e, NULL, 0, 0, "json: out of memory");
        return NULL;
    }
    if (parse_value(&r, v) == 0) {
        skip_ws(&r);
        if (r.pos == r.n)
            return v;
        fail(&r, "trailing characters");
    }
    json_free(v);
    return NULL;
}

int json_validate(const char *s, size_t n, struct err *e)
{
    struct json_value *v = json_parse(s, n, e);

    if (v == NULL)
        return -1;
    json_free(v);
    return 0;
}

const struct json_value *json_get(const struct json_value *o, const char *key)
{
    size_t i;

    if (o == NULL || o->type != JSON_OBJ)
        return NULL;
    for (i = 0; i < o->n; i++)
        if (o->keys[i] && strcmp(o->keys[i], key) == 0)
            return &o->items[i];
    return NULL;
}

const struct json_value *json_at(const struct json_value *a, size_t i)
{
    if (a == NULL || a->type != JSON_ARR || i >= a->n)
        return NULL;
    return &a->items[i];
}
