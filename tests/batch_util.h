/*
 * batch_util.h -- what the batch's test files share: copying a file,
 * reading one whole, removing a tree, running the grader's command line
 * with its stderr in a file. Static functions: each test file gets its
 * own copy, so nothing here is linked twice.
 */
#ifndef TEST_BATCH_UTIL_H
#define TEST_BATCH_UTIL_H

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static inline void bu_copy(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[8192];
    size_t k;

    cr_assert(in != NULL && out != NULL, "cannot copy '%s' to '%s'", from, to);
    while ((k = fread(buf, 1, sizeof buf, in)) > 0)
        cr_assert(fwrite(buf, 1, k, out) == k);
    fclose(in);
    fclose(out);
}

/* The file whole, NUL-terminated (at most 4 MiB); *n gets its length. */
static inline char *bu_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(4 << 20);

    cr_assert(f != NULL && buf != NULL, "cannot read '%s'", path);
    *n = fread(buf, 1, (4 << 20) - 1, f);
    buf[*n] = '\0';
    fclose(f);
    return buf;
}

static inline int bu_rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)f;
    return (flag == FTW_DP ? rmdir(p) : unlink(p)), 0;
}

/* Remove the tree (links are removed, never followed) and free root. */
static inline void bu_remove_tree(char *root)
{
    nftw(root, bu_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(root);
}

/* Run argv (argv[0] a path) with stderr into err_path, stdout to
 * out_path (NULL: /dev/null). Returns its exit status (128 + signal). */
static inline int bu_run(const char *const argv[], const char *err_path, const char *out_path)
{
    pid_t pid = fork();
    int status;

    cr_assert(pid >= 0);
    if (pid == 0) {
        if (freopen(err_path, "w", stderr) == NULL ||
            freopen(out_path ? out_path : "/dev/null", "w", stdout) == NULL)
            _exit(127);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    cr_assert(waitpid(pid, &status, 0) == pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
