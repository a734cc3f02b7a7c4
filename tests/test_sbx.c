/*
 * test_sbx.c -- the sandbox against a catalogue of hostile and buggy
 * submissions (tests/sbx_fixtures/), each compiled, renamed and linked with
 * runner_main.o exactly as the grader does, and driven only through sbx.
 *
 * Every attack must end in its expected status and detail, the test process
 * (the "grader") must survive, no file may appear in the runner's or the
 * test's working directory, the runner must be gone, and a correct call
 * right after must work in a fresh runner.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attention.h"
#include "sandbox/impl.h"
#include "sandbox/sbx.h"
#include "sandbox/sbx_internal.h"

#define DEADLINE_MS 300.0

#ifdef GRADER_SECCOMP
#define LINK_LIBS "-lseccomp -lm"
#else
#define LINK_LIBS "-lm"
#endif

struct fixture {
    char dir[64];
    char runner[128];
    struct sbx *sbx;
    struct impl impl;
};

/* Compile src, rename the allocator, link with runner_main.o into a
 * private temporary directory, and open a sandbox on the result. */
static void fx_open_src(struct fixture *f, const char *src, double ms,
                        unsigned cpu_s)
{
    struct sbx_config cfg = { .deadline_ms = ms, .as_limit = (size_t)384 << 20,
                              .cpu_s = cpu_s ? cpu_s : 5 };
    struct err e = { 0 };
    char cmd[4096];

    snprintf(f->dir, sizeof f->dir, "/tmp/test_sbx.XXXXXX");
    cr_assert_not_null(mkdtemp(f->dir));
    snprintf(f->runner, sizeof f->runner, "%s/runner", f->dir);
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -O2 -D_GNU_SOURCE -c -I'%s/student_template' '%s'"
             " -o '%s/attention.o' && objcopy --redefine-sym malloc=grd_malloc"
             " --redefine-sym calloc=grd_calloc --redefine-sym "
             "realloc=grd_realloc --redefine-sym free=grd_free "
             "'%s/attention.o' && cc -o '%s' '%s/runner_main.o' "
             "'%s/attention.o' " LINK_LIBS,
             TEST_SRCDIR, src, f->dir, f->dir, f->runner, TEST_BUILDDIR,
             f->dir);
    cr_assert_eq(system(cmd), 0, "cannot build a runner from %s", src);
    cfg.runner = f->runner;
    f->sbx = sbx_new(&cfg, &e);
    cr_assert_not_null(f->sbx, "sbx_new: %s", e.msg);
    f->impl = sbx_impl(f->sbx);
}

static void fx_open(struct fixture *f, const char *name, double ms,
                    unsigned cpu_s)
{
    char src[512];

    snprintf(src, sizeof src, "%s/tests/sbx_fixtures/%s.c", TEST_SRCDIR, name);
    fx_open_src(f, src, ms, cpu_s);
}

/* Free the sandbox, check that the runner's directory holds only what we
 * put there, and remove it. */
static void fx_close(struct fixture *f)
{
    DIR *d;
    struct dirent *de;
    char path[512];

    sbx_free(f->sbx);
    d = opendir(f->dir);
    cr_assert_not_null(d);
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        cr_expect(strcmp(de->d_name, "runner") == 0 ||
                  strcmp(de->d_name, "attention.o") == 0,
                  "the submission created '%s'", de->d_name);
        snprintf(path, sizeof path, "%s/%s", f->dir, de->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(f->dir);
}

/* A correct softmax must work, in a runner other than `old_pid`. */
static void expect_fresh_softmax(struct fixture *f, long old_pid)
{
    float x[6] = { 1, 2, 3, -1, 0, 1 };
    struct impl_result r;
    struct err e = { 0 };
    int rc = f->impl.ops->softmax_rows(f->impl.self, x, 2, 3, &r, &e);

    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_assert_eq(r.status, CALL_RETURNED, "status %d: %s", r.status, r.detail);
    cr_assert_eq(r.rc, ATTN_OK);
    cr_assert(fabsf(x[0] + x[1] + x[2] - 1.0f) < 1e-5f);
    cr_assert(fabsf(x[3] + x[4] + x[5] - 1.0f) < 1e-5f);
    cr_assert(sbx_runner_pid(f->sbx) != old_pid);
}

/* One call of `fn` with small, valid arguments. */
static void call_small(struct fixture *f, enum asg_fn fn, float *pe,
                       struct impl_result *r)
{
    static const float q[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    static const float kv[12] = { 1, 0, 0, 1, 0, 1, 1, 0, 2, 2, 2, 2 };
    float out[8];
    struct err e = { 0 };
    int rc;

    if (fn == ASG_SDPA)
        rc = f->impl.ops->scaled_dot_product(f->impl.self, q, kv, kv, 2, 3, 4,
                                             4, NULL, out, NULL, r, &e);
    else
        rc = f->impl.ops->positional_encoding(f->impl.self, pe, 3, 4, r, &e);
    cr_assert_eq(rc, 0, "grader error: %s", e.msg);
}

struct attack {
    const char *fixture;
    enum asg_fn fn;
    enum impl_status status;
    const char *detail;      /* a substring of impl_result.detail */
    int signo;               /* expected for CALL_CRASHED */
    int needs_seccomp;
    double deadline_ms;      /* 0: DEADLINE_MS */
    unsigned cpu_s;          /* RLIMIT_CPU; 0: 5 s */
};

static void run_attacks(const struct attack *a, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct fixture f;
        struct impl_result r;
        float pe[12];
        long pid;

        if (a[i].needs_seccomp && !sbx_has_seccomp())
            continue;
        fx_open(&f, a[i].fixture,
                a[i].deadline_ms > 0 ? a[i].deadline_ms : DEADLINE_MS, a[i].cpu_s);
        call_small(&f, a[i].fn, pe, &r);
        cr_expect_eq(r.status, a[i].status, "%s: status %d (%s), want %d",
                     a[i].fixture, r.status, r.detail, a[i].status);
        cr_expect_not_null(strstr(r.detail, a[i].detail),
                           "%s: detail '%s' lacks '%s'", a[i].fixture,
                           r.detail, a[i].detail);
        if (a[i].status == CALL_CRASHED)
            cr_expect_eq(r.signo, a[i].signo, "%s: signal", a[i].fixture);
        pid = sbx_runner_pid(f.sbx);
        cr_expect_eq(pid, 0, "%s: the runner survived", a[i].fixture);
        expect_fresh_softmax(&f, pid);
        cr_expect_neq(access("results.json", F_OK), 0,
                      "results.json appeared in the test's cwd");
        fx_close(&f);
    }
}

Test(sbx, runaway_calls_time_out)
{
    static const struct attack a[] = {
        { "spin", ASG_PE, CALL_TIMEOUT, "did not return within 300 ms", 0, 0, 0, 0 },
        { "spin_masked", ASG_PE, CALL_TIMEOUT, "within 300 ms", 0, 0, 0, 0 },
        { "sig_ignore", ASG_PE, CALL_SYSCALL, "forbids (rt_sigaction)", 0, 1, 0, 0 },
        { "cpu_hog", ASG_PE, CALL_TIMEOUT, "used more than 1 s of CPU time",
          0, 0, 5000.0, 1 },
        { "forge", ASG_PE, CALL_CRASHED, "interfered with the grader's runner",
          0, 0, 0, 0 },
    };

    run_attacks(a, sizeof a / sizeof a[0]);
}

Test(sbx, exits_and_crashes_are_classified)
{
    static const struct attack a[] = {
        { "exit0", ASG_PE, CALL_EXITED, "called exit() instead of returning",
          0, 0, 0, 0 },
        { "uexit0", ASG_PE, CALL_EXITED, "called exit()", 0, 0, 0, 0 },
        { "segv", ASG_PE, CALL_CRASHED, "crashed with SIGSEGV", SIGSEGV, 0, 0, 0 },
        { "abort", ASG_PE, CALL_CRASHED, "crashed with SIGABRT", SIGABRT, 0, 0, 0 },
        { "fpe", ASG_PE, CALL_CRASHED, "crashed with SIGFPE", SIGFPE, 0, 0, 0 },
        { "recurse", ASG_PE, CALL_CRASHED, "stack overflow", SIGSEGV, 0, 0, 0 },
        { "membomb", ASG_PE, CALL_MEMORY, "ran out of memory (limit 384 MiB)",
          0, 0, 3000.0, 0 },   /* touching 256 MiB can be slow on a busy box */
    };

    run_attacks(a, sizeof a / sizeof a[0]);
}

Test(sbx, out_of_bounds_and_const_writes_are_caught)
{
    static const struct attack a[] = {
        { "overrun", ASG_PE, CALL_OVERRUN, "wrote past the end of `pe`", 0, 0, 0, 0 },
        { "underrun", ASG_PE, CALL_OVERRUN, "wrote before the start of `pe`",
          0, 0, 0, 0 },
        { "read_past", ASG_SDPA, CALL_OVERRUN, "past the end of `K`", 0, 0, 0, 0 },
        { "heap_overrun", ASG_PE, CALL_OVERRUN, "wrote past the end of a block "
          "it allocated (48 bytes asked", 0, 0, 0, 0 },
        { "heap_overrun_live", ASG_PE, CALL_OVERRUN, "wrote past the end of a "
          "block it allocated (48 bytes asked", 0, 0, 0, 0 },
        /* one block's redzone copied over another's of the same size: the
         * pattern depends on the block (issue 36's audit survivor, a
         * take_cols loop run one row too far) */
        { "heap_row_past", ASG_PE, CALL_OVERRUN, "wrote past the end of a block "
          "it allocated (48 bytes asked", 0, 0, 0, 0 },
        { "const_q", ASG_SDPA, CALL_CONST_WRITE,
          "modified its const input `Q`", 0, 0, 0, 0 },
        { "const_via_memfd", ASG_SDPA, CALL_CONST_WRITE,
          "modified its const input `Q`", 0, 0, 0, 0 },
    };

    run_attacks(a, sizeof a / sizeof a[0]);
}

Test(sbx, forbidden_system_calls_end_the_call)
{
    static const struct attack a[] = {
        { "forkbomb", ASG_PE, CALL_SYSCALL, "forbids (clone", 0, 1, 0, 0 },
        { "open_passwd", ASG_PE, CALL_SYSCALL, "forbids (openat)", 0, 1, 0, 0 },
        { "write_file", ASG_PE, CALL_SYSCALL, "forbids (openat)", 0, 1, 0, 0 },
        { "kill_parent", ASG_PE, CALL_SYSCALL, "forbids (getppid)", 0, 1, 0, 0 },
        { "raw_syscall", ASG_PE, CALL_SYSCALL, "forbids (openat)", 0, 1, 0, 0 },
    };

    run_attacks(a, sizeof a / sizeof a[0]);
    cr_assert_eq(kill(getpid(), 0), 0); /* still here */
}

/* A block from malloc holds NaN bytes until the submission writes it (a
 * fresh page of the heap file is zeros: a sum into memory never cleared
 * would come out right here and wrong under the C library's malloc);
 * calloc's blocks are zeros. */
Test(sbx, malloc_hands_out_poison_and_calloc_zeros)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];

    fx_open(&f, "uninit_acc", DEADLINE_MS, 0);
    call_small(&f, ASG_PE, pe, &r);
    cr_assert_eq(r.status, CALL_RETURNED, "%d (%s)", r.status, r.detail);
    cr_expect(isnan(pe[1]) && isnan(pe[11]), "a sum into malloc's bytes: %g %g", pe[1],
              pe[11]);
    cr_expect_eq(pe[0], 0.0f, "calloc's last byte: %g", pe[0]);
    fx_close(&f);
}

/* Issue 35: a runner that stops itself (any of the four job-control
 * signals, through kill, raise's tgkill, a raw tkill, or a signal
 * argument with high bits set) ends its call as a forbidden system call:
 * it is never left in state T, where the grader would read a paused
 * machine. A self-signal the filter allows still works. */
Test(sbx, a_runner_may_not_stop_itself)
{
    static const struct attack a[] = {
        { "stop_kill", ASG_PE, CALL_SYSCALL, "forbids (kill)", 0, 1, 0, 0 },
        { "stop_raise", ASG_PE, CALL_SYSCALL, "forbids (tgkill)", 0, 1, 0, 0 },
        { "stop_tkill", ASG_PE, CALL_SYSCALL, "forbids (tkill)", 0, 1, 0, 0 },
        { "stop_high_bits", ASG_PE, CALL_SYSCALL, "forbids (kill)", 0, 1, 0, 0 },
    };
    struct fixture f;
    struct impl_result r;
    float pe[12];

    run_attacks(a, sizeof a / sizeof a[0]);
    fx_open(&f, "self_signal_ok", DEADLINE_MS, 0);
    call_small(&f, ASG_PE, pe, &r);
    cr_expect_eq(r.status, CALL_RETURNED, "raise(SIGURG) and raise(SIGWINCH): %d (%s)",
                 r.status, r.detail);
    fx_close(&f);
}

/* Issue 35: the grader's check of the live blocks' redzones reads a
 * bounded number of bytes per block and per call, whatever a block's
 * header (the submission's to write) claims: three leaked 24 MiB blocks
 * claiming 0 bytes, filled with the redzone pattern, were 72 MiB
 * compared after every call. Counted in bytes, not timed. */
Test(sbx, a_forged_block_size_does_not_set_the_checks_cost)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];
    uint64_t before, per_call_max = 0;

    fx_open(&f, "redzone_bomb", 5000.0, 0);
    for (int i = 0; i < 4; i++) {
        before = sbx_redzone_bytes(f.sbx);
        call_small(&f, ASG_PE, pe, &r);
        cr_assert_eq(r.status, CALL_RETURNED, "call %d: %d (%s)", i, r.status, r.detail);
        if (sbx_redzone_bytes(f.sbx) - before > per_call_max)
            per_call_max = sbx_redzone_bytes(f.sbx) - before;
    }
    cr_expect(per_call_max > 0, "the live blocks were not checked at all");
    cr_expect(per_call_max <= ((uint64_t)1 << 20),
              "%llu redzone bytes compared after one call (at most 1 MiB)",
              (unsigned long long)per_call_max);
    fx_close(&f);
}

/* The runner's CPU time in clock ticks (utime + stime), or -1. */
static long runner_ticks(long pid)
{
    char path[64], line[1024], *p;
    unsigned long ut = 0, st = 0;
    FILE *fp;
    int ok;

    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if ((fp = fopen(path, "r")) == NULL)
        return -1;
    ok = fgets(line, sizeof line, fp) != NULL;
    fclose(fp);
    if (!ok || (p = strrchr(line, ')')) == NULL ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (long)(ut + st);
}

struct stopper {
    struct sbx *sbx;
    long stopped;   /* the pid it stopped, 0: none */
};

/* Stop the spinning runner once it has computed 100 ms or more of its
 * call (it is then inside the call, not starting up); 10 s at most. */
static void *stop_runner(void *arg)
{
    struct stopper *st = arg;

    for (int i = 0; i < 2000; i++) {
        long pid = sbx_runner_pid(st->sbx);
        if (pid > 0 && runner_ticks(pid) >= 10) {
            if (kill((pid_t)pid, SIGSTOP) == 0)
                st->stopped = pid;
            return NULL;
        }
        usleep(5000);
    }
    return NULL;
}

/* Issue 35: a runner found stopped (state T) by a stop that was neither
 * the grader's nor the whole machine's -- here this test stops it, as a
 * submission could where seccomp is missing -- fails its call as the
 * submission's doing, labelled, at once: no retry (the retry would spin
 * to its CPU deadline: a timeout) and no grader error. */
Test(sbx, a_stopped_runner_is_the_submissions_failure, .timeout = 60)
{
    struct fixture f;
    struct impl_result r;
    struct stopper st = { NULL, 0 };
    struct err e = { 0 };
    pthread_t th;
    float pe[12];
    int rc;

    fx_open(&f, "spin", 600.0, 0);
    st.sbx = f.sbx;
    cr_assert_eq(pthread_create(&th, NULL, stop_runner, &st), 0);
    rc = f.impl.ops->positional_encoding(f.impl.self, pe, 3, 4, &r, &e);
    pthread_join(th, NULL);
    cr_assert_neq(st.stopped, 0, "the runner was never seen computing");
    cr_expect_eq(rc, 0, "a grader error: %s", e.msg);
    cr_expect_eq(r.status, CALL_CRASHED, "status %d (%s)", r.status, r.detail);
    cr_expect_not_null(strstr(r.detail, "stopped itself (SIGSTOP)"), "detail: %s", r.detail);
    cr_expect_eq(r.signo, SIGSTOP);
    cr_expect_eq(sbx_runner_pid(f.sbx), 0, "the stopped runner survived");
    cr_expect_eq(kill((pid_t)st.stopped, 0), -1, "the stopped runner was not reaped");
    expect_fresh_softmax(&f, st.stopped);
    fx_close(&f);
}

Test(sbx, output_is_capped_and_drained)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];
    size_t len;
    const char *out;

    fx_open(&f, "flood", 5000.0, 0);
    call_small(&f, ASG_PE, pe, &r);
    cr_assert_eq(r.status, CALL_RETURNED, "%d %s", r.status, r.detail);
    out = sbx_output(f.sbx, &len);
    cr_assert_eq(len, SBX_DEFAULT_OUTPUT_CAP);
    cr_assert_eq(out[0], 'y');
    cr_assert_eq(sbx_output_truncated(f.sbx), 1);
    sbx_restart(f.sbx);
    sbx_output(f.sbx, &len);
    cr_assert_eq(len, 0);
    cr_assert_eq(sbx_output_truncated(f.sbx), 0);
    fx_close(&f);
}

Test(sbx, leaks_are_counted)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];

    fx_open(&f, "leak", DEADLINE_MS, 0);
    call_small(&f, ASG_PE, pe, &r);
    cr_assert_eq(r.status, CALL_RETURNED, "%d %s", r.status, r.detail);
    cr_assert_eq(r.rc, ATTN_OK);
    cr_assert_eq(r.live_allocs, 1);
    cr_assert_eq(pe[11], 0.0f);
    fx_close(&f);
}

Test(sbx, missing_functions_are_not_implemented)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];
    long pid;

    fx_open(&f, "missing", DEADLINE_MS, 0);
    call_small(&f, ASG_PE, pe, &r);
    cr_assert_eq(r.status, CALL_RETURNED);
    cr_assert_eq(r.rc, ATTN_ENOTIMPL);
    pid = sbx_runner_pid(f.sbx);
    cr_assert(pid > 0);
    expect_fresh_softmax(&f, 0);
    cr_assert_eq(sbx_runner_pid(f.sbx), pid, "one runner serves many calls");
    fx_close(&f);
}

static void fill(float *x, size_t n, float base)
{
    size_t i;

    for (i = 0; i < n; i++)
        x[i] = base + (float)i * 0.25f;
}

static float fsum(const float *x, size_t n)
{
    float s = 0.0f;
    size_t i;

    for (i = 0; i < n; i++)
        s += x[i];
    return s;
}

Test(sbx, arguments_reach_the_submission_intact)
{
    struct fixture f;
    struct impl_result r;
    struct err e = { 0 };
    float q[12], k[20], v[15], out[9], w[15], x[6], X[8], wq[16], wo[16];
    float mo[12];
    unsigned char mask[15];
    const char *o;
    size_t len;

    fx_open(&f, "echo", DEADLINE_MS, 0);
    fill(q, 12, 1), fill(k, 20, 2), fill(v, 15, -1);
    memset(mask, 1, sizeof mask), mask[4] = 0;
    /* sdpa: n_q 3, n_k 5, d_k 4, d_v 3 */
    cr_assert_eq(f.impl.ops->scaled_dot_product(f.impl.self, q, k, v, 3, 5, 4,
                 3, mask, out, w, &r, &e), 0, "%s", e.msg);
    cr_assert_eq(r.status, CALL_RETURNED, "%s", r.detail);
    cr_assert_eq(out[0], 9.0f, "out pre-filled with NaN");
    cr_assert(out[1] == 3 && out[2] == 5 && out[3] == 4 && out[4] == 3);
    cr_assert(out[5] == fsum(q, 12) && out[6] == fsum(k, 20));
    cr_assert(out[7] == fsum(v, 15) && out[8] == 14.0f);
    cr_assert_eq(w[14], 14.0f);
    cr_assert_eq(f.impl.ops->scaled_dot_product(f.impl.self, q, k, v, 3, 5, 4,
                 3, NULL, out, NULL, &r, &e), 0);
    cr_assert(out[8] == -1.0f, "NULL mask arrives as NULL");
    /* mha, self-attention: Xq == Xkv; n 3, d_model 4, heads 2 */
    fill(wq, 16, 0.5f), fill(wo, 16, -0.5f);
    cr_assert_eq(f.impl.ops->multi_head(f.impl.self, q, 3, q, 3, 4, 2, wq, wq,
                 wo, wo, NULL, mo, NULL, &r, &e), 0);
    cr_assert_eq(r.status, CALL_RETURNED, "%s", r.detail);
    cr_assert(mo[0] == 12 && mo[1] == 3 && mo[2] == 3 && mo[3] == 4);
    cr_assert(mo[4] == 2 && mo[5] == fsum(q, 12) && mo[6] == mo[5]);
    cr_assert_eq(mo[7], 1.0f, "Xq == Xkv stays aliased");
    cr_assert(mo[8] == fsum(wq, 16) + 2 * fsum(wq, 16) + 3 * fsum(wo, 16)
                       + 4 * fsum(wo, 16));
    cr_assert(mo[9] == -1.0f && mo[10] == -1.0f);
    /* layer norm: eps arrives; block: every weight and eps arrive */
    fill(x, 6, 1);
    cr_assert_eq(f.impl.ops->layer_norm(f.impl.self, x, 2, 3, 0.5f, &r, &e), 0);
    cr_assert(x[0] == 0.5f && x[5] == 1.125f);
    fill(X, 8, 0);
    cr_assert_eq(f.impl.ops->transformer_block(f.impl.self, X, 2, 4, 2, 4, wq,
                 wq, wo, wo, wq, q, wo, q, mask, 0.25f, &r, &e), 0);
    cr_assert_eq(r.status, CALL_RETURNED, "%s", r.detail);
    cr_assert(X[0] == 2 && X[1] == 4 && X[2] == 2 && X[3] == 4);
    cr_assert(X[4] == fsum(wq, 16) + 2 * fsum(wq, 16) + 3 * fsum(wo, 16)
                      + 4 * fsum(wo, 16));
    cr_assert(X[5] == fsum(wq, 16) + 2 * fsum(wo, 16));
    cr_assert(X[6] == fsum(q, 4) + 2 * fsum(q, 4) && X[7] == 4.0f);
    /* softmax: in place, its return value, and its output captured */
    cr_assert_eq(f.impl.ops->softmax_rows(f.impl.self, x, 2, 3, &r, &e), 0);
    cr_assert(r.rc == 7 && x[0] == 0.5f + 203.0f);
    o = sbx_output(f.sbx, &len);
    cr_assert_eq(len, strlen("hello from softmax 2x3\nand from stderr\n"));
    cr_assert_eq(memcmp(o, "hello from softmax 2x3\nand from stderr\n", len), 0);
    fx_close(&f);
}

Test(sbx, reference_matches_in_and_out_of_the_sandbox)
{
    enum { N = 5, D = 8, H = 2, F = 12 };
    static float X1[N * D], X2[N * D], W[4][D * D], W1[D * F], W2[F * D];
    static float b1[F], b2[D], o1[N * D], o2[N * D], w1[H * N * N],
        w2[H * N * N];
    unsigned char mask[N * N];
    struct fixture f;
    struct impl_result r;
    struct err e = { 0 };
    size_t i;

    if (access(TEST_SRCDIR "/reference/attention.c", R_OK) != 0)
        cr_skip_test("no reference/attention.c");
    fx_open_src(&f, TEST_SRCDIR "/reference/attention.c", 2000.0, 0);
    for (i = 0; i < N * D; i++)
        X1[i] = X2[i] = sinf((float)i);
    for (i = 0; i < D * D; i++)
        W[0][i] = cosf((float)i) / 3, W[1][i] = sinf(i * 0.7f) / 3,
        W[2][i] = cosf(i * 1.3f) / 3, W[3][i] = sinf(i * 0.3f) / 3;
    for (i = 0; i < D * F; i++)
        W1[i] = sinf(i * 0.11f) / 4, W2[i] = cosf(i * 0.17f) / 4;
    for (i = 0; i < N * N; i++)
        mask[i] = (unsigned char)(i % N <= i / N);   /* causal */
    fill(b1, F, -1), fill(b2, D, 0.5f);
    cr_assert_eq(attn_multi_head(X1, N, X1, N, D, H, W[0], W[1], W[2], W[3],
                                 mask, o1, w1), ATTN_OK);
    cr_assert_eq(f.impl.ops->multi_head(f.impl.self, X2, N, X2, N, D, H, W[0],
                 W[1], W[2], W[3], mask, o2, w2, &r, &e), 0, "%s", e.msg);
    cr_assert_eq(r.status, CALL_RETURNED, "%s", r.detail);
    for (i = 0; i < N * D; i++)
        cr_assert(fabsf(o1[i] - o2[i]) <= 1e-5f * (1 + fabsf(o1[i])));
    for (i = 0; i < H * N * N; i++)
        cr_assert(fabsf(w1[i] - w2[i]) <= 1e-6f);
    cr_assert_eq(attn_transformer_block(X1, N, D, H, F, W[0], W[1], W[2],
                 W[3], W1, b1, W2, b2, mask, 1e-5f), ATTN_OK);
    cr_assert_eq(f.impl.ops->transformer_block(f.impl.self, X2, N, D, H, F,
                 W[0], W[1], W[2], W[3], W1, b1, W2, b2, mask, 1e-5f, &r, &e),
                 0);
    cr_assert_eq(r.status, CALL_RETURNED, "%s", r.detail);
    cr_assert_eq(r.live_allocs, 0, "the reference frees what it allocates");
    for (i = 0; i < N * D; i++)
        cr_assert(fabsf(X1[i] - X2[i]) <= 1e-4f * (1 + fabsf(X1[i])));
    fx_close(&f);
}

Test(sbx, lifecycle_leaves_no_process)
{
    struct sbx_config cfg = { .runner = "/nonexistent/runner" };
    struct err e = { 0 };
    struct fixture f;
    long pid1, pid2;

    cr_assert_null(sbx_new(&cfg, &e));
    cr_assert_not_null(strstr(e.msg, "not an executable"));
    fx_open(&f, "missing", DEADLINE_MS, 0);
    expect_fresh_softmax(&f, 0);
    pid1 = sbx_runner_pid(f.sbx);
    sbx_restart(f.sbx);
    cr_assert_eq(kill((pid_t)pid1, 0), -1, "restart killed and reaped it");
    expect_fresh_softmax(&f, pid1);
    pid2 = sbx_runner_pid(f.sbx);
    fx_close(&f);
    cr_assert_eq(kill((pid_t)pid2, 0), -1);
    cr_assert_eq(errno, ESRCH);
}

/* Issue 11, class 4: the allocations are counted in the parent, so a table
 * filled before leaking hides nothing (the runner's own table used to stop
 * at 49,152 pointers; the heap window now holds some 32,000 blocks of a
 * page). Thousands of allocations need a roomy deadline. */
Test(sbx, a_filled_table_hides_no_leak)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];

    fx_open(&f, "fill_table", 20000.0, 0);
    call_small(&f, ASG_PE, pe, &r);
    cr_assert_eq(r.status, CALL_RETURNED, "%d %s", r.status, r.detail);
    cr_assert_eq(r.rc, ATTN_OK);
    cr_expect_eq(r.live_allocs, 1, "live_allocs %ld", r.live_allocs);
    fx_close(&f);
}

/* The forgeries of tests/hostile/ find the runner's state by scanning:
 * reading it works (so their writes fault for the protection, not for a
 * bad scan), and nothing else is disturbed. */
Test(sbx, the_runner_state_is_readable_but_not_the_verdict)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];

    fx_open(&f, "find_state", DEADLINE_MS, 0);
    call_small(&f, ASG_PE, pe, &r);
    cr_assert_eq(r.status, CALL_RETURNED, "%d %s", r.status, r.detail);
    cr_expect_eq(r.rc, ATTN_OK, "the scan did not find the runner's state");
    fx_close(&f);
}

/* A runner that cannot start (a .bss beyond its address space) fails the
 * call with a reason, not the grader; the next call tries afresh. */
Test(sbx, a_runner_that_cannot_start_fails_the_call)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];

    fx_open(&f, "huge_bss", DEADLINE_MS, 0);
    for (int i = 0; i < 2; i++) {
        call_small(&f, ASG_PE, pe, &r);
        cr_expect_eq(r.status, CALL_CRASHED, "%d %s", r.status, r.detail);
        cr_expect(strstr(r.detail, "the runner could not start") != NULL, "%s", r.detail);
        cr_expect_eq(sbx_runner_pid(f.sbx), 0);
    }
    fx_close(&f);
}

/* Memory exhausted before a larger call: that call fails with a reason
 * (the runner cannot map its buffers), not the grader, and the next call
 * gets a fresh runner. */
Test(sbx, no_room_for_the_next_call_fails_that_call)
{
    struct fixture f;
    struct impl_result r;
    struct err e = { 0 };
    float pe[12];
    size_t big = (size_t)1 << 20;    /* 4 MiB of floats: more than is left */
    float *pe_big = malloc(big * sizeof *pe_big);

    cr_assert_not_null(pe_big);
    fx_open(&f, "exhaust", 5000.0, 0);
    call_small(&f, ASG_PE, pe, &r);
    cr_assert_eq(r.status, CALL_RETURNED, "%d %s", r.status, r.detail);
    cr_assert_eq(f.impl.ops->positional_encoding(f.impl.self, pe_big, 1024, 1024, &r, &e), 0,
                 "grader error: %s", e.msg);
    cr_expect_eq(r.status, CALL_MEMORY, "%d %s", r.status, r.detail);
    cr_expect(strstr(r.detail, "no room was left for the call's buffers") != NULL, "%s", r.detail);
    cr_expect_eq(sbx_runner_pid(f.sbx), 0);
    expect_fresh_softmax(&f, 0);
    free(pe_big);
    fx_close(&f);
}

/* The fork server (issue 15): every test gets a fresh runner forked from a
 * state no student code has touched. Within a test one runner serves
 * every call (its statics persist); after sbx_restart nothing does. */
Test(sbx, each_runner_starts_from_a_clean_state)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];
    long first;

    fx_open(&f, "remember", DEADLINE_MS, 0);
    for (int test = 0; test < 3; test++) {
        call_small(&f, ASG_PE, pe, &r);
        cr_expect_eq(r.rc, ATTN_OK, "test %d: the runner remembered an earlier test", test);
        first = sbx_runner_pid(f.sbx);
        call_small(&f, ASG_PE, pe, &r);
        cr_expect_eq(r.rc, ATTN_EINVAL, "test %d: a second call saw a fresh runner", test);
        cr_expect_eq(sbx_runner_pid(f.sbx), first, "one runner serves a test's calls");
        sbx_restart(f.sbx);
        cr_expect_eq(sbx_runner_pid(f.sbx), 0);
    }
    fx_close(&f);
}

/* The runner keeps a call's buffers mapped for the next call with the
 * same layout (issue 39: each page mapped anew was a fault): each call
 * still sees its own inputs, and a const input stays read-only. */
Test(sbx, buffers_kept_mapped_hold_each_calls_inputs_and_protections)
{
    static const float kv[12] = { 1, 0, 0, 1, 0, 1, 1, 0, 2, 2, 2, 2 };
    const float q[2][8] = { { 1, 2, 3, 4, 5, 6, 7, 8 }, { 9, 8, 7, 6, 5, 4, 3, 2 } };
    struct fixture f;
    struct impl_result r;
    struct err e = { 0 };
    float out[8];
    long pid = 0;

    fx_open(&f, "const_q_third", DEADLINE_MS, 0);
    for (int call = 0; call < 3; call++) {
        cr_assert_eq(f.impl.ops->scaled_dot_product(f.impl.self, q[call % 2], kv, kv, 2, 3,
                                                    4, 4, NULL, out, NULL, &r, &e), 0,
                     "grader error: %s", e.msg);
        if (call == 2)
            break;
        cr_expect_eq(r.status, CALL_RETURNED, "call %d: %s", call + 1, r.detail);
        cr_expect(memcmp(out, q[call % 2], sizeof out) == 0,
                  "call %d did not see its own inputs", call + 1);
        cr_expect(call == 0 || sbx_runner_pid(f.sbx) == pid, "a new runner for call 2");
        pid = sbx_runner_pid(f.sbx);
    }
    cr_expect_eq(r.status, CALL_CONST_WRITE, "a write of Q in a kept mapping: %d (%s)",
                 r.status, r.detail);
    fx_close(&f);
}

/* make bench's pages-per-runner figure (issue 39 item 2): every runner
 * reaped is counted, with the minor faults the kernel counted for it
 * (wait4): at least one page each (its stack), and a runner's own pages,
 * not a whole exec'd process's (thousands). */
Test(sbx, runners_and_their_faults_are_counted)
{
    struct fixture f;
    struct impl_result r;
    float pe[12];
    unsigned n;
    long faults, before = 0;

    fx_open(&f, "remember", DEADLINE_MS, 0);
    sbx_runner_faults(f.sbx, &n, &faults);
    cr_expect(n == 0 && faults == 0, "%u runners, %ld faults before any call", n, faults);
    for (unsigned test = 1; test <= 3; test++) {
        call_small(&f, ASG_PE, pe, &r);
        call_small(&f, ASG_PE, pe, &r);
        sbx_restart(f.sbx);
        sbx_runner_faults(f.sbx, &n, &faults);
        cr_expect_eq(n, test, "%u runners counted after %u tests", n, test);
        cr_expect(faults > before, "test %u: its runner's faults were not counted", test);
        cr_expect(faults - before < 2000, "test %u: %ld faults for one runner", test,
                  faults - before);
        before = faults;
    }
    fx_close(&f);
}

/* The sandbox's clock with made-up times (issue 35): a pause of the
 * grader is not charged to a call wherever it lands -- inside a wait (it
 * oversleeps) or between two waits while a call is watched (after the
 * call's byte was sent and before the wait for its answer: the freezer
 * test's lost point, which the clock before this counted as the call's
 * time) -- and the grader's own work between calls is not a stall. */
Test(sbx, a_pause_of_the_grader_is_not_the_calls_time)
{
    struct sbx_clock c = {0};

    /* not watching: a wait that overslept 2.5 s is a stall, a gap is not */
    sbx_clock_waited(&c, 1000.0, 100.0, 3600.0);
    cr_expect_float_eq(c.stall, 2500.0, 1e-9, "an oversleep: %g ms of stall", c.stall);
    cr_expect_float_eq(sbx_clock_look(&c, 9000.0), 6500.0, 1e-9,
                       "the grader's work between calls counted as a stall");
    /* watching a call: the pause lands between the send and the wait */
    sbx_clock_watch(&c, 10000.0, 1);
    cr_expect_float_eq(sbx_clock_look(&c, 10000.0), 7500.0, 1e-9, "the call's start");
    cr_expect_float_eq(sbx_clock_look(&c, 12510.0), 7500.0, 1e-9,
                       "a pause between two looks was charged to the call");
    /* a wait that ends on time (or early) adds nothing; one that oversleeps does */
    sbx_clock_look(&c, 12520.0);
    sbx_clock_waited(&c, 12520.0, 100.0, 12540.0);
    sbx_clock_look(&c, 12540.0);
    sbx_clock_waited(&c, 12540.0, 100.0, 12640.0);
    cr_expect_float_eq(sbx_clock_look(&c, 12641.0), 12641.0 - 5010.0, 1e-9,
                       "waits on time counted as a stall: %g", c.stall);
    sbx_clock_look(&c, 12650.0);
    sbx_clock_waited(&c, 12650.0, 100.0, 15250.0);
    cr_expect_float_eq(c.stall, 5010.0 + 2500.0, 1e-9, "a pause inside a wait: %g", c.stall);
    /* gaps under the slack are the grader's own work, not a pause */
    sbx_clock_look(&c, 15250.0 + SBX_STALL_SLACK_MS - 1.0);
    cr_expect_float_eq(c.stall, 7510.0, 1e-9, "a short gap counted: %g", c.stall);
    /* the watch ends: the work after the call is not a stall either */
    sbx_clock_watch(&c, 15300.0, 0);
    sbx_clock_look(&c, 30000.0);
    cr_expect_float_eq(c.stall, 7510.0, 1e-9, "work after the watch counted: %g", c.stall);
}
