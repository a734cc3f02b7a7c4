/* zip.c -- see zip.h. The layout follows PKWARE's APPNOTE.TXT 6.3: per
 * entry a local file header (4.3.7) and the data, then the central
 * directory (4.3.12) and the end of central directory record (4.3.16),
 * every number little-endian. */
#include "core/zip.h"

#include <string.h>

#define ZIP_MAX_ENTRIES 65535u
#define ZIP_MAX_OFFSET 0xFFFFFFFFu
#define ZIP_NAME_MAX 1024
#define ZIP_VERSION 20        /* 2.0: what a stored file in a folder needs */
#define ZIP_UTF8 (1u << 11)   /* general purpose bit 11: the name is UTF-8 */
#define ZIP_DOS_DATE 0x0021u  /* 1980-01-01: (0 << 9) | (1 << 5) | 1 */

uint32_t zip_crc32(uint32_t crc, const void *data, size_t n)
{
    const unsigned char *p = data;

    /* Bit by bit rather than a table: feedback files are kilobytes, and no
     * table means no state to initialise or share between threads. */
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static int put16(struct sb *sb, unsigned v)
{
    unsigned char b[2] = { (unsigned char)(v & 0xFF), (unsigned char)(v >> 8 & 0xFF) };

    return sb_add(sb, b, 2);
}

static int put32(struct sb *sb, uint32_t v)
{
    unsigned char b[4] = { (unsigned char)(v & 0xFF), (unsigned char)(v >> 8 & 0xFF),
                           (unsigned char)(v >> 16 & 0xFF), (unsigned char)(v >> 24) };

    return sb_add(sb, b, 4);
}

void zip_begin(struct zip_writer *z, struct sb *out)
{
    z->out = out;
    sb_init(&z->central, 0);
    z->n = 0;
}

void zip_abort(struct zip_writer *z)
{
    sb_release(&z->central);
    z->n = 0;
}

/* A relative path an unzip puts inside its folder, and nowhere else. */
static int name_ok(const char *name)
{
    size_t len = strlen(name);

    if (len == 0 || len > ZIP_NAME_MAX || name[0] == '/' || name[len - 1] == '/' ||
        strchr(name, '\\') != NULL)
        return 0;
    for (const char *p = name; *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : p + strlen(p)) {
        size_t part = strcspn(p, "/");

        if (part == 0 || (part == 1 && p[0] == '.') || (part == 2 && !strncmp(p, "..", 2)))
            return 0;
    }
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return 0;
    return 1;
}

/* The fields a local header and a central directory entry share, from
 * "version needed" to "extra field length" (APPNOTE 4.3.7). */
static int put_common(struct sb *sb, uint32_t crc, uint32_t size, size_t name_len)
{
    return put16(sb, ZIP_VERSION) || put16(sb, ZIP_UTF8) || put16(sb, 0) /* stored */ ||
           put16(sb, 0) /* time 00:00 */ || put16(sb, ZIP_DOS_DATE) || put32(sb, crc) ||
           put32(sb, size) /* compressed */ || put32(sb, size) /* uncompressed */ ||
           put16(sb, (unsigned)name_len) || put16(sb, 0) /* no extra field */;
}

int zip_add(struct zip_writer *z, const char *name, const void *data, size_t n,
            struct err *e)
{
    size_t offset = z->out->len, len = strlen(name);
    uint32_t crc;

    if (!name_ok(name))
        return err_set(e, NULL, 0, 0, "'%.200s' is not a relative file name for a zip", name);
    if (z->n >= ZIP_MAX_ENTRIES)
        return err_set(e, NULL, 0, 0, "more than %u files for one zip", ZIP_MAX_ENTRIES);
    if (n > ZIP_MAX_OFFSET || (uint64_t)offset + 30 + len + n > ZIP_MAX_OFFSET)
        return err_set(e, NULL, 0, 0, "the zip would pass 4 GiB (no ZIP64)");
    crc = zip_crc32(0, data, n);
    if (put32(z->out, 0x04034b50u) || put_common(z->out, crc, (uint32_t)n, len) ||
        sb_add(z->out, name, len) || sb_add(z->out, data, n))
        return err_set(e, NULL, 0, 0, "the zip is larger than its cap");
    /* made by 3.0 on Unix (3), so that the external attributes' high half
     * is a mode: a regular file readable by all (0100644) */
    if (put32(&z->central, 0x02014b50u) || put16(&z->central, 3u << 8 | 30) ||
        put_common(&z->central, crc, (uint32_t)n, len) || put16(&z->central, 0) /* comment */ ||
        put16(&z->central, 0) /* disk */ || put16(&z->central, 0) /* internal attrs */ ||
        put32(&z->central, 0100644u << 16) || put32(&z->central, (uint32_t)offset) ||
        sb_add(&z->central, name, len))
        return err_set(e, NULL, 0, 0, "out of memory");
    z->n++;
    return 0;
}

int zip_finish(struct zip_writer *z, struct err *e)
{
    size_t at = z->out->len;
    int rc = 0;

    if (at > ZIP_MAX_OFFSET || z->central.len > ZIP_MAX_OFFSET - at)
        rc = err_set(e, NULL, 0, 0, "the zip would pass 4 GiB (no ZIP64)");
    else if (sb_add(z->out, sb_str(&z->central), z->central.len) ||
             put32(z->out, 0x06054b50u) || put16(z->out, 0) /* this disk */ ||
             put16(z->out, 0) /* the directory's disk */ ||
             put16(z->out, (unsigned)z->n) || put16(z->out, (unsigned)z->n) ||
             put32(z->out, (uint32_t)z->central.len) || put32(z->out, (uint32_t)at) ||
             put16(z->out, 0) /* no comment */)
        rc = err_set(e, NULL, 0, 0, "the zip is larger than its cap");
    zip_abort(z);
    return rc;
}
