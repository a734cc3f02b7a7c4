/* err.c -- see err.h. */
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, const char *file, int line, int col,
            const char *fmt, ...)
{
    va_list ap;

    if (e == NULL)
        return -1;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    e->col = col;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

void err_clear(struct err *e)
{
    if (e != NULL)
        memset(e, 0, sizeof *e);
}

char *err_format(const struct err *e, char *buf, size_t n)
{
    if (n == 0)
        return buf;
    if (e->file[0] && e->line > 0 && e->col > 0)
        snprintf(buf, n, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
    else if (e->file[0] && e->line > 0)
        snprintf(buf, n, "%s:%d: %s", e->file, e->line, e->msg);
    else if (e->file[0])
        snprintf(buf, n, "%s: %s", e->file, e->msg);
    else
        snprintf(buf, n, "%s", e->msg);
    return buf;
}
