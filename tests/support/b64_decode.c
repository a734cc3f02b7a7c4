/* b64_decode.c -- see b64_decode.h. */
#include "support/b64_decode.h"

#include <stdint.h>
#include <string.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int sextet(char c)
{
    const char *p = c ? strchr(alphabet, c) : NULL;

    return p ? (int)(p - alphabet) : -1;
}

/* Decode one 4-character group; `last` allows padding. Returns the number
 * of bytes produced (1..3) or -1. */
static int decode_group(const char *q, int last, unsigned char b[3])
{
    int s[4], i, pad = 0;
    uint32_t v = 0;

    for (i = 0; i < 4; i++) {
        if (q[i] == '=') {
            if (!last || i < 2)
                return -1;
            pad++, s[i] = 0;
        } else if (pad || (s[i] = sextet(q[i])) < 0) {
            return -1;   /* a character after '=', or not base64 */
        }
        v = (v << 6) | (uint32_t)s[i];
    }
    if ((pad == 1 && (v & 0xFF)) || (pad == 2 && (v & 0xFFFF)))
        return -1;
    b[0] = (unsigned char)(v >> 16);
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)v;
    return 3 - pad;
}

int b64_decode(struct sb *out, const char *s, size_t n, struct err *e)
{
    size_t i;
    unsigned char b[3];
    int k;

    if (n % 4 != 0)
        return err_set(e, NULL, 0, 0,
                       "base64: length %zu is not a multiple of 4", n);
    for (i = 0; i < n; i += 4) {
        k = decode_group(s + i, i + 4 == n, b);
        if (k < 0)
            return err_set(e, NULL, 0, 0, "base64: bad group at byte %zu", i);
        if (sb_add(out, b, (size_t)k) < 0)
            return err_set(e, NULL, 0, 0, "base64: output exceeds %zu bytes",
                           out->cap);
    }
    return 0;
}
