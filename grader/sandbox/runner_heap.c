/*
 * runner_heap.c -- the runner's allocator: the student's malloc, calloc,
 * realloc and free (renamed grd_* in their object) hand out pages of the
 * heap file the grader counts from outside (runner_proto.h, sbx_books.c).
 * Part of the runner, not of the grader: linked into runner_main.o
 * (`ld -r`) and, like runner_main.c, a program's code with its one
 * static state, since the allocator's signatures are fixed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/compat.h"
#include "sandbox/runner_heap.h"
#include "sandbox/runner_proto.h"

/* ---- the heap ------------------------------------------------------------ */

/*
 * Every block the submission allocates is pages of the heap file
 * (runner_proto.h): the parent counts the file's data extents after each
 * call, so nothing here is evidence and nothing here needs protecting.
 * A submission that scribbles on this state or on a block's header breaks
 * only its own allocations; to stop a block counting it must punch its
 * pages out of the file, which is freeing it.
 */
#define HEAP_MAX_PAGES (1u << 18)   /* bitmap capacity: 1 GiB of 4 KiB pages */


static struct {
    struct rp_heap_meta *meta;      /* page 0 of the heap file */
    char *base;                     /* the whole file, mapped shared */
    size_t page, pages, hint;       /* pages: the file's, in the window */
    uint64_t used[HEAP_MAX_PAGES / 64];
} heap;

/* ---- redzones ---------------------------------------------------------- */

/*
 * A block whose redzone (runner_proto.h) changed was written past its end
 * by the submission (an off-by-one loop bound is the common case): the
 * first such block freed is noted in the meta page, which the parent turns
 * into a failed call (it checks the live blocks itself). Nothing here can
 * make a call pass.
 */
static void rz_fill(unsigned char *p, size_t len, uint64_t at)
{
    for (size_t k = 0; k < len; k++)
        p[k] = rp_redzone_byte(at, k);
}

/* Note the first block freed with its redzone changed (asked: its size). */
static void note_overrun(uint64_t asked)
{
    if (heap.meta != NULL && heap.meta->overrun == 0) {
        heap.meta->overrun = 1;
        heap.meta->overrun_size = asked;
    }
}

static void rz_check(const unsigned char *p, size_t len, uint64_t at, uint64_t asked)
{
    for (size_t k = 0; k < len; k++)
        if (p[k] != rp_redzone_byte(at, k)) {
            note_overrun(asked);
            return;
        }
}

static void *alloc_failed(void)
{
    if (heap.meta != NULL)
        heap.meta->alloc_failed = 1;
    errno = ENOMEM;
    return NULL;
}

#if CPT_LINUX
static int page_used(size_t i)
{
    return (int)((heap.used[i / 64] >> (i % 64)) & 1u);
}

static void mark(size_t at, size_t n, int on)
{
    for (size_t i = at; i < at + n; i++) {
        if (on)
            heap.used[i / 64] |= (uint64_t)1 << (i % 64);
        else
            heap.used[i / 64] &= ~((uint64_t)1 << (i % 64));
    }
}

/* A free run of n pages in [from, to), or 0 (page 0 is the meta page). */
static size_t run_in(size_t from, size_t to, size_t n)
{
    size_t run = 0;

    for (size_t i = from; i < to; i++) {
        if (i % 64 == 0 && heap.used[i / 64] == ~(uint64_t)0 && i + 64 <= to) {
            run = 0, i += 63;
            continue;
        }
        run = page_used(i) ? 0 : run + 1;
        if (run == n)
            return i + 1 - n;
    }
    return 0;
}

/* Next fit: from the last allocation on, then from the start. */
static size_t heap_find(size_t n)
{
    size_t at = run_in(heap.hint, heap.pages, n);

    if (at == 0)
        at = run_in(1, heap.pages, n);
    if (at != 0)
        heap.hint = at + n;
    return at;
}

/* Bytes of block b's pages past its header (what may be asked, plus the
 * redzone). */
static size_t blk_room(const struct rp_heap_blk *b)
{
    return (size_t)b->np * heap.page - sizeof *b;
}

static void blk_rz_fill(struct rp_heap_blk *b)
{
    rz_fill((unsigned char *)(b + 1) + b->size, blk_room(b) - b->size, b->off);
}

static void blk_rz_check(const struct rp_heap_blk *b)
{
    rz_check((const unsigned char *)(b + 1) + b->size, blk_room(b) - b->size, b->off,
             b->size);
}

/* n bytes in free pages of the heap window, each page written (so that
 * the file holds data for the whole block), the rest of its last page a
 * redzone of RP_REDZONE_MIN bytes at least, with one unused page after it
 * (so that every block is an extent of its own); NULL, errno ENOMEM. */
static void *heap_alloc(size_t n)
{
    size_t pg = heap.page, np, at;
    struct rp_heap_blk *b;

    if (heap.base == NULL || n > SIZE_MAX - pg - sizeof *b - RP_REDZONE_MIN)
        return alloc_failed();
    np = (n + sizeof *b + RP_REDZONE_MIN + pg - 1) / pg;
    if (np + 2 > heap.pages || (at = heap_find(np + 1)) == 0)
        return alloc_failed();
    mark(at, np + 1, 1);
    b = (struct rp_heap_blk *)(heap.base + at * pg);
    for (size_t i = 1; i < np; i++)
        ((volatile char *)b)[i * pg] = 0;
    *b = (struct rp_heap_blk){ (uintptr_t)(b + 1) ^ RP_HEAP_TAG, n, at * pg, np };
    blk_rz_fill(b);
    return b + 1;
}

/* The block of p, or abort() as glibc does on a pointer it never gave. */
static struct rp_heap_blk *heap_block(void *p)
{
    struct rp_heap_blk *b = (struct rp_heap_blk *)p - 1;
    uintptr_t lo = (uintptr_t)heap.base + heap.page;
    uintptr_t hi = (uintptr_t)heap.base + heap.pages * heap.page;

    if ((uintptr_t)b < lo || (uintptr_t)b >= hi ||
        ((uintptr_t)b - lo) % heap.page != 0 ||
        b->tag != ((uintptr_t)p ^ RP_HEAP_TAG) || b->np == 0 ||
        b->off != (uintptr_t)b - (uintptr_t)heap.base ||
        b->np >= heap.pages - b->off / heap.page)
        abort();
    return b;
}

static void heap_free(void *p)
{
    struct rp_heap_blk *b = heap_block(p);
    size_t at = b->off / heap.page, np = b->np;

    blk_rz_check(b);
    /* errno stays as it was: the call sets it only when it fails (and
     * writing it would copy a page of the thread's own after the fork) */
    if (fallocate(RP_FD_HEAP, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)(at * heap.page), (off_t)(np * heap.page)) != 0)
        abort();   /* the block would stay counted: say so loudly */
    mark(at, np + 1, 0);
}

static size_t heap_size(void *p)
{
    return (size_t)heap_block(p)->size;
}

/* Grow or shrink p's block in place when its pages have room for n bytes
 * and the redzone; 0, or -1 when they have not. */
static int heap_resize(void *p, size_t n)
{
    struct rp_heap_blk *b = heap_block(p);

    if (n > blk_room(b) - RP_REDZONE_MIN)
        return -1;
    blk_rz_check(b);
    b->size = n;
    blk_rz_fill(b);
    return 0;
}

#else
/* Portable builds (no memfd, SEEK_DATA or seccomp): the C library's heap
 * and the runner's own count in the meta page, which the parent reads. A
 * size word before each block keeps realloc's copy exact. */
static void *heap_alloc(size_t n)
{
    uint64_t *b = n <= SIZE_MAX - 16 - RP_REDZONE_MIN
                  ? malloc(n + 16 + RP_REDZONE_MIN) : NULL;

    if (b == NULL)
        return alloc_failed();
    b[0] = n;
    rz_fill((unsigned char *)(b + 2) + n, RP_REDZONE_MIN, (uintptr_t)b);
    if (heap.meta != NULL)
        heap.meta->live++;
    return b + 2;
}

static void heap_free(void *p)
{
    uint64_t *b = (uint64_t *)p - 2;

    rz_check((const unsigned char *)p + b[0], RP_REDZONE_MIN, (uintptr_t)b, b[0]);
    if (heap.meta != NULL)
        heap.meta->live--;
    free(b);
}


static size_t heap_size(void *p)
{
    return (size_t)((uint64_t *)p - 2)[0];
}
#endif

/* Map the heap file (one window: a mapping per block costs ~0.1 ms with
 * tens of thousands of them) and size the bitmap; before the sandbox. */
void rh_heap_setup(size_t page)
{
    struct stat st;
    void *m;

    heap.page = page;
    if (fstat(RP_FD_HEAP, &st) != 0 || st.st_size < (off_t)(2 * page))
        _exit(RP_EXIT_SETUP);
    heap.pages = (size_t)st.st_size / page;
    if (heap.pages > HEAP_MAX_PAGES)
        heap.pages = HEAP_MAX_PAGES;
#if CPT_LINUX
    m = mmap(NULL, heap.pages * page, PROT_READ | PROT_WRITE, MAP_SHARED,
             RP_FD_HEAP, 0);
    heap.base = m;
#else
    m = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, RP_FD_HEAP, 0);
#endif
    if (m == MAP_FAILED)
        _exit(RP_EXIT_SETUP);
    heap.meta = m;
    heap.hint = 1;
}

/*
 * What malloc's bytes hold before the submission writes them: 0xff, a NaN
 * read as a float or a double and -1 (SIZE_MAX) read as an integer. A
 * fresh page of the heap file is all zeros, so without this a submission
 * that accumulates into malloc'd memory it never cleared (a missing memset,
 * `acc[i] +=` from the first term) would pass here and fail wherever the C
 * library hands out a used block. Poison, not a random pattern: the same
 * in every run, and NaN reaches every output computed from it.
 */
#define RH_FRESH_BYTE 0xff

void *grd_malloc(size_t n)
{
    void *p = heap_alloc(n);

    if (p != NULL)
        memset(p, RH_FRESH_BYTE, n);
    return p;
}

void *grd_calloc(size_t n, size_t size)
{
    void *p;

    if (size != 0 && n > SIZE_MAX / size)
        return alloc_failed();
    if ((p = heap_alloc(n * size)) != NULL)
        memset(p, 0, n * size);
    return p;
}

void *grd_realloc(void *p, size_t n)
{
    void *q;

    if (p == NULL)
        return grd_malloc(n);
    if (n == 0) {
        heap_free(p);
        return NULL;
    }
#if CPT_LINUX
    if (heap_resize(p, n) == 0)
        return p;
#endif
    if ((q = grd_malloc(n)) == NULL)
        return NULL;                /* p is still valid and still live */
    memcpy(q, p, heap_size(p) < n ? heap_size(p) : n);
    heap_free(p);
    return q;
}

void grd_free(void *p)
{
    if (p != NULL)
        heap_free(p);
}
