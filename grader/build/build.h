/*
 * build.h -- compiling a submission and linking it into the runner.
 *
 * The order of work for one submission:
 *     bld_compile        attention.c -> attention.o (against the grader's header)
 *     obj_check          (objcheck.h) static checks; stop if rejected
 *     bld_prepare_object redirect malloc & co to the grader's accounting,
 *                        make every non-API global symbol local
 *     bld_link_runner    runner_main.o + the prepared object -> runner
 *
 * Tools are run with fork/execvp (never a shell), in their own process
 * group, with LC_ALL=C (stable messages), stdout and stderr captured into a
 * buffer capped at BLD_LOG_CAP bytes, and killed (SIGKILL to the group)
 * after the time limit. What fails a submission is the tools' own work:
 * their CPU time (RLIMIT_CPU of each process, BLD_COMPILE_CPU_S for the
 * compiler) and their messages. A run that fails by the machine's trouble
 * -- the wall-clock net with little CPU spent (a paused or overloaded
 * machine), a SIGKILL from the system, a tool that cannot fork its own
 * processes -- is tried once more, then reported as a grader error (-1),
 * never as a compile error. The compiler is o->cc, else $CC, else "cc"; objcopy
 * is $OBJCOPY, else "objcopy". Each is one program name or path: it is not
 * split into words, so CC="ccache gcc" is not supported.
 */
#ifndef GRD_BUILD_H
#define GRD_BUILD_H

#include "core/err.h"
#include "build/objcheck.h"
#include "core/sha256.h"

#define BLD_TIMEOUT_MS 30000L    /* default limit per tool run */
#define BLD_LOG_CAP (64u << 10)  /* captured tool output; the rest is dropped */
#define BLD_LOG_LINES 20         /* lines of tool output kept in a log */
#define BLD_LOG_LINE_MAX 240     /* bytes kept of one compiler message */
#define BLD_COMPILE_CPU_S 10L     /* CPU time of each compiler process: the verdict */
#define BLD_COMPILE_WALL_MS 60000L /* wall-clock net of a compile (no progress) */
#define BLD_MAX_SOURCE (1u << 20) /* a larger attention.c is a compile error */

struct bld_opts {
    const char *data_dir;    /* holds include/attention.h and runner_main.o */
    const char *scratch_dir; /* existing directory private to this submission:
                                bld_compile writes attention.c and attention.h
                                there and compiles in it */
    const char *cc;          /* NULL: $CC, else "cc" */
    long timeout_ms;         /* wall-clock net per tool run; 0: BLD_COMPILE_WALL_MS
                                for the compile, BLD_TIMEOUT_MS for the rest */
    long cpu_s;              /* CPU time of each compiler process; 0:
                                BLD_COMPILE_CPU_S (tests set less) */
};

/*
 * Compile the submission's source `src_path` into the object `obj_out`.
 * The source is copied to <scratch_dir>/attention.c beside a copy of the
 * grader's <data_dir>/include/attention.h, and compiled there with
 *     $CC -std=c11 -O2 -g0 -fPIE -fno-common -Wall -Wextra -c attention.c
 * so `#include "attention.h"` always means the grader's header (an edited
 * header next to the submission is never seen). -fPIE because the runner
 * is linked as the compiler's default, which is PIE on Debian and Ubuntu.
 *
 * Returns 0 when it compiled (*log holds the compiler's warnings, maybe
 * ""), 1 when the submission did not compile (*log holds the first
 * BLD_LOG_LINES lines of the errors, or why: too large, more than
 * BLD_COMPILE_CPU_S of CPU time), -1 on a grader error with `e` set and
 * *log NULL ("cannot run 'cc': ...", missing header, unreadable source,
 * the machine's trouble twice). *log is owned by the caller (free()). On
 * failure obj_out may exist in an unspecified state.
 */
int bld_compile(const struct bld_opts *o, const char *src_path, const char *obj_out,
                char **log, struct err *e) __attribute__((warn_unused_result));

/*
 * Link <data_dir>/runner_main.o with `obj` (a prepared object) into the
 * executable `runner_out`:
 *     $CC -o runner_out runner_main.o obj [-lseccomp] -lm -Wl,-z,...
 * (-lseccomp when built with GRADER_SECCOMP; -z noexecstack, relro, now).
 * Returns 0 (linked; *log holds any output), 1 when the link failed (*log
 * holds the first lines of the errors), -1 on a grader error with `e` set
 * and *log NULL. *log is owned by the caller.
 */
int bld_link_runner(const struct bld_opts *o, const char *obj, const char *runner_out,
                    char **log, struct err *e) __attribute__((warn_unused_result));

/*
 * Rewrite the object `obj_in` into `obj_out` (they may be the same path)
 * with objcopy: malloc, calloc, realloc and free become grd_malloc,
 * grd_calloc, grd_realloc and grd_free (defined by runner_main.o), and
 * every defined global but the six attn_* API functions becomes local
 * (--keep-global-symbol; rep->localise names them for the warnings), so
 * that a student's `main`, `memcmp` or global helper can interpose on
 * nothing. `rep` must come from
 * obj_check on obj_in and hold no rejection (fail closed: -1 otherwise).
 * Returns 0, or -1 with `e` set (objcopy missing or failing).
 */
int bld_prepare_object(const char *obj_in, const char *obj_out, const struct obj_report *rep,
                       struct err *e) __attribute__((warn_unused_result));

/*
 * The toolchain's id into hex: SHA-256 over the compiler as the jail
 * resolves it (o->cc, $CC or "cc" on the grader's PATH), its real path,
 * that file's device, inode, size and modification time, the output of
 * `<cc> --version`, the compile's flags, and the bytes of
 * <data_dir>/include/attention.h. o->scratch_dir is where `--version`
 * runs. Returns 0, or -1 with `e` set (no compiler, a failing --version,
 * no header).
 */
int bld_toolchain_id(const struct bld_opts *o, char hex[SHA256_HEX_LEN], struct err *e)
    __attribute__((warn_unused_result));

#endif
