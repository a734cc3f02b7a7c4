/*
 * test_build.c -- compiling, preparing and linking submissions.
 *
 * Each test makes its own data directory (the grader's attention.h and a
 * stand-in runner_main.o built from objcheck_fixtures/fake_runner.c) and a
 * scratch directory, so the tests need nothing else from the build. Only
 * the project's own fixtures are ever run.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "build/build.h"
#include "build/jail.h"
#include "build/objcheck.h"
#include "objcheck_fixtures/fixture_util.h"

struct env {
    char root[64];
    char data[128], scratch[128], sub[128];
    struct bld_opts o;
};

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    cr_assert(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* root/{data/include/attention.h, data/runner_main.o, scratch/, sub/} */
static void env_init(struct env *v)
{
    static const char *const fr_flags[] = {"-std=c11", "-O2", NULL};
    char path[256];
    const char *cp[] = {"cp", TEST_SRCDIR "/student_template/attention.h", path, NULL};

    memset(v, 0, sizeof *v);
    cr_assert_eq(fx_mkdtemp(v->root, sizeof v->root), 0);
    snprintf(v->data, sizeof v->data, "%s/data", v->root);
    snprintf(v->scratch, sizeof v->scratch, "%s/scratch", v->root);
    snprintf(v->sub, sizeof v->sub, "%s/sub", v->root);
    snprintf(path, sizeof path, "%s/include", v->data);
    cr_assert(mkdir(v->data, 0700) == 0 && mkdir(path, 0700) == 0 &&
              mkdir(v->scratch, 0700) == 0 && mkdir(v->sub, 0700) == 0);
    snprintf(path, sizeof path, "%s/include/attention.h", v->data);
    cr_assert_eq(fx_run(cp), 0);
    snprintf(path, sizeof path, "%s/runner_main.o", v->data);
    cr_assert_eq(fx_compile("cc", fr_flags, FX_DIR "/fake_runner.c", path), 0);
    v->o.data_dir = v->data;
    v->o.scratch_dir = v->scratch;
}

static void env_release(struct env *v)
{
    fx_rmtree(v->root);
}

/* Compile, check, prepare and link fixture `name`; run the runner when
 * `run` and return its exit status (0 when not run). */
static int pipeline(struct env *v, const char *name, int run)
{
    char src[256], obj[192], prep[192], runner[192], *log = NULL;
    struct obj_report rep;
    struct err e;
    const char *argv[] = {runner, NULL};

    snprintf(src, sizeof src, "%s/%s", FX_DIR, name);
    snprintf(obj, sizeof obj, "%s/attention.o", v->scratch);
    snprintf(prep, sizeof prep, "%s/prepared.o", v->scratch);
    snprintf(runner, sizeof runner, "%s/runner", v->scratch);
    cr_assert_eq(bld_compile(&v->o, src, obj, &log, &e), 0, "%s: %s %s", name, e.msg,
                 log ? log : "");
    free(log);
    obj_report_init(&rep);
    cr_assert_eq(obj_check(obj, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(rep.n_rejections, 0, "%s: %s", name, rep.n_rejections ? rep.rejections[0] : "");
    cr_assert_eq(bld_prepare_object(obj, prep, &rep, &e), 0, "%s: %s", name, e.msg);
    obj_report_release(&rep);
    cr_assert_eq(bld_link_runner(&v->o, prep, runner, &log, &e), 0, "%s: %s", name,
                 log ? log : e.msg);
    free(log);
    return run ? fx_run(argv) : 0;
}

/* Write `body` as the submission sub/attention.c; its path into `path`. */
static void make_submission(const struct env *v, const char *body, char *path, size_t n)
{
    snprintf(path, n, "%s/attention.c", v->sub);
    write_file(path, body);
}

Test(build, compiles_against_the_graders_header_only)
{
    struct env v;
    char src[256], obj[192], hdr[192], *log = NULL;
    struct err e;

    env_init(&v);
    /* The student's edited header defines a macro the grader's lacks. */
    snprintf(hdr, sizeof hdr, "%s/attention.h", v.sub);
    write_file(hdr, "#define STUDENT_ONLY 1\n");
    make_submission(&v, "#include \"attention.h\"\nint x = STUDENT_ONLY;\n", src, sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 1);
    cr_expect(strstr(log, "attention.c:2:") != NULL && strstr(log, "STUDENT_ONLY") != NULL,
              "%s", log);
    cr_expect(strstr(log, v.scratch) == NULL, "log leaks the scratch path: %s", log);
    free(log);
    /* ... and ATTN_OK, which only the grader's header defines, is seen. */
    make_submission(&v, "#include \"attention.h\"\nint x = ATTN_OK + ATTN_API_VERSION;\n", src,
                    sizeof src);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 0, "%s", log ? log : e.msg);
    free(log);
    env_release(&v);
}

Test(build, compile_errors_keep_the_first_lines)
{
    struct env v;
    char src[256], obj[192], *log = NULL, body[4096] = "";
    struct err e;
    size_t lines = 0;

    env_init(&v);
    for (int i = 0; i < 60; i++)
        snprintf(body + strlen(body), sizeof body - strlen(body), "int f%d(void) { return y%d; }\n",
                 i, i);
    make_submission(&v, body, src, sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 1);
    for (const char *p = log; *p; p++)
        lines += *p == '\n';
    cr_expect(lines <= BLD_LOG_LINES + 1, "%zu lines", lines);
    cr_expect(strstr(log, "error: 'y0' undeclared") != NULL, "%s", log);
    cr_expect(strstr(log, "more lines)") != NULL, "%s", log);
    free(log);
    env_release(&v);
}

Test(build, grader_errors_are_not_compile_errors)
{
    struct env v;
    char src[256], obj[192], *log = (char *)1;
    struct err e;

    env_init(&v);
    make_submission(&v, "int x;\n", src, sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    v.o.cc = "/nonexistent/cc";
    cr_expect_eq(bld_compile(&v.o, src, obj, &log, &e), -1);
    cr_expect_str_eq(e.msg, "cannot run '/nonexistent/cc': No such file or directory");
    cr_expect_null(log);
    v.o.cc = NULL;
    cr_expect_eq(bld_compile(&v.o, "/nonexistent/attention.c", obj, &log, &e), -1);
    cr_expect(strstr(e.msg, "cannot open") != NULL, "%s", e.msg);
    v.o.data_dir = v.scratch;   /* no include/attention.h there */
    cr_expect_eq(bld_compile(&v.o, src, obj, &log, &e), -1);
    cr_expect(strstr(e.file, "include/attention.h") != NULL, "%s", e.file);
    cr_expect_eq(bld_link_runner(&v.o, obj, "/tmp/never", &log, &e), -1);
    cr_expect(strstr(e.file, "runner_main.o") != NULL, "%s", e.file);
    env_release(&v);
}

Test(build, oversized_source_is_a_compile_error)
{
    struct env v;
    char src[256], obj[192], *log = NULL;
    struct err e;
    FILE *f;

    env_init(&v);
    make_submission(&v, "", src, sizeof src);
    cr_assert((f = fopen(src, "w")) != NULL);
    for (size_t i = 0; i <= BLD_MAX_SOURCE; i++)
        fputc(i % 80 == 79 ? '\n' : ' ', f);
    fclose(f);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 1);
    cr_expect_str_eq(log, "attention.c is larger than 1 MiB\n");
    free(log);
    env_release(&v);
}

/* A compiler that makes no progress (it sleeps: what a paused or
 * overloaded machine looks like) is tried twice, then reported as the
 * grader's trouble: never a compile error of the submission. (Before, a
 * wall-clock deadline made it a compile error.) */
Test(build, stalled_compiler_is_a_grader_error)
{
    struct env v;
    char src[256], obj[192], cc[192], *log = NULL;
    struct err e;
    struct timespec t0, t1;

    env_init(&v);
    snprintf(cc, sizeof cc, "%s/slowcc", v.root);
    write_file(cc, "#!/bin/sh\nsleep 20\n");
    cr_assert_eq(chmod(cc, 0700), 0);
    make_submission(&v, "int x;\n", src, sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    v.o.cc = cc;
    v.o.timeout_ms = 300;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), -1, "%s", log ? log : "");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_expect_null(log);
    cr_expect(strstr(e.msg, "made no progress") != NULL && strstr(e.msg, "twice") != NULL &&
              strstr(e.msg, "not the submission's") != NULL, "%s", e.msg);
    cr_expect(t1.tv_sec - t0.tv_sec < 10, "the sleeping compiler was not killed");
    env_release(&v);
}

/* A compiler that cannot fork its own processes (the account's process
 * limit) is the machine's trouble: a grader error, not a compile error. */
Test(build, compiler_that_cannot_fork_is_a_grader_error)
{
    struct env v;
    char src[256], obj[192], cc[192], *log = NULL;
    struct err e;

    env_init(&v);
    snprintf(cc, sizeof cc, "%s/nofork", v.root);
    write_file(cc, "#!/bin/sh\necho \"cc: fatal error: cannot execute 'cc1': vfork: "
                   "Resource temporarily unavailable\" >&2\nexit 1\n");
    cr_assert_eq(chmod(cc, 0700), 0);
    make_submission(&v, "int x;\n", src, sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    v.o.cc = cc;
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), -1, "%s", log ? log : "");
    cr_expect(strstr(e.msg, "could not start its own processes") != NULL, "%s", e.msg);
    env_release(&v);
}

/* A preprocessor bomb burns the compiler's CPU: it is stopped by its CPU
 * limit (BLD_COMPILE_CPU_S; 1 s here) and charged to the submission as a
 * compile error, however long the wall-clock net. */
Test(build, preprocessor_bomb_is_charged_to_the_submission)
{
    struct env v;
    char src[256], obj[192], *log = NULL, body[2048] = "#define A0 x\n";
    struct err e;

    env_init(&v);
    for (int i = 1; i <= 40; i++)
        snprintf(body + strlen(body), sizeof body - strlen(body),
                 "#define A%d A%d A%d\n", i, i - 1, i - 1);
    snprintf(body + strlen(body), sizeof body - strlen(body), "int y = sizeof(A40);\n");
    make_submission(&v, body, src, sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    v.o.cpu_s = 1;
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 1, "%s", e.msg);
    cr_expect(strstr(log, "the compiler used more than 1 s of CPU time") != NULL, "%s", log);
    free(log);
    env_release(&v);
}

Test(build, clean_submission_links_and_runs)
{
    static const char *const fixtures[] = {"clean.c", "missing.c"};

    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        struct env v;

        env_init(&v);
        cr_expect_eq(pipeline(&v, fixtures[i], 1), 0, "%s: runner failed", fixtures[i]);
        env_release(&v);
    }
}

/* A student's main, memcmp, malloc and global helper are made local:
 * the runner's own main runs and the C library's functions stay real. */
Test(build, student_definitions_cannot_interpose)
{
    static const char *const fixtures[] = {"main.c", "memcmp.c", "helper.c"};

    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        struct env v;
        char path[256];

        env_init(&v);
        /* These fixtures include "stubs.inc", which must sit in scratch. */
        snprintf(path, sizeof path, "%s/stubs.inc", v.scratch);
        {
            const char *cp[] = {"cp", FX_DIR "/stubs.inc", path, NULL};
            cr_assert_eq(fx_run(cp), 0);
        }
        cr_expect_eq(pipeline(&v, fixtures[i], 1), 0, "%s: runner failed", fixtures[i]);
        env_release(&v);
    }
}

/* After preparation obj_check finds nothing left to localise, and the
 * only allocator names left are the grader's grd_* ones. */
Test(build, prepared_object_uses_grd_allocator)
{
    struct env v;
    char src[256], obj[192], *log = NULL;
    struct obj_report rep;
    struct err e;
    static const char *const gone[] = {"'malloc'", "'calloc'", "'free'"};

    env_init(&v);
    snprintf(src, sizeof src, "%s/clean.c", FX_DIR);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 0);
    free(log);
    obj_report_init(&rep);
    cr_assert_eq(obj_check(obj, &rep, &e), 0);
    cr_assert_eq(rep.n_rejections, 0);
    cr_assert_eq(bld_prepare_object(obj, obj, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(obj_check(obj, &rep, &e), 0);
    cr_expect_eq(rep.n_localise, 0);
    /* grd_* are undefined now, and obj_check calls them grader code */
    cr_expect(rep.n_rejections >= 3);
    for (size_t i = 0; i < rep.n_rejections; i++) {
        cr_expect(strstr(rep.rejections[i], "'grd_") != NULL, "%s", rep.rejections[i]);
        for (size_t k = 0; k < sizeof gone / sizeof gone[0]; k++)
            cr_expect(strstr(rep.rejections[i], gone[k]) == NULL, "%s", rep.rejections[i]);
    }
    cr_expect_eq(bld_prepare_object(obj, obj, &rep, &e), -1);
    cr_expect_str_eq(e.msg, "refusing to prepare a rejected object");
    obj_report_release(&rep);
    env_release(&v);
}

Test(build, link_failure_is_reported)
{
    struct env v;
    char src[256], obj[192], runner[192], *log = NULL;
    struct err e;

    env_init(&v);
    make_submission(&v, "void nowhere(void);\nvoid (*volatile p)(void) = nowhere;\n", src,
                    sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    snprintf(runner, sizeof runner, "%s/runner", v.scratch);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 0);
    free(log);
    cr_assert_eq(bld_link_runner(&v.o, obj, runner, &log, &e), 1);
    /* bfd quotes `nowhere', gold 'nowhere' (the gold link where available) */
    cr_expect(strstr(log, "undefined reference to `nowhere'") != NULL ||
                  strstr(log, "undefined reference to 'nowhere'") != NULL, "%s", log);
    free(log);
    env_release(&v);
}

/* ---- the jail (build/jail.h) ------------------------------------------------ */

/* A file outside scratch, named by an absolute #include, never reaches the
 * log: the jail refuses to open it (where Landlock exists), and the log
 * keeps only lines about attention.c anyway. */
Test(build, jail_keeps_the_compiler_out_of_other_files)
{
    struct env v;
    char src[256], obj[192], secret[192], body[512], why[128], *log = NULL;
    struct err e;

    env_init(&v);
    snprintf(secret, sizeof secret, "%s/secret.h", v.root);
    write_file(secret, "int leaked = SECRET_WORD_42;\n");
    snprintf(body, sizeof body, "#include \"%s\"\n", secret);
    make_submission(&v, body, src, sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 1, "%s", e.msg);
    cr_expect(strstr(log, "SECRET_WORD_42") == NULL, "%s", log);
    if (jail_probe(why, sizeof why) > 0)
        cr_expect(strstr(log, "Permission denied") != NULL, "%s", log);
    else
        cr_log_warn("no Landlock here (%s): only the log filter was tested", why);
    free(log);
    env_release(&v);
}

/* The toolchain gets PATH, LC_ALL and TMPDIR=<scratch> only, and stdin
 * from /dev/null (cat would wait forever on a terminal or a pipe). */
Test(build, jail_gives_a_clean_environment)
{
    struct env v;
    char src[256], obj[192], cc[192], envf[192], text[4096] = "", *log = NULL;
    struct err e;
    FILE *f;
    size_t got;

    env_init(&v);
    snprintf(cc, sizeof cc, "%s/envcc", v.root);
    write_file(cc, "#!/bin/sh\nenv > \"$TMPDIR/env.txt\"\ncat >> \"$TMPDIR/env.txt\"\nexit 1\n");
    cr_assert_eq(chmod(cc, 0700), 0);
    make_submission(&v, "int x;\n", src, sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    setenv("GRADER_TEST_CI_TOKEN", "tok_secret_77", 1);
    v.o.cc = cc;
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 1, "%s", e.msg);
    unsetenv("GRADER_TEST_CI_TOKEN");
    snprintf(envf, sizeof envf, "%s/env.txt", v.scratch);
    cr_assert((f = fopen(envf, "r")) != NULL, "the fake compiler wrote no env.txt");
    got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    cr_expect(strstr(text, "tok_secret_77") == NULL, "%s", text);
    cr_expect(strstr(text, "PATH=/usr/bin:/bin\n") != NULL, "%s", text);
    cr_expect(strstr(text, "LC_ALL=C\n") != NULL, "%s", text);
    cr_expect(strstr(text, v.scratch) != NULL, "TMPDIR is not scratch: %s", text);
    free(log);
    env_release(&v);
}

/* A note inside a system header is not shown; the student's own lines are. */
Test(build, log_quotes_only_attention_c)
{
    struct env v;
    char src[256], obj[192], *log = NULL;
    struct err e;

    env_init(&v);
    make_submission(&v, "#include <string.h>\nsize_t f(void) { return strlen(\"a\", 2); }\n", src,
                    sizeof src);
    snprintf(obj, sizeof obj, "%s/attention.o", v.scratch);
    cr_assert_eq(bld_compile(&v.o, src, obj, &log, &e), 1, "%s", e.msg);
    cr_expect(strstr(log, "attention.c:2:") != NULL, "%s", log);
    cr_expect(strstr(log, "/usr/include") == NULL, "%s", log);
    cr_expect(strstr(log, "other line") != NULL, "%s", log);
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        cr_expect(strncmp(p, "attention.c:", 12) == 0 || p[0] == '(', "line: %.80s", p);
        p = nl ? nl + 1 : p + strlen(p);
    }
    free(log);
    env_release(&v);
}
