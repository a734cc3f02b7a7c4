/*
 * objcheck_nm.c -- obj_check() of the portable build (GRADER_PORTABLE=1,
 * for systems whose objects are not ELF, such as macOS): the symbols come
 * from `nm -P` (POSIX output: "name type [value size]" per line), the
 * rules are objcheck.c's.
 *
 * What it cannot see, and the ELF reader refuses: constructor sections,
 * thread-local storage, an executable-stack request, foreign sections.
 * The source rules (srcrules.h) still refuse the constructor attribute and
 * asm before anything is compiled; a hand-made attention.o may slip past.
 * That is the reduced check of a student's own laptop (README.md says so);
 * the course grades on Linux with the ELF reader.
 */
#include "build/objcheck_internal.h"
#include "core/strbuf.h"

#if GRADER_PORTABLE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NM_OUT_MAX ((size_t)8 << 20)   /* bytes of nm output read */

int obj_platform_allowed(const char *name)
{
    /* What Apple's clang emits by itself for ordinary C code. */
    static const char *const mac[] = {
        "__bzero", "__error", "__sincos_stret", "__sincosf_stret", "__exp10", "__exp10f",
        "memset_pattern16", "__tolower", "__toupper", "__maskrune", "_DefaultRuneLocale",
        "__stderrp", "__stdoutp", "dyld_stub_binder",
    };

    for (size_t i = 0; i < sizeof mac / sizeof mac[0]; i++)
        if (strcmp(name, mac[i]) == 0)
            return 1;
    return 0;
}

/* Read all of fd (at most NM_OUT_MAX bytes: the rest is not read; a read
 * error ends it) into a new NUL-terminated buffer; NULL when out of
 * memory. */
static char *slurp_fd(int fd, size_t *len)
{
    struct sb sb;

    sb_init(&sb, 0);
    if (sb_read_fd(&sb, fd, NM_OUT_MAX) == SB_READ_CAP) {
        sb_release(&sb);
        return NULL;
    }
    return sb_detach(&sb, len);
}

/* Run `nm -P path` ($NM overrides the tool) without a shell; its stdout in
 * *out (caller frees), its exit status in *status. Returns 0, or -1 with e
 * set when it cannot be run. */
static int run_nm(const char *path, char **out, int *status, struct err *e)
{
    const char *tool = getenv("NM");
    int p[2];
    pid_t pid;
    size_t len;

    if (tool == NULL || tool[0] == '\0')
        tool = "nm";
    if (pipe(p) < 0)
        return err_set(e, NULL, 0, 0, "cannot run '%s': %s", tool, strerror(errno));
    if ((pid = fork()) < 0) {
        close(p[0]), close(p[1]);
        return err_set(e, NULL, 0, 0, "cannot run '%s': %s", tool, strerror(errno));
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);

        dup2(p[1], STDOUT_FILENO);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        close(p[0]);
        close(p[1]);
        execlp(tool, tool, "-P", path, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    *out = slurp_fd(p[0], &len);
    close(p[0]);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    if (*out == NULL)
        return err_set(e, path, 0, 0, "out of memory while reading the symbols");
    if (WIFEXITED(*status) && WEXITSTATUS(*status) == 127) {
        free(*out);
        return err_set(e, NULL, 0, 0, "cannot run '%s' (set NM to the tool that lists an "
                       "object's symbols)", tool);
    }
    return 0;
}

/* One line of `nm -P`. Lower-case types are local (ignored), except 'i'
 * (a GNU indirect function); 'w'/'v' are weak undefined references. */
static void nm_line(struct obj_ctx *c, char *line)
{
    char *name = line, *type = strchr(line, ' ');

    if (type == NULL || type[1] == '\0')
        return;
    *type++ = '\0';
#ifdef __APPLE__
    if (name[0] == '_')   /* Mach-O names C symbols with a leading '_' */
        name++;
#endif
    if (strlen(name) > OBJ_MAX_NAME)
        REJECT(c, "'%s' is a malformed object file (symbol name)", c->name);
    else if (*type == 'i')
        REJECT(c, "'%s' is an indirect function (ifunc): define an ordinary function", name);
    else if (*type == 'C')
        REJECT(c, "'%s' is a common symbol; make it static or initialise it", name);
    else if (*type == 'U' || *type == 'w' || *type == 'v')
        obj_undefined(c, name);
    else if (strchr("TDBRSGVWA", *type) != NULL)
        obj_defined(c, name, *type == 'T' || *type == 'W');
}

static void check_lines(struct obj_ctx *c, char *text)
{
    size_t n = 0;

    for (char *p = text; *p && !c->oom;) {
        size_t len = strcspn(p, "\n");
        int last = p[len] == '\0';

        p[len] = '\0';
        if (++n > OBJ_MAX_SYMBOLS) {
            REJECT(c, "'%s' has more than %d symbols", c->name, OBJ_MAX_SYMBOLS);
            return;
        }
        nm_line(c, p);
        if (last)
            break;
        p += len + 1;
    }
}

/* obj_check on `path`, named `name` in messages. */
static int check_path(const char *path, const char *name, struct obj_report *rep,
                      struct err *e)
{
    struct obj_ctx c;
    struct stat st;
    char *text = NULL;
    int status = 0;

    obj_report_release(rep);
    memset(&c, 0, sizeof c);
    c.name = name;
    c.rep = rep;
    if (stat(path, &st) < 0)
        return err_set(e, path, 0, 0, "cannot open: %s", strerror(errno));
    if (st.st_size > (off_t)OBJ_MAX_BYTES) {
        REJECT(&c, "'%s' is larger than %u MiB", c.name, OBJ_MAX_BYTES >> 20);
        return c.oom ? err_set(e, path, 0, 0, "out of memory") : 0;
    }
    if (run_nm(path, &text, &status, e) < 0)
        return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        REJECT(&c, "'%s' is not an object file for this machine", c.name);
    else
        check_lines(&c, text);
    if (!c.oom && rep->n_rejections == 0)
        obj_missing_api(&c);
    free(text);
    if (c.oom) {
        obj_report_release(rep);
        return err_set(e, path, 0, 0, "out of memory while checking the object");
    }
    return 0;
}

int obj_check(const char *path, struct obj_report *rep, struct err *e)
{
    const char *base = strrchr(path, '/');

    return check_path(path, base ? base + 1 : path, rep, e);
}

int obj_check_buffer(const unsigned char *buf, size_t len, const char *name,
                     struct obj_report *rep, struct err *e)
{
    char path[] = "/tmp/grader-objcheck-XXXXXX";
    int fd = mkstemp(path), rc;
    size_t done = 0;

    if (fd < 0)
        return err_set(e, name, 0, 0, "cannot write a temporary file: %s", strerror(errno));
    while (done < len) {
        ssize_t k = write(fd, buf + done, len - done);

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        done += (size_t)k;
    }
    close(fd);
    rc = done == len ? check_path(path, name, rep, e)
                     : err_set(e, name, 0, 0, "cannot write a temporary file");
    unlink(path);
    return rc;
}
#endif /* GRADER_PORTABLE */
