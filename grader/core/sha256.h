/*
 * sha256.h -- SHA-256 (FIPS 180-4), small and dependency-free.
 *
 * Used to fingerprint what was graded (spec files, submissions) so that a
 * gradebook records exactly which bytes produced a score. Streaming:
 * sha256_init, any number of sha256_update, then sha256_final.
 */
#ifndef GRD_SHA256_H
#define GRD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 65 /* 64 hex digits and the NUL */

/* A running hash. Plain value: copy it to hash a prefix and keep going. */
struct sha256_ctx {
    uint32_t h[8];
    uint64_t nbytes;         /* bytes hashed so far */
    unsigned char buf[64];   /* the pending partial block */
    size_t buflen;
};

/* Start a new hash in `c`. Cannot fail. */
void sha256_init(struct sha256_ctx *c);

/* Add n bytes at `data` (may be NULL when n is 0). Cannot fail. */
void sha256_update(struct sha256_ctx *c, const void *data, size_t n);

/* Finish the hash into `out`. `c` is consumed: init it again to reuse. */
void sha256_final(struct sha256_ctx *c, unsigned char out[SHA256_DIGEST_LEN]);

/* Write a digest as lowercase hex, NUL-terminated, into out_hex. */
void sha256_to_hex(const unsigned char digest[SHA256_DIGEST_LEN],
                   char out_hex[SHA256_HEX_LEN]);

/* One-shot: lowercase hex SHA-256 of n bytes at buf. Cannot fail. */
void sha256_hex(const void *buf, size_t n, char out_hex[SHA256_HEX_LEN]);

/*
 * Lowercase hex SHA-256 of the file at `path`, read in chunks (no size
 * limit, constant memory). Returns 0, or -1 with `e` set to
 * "cannot read 'path': <strerror>"; out_hex is then the empty string.
 */
int sha256_file(const char *path, char out_hex[SHA256_HEX_LEN], struct err *e)
    __attribute__((warn_unused_result));

#endif
