/*
 * runner_proto.h -- the protocol between the grader (sbx.c) and the runner
 * (runner_main.c linked with the student's object).
 *
 * File descriptors in the runner are fixed (RP_FD_*). One call:
 *   1. the parent lays the call out in the memfd: the header (page 0), then
 *      every buffer in its own page-aligned region, data right-aligned in
 *      the region so that the byte after the data is the next page;
 *   2. the parent writes one byte to the control pipe;
 *   3. the runner maps the buffers between PROT_NONE guard pages, calls the
 *      one requested attn_* function, records the result in the header and
 *      writes one byte to the result pipe.
 * A fault in the runner is recorded in the header by its signal handler,
 * which then exits with RP_EXIT_FAULT.
 *
 * Fork server (Linux): the executable is exec'd once as "runner serve"
 * with only RP_FD_CTL (a socketpair) and RP_FD_RES; it writes
 * RP_SERVER_BYTE, then for each request (one byte carrying RP_SPAWN_FDS
 * descriptors by SCM_RIGHTS: ctl, out, mem, res, heap) forks a test
 * runner with CLONE_PARENT (the grader's child), which takes those at
 * RP_FD_*, sandboxes itself and writes RP_READY_BYTE on its own res; the
 * server replies with the runner's pid as an int32 on its res.
 *
 * The header lives in memory the student's code can read and write. The
 * parent therefore never takes the layout back from it, and the result
 * fields are used only to classify how a call ended (see sbx.h).
 */
#ifndef GRD_RUNNER_PROTO_H
#define GRD_RUNNER_PROTO_H

#include <stdint.h>

#define RP_VERSION 1u
#define RP_HDR_SIZE 4096u /* bytes reserved for the header at offset 0 */
#define RP_NBUF 12
#define RP_NDIM 6
#define RP_NAME_MAX 8
#define RP_DONE_XOR 0x5a17c0de0ddba11ull /* done = nonce ^ RP_DONE_XOR */
#define RP_EXIT_FAULT 86   /* exit code of the fault handler */
#define RP_EXIT_SETUP 87   /* the runner could not sandbox itself */
#define RP_READY_BYTE 'R'  /* first byte on the result pipe after setup */
#define RP_SERVER_BYTE 'S' /* a fork server's first byte */
#define RP_SERVE_ARG "serve" /* argv[1] of a fork server */
#define RP_SPAWN_FDS 5     /* a spawn request carries ctl, out, mem, res, heap */
#define RP_HEAP_TAG 0x68656170b10c6b00ull /* block tag = user pointer ^ this */

enum rp_fd {
    RP_FD_CTL = 0, /* control pipe, parent -> runner */
    RP_FD_OUT = 1, /* stdout and stderr, runner -> parent */
    RP_FD_ERR = 2,
    RP_FD_MEM = 3, /* the shared memfd */
    RP_FD_RES = 4, /* result pipe, runner -> parent */
    RP_FD_HEAP = 5,  /* the heap file (see below) */
    RP_FD_COUNT = 6
};

/*
 * The heap file. Every grd_malloc/calloc/realloc block is pages of this
 * file (a memfd the parent made and sized), mapped shared, written, with
 * an unused page after each block; grd_free punches the block's pages out
 * of the file (fallocate PUNCH_HOLE) and unmaps them. So the runner's live
 * allocations are the file's data extents after page 0, which the parent
 * asks the kernel for (lseek SEEK_DATA/SEEK_HOLE) after each call: no
 * record the runner sends or keeps is believed, and the only way to make
 * a block stop counting is to give its pages back. Page 0 holds
 * struct rp_heap_meta, which the runner may write (a hint only).
 * Past the bytes asked, each block's last page is a redzone filled with
 * rp_redzone_byte (RP_REDZONE_MIN bytes at least): the runner checks it
 * when the block is freed and says so in the meta page; the parent checks
 * the live blocks' after each call, reading the file. Either can only fail
 * a call, never pass one.
 */
#define RP_REDZONE_MIN 16u

/* At the start of a block's first page (written by the runner: the parent
 * reads it only to find a live block's redzone). */
struct rp_heap_blk {
    uint64_t tag;                   /* user pointer ^ RP_HEAP_TAG */
    uint64_t size, off, np;         /* bytes asked, file offset, pages */
};

/*
 * Byte k of the redzone of the block at file offset `at`: a pattern that
 * varies with the offset (a stray 0.0f, 1.0f or copy of a neighbour does
 * not match it) and with the block (a loop run one row too far that copies
 * one block's redzone into another's, `memcpy(dst + r*d, src + r*d, d)`
 * for r up to rows with both blocks of the same size, writes the source
 * block's pattern, which is not the destination's), whose bytes 2 and 3
 * of every four are 0xe? and 0xbf: read as a float or a double at any
 * aligned offset it is a negative number near -1, so what a loop run one
 * step too far writes differs from it (`y[n] += x[n]` doubles it,
 * `if (!(x[n] > 0)) x[n] = 0` zeroes it). A NaN would not do: NaN + NaN
 * writes the same NaN back.
 */
static inline unsigned char rp_redzone_byte(uint64_t at, uint64_t k)
{
    uint64_t salt = (at * 0x9E3779B97F4A7C15ull) >> 48; /* 16 bits of the block */

    if (k % 4 == 3)
        return 0xbfu;
    if (k % 4 == 2)
        return (unsigned char)(0xe0u | ((k / 4) & 0x0fu));
    return (unsigned char)(0xA5u ^ (k * 0x3Bu) ^ (salt >> (8 * (k % 2))));
}
struct rp_heap_meta {
    uint32_t alloc_failed;  /* a grd_* allocation returned NULL (a hint
                               for the crash that follows, not a verdict) */
    uint32_t overrun;       /* a block's redzone (the bytes after what
                               was asked, to its last page's end) was
                               written: found at grd_free or after a call
                               (rh_heap_check); may only fail a call */
    int64_t live;           /* portable builds only (no SEEK_DATA and no
                               seccomp there): the runner's own count */
    uint64_t overrun_size;  /* bytes asked for the first such block */
};

/* How a call ended, as the runner saw it. */
enum rp_state {
    RP_NONE = 0,     /* nothing recorded */
    RP_RETURNED,     /* the function returned; rc is valid */
    RP_OVERRUN,      /* touched a guard page next to buffer bad_buf */
    RP_CONST_WRITE,  /* wrote into read-only input bad_buf */
    RP_CRASHED,      /* any other fatal signal (signo) */
    RP_SYSCALL,      /* seccomp trapped syscall_nr */
    RP_BADCALL,      /* the descriptor was inconsistent with the memfd */
    RP_NOMEM         /* no address space left to map the buffers */
};

enum rp_access { RP_ACC_UNKNOWN = 0, RP_ACC_READ, RP_ACC_WRITE };
enum rp_side { RP_AFTER = 0, RP_BEFORE = 1 };

enum rp_buf_flag {
    RP_BUF_PRESENT = 1u,  /* 0: the argument is NULL */
    RP_BUF_WRITABLE = 2u  /* output or in-place; else mapped read-only */
};

/* One pointer argument. Offsets are bytes into the memfd. */
struct rp_buf {
    uint64_t off;       /* start of the region (page-aligned) */
    uint64_t map_len;   /* region length (whole pages, >= 1 page) */
    uint64_t len;       /* data bytes, at off + map_len - len */
    uint32_t flags;     /* enum rp_buf_flag */
    int32_t alias;      /* index of an earlier buffer to reuse, or -1 */
    char name[RP_NAME_MAX]; /* the parameter's name, for messages */
};

/*
 * Buffer and dimension order of each function (enum asg_fn):
 *   softmax: x                              dims rows cols
 *   sdpa:    Q K V mask out weights         dims n_q n_k d_k d_v
 *   pe:      pe                             dims n d
 *   mha:     Xq Xkv Wq Wk Wv Wo mask out weights
 *                                           dims n_q n_kv d_model heads
 *   layernorm: x                            dims rows cols, eps
 *   block:   X Wq Wk Wv Wo W1 b1 W2 b2 mask dims n d_model heads d_ff, eps
 */
struct rp_header {
    /* written by the parent */
    uint32_t version;
    uint32_t fn;              /* enum asg_fn */
    uint64_t nonce;
    uint64_t dim[RP_NDIM];
    float eps;
    uint32_t nbuf;
    struct rp_buf buf[RP_NBUF];
    /* written by the runner; cleared by the parent before each call */
    int32_t state;            /* enum rp_state */
    int32_t rc;
    int32_t signo;
    int32_t bad_buf;          /* buffer index for OVERRUN / CONST_WRITE */
    int32_t access;           /* enum rp_access */
    int32_t side;             /* enum rp_side */
    int32_t syscall_nr;
    uint32_t stack_overflow;  /* the fault address was in the stack area */
    uint64_t done;            /* nonce ^ RP_DONE_XOR once recorded */
};

_Static_assert(sizeof(struct rp_header) <= RP_HDR_SIZE, "header too large");

#endif
