/*
 * html_internal.h -- what the page's two files share (html.c: the page,
 * the gradebook table, the students; html_pairs.c: the similar pairs and
 * their side-by-side views). Internal to batch/: not an API.
 */
#ifndef GRD_HTML_INTERNAL_H
#define GRD_HTML_INTERNAL_H

#include <stddef.h>

#include "batch/batch.h"
#include "core/strbuf.h"

#define HTML_SIM_NAME "similarity.csv"
#define HTML_SIM_MAX (4u << 20)
/* Bytes kept free after the rows, pairs and students for what closes the
 * page's sections and the charts between them. */
#define HTML_TAIL_RESERVE (64u << 10)

/* How much of each part the page renders at one level of detail; a level
 * is tried when the one before it did not fit the page's cap (html.h). */
struct html_level {
    size_t text_max;   /* rendered bytes of one staff.md or feedback.md; 0: not shown */
    size_t pane_max;   /* rendered bytes of one source of a side-by-side view */
    long context;      /* lines shown around the matched ones; -1: every line */
    size_t views;      /* pairs shown side by side, strongest first */
};

/* One rendering of the page's body at one level, and what it left out. */
struct html_page {
    const char *dir;
    const struct html_level *lv;
    size_t level;
    size_t room;           /* bytes the body may hold */
    struct sb item;        /* one row, pair or student before it joins the body */
    size_t cut_texts;      /* files cut at text_max */
    size_t cut_views;      /* views cut at pane_max */
    size_t folds, folded;  /* runs of empty lines shown as one, their lines */
    size_t rows_left, pairs_left, students_left;  /* did not fit the room */
};

/* Start an item (a row, a pair, a student): pg->item emptied and capped by
 * what is left of the room after `body`. Returns pg->item. */
struct sb *html_item(struct html_page *pg, const struct sb *body);

/* The item joins the body. Returns 0, 1 when it did not fit (the body is
 * unchanged), or -1 (body's cap). */
int html_commit(struct html_page *pg, struct sb *body);

/* html_add_text() of s[0..n) (newlines kept), stopping before the output
 * passes `max` bytes from `from` (out->len when the part began). Returns
 * 1 when cut, 0, or -1 (out's cap). */
int html_text_upto(struct sb *out, const char *s, size_t n, size_t from, size_t max);

/* html_add_text() of a one-line string (NULL: nothing). 0 or -1. */
int html_text1(struct sb *out, const char *s);

/* Read at most `cap` bytes of `path` into sb (empty). Returns 1 when the
 * file was longer (cut), 0, or -1 when it cannot be read. */
int html_read_capped(const char *path, size_t cap, struct sb *sb);

/* html_read_capped() of <dir>/<id>/<name>. */
int html_read_text(const char *dir, const char *id, const char *name, size_t cap,
                   struct sb *sb);

/* The similar pairs' section from <pg->dir>/similarity.csv (none when it
 * is absent; a line saying why when it cannot be read or parsed), its
 * rows and views bounded as pg->lv says. Returns 0 or -1 (body's cap). */
int html_similar(struct html_page *pg, struct sb *body, const struct bat_row *rows, size_t n);

#endif
