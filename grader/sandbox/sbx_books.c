/*
 * sbx_books.c -- the runner's allocations, counted from outside it.
 *
 * Every block the runner's grd_* allocator hands out is pages of the heap
 * file, a memfd made here (runner_proto.h). Freeing a block punches its
 * pages out of the file. The live blocks are therefore the file's data
 * extents after its meta page, and the kernel says where those are
 * (SEEK_DATA/SEEK_HOLE): nothing the runner sends, keeps or writes is
 * believed, so a submission whose code reaches any libc function by
 * address (printf's address plus an offset is send) still cannot hide a
 * block short of giving its pages back.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/compat.h"
#include "sandbox/runner_proto.h"
#include "sandbox/sbx_internal.h"

int sbx_books_open(size_t bytes)
{
    int fd = cpt_anon_fd("grader-heap");

    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)bytes) != 0) {
        int err = errno;

        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

static int read_meta(int fd, struct rp_heap_meta *m)
{
    memset(m, 0, sizeof *m);
    return pread(fd, m, sizeof *m, 0) == (ssize_t)sizeof *m ? 0 : -1;
}

#if CPT_LINUX
static long page_size(void)
{
    long pg = sysconf(_SC_PAGESIZE);

    return pg > 0 ? pg : 4096;
}

long sbx_books_live(int fd)
{
    off_t at = (off_t)page_size(), data;
    long n = 0;

    for (;;) {
        data = lseek(fd, at, SEEK_DATA);
        if (data < 0)
            return errno == ENXIO ? n : -1;
        at = lseek(fd, data, SEEK_HOLE);
        if (at < 0)
            return -1;
        n++;
    }
}
#else
/* Portable builds: the runner's own count (no seccomp there either). */
long sbx_books_live(int fd)
{
    struct rp_heap_meta m;

    return read_meta(fd, &m) == 0 && m.live >= 0 ? (long)m.live : -1;
}
#endif

int sbx_books_failed(int fd)
{
    struct rp_heap_meta m;

    return fd >= 0 && read_meta(fd, &m) == 0 && m.alloc_failed != 0;
}

#if CPT_LINUX
/*
 * What the live check may cost (issue 35): the header it reads the size
 * from is the submission's to write, so its claim never sets the cost.
 * Per block, at most LIVE_RZ_BLOCK_MAX bytes past the claimed size are
 * compared: the redzone the allocator writes for a fresh block is the
 * rest of its last page (under a page plus RP_REDZONE_MIN), and an
 * off-by-some write lands there; a block shrunk in place by realloc, or
 * one whose header claims 0 bytes, is not read to its end. Per call, at
 * most LIVE_RZ_CALL_MAX bytes in all; the blocks past that are not
 * checked after this call (they can only have failed it). So nine leaked
 * 24 MiB blocks whose headers claim 0 bytes cost what nine small blocks
 * do, instead of 216 MiB read after every call.
 */
#define LIVE_RZ_BLOCK_MAX (64u << 10)
#define LIVE_RZ_CALL_MAX (1u << 20)

/* Is the live block at [at, end) of the file, whose header says so, intact
 * past its size (within *left bytes, less what it read)? A header that
 * does not describe the extent (overwritten, forged) is no evidence either
 * way: 1 (its leak still counts). */
static int block_intact(int fd, off_t at, off_t end, uint64_t *asked, uint64_t *left)
{
    struct rp_heap_blk b;
    unsigned char buf[4096];
    uint64_t pg = (uint64_t)page_size(), k = 0, room, stop;

    if (pread(fd, &b, sizeof b, at) != (ssize_t)sizeof b || b.off != (uint64_t)at ||
        b.np == 0 || b.np != (uint64_t)(end - at) / pg || (uint64_t)(end - at) % pg != 0)
        return 1;
    room = b.np * pg - sizeof b;
    if (b.size > room)
        return 1;
    stop = room - b.size;
    if (stop > LIVE_RZ_BLOCK_MAX)
        stop = LIVE_RZ_BLOCK_MAX;
    if (stop > *left)
        stop = *left;
    while (k < stop) {
        size_t n = stop - k < sizeof buf ? (size_t)(stop - k) : sizeof buf;
        if (pread(fd, buf, n, at + (off_t)(sizeof b + b.size + k)) != (ssize_t)n)
            return 1;
        *left -= n;
        for (size_t i = 0; i < n; i++)
            if (buf[i] != rp_redzone_byte(b.off, k + i)) {
                *asked = b.size;
                return 0;
            }
        k += n;
    }
    return 1;
}

/* The live blocks' redzones: each data extent past the meta page, within
 * LIVE_RZ_CALL_MAX bytes; *read gets what was compared. */
static int live_overrun(int fd, uint64_t *asked, uint64_t *read)
{
    off_t at = (off_t)page_size(), data;
    uint64_t left = LIVE_RZ_CALL_MAX;
    int found = 0;

    while (left > 0) {
        if ((data = lseek(fd, at, SEEK_DATA)) < 0 || (at = lseek(fd, data, SEEK_HOLE)) < 0)
            break;
        if (!block_intact(fd, data, at, asked, &left)) {
            found = 1;
            break;
        }
    }
    *read = LIVE_RZ_CALL_MAX - left;
    return found;
}
#else
static int live_overrun(int fd, uint64_t *asked, uint64_t *read)
{
    (void)fd, (void)asked;
    *read = 0;
    return 0;   /* portable builds: checked at free only */
}
#endif

int sbx_books_overrun(int fd, uint64_t *asked, uint64_t *read)
{
    struct rp_heap_meta m;

    *read = 0;
    if (fd < 0)
        return 0;
    if (read_meta(fd, &m) == 0 && m.overrun != 0) {
        *asked = m.overrun_size;
        return 1;
    }
    return live_overrun(fd, asked, read);
}

void sbx_books_clear_hints(int fd)
{
    struct rp_heap_meta m;

    /* hints only: a stale alloc_failed names a crash "memory", a stale
     * overrun fails the call it is read after (the runner is then
     * restarted, and a fresh heap file has none) */
    if (fd >= 0 && read_meta(fd, &m) == 0) {
        m.alloc_failed = 0;
        m.overrun = 0;
        m.overrun_size = 0;
        if (pwrite(fd, &m, sizeof m, 0) < 0)
            return;
    }
}
