/*
 * err.h -- the error record that library code fills instead of printing.
 *
 * Every function in the grader's library that can fail takes a
 * `struct err *` (which may be NULL) and, on failure, stores a one-line
 * message there with the file, line and column it concerns where there is
 * one. Only the CLI layer (main.c) shows it to the user, formatted by
 * err_format(). Messages follow the house style: lowercase, no final
 * period, the subject in quotes.
 */
#ifndef GRD_ERR_H
#define GRD_ERR_H

#include <stddef.h>

#define ERR_MSG_MAX 512
#define ERR_FILE_MAX 256

struct err {
    char msg[ERR_MSG_MAX];
    char file[ERR_FILE_MAX]; /* "" when the error concerns no file */
    int line;                /* 1-based; 0 when unknown */
    int col;                 /* 1-based; 0 when unknown */
};

/*
 * Store a message in `e` (no-op when e is NULL). `file` may be NULL, and
 * line/col 0 when unknown. The message is truncated to fit. Always returns
 * -1, so that `return err_set(e, ...);` reads naturally.
 */
int err_set(struct err *e, const char *file, int line, int col,
            const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Clear `e` (no-op when NULL). */
void err_clear(struct err *e);

/*
 * Format `e` as "file:line:col: msg" (leaving out what is unknown) into
 * buf of size n, always NUL-terminated. Returns buf.
 */
char *err_format(const struct err *e, char *buf, size_t n);

#endif
