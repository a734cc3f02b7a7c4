/* test_strbuf.c -- core/strbuf.h: the capped buffer and the one whole-file
 * reader, sb_read_file(). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"

Test(strbuf, cap_keeps_a_valid_truncated_prefix)
{
    struct sb sb;
    char *s;
    size_t len;

    sb_init(&sb, 10);
    cr_expect_str_eq(sb_str(&sb), "");
    cr_expect_eq(sb_adds(&sb, "hello"), 0);
    cr_expect_eq(sb_adds(&sb, " world!"), -1);
    cr_expect(sb.truncated);
    cr_expect_eq(sb.len, 10);
    cr_expect_str_eq(sb_str(&sb), "hello worl");
    cr_expect_eq(sb_addch(&sb, 'x'), -1);
    s = sb_detach(&sb, &len);
    cr_expect_str_eq(s, "hello worl");
    cr_expect_eq(len, 10);
    cr_expect_eq(sb.len, 0);
    cr_expect_eq(sb.truncated, 0);
    free(s);
}

/* A buffer filled anew (an SVG figure after one that did not fit) starts
 * empty and untruncated, with its cap and its memory. */
Test(strbuf, reset_empties_and_clears_truncated)
{
    struct sb sb;
    char *mem;

    sb_init(&sb, 4);
    sb_reset(&sb);                       /* nothing allocated yet: a no-op */
    cr_expect_str_eq(sb_str(&sb), "");
    cr_expect_eq(sb_adds(&sb, "hello"), -1);
    cr_expect(sb.truncated);
    mem = sb.buf;
    sb_reset(&sb);
    cr_expect_eq(sb.len, 0);
    cr_expect_eq(sb.truncated, 0);
    cr_expect_str_eq(sb_str(&sb), "");
    cr_expect_eq(sb.cap, 4);
    cr_expect_eq(sb.buf, mem);
    cr_expect_eq(sb_adds(&sb, "abc"), 0);
    cr_expect_str_eq(sb_str(&sb), "abc");
    sb_release(&sb);
}

Test(strbuf, addf_handles_long_output)
{
    struct sb sb;
    char big[1000];

    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sb_init(&sb, 0);
    cr_expect_eq(sb_addf(&sb, "<%s|%d>", big, 42), 0);
    cr_expect_eq(sb.len, 999 + 5);
    cr_expect_eq(strncmp(sb_str(&sb) + 1000, "|42>", 4), 0);
    sb_release(&sb);
    cr_expect_null(sb.buf);
}

Test(strbuf, detach_of_empty_is_an_empty_string)
{
    struct sb sb;
    char *s;

    sb_init(&sb, 0);
    s = sb_detach(&sb, NULL);
    cr_assert_not_null(s);
    cr_expect_str_eq(s, "");
    free(s);
}

/* A file of n bytes 'a'..'z' repeated, in a fresh temporary folder;
 * returns its path (static storage). */
static const char *file_of(size_t n)
{
    static char path[64];
    char dir[] = "/tmp/test_strbuf_XXXXXX";
    FILE *f;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f", dir);
    cr_assert_not_null(f = fopen(path, "wb"));
    for (size_t i = 0; i < n; i++)
        fputc('a' + (int)(i % 26), f);
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* Remove file_of()'s file and folder. */
static void unlink_file(const char *path)
{
    char dir[64];

    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    cr_expect_eq(unlink(path), 0);
    cr_expect_eq(rmdir(dir), 0);
}

/* Sizes around the reader's 64 KiB chunk, against limits around them: the
 * result, the bytes kept and their content, appended after what sb held
 * (the buffer is sized from fstat first, within max and the cap). */
static const struct read_case {
    size_t size, max, cap;
    enum sb_read want;
    size_t kept;            /* bytes of the file appended */
} read_cases[] = {
    {0, 0, 0, SB_READ_OK, 0},
    {5, 0, 0, SB_READ_OK, 5},
    {20000, 0, 0, SB_READ_OK, 20000},
    {20000, 20000, 0, SB_READ_OK, 20000},      /* exactly max: whole */
    {20001, 20000, 0, SB_READ_CUT, 20000},
    {20000, 100, 0, SB_READ_CUT, 100},
    {8192, 8191, 0, SB_READ_CUT, 8191},
    {65536, 0, 0, SB_READ_OK, 65536},
    {65536, 65535, 0, SB_READ_CUT, 65535},
    {65537, 65536, 0, SB_READ_CUT, 65536},
    {140000, 0, 0, SB_READ_OK, 140000},
    {140000, 0, 70003, SB_READ_CAP, 70000},
    {140000, 70000, 70003, SB_READ_CUT, 70000}, /* max and cap meet */
    {20000, 0, 10003, SB_READ_CAP, 10000},     /* 3 bytes of "pre" first */
    {20000, 30000, 10003, SB_READ_CAP, 10000},
};

Test(strbuf, read_file_appends_within_max_and_cap)
{
    for (size_t i = 0; i < sizeof read_cases / sizeof read_cases[0]; i++) {
        const struct read_case *rc = &read_cases[i];
        const char *path = file_of(rc->size);
        struct sb sb;
        enum sb_read got;

        sb_init(&sb, rc->cap);
        cr_assert_eq(sb_adds(&sb, "pre"), 0);
        got = sb_read_file(&sb, path, rc->max);
        cr_expect_eq(got, rc->want, "case %zu: %d, not %d", i, got, rc->want);
        cr_expect_eq(sb.len, 3 + rc->kept, "case %zu: %zu bytes", i, sb.len);
        cr_expect_eq(sb.truncated, rc->want == SB_READ_CAP, "case %zu", i);
        for (size_t j = 0; j < sb.len - 3; j++)
            if (sb_str(&sb)[3 + j] != 'a' + (int)(j % 26)) {
                cr_expect_fail("case %zu: byte %zu differs", i, j);
                break;
            }
        sb_release(&sb);
        unlink_file(path);
    }
}

Test(strbuf, read_file_says_why_it_cannot_open)
{
    struct sb sb;

    sb_init(&sb, 0);
    errno = 0;
    cr_expect_eq(sb_read_file(&sb, "/nonexistent/test_strbuf", 0), SB_READ_OPEN);
    cr_expect_eq(errno, ENOENT);
    cr_expect_eq(sb.len, 0);
    errno = 0;
    cr_expect_eq(sb_read_file(&sb, "/tmp", 0), SB_READ_IO, "a folder opens but cannot be read");
    cr_expect_eq(errno, EISDIR);
    cr_expect_eq(sb.len, 0);
    sb_release(&sb);
}

/* A descriptor the caller opened (the student's file, O_NOFOLLOW) is read
 * to its end and left open; a pipe (no size to presize from) too. */
Test(strbuf, read_fd_reads_to_the_end_and_leaves_it_open)
{
    const char *path = file_of(70000);
    int fd = open(path, O_RDONLY | O_NOFOLLOW), p[2];
    struct sb sb;

    cr_assert(fd >= 0);
    sb_init(&sb, 0);
    cr_expect_eq(sb_read_fd(&sb, fd, 0), SB_READ_OK);
    cr_expect_eq(sb.len, 70000);
    cr_expect_eq(sb_str(&sb)[69999], 'a' + 69999 % 26);
    cr_expect_neq(fcntl(fd, F_GETFD), -1, "the descriptor was closed");
    close(fd);
    unlink_file(path);
    sb_release(&sb);

    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(write(p[1], "through a pipe", 14), 14);
    close(p[1]);
    cr_expect_eq(sb_read_fd(&sb, p[0], 7), SB_READ_CUT);
    cr_expect_str_eq(sb_str(&sb), "through");
    close(p[0]);
    sb_release(&sb);
}
