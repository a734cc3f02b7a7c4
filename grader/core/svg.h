/*
 * svg.h -- a tiny SVG writer for the grader's figures: the attention map
 * (heatmap), the saturation curves (lines), and the batch summary's bar
 * chart and score histogram.
 *
 * Each figure function writes one whole, self-contained SVG document
 * (no scripts, no external references, fonts by generic family) into a
 * `struct svg_buf`, replacing what it held. Every piece of caller text is
 * XML-escaped, and control characters that XML 1.0 forbids become '?', so
 * the output is well-formed whatever the labels are. The buffer has a hard
 * cap: a figure that would not fit fails instead of growing.
 *
 * All the figure functions return 0, or -1 with `e` set (the cap was
 * reached, out of memory, or invalid options such as zero rows); on
 * failure the buffer holds an empty document ("").
 */
#ifndef GRD_SVG_H
#define GRD_SVG_H

#include <stddef.h>

#include "core/err.h"

#define SVG_DEFAULT_CAP (4u << 20)
#define SVG_MAX_BINS 100

/* A growable text buffer with a cap (opaque). */
struct svg_buf;

/* A new empty buffer that never grows past `cap` bytes; NULL when out of
 * memory. Free with svg_buf_free. */
struct svg_buf *svg_buf_new(size_t cap);

/* Free the buffer. NULL is a no-op. */
void svg_buf_free(struct svg_buf *b);

/* The document (NUL-terminated, owned by b) and its length in bytes. */
const char *svg_buf_data(const struct svg_buf *b);
size_t svg_buf_len(const struct svg_buf *b);

/* Write the document to `path` (replacing it). Returns 0, or -1 with e set;
 * on failure the file may be partly written. */
int svg_buf_save(const struct svg_buf *b, const char *path, struct grd_err *e)
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

int svg_heatmap(struct svg_buf *b, const struct svg_heatmap_opts *o,
                struct grd_err *e) __attribute__((warn_unused_result));

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

int svg_lines(struct svg_buf *b, const struct svg_lines_opts *o,
              struct grd_err *e) __attribute__((warn_unused_result));

/* One bar per labelled value, from 0 up; y axis 0..y_max. */
struct svg_bars_opts {
    const char *title, *subtitle, *x_label, *y_label;
    const char *const *labels;     /* n entries */
    const double *values;          /* n values >= 0 */
    size_t n;                      /* 1 .. 256 */
    double y_max;                  /* 0: the largest value */
};

int svg_bars(struct svg_buf *b, const struct svg_bars_opts *o,
             struct grd_err *e) __attribute__((warn_unused_result));

/* The values counted into `bins` equal bins over [lo, hi] (values outside
 * go to the end bins; NaN is skipped), drawn as bars labelled by range. */
struct svg_histogram_opts {
    const char *title, *subtitle, *x_label, *y_label;
    const double *values;
    size_t n;
    size_t bins;                   /* 1 .. SVG_MAX_BINS */
    double lo, hi;                 /* hi > lo */
};

int svg_histogram(struct svg_buf *b, const struct svg_histogram_opts *o,
                  struct grd_err *e) __attribute__((warn_unused_result));

#endif
