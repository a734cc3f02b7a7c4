/* sim_pairs.c -- shared fingerprints, seeds, tiles and scores. */
#include "similar/sim_pairs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEEDS ((size_t)1 << 24) /* 256 MiB of one file's seeds: refuse, not swap */

int sim_fps_push(struct sim_fps *f, uint64_t hash, size_t file, size_t pos)
{
    if (sim_grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v, SIZE_MAX / 32) < 0)
        return -1;
    f->v[f->n++] = (struct sim_fp){hash, (uint32_t)file, (uint32_t)pos};
    return 0;
}

/* A shared fingerprint of files fa < fb, at pa in fa and pb in fb. */
struct seed {
    uint32_t fa, fb, pa, pb;
};

struct seeds {
    struct seed *v;
    size_t n, cap;
};

static int cmp_fp(const void *a, const void *b)
{
    const struct sim_fp *x = a, *y = b;

    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Seeds sorted by pair, then diagonal, then position: a seed already
 * inside the match of the one before on its diagonal is skipped. */
static int cmp_seed(const void *a, const void *b)
{
    const struct seed *x = a, *y = b;
    int64_t dx = (int64_t)x->pa - x->pb, dy = (int64_t)y->pa - y->pb;

    if (x->fa != y->fa)
        return x->fa < y->fa ? -1 : 1;
    if (x->fb != y->fb)
        return x->fb < y->fb ? -1 : 1;
    if (dx != dy)
        return dx < dy ? -1 : 1;
    return (x->pa > y->pa) - (x->pa < y->pa);
}

static int seed_push(struct seeds *s, const struct sim_fp *x, const struct sim_fp *y)
{
    if (sim_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v, MAX_SEEDS) < 0)
        return -1;
    s->v[s->n++] = (struct seed){x->file, y->file, x->pos, y->pos};
    return 0;
}

/* ---- one pair ---- */

/* A match: a[a0 .. a0+len) equals b[b0 .. b0+len), no base token. */
struct tile {
    size_t a0, b0, len;
};

struct tiles {
    struct tile *v;
    size_t n, cap;
};

static int tile_push(struct tiles *t, size_t a0, size_t b0, size_t len)
{
    if (sim_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v, SIZE_MAX / 32) < 0)
        return -1;
    t->v[t->n++] = (struct tile){a0, b0, len};
    return 0;
}

static int same(const struct sim_file *a, size_t i, const struct sim_file *b, size_t j)
{
    return a->t.kind[i] == b->t.kind[j] && !a->base[i] && !b->base[j];
}

/* The maximal match through a seed (len 0 when its first token is base). */
static struct tile extend(const struct sim_file *a, const struct sim_file *b, size_t pa,
                          size_t pb)
{
    struct tile t = {pa, pb, 0};

    if (!same(a, pa, b, pb))
        return t;
    while (t.a0 > 0 && t.b0 > 0 && same(a, t.a0 - 1, b, t.b0 - 1)) {
        t.a0--;
        t.b0--;
    }
    while (t.a0 + t.len < a->t.n && t.b0 + t.len < b->t.n &&
           same(a, t.a0 + t.len, b, t.b0 + t.len))
        t.len++;
    return t;
}

/* Matches through the seeds of one pair, each at least k tokens. */
static int candidates(const struct sim_file *a, const struct sim_file *b,
                      const struct seed *s, size_t n, size_t k, struct tiles *out)
{
    int64_t diag = INT64_MIN;
    size_t end = 0;

    for (size_t i = 0; i < n; i++) {
        int64_t d = (int64_t)s[i].pa - s[i].pb;
        struct tile t;
        if (d == diag && s[i].pa < end)
            continue;        /* inside the match found just before */
        t = extend(a, b, s[i].pa, s[i].pb);
        diag = d;
        end = t.len > 0 ? t.a0 + t.len : s[i].pa + 1;
        if (t.len >= k && tile_push(out, t.a0, t.b0, t.len) < 0)
            return -1;
    }
    return 0;
}

static int cmp_tile(const void *x, const void *y)
{
    const struct tile *p = x, *q = y;

    if (p->len != q->len)
        return p->len > q->len ? -1 : 1;
    if (p->a0 != q->a0)
        return p->a0 < q->a0 ? -1 : 1;
    return (p->b0 > q->b0) - (p->b0 < q->b0);
}

/* The longest stretch of t whose tokens are free in both files. */
static struct tile free_part(const struct tile *t, const unsigned char *ua,
                             const unsigned char *ub)
{
    struct tile best = {t->a0, t->b0, 0};
    size_t run = 0;

    for (size_t i = 0; i <= t->len; i++) {
        if (i < t->len && !ua[t->a0 + i] && !ub[t->b0 + i]) {
            run++;
            continue;
        }
        if (run > best.len)
            best = (struct tile){t->a0 + i - run, t->b0 + i - run, run};
        run = 0;
    }
    return best;
}

/*
 * Greedy tiling, longest first: each candidate keeps its longest part
 * whose tokens no longer tile has used, when that part is k or more.
 * The kept tiles replace c's content, longest first.
 */
static void tile(struct tiles *c, size_t k, unsigned char *ua, unsigned char *ub)
{
    size_t kept = 0;

    if (c->n > 1)
        qsort(c->v, c->n, sizeof *c->v, cmp_tile);
    for (size_t i = 0; i < c->n; i++) {
        struct tile t = free_part(&c->v[i], ua, ub);
        if (t.len < k)
            continue;
        memset(ua + t.a0, 1, t.len);
        memset(ub + t.b0, 1, t.len);
        c->v[kept++] = t;
    }
    c->n = kept;
    if (c->n > 1)
        qsort(c->v, c->n, sizeof *c->v, cmp_tile);
    for (size_t i = 0; i < c->n; i++) {   /* leave the maps clear */
        memset(ua + c->v[i].a0, 0, c->v[i].len);
        memset(ub + c->v[i].b0, 0, c->v[i].len);
    }
}

static double share(size_t matched, size_t live)
{
    return live > 0 ? (double)matched / (double)live : 0.0;
}

/* The pair's entry from its tiles; a is the class member when one is. */
static int make_pair(const struct sim_file *files, size_t fa, size_t fb,
                     const struct tiles *t, struct sim_pair *p)
{
    const struct sim_file *a = &files[fa], *b = &files[fb];
    int swap = a->archive && !b->archive;
    const struct sim_file *x = swap ? b : a, *y = swap ? a : b;

    memset(p, 0, sizeof *p);
    if ((p->regions = calloc(t->n, sizeof *p->regions)) == NULL)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t xa = swap ? t->v[i].b0 : t->v[i].a0, ya = swap ? t->v[i].a0 : t->v[i].b0;
        size_t len = t->v[i].len;
        p->regions[i] = (struct sim_region){x->t.line[xa], x->t.line[xa + len - 1],
                                            y->t.line[ya], y->t.line[ya + len - 1], len};
        p->matched += len;
    }
    p->n_regions = t->n;
    p->id_a = x->id;
    p->id_b = y->id;
    p->file_a = swap ? fb : fa;
    p->file_b = swap ? fa : fb;
    p->share_a = share(p->matched, x->live);
    p->share_b = share(p->matched, y->live);
    p->score = p->share_a > p->share_b ? p->share_a : p->share_b;
    return 0;
}

struct work {
    struct tiles c;
    unsigned char *ua, *ub;
};

static int push_pair(struct sim_report *r, size_t *cap, const struct sim_pair *p)
{
    if (sim_grow((void **)&r->pairs, cap, r->n + 1, sizeof *r->pairs, SIZE_MAX / 128) < 0)
        return -1;
    r->pairs[r->n++] = *p;
    return 0;
}

/* Tile one pair (its seeds s[0..n)) and keep it when it scores. */
static int one_pair(const struct sim_file *files, const struct seed *s, size_t n,
                    const struct sim_opts *o, struct work *w, struct sim_report *r,
                    size_t *cap)
{
    const struct sim_file *a = &files[s[0].fa], *b = &files[s[0].fb];
    struct sim_pair p;

    w->c.n = 0;
    if (candidates(a, b, s, n, o->k, &w->c) < 0)
        return -1;
    tile(&w->c, o->k, w->ua, w->ub);
    if (w->c.n == 0)
        return 0;
    if (make_pair(files, s[0].fa, s[0].fb, &w->c, &p) < 0)
        return -1;
    if (p.score + 1e-12 < o->threshold) {   /* a share printed as 0.5 is 0.5 */
        free(p.regions);
        return 0;
    }
    if (push_pair(r, cap, &p) < 0) {
        free(p.regions);
        return -1;
    }
    return 0;
}

static int cmp_pair(const void *x, const void *y)
{
    const struct sim_pair *p = x, *q = y;
    int c;

    if (p->score != q->score)
        return p->score > q->score ? -1 : 1;
    if (p->matched != q->matched)
        return p->matched > q->matched ? -1 : 1;
    if ((c = strcmp(p->id_a, q->id_a)) != 0 || (c = strcmp(p->id_b, q->id_b)) != 0)
        return c;
    if (p->file_a != q->file_a)
        return p->file_a < q->file_a ? -1 : 1;
    return (p->file_b > q->file_b) - (p->file_b < q->file_b);
}

/* The first fingerprint of the sorted v[0..n) with hash h. */
static size_t lower_bound(const struct sim_fp *v, size_t n, uint64_t h)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].hash < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* What the workers share: read-only but for the next file to take. */
struct shared {
    const struct sim_file *files;
    size_t n;
    const struct sim_fp *own;      /* fingerprints in file order */
    const size_t *first;           /* own[first[f] .. first[f+1]) are f's */
    const struct sim_fp *sorted;   /* by hash, file, position */
    size_t n_fps;
    const struct sim_opts *o;
    pthread_mutex_t lock;
    size_t next;                   /* the next file a worker takes */
};

/* One worker: its seeds, tiles, maps and pairs. */
struct worker {
    struct shared *sh;
    struct seeds s;
    struct work w;
    struct sim_report r;
    size_t cap;
    int rc;
};

/* The seeds of file fa with every later file that is not both archive. */
static int seeds_of(const struct shared *sh, size_t fa, struct seeds *s)
{
    s->n = 0;
    for (size_t i = sh->first[fa]; i < sh->first[fa + 1]; i++) {
        const struct sim_fp *x = &sh->own[i];
        for (size_t j = lower_bound(sh->sorted, sh->n_fps, x->hash);
             j < sh->n_fps && sh->sorted[j].hash == x->hash; j++) {
            const struct sim_fp *y = &sh->sorted[j];
            if (y->file > fa && !(sh->files[fa].archive && sh->files[y->file].archive) &&
                seed_push(s, x, y) < 0)
                return -1;
        }
    }
    /* qsort's array may not be NULL, even for no element (C11 7.22.5) */
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, cmp_seed);
    return 0;
}

static int pairs_of(struct worker *k, size_t fa)
{
    const struct seed *v;
    size_t i = 0;

    if (seeds_of(k->sh, fa, &k->s) < 0)
        return -1;
    v = k->s.v;
    while (i < k->s.n) {
        size_t j = i + 1;
        while (j < k->s.n && v[j].fb == v[i].fb)
            j++;
        if (one_pair(k->sh->files, v + i, j - i, k->sh->o, &k->w, &k->r, &k->cap) < 0)
            return -1;
        i = j;
    }
    return 0;
}

static void *work_loop(void *arg)
{
    struct worker *k = arg;

    for (;;) {
        size_t fa;
        pthread_mutex_lock(&k->sh->lock);
        fa = k->sh->next++;
        pthread_mutex_unlock(&k->sh->lock);
        if (fa >= k->sh->n || k->rc < 0)
            return NULL;
        k->rc = pairs_of(k, fa);
    }
}

static int worker_init(struct worker *k, struct shared *sh, size_t most)
{
    memset(k, 0, sizeof *k);
    k->sh = sh;
    k->w.ua = calloc(most, 1);
    k->w.ub = calloc(most, 1);
    return k->w.ua != NULL && k->w.ub != NULL ? 0 : -1;
}

static void worker_release(struct worker *k)
{
    free(k->s.v);
    free(k->w.c.v);
    free(k->w.ua);
    free(k->w.ub);
    sim_report_release(&k->r);
}

/* Move the workers' pairs into r, best first. */
static int gather(struct worker *k, size_t nk, struct sim_report *r)
{
    size_t total = 0;

    for (size_t i = 0; i < nk; i++)
        total += k[i].r.n;
    if (total > 0 && (r->pairs = malloc(total * sizeof *r->pairs)) == NULL)
        return -1;
    for (size_t i = 0; i < nk; i++) {
        if (k[i].r.n > 0)
            memcpy(r->pairs + r->n, k[i].r.pairs, k[i].r.n * sizeof *r->pairs);
        r->n += k[i].r.n;
        free(k[i].r.pairs);
        memset(&k[i].r, 0, sizeof k[i].r);
    }
    if (r->n > 1)
        qsort(r->pairs, r->n, sizeof *r->pairs, cmp_pair);
    return 0;
}

/* Run nk workers (the first on this thread) over their shared files; a
 * thread that cannot start leaves its share to the others. */
static int run_workers(struct worker *k, size_t nk, struct sim_report *r)
{
    pthread_t t[SIM_MAX_THREADS];
    size_t started = 1;
    int rc = 0;

    while (started < nk && pthread_create(&t[started - 1], NULL, work_loop, &k[started]) == 0)
        started++;
    work_loop(&k[0]);
    for (size_t i = 1; i < started; i++)
        pthread_join(t[i - 1], NULL);
    for (size_t i = 0; i < nk; i++)
        rc |= k[i].rc;
    return rc < 0 || gather(k, nk, r) < 0 ? -1 : 0;
}

static size_t *file_starts(const struct sim_fps *fps, size_t n)
{
    size_t *first = calloc(n + 1, sizeof *first);

    if (first == NULL)
        return NULL;
    for (size_t i = 0; i < fps->n; i++)
        first[fps->v[i].file + 1]++;
    for (size_t f = 0; f < n; f++)
        first[f + 1] += first[f];
    return first;
}

int sim_pairs(const struct sim_file *files, size_t n, struct sim_fps *fps,
              const struct sim_opts *o, struct sim_report *r)
{
    struct shared sh = {files, n, fps->v, NULL, NULL, fps->n, o, PTHREAD_MUTEX_INITIALIZER, 0};
    struct worker k[SIM_MAX_THREADS];
    size_t most = 1, nk = o->threads ? o->threads : 1, ready = 0;
    struct sim_fp *sorted = malloc((fps->n + 1) * sizeof *sorted);
    size_t *first = file_starts(fps, n);
    int rc = sorted == NULL || first == NULL ? -1 : 0;

    nk = nk > SIM_MAX_THREADS ? SIM_MAX_THREADS : nk;
    for (size_t i = 0; i < n; i++)
        most = files[i].t.n > most ? files[i].t.n : most;
    if (rc == 0) {
        if (fps->n > 0) {   /* no NULL to memcpy or qsort, even for nothing */
            memcpy(sorted, fps->v, fps->n * sizeof *sorted);
            qsort(sorted, fps->n, sizeof *sorted, cmp_fp);
        }
        sh.first = first;
        sh.sorted = sorted;
    }
    while (rc == 0 && ready < nk)
        rc = worker_init(&k[ready++], &sh, most);
    if (rc == 0)
        rc = run_workers(k, nk, r);
    for (size_t i = 0; i < ready; i++)
        worker_release(&k[i]);
    free(sorted);
    free(first);
    pthread_mutex_destroy(&sh.lock);
    return rc;
}
