/* summary.c -- see summary.h. */
#include "batch/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade.h"
#include "core/svg.h"

#define MSG_SHOWN 240   /* bytes of a failure message shown in the table */


/* A test's pass count; idx keeps ties in column order. */
struct rate {
    const char *id;
    size_t passed, idx;
};

/* One failure: test id and the first line of its message. */
struct failure {
    const char *test, *msg;
    size_t msg_len, count;
};

static const struct bat_test_row *find_test(const struct bat_row *r, const char *id)
{
    for (size_t i = 0; i < r->n_tests; i++)
        if (strcmp(r->tests[i].id, id) == 0)
            return &r->tests[i];
    return NULL;
}

static int cmp_rate(const void *a, const void *b)
{
    const struct rate *x = a, *y = b;

    if (x->passed != y->passed)
        return x->passed < y->passed ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Pass counts per column, worst first; NULL when out of memory. */
static struct rate *rates(const struct bat_row *rows, size_t n,
                          const char *const *ids, size_t n_tests)
{
    struct rate *v = calloc(n_tests ? n_tests : 1, sizeof *v);

    for (size_t j = 0; v != NULL && j < n_tests; j++) {
        v[j].id = ids[j];
        v[j].idx = j;
        for (size_t i = 0; i < n; i++) {
            const struct bat_test_row *t = find_test(&rows[i], ids[j]);

            v[j].passed += t != NULL && strcmp(t->status, "passed") == 0;
        }
    }
    if (v != NULL && n_tests > 1)
        qsort(v, n_tests, sizeof *v, cmp_rate);
    return v;
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

/* ---- Markdown ---- */

/* Table-cell text: '|' escaped, newlines as spaces, HTML kept inert. */
static int md_cell(struct strbuf *sb, const char *s, size_t n)
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

static int md_counts(const struct bat_row *rows, size_t n, struct strbuf *out)
{
    int rc = sb_addf(out, "# Class summary\n\n%zu submissions graded.\n\n"
                          "| status | submissions |\n|---|---:|\n", n);

    for (int st = GRADE_OK; st <= GRADE_ERROR; st++)
        rc |= sb_addf(out, "| %s | %zu |\n", grade_status_name((enum grade_status)st),
                      count_status(rows, n, grade_status_name((enum grade_status)st)));
    return rc ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* Scores as percentages of their maximum, sorted; NULL when n is 0 or
 * out of memory. */
static double *score_pcts(const struct bat_row *rows, size_t n)
{
    double *v = n ? malloc(n * sizeof *v) : NULL;

    for (size_t i = 0; v != NULL && i < n; i++)
        v[i] = pct(rows[i].score, rows[i].max_score);
    if (v != NULL)
        qsort(v, n, sizeof *v, cmp_double);
    return v;
}

static size_t bin_of(double p)
{
    size_t b = p <= 0 ? 0 : (size_t)(p / (100.0 / SUM_BINS));

    return b >= SUM_BINS ? SUM_BINS - 1 : b;
}

static int md_distribution(const struct bat_row *rows, size_t n, struct strbuf *out)
{
    double *p = score_pcts(rows, n), sum = 0, med;
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

static int md_rates(const struct bat_row *rows, size_t n, const char *const *ids,
                    size_t n_tests, struct strbuf *out)
{
    struct rate *v = rates(rows, n, ids, n_tests);
    int rc = sb_adds(out, "\n## Pass rate per test, worst first\n\n"
                          "| test | passed | pass rate |\n|---|---:|---:|\n");

    if (v == NULL)
        return -1;
    for (size_t j = 0; j < n_tests; j++) {
        rc |= sb_adds(out, "| ") | md_cell(out, v[j].id, strlen(v[j].id));
        rc |= sb_addf(out, " | %zu/%zu | %.1f %% |\n", v[j].passed, n,
                      pct((double)v[j].passed, (double)n));
    }
    free(v);
    return rc ? -1 : 0;
}

static int ran_and_failed(const char *status)
{
    return strcmp(status, "passed") != 0 && strcmp(status, "not_run") != 0 &&
           strcmp(status, "manual_pending") != 0;
}

static int cmp_failure_key(const void *a, const void *b)
{
    const struct failure *x = a, *y = b;
    size_t m = x->msg_len < y->msg_len ? x->msg_len : y->msg_len;
    int c = strcmp(x->test, y->test);

    if (c == 0 && (c = memcmp(x->msg, y->msg, m)) == 0)
        c = x->msg_len < y->msg_len ? -1 : x->msg_len > y->msg_len;
    return c;
}

static int cmp_failure_count(const void *a, const void *b)
{
    const struct failure *x = a, *y = b;

    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return cmp_failure_key(a, b);
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
            v[*k] = (struct failure){t->id, t->message, strcspn(t->message, "\n"), 1};
            (*k)++;
        }
    return v;
}

/* Fold equal (test, message) pairs into counts, most common first. */
static size_t fold_failures(struct failure *v, size_t k)
{
    size_t m = 0;

    if (k > 1)
        qsort(v, k, sizeof *v, cmp_failure_key);
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

static int md_failures(const struct bat_row *rows, size_t n, struct strbuf *out)
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
        rc |= sb_adds(out, "| submissions | test | message |\n|---:|---|---|\n");
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
                 size_t n_tests, struct strbuf *out)
{
    int rc = md_counts(rows, n, out);

    rc |= md_distribution(rows, n, out);
    rc |= md_rates(rows, n, test_ids, n_tests, out);
    rc |= md_failures(rows, n, out);
    return rc ? -1 : 0;
}

/* ---- SVG ---- */

/* Append figure `doc` (one whole SVG document from svg.h) shifted down by
 * y, without its XML declaration; *w and *h get its size. */
static int embed(struct strbuf *out, const char *doc, double y, double *w, double *h)
{
    const char *svg = strstr(doc, "<svg");
    const char *wp = svg ? strstr(svg, "width=\"") : NULL;
    const char *hp = svg ? strstr(svg, "height=\"") : NULL;

    if (svg == NULL || wp == NULL || hp == NULL)
        return -1;
    *w = strtod(wp + 7, NULL);
    *h = strtod(hp + 8, NULL);
    if (sb_addf(out, "<g transform=\"translate(0,%.0f)\">\n", y) < 0 ||
        sb_adds(out, svg) < 0)
        return -1;
    return sb_adds(out, "</g>\n");
}

static int bars_figure(struct svg_buf *b, const struct bat_row *rows, size_t n,
                       const char *const *ids, size_t n_tests)
{
    struct rate *v = rates(rows, n, ids, n_tests);
    const char **labels = calloc(n_tests ? n_tests : 1, sizeof *labels);
    double *vals = calloc(n_tests ? n_tests : 1, sizeof *vals);
    struct svg_bars_opts o = {"Pass rate per test, worst first", NULL, "test",
                              "% of submissions passing", labels, vals, n_tests, 100};
    int rc = -1;

    if (v != NULL && labels != NULL && vals != NULL) {
        for (size_t j = 0; j < n_tests; j++) {
            labels[j] = v[j].id;
            vals[j] = pct((double)v[j].passed, (double)n);
        }
        rc = svg_bars(b, &o, NULL);
    }
    free(v);
    free(labels);
    free(vals);
    return rc;
}

static int histogram_figure(struct svg_buf *b, const struct bat_row *rows, size_t n)
{
    double *p = score_pcts(rows, n);
    struct svg_histogram_opts o = {"Score distribution", NULL, "score (% of the maximum)",
                                   "submissions", p, n, SUM_BINS, 0, 100};
    int rc = p == NULL ? -1 : svg_histogram(b, &o, NULL);

    free(p);
    return rc;
}

static int empty_svg(struct strbuf *out)
{
    return sb_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"320\" height=\"40\">"
                        "<text x=\"10\" y=\"25\" font-family=\"sans-serif\">"
                        "no submissions</text></svg>\n");
}

int sum_write_svg(const struct bat_row *rows, size_t n, const char *const *test_ids,
                  size_t n_tests, struct strbuf *out)
{
    struct svg_buf *bars = svg_buf_new(SVG_DEFAULT_CAP), *hist = svg_buf_new(SVG_DEFAULT_CAP);
    struct strbuf body;
    double w1 = 0, h1 = 0, w2 = 0, h2 = 0;
    int rc = bars == NULL || hist == NULL ? -1 : 0;

    sb_init(&body, 0);
    if (rc == 0 && (n == 0 || n_tests == 0))
        rc = empty_svg(out) < 0 ? -1 : 1;
    if (rc == 0)
        rc = bars_figure(bars, rows, n, test_ids, n_tests) |
             histogram_figure(hist, rows, n);
    if (rc == 0)
        rc = embed(&body, svg_buf_data(bars), 0, &w1, &h1);
    if (rc == 0)
        rc = embed(&body, svg_buf_data(hist), h1, &w2, &h2);
    if (rc == 0)
        rc = sb_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
                          "<title>Class summary</title>\n",
                     w1 > w2 ? w1 : w2, h1 + h2, w1 > w2 ? w1 : w2, h1 + h2) |
             sb_add(out, sb_str(&body), body.len) | sb_adds(out, "</svg>\n");
    sb_release(&body);
    svg_buf_free(bars);
    svg_buf_free(hist);
    return rc < 0 ? -1 : 0;
}
