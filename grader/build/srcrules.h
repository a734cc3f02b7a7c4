/*
 * srcrules.h -- source rules: regular expressions (PCRE2) the submission's
 * source must not match.
 *
 * Rules see the code only: comments and the contents of string and
 * character literals are blanked out (replaced with spaces, newlines
 * kept), so `// uses syscall()` or `"asm"` never trigger a rule. The header
 * name of an #include directive is kept. Backslash-newline splices are
 * removed first (`sys\<newline>call` is seen as `syscall`); the newlines
 * they held are put back at the end of the logical line, so line numbers
 * stay right after it. Patterns are matched as bytes (no UTF), with
 * PCRE2_MULTILINE (^ and $ match at every line), under a match limit that
 * bounds backtracking. A source that exhausts a rule's limits is a
 * violation of that rule (fail closed), never a grader error.
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
 *   attribute      (?:\b__attribute(?:__)?\s*\(\(|\[\[)[^;{]*?\b_*(?:constructor|destructor|
 *                  section|ifunc|alias|weakref|weak|symver)_*\b
 *   pragma         (?:#|%:)\s*pragma\b|\b_Pragma\b
 *   trigraph       \?\?[=/'()!<>-]
 */
#ifndef GRD_SRCRULES_H
#define GRD_SRCRULES_H

#include <stddef.h>

#include "core/err.h"
#include "spec/spec.h"

#define SRC_MATCH_LIMIT 1000000u  /* PCRE2 match limit per rule */
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
              char **violations, struct grd_err *e) __attribute__((warn_unused_result));

/* Same as src_check, on an array of `n` rules. */
int src_check_rules(const struct spec_rule *rules, size_t n, const char *src, size_t len,
                    const char *src_name, char **violations, struct grd_err *e)
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
