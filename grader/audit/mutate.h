/*
 * mutate.h -- the mutants of a C source, made on tokens, by operators
 * read from a data file (specs/mutators.txt; format in specs/README.md).
 *
 * The source is first read as the compiler's early phases read it: the
 * grader's own source-rule lexer (build/srcrules.h, src_blank) replaces
 * trigraphs, removes line splices and blanks comments and literals; the
 * tokens (identifiers, numbers, punctuators, literals) are cut from that.
 * A token is mutated only where the raw source holds exactly its text at
 * the same offset (a token behind a splice is left alone), so a mutant is
 * the raw source with one range replaced, and preprocessor lines and
 * comments are never touched. Only code inside function bodies mutates.
 *
 * Every mutant is one edit: bytes [off, off + len) of the source replaced
 * by `text`. Mutants whose edited source equals an earlier one's are
 * dropped, so no two mutants are the same program.
 */
#ifndef GRD_MUTATE_H
#define GRD_MUTATE_H

#include <stddef.h>

#include "core/err.h"

#define MUT_TEXT_MAX 256     /* a replacement's bytes */
#define MUT_NAME_MAX 48      /* a function's or operator's name */
#define MUT_MAX_OPS 128      /* lines of an operator file */
#define MUT_MAX_MUTANTS 20000

struct mut_mutant {
    size_t off, len;             /* the replaced range of the source */
    char text[MUT_TEXT_MAX];     /* what replaces it */
    int line, col;               /* where the range starts (1-based) */
    char function[MUT_NAME_MAX]; /* the function the edit lives in */
    char op[MUT_NAME_MAX];       /* the operator's name (from the file) */
};

/* The operators of a data file (opaque). */
struct mut_ops;

/*
 * Read the operators of `path`. Returns them (free with mut_ops_free), or
 * NULL with e set at the offending file:line:col (unknown kind, missing
 * arguments, unreadable file).
 */
struct mut_ops *mut_ops_load(const char *path, struct err *e);

/* Parse operators from text (name is used in messages); as mut_ops_load. */
struct mut_ops *mut_ops_parse(const char *text, size_t len, const char *name,
                              struct err *e);

void mut_ops_free(struct mut_ops *ops);

/*
 * Every mutant of src[0..len) under `ops`, in source order (then operator
 * order). Returns 0 with *out (caller frees) and *n set, or -1 with e set
 * (out of memory, more than MUT_MAX_MUTANTS, a source the lexer refuses).
 */
int mut_generate(const struct mut_ops *ops, const char *src, size_t len,
                 struct mut_mutant **out, size_t *n, struct err *e)
    __attribute__((warn_unused_result));

/*
 * The functions defined in both a and b with the same definition, token for
 * token (return type, parameters, body; blanks and comments aside): up to
 * max names into names, *n of them. 0, or -1 with e set as mut_generate.
 * A later source of an audit leaves these to the earlier one (audit.h).
 */
int mut_same_functions(const char *a, size_t alen, const char *b, size_t blen,
                       char (*names)[MUT_NAME_MAX], size_t max, size_t *n, struct err *e)
    __attribute__((warn_unused_result));

/* The mutant's whole source: a new NUL-terminated buffer (caller frees),
 * *out_len its length; NULL when out of memory. */
char *mut_apply(const struct mut_mutant *m, const char *src, size_t len, size_t *out_len);

/*
 * The one-line diff of a mutant: the source line(s) its edit touches,
 * before and after, each with runs of blanks squeezed to one space and
 * trimmed, into before/after (n bytes each, NUL-terminated, cut to fit).
 */
void mut_diff(const struct mut_mutant *m, const char *src, size_t len,
              char *before, char *after, size_t n);

#endif
