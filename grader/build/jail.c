/* jail.c -- see jail.h. */
#include "build/jail.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/compat.h"
#include "core/rlim.h"
#include "core/util.h"
#if CPT_LINUX
#include <sys/syscall.h>
#endif

/* Landlock's ABI, spelt out: the system's <linux/landlock.h> may be older
 * than the kernel (Debian 12 ships ABI 3's), and the ABI is stable. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ull << 0)
#define LL_FS_WRITE_FILE (1ull << 1)
#define LL_FS_READ_FILE (1ull << 2)
#define LL_FS_READ_DIR (1ull << 3)
#define LL_FS_REMOVE_DIR (1ull << 4)
#define LL_FS_REMOVE_FILE (1ull << 5)
#define LL_FS_MAKE_DIR (1ull << 7)
#define LL_FS_MAKE_REG (1ull << 8)
#define LL_FS_ABI1 ((1ull << 13) - 1)   /* EXECUTE .. MAKE_SYM */
#define LL_FS_REFER (1ull << 13)        /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14)     /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ull << 15)    /* ABI 5 */
#define LL_NET_TCP ((1ull << 0) | (1ull << 1)) /* bind, connect: ABI 4 */
#define LL_SCOPE_ALL ((1ull << 0) | (1ull << 1)) /* abstract unix, signal: ABI 6 */

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* The kernel's Landlock ABI, or -1 without one (and in the portable
 * build, whose jail is reduced to rlimits, a clean environment and its
 * own process group). */
static long ll_abi(void)
{
#if CPT_LINUX
    return syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int jail_probe(char *why, size_t n)
{
    long abi = ll_abi();

    if (abi >= 1)
        return (int)abi;
    snprintf(why, n, "%s", errno == EOPNOTSUPP ? "Landlock is not enabled in this kernel"
                           : errno == ENOSYS   ? "this kernel has no Landlock"
                                               : strerror(errno));
    return 0;
}

/* ---- building the jail (parent side) ---------------------------------- */

static int copy_path(char *dst, const char *src, struct err *e)
{
    if (snprintf(dst, JAIL_PATH_MAX, "%s", src) >= JAIL_PATH_MAX)
        return err_set(e, NULL, 0, 0, "path too long for the toolchain's jail");
    return 0;
}

/* `path` made absolute against the current directory into dst. */
static int absolute(char *dst, const char *path, struct err *e)
{
    char cwd[JAIL_PATH_MAX];

    if (path[0] == '/')
        return copy_path(dst, path, e);
    if (getcwd(cwd, sizeof cwd) == NULL)
        return err_set(e, NULL, 0, 0, "cannot find the current directory: %s",
                       strerror(errno));
    if (snprintf(dst, JAIL_PATH_MAX, "%s/%s", cwd, path) >= JAIL_PATH_MAX)
        return err_set(e, NULL, 0, 0, "path too long for the toolchain's jail");
    return 0;
}

/* The tool's absolute path: as given when it has a '/', else the first
 * executable of that name on the grader's PATH (the jail's own PATH is
 * minimal, so the lookup happens here). */
static int find_tool(char *dst, const char *tool, struct err *e)
{
    const char *path = getenv("PATH");

    if (strchr(tool, '/') != NULL)
        return absolute(dst, tool, e);
    for (const char *p = path && *path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        if (len > 0 && snprintf(dst, JAIL_PATH_MAX, "%.*s/%s", (int)len, p, tool) <
                           JAIL_PATH_MAX &&
            access(dst, X_OK) == 0)
            return dst[0] == '/' ? 0 : absolute(dst, dst, e);
        p += len + (p[len] == ':');
    }
    return err_set(e, NULL, 0, 0, "cannot run '%s': %s", tool, strerror(ENOENT));
}

/*
 * RLIMIT_NPROC counts every task of the user, so a fixed value lets the
 * account's other processes decide whether cc can fork cc1: the limit is
 * JAIL_NPROC above what the account runs now, at most the hard limit.
 * When the hard limit leaves the toolchain fewer than JAIL_NPROC_MIN, the
 * compile cannot work and it is the machine's trouble, said as such.
 * Root is not bound by it (the kernel exempts it).
 */
static rlim_t nproc_of(long *tasks)
{
    *tasks = rlim_user_tasks(getuid());
    return rlim_within(RLIMIT_NPROC, *tasks < 0 ? JAIL_NPROC : (rlim_t)*tasks + JAIL_NPROC);
}

static int nproc_limit(struct jail *j, struct err *e)
{
    long tasks;

    j->nproc = nproc_of(&tasks);
    j->nproc_tasks = tasks;
    if (geteuid() == 0 || tasks < 0 || j->nproc >= (rlim_t)tasks + JAIL_NPROC_MIN)
        return 0;
    return err_set(e, NULL, 0, 0, "the grading account runs %ld processes and may run "
                   "%llu (hard limit): too few are left for the compiler (it needs %d)",
                   tasks, (unsigned long long)j->nproc, JAIL_NPROC_MIN);
}

int jail_init(struct jail *j, const char *tool, const char *tmpdir, long cpu_s,
              struct err *e)
{
    static char path[] = "PATH=/usr/bin:/bin";
    static char lc_all[] = "LC_ALL=C";

    memset(j, 0, sizeof *j);
    j->cpu_s = cpu_s > 0 ? cpu_s : 1;
    if (find_tool(j->exe, tool, e) < 0 || jail_allow_dir(j, tmpdir, e) < 0 ||
        nproc_limit(j, e) < 0)
        return -1;
    snprintf(j->env_tmpdir, sizeof j->env_tmpdir, "TMPDIR=%s", j->rw[0]);
    j->env[0] = path;
    j->env[1] = lc_all;
    j->env[2] = j->env_tmpdir;
    j->env[3] = NULL;
    return 0;
}

int jail_allow_dir(struct jail *j, const char *dir, struct err *e)
{
    if (j->n_rw == JAIL_MAX_PATHS)
        return err_set(e, NULL, 0, 0, "too many directories for the toolchain's jail");
    if (absolute(j->rw[j->n_rw], dir, e) < 0)
        return -1;
    j->n_rw++;
    return 0;
}

int jail_allow_file(struct jail *j, const char *file, struct err *e)
{
    if (j->n_ro == JAIL_MAX_PATHS)
        return err_set(e, NULL, 0, 0, "too many files for the toolchain's jail");
    if (absolute(j->ro[j->n_ro], file, e) < 0)
        return -1;
    j->n_ro++;
    return 0;
}

void jail_dirname(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        snprintf(buf, n, ".");
    else if (slash == path)
        snprintf(buf, n, "/");
    else
        snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

#if CPT_LINUX
/* ---- entering the jail (in the tool, before exec) ---------------------- */

static uint64_t fs_handled(long abi)
{
    uint64_t fs = LL_FS_ABI1;

    if (abi >= 2)
        fs |= LL_FS_REFER;
    if (abi >= 3)
        fs |= LL_FS_TRUNCATE;
    if (abi >= 5)
        fs |= LL_FS_IOCTL_DEV;
    return fs;
}

/* The attribute's size tells the kernel which fields we know. */
static size_t attr_size(long abi)
{
    if (abi >= 6)
        return sizeof(struct ll_ruleset_attr);
    return abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
}

/* Allow `access` beneath `path`. A missing optional path is skipped; any
 * other failure is an error (errno set). */
static int add_rule(int ruleset, const char *path, uint64_t access, int optional)
{
    struct ll_path_beneath_attr pb;
    int fd = open(path, O_PATH | O_CLOEXEC);
    long rc;

    if (fd < 0)
        return optional && (errno == ENOENT || errno == ENOTDIR) ? 0 : -1;
    pb.allowed_access = access;
    pb.parent_fd = fd;
    rc = syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0);
    close(fd);
    return rc < 0 ? -1 : 0;
}

static int add_rules(int rs, const struct jail *j, uint64_t handled)
{
    static const char *const sys_dirs[] = {JAIL_SYSTEM_DIRS};
    static const char *const sys_files[] = {JAIL_SYSTEM_FILES};
    const uint64_t rx = LL_FS_READ_FILE | LL_FS_EXECUTE;
    const uint64_t rw = (LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_WRITE_FILE |
                         LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR |
                         LL_FS_MAKE_REG | LL_FS_TRUNCATE) & handled;

    for (size_t i = 0; i < sizeof sys_dirs / sizeof sys_dirs[0]; i++)
        if (add_rule(rs, sys_dirs[i], rx | LL_FS_READ_DIR, 1) < 0)
            return -1;
    for (size_t i = 0; i < sizeof sys_files / sizeof sys_files[0]; i++)
        if (add_rule(rs, sys_files[i], LL_FS_READ_FILE, 1) < 0)
            return -1;
    if (add_rule(rs, j->exe, rx, 0) < 0)
        return -1;
    for (size_t i = 0; i < j->n_ro; i++)
        if (add_rule(rs, j->ro[i], LL_FS_READ_FILE, 0) < 0)
            return -1;
    for (size_t i = 0; i < j->n_rw; i++)
        if (add_rule(rs, j->rw[i], rw, 0) < 0)
            return -1;
    return 0;
}

/* Confine this process with Landlock; 0 (also when the kernel has none:
 * the CLI warned), -1 with errno set. */
static int landlock(const struct jail *j)
{
    long abi = ll_abi();
    struct ll_ruleset_attr attr = {fs_handled(abi), abi >= 4 ? LL_NET_TCP : 0,
                                   abi >= 6 ? LL_SCOPE_ALL : 0};
    int rs, rc, err;

    if (abi < 1)
        return 0;
    rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size(abi), 0);
    if (rs < 0)
        return -1;
    rc = add_rules(rs, j, attr.handled_access_fs);
    if (rc == 0 && syscall(SYS_landlock_restrict_self, rs, 0) < 0)
        rc = -1;
    err = errno;
    close(rs);
    errno = err;
    return rc;
}

#else
static int landlock(const struct jail *j)
{
    (void)j;
    return 0;
}
#endif

/* Every limit within the hard one (rlim.h): an account with a lower hard
 * limit gets that, not EPERM and a compile that never runs. */
static int apply_limits(const struct jail *j)
{
    /* The hard CPU limit one second above the soft: SIGXCPU first. */
    if (rlim_lower(RLIMIT_AS, JAIL_AS_BYTES, JAIL_AS_BYTES) < 0 ||
        rlim_lower(RLIMIT_FSIZE, JAIL_FSIZE_BYTES, JAIL_FSIZE_BYTES) < 0 ||
        rlim_lower(RLIMIT_NOFILE, JAIL_NOFILE, JAIL_NOFILE) < 0 ||
        rlim_lower(RLIMIT_CORE, 0, 0) < 0 ||
        rlim_lower(RLIMIT_CPU, (rlim_t)j->cpu_s, (rlim_t)j->cpu_s + 1) < 0)
        return -1;
    return rlim_lower(RLIMIT_NPROC, j->nproc, j->nproc);
}

/* "N (the hard limit)" or "N" for resource r wanted at `want`. */
static const char *taken(int r, rlim_t want, int mib, char *buf, size_t n)
{
    char v[32];

    snprintf(buf, n, "%s%s", rlim_text(rlim_within(r, want), mib, v, sizeof v),
             rlim_is_capped(r, want) ? " (the hard limit)" : "");
    return buf;
}

void jail_describe(long cpu_s, char *buf, size_t n)
{
    char as[48], fs[48], nf[48], np[32], why[96];
    long tasks;
    rlim_t nproc = nproc_of(&tasks);

    if (tasks < 0)
        snprintf(why, sizeof why, "%s", rlim_is_capped(RLIMIT_NPROC, JAIL_NPROC)
                                            ? " (the hard limit)" : "");
    else if (nproc < (rlim_t)tasks + JAIL_NPROC)
        snprintf(why, sizeof why, " (the hard limit; the account runs %ld)", tasks);
    else
        snprintf(why, sizeof why, " (%d above the account's %ld)", JAIL_NPROC, tasks);
    snprintf(buf, n, "address space %s, file size %s, open files %s, processes %s%s, "
             "CPU %ld s per process", taken(RLIMIT_AS, JAIL_AS_BYTES, 1, as, sizeof as),
             taken(RLIMIT_FSIZE, JAIL_FSIZE_BYTES, 1, fs, sizeof fs),
             taken(RLIMIT_NOFILE, JAIL_NOFILE, 0, nf, sizeof nf),
             rlim_text(nproc, 0, np, sizeof np), why, cpu_s);
}

#if CPT_LINUX
/* The CPU time (ticks) of process `pid` and its reaped children, when it
 * is in process group `pgid`; else 0. */
static long long member_ticks(const char *pid, pid_t pgid)
{
    char path[64], line[1024];
    long long t = 0;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    if ((f = fopen(path, "re")) == NULL)
        return 0;
    if (fgets(line, sizeof line, f) != NULL && ut_stat_field(line, 5) == (long long)pgid)
        for (int k = 14; k <= 17; k++)   /* utime stime cutime cstime */
            t += ut_stat_field(line, k) > 0 ? ut_stat_field(line, k) : 0;
    fclose(f);
    return t;
}
#endif

double jail_group_cpu_ms(pid_t pgid)
{
#if CPT_LINUX
    DIR *d = opendir("/proc");
    struct dirent *de;
    long long ticks = 0;
    long hz = sysconf(_SC_CLK_TCK);

    if (d == NULL || hz <= 0) {
        if (d != NULL)
            closedir(d);
        return -1;
    }
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
            ticks += member_ticks(de->d_name, pgid);
    closedir(d);
    return (double)ticks * 1000.0 / (double)hz;
#else
    (void)pgid;
    return -1;
#endif
}

/* In the tool: everything of the jail, then exec. Only returns on error. */
static void tool_exec(const struct jail *j, const char *const argv[], const char *cwd,
                      int out_fd, int err_fd)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int err;

    if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 ||
        dup2(out_fd, STDOUT_FILENO) < 0 || dup2(out_fd, STDERR_FILENO) < 0 ||
        (cwd != NULL && chdir(cwd) < 0) || apply_limits(j) < 0 ||
        cpt_no_new_privs() < 0 || landlock(j) < 0) {
        err = errno;
    } else {
        execve(j->exe, (char *const *)argv, j->env);
        err = errno;
    }
    if (write(err_fd, &err, sizeof err) < 0)
        _exit(126);
    _exit(127);
}

/* The keeper's answer to the grader's death: end the whole group. */
static void on_grader_death(int sig)
{
    (void)sig;
    kill(0, SIGKILL);
}

/* Leave the way the tool left. */
static void mirror(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        sigset_t set;
        signal(sig, SIG_DFL);
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

void jail_keeper(const struct jail *j, const char *const argv[], const char *cwd,
                 int out_fd, int err_fd)
{
    pid_t grader = getppid(), tool;
    struct sigaction sa;
    int status = 0, err;

    setpgid(0, 0);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_grader_death;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    rlim_lower(RLIMIT_CORE, 0, 0);
    /* If the grader died before the prctl, no signal would come. */
    if (cpt_parent_death_signal(SIGUSR1) < 0 || getppid() != grader)
        kill(0, SIGKILL);
    if ((tool = fork()) == 0)
        tool_exec(j, argv, cwd, out_fd, err_fd);
    err = errno;
    close(out_fd);
    if (tool < 0) {
        if (write(err_fd, &err, sizeof err) < 0)
            _exit(126);
        _exit(127);
    }
    while (waitpid(tool, &status, 0) < 0 && errno == EINTR)
        ;
    mirror(status);
    _exit(127);
}

/* ---- cleanup on a stopping signal -------------------------------------- */

/*
 * Process-wide on purpose: a signal handler can reach only globals, and
 * the grader runs one tool and owns one scratch directory at a time. The
 * path is written only while `scratch_set` is 0, so the handler never
 * reads a half-written one.
 */
static volatile sig_atomic_t tracked_group;
static volatile sig_atomic_t scratch_set;
static char scratch_path[JAIL_PATH_MAX];

#if CPT_LINUX
struct dirent64_raw {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static int is_dot(const char *n)
{
    return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}
#endif

/* Remove what directory `fd` holds, `depth` levels of subdirectories
 * deep, with raw system calls only (this runs in a signal handler). */
static void empty_dir(int fd, int depth)
{
#if CPT_LINUX
    char buf[4096];
    long got;

    while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < got;) {
            struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
            off += d->d_reclen;
            if (is_dot(d->d_name) || unlinkat(fd, d->d_name, 0) == 0 || depth == 0)
                continue;
            int sub = openat(fd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                empty_dir(sub, depth - 1);
                close(sub);
                unlinkat(fd, d->d_name, AT_REMOVEDIR);
            }
        }
    }
#else
    /* No raw directory reads here: the scratch directory stays behind
     * when the grader is interrupted (the reduced portable build). */
    (void)fd;
    (void)depth;
#endif
}

static void on_stop(int sig)
{
    pid_t g = tracked_group;

    if (g > 0)
        kill(-g, SIGKILL);
    if (scratch_set) {
        int fd = open(scratch_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            empty_dir(fd, 2);
            close(fd);
            rmdir(scratch_path);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);           /* delivered when the handler returns */
}

void jail_cleanup_install(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < 3; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    for (size_t i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, NULL);
}

void jail_track_scratch(const char *dir)
{
    scratch_set = 0;
    if (dir != NULL && snprintf(scratch_path, sizeof scratch_path, "%s", dir) <
                           (int)sizeof scratch_path)
        scratch_set = 1;
}

void jail_track_group(pid_t pgid)
{
    tracked_group = pgid;
}
