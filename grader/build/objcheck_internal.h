/*
 * objcheck_internal.h -- what the two readers of a compiled submission
 * share: the symbol rules and the report (objcheck.c) and the object
 * format, read by objcheck.c from the ELF file itself or, in the portable
 * build (GRADER_PORTABLE, for systems without ELF such as macOS), by
 * objcheck_nm.c from `nm -P`. Not an API.
 */
#ifndef GRD_OBJCHECK_INTERNAL_H
#define GRD_OBJCHECK_INTERNAL_H

#include <stddef.h>

#include "build/objcheck.h"

#ifndef GRADER_PORTABLE
#define GRADER_PORTABLE 0
#endif
#if !GRADER_PORTABLE
#include <elf.h>
#endif


struct obj_ctx {
    const unsigned char *buf;
    size_t len;
    const char *name;        /* the file, for messages */
    struct obj_report *rep;
    int oom;
#if !GRADER_PORTABLE
    Elf64_Shdr *sh;          /* copies: the file may be unaligned */
    size_t shnum;
    const Elf64_Shdr *shstr;
#endif
    int api_found[ASG_FN_COUNT];
};

/* Append a formatted message to a capped list; past the cap, count only
 * (c->oom set when out of memory). */
void obj_push(struct obj_ctx *c, char ***arr, size_t *n, size_t *dropped,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define REJECT(c, ...) obj_push((c), &(c)->rep->rejections, &(c)->rep->n_rejections, \
                                &(c)->rep->n_rejections_dropped, __VA_ARGS__)
#define WARN(c, ...) obj_push((c), &(c)->rep->warnings, &(c)->rep->n_warnings, \
                              &(c)->rep->n_warnings_dropped, __VA_ARGS__)

/* An undefined symbol: allowed, or rejected with the reason. */
void obj_undefined(struct obj_ctx *c, const char *sym);

/* A defined global symbol: an API function (must be a function), or a
 * helper to localise with a warning. */
void obj_defined(struct obj_ctx *c, const char *sym, int is_function);

/* A warning for each API function the object does not define. */
void obj_missing_api(struct obj_ctx *c);

/* Names the system's compiler emits by itself that the allow-list of
 * objcheck.c lacks (macOS: __bzero, __sincos_stret...); 1 when allowed. */
int obj_platform_allowed(const char *name);

#endif
