/*
 * strbuf.h -- a growable, NUL-terminated byte buffer with a hard cap
 * (after git's strbuf and curl's dynbuf).
 *
 * Every report and every message built from outside input goes through a
 * strbuf, so that no submission can make the grader allocate without bound.
 * When an append would pass the cap, the part that fits is kept, the
 * buffer is marked truncated and the call returns -1; the content stays a
 * valid NUL-terminated string. Out of memory is reported the same way.
 */
#ifndef GRD_STRBUF_H
#define GRD_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct sb {
    char *buf;       /* NULL until the first append; see sb_str() */
    size_t len;      /* bytes used, not counting the NUL */
    size_t alloc;    /* bytes allocated */
    size_t cap;      /* most bytes ever held (len <= cap) */
    int truncated;   /* an append hit the cap or ran out of memory */
};

/* The cap used when sb_init() is given 0: 16 MiB. */
#define SB_DEFAULT_CAP ((size_t)16 << 20)

/* ---- lifecycle ---- */

/* Make `sb` empty with a cap of `cap` bytes (0: SB_DEFAULT_CAP; at most
 * SIZE_MAX / 2).
 * Allocates nothing. */
void sb_init(struct sb *sb, size_t cap);

/* Free the memory and leave `sb` empty (same cap), ready for reuse. */
void sb_release(struct sb *sb);

/* Make `sb` empty again ("", not truncated), keeping its memory and cap,
 * as git's strbuf_reset(): for a buffer that is filled anew. */
void sb_reset(struct sb *sb);

/*
 * Hand the content to the caller, who frees it with free(). Returns a
 * NUL-terminated string (an allocated "" when empty), or NULL when out of
 * memory. `sb` is left empty either way; *len (may be NULL) gets the length.
 */
char *sb_detach(struct sb *sb, size_t *len);

/* ---- appending ---- */

/*
 * Append n bytes of data. Returns 0, or -1 when the cap is hit (the bytes
 * that fit are appended, sb->truncated is set) or memory runs out (nothing
 * appended, sb->truncated set).
 */
int sb_add(struct sb *sb, const void *data, size_t n)
    __attribute__((warn_unused_result));

/* Append a NUL-terminated string; as sb_add(). */
int sb_adds(struct sb *sb, const char *s)
    __attribute__((warn_unused_result));

/* Append one byte; as sb_add(). */
int sb_addch(struct sb *sb, char c) __attribute__((warn_unused_result));

/* Append printf-formatted text; as sb_add() (a formatting error is -1 too). */
int sb_addf(struct sb *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), warn_unused_result));

/* va_list form of sb_addf(). */
int sb_vaddf(struct sb *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0), warn_unused_result));

/* ---- files ---- */

/* What sb_read_file() returns. */
enum sb_read {
    SB_READ_OK = 0,    /* the whole file was appended */
    SB_READ_CUT = 1,   /* the file holds more than `max` bytes: the first
                          `max` were appended */
    SB_READ_OPEN = -1, /* open failed; errno says why; nothing appended */
    SB_READ_IO = -2,   /* a read failed; errno says why; what was read before
                          stays appended */
    SB_READ_CAP = -3,  /* sb's cap was hit or memory ran out (sb->truncated;
                          the bytes that fit stay appended) */
};

/*
 * Append the file at `path` to sb, at most `max` bytes of it (0: no limit
 * but sb's cap), as git's strbuf_read_file() does; a regular file's size
 * (fstat) sizes the buffer once. Returns an enum sb_read; errno is kept
 * from the failing call for SB_READ_OPEN and SB_READ_IO. The one reader
 * of whole files: each caller words its own message from the result.
 */
enum sb_read sb_read_file(struct sb *sb, const char *path, size_t max)
    __attribute__((warn_unused_result));

/*
 * The same from an open descriptor, read to its end and left open: for a
 * caller that opens the file itself (the student's source, O_NOFOLLOW).
 * Never SB_READ_OPEN.
 */
enum sb_read sb_read_fd(struct sb *sb, int fd, size_t max)
    __attribute__((warn_unused_result));

/*
 * sb_read_file() with its failures worded in e, about `path`: "cannot
 * open: <why>", "cannot read: <why>", "larger than <cap> bytes" (sb's cap
 * was reached) or "out of memory". Returns SB_READ_OK, SB_READ_CUT (no
 * error: the caller says what a file past `max` means), or -1 with e set.
 */
int sb_load_file(struct sb *sb, const char *path, size_t max, struct err *e)
    __attribute__((warn_unused_result));

/* ---- reading ---- */

/* The content, never NULL ("" before the first append). */
const char *sb_str(const struct sb *sb);

/* ---- UTF-8 ---- */

/*
 * Decode the UTF-8 sequence at s (n > 0 bytes available). Returns the code
 * point and stores its length in *adv; returns -1 with *adv = 1 for a byte
 * that does not start a valid, shortest-form, non-surrogate sequence. Used
 * by every writer that must replace invalid UTF-8 with U+FFFD.
 */
int32_t sb_utf8_next(const char *s, size_t n, size_t *adv);

/* Append code point cp (<= 0x10FFFF) as UTF-8; as sb_add(). */
int sb_add_utf8(struct sb *sb, uint32_t cp)
    __attribute__((warn_unused_result));

#endif
