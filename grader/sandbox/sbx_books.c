/*
 * sbx_books.c -- the runner's allocations, counted in the grader.
 *
 * The runner's grd_* wrappers send one record per allocation and free on
 * a socket that student code cannot write (seccomp lets write/writev reach
 * only the descriptors below RP_FD_BOOKS, and a submission has no sendto).
 * The set of live pointers therefore lives here, in the parent, where no
 * memory scan can lower a count or fill a table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/runner_proto.h"
#include "sandbox/sbx_internal.h"

#define BOOKS_MIN 1024u               /* slots; a power of two */
#define BOOKS_MAX ((size_t)1 << 22)   /* beyond: counted as live for good */

static size_t slot_of(uint64_t p, size_t cap)
{
    uint64_t h = (p >> 4) * 0x9e3779b97f4a7c15ull;

    return (size_t)(h >> 20) & (cap - 1);
}

/* Insert without growing; 1 when added, 0 when already there. */
static int put(uint64_t *slot, size_t cap, uint64_t p)
{
    size_t i;

    for (i = slot_of(p, cap); slot[i] != 0; i = (i + 1) & (cap - 1))
        if (slot[i] == p)
            return 0;
    slot[i] = p;
    return 1;
}

/* Double the table (at most BOOKS_MAX); -1 when it cannot grow. */
static int grow(struct sbx_books *b)
{
    size_t cap = b->cap ? b->cap * 2 : BOOKS_MIN;
    uint64_t *slot;

    if (cap > BOOKS_MAX || (slot = calloc(cap, sizeof *slot)) == NULL)
        return -1;
    for (size_t i = 0; i < b->cap; i++)
        if (b->slot[i] != 0)
            put(slot, cap, b->slot[i]);
    free(b->slot);
    b->slot = slot;
    b->cap = cap;
    return 0;
}

static void add(struct sbx_books *b, uint64_t p)
{
    if (p == 0)
        return;
    if ((b->n + 1) * 4 > b->cap * 3 && grow(b) != 0) {
        b->untracked++;       /* fail closed: it stays live */
        return;
    }
    b->n += (size_t)put(b->slot, b->cap, p);
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void del(struct sbx_books *b, uint64_t p)
{
    size_t i, j, k, m = b->cap - 1;

    if (b->cap == 0 || p == 0)
        return;
    for (i = slot_of(p, b->cap); b->slot[i] != p; i = (i + 1) & m)
        if (b->slot[i] == 0)
            return;
    b->slot[i] = 0;
    b->n--;
    for (j = (i + 1) & m; b->slot[j] != 0; j = (j + 1) & m) {
        k = slot_of(b->slot[j], b->cap);
        if (((j - k) & m) >= ((j - i) & m)) {
            b->slot[i] = b->slot[j];
            b->slot[j] = 0;
            i = j;
        }
    }
}

static void apply(struct sbx_books *b, const struct rp_book *r)
{
    switch (r->op) {
    case RP_BOOK_ALLOC:
        add(b, r->ptr);
        break;
    case RP_BOOK_FREE:
        del(b, r->ptr);
        break;
    case RP_BOOK_FAILED:
        b->alloc_failed = 1;
        break;
    default:
        b->garbled = 1;
    }
}

void sbx_books_feed(struct sbx_books *b, const unsigned char *data, size_t n)
{
    struct rp_book r;

    while (n > 0) {
        size_t take = sizeof r - b->npart < n ? sizeof r - b->npart : n;
        memcpy(b->part + b->npart, data, take);
        b->npart += take, data += take, n -= take;
        if (b->npart == sizeof r) {
            memcpy(&r, b->part, sizeof r);
            apply(b, &r);
            b->npart = 0;
        }
    }
}

int sbx_books_drain(struct sbx_books *b, int fd)
{
    unsigned char buf[4096];
    ssize_t n;

    for (;;) {
        n = read(fd, buf, sizeof buf);
        if (n > 0)
            sbx_books_feed(b, buf, (size_t)n);
        else if (n == 0)
            return 1;
        else if (errno == EINTR)
            continue;
        else
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    }
}

long sbx_books_live(const struct sbx_books *b)
{
    return (long)b->n + b->untracked;
}

void sbx_books_reset(struct sbx_books *b)
{
    free(b->slot);
    memset(b, 0, sizeof *b);
}
