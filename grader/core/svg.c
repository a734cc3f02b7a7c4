/* svg.c -- see svg.h. */
#include "core/svg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT "font-family=\"sans-serif\""
#define MAX_CELLS 256
#define MAX_SERIES 6

static const char *const palette[MAX_SERIES] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
};

int svg_save(const struct sb *b, const char *path, struct err *e)
{
    FILE *f = fopen(path, "w");
    int bad;

    if (f == NULL)
        return err_set(e, path, 0, 0, "cannot write: %s", strerror(errno));
    bad = fwrite(sb_str(b), 1, b->len, f) != b->len;
    bad |= fclose(f) != 0;
    return bad ? err_set(e, path, 0, 0, "cannot write: %s", strerror(errno)) : 0;
}

static void put(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An append that does not fit leaves b->truncated set: finish() fails the
 * figure then, so no single append needs checking. */
static void put(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    int cut;

    va_start(ap, fmt);
    cut = sb_vaddf(b, fmt, ap);
    va_end(ap);
    (void)cut;
}

/* Caller text, XML-escaped; forbidden control characters become '?'. */
static void put_text(struct sb *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&')
            put(b, "&amp;");
        else if (c == '<')
            put(b, "&lt;");
        else if (c == '>')
            put(b, "&gt;");
        else if (c == '"')
            put(b, "&quot;");
        else if (c < 0x20 && c != '\t' && c != '\n')
            put(b, "?");
        else
            put(b, "%c", c);
    }
}

/* <text x y [extra]>s</text> */
static void put_label(struct sb *b, double x, double y, const char *extra,
                      const char *s)
{
    put(b, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, extra);
    put_text(b, s);
    put(b, "</text>\n");
}

/* Subtitles are wrapped to the figure's width, never cut: a 12 px sans
 * glyph is at most SUB_CHAR_W px wide, each extra line SUB_LINE_H tall. */
#define SUB_CHAR_W 6.8
#define SUB_LINE_H 16

static size_t sub_chars(double w)
{
    size_t n = (size_t)((w - 32) / SUB_CHAR_W);

    return n < 20 ? 20 : n;
}

/* The length of the next line of s (at most max characters, broken after
 * the last space that fits, or hard when one word is longer); *skip gets
 * the bytes up to the next line's start. */
static size_t sub_line(const char *s, size_t max, size_t *skip)
{
    size_t n = strlen(s), brk = 0;

    if (n <= max) {
        *skip = n;
        return n;
    }
    for (size_t i = 0; i <= max; i++)
        if (s[i] == ' ')
            brk = i;
    if (brk == 0)
        brk = max;
    *skip = brk + (s[brk] == ' ');
    return brk;
}

/* The extra height a subtitle needs on a figure `w` wide. */
static double sub_extra(const char *subtitle, double w)
{
    size_t lines = 0, skip;

    for (const char *p = subtitle; p && *p; p += skip, lines++)
        sub_line(p, sub_chars(w), &skip);
    return lines > 1 ? (double)(lines - 1) * SUB_LINE_H : 0;
}

static void put_subtitle(struct sb *b, double w, const char *s)
{
    char line[512];
    size_t skip, n, k = 0;

    for (; *s; s += skip, k++) {
        n = sub_line(s, sub_chars(w), &skip);
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), s);
        put_label(b, 16, 44 + (double)k * SUB_LINE_H, "fill=\"#444\"", line);
    }
}

static void begin(struct sb *b, double w, double h, const char *title,
                  const char *subtitle)
{
    sb_reset(b);
    put(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
           "viewBox=\"0 0 %.0f %.0f\" " FONT " font-size=\"12\">\n<title>", w, h, w, h);
    put_text(b, title);
    put(b, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    put_label(b, 16, 24, "font-size=\"16\" font-weight=\"bold\"", title);
    if (subtitle != NULL)
        put_subtitle(b, w, subtitle);
}

/* Close the document; on overflow leave "" and report. */
static int finish(struct sb *b, struct err *e)
{
    put(b, "</svg>\n");
    if (!b->truncated)
        return 0;
    sb_reset(b);
    return err_set(e, NULL, 0, 0, "figure larger than %zu bytes", b->cap);
}

static int fail_opts(struct sb *b, struct err *e, const char *what)
{
    sb_reset(b);
    return err_set(e, NULL, 0, 0, "invalid figure: %s", what);
}

/* ---- heatmap ------------------------------------------------------------------ */

/* White (t = 0) to dark blue (t = 1). */
static void colour(double t, char *buf, size_t n)
{
    static const double lo[3] = {255, 255, 255}, hi[3] = {8, 48, 107};
    int c[3];

    t = isfinite(t) ? (t < 0 ? 0 : t > 1 ? 1 : t) : 0;
    for (int i = 0; i < 3; i++)
        c[i] = (int)lround(lo[i] + (hi[i] - lo[i]) * t);
    snprintf(buf, n, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static size_t longest(const char *const *labels, size_t n)
{
    size_t m = 0;

    for (size_t i = 0; i < n; i++)
        if (labels[i] && strlen(labels[i]) > m)
            m = strlen(labels[i]);
    return m > 24 ? 24 : m;
}

struct hm_geo {
    double cell, left, top;
};

static void hm_cells(struct sb *b, const struct svg_heatmap_opts *o,
                     const struct hm_geo *g)
{
    char fill[8];

    for (size_t r = 0; r < o->rows; r++)
        for (size_t c = 0; c < o->cols; c++) {
            double v = o->values[r * o->cols + c];
            double t = (v - o->vmin) / (o->vmax - o->vmin);
            double x = g->left + (double)c * g->cell, y = g->top + (double)r * g->cell;
            colour(t, fill, sizeof fill);
            put(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"%s\" stroke=\"#ddd\"><title>%.4f</title></rect>\n",
                x, y, g->cell, g->cell, fill, v);
            if (o->show_values)
                put(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"8\" text-anchor=\"middle\" "
                       "fill=\"%s\">%.2f</text>\n", x + g->cell / 2, y + g->cell / 2 + 3,
                    t > 0.5 ? "white" : "black", v);
        }
}

static void hm_labels(struct sb *b, const struct svg_heatmap_opts *o,
                      const struct hm_geo *g)
{
    char attr[96];

    for (size_t r = 0; r < o->rows; r++)
        put_label(b, g->left - 6, g->top + ((double)r + 0.6) * g->cell,
                  "text-anchor=\"end\"", o->row_labels[r]);
    for (size_t c = 0; c < o->cols; c++) {
        double x = g->left + ((double)c + 0.6) * g->cell, y = g->top - 6;
        snprintf(attr, sizeof attr, "transform=\"rotate(-60 %.1f %.1f)\"", x, y);
        put_label(b, x, y, attr, o->col_labels[c]);
    }
    put_label(b, 16, g->top - 6, "font-style=\"italic\"", o->row_axis);
    snprintf(attr, sizeof attr, "font-style=\"italic\" text-anchor=\"middle\"");
    put_label(b, g->left + (double)o->cols * g->cell / 2,
              g->top + (double)o->rows * g->cell + 20, attr, o->col_axis);
}

static void hm_legend(struct sb *b, const struct svg_heatmap_opts *o, double x,
                      double y, double h)
{
    char lo[8], hi[8];

    colour(0, lo, sizeof lo);
    colour(1, hi, sizeof hi);
    put(b, "<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
           "<stop offset=\"0\" stop-color=\"%s\"/><stop offset=\"1\" stop-color=\"%s\"/>"
           "</linearGradient></defs>\n", lo, hi);
    put(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"%.1f\" fill=\"url(#scale)\" "
           "stroke=\"#888\"/>\n", x, y, h);
    put(b, "<text x=\"%.1f\" y=\"%.1f\">%.3g</text>\n", x + 18, y + 10, o->vmax);
    put(b, "<text x=\"%.1f\" y=\"%.1f\">%.3g</text>\n", x + 18, y + h, o->vmin);
    put(b, "<text x=\"%.1f\" y=\"%.1f\">weight</text>\n", x, y - 6);
}

int svg_heatmap(struct sb *b, const struct svg_heatmap_opts *o,
                struct err *e)
{
    struct hm_geo g;
    double w, h, side;

    if (o->rows == 0 || o->cols == 0 || o->rows > MAX_CELLS || o->cols > MAX_CELLS ||
        !(o->vmax > o->vmin) || o->values == NULL || !o->row_labels || !o->col_labels)
        return fail_opts(b, e, "heatmap needs rows, columns, labels and vmax > vmin");
    g.cell = o->rows > 32 || o->cols > 32 ? 16 : 26;
    g.left = 30 + 7.5 * (double)longest(o->row_labels, o->rows);
    g.top = 70 + 6.5 * (double)longest(o->col_labels, o->cols);
    side = (double)o->rows * g.cell;
    w = g.left + (double)o->cols * g.cell + 90;
    w = w < 420 ? 420 : w;
    g.top += sub_extra(o->subtitle, w);
    h = g.top + side + 40;
    begin(b, w, h, o->title, o->subtitle);
    hm_cells(b, o, &g);
    hm_labels(b, o, &g);
    hm_legend(b, o, g.left + (double)o->cols * g.cell + 20, g.top + 10,
              side > 60 ? side - 20 : 40);
    return finish(b, e);
}

/* ---- axes ------------------------------------------------------------------------ */

struct plot {
    double x0, y0, w, h;      /* the plot area */
    double xmin, xmax, ymin, ymax;
    int log2_x;
};

static double px(const struct plot *p, double x)
{
    double v = p->log2_x ? log2(x) : x;
    double lo = p->log2_x ? log2(p->xmin) : p->xmin;
    double hi = p->log2_x ? log2(p->xmax) : p->xmax;

    return p->x0 + (hi > lo ? (v - lo) / (hi - lo) : 0.5) * p->w;
}

static double py(const struct plot *p, double y)
{
    return p->y0 + p->h - (y - p->ymin) / (p->ymax - p->ymin) * p->h;
}

/* The frame, five y ticks with grid lines, and the axis names. */
static void axes(struct sb *b, const struct plot *p, const char *x_label,
                 const char *y_label)
{
    char attr[96];

    put(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
           "stroke=\"black\"/>\n", p->x0, p->y0, p->w, p->h);
    for (int i = 0; i <= 4; i++) {
        double v = p->ymin + (p->ymax - p->ymin) * i / 4.0, y = py(p, v);
        put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n",
            p->x0, y, p->x0 + p->w, y);
        put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
            p->x0 - 6, y + 4, v);
    }
    put_label(b, p->x0 + p->w / 2, p->y0 + p->h + 40, "text-anchor=\"middle\"", x_label);
    snprintf(attr, sizeof attr, "text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\"",
             p->x0 - 48, p->y0 + p->h / 2);
    put_label(b, p->x0 - 48, p->y0 + p->h / 2, attr, y_label);
}

/* ---- line chart ---------------------------------------------------------------- */

static void line_series(struct sb *b, const struct plot *p, const double *x,
                        size_t n, const struct svg_series *s, const char *col)
{
    put(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
    for (size_t i = 0; i < n; i++)
        put(b, "%s%.1f,%.1f", i ? " " : "", px(p, x[i]), py(p, s->y[i]));
    put(b, "\"/>\n");
    for (size_t i = 0; i < n; i++)
        put(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%g: %.4f</title>"
               "</circle>\n", px(p, x[i]), py(p, s->y[i]), col, x[i], s->y[i]);
}

static void line_legend(struct sb *b, const struct svg_lines_opts *o,
                        const struct plot *p)
{
    for (size_t i = 0; i < o->n_series; i++) {
        double y = p->y0 + 16 + 18 * (double)i, x = p->x0 + p->w + 14;
        put(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-width=\"2\"/>\n", x, y - 4, x + 20, y - 4, palette[i]);
        put_label(b, x + 26, y, "", o->series[i].label);
    }
}

static int lines_valid(const struct svg_lines_opts *o)
{
    if (o->n < 2 || o->n_series == 0 || o->n_series > MAX_SERIES || !(o->y_max > o->y_min) ||
        o->x == NULL || o->series == NULL || !(o->x[o->n - 1] > o->x[0]))
        return 0;
    for (size_t i = 0; i < o->n; i++)
        if (!isfinite(o->x[i]) || (o->log2_x && !(o->x[i] > 0)))
            return 0;
    return 1;
}

int svg_lines(struct sb *b, const struct svg_lines_opts *o, struct err *e)
{
    struct plot p = {80, 64 + sub_extra(o->subtitle, 760), 440, 300, 0, 0, o->y_min,
                     o->y_max, o->log2_x};

    if (!lines_valid(o))
        return fail_opts(b, e, "a line chart needs >= 2 increasing x values, 1..6 "
                         "series and y_max > y_min");
    p.xmin = o->x[0];
    p.xmax = o->x[o->n - 1];
    begin(b, 760, 430 + sub_extra(o->subtitle, 760), o->title, o->subtitle);
    axes(b, &p, o->x_label, o->y_label);
    for (size_t i = 0; i < o->n; i++)
        put(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
            px(&p, o->x[i]), p.y0 + p.h + 16, o->x[i]);
    for (size_t i = 0; i < o->n_series; i++)
        line_series(b, &p, o->x, o->n, &o->series[i], palette[i]);
    line_legend(b, o, &p);
    return finish(b, e);
}
