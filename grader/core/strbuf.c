/* strbuf.c -- see strbuf.h. */
#include "core/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sb_init(struct sb *sb, size_t cap)
{
    sb->buf = NULL;
    sb->len = 0;
    sb->alloc = 0;
    /* cap + 1 (room for the NUL) must not overflow */
    if (cap == 0 || cap > SIZE_MAX / 2)
        cap = cap ? SIZE_MAX / 2 : SB_DEFAULT_CAP;
    sb->cap = cap;
    sb->truncated = 0;
}

void sb_release(struct sb *sb)
{
    free(sb->buf);
    sb_init(sb, sb->cap);
}

void sb_reset(struct sb *sb)
{
    sb->len = 0;
    sb->truncated = 0;
    if (sb->buf != NULL)
        sb->buf[0] = '\0';
}

char *sb_detach(struct sb *sb, size_t *len)
{
    char *s = sb->buf ? sb->buf : calloc(1, 1);

    if (len != NULL)
        *len = s ? sb->len : 0;
    sb->buf = NULL;
    sb_init(sb, sb->cap);
    return s;
}

const char *sb_str(const struct sb *sb)
{
    return sb->buf ? sb->buf : "";
}

/* Make room for `want` more bytes plus the NUL, growing geometrically but
 * never past cap + 1. Returns how many of the wanted bytes fit (<= want). */
static size_t reserve(struct sb *sb, size_t want)
{
    size_t room = sb->cap - sb->len;
    size_t need, alloc;
    char *p;

    if (want > room)
        want = room;
    need = sb->len + want + 1;
    if (need <= sb->alloc)
        return want;
    alloc = sb->alloc ? sb->alloc : 64;
    while (alloc < need)
        alloc = alloc > (sb->cap + 1) / 2 ? sb->cap + 1 : alloc * 2;
    p = realloc(sb->buf, alloc);
    if (p == NULL)
        return (size_t)-1;
    sb->buf = p;
    sb->alloc = alloc;
    return want;
}

int sb_add(struct sb *sb, const void *data, size_t n)
{
    size_t fit = reserve(sb, n);

    if (fit == (size_t)-1) {
        sb->truncated = 1;
        return -1;
    }
    if (fit > 0)
        memcpy(sb->buf + sb->len, data, fit);
    sb->len += fit;
    sb->buf[sb->len] = '\0';
    if (fit < n) {
        sb->truncated = 1;
        return -1;
    }
    return 0;
}

int sb_adds(struct sb *sb, const char *s)
{
    return sb_add(sb, s, strlen(s));
}

int sb_addch(struct sb *sb, char c)
{
    return sb_add(sb, &c, 1);
}

int sb_vaddf(struct sb *sb, const char *fmt, va_list ap)
{
    char small[256];
    va_list ap2;
    int n;
    char *big;
    int rc;

    va_copy(ap2, ap);
    n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        sb->truncated = 1;
        return -1;
    }
    if ((size_t)n < sizeof small)
        return sb_add(sb, small, (size_t)n);
    big = malloc((size_t)n + 1);
    if (big == NULL) {
        sb->truncated = 1;
        return -1;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    rc = sb_add(sb, big, (size_t)n);
    free(big);
    return rc;
}

int sb_addf(struct sb *sb, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = sb_vaddf(sb, fmt, ap);
    va_end(ap);
    return rc;
}

/* Length of the sequence a lead byte announces, with the smallest code
 * point that length may encode (shortest form only); 0 when not a lead. */
static size_t utf8_len(unsigned char c, uint32_t *min, uint32_t *bits)
{
    if (c >= 0xC2 && c <= 0xDF) {
        *min = 0x80, *bits = c & 0x1F;
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        *min = 0x800, *bits = c & 0x0F;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        *min = 0x10000, *bits = c & 0x07;
        return 4;
    }
    return 0;
}

int32_t sb_utf8_next(const char *s, size_t n, size_t *adv)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t min = 0, cp = 0;
    size_t len, i;

    *adv = 1;
    if (u[0] < 0x80)
        return u[0];
    len = utf8_len(u[0], &min, &cp);
    if (len == 0 || len > n)
        return -1;
    for (i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (u[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *adv = len;
    return (int32_t)cp;
}

int sb_add_utf8(struct sb *sb, uint32_t cp)
{
    char b[4];

    if (cp < 0x80) {
        b[0] = (char)cp;
        return sb_add(sb, b, 1);
    }
    if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        return sb_add(sb, b, 2);
    }
    if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        return sb_add(sb, b, 3);
    }
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    return sb_add(sb, b, 4);
}

/* Bytes read(2) asks for at a time. */
#define READ_CHUNK ((size_t)64 << 10)

/* Room for the whole file at once when fstat knows its size (golden data
 * runs to megabytes: no copies by doubling), exactly, within the cap. A
 * failure here is left to the reads, which report it. */
static void presize(struct sb *sb, int fd, size_t max)
{
    struct stat st;
    size_t want, need;
    char *p;

    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
        return;
    want = (uintmax_t)st.st_size > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)st.st_size;
    if (max != 0 && want > max)
        want = max;
    if (want > sb->cap - sb->len)
        want = sb->cap - sb->len;
    need = sb->len + want + 1;
    if (need <= sb->alloc || (p = realloc(sb->buf, need)) == NULL)
        return;
    p[sb->len] = '\0';
    sb->buf = p;
    sb->alloc = need;
}

/* The rest of fd into sb, at most max bytes (0: no limit). */
static enum sb_read read_fd(struct sb *sb, int fd, size_t max)
{
    char chunk[READ_CHUNK];
    size_t got = 0;
    ssize_t k;

    presize(sb, fd, max);
    while ((k = read(fd, chunk, sizeof chunk)) != 0) {
        int cut;
        size_t take;

        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return SB_READ_IO;
        cut = max != 0 && (size_t)k > max - got;
        take = cut ? max - got : (size_t)k;
        if (sb_add(sb, chunk, take) != 0)
            return SB_READ_CAP;
        if (cut)
            return SB_READ_CUT;
        got += take;
    }
    return SB_READ_OK;
}

enum sb_read sb_read_fd(struct sb *sb, int fd, size_t max)
{
    errno = 0;
    return read_fd(sb, fd, max);
}

enum sb_read sb_read_file(struct sb *sb, const char *path, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    enum sb_read r;
    int saved;

    if (fd < 0)
        return SB_READ_OPEN;
    r = sb_read_fd(sb, fd, max);
    saved = errno;
    close(fd);
    errno = saved;
    return r;
}

int sb_load_file(struct sb *sb, const char *path, size_t max, struct err *e)
{
    enum sb_read r = sb_read_file(sb, path, max);

    if (r == SB_READ_OPEN || r == SB_READ_IO)
        return err_set(e, path, 0, 0, "cannot %s: %s", r == SB_READ_OPEN ? "open" : "read",
                       strerror(errno));
    if (r == SB_READ_CAP && sb->len == sb->cap)
        return err_set(e, path, 0, 0, "larger than %zu bytes", sb->cap);
    if (r == SB_READ_CAP)
        return err_set(e, path, 0, 0, "out of memory");
    return r;
}
