/* answers.c -- see answers.h. */
#include "selfcheck/answers.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/strbuf.h"

/* The word tokens `make map` prints, after lower-casing. */
static const char word_pattern[] = "^[a-z0-9']+$";

struct ctx {
    const char *name;
    yaml_document_t *doc;
    struct ans_answers *a;
    pcre2_code *word_re;
    struct err *e;
};

/* A field of a mapping and its handler. */
struct field {
    const char *key;
    int (*set)(struct ctx *c, yaml_node_t *v);
};

static struct ans_loc loc_of(const yaml_node_t *n)
{
    struct ans_loc l = {(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};

    return l;
}

static int fail(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;
    struct ans_loc l = n ? loc_of(n) : (struct ans_loc){0, 0};

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(c->e, c->name, l.line, l.col, "%s", msg);
}

static yaml_node_t *node(struct ctx *c, int id)
{
    return yaml_document_get_node(c->doc, id);
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* ---- typed values ------------------------------------------------------------ */

static int get_string(struct ctx *c, yaml_node_t *v, const char *what, char **out)
{
    if (v->type != YAML_SCALAR_NODE)
        return fail(c, v, "'%s' must be a string", what);
    if (v->data.scalar.length > ANS_TEXT_MAX)
        return fail(c, v, "'%s' is longer than %u bytes", what, ANS_TEXT_MAX);
    if (memchr(scalar(v), '\0', v->data.scalar.length) != NULL)
        return fail(c, v, "'%s' holds a NUL character", what);
    free(*out);
    if ((*out = strdup(scalar(v))) == NULL)
        return fail(c, v, "out of memory");
    return 0;
}

static int get_number(struct ctx *c, yaml_node_t *v, const char *what, double *out)
{
    char *end;

    if (v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return fail(c, v, "'%s' must be a number", what);
    errno = 0;
    *out = strtod(scalar(v), &end);
    if (end == scalar(v) || *end != '\0' || !isfinite(*out))
        return fail(c, v, "'%s' must be a number, not '%.40s'", what, scalar(v));
    return 0;
}

static int get_bool(struct ctx *c, yaml_node_t *v, const char *what, int *out)
{
    const char *s = v->type == YAML_SCALAR_NODE ? scalar(v) : "";

    if (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0)
        *out = 1;
    else if (strcmp(s, "false") == 0 || strcmp(s, "no") == 0)
        *out = 0;
    else
        return fail(c, v, "'%s' must be true or false", what);
    return 0;
}

/* A hand-written word: lower-cased, then checked against word_pattern. */
static int get_word(struct ctx *c, yaml_node_t *v, const char *what, char *out)
{
    pcre2_match_data *md;
    size_t len;
    int rc;

    if (v->type != YAML_SCALAR_NODE)
        return fail(c, v, "'%s' must be a word", what);
    len = v->data.scalar.length;
    if (len == 0 || len > SC_WORD_MAX)
        return fail(c, v, "'%s' must be a word of 1..%d letters", what, SC_WORD_MAX);
    for (size_t i = 0; i <= len; i++)
        out[i] = (char)tolower((unsigned char)scalar(v)[i]);
    if ((md = pcre2_match_data_create_from_pattern(c->word_re, NULL)) == NULL)
        return fail(c, v, "out of memory");
    rc = pcre2_match(c->word_re, (PCRE2_SPTR)out, len, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    if (rc < 0)
        return fail(c, v, "'%.40s' is not a word token: write the word as `make map` "
                    "prints it (lower-case letters, digits, apostrophes)", scalar(v));
    return 0;
}

/* ---- mappings ------------------------------------------------------------------ */

/* Walk mapping m, calling each known key's handler once, in file order. */
static int walk_map(struct ctx *c, yaml_node_t *m, const char *what,
                    const struct field *fields, size_t n_fields)
{
    unsigned seen = 0;

    if (m->type != YAML_MAPPING_NODE)
        return fail(c, m, "'%s' must be a mapping of keys to values", what);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
        size_t i = 0;
        if (k->type != YAML_SCALAR_NODE)
            return fail(c, k, "a key in '%s' must be a plain word", what);
        while (i < n_fields && strcmp(fields[i].key, scalar(k)) != 0)
            i++;
        if (i == n_fields)
            return fail(c, k, "unknown key '%.40s' in '%s'", scalar(k), what);
        if (seen & (1u << i))
            return fail(c, k, "duplicate key '%s' in '%s'", fields[i].key, what);
        seen |= 1u << i;
        if (fields[i].set(c, v) < 0)
            return -1;
    }
    return 0;
}

/* top_pairs entries */
static struct ans_pair *cur_pair(struct ctx *c)
{
    return &c->a->pairs[c->a->n_pairs];
}

static int p_query(struct ctx *c, yaml_node_t *v)
{
    return get_word(c, v, "query", cur_pair(c)->query);
}

static int p_key(struct ctx *c, yaml_node_t *v)
{
    return get_word(c, v, "key", cur_pair(c)->key);
}

static int p_weight(struct ctx *c, yaml_node_t *v)
{
    cur_pair(c)->has_weight = 1;
    return get_number(c, v, "weight", &cur_pair(c)->weight);
}

static const struct field pair_fields[] = {
    {"query", p_query}, {"key", p_key}, {"weight", p_weight},
};

static int one_pair(struct ctx *c, yaml_node_t *v)
{
    struct ans_pair *p = cur_pair(c);

    p->at = loc_of(v);
    if (walk_map(c, v, "top_pairs", pair_fields, 3) < 0)
        return -1;
    if (p->query[0] == '\0' || p->key[0] == '\0' || !p->has_weight)
        return fail(c, v, "each of 'top_pairs' needs 'query', 'key' and 'weight'");
    c->a->n_pairs++;
    return 0;
}

static int f_top_pairs(struct ctx *c, yaml_node_t *v)
{
    c->a->pairs_at = loc_of(v);
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(c, v, "'top_pairs' must be a list of {query, key, weight}");
    for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
        if (c->a->n_pairs == ANS_MAX_PAIRS)
            return fail(c, node(c, *i), "too many 'top_pairs' (the assignment asks for three)");
        if (one_pair(c, node(c, *i)) < 0)
            return -1;
    }
    return 0;
}

/* part2: a list of free-text answers, or one text */
static int f_part2(struct ctx *c, yaml_node_t *v)
{
    struct ans_answers *a = c->a;

    a->part2_at = loc_of(v);
    if (v->type == YAML_SCALAR_NODE) {
        a->n_part2 = 1;
        return get_string(c, v, "part2", &a->part2[0]);
    }
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(c, v, "'part2' must be a list of answers, one per pair");
    for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
        if (a->n_part2 == ANS_MAX_PAIRS)
            return fail(c, node(c, *i), "too many answers in 'part2'");
        if (get_string(c, node(c, *i), "part2", &a->part2[a->n_part2++]) < 0)
            return -1;
    }
    return 0;
}

static int p3_text(struct ctx *c, yaml_node_t *v)
{
    c->a->part3_text_at = loc_of(v);
    return get_string(c, v, "part3.text", &c->a->part3_text);
}

static int p3_vectors(struct ctx *c, yaml_node_t *v)
{
    return get_string(c, v, "part3.vectors", &c->a->part3_vectors);
}

static int p3_note(struct ctx *c, yaml_node_t *v)
{
    c->a->part3_note_at = loc_of(v);
    return get_string(c, v, "part3.note", &c->a->part3_note);
}

static const struct field part3_fields[] = {
    {"text", p3_text}, {"vectors", p3_vectors}, {"note", p3_note},
};

static int f_part3(struct ctx *c, yaml_node_t *v)
{
    c->a->part3_at = loc_of(v);
    return walk_map(c, v, "part3", part3_fields, 3);
}

static int p4_order(struct ctx *c, yaml_node_t *v)
{
    struct ans_answers *a = c->a;

    a->part4_order_at = loc_of(v);
    a->part4_has_order = 1;
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(c, v, "'part4.order' must be a list of positions, e.g. [2, 1, 3]");
    for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
        if (a->part4_order_len == SC_MAX_WORDS)
            return fail(c, node(c, *i), "'part4.order' has more than %d positions", SC_MAX_WORDS);
        if (get_number(c, node(c, *i), "part4.order", &a->part4_order[a->part4_order_len++]) < 0)
            return -1;
    }
    return 0;
}

static int p4_pe(struct ctx *c, yaml_node_t *v)
{
    return get_bool(c, v, "part4.pe", &c->a->part4_pe);
}

static int p4_diff(struct ctx *c, yaml_node_t *v)
{
    c->a->part4_diff_at = loc_of(v);
    c->a->part4_has_diff = 1;
    return get_number(c, v, "part4.max_abs_diff", &c->a->part4_max_abs_diff);
}

static int p4_note(struct ctx *c, yaml_node_t *v)
{
    return get_string(c, v, "part4.note", &c->a->part4_note);
}

static const struct field part4_fields[] = {
    {"order", p4_order}, {"pe", p4_pe}, {"max_abs_diff", p4_diff}, {"note", p4_note},
};

static int f_part4(struct ctx *c, yaml_node_t *v)
{
    c->a->part4_at = loc_of(v);
    return walk_map(c, v, "part4", part4_fields, 4);
}

static int f_text(struct ctx *c, yaml_node_t *v)
{
    c->a->text_at = loc_of(v);
    return get_string(c, v, "text", &c->a->text);
}

static int f_vectors(struct ctx *c, yaml_node_t *v)
{
    c->a->vectors_at = loc_of(v);
    return get_string(c, v, "vectors", &c->a->vectors);
}

static int f_pe(struct ctx *c, yaml_node_t *v)
{
    return get_bool(c, v, "pe", &c->a->pe);
}

static const struct field top_fields[] = {
    {"text", f_text}, {"vectors", f_vectors}, {"pe", f_pe}, {"top_pairs", f_top_pairs},
    {"part2", f_part2}, {"part3", f_part3}, {"part4", f_part4},
};

/* ---- documents ------------------------------------------------------------------- */

/* One event of the pre-pass: 1 to go on, 0 at the end, -1 refused. */
static int check_event(struct ctx *c, const yaml_event_t *ev, int *depth, unsigned *count)
{
    int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
    const yaml_char_t *anchor = ev->type == YAML_SCALAR_EVENT ? ev->data.scalar.anchor
                                : ev->type == YAML_SEQUENCE_START_EVENT
                                    ? ev->data.sequence_start.anchor
                                : ev->type == YAML_MAPPING_START_EVENT
                                    ? ev->data.mapping_start.anchor : NULL;

    if (ev->type == YAML_ALIAS_EVENT || anchor != NULL)
        return err_set(c->e, c->name, line, col, "anchors and aliases are not allowed in "
                       "an answers file");
    if (++*count > ANS_MAX_EVENTS)
        return err_set(c->e, c->name, line, col, "answers file too complex (more than %u "
                       "YAML items)", ANS_MAX_EVENTS);
    if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT) {
        if (++*depth > ANS_MAX_DEPTH)
            return err_set(c->e, c->name, line, col, "answers nested deeper than %d "
                           "levels", ANS_MAX_DEPTH);
    } else if (ev->type == YAML_SEQUENCE_END_EVENT || ev->type == YAML_MAPPING_END_EVENT) {
        --*depth;
    }
    return ev->type != YAML_STREAM_END_EVENT;
}

/*
 * Walk the events once before loading, as the spec loader does: refuse
 * anchors and aliases, nesting deeper than ANS_MAX_DEPTH and more than
 * ANS_MAX_EVENTS events. libyaml's own loader is quadratic in the nesting
 * (a file of '[' took minutes); this pass stops at the cap in linear time.
 */
static int precheck(struct ctx *c, const char *buf, size_t len)
{
    yaml_parser_t p;
    yaml_event_t ev;
    unsigned count = 0;
    int depth = 0, rc = 1;

    if (!yaml_parser_initialize(&p))
        return err_set(c->e, c->name, 0, 0, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    while (rc == 1) {
        if (!yaml_parser_parse(&p, &ev)) {
            rc = err_set(c->e, c->name, (int)p.problem_mark.line + 1,
                         (int)p.problem_mark.column + 1, "yaml syntax error: %s",
                         p.problem ? p.problem : "unknown");
            break;
        }
        rc = check_event(c, &ev, &depth, &count);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return rc < 0 ? -1 : 0;
}

static int load_doc(struct ctx *c, const char *buf, size_t len)
{
    yaml_parser_t p;
    int ok;

    if (!yaml_parser_initialize(&p))
        return err_set(c->e, c->name, 0, 0, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    ok = yaml_parser_load(&p, c->doc);
    if (!ok)
        err_set(c->e, c->name, (int)p.problem_mark.line + 1, (int)p.problem_mark.column + 1,
                "yaml syntax error: %s%s%s", p.problem ? p.problem : "unknown",
                p.context ? " " : "", p.context ? p.context : "");
    yaml_parser_delete(&p);
    return ok ? 0 : -1;
}

static void set_paths(struct ans_answers *a, const char *name)
{
    const char *slash = strrchr(name, '/');

    snprintf(a->file, sizeof a->file, "%s", name);
    if (slash == NULL)
        snprintf(a->dir, sizeof a->dir, ".");
    else
        snprintf(a->dir, sizeof a->dir, "%.*s", (int)(slash - name), name);
    if (a->dir[0] == '\0')
        snprintf(a->dir, sizeof a->dir, "/");
}

static int parse_root(struct ctx *c)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);

    if (root == NULL)
        return err_set(c->e, c->name, 0, 0, "empty answers file: start from the "
                       "template's answers.yaml");
    return walk_map(c, root, "answers", top_fields,
                    sizeof top_fields / sizeof top_fields[0]);
}

int ans_parse(const char *name, const char *buf, size_t len, struct ans_answers *a,
              struct err *e)
{
    yaml_document_t doc;
    struct ctx c = {name, &doc, a, NULL, e};
    int errcode, rc;
    PCRE2_SIZE erroff;

    memset(a, 0, sizeof *a);
    set_paths(a, name);
    if (len > ANS_FILE_MAX)
        return err_set(e, name, 0, 0, "answers file larger than %u bytes", ANS_FILE_MAX);
    c.word_re = pcre2_compile((PCRE2_SPTR)word_pattern, PCRE2_ZERO_TERMINATED, 0,
                              &errcode, &erroff, NULL);
    if (c.word_re == NULL)
        return err_set(e, NULL, 0, 0, "internal: bad word pattern");
    if ((rc = precheck(&c, buf, len)) == 0 && (rc = load_doc(&c, buf, len)) == 0) {
        rc = parse_root(&c);
        yaml_document_delete(&doc);
    }
    pcre2_code_free(c.word_re);
    if (rc < 0)
        ans_release(a);
    return rc;
}

int ans_load(const char *path, struct ans_answers *a, struct err *e)
{
    struct sb sb;
    int rc;

    memset(a, 0, sizeof *a);
    sb_init(&sb, 0);
    /* one byte past the limit: ans_parse says "larger than" */
    if ((rc = sb_load_file(&sb, path, ANS_FILE_MAX + 1, e)) >= 0)
        rc = ans_parse(path, sb_str(&sb), sb.len, a, e);
    sb_release(&sb);
    return rc;
}

void ans_release(struct ans_answers *a)
{
    free(a->text);
    free(a->vectors);
    for (size_t i = 0; i < ANS_MAX_PAIRS; i++)
        free(a->part2[i]);
    free(a->part3_text);
    free(a->part3_vectors);
    free(a->part3_note);
    free(a->part4_note);
    memset(a, 0, sizeof *a);
}

int ans_path(const struct ans_answers *a, const char *rel, char *buf, size_t n,
             struct err *e)
{
    int w = rel[0] == '/' ? snprintf(buf, n, "%s", rel)
                          : snprintf(buf, n, "%s/%s", a->dir, rel);

    if (w < 0 || (size_t)w >= n)
        return err_set(e, a->file, 0, 0, "path '%.60s' is too long", rel);
    return 0;
}
