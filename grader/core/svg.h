/*
 * svg.h -- a tiny SVG writer for the self-check figures: the attention map
 * (heatmap) and the saturation curves (lines). (The batch summary's charts
 * are batch/summary_svg.c's own.)
 *
 * Each figure function writes one whole, self-contained SVG document
 * (no scripts, no external references, fonts by generic family) into a
 * strbuf, replacing what it held. Every piece of caller text is
 * XML-escaped, and control characters that XML 1.0 forbids become '?', so
 * the output is well-formed whatever the labels are. The strbuf's cap is
 * the figure's: one that would not fit fails instead of being cut (give
 * sb_init SVG_DEFAULT_CAP).
 *
 * All the figure functions return 0, or -1 with `e` set (the cap was
 * reached, out of memory, or invalid options such as zero rows); on
 * failure the buffer holds an empty document ("").
 */
#ifndef GRD_SVG_H
#define GRD_SVG_H

#include <stddef.h>

#include "core/err.h"
#include "core/strbuf.h"

#define SVG_DEFAULT_CAP (4u << 20)

/* Write the document in b to `path` (replacing it). Returns 0, or -1 with
 * e set; on failure the file may be partly written. */
int svg_save(const struct sb *b, const char *path, struct err *e)
    __attribute__((warn_unused_result));

/* A matrix of values as coloured cells, with a label per row and column
 * and a colour legend from vmin (white) to vmax (dark blue). */
struct svg_heatmap_opts {
    const char *title;
    const char *subtitle;          /* a line under the title, or NULL */
    const char *row_axis, *col_axis; /* axis names, e.g. "query", "key" */
    const char *const *row_labels; /* rows entries */
    const char *const *col_labels; /* cols entries */
    size_t rows, cols;             /* >= 1 each, at most 256 */
    const double *values;          /* rows x cols, row-major */
    double vmin, vmax;             /* colour scale; vmax > vmin */
    int show_values;               /* 1: print each value in its cell */
};

int svg_heatmap(struct sb *b, const struct svg_heatmap_opts *o,
                struct err *e) __attribute__((warn_unused_result));

/* One curve of a line chart: n values over the chart's x. */
struct svg_series {
    const char *label;
    const double *y;
};

/* Curves over shared x values, with axes, ticks at each x and a legend. */
struct svg_lines_opts {
    const char *title, *subtitle, *x_label, *y_label;
    const double *x;               /* n values, increasing (> 0 for log2_x) */
    size_t n;                      /* >= 2 */
    int log2_x;                    /* 1: the x axis is log2 */
    const struct svg_series *series;
    size_t n_series;               /* 1 .. 6 */
    double y_min, y_max;           /* y_max > y_min */
};

int svg_lines(struct sb *b, const struct svg_lines_opts *o,
              struct err *e) __attribute__((warn_unused_result));

#endif
