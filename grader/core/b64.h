/*
 * b64.h -- base64 (RFC 4648, standard alphabet, padded, no line breaks),
 * as GitHub Classroom's reporter reads a runner's result
 * (Buffer.from(value, "base64")). Encoding only: the tests decode with
 * tests/support/b64_decode.h.
 */
#ifndef GRD_B64_H
#define GRD_B64_H

#include <stddef.h>

#include "core/err.h"
#include "core/strbuf.h"

/* Bytes of base64 text for n input bytes (no NUL); (size_t)-1 on overflow. */
size_t b64_encoded_len(size_t n);

/*
 * Append the base64 encoding of data[0..n) to `out`. Returns 0, or -1 with
 * `e` set when the encoding would overflow or `out`'s cap is hit (`out`
 * then holds a truncated prefix and is marked truncated).
 */
int b64_encode(struct sb *out, const void *data, size_t n,
               struct err *e) __attribute__((warn_unused_result));

#endif
