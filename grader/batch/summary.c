/* summary.c -- see summary.h. */
#include "batch/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/summary_internal.h"
#include "grade/grade.h"

#define MSG_SHOWN 240   /* bytes of a failure message shown in the table */
#define MSG_KEY_MAX 256 /* bytes of a message that group it with others */


/* One failure: test id, the first line of its message, and that line
 * with its numbers blanked (the key that groups "weight (1, 0) is 0.81"
 * with "weight (2, 0) is 0.64"). */
struct failure {
    const char *test, *msg;
    size_t msg_len, count;
    char key[MSG_KEY_MAX];
};

int sum_absent(const struct bat_row *r)
{
    return strcmp(r->status, "missing") == 0 || strcmp(r->status, "skipped") == 0;
}

struct bat_row *sum_graded(const struct bat_row *rows, size_t n, size_t *m)
{
    struct bat_row *v = calloc(n ? n : 1, sizeof *v);

    *m = 0;
    for (size_t i = 0; v != NULL && i < n; i++)
        if (!sum_absent(&rows[i]))
            v[(*m)++] = rows[i];
    return v;
}

const struct bat_test_row *sum_find(const struct bat_row *r, const char *id)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (strcmp(r->tests[i].id, id) == 0)
            return &r->tests[i];
    return NULL;
}

int sum_manual(const struct bat_row *rows, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++) {
        const struct bat_test_row *t = sum_find(&rows[i], id);

        if (t != NULL && (strcmp(t->status, "manual_pending") == 0 ||
                          strcmp(t->status, "manual_scored") == 0))
            return 1;
    }
    return 0;
}

static int cmp_rate(const void *a, const void *b)
{
    const struct sum_rate *x = a, *y = b;

    if (x->passed != y->passed)
        return x->passed < y->passed ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

struct sum_rate *sum_rates(const struct bat_row *rows, size_t n, const char *const *ids,
                           size_t n_tests, int worst_first)
{
    struct sum_rate *v = calloc(n_tests ? n_tests : 1, sizeof *v);

    for (size_t j = 0; v != NULL && j < n_tests; j++) {
        v[j].id = ids[j];
        v[j].idx = j;
        for (size_t i = 0; i < n; i++) {
            const struct bat_test_row *t = sum_find(&rows[i], ids[j]);

            v[j].passed += t != NULL && strcmp(t->status, "passed") == 0;
        }
    }
    if (v != NULL && worst_first && n_tests > 1)
        qsort(v, n_tests, sizeof *v, cmp_rate);
    return v;
}

double sum_pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

void sum_pct_text(double pct, char *buf, size_t n)
{
    snprintf(buf, n, "%.1f %%", pct);
}

/* ---- Markdown ---- */

/* Table-cell text: '|' escaped, newlines as spaces, HTML kept inert. */
static int md_cell(struct sb *sb, const char *s, size_t n)
{
    int rc = 0;

    for (size_t i = 0; i < n && s[i]; i++) {
        switch (s[i]) {
        case '|': rc |= sb_adds(sb, "\\|"); break;
        case '<': rc |= sb_adds(sb, "&lt;"); break;
        case '>': rc |= sb_adds(sb, "&gt;"); break;
        case '&': rc |= sb_adds(sb, "&amp;"); break;
        case '`': rc |= sb_addch(sb, '\''); break;
        case '\n': case '\r': case '\t': rc |= sb_addch(sb, ' '); break;
        default: rc |= sb_addch(sb, s[i]); break;
        }
    }
    return rc ? -1 : 0;
}

static size_t count_status(const struct bat_row *rows, size_t n, const char *st)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        k += strcmp(rows[i].status, st) == 0;
    return k;
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* The headline and the rows per status; `all` counts every row, the
 * missing and skipped folders included. */
static int md_counts(const struct bat_row *all, size_t n_all, size_t graded,
                     struct sb *out)
{
    static const char *const absent[] = {"missing", "skipped"};
    int rc = sb_addf(out, "# Class summary\n\n%zu %s graded", graded,
                     plural(graded, "submission", "submissions"));

    if (n_all > graded)
        rc |= sb_addf(out, " of %zu %s in the class (the others are missing or skipped: "
                      "their rows in grades.csv say why; they are left out below)", n_all,
                      plural(n_all, "folder", "folders"));
    rc |= sb_adds(out, ".\n\n| status | submissions |\n|---|---:|\n");
    for (int st = GRADE_OK; st <= GRADE_ERROR; st++)
        rc |= sb_addf(out, "| %s | %zu |\n", grade_status_name((enum grade_status)st),
                      count_status(all, n_all, grade_status_name((enum grade_status)st)));
    for (size_t k = 0; k < 2; k++)
        rc |= sb_addf(out, "| %s | %zu |\n", absent[k], count_status(all, n_all, absent[k]));
    return rc ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double *sum_score_pcts(const struct bat_row *rows, size_t n)
{
    double *v = n ? malloc(n * sizeof *v) : NULL;

    for (size_t i = 0; v != NULL && i < n; i++)
        v[i] = sum_pct(rows[i].score, rows[i].max_score);
    if (v != NULL)
        qsort(v, n, sizeof *v, cmp_double);
    return v;
}

static size_t bin_of(double p)
{
    size_t b = p <= 0 ? 0 : (size_t)(p / (100.0 / SUM_BINS));

    return b >= SUM_BINS ? SUM_BINS - 1 : b;
}

static int md_distribution(const struct bat_row *rows, size_t n, struct sb *out)
{
    double *p = sum_score_pcts(rows, n), sum = 0, med;
    size_t bins[SUM_BINS] = {0};
    int rc = sb_adds(out, "\n## Score distribution\n\n");

    if (p == NULL)
        return rc | sb_adds(out, "No scores.\n") ? -1 : 0;
    for (size_t i = 0; i < n; i++) {
        sum += p[i];
        bins[bin_of(p[i])]++;
    }
    med = n % 2 ? p[n / 2] : (p[n / 2 - 1] + p[n / 2]) / 2;
    rc |= sb_addf(out, "Scores as a percentage of the maximum: mean %.1f %%, median %.1f %%, "
                       "min %.1f %%, max %.1f %%.\n\n| score | submissions | |\n|---|---:|---|\n",
                  sum / (double)n, med, p[0], p[n - 1]);
    for (size_t i = 0; i < SUM_BINS; i++) {
        rc |= sb_addf(out, "| %zu–%zu %% | %zu | ", i * 100 / SUM_BINS,
                      (i + 1) * 100 / SUM_BINS, bins[i]);
        for (size_t k = 0; k < bins[i] * 40 / n; k++)
            rc |= sb_adds(out, "█");
        rc |= sb_adds(out, " |\n");
    }
    free(p);
    return rc ? -1 : 0;
}

/* The manual items, named apart: pending until a TA scores them, they
 * would otherwise top the "worst" ranking with a 0 % pass rate. */
static int md_manual(const struct bat_row *rows, size_t n, const char *const *ids,
                     size_t n_tests, struct sb *out)
{
    size_t k = 0;
    int rc = 0;

    for (size_t j = 0; j < n_tests; j++) {
        if (!sum_manual(rows, n, ids[j]))
            continue;
        rc |= sb_adds(out, k++ ? ", " : "\nManual items (a TA scores them; left out of the "
                      "ranking): ") | md_cell(out, ids[j], strlen(ids[j]));
    }
    return rc | (k ? sb_adds(out, ".\n") : 0) ? -1 : 0;
}

static int md_rates(const struct bat_row *rows, size_t n, const char *const *ids,
                    size_t n_tests, struct sb *out)
{
    struct sum_rate *v = sum_rates(rows, n, ids, n_tests, 1);
    char pct[24];
    int rc = sb_adds(out, "\n## Pass rate per test, worst first\n\n"
                          "| test | passed | pass rate |\n|---|---:|---:|\n");

    if (v == NULL)
        return -1;
    for (size_t j = 0; j < n_tests; j++) {
        if (sum_manual(rows, n, v[j].id))
            continue;
        sum_pct_text(sum_pct((double)v[j].passed, (double)n), pct, sizeof pct);
        rc |= sb_adds(out, "| ") | md_cell(out, v[j].id, strlen(v[j].id));
        rc |= sb_addf(out, " | %zu/%zu | %s |\n", v[j].passed, n, pct);
    }
    free(v);
    return rc | md_manual(rows, n, ids, n_tests, out) ? -1 : 0;
}

/* A failure worth a line of the table: not a test that passed its property
 * and only waits for a value test ("withheld": the value test's own
 * failure is the one to read). */
static int ran_and_failed(const char *status)
{
    return strcmp(status, "passed") != 0 && strcmp(status, "not_run") != 0 &&
           strcmp(status, "manual_pending") != 0 && strcmp(status, "manual_scored") != 0 &&
           strcmp(status, "withheld") != 0;
}

/* The message's first line with every number ("0.81", "-1e-05", "12")
 * as '#', so that one mistake's messages, which differ only in their
 * values, fold into one line of the table. */
static void message_key(const char *s, size_t n, char *key, size_t cap)
{
    size_t j = 0;

    for (size_t i = 0; i < n && j + 1 < cap;) {
        if ((s[i] >= '0' && s[i] <= '9') ||
            (s[i] == '-' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            i++;
            while (i < n && (strchr("0123456789.", s[i]) ||
                             ((s[i] == 'e' || s[i] == 'E') && i + 1 < n &&
                              strchr("+-0123456789", s[i + 1])) ||
                             ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E'))))
                i++;
            key[j++] = '#';
        } else {
            key[j++] = s[i++];
        }
    }
    key[j] = '\0';
}

/* Same test and key; then the message itself, so that the example shown
 * for a group is always the same one. */
static int cmp_failure_key(const void *a, const void *b)
{
    const struct failure *x = a, *y = b;
    int c = strcmp(x->test, y->test);

    return c != 0 ? c : strcmp(x->key, y->key);
}

static int cmp_failure_full(const void *a, const void *b)
{
    const struct failure *x = a, *y = b;
    size_t m = x->msg_len < y->msg_len ? x->msg_len : y->msg_len;
    int c = cmp_failure_key(a, b);

    if (c == 0 && (c = memcmp(x->msg, y->msg, m)) == 0)
        c = x->msg_len < y->msg_len ? -1 : x->msg_len > y->msg_len;
    return c;
}

static int cmp_failure_count(const void *a, const void *b)
{
    const struct failure *x = a, *y = b;

    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return cmp_failure_full(a, b);
}

/* Every failure of every row; *k gets the count. NULL: out of memory. */
static struct failure *collect_failures(const struct bat_row *rows, size_t n, size_t *k)
{
    size_t total = 0;
    struct failure *v;

    for (size_t i = 0; i < n; i++)
        total += rows[i].n_tests;
    if ((v = calloc(total ? total : 1, sizeof *v)) == NULL)
        return NULL;
    *k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < rows[i].n_tests; j++) {
            const struct bat_test_row *t = &rows[i].tests[j];

            if (!ran_and_failed(t->status))
                continue;
            v[*k] = (struct failure){t->id, t->message, strcspn(t->message, "\n"), 1, ""};
            message_key(v[*k].msg, v[*k].msg_len, v[*k].key, sizeof v[*k].key);
            (*k)++;
        }
    return v;
}

/* Fold the failures of one test whose messages differ only in their
 * numbers into counts, most common first. */
static size_t fold_failures(struct failure *v, size_t k)
{
    size_t m = 0;

    if (k > 1)
        qsort(v, k, sizeof *v, cmp_failure_full);
    for (size_t i = 0; i < k; i++) {
        if (m > 0 && cmp_failure_key(&v[m - 1], &v[i]) == 0)
            v[m - 1].count++;
        else
            v[m++] = v[i];
    }
    if (m > 1)
        qsort(v, m, sizeof *v, cmp_failure_count);
    return m;
}

static int md_failures(const struct bat_row *rows, size_t n, struct sb *out)
{
    size_t k = 0, m;
    struct failure *v = collect_failures(rows, n, &k);
    int rc = sb_adds(out, "\n## Most common failure messages\n\n");

    if (v == NULL)
        return -1;
    m = fold_failures(v, k);
    if (m == 0)
        rc |= sb_adds(out, "No test failed.\n");
    else
        rc |= sb_adds(out, "Messages that differ only in their numbers count as one; "
                      "the first of them is shown.\n\n"
                      "| submissions | test | message |\n|---:|---|---|\n");
    for (size_t i = 0; i < m && i < SUM_TOP_MESSAGES; i++) {
        rc |= sb_addf(out, "| %zu | ", v[i].count) | md_cell(out, v[i].test, strlen(v[i].test));
        rc |= sb_adds(out, " | ");
        rc |= md_cell(out, v[i].msg, v[i].msg_len < MSG_SHOWN ? v[i].msg_len : MSG_SHOWN);
        rc |= sb_adds(out, v[i].msg_len > MSG_SHOWN ? "… |\n" : " |\n");
    }
    free(v);
    return rc ? -1 : 0;
}

int sum_write_md(const struct bat_row *rows, size_t n, const char *const *test_ids,
                 size_t n_tests, struct sb *out)
{
    size_t m = 0;
    struct bat_row *g = sum_graded(rows, n, &m);
    int rc = g == NULL ? -1 : md_counts(rows, n, m, out);

    if (g != NULL) {
        rc |= md_distribution(g, m, out);
        rc |= md_rates(g, m, test_ids, n_tests, out);
        rc |= md_failures(g, m, out);
    }
    free(g);
    return rc ? -1 : 0;
}
