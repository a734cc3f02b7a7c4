/*
 * grading.h -- shared by the test suites that grade whole submissions
 * through the real pipeline (compile, checks, sandbox): loading the specs,
 * grading a file, and reading a catalogue entry's expectations.
 *
 * A catalogue entry starts with a comment block:
 *   / * CATALOGUE
 *    * bug: what is wrong, in one line
 *    * expect-fail: id id ...      (every one fails its property)
 *    * expect-withheld: id ...     (every one passes its property but earns
 *    *                              nothing: a test it depends on failed)
 *    * expect-maybe: id ...        (may go either way)
 *    * /
 * Every other test of the loaded specs must pass with full points: a
 * mistake costs points where it lives and nowhere else. An entry whose bug
 * line starts with "trivial:" does no real work and has no per-test list:
 * it must score at most 2% of the points.
 */
#ifndef TEST_GRADING_H
#define TEST_GRADING_H

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grade/grade.h"
#include "grade/grade_props.h"
#include "props/prop.h"
#include "spec/spec.h"

#define TG_MAX_IDS 64
#define TG_ID_MAX 96

struct tg_expect {
    char bug[256];
    char fail[TG_MAX_IDS][TG_ID_MAX];
    size_t n_fail;
    char maybe[TG_MAX_IDS][TG_ID_MAX];
    size_t n_maybe;
    char withheld[TG_MAX_IDS][TG_ID_MAX];
    size_t n_withheld;
    int found;               /* the CATALOGUE block was there */
};

#define TG_HOGS 8 /* busy children: 4 x the cores of our 2-core machine */

/* Stop the first n of the children tg_hogs_start started (SIGKILL, then
 * reaped): only ours, by pid. */
__attribute__((unused)) static void tg_hogs_stop(const pid_t *pid, int n)
{
    for (int i = 0; i < n; i++) {
        kill(pid[i], SIGKILL);
        while (waitpid(pid[i], NULL, 0) < 0 && errno == EINTR)
            ;
    }
}

/* Load the machine: TG_HOGS children that only burn CPU, each ended by
 * SIGALRM after 600 s at the latest if nobody stops it; their pids in
 * pid[]. 0, or -1 when a fork failed (the ones started are stopped). */
__attribute__((unused)) static int tg_hogs_start(pid_t *pid)
{
    for (int i = 0; i < TG_HOGS; i++) {
        pid[i] = fork();
        if (pid[i] < 0) {
            tg_hogs_stop(pid, i);
            return -1;
        }
        if (pid[i] == 0) {
            volatile unsigned long spin = 0;
            alarm(600);
            for (;;)
                spin++;
        }
    }
    return 0;
}

/* Load specs/public.yaml and, when `hidden`, specs/hidden.yaml. */
__attribute__((unused)) static struct spec_set *tg_specs(int hidden, struct err *e)
{
    struct spec_set *s = spec_set_new();

    if (s == NULL)
        return NULL;
    if (spec_load(s, TEST_SRCDIR "/specs/public.yaml", gprop_check_case, e) < 0 ||
        (hidden && spec_load(s, TEST_SRCDIR "/specs/hidden.yaml", gprop_check_case, e) < 0)) {
        spec_set_free(s);
        return NULL;
    }
    return s;
}

/* Grade `path` with the default seed; NULL on a grader error (e set). */
__attribute__((unused)) static struct grade_result *tg_grade(const struct spec_set *s, const char *path,
                                     const char *only, struct err *e)
{
    struct grade_opts o;
    struct grade_result *r = NULL;

    memset(&o, 0, sizeof o);
    o.specs = s;
    o.only = only;
    o.seed = 1;
    o.data_dir = TEST_BUILDDIR;
    if (grade_submission(path, &o, &r, e) < 0)
        return NULL;
    return r;
}

__attribute__((unused)) static const struct grade_test *tg_find(const struct grade_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (strcmp(r->tests[i].test->id, id) == 0)
            return &r->tests[i];
    return NULL;
}

__attribute__((unused)) static size_t tg_split(const char *list, char ids[][TG_ID_MAX], size_t max)
{
    size_t n = 0;
    const char *p = list;

    while (*p && n < max) {
        size_t len;
        while (*p == ' ' || *p == '\t')
            p++;
        len = strcspn(p, " \t\r\n");
        if (len == 0)
            break;
        snprintf(ids[n++], TG_ID_MAX, "%.*s", (int)len, p);
        p += len;
    }
    return n;
}

/* Read the CATALOGUE block of `path` (its first 60 lines). */
__attribute__((unused)) static void tg_expectations(const char *path, struct tg_expect *x)
{
    FILE *f = fopen(path, "r");
    char line[2048];

    memset(x, 0, sizeof *x);
    for (int i = 0; f && i < 60 && fgets(line, sizeof line, f); i++) {
        const char *p = line + strspn(line, " /*\t");
        if (strncmp(p, "CATALOGUE", 9) == 0)
            x->found = 1;
        else if (strncmp(p, "bug:", 4) == 0)
            snprintf(x->bug, sizeof x->bug, "%s", p + 4 + strspn(p + 4, " "));
        else if (strncmp(p, "expect-fail:", 12) == 0)
            x->n_fail += tg_split(p + 12, x->fail + x->n_fail, TG_MAX_IDS - x->n_fail);
        else if (strncmp(p, "expect-withheld:", 16) == 0)
            x->n_withheld += tg_split(p + 16, x->withheld + x->n_withheld,
                                      TG_MAX_IDS - x->n_withheld);
        else if (strncmp(p, "expect-maybe:", 13) == 0)
            x->n_maybe += tg_split(p + 13, x->maybe + x->n_maybe, TG_MAX_IDS - x->n_maybe);
    }
    if (f)
        fclose(f);
}

__attribute__((unused)) static int tg_listed(const char (*ids)[TG_ID_MAX], size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ids[i], id) == 0)
            return 1;
    return 0;
}

__attribute__((unused)) static int tg_by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

__attribute__((unused)) static int tg_is_c(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 2 && strcmp(d->d_name + n - 2, ".c") == 0;
}

#endif
