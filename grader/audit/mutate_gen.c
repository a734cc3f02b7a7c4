/* mutate_gen.c -- the mutation operators over a tokenised source
 * (mutate_internal.h); each kind's meaning is in specs/README.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/mutate_internal.h"

/* Whether the operator token i is binary: an operand ends just before it
 * (a name that is no type word, a number, a closing bracket). */
static int is_binary(const struct mut_unit *u, size_t i)
{
    const struct mut_token *p;

    if (i == 0)
        return 0;
    p = &u->tok[i - 1];
    if (p->kind == TK_NUM)
        return 1;
    if (p->kind == TK_ID)
        return !mut_is_type_word(u, i - 1) && !mut_tok_is(u, i - 1, "sizeof") &&
               !mut_tok_is(u, i - 1, "return");
    return mut_tok_is(u, i - 1, ")") || mut_tok_is(u, i - 1, "]");
}

static int arg_index(const struct mut_op *op, const struct mut_unit *u, size_t i)
{
    for (size_t k = 0; k < op->n_args; k++)
        if (mut_tok_is(u, i, op->args[k]))
            return (int)k;
    return -1;
}

static void gen_swap(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 0; i < u->n_tok; i++) {
        int k = arg_index(op, u, i);
        if (k < 0 || u->tok[i].kind != TK_PUNCT || u->tok[i].fn < 0)
            continue;
        if (strlen(op->args[k]) == 1 && strchr("+-*&", op->args[k][0]) && !is_binary(u, i))
            continue;
        for (size_t j = 0; j < op->n_args; j++)
            if ((int)j != k)
                mut_add_range(l, u, i, i, op->args[j], op);
    }
}

static void gen_drop(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 0; i < u->n_tok; i++)
        if (arg_index(op, u, i) >= 0 && u->tok[i].kind == TK_PUNCT)
            mut_add_range(l, u, i, i, "", op);
}

/* ---- constants --------------------------------------------------------- */

/* The number's value and suffix; 0, or -1 when it is not plain decimal. */
static int read_number(const char *s, size_t n, double *v, int *fp, char *suffix)
{
    char buf[64], *end;
    size_t k = n;

    if (n >= sizeof buf || (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
        return -1;
    while (k > 0 && strchr("fFlLuU", s[k - 1]))
        k--;
    memcpy(buf, s, k);
    buf[k] = '\0';
    snprintf(suffix, 8, "%.*s", (int)(n - k < 7 ? n - k : 7), s + k);
    *fp = strpbrk(buf, ".eE") != NULL;
    *v = strtod(buf, &end);
    return *end == '\0' && k > 0 ? 0 : -1;
}

static void number_text(double v, int fp, const char *suffix, char *out, size_t n)
{
    if (!fp) {
        snprintf(out, n, "%lld%s", (long long)v, suffix);
        return;
    }
    snprintf(out, n, "%.17g", v);
    if (!strpbrk(out, ".eEn"))
        snprintf(out + strlen(out), n - strlen(out), ".0");
    snprintf(out + strlen(out), n - strlen(out), "%s", suffix);
}

static int nudged(const char *rule, double v, int fp, double *w)
{
    if (strcmp(rule, "zero-one") == 0 && (v == 0 || v == 1))
        *w = 1 - v;
    else if (strcmp(rule, "plus-one") == 0)
        *w = v + 1;
    else if (strcmp(rule, "minus-one") == 0 && (fp || v >= 1))
        *w = v - 1;
    else if (strcmp(rule, "double") == 0 && v != 0)
        *w = v * 2;
    else if (strcmp(rule, "half") == 0 && v != 0)
        *w = fp ? v / 2 : floor(v / 2);
    else
        return 0;
    return 1;
}

static void gen_nudge(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 0; i < u->n_tok; i++) {
        double v, w;
        int fp;
        char suffix[8], text[64];

        if (u->tok[i].kind != TK_NUM || u->tok[i].fn < 0 ||
            read_number(u->code + u->tok[i].coff, u->tok[i].len, &v, &fp, suffix) < 0)
            continue;
        for (size_t k = 0; k < op->n_args; k++)
            if (nudged(op->args[k], v, fp, &w)) {
                number_text(w, fp, suffix, text, sizeof text);
                mut_add_range(l, u, i, i, text, op);
            }
    }
}

/* ---- calls ------------------------------------------------------------- */

static void gen_call(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 0; i + 1 < u->n_tok; i++) {
        int k = arg_index(op, u, i);
        if (k < 0 || u->tok[i].kind != TK_ID || !mut_tok_is(u, i + 1, "("))
            continue;
        if (op->kind == MK_UNWRAP) {
            mut_add_range(l, u, i, i, "", op);
            continue;
        }
        if (k > 0)
            mut_add_range(l, u, i, i, op->args[k - 1], op);
        if ((size_t)k + 1 < op->n_args)
            mut_add_range(l, u, i, i, op->args[k + 1], op);
    }
}

/* ---- parameters -------------------------------------------------------- */

static const struct mut_param *param_of(const struct mut_unit *u, size_t i)
{
    const struct mut_fn *f;

    if (u->tok[i].kind != TK_ID || u->tok[i].fn < 0 || i == 0 ||
        mut_tok_is(u, i - 1, ".") || mut_tok_is(u, i - 1, "->"))
        return NULL;
    f = &u->fns[u->tok[i].fn];
    for (size_t k = 0; k < f->n_params; k++)
        if (mut_tok_is(u, i, f->params[k].name))
            return &f->params[k];
    return NULL;
}

static void gen_param(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 0; i < u->n_tok; i++) {
        const struct mut_param *p = param_of(u, i);
        if (p == NULL || strcmp(p->type, op->name) != 0 || mut_tok_is(u, i + 1, "=") ||
            mut_tok_is(u, i + 1, "++") || mut_tok_is(u, i + 1, "--"))
            continue;
        for (size_t k = 0; k < op->n_args; k++)
            mut_add_range(l, u, i, i, op->args[k], op);
    }
}

/* ---- loops, indices ---------------------------------------------------- */

/* The first token at bracket depth 0 in [a, b) equal to s, or b. */
static size_t find_top(const struct mut_unit *u, size_t a, size_t b, const char *s)
{
    for (size_t i = a; i < b; i++) {
        if (mut_tok_is(u, i, s))
            return i;
        if (u->tok[i].match)
            i = u->tok[i].match;
    }
    return b;
}

static void gen_loop(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    char text[MUT_TEXT_MAX], cond[MUT_TEXT_MAX];

    for (size_t i = 0; i + 1 < u->n_tok; i++) {
        size_t rp, s1, s2;
        if (!mut_tok_is(u, i, "for") || !mut_tok_is(u, i + 1, "(") || u->tok[i].fn < 0)
            continue;
        rp = u->tok[i + 1].match;
        s1 = find_top(u, i + 2, rp, ";");
        s2 = s1 < rp ? find_top(u, s1 + 1, rp, ";") : rp;
        if (s2 >= rp || s2 == s1 + 1 || mut_range_text(u, s1 + 1, s2 - 1, cond, sizeof cond) < 0)
            continue;
        snprintf(text, sizeof text, "%.180s %.20s %.20s", cond, op->args[0],
                 op->n_args > 1 ? op->args[1] : "1");
        mut_add_range(l, u, s1 + 1, s2 - 1, text, op);
    }
}

/* Index variable: a name in an index, not a field, call or struct. */
static int index_var(const struct mut_unit *u, size_t i)
{
    return u->tok[i].kind == TK_ID && !mut_tok_is(u, i + 1, "(") &&
           !mut_tok_is(u, i + 1, "->") && !mut_tok_is(u, i + 1, ".") &&
           !mut_tok_is(u, i - 1, "->") && !mut_tok_is(u, i - 1, ".") &&
           !mut_tok_is(u, i + 1, "[");
}

static void gen_index(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    char text[MUT_TEXT_MAX];

    for (size_t i = 0; i < u->n_tok; i++) {
        size_t rb, first = 0, last = 0;
        if (!mut_tok_is(u, i, "[") || u->tok[i].fn < 0)
            continue;
        rb = u->tok[i].match;
        for (size_t k = i + 1; k < rb; k++)
            if (index_var(u, k)) {
                first = first ? first : k;
                last = k;
            }
        if (!first || first == last || u->tok[first].len == 0 ||
            (u->tok[first].len == u->tok[last].len &&
             memcmp(u->code + u->tok[first].coff, u->code + u->tok[last].coff, u->tok[last].len) == 0))
            continue;
        /* first..last rewritten with the two names exchanged */
        {
            char mid[MUT_TEXT_MAX] = "";
            if (last > first + 1 && mut_range_text(u, first + 1, last - 1, mid, sizeof mid) < 0)
                continue;
            snprintf(text, sizeof text, "%.*s%s%s%s%.*s", (int)u->tok[last].len,
                     u->code + u->tok[last].coff,
                     last > first + 1 ? " " : "", mid, last > first + 1 ? " " : "",
                     (int)u->tok[first].len, u->code + u->tok[first].coff);
            mut_add_range(l, u, first, last, text, op);
        }
    }
}

/* ---- statements -------------------------------------------------------- */

/* Whether token i closes a control header: if (..), for (..), while (..). */
static int closes_header(const struct mut_unit *u, size_t i)
{
    for (size_t k = 1; k < i && mut_tok_is(u, i, ")"); k++)
        if (u->tok[i - k].match == i)
            return mut_tok_is(u, i - k - 1, "if") || mut_tok_is(u, i - k - 1, "for") ||
                   mut_tok_is(u, i - k - 1, "while");
    return 0;
}

static int statement_start(const struct mut_unit *u, size_t i)
{
    if (u->tok[i].fn < 0 || i == u->fns[u->tok[i].fn].open || u->tok[i].in_parens)
        return 0;
    return mut_tok_is(u, i - 1, ";") || mut_tok_is(u, i - 1, "{") ||
           mut_tok_is(u, i - 1, "}") || mut_tok_is(u, i - 1, "else") || closes_header(u, i - 1);
}

/* Whether the statement at i is one a deletion keeps well-formed: an
 * expression statement, return; continue; break; (no declaration). */
static int deletable(const struct mut_unit *u, size_t i)
{
    if (mut_tok_is(u, i, "return"))
        return mut_tok_is(u, i + 1, ";");
    if (mut_tok_is(u, i, "continue") || mut_tok_is(u, i, "break"))
        return 1;
    if (mut_tok_is(u, i, "if") || mut_tok_is(u, i, "for") || mut_tok_is(u, i, "while") ||
        mut_tok_is(u, i, "do") || mut_tok_is(u, i, "else") || mut_tok_is(u, i, "switch") ||
        mut_tok_is(u, i, "goto") || mut_is_type_word(u, i))
        return 0;
    if (u->tok[i].kind == TK_ID)
        return u->tok[i + 1].kind != TK_ID && !mut_tok_is(u, i + 1, ":") &&
               !(mut_tok_is(u, i + 1, "*") && u->tok[i + 2].kind == TK_ID &&
                 mut_tok_is(u, i + 3, "="));
    return mut_tok_is(u, i, "*") || mut_tok_is(u, i, "(") || mut_tok_is(u, i, "++") ||
           mut_tok_is(u, i, "--");
}

static void gen_delete(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 1; i + 3 < u->n_tok; i++) {
        size_t end;
        if (!statement_start(u, i) || !deletable(u, i))
            continue;
        end = find_top(u, i, u->fns[u->tok[i].fn].close, ";");
        if (end < u->fns[u->tok[i].fn].close)
            mut_add_range(l, u, i, end, ";", op);
    }
}

static void gen_return(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t f = 0; f < u->n_fns; f++) {
        const char *ret = u->fns[f].ret, *text;
        size_t at = u->fns[f].open + 1;
        if (strcmp(ret, "void") == 0)
            text = "return; ";
        else if (strchr(ret, '*'))
            text = "return NULL; ";
        else
            text = "return 0; ";
        if (at < u->fns[f].close)
            mut_add_insert(l, u, at, text, op);
    }
}

static void gen_cond(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    char cond[MUT_TEXT_MAX], text[MUT_TEXT_MAX];

    for (size_t i = 0; i + 1 < u->n_tok; i++) {
        size_t rp;
        if ((!mut_tok_is(u, i, "if") && !mut_tok_is(u, i, "while")) ||
            !mut_tok_is(u, i + 1, "(") || u->tok[i].fn < 0)
            continue;
        rp = u->tok[i + 1].match;
        if (rp < i + 3 || mut_range_text(u, i + 2, rp - 1, cond, sizeof cond) < 0)
            continue;
        if (op->n_args == 0) {
            snprintf(text, sizeof text, "!(%.250s)", cond);
            mut_add_range(l, u, i + 2, rp - 1, text, op);
        }
        for (size_t k = 0; k < op->n_args; k++)
            mut_add_range(l, u, i + 2, rp - 1, op->args[k], op);
    }
}

/* ---- guards, initial values, jumps, operands (issue 36 item 3) -------- */

/* Whether the statement at i is an expression statement (no return,
 * continue or break: those have their own operators). */
static int expression_statement(const struct mut_unit *u, size_t i)
{
    return statement_start(u, i) && deletable(u, i) && !mut_tok_is(u, i, "return") &&
           !mut_tok_is(u, i, "continue") && !mut_tok_is(u, i, "break");
}

/* Whether the declaration starting at token i declares floating values
 * (double or float, not a pointer); *first: its first declarator. */
static int floating_declaration(const struct mut_unit *u, size_t i, size_t *first)
{
    int fl = 0;

    if (!statement_start(u, i))
        return 0;
    while (i < u->n_tok && mut_is_type_word(u, i) && !mut_tok_is(u, i, "struct")) {
        fl |= mut_tok_is(u, i, "double") || mut_tok_is(u, i, "float");
        i++;
    }
    *first = i;
    return fl && u->tok[i].kind == TK_ID && !mut_tok_is(u, i, "*");
}

/* Whether identifier token i names a floating variable of its function: a
 * float or double parameter, or a local declared as one before it. */
static int floating_var(const struct mut_unit *u, size_t i)
{
    const struct mut_fn *f;
    size_t first;

    if (u->tok[i].kind != TK_ID || u->tok[i].fn < 0 || mut_tok_is(u, i + 1, "(") ||
        mut_tok_is(u, i - 1, ".") || mut_tok_is(u, i - 1, "->"))
        return 0;
    f = &u->fns[u->tok[i].fn];
    for (size_t k = 0; k < f->n_params; k++)
        if (mut_tok_is(u, i, f->params[k].name))
            return strcmp(f->params[k].type, "double") == 0 ||
                   strcmp(f->params[k].type, "float") == 0;
    for (size_t k = f->open + 1; k < i; k++) {
        size_t end;
        if (!floating_declaration(u, k, &first))
            continue;
        end = find_top(u, first, f->close, ";");
        for (size_t d = first; d < end; d++) {
            if (u->tok[d].len == u->tok[i].len &&
                memcmp(u->code + u->tok[d].coff, u->code + u->tok[i].coff, u->tok[d].len) == 0 &&
                (d == first || mut_tok_is(u, d - 1, ",")))
                return 1;
            if (u->tok[d].match)
                d = u->tok[d].match;
        }
    }
    return 0;
}

/* Whether token i lies in the body of a for or while loop of its function. */
static int in_loop(const struct mut_unit *u, size_t i)
{
    const struct mut_fn *f = &u->fns[u->tok[i].fn];

    for (size_t k = f->open + 1; k < i; k++) {
        size_t body, end;
        if ((!mut_tok_is(u, k, "for") && !mut_tok_is(u, k, "while")) ||
            !mut_tok_is(u, k + 1, "("))
            continue;
        body = u->tok[k + 1].match + 1;
        end = mut_tok_is(u, body, "{") ? u->tok[body].match : find_top(u, body, f->close, ";");
        if (body <= i && i <= end)
            return 1;
    }
    return 0;
}

/*
 * guard size K: an expression statement S in a loop runs only while a size_t
 * parameter P of its function is at most K: `if (P <= K) S` (a step
 * skipped above some row length). guard value K: S runs only while a
 * floating variable V it uses is not tiny: `if (fabs(V) >= K) S` (a
 * variance "too small to divide by" left alone).
 */
static void gen_guard(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    char body[MUT_TEXT_MAX], text[MUT_TEXT_MAX];
    int size = strcmp(op->name, "size") == 0;

    for (size_t i = 1; i + 3 < u->n_tok; i++) {
        const struct mut_fn *f;
        size_t end;
        if (!expression_statement(u, i))
            continue;
        f = &u->fns[u->tok[i].fn];
        end = find_top(u, i, f->close, ";");
        if (end >= f->close || mut_range_text(u, i, end, body, sizeof body) < 0)
            continue;
        for (size_t k = 0; size && in_loop(u, i) && k < f->n_params; k++)
            for (size_t a = 0; strcmp(f->params[k].type, "size_t") == 0 && a < op->n_args; a++) {
                snprintf(text, sizeof text, "if (%.40s <= %.20s) %.180s", f->params[k].name,
                         op->args[a], body);
                mut_add_range(l, u, i, end, text, op);
            }
        for (size_t v = i; !size && v < end; v++) {
            int seen = 0;
            if (!floating_var(u, v))
                continue;
            for (size_t w = i; w < v && !seen; w++)
                seen = u->tok[w].len == u->tok[v].len &&
                       memcmp(u->code + u->tok[w].coff, u->code + u->tok[v].coff,
                              u->tok[v].len) == 0;
            for (size_t a = 0; !seen && a < op->n_args; a++) {
                snprintf(text, sizeof text, "if (fabs(%.*s) >= %.20s) %.180s",
                         (int)(u->tok[v].len < 40 ? u->tok[v].len : 40),
                         u->code + u->tok[v].coff, op->args[a], body);
                mut_add_range(l, u, i, end, text, op);
            }
        }
    }
}

/* init NAME C...: the initial value of a float or double declared in a
 * body becomes each constant C (-INFINITY <-> 0: a running max started
 * at 0). An initial value already equal to C (0.0 for 0) is left. */
static void gen_init(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 1; i < u->n_tok; i++) {
        size_t d, stop;
        if (!floating_declaration(u, i, &d))
            continue;
        stop = find_top(u, d, u->fns[u->tok[i].fn].close, ";");
        while (d < stop) {
            size_t next = find_top(u, d, stop, ","), a;
            if (mut_tok_is(u, d + 1, "=") && d + 2 < next) {
                for (a = 0; a < op->n_args; a++) {
                    double v, w;
                    char *e1, *e2, expr[MUT_TEXT_MAX];
                    if (mut_range_text(u, d + 2, next - 1, expr, sizeof expr) < 0)
                        break;
                    v = strtod(expr, &e1);
                    w = strtod(op->args[a], &e2);
                    if (*e1 && strchr("fFlL", *e1))
                        e1++;
                    if (*e1 == '\0' && *e2 == '\0' && v == w)
                        continue;
                    mut_add_range(l, u, d + 2, next - 1, op->args[a], op);
                }
            }
            d = next + 1;
        }
        i = stop;
    }
}

/* jump: `continue;` and `break;` exchanged, and `break;` added at the end
 * of a loop's braced body (the loop runs once). */
static void gen_jump(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 0; i + 1 < u->n_tok; i++) {
        size_t body;
        if (u->tok[i].fn < 0)
            continue;
        if (mut_tok_is(u, i, "continue") && mut_tok_is(u, i + 1, ";"))
            mut_add_range(l, u, i, i, "break", op);
        else if (mut_tok_is(u, i, "break") && mut_tok_is(u, i + 1, ";"))
            mut_add_range(l, u, i, i, "continue", op);
        if ((!mut_tok_is(u, i, "for") && !mut_tok_is(u, i, "while")) ||
            !mut_tok_is(u, i + 1, "("))
            continue;
        body = u->tok[i + 1].match + 1;
        if (mut_tok_is(u, body, "{") && u->tok[body].match > body + 1)
            mut_add_insert(l, u, u->tok[body].match, "break; ", op);
    }
}

/* The operands of a && / || chain in tokens [a, b]: drop each in turn
 * (with the operator beside it): `a && b` becomes `b`, then `a`. */
static void drop_operands(const struct mut_op *op, const struct mut_unit *u, size_t a,
                          size_t b, struct mut_list *l)
{
    size_t cut[32], n = 0;
    char left[MUT_TEXT_MAX], right[MUT_TEXT_MAX], text[MUT_TEXT_MAX];

    for (size_t i = a; i <= b && n < 32; i++) {
        if (mut_tok_is(u, i, "&&") || mut_tok_is(u, i, "||"))
            cut[n++] = i;
        else if (u->tok[i].match)
            i = u->tok[i].match;
        else if (mut_tok_is(u, i, "?"))
            return; /* a ?: at the top: its parts are no operands */
    }
    /* operand k is [k ? cut[k-1] + 1 : a, k < n ? cut[k] - 1 : b]; the
     * first goes with the operator after it, the others with the one
     * before */
    for (size_t k = 0; k <= n && n > 0; k++) {
        left[0] = right[0] = '\0';
        if (k == 0 && mut_range_text(u, cut[0] + 1, b, right, sizeof right) < 0)
            continue;
        if (k > 0 && mut_range_text(u, a, cut[k - 1] - 1, left, sizeof left) < 0)
            continue;
        if (k > 0 && k < n && mut_range_text(u, cut[k], b, right, sizeof right) < 0)
            continue;
        snprintf(text, sizeof text, "%.120s%s%.120s", left, left[0] && right[0] ? " " : "",
                 right);
        mut_add_range(l, u, a, b, text, op);
    }
}

/* operand: each operand of a condition's && / || chain dropped, in if,
 * while, a for's condition and a return's expression. */
static void gen_operand(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    for (size_t i = 0; i + 1 < u->n_tok; i++) {
        size_t rp, s1, s2, end;
        if (u->tok[i].fn < 0)
            continue;
        if ((mut_tok_is(u, i, "if") || mut_tok_is(u, i, "while")) && mut_tok_is(u, i + 1, "(")) {
            rp = u->tok[i + 1].match;
            if (rp > i + 2)
                drop_operands(op, u, i + 2, rp - 1, l);
        } else if (mut_tok_is(u, i, "for") && mut_tok_is(u, i + 1, "(")) {
            rp = u->tok[i + 1].match;
            s1 = find_top(u, i + 2, rp, ";");
            s2 = s1 < rp ? find_top(u, s1 + 1, rp, ";") : rp;
            if (s2 < rp && s2 > s1 + 1)
                drop_operands(op, u, s1 + 1, s2 - 1, l);
        } else if (mut_tok_is(u, i, "return") && !mut_tok_is(u, i + 1, ";")) {
            end = find_top(u, i + 1, u->fns[u->tok[i].fn].close, ";");
            if (end < u->fns[u->tok[i].fn].close)
                drop_operands(op, u, i + 1, end - 1, l);
        }
    }
}

void mut_gen_op(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l)
{
    switch (op->kind) {
    case MK_SWAP: gen_swap(op, u, l); break;
    case MK_DROP: gen_drop(op, u, l); break;
    case MK_NUDGE: gen_nudge(op, u, l); break;
    case MK_CALL: /* fall through */
    case MK_UNWRAP: gen_call(op, u, l); break;
    case MK_PARAM: gen_param(op, u, l); break;
    case MK_LOOP: gen_loop(op, u, l); break;
    case MK_INDEX: gen_index(op, u, l); break;
    case MK_DELETE: gen_delete(op, u, l); break;
    case MK_RETURN: gen_return(op, u, l); break;
    case MK_COND: gen_cond(op, u, l); break;
    case MK_GUARD: gen_guard(op, u, l); break;
    case MK_INIT: gen_init(op, u, l); break;
    case MK_JUMP: gen_jump(op, u, l); break;
    case MK_OPERAND: gen_operand(op, u, l); break;
    }
}
