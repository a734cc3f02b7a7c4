/*
 * answers.h -- the student's answers.yaml for the hands-on (written) part
 * of the assignment, parsed with libyaml into plain data.
 *
 * Schema (every key optional at parse time; the checks in prop_written.c
 * say which claim is missing):
 *
 *   text: "..."                 part 1: the text of the map
 *   vectors: FILE               part 1: VECTORS file used, relative to the
 *                               answers file's directory (default: the
 *                               hash-seeded vectors)
 *   pe: false                   part 1: was PE added (default false)
 *   top_pairs:                  part 1: the three pairs, largest first
 *     - {query: WORD, key: WORD, weight: NUMBER}
 *   part2: [TEXT, TEXT, TEXT]   part 2, one answer per pair (manual review)
 *   part3:
 *     text: "..."               the modified input ...
 *     vectors: FILE             ... and its VECTORS file (optional)
 *     note: TEXT                why the "explanation" is now meaningless
 *                               (manual review)
 *   part4:
 *     order: [3, 1, 2, ...]     a permutation of 1..n of the text's words
 *     pe: true                  with the positional encoding
 *     max_abs_diff: NUMBER      the figure `make permute` printed
 *     note: TEXT                optional
 *
 * WORD tokens are lower-cased and must match ^[a-z0-9']+$ (PCRE2): the
 * same tokens `make map` prints. Unknown keys, duplicate keys, wrong types
 * and bad tokens are refused with the file:line:col of the node.
 */
#ifndef GRD_ANSWERS_H
#define GRD_ANSWERS_H

#include <stddef.h>

#include "core/err.h"
#include "selfcheck/selfcheck.h"

#define ANS_FILE_MAX (256u << 10)
#define ANS_TEXT_MAX (16u << 10)   /* longest free-text answer */
#define ANS_MAX_PAIRS 8
#define ANS_MAX_DEPTH 16           /* nesting of lists and maps */
#define ANS_MAX_EVENTS 100000u     /* YAML events in one file */

/* Where a node starts in the file (1-based; 0 when absent). */
struct ans_loc {
    int line, col;
};

struct ans_pair {
    char query[SC_WORD_MAX + 1];
    char key[SC_WORD_MAX + 1];
    double weight;
    int has_weight;
    struct ans_loc at;
};

/* The parsed answers. Strings are owned (NULL when absent); locations are
 * {0, 0} when absent. Release with ans_release. */
struct ans_answers {
    char file[ERR_FILE_MAX];     /* the path as given, for messages */
    char dir[ERR_FILE_MAX];      /* its directory, for relative paths */
    char *text;
    struct ans_loc text_at;
    char *vectors;
    struct ans_loc vectors_at;
    int pe;
    struct ans_pair pairs[ANS_MAX_PAIRS];
    size_t n_pairs;
    struct ans_loc pairs_at;
    char *part2[ANS_MAX_PAIRS];
    size_t n_part2;
    struct ans_loc part2_at;
    char *part3_text, *part3_vectors, *part3_note;
    struct ans_loc part3_at, part3_text_at, part3_note_at;
    double part4_order[SC_MAX_WORDS];
    size_t part4_order_len;
    int part4_has_order, part4_pe, part4_has_diff;
    double part4_max_abs_diff;
    char *part4_note;
    struct ans_loc part4_at, part4_order_at, part4_diff_at;
};

/*
 * Parse answers from a buffer; `name` is the file name used in messages
 * and for relative paths. Returns 0, or -1 with `e` set to name:line:col
 * (a YAML syntax error, a wrong type, an unknown or duplicate key, a bad
 * word token, more than ANS_MAX_PAIRS pairs, a string over ANS_TEXT_MAX).
 * On failure `a` holds nothing to release.
 */
int ans_parse(const char *name, const char *buf, size_t len, struct ans_answers *a,
              struct err *e) __attribute__((warn_unused_result));

/* ans_parse on a file (at most ANS_FILE_MAX bytes); -1 with e set when it
 * cannot be read ("cannot open ..."). */
int ans_load(const char *path, struct ans_answers *a, struct err *e)
    __attribute__((warn_unused_result));

/* Free a's strings and zero it. Safe on a zeroed a. */
void ans_release(struct ans_answers *a);

/*
 * Resolve `rel` (a path from the answers file) against a's directory into
 * buf of size n: absolute paths are kept. Returns 0, or -1 with e set when
 * it does not fit.
 */
int ans_path(const struct ans_answers *a, const char *rel, char *buf, size_t n,
             struct err *e) __attribute__((warn_unused_result));

#endif
