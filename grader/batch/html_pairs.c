/* html_pairs.c -- see html.h: the similar pairs of report.html, each
 * pair's row and, for the strongest, its two sources side by side. */
#include "batch/html.h"
#include "batch/html_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/export.h"

static long row_of(const struct bat_row *rows, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].id, id) == 0)
            return (long)i;
    return -1;
}

static int pair_id(struct sb *out, const struct bat_row *rows, size_t n, const char *id)
{
    long i = row_of(rows, n, id);

    if (i < 0)
        return sb_adds(out, "<td>") | html_text1(out, id) | sb_adds(out, "</td>");
    /* with the entry's name when it is not the id (an --id-regex id, a
     * made one): the TA knows the students by name */
    return sb_addf(out, "<td><a href=\"#s-%ld\">", i) | html_text1(out, id) |
           sb_adds(out, "</a>") |
           (rows[i].name != NULL && strcmp(rows[i].name, id) != 0
                ? sb_adds(out, "<br><span class=\"muted\">") | html_text1(out, rows[i].name) |
                      sb_adds(out, "</span>")
                : 0) |
           sb_adds(out, "</td>");
}

#define HTML_MAX_REGIONS 64
/* Bytes of a pair's regions cell shown (similarity.csv holds them all). */
#define HTML_REGIONS_SHOWN 2048
/* A run of more empty lines than this is shown as one line. */
#define HTML_EMPTY_RUN 3

/* The regions of a similarity.csv cell, "a1-a2:b1-b2;...", into ra and rb
 * (pairs of first and last lines). Returns how many parsed. */
static size_t parse_regions(const char *cell, long ra[][2], long rb[][2])
{
    size_t k = 0;

    while (*cell != '\0' && k < HTML_MAX_REGIONS) {
        char *end;
        long v[4];
        int ok = 1;

        for (int j = 0; j < 4 && ok; j++) {
            v[j] = strtol(cell, &end, 10);
            ok = end != cell && (*end == "-:-;"[j] || (j == 3 && *end == '\0'));
            cell = *end != '\0' ? end + 1 : end;
        }
        if (!ok)
            break;
        ra[k][0] = v[0], ra[k][1] = v[1], rb[k][0] = v[2], rb[k][1] = v[3];
        k++;
    }
    return k;
}

/* One side of a view: its source, its regions, what this level shows. */
struct pane {
    const char *p, *end;   /* the source */
    long (*r)[2];
    size_t nr;
    long context;          /* -1: every line */
    size_t folds, folded;  /* runs of empty lines shown as one line, their lines */
};

/* 1 when `line` is within `ctx` lines of a region (0: in one). */
static int near(const struct pane *pn, long line, long ctx)
{
    for (size_t k = 0; k < pn->nr; k++)
        if (line >= pn->r[k][0] - ctx && line <= pn->r[k][1] + ctx)
            return 1;
    return 0;
}

/* Whether line `line` is shown at this level (context < 0: every line). */
static int visible(const struct pane *pn, long line)
{
    return pn->context < 0 || near(pn, line, pn->context);
}

/* The lines from `line` on (text at *p) that are hidden (empty == 0) or
 * empty, shown and marked as `line` is (empty == 1): how many; *p is moved
 * past them. */
static long run_of(const struct pane *pn, const char **p, long line, int empty)
{
    long k = 0;
    int marked = near(pn, line, 0);

    while (*p < pn->end) {
        const char *nl = memchr(*p, '\n', (size_t)(pn->end - *p));

        if (empty ? nl != *p || !visible(pn, line + k) || near(pn, line + k, 0) != marked
                  : visible(pn, line + k))
            break;
        *p = nl != NULL ? nl + 1 : pn->end;
        k++;
    }
    return k;
}

/* A folded run: "   5-65004  (65000 empty lines)" or a gap of hidden lines. */
static int folded(struct sb *out, long first, long k, int marked, const char *what)
{
    return sb_adds(out, marked ? "<mark>" : "") |
           sb_addf(out, "%4ld-%ld  (%ld %s)", first, first + k - 1, k, what) |
           sb_adds(out, marked ? "</mark>" : "\n");
}

/* One line as it was: numbered, marked when in a region. */
static int one_line(struct sb *out, const char **p, const char *end, long line, int marked,
                    size_t from, size_t max)
{
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t len = nl != NULL ? (size_t)(nl - *p) : (size_t)(end - *p);
    int rc = sb_adds(out, marked ? "<mark>" : "") | sb_addf(out, "%4ld  ", line), cut;

    if (rc < 0 || (cut = html_text_upto(out, *p, len, from, max)) < 0)
        return -1;
    *p += len + (nl != NULL);
    return sb_adds(out, cut ? " [...]" : "") | sb_adds(out, marked ? "</mark>" : "\n");
}

/* One source with its lines numbered and the matched ones marked; runs
 * of empty lines and lines away from every region (at this level) folded
 * into one line each; at most `max` bytes rendered. Returns 1 when cut
 * there, 0, or -1 (cap). */
static int source_pre(struct sb *out, struct pane *pn, size_t max)
{
    size_t from = out->len;
    long line = 1, k;
    int rc = sb_adds(out, "<pre>");

    while (rc == 0 && pn->p < pn->end) {
        const char *at = pn->p;

        if (out->len - from >= max) {
            rc = sb_addf(out, "[... from line %ld on not shown: this view's limit]</pre>", line);
            return rc < 0 ? -1 : 1;
        }
        if ((k = run_of(pn, &pn->p, line, 0)) > 0) {
            rc = folded(out, line, k, 0, "lines not shown");
        } else if ((k = run_of(pn, &pn->p, line, 1)) > HTML_EMPTY_RUN) {
            rc = folded(out, line, k, near(pn, line, 0), "empty lines");
            pn->folds++, pn->folded += (size_t)k;
        } else {
            pn->p = at, k = 1;
            rc = one_line(out, &pn->p, pn->end, line, near(pn, line, 0), from, max);
        }
        line += k;
    }
    return rc | sb_adds(out, "</pre>");
}

/* The pair's two sources side by side (kept by `batch --similarity` as
 * <id>/source.c), or a line saying they were not kept. */
static int side_by_side(struct html_page *pg, struct sb *out, const char *a, const char *b,
                        const char *regions)
{
    long ra[HTML_MAX_REGIONS][2], rb[HTML_MAX_REGIONS][2];
    struct sb sa, sbb;
    size_t nr = parse_regions(regions, ra, rb);
    struct pane pa = {NULL, NULL, ra, nr, pg->lv->context, 0, 0};
    struct pane pb = {NULL, NULL, rb, nr, pg->lv->context, 0, 0};
    int rc, ga, gb, ca = 0, cb = 0;

    sb_init(&sa, BAT_SOURCE_MAX + 1);
    sb_init(&sbb, BAT_SOURCE_MAX + 1);
    ga = html_read_text(pg->dir, a, "source.c", BAT_SOURCE_MAX, &sa);
    gb = html_read_text(pg->dir, b, "source.c", BAT_SOURCE_MAX, &sbb);
    rc = sb_adds(out, "<tr><td colspan=\"5\" class=\"t\"><details><summary>side by side, "
                      "matched lines marked</summary>");
    if (ga < 0 || gb < 0)
        rc |= sb_adds(out, "<p class=\"muted\">(the sources were not kept: "
                           "grader batch --similarity keeps them)</p>");
    else {
        pa.p = sb_str(&sa), pa.end = pa.p + sa.len;
        pb.p = sb_str(&sbb), pb.end = pb.p + sbb.len;
        rc |= sb_adds(out, "<div class=\"sbs\">");
        rc |= (ca = source_pre(out, &pa, pg->lv->pane_max)) < 0;
        rc |= (cb = source_pre(out, &pb, pg->lv->pane_max)) < 0;
        rc |= sb_adds(out, "</div>");
    }
    pg->cut_views += ca > 0 || cb > 0;
    pg->folds += pa.folds + pb.folds;
    pg->folded += pa.folded + pb.folded;
    sb_release(&sa);
    sb_release(&sbb);
    return rc | sb_adds(out, "</details></td></tr>\n") ? -1 : 0;
}

/* One pair's row (its regions cell cut at HTML_REGIONS_SHOWN bytes) and,
 * among the strongest, its view. */
static int pair_row(struct html_page *pg, struct sb *out, char *const *c, const int *col,
                    size_t r, const struct bat_row *rows, size_t n)
{
    size_t from;
    int rc = sb_adds(out, "<tr>") | pair_id(out, rows, n, gbx_untext(c[col[0]])) |
             pair_id(out, rows, n, gbx_untext(c[col[1]])) | sb_adds(out, "<td>") |
             html_text1(out, c[col[2]]) | sb_adds(out, "</td><td>") | html_text1(out, c[col[3]]) |
             sb_adds(out, "</td><td class=\"t\">"), cut;

    from = out->len;
    if (rc < 0 || (cut = html_text_upto(out, c[col[4]], strlen(c[col[4]]), from,
                                   HTML_REGIONS_SHOWN)) < 0)
        return -1;
    rc |= sb_adds(out, cut ? " [...]</td></tr>\n" : "</td></tr>\n");
    if (r <= pg->lv->views)
        rc |= side_by_side(pg, out, gbx_untext(c[col[0]]), gbx_untext(c[col[1]]), c[col[4]]);
    return rc;
}

static int views_note(struct html_page *pg, struct sb *out, size_t n_pairs)
{
    if (pg->lv->views == 0)
        return sb_adds(out, "<tr><td colspan=\"5\" class=\"t muted\">The side-by-side views "
                            "are collapsed (the page was shrunk): each pair lists its line "
                            "ranges.</td></tr>\n");
    if (n_pairs > pg->lv->views)
        return sb_addf(out, "<tr><td colspan=\"5\" class=\"t muted\">The %zu strongest pairs "
                            "show their sources side by side; the others, their line ranges."
                            "</td></tr>\n", pg->lv->views);
    return 0;
}

static int pairs_table(struct html_page *pg, struct sb *body, const struct gbx_table *t,
                       const struct bat_row *rows, size_t n, struct err *e)
{
    static const char *const need[] = {"id_a", "id_b", "share_a", "share_b", "regions"};
    int col[5], rc;
    size_t r;

    for (size_t k = 0; k < 5; k++)
        if ((col[k] = gbx_col(t, need[k])) < 0)
            return err_set(e, HTML_SIM_NAME, 1, 0, "no '%s' column", need[k]);
    rc = sb_adds(body, "<table id=\"pairs\"><thead><tr><th>id A</th><th>id B</th>"
                       "<th>share of A</th><th>share of B</th><th>matched lines (A : B), "
                       "longest first</th></tr></thead><tbody>\n");
    rc |= views_note(pg, body, t->n_rows - 1);
    for (r = 1; rc == 0 && r < t->n_rows; r++) {
        if (pair_row(pg, html_item(pg, body), t->cells + r * t->n_cols, col, r, rows, n) < 0 &&
            !pg->item.truncated)
            return err_set(e, NULL, 0, 0, "out of memory");
        if ((rc = html_commit(pg, body)) != 0)
            break;
    }
    if (rc > 0) {
        pg->pairs_left = t->n_rows - r;
        rc = sb_addf(body, "<tr><td colspan=\"5\" class=\"t muted\">%zu more pairs are not "
                           "shown here (the page was full): similarity.csv lists them.</td>"
                           "</tr>\n", pg->pairs_left);
    }
    return rc | sb_adds(body, "</tbody></table>\n");
}

int html_similar(struct html_page *pg, struct sb *body, const struct bat_row *rows, size_t n)
{
    char path[BAT_PATH_MAX + 32];
    struct sb csv;
    struct gbx_table t = {0, 0, NULL, NULL};
    struct err e;
    int got, rc;

    err_clear(&e);
    sb_init(&csv, HTML_SIM_MAX + 1);
    snprintf(path, sizeof path, "%s/%s", pg->dir, HTML_SIM_NAME);
    if ((got = html_read_capped(path, HTML_SIM_MAX, &csv)) < 0) {
        sb_release(&csv);
        return 0; /* no similarity run: no section */
    }
    got = got > 0 ? err_set(&e, HTML_SIM_NAME, 0, 0, "larger than %u MiB", HTML_SIM_MAX >> 20)
                  : gbx_csv_parse(sb_str(&csv), csv.len, HTML_SIM_NAME, &t, &e);
    rc = sb_adds(body, "<section id=\"similar\"><h2>Similar pairs</h2>\n<p>Each pair "
                       "shares more of its token structure than the threshold, after the "
                       "template and the API are taken out. A reason to look, not a "
                       "verdict (docs/TA.md).</p>\n");
    if (got < 0 || (t.n_rows > 1 && pairs_table(pg, body, &t, rows, n, &e) < 0)) {
        rc |= sb_adds(body, "<p class=\"muted\">similarity.csv could not be shown: ") |
              html_text1(body, e.msg) | sb_adds(body, "</p>\n");
    } else if (t.n_rows <= 1)
        rc |= sb_adds(body, "<p>No pair above the threshold.</p>\n");
    rc |= sb_adds(body, "</section>\n");
    gbx_table_free(&t);
    sb_release(&csv);
    return rc;
}
