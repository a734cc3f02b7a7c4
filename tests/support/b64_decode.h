/*
 * b64_decode.h -- base64 decoding for the tests, which check what the
 * grader encodes (core/b64.h: the Classroom result). Linked into the test
 * binaries only; the grader never decodes.
 */
#ifndef GRD_TEST_B64_DECODE_H
#define GRD_TEST_B64_DECODE_H

#include <stddef.h>

#include "core/err.h"
#include "core/strbuf.h"

/*
 * Decode padded base64 text s[0..n) and append the bytes to `out`. Strict:
 * only the standard alphabet, length a multiple of 4, '=' only at the end,
 * unused bits zero. Returns 0, or -1 with `e` set (and `out` holding what
 * was decoded before the error).
 */
int b64_decode(struct sb *out, const char *s, size_t n, struct err *e)
    __attribute__((warn_unused_result));

#endif
