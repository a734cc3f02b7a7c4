/* grade_ledger.c -- see grade_ledger.h. */
#include "grade/grade_ledger.h"

#include <pthread.h>
#include <stdlib.h>

struct gl_ledger {
    pthread_mutex_t mu;
    size_t n, n_fns;
    double budget_ms;
    const size_t *fn;
    double *cost;
    unsigned char *ended, *timed_out, *state;
    /* the replay of the rules over slots [0, settled), all ended */
    size_t settled;
    double spent;                /* by the slots that ran */
    size_t *timeouts;            /* per function, among the slots that ran */
};

struct gl_ledger *gl_new(size_t n, const size_t *fn, size_t n_fns, double budget_ms)
{
    struct gl_ledger *g = calloc(1, sizeof *g);

    if (g == NULL)
        return NULL;
    g->n = n, g->n_fns = n_fns, g->fn = fn, g->budget_ms = budget_ms;
    g->cost = calloc(n + 1, sizeof *g->cost);
    g->ended = calloc(n + 1, 1);
    g->timed_out = calloc(n + 1, 1);
    g->state = calloc(n + 1, 1);
    g->timeouts = calloc(n_fns + 1, sizeof *g->timeouts);
    if (!g->cost || !g->ended || !g->timed_out || !g->state || !g->timeouts ||
        pthread_mutex_init(&g->mu, NULL) != 0) {
        free(g->cost), free(g->ended), free(g->timed_out), free(g->state);
        free(g->timeouts), free(g);
        return NULL;
    }
    return g;
}

void gl_free(struct gl_ledger *g)
{
    if (g == NULL)
        return;
    pthread_mutex_destroy(&g->mu);
    free(g->cost), free(g->ended), free(g->timed_out), free(g->state);
    free(g->timeouts), free(g);
}

/* The rules for slot j, given the replay so far (the slots before it). */
static enum gl_state rule(const struct gl_ledger *g, size_t j)
{
    if (g->spent > g->budget_ms)
        return GL_CUT_BUDGET;
    if (g->timeouts[g->fn[j]] >= GL_MAX_TIMEOUTS)
        return GL_CUT_TIMEOUTS;
    return GL_RUN;
}

/* Replay the rules over the ended slots that follow the settled prefix. */
static void settle(struct gl_ledger *g)
{
    for (; g->settled < g->n && g->ended[g->settled]; g->settled++) {
        size_t j = g->settled;
        g->state[j] = (unsigned char)rule(g, j);
        if (g->state[j] != GL_RUN)
            continue;
        g->spent += g->cost[j];
        g->timeouts[g->fn[j]] += g->timed_out[j];
    }
}

enum gl_state gl_before(struct gl_ledger *g, size_t j)
{
    enum gl_state st;

    pthread_mutex_lock(&g->mu);
    /* the replay stops at the settled prefix: the slots between it and j
     * can only add to what it counts, so a cut now is a cut for good */
    st = j >= g->settled ? rule(g, j) : (enum gl_state)g->state[j];
    pthread_mutex_unlock(&g->mu);
    return st;
}

void gl_done(struct gl_ledger *g, size_t j, double cost_ms, int timed_out)
{
    pthread_mutex_lock(&g->mu);
    g->cost[j] = cost_ms;
    g->timed_out[j] = timed_out != 0;
    g->ended[j] = 1;
    settle(g);
    pthread_mutex_unlock(&g->mu);
}

enum gl_state gl_final(const struct gl_ledger *g, size_t j)
{
    return (enum gl_state)g->state[j];
}

double gl_spent(const struct gl_ledger *g)
{
    double sum = 0.0;

    for (size_t j = 0; j < g->n; j++)
        sum += g->cost[j];
    return sum;
}
