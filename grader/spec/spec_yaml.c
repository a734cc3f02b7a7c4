/*
 * spec_yaml.c -- see spec_yaml.h.
 */
#include "spec/spec_yaml.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define ARENA_BLOCK 65536
#define DEPTH_CAP 16        /* the spec schema itself needs 6 levels */
#define SHOW 60             /* at most this many bytes of a value in messages */

/* ---- arena: many small allocations, freed at once ---------------------- */

struct sy_block {
    struct sy_block *next;
    size_t used, cap;
    alignas(max_align_t) unsigned char data[];
};

/* Zeroed memory for n bytes, aligned for any type; NULL when out of memory. */
void *sy_alloc(struct sy_arena *a, size_t n)
{
    const size_t al = alignof(max_align_t);
    struct sy_block *b = a->head;
    void *p;

    if (n > SIZE_MAX / 2)
        return NULL;
    n = (n + al - 1) / al * al;
    if (b == NULL || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (b == NULL)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    p = b->data + b->used;
    b->used += n;
    return memset(p, 0, n);
}

/* An array of n elements of `size` bytes, with the product checked. */
void *sy_array(struct sy_arena *a, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / 2 / size)
        return NULL;
    return sy_alloc(a, n * size);
}

char *sy_strndup(struct sy_arena *a, const char *s, size_t n)
{
    char *p = sy_alloc(a, n + 1);

    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

void sy_arena_free(struct sy_arena *a)
{
    while (a->head != NULL) {
        struct sy_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

/* Move every block of `src` into `dst`; src is left empty. Cannot fail. */
void sy_arena_splice(struct sy_arena *dst, struct sy_arena *src)
{
    struct sy_block *tail = src->head;

    if (tail == NULL)
        return;
    while (tail->next != NULL)
        tail = tail->next;
    tail->next = dst->head;
    dst->head = src->head;
    src->head = NULL;
}

const char *sy_kind_name(const struct sy_node *n)
{
    static const char *const names[] = {"a scalar", "a list", "a map"};

    if (n->kind == SY_SCALAR && n->plain && n->len == 0)
        return "an empty value";
    return names[n->kind];
}

/* ---- events to tree ---------------------------------------------------- */

struct yctx {
    const char *name;        /* the file, for messages */
    const char *buf;
    size_t len;
    struct sy_arena *a;
    struct err *e;
};

static int yfail(struct yctx *l, const struct sy_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int yfail(struct yctx *l, const struct sy_node *at, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(l->e, l->name, at->line, at->col, "%s", msg);
}

static int yoom(struct yctx *l)
{
    return err_set(l->e, l->name, 0, 0, "out of memory");
}

/* The length to show of a scalar in a message, with "%.*s". */
static int show(const struct sy_node *n)
{
    return (int)(n->len > SHOW ? SHOW : n->len);
}

struct tb {
    struct sy_node *root, *cur;
    int depth, docs, done;
};

static int mark_num(size_t v)
{
    return v >= INT_MAX ? INT_MAX : (int)v + 1;
}

static struct sy_node *new_node(struct yctx *l, struct tb *b, enum sy_kind k,
                              const yaml_mark_t *m)
{
    struct sy_node *n = sy_alloc(l->a, sizeof *n);

    if (n == NULL)
        return NULL;
    n->kind = k;
    n->line = mark_num(m->line);
    n->col = mark_num(m->column);
    n->parent = b->cur;
    if (b->cur == NULL)
        b->root = n;
    else if (b->cur->last == NULL)
        b->cur->first = b->cur->last = n;
    else
        b->cur->last = b->cur->last->next = n;
    if (b->cur != NULL)
        b->cur->n++;
    return n;
}

/* Position of a byte offset, for reader errors that carry no mark. */
static void offset_pos(const struct yctx *l, size_t off, int *line, int *col)
{
    size_t bol = 0;

    *line = 1;
    for (size_t i = 0; i < off && i < l->len; i++)
        if (l->buf[i] == '\n') {
            (*line)++;
            bol = i + 1;
        }
    *col = mark_num(off - bol);
}

static int parse_fail(struct yctx *l, const yaml_parser_t *p)
{
    int line = mark_num(p->problem_mark.line), col = mark_num(p->problem_mark.column);
    const char *problem = p->problem ? p->problem : "unknown error";

    if (p->error == YAML_MEMORY_ERROR)
        return yoom(l);
    if (p->error == YAML_READER_ERROR)
        offset_pos(l, p->problem_offset, &line, &col);
    if (p->context != NULL)
        return err_set(l->e, l->name, line, col, "invalid yaml: %s (%s)", problem,
                       p->context);
    return err_set(l->e, l->name, line, col, "invalid yaml: %s", problem);
}

/* Anchors, aliases and tags would let one node stand for many (and
 * explicit tags change types); the schema needs none of them. */
static int refuse_extras(struct yctx *l, const yaml_event_t *ev, const yaml_char_t *anchor,
                         const yaml_char_t *tag)
{
    struct sy_node at = {.line = mark_num(ev->start_mark.line),
                       .col = mark_num(ev->start_mark.column)};

    if (anchor != NULL)
        return yfail(l, &at, "anchors are not supported");
    if (tag != NULL)
        return yfail(l, &at, "tags are not supported");
    return 0;
}

static int add_scalar(struct yctx *l, struct tb *b, const yaml_event_t *ev)
{
    struct sy_node *n;
    const char *text = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;

    if (refuse_extras(l, ev, ev->data.scalar.anchor, ev->data.scalar.tag) != 0)
        return -1;
    n = new_node(l, b, SY_SCALAR, &ev->start_mark);
    if (n == NULL || (n->str = sy_strndup(l->a, text, len)) == NULL)
        return yoom(l);
    n->len = len;
    n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (memchr(text, '\0', len) != NULL)
        return yfail(l, n, "strings must not contain NUL characters");
    return 0;
}

static int open_node(struct yctx *l, struct tb *b, const yaml_event_t *ev, enum sy_kind k)
{
    const yaml_char_t *anchor = k == SY_MAP ? ev->data.mapping_start.anchor
                                           : ev->data.sequence_start.anchor;
    const yaml_char_t *tag = k == SY_MAP ? ev->data.mapping_start.tag
                                        : ev->data.sequence_start.tag;
    struct sy_node *n;

    if (refuse_extras(l, ev, anchor, tag) != 0)
        return -1;
    n = new_node(l, b, k, &ev->start_mark);
    if (n == NULL)
        return yoom(l);
    if (++b->depth > DEPTH_CAP)
        return yfail(l, n, "nesting too deep (more than %d levels)", DEPTH_CAP);
    b->cur = n;
    return 0;
}

/* Add one event to the tree. A flat switch over the event types. */
static int add_event(struct yctx *l, struct tb *b, const yaml_event_t *ev)
{
    struct sy_node at = {.line = mark_num(ev->start_mark.line),
                       .col = mark_num(ev->start_mark.column)};

    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (b->docs++ > 0)
            return yfail(l, &at, "only one yaml document is allowed per file");
        return 0;
    case YAML_SCALAR_EVENT:
        return add_scalar(l, b, ev);
    case YAML_SEQUENCE_START_EVENT:
        return open_node(l, b, ev, SY_SEQ);
    case YAML_MAPPING_START_EVENT:
        return open_node(l, b, ev, SY_MAP);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        b->cur = b->cur->parent;
        b->depth--;
        return 0;
    case YAML_ALIAS_EVENT:
        return yfail(l, &at, "aliases are not supported");
    case YAML_STREAM_END_EVENT:
        b->done = 1;
        return 0;
    default:
        return 0;
    }
}

int sy_parse(const char *name, const char *buf, size_t len, struct sy_arena *a,
             struct sy_node **root, struct err *e)
{
    struct yctx ctx = {.name = name, .buf = buf, .len = len, .a = a, .e = e}, *l = &ctx;
    yaml_parser_t p;
    yaml_event_t ev;
    struct tb b = {0};
    int rc = 0;

    if (!yaml_parser_initialize(&p))
        return yoom(l);
    yaml_parser_set_input_string(&p, (const unsigned char *)l->buf, l->len);
    while (rc == 0 && !b.done) {
        if (!yaml_parser_parse(&p, &ev)) {
            rc = parse_fail(l, &p);
            break;
        }
        rc = add_event(l, &b, &ev);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    *root = b.root;
    return rc;
}

/* ---- scalars ----------------------------------------------------------- */

/* Levenshtein distance of a[0..na) and b, or a large value when too long. */
static size_t edit_distance(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b), row[64];

    if (na >= 64 || nb >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[nb];
}

/* The closest of names[0..n) to the scalar, when close enough to be a
 * likely typo (at most 2 edits, and fewer than half the letters). */
const char *sy_suggest(const struct sy_node *k, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3;

    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(k->str, k->len, names[i]);
        size_t longest = k->len > strlen(names[i]) ? k->len : strlen(names[i]);
        if (d < best_d && 2 * d < longest) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}

static int is_special_float(const char *s, double *out)
{
    static const char *const inf[] = {".inf", ".Inf", ".INF"};
    static const char *const nan[] = {".nan", ".NaN", ".NAN"};
    double sign = *s == '-' ? -1.0 : 1.0;
    const char *body = (*s == '-' || *s == '+') ? s + 1 : s;

    for (int i = 0; i < 3; i++) {
        if (strcmp(body, inf[i]) == 0) {
            *out = sign * INFINITY;
            return 1;
        }
        if (strcmp(s, nan[i]) == 0) {
            *out = NAN;
            return 1;
        }
    }
    return 0;
}

/* Refusing strtod's "inf", "nan" and hex rather than reading them as
 * strings catches a spec author's typo instead of testing the wrong thing. */
int sy_number(const char *name, const struct sy_node *n, double *out,
              struct err *e)
{
    struct yctx ctx = {.name = name, .e = e}, *l = &ctx;
    char *end;

    if (n->kind != SY_SCALAR || !n->plain || n->len == 0)
        return 0;
    if (is_special_float(n->str, out))
        return 1;
    errno = 0;
    *out = strtod(n->str, &end);
    if (end == n->str || *end != '\0')
        return 0;
    if (strpbrk(n->str, "xXiInN") != NULL)
        return yfail(l, n, "value '%.*s' is ambiguous: write a decimal number, .inf, "
                     "-.inf or .nan, or quote it for a string", show(n), n->str);
    if (errno == ERANGE && isinf(*out))
        return yfail(l, n, "number '%.*s' is out of range", show(n), n->str);
    return 1;
}
