/* sha256.c -- see sha256.h. Follows FIPS 180-4, section 6.2. */
#include "core/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* The message schedule W[0..63] of one 64-byte block. */
static void schedule(const unsigned char *block, uint32_t w[64])
{
    for (int t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
}

/* One block. The eight working variables are named, not an array shifted
 * each round: the memmove that shifted it was half of all the time spent
 * hashing the golden data. */
static void compress(uint32_t h[8], const unsigned char *block)
{
    uint32_t w[64];
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];

    schedule(block, w);
    for (int t = 0; t < 64; t++) {
        uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = k + s1 + ch + K[t] + w[t];
        uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        k = g, g = f, f = e, e = d + t1;
        d = c, c = b, b = a, a = t1 + s0 + maj;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d;
    h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void sha256_init(struct sha256_ctx *c)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

    memcpy(c->h, h0, sizeof c->h);
    c->nbytes = 0;
    c->buflen = 0;
}

void sha256_update(struct sha256_ctx *c, const void *data, size_t n)
{
    const unsigned char *p = data;

    c->nbytes += n;
    /* whole blocks straight from the input, once the buffer is empty */
    while (c->buflen == 0 && n >= sizeof c->buf) {
        compress(c->h, p);
        p += sizeof c->buf;
        n -= sizeof c->buf;
    }
    while (n > 0) {
        size_t take = sizeof c->buf - c->buflen;
        if (take > n)
            take = n;
        memcpy(c->buf + c->buflen, p, take);
        c->buflen += take;
        p += take;
        n -= take;
        if (c->buflen == sizeof c->buf) {
            compress(c->h, c->buf);
            c->buflen = 0;
        }
    }
}

void sha256_final(struct sha256_ctx *c, unsigned char out[SHA256_DIGEST_LEN])
{
    /* Padding: 0x80, zeros up to 56 mod 64, then the bit length (big endian). */
    uint64_t bits = c->nbytes * 8;
    unsigned char len[8];

    c->buf[c->buflen++] = 0x80;
    if (c->buflen > 56) {
        memset(c->buf + c->buflen, 0, sizeof c->buf - c->buflen);
        compress(c->h, c->buf);
        c->buflen = 0;
    }
    memset(c->buf + c->buflen, 0, 56 - c->buflen);
    store_be32(len, (uint32_t)(bits >> 32));
    store_be32(len + 4, (uint32_t)bits);
    memcpy(c->buf + 56, len, sizeof len);
    compress(c->h, c->buf);
    for (int i = 0; i < 8; i++)
        store_be32(out + 4 * i, c->h[i]);
}

void sha256_to_hex(const unsigned char digest[SHA256_DIGEST_LEN],
                   char out_hex[SHA256_HEX_LEN])
{
    static const char digits[] = "0123456789abcdef";

    for (int i = 0; i < SHA256_DIGEST_LEN; i++) {
        out_hex[2 * i] = digits[digest[i] >> 4];
        out_hex[2 * i + 1] = digits[digest[i] & 15];
    }
    out_hex[64] = '\0';
}

void sha256_hex(const void *buf, size_t n, char out_hex[SHA256_HEX_LEN])
{
    struct sha256_ctx c;
    unsigned char d[SHA256_DIGEST_LEN];

    sha256_init(&c);
    sha256_update(&c, buf, n);
    sha256_final(&c, d);
    sha256_to_hex(d, out_hex);
}

/* Hash the rest of `f` into `c`; returns 0 or an errno value. */
static int hash_stream(FILE *f, struct sha256_ctx *c)
{
    unsigned char chunk[16384];
    size_t got;

    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        sha256_update(c, chunk, got);
    return ferror(f) ? (errno ? errno : EIO) : 0;
}

int sha256_file(const char *path, char out_hex[SHA256_HEX_LEN], struct err *e)
{
    struct sha256_ctx c;
    unsigned char d[SHA256_DIGEST_LEN];
    FILE *f = fopen(path, "rb");
    int rc;

    out_hex[0] = '\0';
    if (f == NULL)
        return err_set(e, NULL, 0, 0, "cannot read '%s': %s", path, strerror(errno));
    sha256_init(&c);
    errno = 0;
    rc = hash_stream(f, &c);
    fclose(f);
    if (rc != 0)
        return err_set(e, NULL, 0, 0, "cannot read '%s': %s", path, strerror(rc));
    sha256_final(&c, d);
    sha256_to_hex(d, out_hex);
    return 0;
}
