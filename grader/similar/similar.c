/* similar.c -- the class, its base, and the fingerprints (see similar.h). */
#include "similar/similar.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "build/srcrules.h"
#include "similar/similar_internal.h"
#include "similar/sim_pairs.h"

struct sim_class {
    struct sim_opts o;
    struct sim_file *files;
    size_t n, cap;
    uint64_t *base;           /* every k-gram hash of the base files */
    size_t n_base, cap_base;
};

struct sim_class *sim_class_new(const struct sim_opts *o)
{
    struct sim_class *c = calloc(1, sizeof *c);

    if (c == NULL)
        return NULL;
    if (o != NULL)
        c->o = *o;
    if (c->o.k == 0)
        c->o.k = SIM_DEFAULT_K;
    if (c->o.window == 0)
        c->o.window = SIM_DEFAULT_WINDOW;
    return c;
}

void sim_class_free(struct sim_class *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->files[i].id);
        sim_toks_release(&c->files[i].t);
        free(c->files[i].base);
    }
    free(c->files);
    free(c->base);
    free(c);
}

int sim_grow(void **v, size_t *cap, size_t need, size_t size, size_t most)
{
    void *p = ut_grow_max(*v, cap, need, size, 64, most);

    if (p == NULL)
        return -1;
    *v = p;
    return 0;
}

int sim_add_base(struct sim_class *c, const char *src, size_t len, struct err *e)
{
    struct sim_toks t;
    size_t n;

    if (sim_tokenize(src, len, &t) < 0)
        return err_set(e, NULL, 0, 0, "out of memory");
    n = t.n >= c->o.k ? t.n - c->o.k + 1 : 0;
    if (sim_grow((void **)&c->base, &c->cap_base, c->n_base + n, sizeof *c->base, SIZE_MAX / 16) < 0) {
        sim_toks_release(&t);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    c->n_base += sim_kgrams(&t, c->o.k, c->base + c->n_base);
    sim_toks_release(&t);
    return 0;
}

int sim_add(struct sim_class *c, const char *id, const char *src, size_t len, int archive,
            struct err *e)
{
    struct sim_file *f;

    if (c->n == SIM_MAX_FILES)
        return err_set(e, NULL, 0, 0, "more than %d files to compare", SIM_MAX_FILES);
    if (sim_grow((void **)&c->files, &c->cap, c->n + 1, sizeof *c->files, SIM_MAX_FILES) < 0)
        return err_set(e, NULL, 0, 0, "out of memory");
    f = &c->files[c->n];
    memset(f, 0, sizeof *f);
    f->archive = archive != 0;
    if ((f->id = strdup(id)) == NULL || sim_tokenize(src, len, &f->t) < 0) {
        free(f->id);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    c->n++;
    return 0;
}

/* Read a regular file (no symlink followed) of at most SRC_MAX_BYTES. */
static char *read_source(const char *path, size_t *len, struct err *e)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    char *buf = NULL;
    ssize_t got;

    if (fd < 0)
        return err_set(e, path, 0, 0, "cannot open: %s", strerror(errno)), NULL;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        err_set(e, path, 0, 0, "not a regular file");
    else if (st.st_size > (off_t)SRC_MAX_BYTES)
        err_set(e, path, 0, 0, "larger than %u bytes", SRC_MAX_BYTES);
    else if ((buf = malloc((size_t)st.st_size + 1)) == NULL)
        err_set(e, NULL, 0, 0, "out of memory");
    else if ((got = read(fd, buf, (size_t)st.st_size + 1)) < 0 || got > st.st_size) {
        err_set(e, path, 0, 0, "cannot read (it changed while read)");
        free(buf);
        buf = NULL;
    } else {
        *len = (size_t)got;
    }
    close(fd);
    return buf;
}

int sim_add_file(struct sim_class *c, const char *id, const char *path, int archive,
                 struct err *e)
{
    size_t len = 0;
    char *src = read_source(path, &len, e);
    int rc;

    if (src == NULL)
        return -1;
    rc = id == NULL ? sim_add_base(c, src, len, e) : sim_add(c, id, src, len, archive, e);
    free(src);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

static int in_base(const uint64_t *base, size_t n, uint64_t h)
{
    return n > 0 && bsearch(&h, base, n, sizeof *base, cmp_u64) != NULL;
}

static int cmp_fp_hash(const void *a, const void *b)
{
    const struct sim_fp *x = a, *y = b;

    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * Keep at most SIM_MAX_REPEAT fingerprints of one hash in the file's
 * fingerprints out->v[from..): a file that repeats one stretch thousands
 * of times would otherwise make seeds quadratic in its length against
 * another such file (a hostile submission must not stop the report).
 */
static void thin_repeats(struct sim_fps *out, size_t from)
{
    size_t kept = from, run = 0;

    if (out->n - from < 2)
        return;
    qsort(out->v + from, out->n - from, sizeof *out->v, cmp_fp_hash);
    for (size_t i = from; i < out->n; i++) {
        run = i > from && out->v[i].hash == out->v[i - 1].hash ? run + 1 : 0;
        if (run < SIM_MAX_REPEAT)
            out->v[kept++] = out->v[i];
    }
    out->n = kept;
}

/*
 * Mark f's base tokens (under a k-gram of the base) and record its
 * fingerprints: robust winnowing over the k-grams that are not base (the
 * minimum of each window, the rightmost on a tie, once per position).
 */
static int fingerprint(struct sim_file *f, const uint64_t *base, size_t n_base, size_t k,
                       size_t w, struct sim_fps *out, size_t file)
{
    size_t n = f->t.n >= k ? f->t.n - k + 1 : 0, last = SIZE_MAX, from = out->n;
    uint64_t *h = malloc((n + 1) * sizeof *h);

    if (h == NULL || (f->base = calloc(f->t.n + 1, 1)) == NULL) {
        free(h);
        return -1;
    }
    sim_kgrams(&f->t, k, h);
    for (size_t i = 0; i < n; i++)
        if (in_base(base, n_base, h[i])) {
            memset(f->base + i, 1, k);
            h[i] = UINT64_MAX;       /* never a fingerprint */
        }
    for (size_t i = 0; i < f->t.n; i++)
        f->live += !f->base[i];
    for (size_t s = 0; s + w <= n || (s == 0 && n > 0); s++) {
        size_t m = s, end = s + w < n ? s + w : n;
        for (size_t i = s; i < end; i++)
            if (h[i] <= h[m])
                m = i;
        if (m != last && h[m] != UINT64_MAX && sim_fps_push(out, h[m], file, m) < 0) {
            free(h);
            return -1;
        }
        last = m;
    }
    free(h);
    thin_repeats(out, from);
    return 0;
}

int sim_compare(struct sim_class *c, struct sim_report *r, struct err *e)
{
    struct sim_fps fps = {NULL, 0, 0};
    uint64_t *base = NULL;
    int rc = 0;

    memset(r, 0, sizeof *r);
    r->threshold = c->o.threshold;
    if (c->n_base > 0 && (base = malloc(c->n_base * sizeof *base)) == NULL)
        return err_set(e, NULL, 0, 0, "out of memory");
    if (base != NULL) {
        memcpy(base, c->base, c->n_base * sizeof *base);
        qsort(base, c->n_base, sizeof *base, cmp_u64);
    }
    for (size_t i = 0; i < c->n && rc == 0; i++) {
        free(c->files[i].base);
        c->files[i].base = NULL;
        c->files[i].live = 0;
        rc = fingerprint(&c->files[i], base, c->n_base, c->o.k, c->o.window, &fps, i);
        r->n_archive += c->files[i].archive;
    }
    free(base);
    r->n_files = c->n;
    if (rc == 0)
        rc = sim_pairs(c->files, c->n, &fps, &c->o, r);
    free(fps.v);
    if (rc < 0) {
        sim_report_release(r);
        return err_set(e, NULL, 0, 0, "out of memory");
    }
    return 0;
}

void sim_report_release(struct sim_report *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->pairs[i].regions);
    free(r->pairs);
    memset(r, 0, sizeof *r);
}
