/* b64.c -- see b64.h. */
#include "core/b64.h"

#include <stdint.h>
#include <string.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t b64_encoded_len(size_t n)
{
    size_t groups = n / 3 + (n % 3 != 0);

    return groups > SIZE_MAX / 4 ? (size_t)-1 : groups * 4;
}

/* Encode 1..3 bytes into one padded 4-character group. */
static void encode_group(const unsigned char *p, size_t k, char q[4])
{
    uint32_t v = (uint32_t)p[0] << 16;

    if (k > 1)
        v |= (uint32_t)p[1] << 8;
    if (k > 2)
        v |= p[2];
    q[0] = alphabet[(v >> 18) & 63];
    q[1] = alphabet[(v >> 12) & 63];
    q[2] = k > 1 ? alphabet[(v >> 6) & 63] : '=';
    q[3] = k > 2 ? alphabet[v & 63] : '=';
}

int b64_encode(struct sb *out, const void *data, size_t n,
               struct err *e)
{
    const unsigned char *p = data;
    size_t i;
    char q[4];

    if (b64_encoded_len(n) == (size_t)-1)
        return err_set(e, NULL, 0, 0, "base64: input too large");
    for (i = 0; i < n; i += 3) {
        encode_group(p + i, n - i < 3 ? n - i : 3, q);
        if (sb_add(out, q, 4) < 0)
            return err_set(e, NULL, 0, 0, "base64: output exceeds %zu bytes",
                           out->cap);
    }
    return 0;
}
