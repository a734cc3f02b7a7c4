/*
 * objcheck.h -- static checks of a compiled submission (an ELF64
 * relocatable object), before it is linked with the grader's runner.
 *
 * The object is parsed with <elf.h> only (no binutils output is parsed).
 * Every offset and size is checked against the file before it is read, so
 * a malformed or hostile object is rejected, never read out of bounds.
 *
 * Rules (the "why" of each is in objcheck.c):
 *  - an ELF64 ET_REL object for the host machine, at most OBJ_MAX_BYTES;
 *  - sections: code, data, read-only data, bss, notes, unwind tables,
 *    debug info, symbol/string tables and their relocations; constructors
 *    (.init_array, .ctors, ...), thread-local storage and any other
 *    section are rejected, as is an executable-stack request;
 *  - defined global symbols: only the six attn_* functions stay global;
 *    every other one is listed for localisation (with a warning);
 *    common symbols, IFUNCs and TLS symbols are rejected; a missing attn_*
 *    function is only a warning (the runner reports it as not implemented);
 *  - undefined symbols: only an allow-list (libm, malloc & co, mem and
 *    str functions, stdio output, the helpers compilers emit by themselves
 *    for fortify and the stack protector); anything else is rejected.
 */
#ifndef GRD_OBJCHECK_H
#define GRD_OBJCHECK_H

#include <stddef.h>

#include "assign/assign.h"
#include "core/err.h"

#define OBJ_MAX_BYTES (16u << 20)   /* larger objects are rejected */
#define OBJ_MAX_SECTIONS 4096
#define OBJ_MAX_SYMBOLS 65536
#define OBJ_MAX_MESSAGES 32         /* further rejections are only counted */
#define OBJ_MAX_LOCALISE 4096       /* more global helpers: rejected */
#define OBJ_MAX_NAME 512            /* longer symbol names: rejected */
#define OBJ_MAX_STATIC_BYTES (256u << 20) /* loaded sections (.text, .data,
                                             .bss, ...) together; more: rejected */

/*
 * The findings of obj_check. Plain data: every string and array is owned
 * by the report and freed by obj_report_release(). Messages are one line,
 * lowercase, without final period, and name the symbol or section.
 */
struct obj_report {
    char **rejections;       /* why the object cannot be accepted */
    size_t n_rejections;     /* stored (at most OBJ_MAX_MESSAGES) */
    size_t n_rejections_dropped; /* further rejections, not stored */
    char **warnings;         /* e.g. "helper 'foo' should be static; ..." */
    size_t n_warnings;
    size_t n_warnings_dropped;
    char **localise;         /* global non-API symbols to make local */
    size_t n_localise;
    /* calls[i][j]: API function i (enum asg_fn) reaches API function
     * j through the object's own code: a relocation (or a direct call) in
     * i's code or in a helper i reaches names j. Inlined calls leave no
     * trace; the portable build (no ELF reader) leaves it all zero. Only
     * the diagnosis reads it. */
    unsigned char calls[ASG_FN_COUNT][ASG_FN_COUNT];
};

/* Make `r` an empty report. */
void obj_report_init(struct obj_report *r);

/* Free everything `r` owns and leave it empty (reusable). NULL is a no-op. */
void obj_report_release(struct obj_report *r);

/*
 * Check the object at `path` and fill `rep` (which must have been
 * initialised; earlier contents are released first). Returns 0 when the
 * object was examined -- it is acceptable iff rep->n_rejections == 0
 * (a file that is not a valid object for this machine is a rejection, not
 * an error). Returns -1 with `e` set on a grader error (the file cannot be
 * read, out of memory); `rep` is then left empty.
 */
int obj_check(const char *path, struct obj_report *rep, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Same as obj_check on an in-memory image; `name` is used in messages.
 */
int obj_check_buffer(const unsigned char *buf, size_t len, const char *name,
                     struct obj_report *rep, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Join the rejections (which = 0) or warnings (which = 1) into one string,
 * one message per line, ending with "(and N more)" when some were dropped.
 * Returns a new string the caller frees ("" when there is none), or NULL
 * when out of memory.
 */
char *obj_report_text(const struct obj_report *r, int which);

/*
 * 1 if `name` is an undefined symbol a submission may reference (see
 * objcheck.c for the list and its rationale), else 0. Exposed for tests.
 */
int obj_symbol_allowed(const char *name);

#endif
