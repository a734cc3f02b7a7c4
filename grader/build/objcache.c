/* objcache.c -- see objcache.h. */
#include "build/objcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

#define KEY_MAGIC "attention-grader object 1\n"
#define KEY_FILE_MAX 512

void bld_cache_env(const char *toolchain, const struct spec_set *specs, const char *version,
                   char env[SHA256_HEX_LEN])
{
    unsigned char digest[SHA256_DIGEST_LEN];
    struct sha256_ctx c;
    size_t n = specs ? spec_rule_count(specs) : 0;

    sha256_init(&c);
    sha256_update(&c, KEY_MAGIC, strlen(KEY_MAGIC));
    sha256_update(&c, toolchain, strlen(toolchain) + 1);
    sha256_update(&c, version ? version : "", strlen(version ? version : "") + 1);
    /* each rule's fields NUL-terminated: no two rule lists hash alike */
    for (size_t i = 0; i < n; i++) {
        const struct spec_rule *r = spec_rule_at(specs, i);
        sha256_update(&c, r->id, strlen(r->id) + 1);
        sha256_update(&c, r->pattern, strlen(r->pattern) + 1);
        sha256_update(&c, r->message, strlen(r->message) + 1);
    }
    sha256_final(&c, digest);
    sha256_to_hex(digest, env);
}

void bld_cache_key(const char *env, const void *src, size_t n, char key[SHA256_HEX_LEN])
{
    unsigned char digest[SHA256_DIGEST_LEN];
    struct sha256_ctx c;

    sha256_init(&c);
    sha256_update(&c, env, strlen(env) + 1);
    sha256_update(&c, src, n);
    sha256_final(&c, digest);
    sha256_to_hex(digest, key);
}

/* The regular file `path` (never through a link) of at most cap bytes
 * into a new buffer (*n bytes, NUL-terminated). NULL when it is missing,
 * not a regular file, larger, unreadable, or memory runs out. */
static char *read_regular(const char *path, size_t cap, size_t *n)
{
    struct stat st;
    char *buf = NULL;
    ssize_t k = 1;
    int fd;

    *n = 0;
    if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= cap &&
        (buf = malloc((size_t)st.st_size + 2)) != NULL)
        while (*n <= (size_t)st.st_size &&
               ((k = read(fd, buf + *n, (size_t)st.st_size + 1 - *n)) > 0 ||
                (k < 0 && errno == EINTR)))
            *n += k > 0 ? (size_t)k : 0;
    close(fd);
    if (buf != NULL && (k < 0 || *n != (size_t)st.st_size)) { /* changed while read */
        free(buf);
        return NULL;
    }
    if (buf != NULL)
        buf[*n] = '\0';
    return buf;
}

char *bld_cache_read(const char *dir, const char *name, size_t cap, size_t *n)
{
    char path[UT_PATH_MAX];

    *n = 0;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return NULL;
    return read_regular(path, cap, n);
}

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* The key file of dir when it is one of ours (KEY_MAGIC, "key <hex>",
 * "object <hex>", nothing else): its key into key, the object's hash into
 * obj_sha, its bytes into *text (the caller frees them) when text is not
 * NULL. 0 when it is missing, a link, or not of that form. */
static int key_file(const char *dir, char key[SHA256_HEX_LEN], char obj_sha[SHA256_HEX_LEN],
                    char **text)
{
    const size_t magic = strlen(KEY_MAGIC), hex = SHA256_HEX_LEN - 1;
    size_t n;
    char *t = bld_cache_read(dir, BLD_CACHE_KEY, KEY_FILE_MAX, &n);
    const char *k = NULL, *o = NULL;
    int ok = t != NULL && n == magic + 4 + hex + 8 + hex + 1 &&
             memcmp(t, KEY_MAGIC "key ", magic + 4) == 0;

    if (ok) {
        k = t + magic + 4;
        o = k + hex + 8;
        ok = is_hex(k, hex) && memcmp(k + hex, "\nobject ", 8) == 0 && is_hex(o, hex) &&
             o[hex] == '\n';
    }

    if (ok) {
        memcpy(key, k, hex);
        key[hex] = '\0';
        memcpy(obj_sha, o, hex);
        obj_sha[hex] = '\0';
    }
    if (ok && text != NULL)
        *text = t;
    else
        free(t);
    return ok;
}

/* The object's hash the key file records for `key`, into obj_sha; 0 when
 * the file names another key (or is no key file of ours). */
static int recorded(const char *dir, const char *key, char obj_sha[SHA256_HEX_LEN])
{
    char got[SHA256_HEX_LEN];

    return key_file(dir, got, obj_sha, NULL) && strcmp(got, key) == 0;
}

/* dir's kept object, read without following a link, when its bytes hash
 * to want; NULL otherwise (missing, damaged, replaced). */
static char *checked_object(const char *dir, const char *want, size_t *n)
{
    char got[SHA256_HEX_LEN];
    char *obj = bld_cache_read(dir, BLD_CACHE_OBJECT, BLD_CACHE_MAX_OBJECT, n);

    if (obj == NULL)
        return NULL;
    sha256_hex(obj, *n, got);
    if (strcmp(got, want) == 0)
        return obj;
    free(obj);
    return NULL;
}

int bld_cache_load(const char *dir, const char *key, const char *obj_out, struct err *e)
{
    char want[SHA256_HEX_LEN];
    size_t n;
    char *obj;
    int rc;

    if (!recorded(dir, key, want) || (obj = checked_object(dir, want, &n)) == NULL)
        return 0;
    /* the bytes checked are the bytes written: nothing reads the kept
     * file again */
    rc = ut_write_atomic(obj_out, obj, n, 0, e) < 0 ? -1 : 1;
    free(obj);
    return rc;
}

/* Remove dir/name; 0, or -1 with `e` set (a file that stays). */
static int remove_file(const char *dir, const char *name, struct err *e)
{
    char path[UT_PATH_MAX];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (unlink(path) < 0 && errno != ENOENT)
        return err_set(e, path, 0, 0, "cannot remove: %s", strerror(errno));
    return 0;
}

int bld_cache_copy(const char *from, const char *to, struct err *e)
{
    char key[SHA256_HEX_LEN], sha[SHA256_HEX_LEN], path[UT_PATH_MAX];
    char *text = NULL, *obj = NULL;
    size_t n = 0;
    int rc = remove_file(to, BLD_CACHE_KEY, e); /* never a key beside another object */

    if (rc == 0 && key_file(from, key, sha, &text) && (obj = checked_object(from, sha, &n)) != NULL) {
        snprintf(path, sizeof path, "%s/%s", to, BLD_CACHE_OBJECT);
        rc = ut_write_atomic(path, obj, n, 0, e);
        snprintf(path, sizeof path, "%s/%s", to, BLD_CACHE_KEY);
        if (rc == 0)
            rc = ut_write_atomic(path, text, strlen(text), 0, e);
        rc = rc < 0 ? -1 : 1;
    } else if (rc == 0) {
        rc = remove_file(to, BLD_CACHE_OBJECT, e);
    }
    free(text);
    free(obj);
    return rc;
}

int bld_cache_store(const char *dir, const char *key, const char *obj, struct err *e)
{
    char path[UT_PATH_MAX], sha[SHA256_HEX_LEN], text[sizeof KEY_MAGIC + 160];
    size_t n, len;
    char *bytes;
    int rc;

    if ((bytes = read_regular(obj, BLD_CACHE_MAX_OBJECT, &n)) == NULL)
        return err_set(e, obj, 0, 0, "cannot read the object to keep it");
    sha256_hex(bytes, n, sha);
    len = (size_t)snprintf(text, sizeof text, KEY_MAGIC "key %s\nobject %s\n", key, sha);
    /* an old key goes first: never a key beside an object it does not
     * describe, even for a moment */
    snprintf(path, sizeof path, "%s/%s", dir, BLD_CACHE_KEY);
    rc = unlink(path) < 0 && errno != ENOENT
             ? err_set(e, path, 0, 0, "cannot remove: %s", strerror(errno)) : 0;
    snprintf(path, sizeof path, "%s/%s", dir, BLD_CACHE_OBJECT);
    if (rc == 0)
        rc = ut_write_atomic(path, bytes, n, 0, e);
    snprintf(path, sizeof path, "%s/%s", dir, BLD_CACHE_KEY);
    if (rc == 0)
        rc = ut_write_atomic(path, text, len, 0, e);
    free(bytes);
    return rc;
}
