/* sbx.c -- see sbx.h. The runner's side is runner_main.c. */
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

int sbx_has_seccomp(void)
{
#ifdef GRADER_SECCOMP
    return 1;
#else
    return 0;
#endif
}

/* ---- sbx object ------------------------------------------------------------ */

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash == NULL ? 1 : (slash == path ? 1 : (size_t)(slash - path));
    char *d = malloc(n + 1);

    if (d == NULL)
        return NULL;
    if (slash == NULL)
        memcpy(d, ".", 1);
    else
        memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

static void apply_defaults(struct sbx *s, const struct sbx_config *cfg)
{
    s->deadline_ms = cfg->deadline_ms > 0 ? cfg->deadline_ms
                                          : SBX_DEFAULT_DEADLINE_MS;
    s->as_limit = cfg->as_limit ? cfg->as_limit : SBX_DEFAULT_AS_LIMIT;
    s->cpu_s = cfg->cpu_s ? cfg->cpu_s : SBX_DEFAULT_CPU_S;
    s->out_cap = cfg->output_cap ? cfg->output_cap : SBX_DEFAULT_OUTPUT_CAP;
    s->ctl = s->res = s->out = s->memfd = -1;
    s->nonce = (uint64_t)getpid() ^ (uint64_t)(ut_now_ms() * 1e3);
}

struct sbx *sbx_new(const struct sbx_config *cfg, struct grd_err *e)
{
    struct sbx *s;

    if (cfg == NULL || cfg->runner == NULL || access(cfg->runner, X_OK) != 0) {
        err_set(e, cfg && cfg->runner ? cfg->runner : NULL, 0, 0,
                "the runner is not an executable file");
        return NULL;
    }
    s = calloc(1, sizeof *s);
    if (s == NULL)
        goto oom;
    apply_defaults(s, cfg);
    s->runner = strdup(cfg->runner);
    s->runner_dir = dir_of(cfg->runner);
    s->outbuf = malloc(s->out_cap);
    if (s->runner == NULL || s->runner_dir == NULL || s->outbuf == NULL)
        goto oom;
    return s;
oom:
    sbx_free(s);
    err_set(e, NULL, 0, 0, "out of memory");
    return NULL;
}

void sbx_set_deadline(struct sbx *s, double ms)
{
    if (ms > 0)
        s->deadline_ms = ms;
}

void sbx_restart(struct sbx *s)
{
    sbx_runner_stop(s);
    s->out_len = 0;
    s->out_trunc = 0;
}

const char *sbx_output(const struct sbx *s, size_t *len)
{
    *len = s->out_len;
    return s->outbuf;
}

int sbx_output_truncated(const struct sbx *s)
{
    return s->out_trunc;
}

long sbx_runner_pid(const struct sbx *s)
{
    return (long)s->pid;
}

void sbx_free(struct sbx *s)
{
    if (s == NULL)
        return;
    sbx_runner_stop(s);
    free(s->runner);
    free(s->runner_dir);
    free(s->outbuf);
    free(s);
}

/* ---- running a call ------------------------------------------------------ */

/* The runner signalled completion; check its record, then our copies. */
static int returned(struct sbx *s, const struct sbx_call *c,
                    const struct rp_header *mine, const unsigned char *mem,
                    struct call_result *r, struct grd_err *e)
{
    const struct rp_header *h = (const struct rp_header *)mem;

    if (h->done != (mine->nonce ^ RP_DONE_XOR) || h->state != RP_RETURNED) {
        if (h->state == RP_BADCALL && h->done == (mine->nonce ^ RP_DONE_XOR)) {
            sbx_runner_stop(s);
            return err_set(e, NULL, 0, 0, "the runner rejected the call "
                           "layout");
        }
        sbx_set_detail(r, CALL_CRASHED, "interfered with the grader's runner "
                   "(wrote to its result channel)");
        sbx_runner_stop(s);
        return 0;
    }
    r->rc = h->rc;
    r->live_allocs = (long)h->live_allocs;
    sbx_drain_output(s);
    if (sbx_check_inputs(c, mine, mem, r) == 0) {
        r->status = CALL_RETURNED;
        sbx_copy_outputs(c, mine, mem);
    } else {
        sbx_runner_stop(s);   /* its memory is suspect: start afresh */
    }
    return 0;
}

/*
 * The runner's record of this call, copied out of shared memory with our
 * own layout and names (the submission can scribble on the shared copy),
 * or NULL when the record is not from this call.
 */
static const struct rp_header *trusted_record(const struct rp_header *shared,
                                              const struct rp_header *mine,
                                              struct rp_header *rec)
{
    if (shared->done != (mine->nonce ^ RP_DONE_XOR))
        return NULL;
    *rec = *shared;
    rec->nbuf = mine->nbuf;
    memcpy(rec->buf, mine->buf, sizeof rec->buf);
    return rec;
}

int sbx_run_call(struct sbx *s, const struct sbx_call *c,
                 struct call_result *r, struct grd_err *e)
{
    struct rp_header mine, rec;
    unsigned char *mem = NULL;
    const struct rp_header *h;
    size_t view_len;
    double t0;
    char byte = 'c';
    enum wait_end end;
    int rc = 0;

    memset(r, 0, sizeof *r);
    if (s->pid == 0 && sbx_runner_start(s, e) != 0)
        return -1;
    if (sbx_prepare(s, c, &mine, &mem, e) != 0) {
        sbx_runner_stop(s);
        return -1;
    }
    view_len = (size_t)s->mem_size;
    h = (const struct rp_header *)mem;
    t0 = ut_now_ms();
    if (send(s->ctl, &byte, 1, MSG_NOSIGNAL) != 1)
        end = W_EOF;
    else
        end = sbx_wait_byte(s, t0 + s->deadline_ms, &byte);
    r->elapsed_ms = ut_now_ms() - t0;
    h = trusted_record(h, &mine, &rec);
    if (end == W_BYTE)
        rc = returned(s, c, &mine, mem, r, e);
    else if (end == W_EOF)
        sbx_runner_died(s, h, r);
    else if (end == W_TIMEOUT)
        sbx_timed_out(s, h, r);
    else
        rc = err_set(e, NULL, 0, 0, "lost contact with the runner: %s",
                     strerror(errno));
    if (end == W_ERROR)
        sbx_runner_stop(s);
    munmap(mem, view_len);
    return rc;
}

