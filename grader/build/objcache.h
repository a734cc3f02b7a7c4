/*
 * objcache.h -- a submission's compiled object kept for a regrade.
 *
 * `grader batch` keeps each submission's object (the compiler's output,
 * before the object checks and the objcopy rewrite) in the submission's
 * output folder, which is the TA's:
 *     <out>/<id>/compile.o     the object's bytes
 *     <out>/<id>/compile.key   "attention-grader object 1\n"
 *                              "key <hex>\nobject <hex>\n"
 * The key is SHA-256 over everything the compile depends on: the
 * toolchain's id (bld_toolchain_id, build.h: the compiler's resolved path, its
 * file's identity, its `--version`, the flags, the grader's header), the
 * source rules of the specs, the grader's version, and the bytes of the
 * source that was checked and compiled. A regrade reuses the object only
 * when the key file names the same key and the object's bytes hash to
 * the recorded value; anything else (no key, another key, a damaged,
 * missing or replaced object, a link in place of either file) compiles
 * afresh. A reused object goes through the same object checks, rewrite
 * and link as a fresh one: the cache saves the compile, nothing else.
 *
 * Nothing a student controls is read: the folder is the batch's output
 * folder under the entry's safe id (batch.h), both files are opened
 * without following a link, and both are written atomically (the object
 * first, the key last: the key commits). They are not synced to disk: a
 * power loss that empties or loses one costs a compile (the hashes see
 * it), where a sync would cost every submission milliseconds of a busy
 * disk.
 */
#ifndef GRD_OBJCACHE_H
#define GRD_OBJCACHE_H

#include <stddef.h>

#include "build/build.h"
#include "core/err.h"
#include "core/sha256.h"
#include "spec/spec.h"

#define BLD_CACHE_OBJECT "compile.o"
#define BLD_CACHE_KEY "compile.key"
#define BLD_CACHE_MAX_OBJECT (64u << 20) /* JAIL_FSIZE_BYTES: no larger object */

/*
 * The environment part of the key into env: SHA-256 over `toolchain`
 * (bld_toolchain_id), every source rule of `specs` (may be NULL: none)
 * and the grader's `version`.
 */
void bld_cache_env(const char *toolchain, const struct spec_set *specs, const char *version,
                   char env[SHA256_HEX_LEN]);

/* The key of one source: SHA-256 over env and the source's n bytes. */
void bld_cache_key(const char *env, const void *src, size_t n, char key[SHA256_HEX_LEN]);

/*
 * The regular file dir/name, opened without following a link, of at most
 * `cap` bytes, into a new NUL-terminated buffer (*n bytes; the caller
 * frees it). NULL when it is missing, a link or not a regular file,
 * larger, unreadable, changed while read, or memory runs out. What reads
 * a file the batch kept in the TA's folder (grade/grade_keep.h too).
 */
char *bld_cache_read(const char *dir, const char *name, size_t cap, size_t *n);

/*
 * Copy the kept object of `dir` to `obj_out` when its key file names
 * `key` and its bytes hash to the value the key file records. Returns 1
 * (obj_out written), 0 when there is nothing to reuse (obj_out not
 * touched), -1 with `e` set when obj_out could not be written.
 */
int bld_cache_load(const char *dir, const char *key, const char *obj_out, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Copy the kept object of folder `from` into folder `to` (`grader merge`
 * carrying a shard's kept objects): when from's key file is of our form
 * and from's object hashes to the value it records -- the checks
 * bld_cache_load makes, the key aside, which only a regrade can compute
 * -- the checked bytes are written to `to` (object first, key last) and
 * 1 is returned; otherwise to's kept pair is removed and 0 returned.
 * -1 with `e` set when `to` could not be written (it then holds no key).
 */
int bld_cache_copy(const char *from, const char *to, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Keep the object `obj` in `dir` under `key` (atomically, the key file
 * last). Returns 0, or -1 with `e` set (unreadable object, a write that
 * failed: the folder then holds no key for it).
 */
int bld_cache_store(const char *dir, const char *key, const char *obj, struct err *e)
    __attribute__((warn_unused_result));

#endif
