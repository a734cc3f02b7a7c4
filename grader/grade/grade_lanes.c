/* grade_lanes.c -- see grade_lanes.h. */
#include "grade/grade_lanes.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define MAX_LANES 16

/* What the lanes share: the next job and the first failure. */
struct pool {
    const struct glane_ops *ops;
    size_t n_jobs;
    pthread_mutex_t mu;
    size_t next;             /* the next job to take */
    size_t failed;           /* the lowest failed job; SIZE_MAX: none */
    struct err err;      /* its error */
};

/* One lane's thread. */
struct lane {
    struct pool *p;
    size_t k;
};

/* The next job for a lane, or SIZE_MAX when none is left (or one failed). */
static size_t take(struct pool *p)
{
    size_t j = SIZE_MAX;

    pthread_mutex_lock(&p->mu);
    if (p->failed == SIZE_MAX && p->next < p->n_jobs)
        j = p->next++;
    pthread_mutex_unlock(&p->mu);
    return j;
}

static void fail(struct pool *p, size_t j, const struct err *e)
{
    pthread_mutex_lock(&p->mu);
    if (j < p->failed) {
        p->failed = j;
        p->err = *e;
    }
    pthread_mutex_unlock(&p->mu);
}

/* Take jobs until none is left. */
static void drain(struct pool *p, void *ctx)
{
    struct err e;
    size_t j;

    while ((j = take(p)) != SIZE_MAX) {
        err_clear(&e);
        if (p->ops->run(p->ops->self, ctx, j, &e) < 0)
            fail(p, j, &e);
    }
}

static void *lane_main(void *arg)
{
    struct lane *l = arg;
    struct err e;
    void *ctx = NULL;

    err_clear(&e);
    if (l->p->ops->open(l->p->ops->self, l->k, &ctx, &e) == 0) {
        drain(l->p, ctx);
        l->p->ops->close(l->p->ops->self, l->k, ctx);
    }
    return NULL;
}

/* One lane, in order: a failed job ends the run. */
static int in_order(size_t n_jobs, void *ctx0, const struct glane_ops *ops,
                    struct err *e)
{
    for (size_t j = 0; j < n_jobs; j++)
        if (ops->run(ops->self, ctx0, j, e) < 0)
            return -1;
    return 0;
}

int glane_run(size_t n_lanes, size_t n_jobs, void *ctx0, const struct glane_ops *ops,
              struct err *e)
{
    struct pool p;
    struct lane lanes[MAX_LANES];
    pthread_t tid[MAX_LANES];
    int started[MAX_LANES] = {0};

    if (n_lanes > MAX_LANES)
        n_lanes = MAX_LANES;
    if (n_lanes > n_jobs)
        n_lanes = n_jobs;
    memset(&p, 0, sizeof p);
    if (n_lanes <= 1 || pthread_mutex_init(&p.mu, NULL) != 0)
        return in_order(n_jobs, ctx0, ops, e);
    p.ops = ops;
    p.n_jobs = n_jobs;
    p.failed = SIZE_MAX;
    for (size_t k = 1; k < n_lanes; k++) {
        lanes[k] = (struct lane){&p, k};
        started[k] = pthread_create(&tid[k], NULL, lane_main, &lanes[k]) == 0;
    }
    drain(&p, ctx0);
    for (size_t k = 1; k < n_lanes; k++)
        if (started[k])
            pthread_join(tid[k], NULL);
    pthread_mutex_destroy(&p.mu);
    if (p.failed == SIZE_MAX)
        return 0;
    *e = p.err;
    return -1;
}

size_t glane_default(size_t cap)
{
    long n = ut_usable_cpus();

    if (cap == 0)
        cap = 1;
    return (size_t)n < cap ? (size_t)n : cap;
}
