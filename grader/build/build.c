/* build.c -- see build.h. */
#include "build/build.h"

#include "assign/assign.h"
#include "build/jail.h"
#include "core/compat.h"
#include "core/util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What one tool run produced. */
struct run {
    char *out;               /* captured stdout+stderr, NUL-terminated */
    size_t len;
    int status;              /* from waitpid */
    int timed_out;           /* the wall-clock net fired */
    double cpu_ms;           /* CPU time of the tool's whole process tree */
    int cpu_out;             /* it failed, and a process of it met RLIMIT_CPU */
};

/* A tool run's limits: CPU time per process (the verdict) and the
 * wall-clock net, much longer, for a tool that makes no progress. */
struct budget {
    long cpu_s;
    long wall_ms;
};

static const char *const redefined[][2] = {
    {"malloc", "grd_malloc"}, {"calloc", "grd_calloc"},
    {"realloc", "grd_realloc"}, {"free", "grd_free"},
};
#define N_REDEFINED (sizeof redefined / sizeof redefined[0])

/* The compile's flags (bld_compile), also part of bld_toolchain_id.
 * -fdiagnostics-plain-output: no source lines quoted, no colours, no
 * URLs; one line per message, which only_student_lines can judge. */
static const char *const compile_flags[] = {
    "-std=c11", "-O2", "-g0", "-fPIE", "-fno-common", "-Wall", "-Wextra",
    "-fdiagnostics-plain-output",
};
#define N_COMPILE_FLAGS (sizeof compile_flags / sizeof compile_flags[0])

static const char *cc_of(const struct bld_opts *o)
{
    const char *cc = o->cc ? o->cc : getenv("CC");

    return cc && *cc ? cc : "cc";
}

static long timeout_of(const struct bld_opts *o)
{
    return o->timeout_ms > 0 ? o->timeout_ms : BLD_TIMEOUT_MS;
}

/* The compile's limits: a preprocessor bomb burns CPU and meets
 * BLD_COMPILE_CPU_S; the wall net only stops a compiler that does not run. */
static struct budget compile_budget(const struct bld_opts *o)
{
    struct budget b = {o->cpu_s > 0 ? o->cpu_s : BLD_COMPILE_CPU_S,
                       o->timeout_ms > 0 ? o->timeout_ms : BLD_COMPILE_WALL_MS};
    return b;
}

static struct budget tool_budget(const struct bld_opts *o)
{
    struct budget b = {timeout_of(o) / 1000 + 1, timeout_of(o)};
    return b;
}

/* The tool's output, at most BLD_LOG_CAP bytes of it, from the start of
 * its log file. */
static void read_log(int fd, struct run *r)
{
    ssize_t got;

    while (r->len < BLD_LOG_CAP &&
           ((got = pread(fd, r->out + r->len, BLD_LOG_CAP - r->len, (off_t)r->len)) > 0 ||
            (got < 0 && errno == EINTR)))
        r->len += got > 0 ? (size_t)got : 0;
}

/*
 * Wait for the keeper `pid` until the deadline. Its process group is then
 * killed whatever happened, before the keeper is reaped (so the group id
 * cannot have been reused): nothing the tool started outlives it.
 */
static void reap(pid_t pid, long deadline, struct run *r)
{
    /* the first polls come soon (objcopy takes a few milliseconds), then
     * every 5 ms: a tool's end is seen within a fraction of its run, not
     * 2.5 ms late on average, three times per grade */
    struct timespec tick = {0, 250 * 1000};
    struct rusage ru;
    siginfo_t info;

    for (;;) {
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR)
            break;
        if (info.si_pid == pid)
            break;
        if ((long)ut_now_ms() >= deadline) {
            r->timed_out = 1;
            r->cpu_ms = jail_group_cpu_ms(pid); /* before the kill: whose fault */
            break;
        }
        nanosleep(&tick, NULL);
        if (tick.tv_nsec < 5 * 1000000)
            tick.tv_nsec = tick.tv_nsec * 2 < 5 * 1000000 ? tick.tv_nsec * 2 : 5 * 1000000;
    }
    kill(-pid, SIGKILL);
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &r->status, 0, &ru) < 0 && errno == EINTR)
        ;
    /* the keeper reaped the tool, which reaped its own children */
    if (!r->timed_out)
        r->cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* Read the exec error pipe: 0 when exec succeeded, else the errno. */
static int exec_errno(int fd)
{
    int err = 0;
    ssize_t got;

    while ((got = read(fd, &err, sizeof err)) < 0 && errno == EINTR)
        ;
    return got == (ssize_t)sizeof err ? err : 0;
}

/*
 * The tool's log and the exec error pipe, close-on-exec; on failure
 * nothing stays open. The log is an anonymous file, not a pipe: a source
 * that includes /dev/stdout or /dev/stderr then reads what is there (or is
 * refused by the jail) instead of waiting forever on its own pipe.
 */
static int open_channels(int *log_fd, int errp[2])
{
    if ((*log_fd = cpt_anon_fd("tool-log")) < 0)
        return -1;
    if (cpt_pipe_cloexec(errp) < 0) {
        int err = errno;
        close(*log_fd);
        errno = err;
        return -1;
    }
    return 0;
}

/* After the fork: the exit status, the log and the exec errno. */
static int supervise(pid_t pid, int log_fd, int err_fd, long timeout_ms, struct run *r,
                     const char *tool, struct err *e)
{
    long deadline = (long)ut_now_ms() + timeout_ms;
    int err;

    reap(pid, deadline, r);
    read_log(log_fd, r);
    r->out[r->len] = '\0';
    /* cc says so when cc1 met its CPU limit (SIGXCPU); the rusage of a
     * process killed at the limit can read a little under it */
    r->cpu_out = !(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0) &&
                 strstr(r->out, "CPU time limit exceeded") != NULL;
    err = exec_errno(err_fd);
    close(log_fd);
    close(err_fd);
    r->out[r->len] = '\0';
    if (err != 0)
        return err_set(e, NULL, 0, 0, "cannot run '%s': %s", tool, strerror(err));
    return 0;
}

/*
 * Run argv in the jail `j` (argv[0] only names the tool in messages: the
 * jail holds its path) in `cwd` (NULL: here) with a time limit. Returns 0
 * when the tool ran (whatever its status), -1 with `e` set when it could
 * not be started; r->out is then freed. The caller frees r->out.
 */
static int run_tool(const struct jail *j, const char *const argv[], const char *cwd,
                    long timeout_ms, struct run *r, struct err *e)
{
    int log_fd, errp[2];
    pid_t pid;

    memset(r, 0, sizeof *r);
    if ((r->out = malloc(BLD_LOG_CAP + 1)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory running '%s'", argv[0]);
    if (open_channels(&log_fd, errp) < 0) {
        free(r->out);
        r->out = NULL;
        return err_set(e, NULL, 0, 0, "cannot run '%s': %s", argv[0], strerror(errno));
    }
    if ((pid = fork()) == 0)
        jail_keeper(j, argv, cwd, log_fd, errp[1]);
    close(errp[1]);
    if (pid < 0) {
        close(log_fd);
        close(errp[0]);
        free(r->out);
        r->out = NULL;
        return err_set(e, NULL, 0, 0, "cannot run '%s': %s", argv[0], strerror(errno));
    }
    setpgid(pid, pid); /* also here: a timeout may come before the child's */
    jail_track_group(pid);
    if (supervise(pid, log_fd, errp[0], timeout_ms, r, argv[0], e) < 0) {
        jail_track_group(0);
        free(r->out);
        r->out = NULL;
        return -1;
    }
    jail_track_group(0);
    return 0;
}

/* The first BLD_LOG_LINES lines of `s`, plus "(N more lines)". NULL: OOM. */
static char *first_lines(const char *s)
{
    const char *p = s;
    size_t lines = 0, more = 0, keep;
    char *out;

    while (*p && lines < BLD_LOG_LINES) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
        lines++;
    }
    keep = (size_t)(p - s);
    for (const char *q = p; *q; q++)
        more += *q == '\n' || q[1] == '\0';
    if ((out = malloc(keep + 48)) == NULL)
        return NULL;
    memcpy(out, s, keep);
    if (more > 0)
        snprintf(out + keep, 48, "(%zu more lines)\n", more);
    else
        out[keep] = '\0';
    return out;
}

/* 1 when the line at `p` says the tool could not start a process of its
 * own for want of the machine's resources (cc forking cc1, as, ld). */
static int spawn_failed(const char *p, size_t len)
{
    static const char *const verbs[] = {"fork", "spawn", "cannot execute", "clone"};
    static const char *const whys[] = {"Resource temporarily unavailable",
                                       "Cannot allocate memory"};
    char line[512];
    int verb = 0, why = 0;

    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        verb |= strstr(line, verbs[i]) != NULL;
    for (size_t i = 0; i < sizeof whys / sizeof whys[0]; i++)
        why |= strstr(line, whys[i]) != NULL;
    return verb && why;
}

/* The first line of the tool's output that says it could not start a
 * process, or NULL; *len its length. */
static const char *spawn_failure(const struct run *r, size_t *len)
{
    for (size_t at = 0; at < r->len;) {
        const char *eol = memchr(r->out + at, '\n', r->len - at);
        size_t n = eol ? (size_t)(eol - (r->out + at)) : r->len - at;
        if (spawn_failed(r->out + at, n)) {
            *len = n;
            return r->out + at;
        }
        at += n + 1;
    }
    return NULL;
}

/*
 * Whether a finished run failed by the machine's trouble rather than by
 * its input, with why in why[0..n): the wall-clock net fired while the
 * tool's processes had used little CPU (a paused, swapping or overloaded
 * machine: a preprocessor bomb burns CPU), the system killed it before it
 * used its CPU time (the OOM killer): 1; or its output says it could not
 * fork its own processes (the account's process limit, memory): 2, a
 * claim only (the submission writes into that output: `#error`, `#line`,
 * `#pragma message` with a newline), which spawn_works must confirm. 0:
 * the input's.
 */
static int machine_trouble(const struct run *r, const struct budget *b, char *why, size_t n)
{
    double half = (double)b->cpu_s * 500.0;
    const char *line;
    size_t len;

    if (r->timed_out && r->cpu_ms < half) {
        snprintf(why, n, "made no progress in %ld s of the wall clock (%.1f s of CPU time)",
                 (b->wall_ms + 999) / 1000, r->cpu_ms > 0 ? r->cpu_ms / 1e3 : 0.0);
        return 1;
    }
    if (!r->timed_out && WIFSIGNALED(r->status) && WTERMSIG(r->status) == SIGKILL &&
        r->cpu_ms < half) {
        snprintf(why, n, "was killed by the system (SIGKILL) after %.1f s of CPU time",
                 r->cpu_ms / 1e3);
        return 1;
    }
    if (!r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0 &&
        (line = spawn_failure(r, &len)) != NULL) {
        snprintf(why, n, "could not start its own processes (%.*s)",
                 (int)(len < 200 ? len : 200), line);
        return 2;
    }
    return 0;
}

/* Set *log from a finished run: 0 when it succeeded, 1 when it failed.
 * What fails it is the tool's own work: its CPU time, its messages. */
static int judge(const struct run *r, const char *what, const struct budget *b, char **log,
                 struct err *e)
{
    char buf[128];
    int cpu_out = r->cpu_out || r->cpu_ms >= (double)b->cpu_s * 1000.0 ||
                  (WIFSIGNALED(r->status) && WTERMSIG(r->status) == SIGXCPU);

    if (cpu_out) {
        snprintf(buf, sizeof buf, "%s used more than %ld s of CPU time and was stopped\n",
                 what, b->cpu_s);
        *log = strdup(buf);
    } else if (r->timed_out) { /* busy, and more than half its CPU limit spent */
        snprintf(buf, sizeof buf, "%s ran %ld s (%.0f s of CPU time) without finishing and "
                 "was stopped\n", what, (b->wall_ms + 999) / 1000, r->cpu_ms / 1e3);
        *log = strdup(buf);
    } else if (WIFSIGNALED(r->status) && r->len == 0) {
        snprintf(buf, sizeof buf, "%s was killed by signal %d\n", what, WTERMSIG(r->status));
        *log = strdup(buf);
    } else {
        *log = first_lines(r->out);
    }
    if (*log == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    return r->timed_out || cpu_out || !WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0;
}

/*
 * Whether the toolchain can start its processes now: the same tool in the
 * same jail compiles a file of the grader's own (in the jail's writable
 * directory) to an object. The submission writes nothing of it, so its
 * failing is the machine's evidence, and its working proves that a run
 * whose output only said "could not fork" failed by its input (issue 35:
 * only evidence a student cannot write decides). 1 or 0.
 */
static int spawn_works(const struct jail *j, const char *tool, const struct budget *b)
{
    char src[JAIL_PATH_MAX + 32], obj[JAIL_PATH_MAX + 32];
    const char *const argv[] = {tool, "-c", src, "-o", obj, NULL};
    struct err e;
    struct run r;
    FILE *f;
    int ok = 0;

    if (j->n_rw == 0)
        return 0;
    snprintf(src, sizeof src, "%s/attn-spawn-probe.c", j->rw[0]);
    snprintf(obj, sizeof obj, "%s/attn-spawn-probe.o", j->rw[0]);
    if ((f = fopen(src, "w")) == NULL)
        return 0;
    ok = fputs("int grader_spawn_probe;\n", f) >= 0;
    ok = fclose(f) == 0 && ok;
    ok = ok && run_tool(j, argv, j->rw[0], b->wall_ms, &r, &e) == 0;
    if (ok) {
        ok = !r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
        free(r.out);
    }
    unlink(src);
    unlink(obj);
    return ok;
}

/*
 * run_tool, tried once more when the run failed by the machine's trouble
 * (machine_trouble); the second time it is a grader error: -1 with `e`
 * saying so, never a verdict on the submission. A failure to fork that
 * only the tool's output tells of counts when a probe (spawn_works) fails
 * too; when the probe works, the run's failure is the input's.
 */
static int run_tool_twice(const struct jail *j, const char *const argv[], const char *cwd,
                          const struct budget *b, struct run *r, struct err *e)
{
    char why[320];
    int trouble;

    for (int attempt = 0;; attempt++) {
        if (run_tool(j, argv, cwd, b->wall_ms, r, e) < 0)
            return -1;
        if ((trouble = machine_trouble(r, b, why, sizeof why)) == 0 ||
            (trouble == 2 && spawn_works(j, argv[0], b)))
            return 0;
        free(r->out);
        r->out = NULL;
        if (attempt == 1)
            return err_set(e, NULL, 0, 0, "'%s' %s, twice: the machine's trouble, not the "
                           "submission's", argv[0], why);
    }
}

/* Path `dir`/`name` into a new string, or NULL (OOM). */
static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);

    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* `path` made absolute against the current directory (the compiler runs
 * in the scratch directory). NULL when out of memory or no cwd. */
static char *absolute(const char *path)
{
    char *cwd, *p;

    if (path[0] == '/')
        return strdup(path);
    if ((cwd = getcwd(NULL, 0)) == NULL)
        return NULL;
    p = join(cwd, path);
    free(cwd);
    return p;
}

/*
 * Copy `from` to `to`, at most `cap` bytes. Returns 0, 1 when `from` is
 * larger than cap, -1 with `e` set on an I/O error. Copying a file onto
 * itself is a no-op (the caller may have placed it already).
 */
static int copy_file(const char *from, const char *to, size_t cap, struct err *e)
{
    struct stat a, b;
    FILE *in, *out;
    char chunk[8192];
    size_t got, total = 0;
    int rc = 0;

    if (stat(from, &a) == 0 && stat(to, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return a.st_size > (off_t)cap;
    if ((in = fopen(from, "rb")) == NULL)
        return err_set(e, from, 0, 0, "cannot open: %s", strerror(errno));
    if ((out = fopen(to, "wb")) == NULL) {
        fclose(in);
        return err_set(e, to, 0, 0, "cannot create: %s", strerror(errno));
    }
    while (rc == 0 && (got = fread(chunk, 1, sizeof chunk, in)) > 0) {
        total += got;
        if (total > cap)
            rc = 1;
        else if (fwrite(chunk, 1, got, out) != got)
            rc = err_set(e, to, 0, 0, "cannot write: %s", strerror(errno));
    }
    if (rc == 0 && ferror(in))
        rc = err_set(e, from, 0, 0, "cannot read: %s", strerror(errno));
    fclose(in);
    if (fclose(out) != 0 && rc == 0)
        rc = err_set(e, to, 0, 0, "cannot write: %s", strerror(errno));
    return rc;
}

/* Put attention.c and the grader's attention.h into the scratch dir.
 * Returns 0, 1 (source too large, *log set), -1 (e set). */
static int stage(const struct bld_opts *o, const char *src_path, char **log, struct err *e)
{
    char *hdr_in = join(o->data_dir, "include/" ASG_HEADER);
    char *hdr = join(o->scratch_dir, ASG_HEADER);
    char *src = join(o->scratch_dir, ASG_SOURCE);
    int rc = -1;

    if (hdr_in == NULL || hdr == NULL || src == NULL)
        err_set(e, NULL, 0, 0, "out of memory");
    else if (copy_file(hdr_in, hdr, BLD_MAX_SOURCE, e) == 0 &&
             (rc = copy_file(src_path, src, BLD_MAX_SOURCE, e)) == 1) {
        *log = strdup(ASG_SOURCE " is larger than 1 MiB\n");
        rc = *log ? 1 : err_set(e, NULL, 0, 0, "out of memory");
    }
    free(hdr_in);
    free(hdr);
    free(src);
    return rc;
}

/*
 * Keep only the lines of the log that are about the student's own file
 * (they begin with "attention.c:"), each cut at BLD_LOG_LINE_MAX bytes,
 * so that nothing the toolchain read elsewhere (a header, a file named by
 * a directive that slipped past the rules) reaches the student. A count
 * of the lines dropped takes their place. Works in place on r->out.
 */
static void only_student_lines(struct run *r, const char *name)
{
    size_t nl = strlen(name), in = 0, out = 0, dropped = 0;

    while (in < r->len) {
        const char *eol = memchr(r->out + in, '\n', r->len - in);
        size_t len = eol ? (size_t)(eol - (r->out + in)) : r->len - in;
        if (len > nl && memcmp(r->out + in, name, nl) == 0 && r->out[in + nl] == ':') {
            size_t keep = len < BLD_LOG_LINE_MAX ? len : BLD_LOG_LINE_MAX;
            memmove(r->out + out, r->out + in, keep);
            out += keep;
            r->out[out++] = '\n';
        } else if (len > 0) {
            dropped++;
        }
        in += len + 1;
    }
    r->len = out;
    if (dropped > 0)
        r->len += (size_t)snprintf(r->out + out, BLD_LOG_CAP + 1 - out,
                                   "(%zu other line%s not shown)\n", dropped,
                                   dropped == 1 ? "" : "s");
    r->out[r->len] = '\0';
}

/* The compiler's jail: it writes only the scratch directory (and the
 * object's, when a caller puts it elsewhere). */
static int compile_jail(const struct bld_opts *o, const char *obj, struct jail *j,
                        struct err *e)
{
    char dir[JAIL_PATH_MAX];

    jail_dirname(obj, dir, sizeof dir);
    if (jail_init(j, cc_of(o), o->scratch_dir, compile_budget(o).cpu_s, e) < 0)
        return -1;
    return strcmp(dir, o->scratch_dir) == 0 ? 0 : jail_allow_dir(j, dir, e);
}

static int compile_in_jail(const struct bld_opts *o, const char *obj, struct run *r,
                           struct err *e)
{
    const char *argv[N_COMPILE_FLAGS + 6] = {cc_of(o)};
    const char *const tail[] = {"-c", ASG_SOURCE, "-o", obj};
    size_t n = 1;
    struct jail *j = malloc(sizeof *j);
    struct budget b = compile_budget(o);
    int rc;

    for (size_t i = 0; i < N_COMPILE_FLAGS; i++)
        argv[n++] = compile_flags[i];
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        argv[n++] = tail[i];
    if (j == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = compile_jail(o, obj, j, e);
    if (rc == 0)
        rc = run_tool_twice(j, (const char *const *)argv, o->scratch_dir, &b, r, e);
    free(j);
    return rc;
}

int bld_compile(const struct bld_opts *o, const char *src_path, const char *obj_out,
                char **log, struct err *e)
{
    char *obj = NULL;
    struct run r;
    struct budget b;
    int rc;

    *log = NULL;
    if (o->data_dir == NULL || o->scratch_dir == NULL)
        return err_set(e, NULL, 0, 0, "bld_compile needs a data and a scratch directory");
    if ((rc = stage(o, src_path, log, e)) != 0)
        return rc;
    if ((obj = absolute(obj_out)) == NULL)
        return err_set(e, obj_out, 0, 0, "cannot make the path absolute");
    rc = compile_in_jail(o, obj, &r, e);
    free(obj);
    if (rc < 0)
        return -1;
    only_student_lines(&r, ASG_SOURCE);
    b = compile_budget(o);
    rc = judge(&r, "the compiler", &b, log, e);
    free(r.out);
    return rc;
}

/* The linker's jail: it reads the two objects and writes beside the
 * runner (the scratch directory). */
static int link_jail(const struct bld_opts *o, const char *runner_main, const char *obj,
                     const char *runner_out, struct jail *j, struct err *e)
{
    char dir[JAIL_PATH_MAX];

    jail_dirname(runner_out, dir, sizeof dir);
    if (jail_init(j, cc_of(o), dir, tool_budget(o).cpu_s, e) < 0 ||
        jail_allow_file(j, runner_main, e) < 0 || jail_allow_file(j, obj, e) < 0)
        return -1;
    return o->scratch_dir == NULL || strcmp(dir, o->scratch_dir) == 0
               ? 0 : jail_allow_dir(j, o->scratch_dir, e);
}

/* The linker to ask cc for: gold where it is installed, in the jail's
 * PATH (a third less CPU than the default ld for a runner: the link is
 * the grade's largest fixed cost after the compile, docs/PERFORMANCE.md),
 * else cc's own; an option gcc and clang both take. The runner is the
 * same program either way: the object checks read the student's object
 * before the link, not the runner. */
static const char *link_with(void)
{
#if defined(__ELF__) && defined(__linux__)
    if (access("/usr/bin/ld.gold", X_OK) == 0 || access("/bin/ld.gold", X_OK) == 0)
        return "-fuse-ld=gold";
#endif
    return NULL;
}

static int link_in_jail(const struct bld_opts *o, const char *runner_main, const char *obj,
                        const char *runner_out, struct run *r, struct err *e)
{
    const char *const argv[] = {
        cc_of(o), "-o", runner_out, runner_main, obj,
#if defined(GRADER_SECCOMP) && GRADER_SECCOMP
        "-lseccomp",
#endif
        "-lm",
#if defined(__ELF__)   /* options of ELF linkers; Apple's ld has none of them */
        "-Wl,-z,noexecstack", "-Wl,-z,relro", "-Wl,-z,now",
#endif
        link_with(), /* last: NULL ends the list where there is none */
        NULL,
    };
    struct jail *j = malloc(sizeof *j);
    struct budget b = tool_budget(o);
    int rc;

    if (j == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = link_jail(o, runner_main, obj, runner_out, j, e);
    if (rc == 0)
        rc = run_tool_twice(j, argv, NULL, &b, r, e);
    free(j);
    return rc;
}

int bld_link_runner(const struct bld_opts *o, const char *obj, const char *runner_out,
                    char **log, struct err *e)
{
    char *runner_main;
    struct run r;
    struct budget b;
    int rc;

    *log = NULL;
    if (o->data_dir == NULL || (runner_main = join(o->data_dir, "runner_main.o")) == NULL)
        return err_set(e, NULL, 0, 0, "bld_link_runner needs a data directory");
    if (access(runner_main, R_OK) != 0) {
        err_set(e, runner_main, 0, 0, "cannot read: %s", strerror(errno));
        free(runner_main);
        return -1;
    }
    rc = link_in_jail(o, runner_main, obj, runner_out, &r, e);
    free(runner_main);
    if (rc < 0)
        return -1;
    b = tool_budget(o);
    rc = judge(&r, "the linker", &b, log, e);
    free(r.out);
    return rc;
}

static void free_args(char **argv, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    free(argv);
}

/* Append a copy of "<prefix><a><b>" to argv. Returns 0, -1 (OOM). */
static int add_arg(char **argv, size_t *n, const char *prefix, const char *a, const char *b)
{
    size_t len = strlen(prefix) + strlen(a) + strlen(b) + 1;

    if ((argv[*n] = malloc(len)) == NULL)
        return -1;
    snprintf(argv[*n], len, "%s%s%s", prefix, a, b);
    (*n)++;
    return 0;
}

/* Mach-O spells a C symbol with a leading '_' (llvm-objcopy on macOS). */
#ifdef __APPLE__
#define SYM_PREFIX "_"
#else
#define SYM_PREFIX ""
#endif

/*
 * objcopy's argument vector: rename the allocator, and keep only the
 * assignment's API names global (--keep-global-symbol), which localises every other
 * defined global -- helpers, a student's own `main` or `malloc` (renamed
 * first) -- however many there are: listing each helper instead overflowed
 * ARG_MAX with a few thousand long names. Undefined symbols stay as they
 * are. Of rep only the rejections matter here (checked by the caller).
 */
static char **objcopy_argv(const char *in, const char *out, size_t *n)
{
    size_t cap = 4 + N_REDEFINED + ASG_FN_COUNT;
    char **argv = calloc(cap, sizeof *argv);
    const char *tool = getenv("OBJCOPY");
    int bad = argv == NULL;

    *n = 0;
    bad = bad || add_arg(argv, n, tool && *tool ? tool : "objcopy", "", "");
    for (size_t i = 0; i < N_REDEFINED && !bad; i++) {
        char pair[64];
        snprintf(pair, sizeof pair, SYM_PREFIX "%s=" SYM_PREFIX "%s", redefined[i][0],
                 redefined[i][1]);
        bad = add_arg(argv, n, "--redefine-sym=", pair, "");
    }
    for (size_t i = 0; i < ASG_FN_COUNT && !bad; i++)
        bad = add_arg(argv, n, "--keep-global-symbol=" SYM_PREFIX,
                      asg_fn_cname((enum asg_fn)i), "");
    bad = bad || add_arg(argv, n, in, "", "") || add_arg(argv, n, out, "", "");
    if (bad && argv != NULL) {
        free_args(argv, *n);
        return NULL;
    }
    return argv;
}

/* objcopy's jail: it reads the object and writes beside the output. */
static int objcopy_in_jail(const char *obj_in, const char *obj_out, char **argv,
                           struct run *r, struct err *e)
{
    char dir[JAIL_PATH_MAX];
    struct jail *j = malloc(sizeof *j);
    int rc;

    if (j == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    jail_dirname(obj_out, dir, sizeof dir);
    rc = jail_init(j, argv[0], dir, BLD_TIMEOUT_MS / 1000, e) < 0 ||
                 jail_allow_file(j, obj_in, e) < 0
             ? -1
             : run_tool(j, (const char *const *)argv, NULL, BLD_TIMEOUT_MS, r, e);
    free(j);
    return rc;
}

int bld_prepare_object(const char *obj_in, const char *obj_out, const struct obj_report *rep,
                       struct err *e)
{
    size_t n;
    char **argv;
    struct run r;
    int rc;

    if (rep->n_rejections > 0 || rep->n_rejections_dropped > 0)
        return err_set(e, obj_in, 0, 0, "refusing to prepare a rejected object");
    if ((argv = objcopy_argv(obj_in, obj_out, &n)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    rc = objcopy_in_jail(obj_in, obj_out, argv, &r, e);
    if (rc == 0 && (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)) {
        char *nl = strchr(r.out, '\n');
        if (nl != NULL)
            *nl = '\0';
        rc = err_set(e, obj_in, 0, 0, "'%s' failed: %s", argv[0],
                     r.timed_out ? "timed out" : r.out);
    }
    free(r.out);
    free_args(argv, n);
    return rc;
}

/* The compiler's file into the hash: its resolved and real paths and
 * that file's identity (an upgraded compiler is another file). */
static void hash_compiler(struct sha256_ctx *c, const char *exe)
{
    char real[PATH_MAX], line[PATH_MAX + 160];
    struct stat st;

    memset(&st, 0, sizeof st);
    if (realpath(exe, real) == NULL)
        snprintf(real, sizeof real, "%s", exe);
    stat(real, &st);
    /* st_mtime: POSIX (macOS has no st_mtim) */
    snprintf(line, sizeof line, "compiler %s\nreal %s\nfile %ju %ju %jd %jd\n", exe, real,
             (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
             (intmax_t)st.st_mtime);
    sha256_update(c, line, strlen(line));
}

/* `<cc> --version` in its jail, its output into the hash. */
static int hash_version(const struct bld_opts *o, struct jail *j, struct sha256_ctx *c,
                        struct err *e)
{
    const char *const argv[] = {cc_of(o), "--version", NULL};
    struct run r;

    if (run_tool(j, argv, NULL, BLD_TIMEOUT_MS, &r, e) < 0)
        return -1;
    if (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
        free(r.out);
        return err_set(e, NULL, 0, 0, "'%s --version' failed", cc_of(o));
    }
    sha256_update(c, r.out, r.len);
    free(r.out);
    return 0;
}

int bld_toolchain_id(const struct bld_opts *o, char hex[SHA256_HEX_LEN], struct err *e)
{
    unsigned char digest[SHA256_DIGEST_LEN];
    char header_sha[SHA256_HEX_LEN], *hdr = NULL;
    struct sha256_ctx c;
    struct jail *j = malloc(sizeof *j);
    int rc = j == NULL ? err_set(e, NULL, 0, 0, "out of memory") : 0;

    if (rc == 0 && (o->data_dir == NULL || o->scratch_dir == NULL))
        rc = err_set(e, NULL, 0, 0, "bld_toolchain_id needs a data and a scratch directory");
    if (rc == 0 && (hdr = join(o->data_dir, "include/" ASG_HEADER)) == NULL)
        rc = err_set(e, NULL, 0, 0, "out of memory");
    if (rc == 0)
        rc = sha256_file(hdr, header_sha, e);
    sha256_init(&c);
    if (rc == 0)
        rc = jail_init(j, cc_of(o), o->scratch_dir, tool_budget(o).cpu_s, e);
    if (rc == 0) {
        hash_compiler(&c, j->exe);
        rc = hash_version(o, j, &c, e);
    }
    for (size_t i = 0; rc == 0 && i < N_COMPILE_FLAGS; i++)
        sha256_update(&c, compile_flags[i], strlen(compile_flags[i]) + 1);
    if (rc == 0) {
        sha256_update(&c, "header ", 7);
        sha256_update(&c, header_sha, strlen(header_sha));
        sha256_final(&c, digest);
        sha256_to_hex(digest, hex);
    }
    free(hdr);
    free(j);
    return rc;
}
