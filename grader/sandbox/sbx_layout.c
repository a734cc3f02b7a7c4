/* sbx_layout.c -- laying a call out in shared memory and checking the
 * buffers after it returned (see sbx.h, runner_proto.h). */
#include "sandbox/sbx.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#endif
#ifdef GRADER_SECCOMP
#include <seccomp.h>
#endif

#include "sandbox/runner_proto.h"
#include "sandbox/sbx_internal.h"
#include "core/util.h"

#define MEM_MAX ((uint64_t)1 << 34) /* shared memory per call, hard cap */

/* splitmix64: the nonce only needs to differ between calls. */
static uint64_t next_nonce(struct sbx *s)
{
    uint64_t z = (s->nonce += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- laying out a call ---------------------------------------------------- */

static unsigned char canary(size_t i)
{
    return (unsigned char)(0xa5u ^ (i * 0x3bu));
}

/* An earlier const input with the same pointer and length, or -1. */
static int find_alias(const struct sbx_call *c, size_t i)
{
    size_t j;

    if (c->arg[i].kind != SBX_IN || c->arg[i].ptr == NULL)
        return -1;
    for (j = 0; j < i; j++)
        if (c->arg[j].kind == SBX_IN && c->arg[j].ptr == c->arg[i].ptr &&
            c->arg[j].len == c->arg[i].len)
            return (int)j;
    return -1;
}

/* Fill the header's buffer table; sets *total to the memfd size needed. */
static int layout(const struct sbx_call *c, struct rp_header *h, size_t page,
                  uint64_t *total)
{
    uint64_t pos = RP_HDR_SIZE;
    size_t i;

    for (i = 0; i < c->narg; i++) {
        const struct sbx_arg *a = &c->arg[i];
        struct rp_buf *b = &h->buf[i];

        memset(b, 0, sizeof *b);
        snprintf(b->name, sizeof b->name, "%s", a->name);
        b->alias = find_alias(c, i);
        if (a->ptr == NULL)
            continue;
        b->flags = RP_BUF_PRESENT | (a->kind != SBX_IN ? RP_BUF_WRITABLE : 0);
        if (a->len > MEM_MAX)
            return -1;
        if (b->alias >= 0)
            continue;
        b->off = pos;
        b->len = a->len;
        b->map_len = (a->len + page - 1) / page * page;
        if (b->map_len == 0)
            b->map_len = page;
        pos += b->map_len;
    }
    *total = pos;
    return pos <= MEM_MAX ? 0 : -1;
}

/* Copy inputs in, NaN-fill outputs, write canaries into the slack. */
static void fill_buffers(const struct sbx_call *c, const struct rp_header *h,
                         unsigned char *mem)
{
    static const float qnan = NAN;
    size_t i, k, slack;

    for (i = 0; i < c->narg; i++) {
        const struct rp_buf *b = &h->buf[i];
        unsigned char *data = mem + b->off + (b->map_len - b->len);

        if (!(b->flags & RP_BUF_PRESENT) || b->alias >= 0)
            continue;
        if (c->arg[i].kind == SBX_OUT)
            for (k = 0; k + sizeof qnan <= b->len; k += sizeof qnan)
                memcpy(data + k, &qnan, sizeof qnan);
        else
            memcpy(data, c->arg[i].ptr, b->len);
        slack = (size_t)(b->map_len - b->len);
        for (k = 0; k < slack; k++)
            mem[b->off + k] = canary(k);
    }
}

/* Size and map the memfd and write the call into it; *view (of
 * s->mem_size bytes) is the parent's mapping. */
int sbx_prepare(struct sbx *s, const struct sbx_call *c, struct rp_header *tmp,
                   unsigned char **view, struct err *e)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t total = 0;

    memset(tmp, 0, sizeof *tmp);
    if (layout(c, tmp, page, &total) != 0 || total > s->as_limit)
        return err_set(e, NULL, 0, 0, "the call's buffers are too large "
                       "for the sandbox (%llu bytes)",
                       (unsigned long long)total);
    if (total != s->mem_size && ftruncate(s->memfd, (off_t)total) != 0)
        return err_set(e, NULL, 0, 0, "cannot size shared memory: %s",
                       strerror(errno));
    s->mem_size = total;
    *view = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, s->memfd, 0);
    if (*view == MAP_FAILED) {
        *view = NULL;
        return err_set(e, NULL, 0, 0, "cannot map shared memory: %s",
                       strerror(errno));
    }
    tmp->version = RP_VERSION;
    tmp->fn = (uint32_t)c->fn;
    tmp->nonce = next_nonce(s);
    memcpy(tmp->dim, c->dim, sizeof tmp->dim);
    tmp->eps = c->eps;
    tmp->nbuf = (uint32_t)c->narg;
    tmp->bad_buf = -1;
    memcpy(*view, tmp, sizeof *tmp);
    fill_buffers(c, tmp, *view);
    return 0;
}

/* ---- after a call that returned ------------------------------------------------ */

int sbx_check_inputs(const struct sbx_call *c, const struct rp_header *h,
                        const unsigned char *mem, struct impl_result *r)
{
    size_t i, k;

    for (i = 0; i < c->narg; i++) {
        const struct rp_buf *b = &h->buf[i];
        const unsigned char *data = mem + b->off + (b->map_len - b->len);

        if (!(b->flags & RP_BUF_PRESENT) || b->alias >= 0)
            continue;
        if (c->arg[i].kind == SBX_IN && memcmp(data, c->arg[i].ptr, b->len)) {
            sbx_set_detail(r, CALL_CONST_WRITE, "modified its const input "
                       "`%s`", c->arg[i].name);
            return -1;
        }
        for (k = 0; k < b->map_len - b->len; k++)
            if (mem[b->off + k] != canary(k)) {
                sbx_set_detail(r, CALL_OVERRUN, "wrote before the start of "
                           "`%s`", c->arg[i].name);
                return -1;
            }
    }
    return 0;
}

/*
 * Copy back what the submission wrote. In-place buffers come back whole;
 * a pure output comes back only where its NaN fill was overwritten, so the
 * caller's buffer keeps its own contents wherever nothing was written. That
 * makes "returned ATTN_EINVAL and wrote nothing" checkable, and makes the
 * sandbox behave like a local call on a buffer the caller pre-filled.
 */
void sbx_copy_outputs(const struct sbx_call *c, const struct rp_header *h,
                         const unsigned char *mem)
{
    static const float qnan = NAN;
    size_t i, k;

    for (i = 0; i < c->narg; i++) {
        const struct rp_buf *b = &h->buf[i];
        const unsigned char *data = mem + b->off + (b->map_len - b->len);
        unsigned char *dst = c->arg[i].ptr;

        if (!(b->flags & RP_BUF_WRITABLE) || b->alias >= 0)
            continue;
        if (c->arg[i].kind != SBX_OUT) {
            memcpy(dst, data, b->len);
            continue;
        }
        for (k = 0; k + sizeof qnan <= b->len; k += sizeof qnan)
            if (memcmp(data + k, &qnan, sizeof qnan) != 0)
                memcpy(dst + k, data + k, sizeof qnan);
    }
}
