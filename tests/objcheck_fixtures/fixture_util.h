/*
 * fixture_util.h -- helpers shared by test_objcheck.c and test_build.c:
 * compile a fixture with chosen flags, find a program on PATH, make and
 * remove temporary directories. Test code only (static functions).
 */
#ifndef FIXTURE_UTIL_H
#define FIXTURE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FX_DIR TEST_SRCDIR "/tests/objcheck_fixtures"
#define FX_INCLUDE "-I" TEST_SRCDIR "/student_template"

/* Run argv (PATH search), output to /dev/null; its exit status or -1. */
static int fx_run(const char *const argv[])
{
    int status;
    pid_t pid = fork();

    if (pid == 0) {
        if (freopen("/dev/null", "w", stderr) == NULL ||
            freopen("/dev/null", "w", stdout) == NULL)
            _exit(126);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* 1 if `prog` is an executable on PATH. */
__attribute__((unused)) static int fx_have(const char *prog)
{
    const char *argv[] = {prog, "--version", NULL};

    return fx_run(argv) == 0;
}

/*
 * Compile `src` (a path) with `cc` and up to 6 space-free `flags` words
 * (NULL-terminated array) into `out`. Returns the compiler's status.
 */
static int fx_compile(const char *cc, const char *const *flags, const char *src,
                      const char *out)
{
    const char *argv[16];
    size_t n = 0;

    argv[n++] = cc;
    argv[n++] = FX_INCLUDE;
    argv[n++] = "-I" FX_DIR;
    for (size_t i = 0; flags && flags[i] && i < 6; i++)
        argv[n++] = flags[i];
    argv[n++] = "-c";
    argv[n++] = src;
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n] = NULL;
    return fx_run(argv);
}

/* A fresh directory under /tmp; the path is written into buf (>= 64). */
static int fx_mkdtemp(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/grd-test-XXXXXX");
    return mkdtemp(buf) ? 0 : -1;
}

/* rm -rf `dir` (a directory fx_mkdtemp made). */
static void fx_rmtree(const char *dir)
{
    const char *argv[] = {"rm", "-rf", dir, NULL};

    fx_run(argv);
}

#endif
