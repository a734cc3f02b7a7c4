/*
 * srcrules.h -- source rules: regular expressions (PCRE2) the submission's
 * source must not match.
 *
 * Before any rule, the raw source is refused (one line each, at its
 * line:col) when it holds a NUL byte or a control character other than a
 * blank, or a trigraph: gcc reads a NUL as a space and honours trigraphs
 * under -std=c11, so either could make the rules read a different file
 * than the compiler does.
 *
 * Rules then see the code only, as the compiler's first phases do:
 * trigraphs are replaced (each padded with two spaces before it, so
 * columns stay), backslash-newline splices removed (`sys\<newline>call`
 * is seen as `syscall`; the newlines go back at the end of the logical
 * line, so line numbers stay right), digraphs outside literals become
 * their punctuator (`<%` reads as `{ `, `%:` as `# `), and comments and
 * the contents of string and character literals are blanked out (spaces,
 * newlines kept), so `// uses syscall()` or `"asm"` never trigger a rule.
 * The header name of an #include directive is kept. Patterns are matched
 * as bytes (no UTF), with PCRE2_MULTILINE (^ and $ match at every line).
 *
 * The work is bounded per file, not per start position: PCRE2's match
 * limit per start, a heap limit per match, and SRC_WORK_BUDGET steps
 * (counted by an automatic callout) for all rules of one file together.
 * A source that exhausts them is a violation ("could not be checked
 * within the grader's limits"), never a grader error.
 *
 * Suggested rules (the public spec copies these; src_default_rules()
 * returns them). `(?:#|%:)` because `%:` is the digraph for `#`:
 *   asm            \b(?:asm|__asm__|__asm)\b
 *   include_quoted (?:#|%:)\s*include\s*"(?!attention\.h")
 *   include_system (?:#|%:)\s*include\s*<(?!(?:stdio|stdlib|string|math|float|limits|
 *                  stddef|stdint|stdbool|assert|errno)\.h>)
 *   include_macro  (?:#|%:)\s*include\s*(?![\s"<])
 *   include_next   (?:#|%:)\s*(?:include_next|import)\b
 *   syscall        \bsyscall\b
 *   attribute      (?:\A|[;{])(?>(?:[^;{_\[]++|_(?!_attribute)|\[(?!\[))*+)\K
 *                  (?:__attribute(?:__)?\s*+\(\(|\[\[)(?>(?:[^;{\w]++|(?!_*+(?:KW)_*+\b)
 *                  \w++)*+)_*+(?:KW)_*+\b   with KW = constructor|destructor|section|
 *                  ifunc|alias|weakref|weak|symver (linear: it starts only after ';'
 *                  or '{', commits to the first opener of that stretch and walks
 *                  the words after it possessively)
 *   pragma         (?:#|%:)\s*pragma\b|\b_Pragma\b
 *   line_directive ^[ \t\v\f]*(?:#|%:)[ \t\v\f]*(?:line\b|[0-9])
 *                  (`#line "FILE"` and GNU line markers would make the
 *                  compiler's messages name another file)
 */
#ifndef GRD_SRCRULES_H
#define GRD_SRCRULES_H

#include <stddef.h>

#include "core/err.h"
#include "spec/spec.h"

#define SRC_MATCH_LIMIT 1000000u  /* PCRE2 match limit per rule and start */
#define SRC_WORK_BUDGET 20000000ul /* PCRE2 steps for all rules of one file */
#define SRC_HEAP_LIMIT_KIB (64u << 10) /* PCRE2 backtracking heap per match */
#define SRC_MAX_BYTES (1u << 20)  /* larger sources: grader error */

/*
 * Apply every rule of `specs` (spec_rule_at, in file order) to `src` (len
 * bytes, need not be NUL-terminated); `src_name` names the file in the
 * messages (e.g. "attention.c"). On success returns 0 and sets
 * *violations to a new string (caller frees) holding one line per rule
 * that matched, at its first match:
 *     attention.c:LINE:COL: <rule message>
 * or NULL when no rule matched. Returns -1 with `e` set (and *violations
 * NULL) when a pattern does not compile, the
 * source is over SRC_MAX_BYTES, or memory runs out.
 */
int src_check(const struct spec_set *specs, const char *src, size_t len, const char *src_name,
              char **violations, struct err *e) __attribute__((warn_unused_result));

/* Same as src_check, on an array of `n` rules. */
int src_check_rules(const struct spec_rule *rules, size_t n, const char *src, size_t len,
                    const char *src_name, char **violations, struct err *e)
    __attribute__((warn_unused_result));

/* The suggested rules above (static storage, *n set to their number). */
const struct spec_rule *src_default_rules(size_t *n);

/*
 * Blank comments and literals of src[0..len) as described above into a
 * new NUL-terminated buffer of at most len bytes (caller frees); NULL when
 * out of memory. Exposed for tests.
 */
char *src_blank(const char *src, size_t len);

#endif
