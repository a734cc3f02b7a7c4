/*
 * batch_key.c -- see batch.h: the resume key of an entry, over every file
 * its grading reads: attention.c, answers.yaml beside it, and the VECTORS
 * files answers.yaml names. Each is checked (lstat: a regular file inside
 * the submission's folder, at most BAT_SOURCE_MAX bytes) and opened
 * without following a link before a byte of it is read; a file that may
 * not be read enters the key as its refusal, so that the key changes when
 * it does, and the grader's worker gives the verdict.
 */
#include "assign/assign.h"
#include "batch/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sha256.h"
#include "core/util.h"
#include "selfcheck/answers.h"

#define KEY_MAGIC "attention-grader inputs 1\n"

/*
 * Read the regular file `path` (not a link) of at most `cap` bytes into a
 * new buffer. Returns 1 (*buf, *n set; free *buf), 0 when it may not be
 * read (`why` says how it looks: kind, or size and time), -1 when out of
 * memory. A FIFO or device is never opened for reading.
 */
static int read_capped(const char *path, size_t cap, char **buf, size_t *n, char *why,
                       size_t wn)
{
    struct stat st;
    ssize_t k = 0;
    int fd;

    *buf = NULL;
    if (lstat(path, &st) < 0)
        return snprintf(why, wn, "absent"), 0;
    if (!S_ISREG(st.st_mode) || (uintmax_t)st.st_size > cap)
        return snprintf(why, wn, "refused %o %ju %jd.%09ld", (unsigned)st.st_mode,
                        (uintmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
                        st.st_mtim.tv_nsec), 0;
    if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
        return snprintf(why, wn, "unreadable %d", errno), 0;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uintmax_t)st.st_size > cap) {
        close(fd);
        return snprintf(why, wn, "changed"), 0;
    }
    if ((*buf = malloc(cap + 1)) == NULL) {
        close(fd);
        return -1;
    }
    for (*n = 0; *n <= cap && (k = read(fd, *buf + *n, cap + 1 - *n)) > 0;)
        *n += (size_t)k;
    close(fd);
    if (k < 0 || *n > cap) {
        free(*buf);
        *buf = NULL;
        return snprintf(why, wn, "unreadable"), 0;
    }
    return 1;
}

/* One file into the key: its label, then its bytes' hash or its refusal.
 * With `keep`, the bytes are handed back (free them); else freed. */
static int key_file(struct sha256_ctx *c, const char *label, const char *path,
                    char hex[SHA256_HEX_LEN], char **keep, size_t *kn)
{
    char why[128] = "", *buf;
    size_t n = 0;
    int rc = read_capped(path, BAT_SOURCE_MAX, &buf, &n, why, sizeof why);

    if (rc < 0)
        return -1;
    if (rc == 1)
        sha256_hex(buf, n, hex);
    else
        snprintf(hex, SHA256_HEX_LEN, "%s", why);
    sha256_update(c, label, strlen(label) + 1);
    sha256_update(c, hex, strlen(hex) + 1);
    if (keep != NULL && rc == 1) {
        *keep = buf;
        *kn = n;
    } else {
        free(buf);
    }
    return 0;
}

/* A VECTORS file answers.yaml names: hashed only when it is a regular
 * file inside the submission's folder (as the grader will check). */
static int key_named(struct sha256_ctx *c, const struct ans_answers *a, const char *label,
                     const char *rel)
{
    char path[ERR_FILE_MAX], why[ERR_MSG_MAX], hex[SHA256_HEX_LEN];

    if (rel == NULL)
        return 0;
    if (ans_path(a, rel, path, sizeof path, NULL) < 0 ||
        ut_check_inside(a->dir, path, rel, why, sizeof why) < 0) {
        sha256_update(c, label, strlen(label) + 1);
        sha256_update(c, rel, strlen(rel) + 1);
        sha256_update(c, "refused", 8);
        return 0;
    }
    return key_file(c, label, path, hex, NULL, NULL);
}

/* answers.yaml of `dir` and the files it names. */
static int key_answers(struct sha256_ctx *c, const char *dir)
{
    char path[BAT_PATH_MAX + 16], hex[SHA256_HEX_LEN], *buf = NULL;
    struct ans_answers a;
    size_t n = 0;
    int rc;

    if (bat_path_join(dir, "answers.yaml", path, sizeof path) < 0)
        return 0;
    if (key_file(c, "answers.yaml", path, hex, &buf, &n) < 0)
        return -1;
    if (buf == NULL || n > ANS_FILE_MAX || ans_parse(path, buf, n, &a, NULL) < 0) {
        free(buf);
        return 0;   /* the grader reports a bad file; its bytes are in the key */
    }
    free(buf);
    rc = key_named(c, &a, "vectors", a.vectors);
    if (rc == 0)
        rc = key_named(c, &a, "part3.vectors", a.part3_vectors);
    ans_release(&a);
    return rc;
}

int bat_inputs_key(const struct bat_entry *v, char key[SHA256_HEX_LEN],
                   char source_sha[SHA256_HEX_LEN])
{
    const char *slash = strrchr(v->source, '/');
    char dir[BAT_PATH_MAX];
    unsigned char d[SHA256_DIGEST_LEN];
    struct sha256_ctx c;

    sha256_init(&c);
    sha256_update(&c, KEY_MAGIC, sizeof KEY_MAGIC - 1);
    if (key_file(&c, ASG_SOURCE, v->source, source_sha, NULL, NULL) < 0)
        return -1;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - v->source) : 1,
             slash ? v->source : ".");
    if (key_answers(&c, dir[0] ? dir : "/") < 0)
        return -1;
    sha256_final(&c, d);
    sha256_to_hex(d, key);
    return 0;
}
