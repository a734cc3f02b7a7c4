/*
 * summary_svg.c -- summary.svg (see summary.h): the pass rate per function
 * with its tests nested under it, then the score histogram.
 *
 * The layout is a grid of fixed rows, so no two texts can overlap however
 * many tests there are: every label has its own row band, labels longer
 * than their column are cut with an ellipsis, and each text carries its
 * font size so that a test can measure its box (tests/test_summary.c).
 */
#include "batch/summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/summary_internal.h"

#define W 820            /* document width, at least */
#define LABEL_X 20       /* function labels; tests are indented by INDENT */
#define INDENT 16
#define BAR_X 300        /* bars from BAR_X at least (further right when a label
                            needs it), BAR_W wide for 100 % */
#define BAR_W 400
#define PCT_GAP 12       /* the percentage, right of the longest bar */
#define PCT_W 80         /* room for "100.0 %" in bold */
#define LABEL_MAX 56     /* characters of a label; longer ones are cut */
#define ROW_H 15
#define FONT 11          /* test rows; function rows are FONT + 1, bold */
#define BOLD_W 0.68      /* a bold glyph's width per pixel of font size */
#define CHAR_W 0.62      /* a glyph's width per pixel of font size (sans) */
#define HIST_X 70        /* the histogram's plot area */
#define HIST_BIN_W 64
#define HIST_H 200
#define MAX_TICKS 6

struct svgw {
    struct sb *out;
    int rc;
    double bar_x;        /* where the bars start: right of the longest label */
};

static void put(struct svgw *w, const char *s)
{
    w->rc |= sb_adds(w->out, s);
}

static void putf(struct svgw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct svgw *w, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    w->rc |= sb_vaddf(w->out, fmt, ap);
    va_end(ap);
}

/* XML text: markup characters escaped, forbidden controls as '?', cut
 * after `max` characters with an ellipsis (UTF-8 continuation bytes do
 * not count and are never split). */
static void put_text(struct svgw *w, const char *s, size_t max)
{
    size_t chars = 0;

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if ((c & 0xC0) != 0x80 && ++chars > max) {
            put(w, "\xE2\x80\xA6");
            return;
        }
        switch (c) {
        case '&': put(w, "&amp;"); break;
        case '<': put(w, "&lt;"); break;
        case '>': put(w, "&gt;"); break;
        case '"': put(w, "&quot;"); break;
        default: w->rc |= sb_addch(w->out, c < 0x20 && c != '\t' ? '?' : (char)c); break;
        }
    }
}

/* One <text> with its position, size, anchor and weight spelled out. */
static void text(struct svgw *w, double x, double y, int size, const char *anchor, int bold,
                 const char *s, size_t max)
{
    putf(w, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s>", x, y, size,
         anchor, bold ? " font-weight=\"bold\"" : "");
    put_text(w, s, max);
    put(w, "</text>\n");
}

static const char *rate_color(double pct)
{
    return pct >= 80 ? "#38a169" : pct >= 50 ? "#d69e2e" : "#e53e3e";
}

/* Characters of s as put_text counts them, at most LABEL_MAX (+1 for
 * the ellipsis of a longer one). */
static size_t label_chars(const char *s, size_t n)
{
    size_t chars = 0;

    for (size_t i = 0; i < n && s[i]; i++)
        chars += ((unsigned char)s[i] & 0xC0) != 0x80;
    return chars > LABEL_MAX ? LABEL_MAX + 1 : chars;
}

/* ---- pass rates ---- */

/* The length of the function part of a test id ("sdpa" of "sdpa.causal"). */
static size_t fn_len(const char *id)
{
    return strcspn(id, ".");
}

/* One row: a label, a bar for pct and the figure. */
static void rate_row(struct svgw *w, double y, const char *label, int fn_row, double pct)
{
    int size = fn_row ? FONT + 1 : FONT;
    double x = fn_row ? LABEL_X : LABEL_X + INDENT;
    char fig[16];

    text(w, x, y + 11.5, size, "start", fn_row, label, LABEL_MAX);
    putf(w, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"%s/>\n",
         w->bar_x, y + 2.5, BAR_W * pct / 100, fn_row ? 12 : 10, rate_color(pct),
         fn_row ? " stroke=\"#1a202c\" stroke-width=\"1\"" : "");
    sum_pct_text(pct, fig, sizeof fig);
    text(w, w->bar_x + BAR_W + PCT_GAP, y + 11.5, size, "start", fn_row, fig, 8);
}

/* The grid lines and their labels over the bars, from y0 down h pixels. */
static void rate_axis(struct svgw *w, double y0, double h)
{
    for (int t = 0; t <= 100; t += 25) {
        double x = w->bar_x + BAR_W * t / 100.0;
        char lab[8];

        snprintf(lab, sizeof lab, "%d %%", t);
        text(w, x, y0 - 4, 11, "middle", 0, lab, 6);
        putf(w, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cbd5e0\"/>\n",
             x, y0, x, y0 + h);
    }
}

/* Whether columns a and b test the same function. */
static int same_fn(const char *a, const char *b)
{
    return fn_len(a) == fn_len(b) && strncmp(a, b, fn_len(a)) == 0;
}

/*
 * The columns to draw, manual items left out, grouped by function (the
 * functions in order of first appearance, each one's tests in column
 * order: a hidden spec's tests join their function's public ones).
 * Returns how many; order[] holds their indices.
 */
static size_t draw_order(const char *const *ids, size_t n_tests, const int *manual,
                         size_t *order)
{
    size_t k = 0;

    for (size_t j = 0; j < n_tests; j++) {
        size_t first = 0;

        while (first < j && (manual[first] || !same_fn(ids[first], ids[j])))
            first++;
        if (manual[j] || first < j)
            continue;   /* drawn with the first column of its function */
        for (size_t i = j; i < n_tests; i++)
            if (!manual[i] && same_fn(ids[i], ids[j]))
                order[k++] = i;
    }
    return k;
}

/* The pass rate of the function of order[j], over all its drawn tests. */
static double fn_rate(const struct sum_rate *v, const size_t *order, size_t k, size_t j,
                      size_t n)
{
    size_t passed = 0, tests = 0;

    for (size_t i = j; i < k && same_fn(v[order[i]].id, v[order[j]].id); i++) {
        passed += v[order[i]].passed;
        tests++;
    }
    return sum_pct((double)passed, (double)(tests * n));
}

/* How many function rows the drawn columns make. */
static size_t fn_rows(const char *const *ids, const size_t *order, size_t k)
{
    size_t f = 0;

    for (size_t j = 0; j < k; j++)
        f += j == 0 || !same_fn(ids[order[j - 1]], ids[order[j]]);
    return f;
}

static void rate_rows(struct svgw *w, const struct sum_rate *v, const size_t *order, size_t k,
                      size_t n, double row)
{
    for (size_t j = 0; j < k; j++) {
        const char *id = v[order[j]].id;
        size_t len = fn_len(id);
        char fn[64];

        if (j == 0 || !same_fn(v[order[j - 1]].id, id)) {
            snprintf(fn, sizeof fn, "%.*s", (int)(len < 60 ? len : 60), id);
            rate_row(w, row, fn, 1, fn_rate(v, order, k, j, n));
            row += ROW_H + 2;
        }
        rate_row(w, row, id[len] == '.' ? id + len + 1 : id, 0,
                 sum_pct((double)v[order[j]].passed, (double)n));
        row += ROW_H;
    }
}

/* Where the bars start: right of the widest label (a function's, bold,
 * or a test's, indented), BAR_X at least. */
static double bars_at(const char *const *ids, const size_t *order, size_t k)
{
    double widest = 0;

    for (size_t j = 0; j < k; j++) {
        const char *id = ids[order[j]];
        size_t len = fn_len(id);
        double fn = (double)label_chars(id, len) * BOLD_W * (FONT + 1);
        double test = INDENT + (double)label_chars(id[len] == '.' ? id + len + 1 : id,
                                                   strlen(id)) * CHAR_W * FONT;

        widest = fn > widest ? fn : widest;
        widest = test > widest ? test : widest;
    }
    return LABEL_X + widest + 14 > BAR_X ? ceil(LABEL_X + widest + 14) : BAR_X;
}

/* The pass-rate section from y; returns its height. */
static double rates_section(struct svgw *w, const struct bat_row *rows, size_t n,
                            const char *const *ids, size_t n_tests, double y)
{
    struct sum_rate *v = sum_rates(rows, n, ids, n_tests, 0);
    int *manual = calloc(n_tests ? n_tests : 1, sizeof *manual);
    size_t *order = calloc(n_tests ? n_tests : 1, sizeof *order), k;
    double y0 = y + 34, h;

    if (v == NULL || manual == NULL || order == NULL) {
        free(v), free(manual), free(order);
        w->rc = -1;
        return 0;
    }
    for (size_t j = 0; j < n_tests; j++)
        manual[j] = sum_manual(rows, n, ids[j]);
    k = draw_order(ids, n_tests, manual, order);
    h = (double)k * ROW_H + (double)fn_rows(ids, order, k) * (ROW_H + 2);
    w->bar_x = bars_at(ids, order, k);
    text(w, LABEL_X, y + 14, 14, "start", 1, "Pass rate per function, its tests under it", 60);
    rate_axis(w, y0, h);   /* first: the bars are drawn over the grid */
    rate_rows(w, v, order, k, n, y0);
    free(v);
    free(manual);
    free(order);
    return y0 + h - y + 10;
}

/* ---- histogram ---- */

/* A step of 1, 2 or 5 times a power of ten giving at most MAX_TICKS
 * ticks from 0 to max: counts are whole, and so are the ticks. */
static size_t tick_step(size_t max)
{
    static const size_t mult[] = {1, 2, 5};

    for (size_t p = 1;; p *= 10)
        for (size_t i = 0; i < 3; i++)
            if (max / (mult[i] * p) + 1 <= MAX_TICKS)
                return mult[i] * p;
}

static void hist_bins(const double *p, size_t n, size_t bins[SUM_BINS], size_t *max)
{
    *max = 0;
    for (size_t i = 0; i < n; i++) {
        size_t b = p[i] <= 0 ? 0 : (size_t)(p[i] / (100.0 / SUM_BINS));

        bins[b >= SUM_BINS ? SUM_BINS - 1 : b]++;
    }
    for (size_t b = 0; b < SUM_BINS; b++)
        *max = bins[b] > *max ? bins[b] : *max;
}

static void hist_axes(struct svgw *w, double top, size_t max, size_t step)
{
    double base = top + HIST_H;

    text(w, LABEL_X, top - 14, 11, "start", 0, "submissions", 12);
    for (size_t t = 0; t <= max; t += step) {
        double y = base - HIST_H * (double)t / (double)max;
        char lab[24];

        snprintf(lab, sizeof lab, "%zu", t);
        text(w, HIST_X - 8, y + 4, 11, "end", 0, lab, 8);
        putf(w, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e2e8f0\"/>\n",
             HIST_X, y, HIST_X + SUM_BINS * HIST_BIN_W, y);
    }
    putf(w, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#4a5568\"/>\n", HIST_X,
         base, HIST_X + SUM_BINS * HIST_BIN_W, base);
}

/* The histogram section from y; returns its height. */
static double hist_section(struct svgw *w, const struct bat_row *rows, size_t n, double y)
{
    double *p = sum_score_pcts(rows, n), top = y + 64, sum = 0;
    size_t bins[SUM_BINS] = {0}, max = 0, step;
    char line[160];

    if (p == NULL) {
        w->rc = -1;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        sum += p[i];
    hist_bins(p, n, bins, &max);
    max = max ? max : 1;
    step = tick_step(max);
    max = (max + step - 1) / step * step;   /* the axis ends on a tick */
    text(w, LABEL_X, y + 14, 14, "start", 1, "Score distribution", 40);
    snprintf(line, sizeof line, "%zu %s; mean %.1f %%, median %.1f %% of the maximum", n,
             n == 1 ? "submission" : "submissions", sum / (double)n,
             n % 2 ? p[n / 2] : (p[n / 2 - 1] + p[n / 2]) / 2);
    text(w, LABEL_X, y + 32, 12, "start", 0, line, 90);
    hist_axes(w, top, max, step);
    for (size_t b = 0; b < SUM_BINS; b++) {
        double x = HIST_X + (double)b * HIST_BIN_W, h = HIST_H * (double)bins[b] / (double)max;
        char lab[24];

        putf(w, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#4299e1\"/>\n",
             x + 4, top + HIST_H - h, HIST_BIN_W - 8, h);
        snprintf(lab, sizeof lab, "%zu", bins[b]);
        if (bins[b] > 0)
            text(w, x + HIST_BIN_W / 2.0, top + HIST_H - h - 4, 11, "middle", 0, lab, 8);
        snprintf(lab, sizeof lab, "%zu\xE2\x80\x93%zu", b * 100 / SUM_BINS,
                 (b + 1) * 100 / SUM_BINS);
        text(w, x + HIST_BIN_W / 2.0, top + HIST_H + 16, 11, "middle", 0, lab, 8);
    }
    text(w, HIST_X + SUM_BINS * HIST_BIN_W / 2.0, top + HIST_H + 36, 12, "middle", 0,
         "score (% of the maximum)", 40);
    free(p);
    return top + HIST_H + 50 - y;
}

/* ---- the document ---- */

static int empty_svg(struct sb *out)
{
    return sb_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"320\" height=\"40\" "
                        "viewBox=\"0 0 320 40\">"
                        "<text x=\"10\" y=\"25\" font-size=\"14\" font-family=\"sans-serif\">"
                        "no submissions</text></svg>\n");
}

int sum_write_svg(const struct bat_row *rows, size_t n, const char *const *test_ids,
                  size_t n_tests, struct sb *out)
{
    size_t m = 0;
    struct bat_row *g = sum_graded(rows, n, &m);
    struct sb body;
    struct svgw w = {&body, 0, BAR_X};
    double h, width;

    if (g == NULL)
        return -1;
    if (m == 0 || n_tests == 0) {
        free(g);
        return empty_svg(out);
    }
    sb_init(&body, 0);
    h = rates_section(&w, g, m, test_ids, n_tests, 20);
    h += hist_section(&w, g, m, 20 + h);
    width = w.bar_x + BAR_W + PCT_GAP + PCT_W > W ? w.bar_x + BAR_W + PCT_GAP + PCT_W : W;
    w.out = out;
    putf(&w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
             "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
             "<title>Class summary</title>\n"
             "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
             ceil(width), ceil(h + 30), ceil(width), ceil(h + 30));
    w.rc |= sb_add(out, sb_str(&body), body.len) | sb_adds(out, "</svg>\n");
    w.rc |= body.truncated ? -1 : 0;
    sb_release(&body);
    free(g);
    return w.rc ? -1 : 0;
}
