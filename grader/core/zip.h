/*
 * zip.h -- write a ZIP archive (PKWARE APPNOTE 6.3) in memory: stored
 * entries (method 0, no compression), each with its CRC-32, local header,
 * central directory and end record. What `grader export --feedback
 * --moodle` hands to Moodle's "Upload multiple feedback files in a zip".
 *
 * Deterministic: every entry's time is 1980-01-01 00:00 (the DOS epoch), so
 * the same files give the same bytes. Names are UTF-8 (flag bit 11).
 * No ZIP64: an archive of more than 65535 entries or 4 GiB is refused.
 */
#ifndef GRD_ZIP_H
#define GRD_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/strbuf.h"

struct zip_writer {
    struct sb *out;     /* the archive so far: local headers and data */
    struct sb central;  /* the central directory, appended by zip_finish */
    size_t n;           /* entries */
};

/* The CRC-32 (ISO 3309, the polynomial zlib and zip use) of data[0..n),
 * continued from `crc` (0 to start). */
uint32_t zip_crc32(uint32_t crc, const void *data, size_t n);

/* Start an archive written into `out` (its cap bounds the archive). */
void zip_begin(struct zip_writer *z, struct sb *out);

/*
 * Add the file `name` (a relative path with '/' between folders: no
 * leading '/', no "..", no backslash, 1 to 1024 bytes) holding
 * data[0..n). Returns 0, or -1 with `e` set (a bad name, too many
 * entries, the archive past 4 GiB or its cap, out of memory).
 */
int zip_add(struct zip_writer *z, const char *name, const void *data, size_t n,
            struct err *e) __attribute__((warn_unused_result));

/* Append the central directory and the end record. Returns 0, or -1 with
 * `e` set. Releases what z holds either way (out stays the caller's). */
int zip_finish(struct zip_writer *z, struct err *e) __attribute__((warn_unused_result));

/* Release what z holds without finishing (after a failed zip_add). */
void zip_abort(struct zip_writer *z);

#endif
