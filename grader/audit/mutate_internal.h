/*
 * mutate_internal.h -- what mutate.c (tokens, functions, operator file) and
 * mutate_gen.c (the operators) share. Not part of the API.
 */
#ifndef GRD_MUTATE_INTERNAL_H
#define GRD_MUTATE_INTERNAL_H

#include <stddef.h>

#include "audit/mutate.h"

#define MUT_MAX_ARGS 12
#define MUT_MAX_PARAMS 24

enum mut_kind { MK_SWAP, MK_DROP, MK_NUDGE, MK_CALL, MK_UNWRAP, MK_PARAM, MK_LOOP,
                MK_INDEX, MK_DELETE, MK_RETURN, MK_COND, MK_GUARD, MK_INIT, MK_JUMP,
                MK_OPERAND };

struct mut_op {
    enum mut_kind kind;
    char name[MUT_NAME_MAX];
    char args[MUT_MAX_ARGS][MUT_NAME_MAX];
    size_t n_args;
};

struct mut_ops {
    struct mut_op op[MUT_MAX_OPS];
    size_t n;
};

enum mut_tok { TK_ID, TK_NUM, TK_PUNCT, TK_LIT };

struct mut_token {
    enum mut_tok kind;
    size_t off, len;  /* in the raw source */
    size_t coff;      /* in the blanked source (where its text is read) */
    int line, col;
    int fn;          /* index in mut_unit.fns of the body it is in, or -1 */
    int raw_ok;      /* the raw source holds the same text at off */
    size_t match;    /* for ( [ {: the index of its closing token, else 0 */
    int in_parens;   /* inside ( ) or [ ] (a for header's clauses too) */
};

struct mut_param {
    char name[MUT_NAME_MAX];
    char type[MUT_NAME_MAX];  /* "size_t", "float *" (const left out) */
};

struct mut_fn {
    char name[MUT_NAME_MAX];
    char ret[MUT_NAME_MAX];   /* "void", "int", "void *", ... */
    size_t first;             /* token index where the definition starts */
    size_t open, close;       /* token indices of the body's braces */
    struct mut_param params[MUT_MAX_PARAMS];
    size_t n_params;
};

/* A source cut into tokens, with its function bodies. */
struct mut_unit {
    const char *src;          /* the raw source */
    size_t len;
    const char *code;         /* the blanked source (splices removed) */
    size_t code_len;
    struct mut_token *tok;
    size_t n_tok;
    struct mut_fn *fns;
    size_t n_fns;
};

/* The growing list of mutants (deduplicated on add). */
struct mut_list {
    struct mut_mutant *m;
    size_t n, cap;
    int oom;
};

/* Whether token i's text is s. */
int mut_tok_is(const struct mut_unit *u, size_t i, const char *s);

/* Add the mutant replacing tokens [a, b] (inclusive) with text, for op;
 * nothing when a token is not raw_ok or the text is unchanged. */
void mut_add_range(struct mut_list *l, const struct mut_unit *u, size_t a, size_t b,
                   const char *text, const struct mut_op *op);

/* Add the mutant inserting text before token i. */
void mut_add_insert(struct mut_list *l, const struct mut_unit *u, size_t i, const char *text,
                    const struct mut_op *op);

/* The text of tokens [a, b] as in the raw source (blanks kept) into buf;
 * 0, or -1 when it does not fit. */
int mut_range_text(const struct mut_unit *u, size_t a, size_t b, char *buf, size_t n);

/* Whether token i (an identifier) names a type: a keyword or a typedef. */
int mut_is_type_word(const struct mut_unit *u, size_t i);

/* Run operator op over the unit into l. */
void mut_gen_op(const struct mut_op *op, const struct mut_unit *u, struct mut_list *l);

#endif
