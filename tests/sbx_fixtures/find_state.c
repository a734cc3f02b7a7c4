/* hostile: finds the runner's state by scanning memory in pure C (the
 * way tests/hostile/forge_*.c do) and only reads it: rc ATTN_OK when
 * found, so that the catalogue's forgeries are known to reach their
 * target and fault for the protection, not for a bad scan */
#include "attention.h"
#include "good_softmax.h"
#include <stddef.h>
#include <stdint.h>
#define RN_NBUF 12
#define RN_LIVE_CAP 65536u
#define RN_DONE_XOR 0x5a17c0de0ddba11ull

struct rn_buf_view {
    uint64_t off, map_len, len;
    uint32_t flags;
    int32_t alias;
    char name[8];
};

struct rn_header_view {
    uint32_t version, fn;
    uint64_t nonce;
    uint64_t dim[6];
    float eps;
    uint32_t nbuf;
    struct rn_buf_view buf[RN_NBUF];
    int32_t state, rc, signo, bad_buf, access, side, syscall_nr;
    uint32_t alloc_failed, stack_overflow;
    int64_t live_allocs;
    uint64_t done;
};

struct rn_state_view {
    struct rn_header_view *hdr;
    size_t page;
    uintptr_t area_lo, area_hi;
    struct { uintptr_t lo, hi; int writable; } reg[RN_NBUF];
    uintptr_t stack_lo, stack_hi;
    void *live[RN_LIVE_CAP];
    long nlive;
};

static volatile int scan_mark_data = 1; /* .data: below the runner's .bss */
static volatile int scan_mark_bss;      /* .bss: above it */

/* The runner's state: a page-aligned pointer to a version-1 header,
 * followed by the page size. Reads only mapped memory (our own image). */
static struct rn_state_view *find_runner_state(void)
{
    uintptr_t lo = (uintptr_t)&scan_mark_data, hi = (uintptr_t)&scan_mark_bss;

    if (lo > hi) {
        uintptr_t t = lo;
        lo = hi;
        hi = t;
    }
    /* downwards from our .bss: the runner's .bss may be a segment of its
     * own, with an unmapped gap below it */
    for (uintptr_t a = (hi - 16) & ~(uintptr_t)7; a >= lo; a -= 8) {
        const uintptr_t *w = (const uintptr_t *)a;
        if (w[1] == 4096 && w[0] != 0 && (w[0] & 4095) == 0 &&
            ((const volatile struct rn_header_view *)w[0])->version == 1)
            return (struct rn_state_view *)a;
    }
    return NULL;
}

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    struct rn_state_view *st = find_runner_state();
    size_t i;

    for (i = 0; i < n * d; i++)
        pe[i] = 0.0f;
    if (st == NULL || st->page != 4096 || st->hdr->nbuf != 1)
        return ATTN_EINVAL;
    return ATTN_OK;
}
