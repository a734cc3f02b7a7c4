/* html.c -- see html.h. */
#include "batch/html.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/export.h"
#include "core/b64.h"
#include "core/sha256.h"

#define HTML_SIM_NAME "similarity.csv"
#define HTML_SIM_MAX (4u << 20)

/* The page's only style and script: the CSP admits them by hash. */
static const char page_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1400px;"
    "padding:0 12px;color:#1b1b1b}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px}h3{font-size:15px}"
    "nav a{margin-right:14px}"
    ".scroll{overflow:auto;max-height:75vh;border:1px solid #ccc}"
    "table{border-collapse:collapse;font-size:12px}"
    "th,td{border:1px solid #ddd;padding:2px 5px;text-align:right;white-space:nowrap}"
    "td:first-child,th:first-child,td.t{text-align:left}"
    "thead th{position:sticky;top:0;background:#f3f3f3;z-index:1;text-align:left}"
    "tbody td:first-child{position:sticky;left:0;background:#fff}"
    "thead th:first-child{left:0;z-index:2}"
    "th button{font:inherit;border:0;background:none;cursor:pointer;padding:0}"
    "th button:focus{outline:2px solid #1f5fbf}"
    "td.p{background:#e3f4e1}td.f{background:#fbe3e0}td.n{color:#888}"
    "tr[hidden]{display:none}"
    "#controls{margin:8px 0}#controls label{margin-right:14px}"
    "pre{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;"
    "padding:8px;border:1px solid #e4e4e4;font-size:12px}"
    "article{border-top:1px solid #ccc;padding-top:4px}"
    ".charts svg{max-width:100%;height:auto;margin-right:24px}"
    ".muted{color:#666}"
    "#pairs td{text-align:left}.sbs{display:grid;grid-template-columns:1fr 1fr;gap:8px}"
    ".sbs pre{margin:0;overflow:auto;max-height:70vh}"
    ".sbs mark{background:#ffe08a;display:block}";

static const char page_script[] =
    "(function(){"
    "var t=document.getElementById('grades');if(!t)return;"
    "var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows);"
    "var st=document.getElementById('f-status'),tx=document.getElementById('f-text'),"
    "cnt=document.getElementById('f-count'),ths=t.tHead.rows[0].cells,cur=-1,dir=1;"
    "document.getElementById('controls').hidden=false;"
    "function key(r,c){var d=r.cells[c],v=d.getAttribute('data-v');"
    "if(v!==null)return parseFloat(v);return d.textContent.toLowerCase();}"
    "function sort(c){dir=cur===c?-dir:1;cur=c;"
    "rows.sort(function(a,b){var x=key(a,c),y=key(b,c);"
    "if(typeof x!==typeof y){x=String(x);y=String(y);}"
    "return x<y?-dir:x>y?dir:0;});"
    "rows.forEach(function(r){tb.appendChild(r);});"
    "for(var i=0;i<ths.length;i++)ths[i].setAttribute('aria-sort',"
    "i===c?(dir>0?'ascending':'descending'):'none');}"
    "function apply(){var s=st.value,q=tx.value.toLowerCase(),k=0;"
    "rows.forEach(function(r){var ok=(!s||r.getAttribute('data-status')===s)&&"
    "(!q||r.textContent.toLowerCase().indexOf(q)>=0);r.hidden=!ok;if(ok)k++;});"
    "cnt.textContent=k+' of '+rows.length+' rows shown';}"
    "Array.prototype.forEach.call(ths,function(th,c){"
    "th.querySelector('button').addEventListener('click',function(){sort(c);});});"
    "st.addEventListener('change',apply);tx.addEventListener('input',apply);apply();"
    "})();";

static int add_cp(struct sb *out, int32_t cp, int one_line)
{
    switch (cp) {
    case '&': return sb_adds(out, "&amp;");
    case '<': return sb_adds(out, "&lt;");
    case '>': return sb_adds(out, "&gt;");
    case '"': return sb_adds(out, "&quot;");
    case '\'': return sb_adds(out, "&#39;");
    case '\n': return one_line ? sb_adds(out, "\\n") : sb_addch(out, '\n');
    case '\t': return one_line ? sb_adds(out, "\\t") : sb_addch(out, '\t');
    default: break;
    }
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
        return sb_add_utf8(out, 0xFFFD);
    if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
        return sb_addf(out, "[U+%04X]", (unsigned)cp);
    return sb_add_utf8(out, (uint32_t)cp);
}

int html_add_text(struct sb *out, const char *s, size_t n, int one_line)
{
    int rc = 0;

    for (size_t i = 0, adv; rc == 0 && i < n; i += adv)
        rc = add_cp(out, sb_utf8_next(s + i, n - i, &adv), one_line);
    return rc;
}

static int text1(struct sb *out, const char *s)
{
    return s == NULL ? 0 : html_add_text(out, s, strlen(s), 1);
}

/* 'sha256-<base64>' of s, for the CSP. */
static int add_hash(struct sb *out, const char *s, struct err *e)
{
    unsigned char d[SHA256_DIGEST_LEN];
    struct sha256_ctx c;

    sha256_init(&c);
    sha256_update(&c, s, strlen(s));
    sha256_final(&c, d);
    return sb_adds(out, "'sha256-") | b64_encode(out, d, sizeof d, e) | sb_addch(out, '\'');
}

static int head(struct sb *out, struct err *e)
{
    int rc = sb_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                          "<meta http-equiv=\"Content-Security-Policy\" content=\""
                          "default-src 'none'; img-src data:; base-uri 'none'; "
                          "form-action 'none'; style-src ");

    rc |= add_hash(out, page_style, e) | sb_adds(out, "; script-src ");
    rc |= add_hash(out, page_script, e);
    rc |= sb_adds(out, "\">\n<meta name=\"viewport\" content=\"width=device-width, "
                       "initial-scale=1\">\n<title>Class report</title>\n<style>");
    return rc | sb_adds(out, page_style) | sb_adds(out, "</style></head>\n<body>\n");
}

/* ---- numbers from the rows ---- */

static int graded(const struct bat_row *r)
{
    return strcmp(r->status, "missing") != 0 && strcmp(r->status, "skipped") != 0;
}

static const struct bat_test_row *find_test(const struct bat_row *r, size_t col,
                                            const char *id)
{
    if (col < r->n_tests && strcmp(r->tests[col].id, id) == 0)
        return &r->tests[col];
    for (size_t i = 0; i < r->n_tests; i++)
        if (strcmp(r->tests[i].id, id) == 0)
            return &r->tests[i];
    return NULL;
}

/* Points as the gradebook prints them: at most four decimals, trimmed. */
static int add_pts(struct sb *out, double v)
{
    char buf[48];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%.4f", v);

    while (n > 0 && buf[n - 1] == '0')
        n--;
    if (n > 0 && buf[n - 1] == '.')
        n--;
    return sb_add(out, buf, n);
}

/* ---- charts ---- */

static int histogram(struct sb *out, const struct bat_row *rows, size_t n)
{
    size_t bins[10] = {0}, top = 1;
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        double f = rows[i].max_score > 0 ? rows[i].score / rows[i].max_score : 0;
        size_t b = f >= 1 ? 9 : f <= 0 ? 0 : (size_t)(f * 10);

        if (graded(&rows[i]) && ++bins[b] > top)
            top = bins[b];
    }
    rc |= sb_adds(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" height=\"220\" "
                       "role=\"img\" aria-label=\"score histogram\" viewBox=\"0 0 420 220\">"
                       "<text x=\"0\" y=\"14\" font-size=\"13\">Scores (% of the maximum)"
                       "</text>");
    for (size_t b = 0; b < 10; b++) {
        double h = 150.0 * (double)bins[b] / (double)top;

        rc |= sb_addf(out, "<rect x=\"%zu\" y=\"%.1f\" width=\"34\" height=\"%.1f\" "
                           "fill=\"#4a78c2\"/><text x=\"%zu\" y=\"%.1f\" font-size=\"11\" "
                           "text-anchor=\"middle\">%zu</text><text x=\"%zu\" y=\"212\" "
                           "font-size=\"10\" text-anchor=\"middle\">%zu</text>",
                      10 + b * 40, 190 - h, h, 27 + b * 40, 186 - h, bins[b], 27 + b * 40,
                      b * 10);
    }
    return rc | sb_adds(out, "</svg>\n");
}

/* Length of the function part of a test id ("sdpa" of "sdpa.values"). */
static size_t fn_len(const char *id)
{
    const char *dot = strchr(id, '.');

    return dot != NULL ? (size_t)(dot - id) : strlen(id);
}

/* A manual item (a TA scores it): in no pass rate, as in summary.svg. */
static int manual_item(const struct bat_row *rows, size_t n, size_t c, const char *id)
{
    for (size_t i = 0; i < n; i++) {
        const struct bat_test_row *t = find_test(&rows[i], c, id);

        if (t != NULL && (strcmp(t->status, "manual_pending") == 0 ||
                          strcmp(t->status, "manual_scored") == 0))
            return 1;
    }
    return 0;
}

/* The share of a function's tests passed, as summary.svg counts it: its
 * tests but the manual items, over the rows graded (not missing or
 * skipped). */
static void pass_count(const struct bat_row *rows, size_t n, const char *const *ids,
                       size_t n_ids, const char *fn, size_t len, size_t *pass,
                       size_t *all)
{
    *pass = *all = 0;
    for (size_t c = 0; c < n_ids; c++) {
        if (fn_len(ids[c]) != len || strncmp(ids[c], fn, len) != 0 ||
            manual_item(rows, n, c, ids[c]))
            continue;
        for (size_t i = 0; i < n; i++) {
            const struct bat_test_row *t = graded(&rows[i]) ? find_test(&rows[i], c, ids[c])
                                                              : NULL;

            *all += graded(&rows[i]) ? 1 : 0;
            *pass += t != NULL && strcmp(t->status, "passed") == 0;
        }
    }
}

/* Whether column c starts a function drawn in the chart: the first of its
 * function with a test other than a manual item. */
static int chart_row(const struct bat_row *rows, size_t n, const char *const *ids,
                     size_t n_ids, size_t c)
{
    size_t len = fn_len(ids[c]), pass, all;

    for (size_t p = 0; p < c; p++)
        if (fn_len(ids[p]) == len && strncmp(ids[p], ids[c], len) == 0)
            return 0;
    pass_count(rows, n, ids, n_ids, ids[c], len, &pass, &all);
    return all > 0 || n == 0;
}

static int pass_rates(struct sb *out, const struct bat_row *rows, size_t n,
                      const char *const *ids, size_t n_ids)
{
    size_t k = 0, rows_drawn = 0;
    int rc;

    for (size_t c = 0; c < n_ids; c++)
        rows_drawn += (size_t)chart_row(rows, n, ids, n_ids, c);
    /* a height and a viewBox: without them a browser draws 150 px of it */
    rc = sb_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" "
                      "height=\"%zu\" viewBox=\"0 0 420 %zu\" role=\"img\" "
                      "aria-label=\"pass rate per function\">"
                      "<text x=\"0\" y=\"14\" font-size=\"13\">Tests passed, per function"
                      "</text>", 30 + rows_drawn * 26, 30 + rows_drawn * 26);
    for (size_t c = 0; c < n_ids; c++) {
        size_t len = fn_len(ids[c]), pass, all;

        if (!chart_row(rows, n, ids, n_ids, c))
            continue;
        pass_count(rows, n, ids, n_ids, ids[c], len, &pass, &all);
        double f = all > 0 ? (double)pass / (double)all : 0;
        rc |= sb_addf(out, "<text x=\"0\" y=\"%zu\" font-size=\"12\">", 42 + k * 26);
        rc |= html_add_text(out, ids[c], len, 1);
        rc |= sb_addf(out, "</text><rect x=\"90\" y=\"%zu\" width=\"%.1f\" height=\"16\" "
                           "fill=\"%s\"/><text x=\"%.1f\" y=\"%zu\" font-size=\"11\">%.1f %%"
                           "</text>",
                      29 + k * 26, 260 * f, f >= .8 ? "#3c9a4a" : f >= .5 ? "#d9a21b" : "#c8463c",
                      96 + 260 * f, 42 + k * 26, 100 * f);
        k++;
    }
    return rc | sb_adds(out, "</svg>\n");
}

/* ---- the gradebook table ---- */

static int status_filter(struct sb *out, const struct bat_row *rows, size_t n)
{
    int rc = sb_adds(out, "<div id=\"controls\" hidden><label>Status <select id=\"f-status\">"
                          "<option value=\"\">all</option>");

    for (size_t i = 0; i < n; i++) {
        int seen = 0;

        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(rows[j].status, rows[i].status) == 0;
        if (seen)
            continue;
        rc |= sb_adds(out, "<option>") | text1(out, rows[i].status) | sb_adds(out, "</option>");
    }
    return rc | sb_adds(out, "</select></label><label>Search <input id=\"f-text\" "
                             "type=\"search\"></label><span id=\"f-count\" "
                             "aria-live=\"polite\"></span></div>\n");
}

static int th(struct sb *out, const char *label)
{
    return sb_adds(out, "<th aria-sort=\"none\"><button type=\"button\">") | text1(out, label) |
           sb_adds(out, "</button></th>");
}

static int test_cell(struct sb *out, const struct bat_test_row *t)
{
    const char *cls;

    if (t == NULL)
        return sb_adds(out, "<td class=\"n\" data-v=\"0\">-</td>");
    cls = strcmp(t->status, "passed") == 0 ? "p"
          : strcmp(t->status, "not_run") == 0 || strcmp(t->status, "pending") == 0 ? "n"
                                                                                  : "f";
    return sb_addf(out, "<td class=\"%s\" data-v=\"%.4f\" title=\"", cls, t->score) |
           text1(out, t->status) | sb_adds(out, "\">") | add_pts(out, t->score) |
           sb_adds(out, "</td>");
}

/* The folder's own name under its id, when the id had to differ from it
 * (batch.h: ids of names that are not plain). */
static int shown_name(struct sb *out, const struct bat_row *r)
{
    if (r->name == NULL || strcmp(r->name, r->id) == 0)
        return 0;
    return sb_adds(out, "<br><span class=\"muted\">") | text1(out, r->name) |
           sb_adds(out, "</span>");
}

static int table_row(struct sb *out, const struct bat_row *r, size_t idx,
                     const char *const *ids, size_t n_ids)
{
    int rc = sb_adds(out, "<tr data-status=\"") | text1(out, r->status) |
             sb_addf(out, "\"><td><a href=\"#s-%zu\">", idx) | text1(out, r->id) |
             sb_adds(out, "</a>") | shown_name(out, r) |
             sb_addf(out, "</td><td data-v=\"%.4f\">", r->score) | add_pts(out, r->score) |
             sb_addf(out, "</td><td data-v=\"%.4f\">", r->max_score) |
             add_pts(out, r->max_score) | sb_adds(out, "</td><td class=\"t\">") |
             text1(out, r->status) | sb_adds(out, "</td>");

    for (size_t c = 0; c < n_ids; c++)
        rc |= test_cell(out, graded(r) ? find_test(r, c, ids[c]) : NULL);
    return rc | sb_adds(out, "<td class=\"t\">") | text1(out, r->detail) |
           sb_adds(out, "</td></tr>\n");
}

static int table(struct sb *out, const struct bat_row *rows, size_t n,
                 const char *const *ids, size_t n_ids)
{
    int rc = sb_adds(out, "<section id=\"gradebook\"><h2>Gradebook</h2>\n");

    rc |= status_filter(out, rows, n);
    rc |= sb_adds(out, "<div class=\"scroll\"><table id=\"grades\"><thead><tr>");
    rc |= th(out, "id") | th(out, "score") | th(out, "max") | th(out, "status");
    for (size_t c = 0; c < n_ids; c++)
        rc |= th(out, ids[c]);
    rc |= th(out, "note") | sb_adds(out, "</tr></thead><tbody>\n");
    for (size_t i = 0; i < n; i++)
        rc |= table_row(out, &rows[i], i, ids, n_ids);
    return rc | sb_adds(out, "</tbody></table></div></section>\n");
}

/* ---- per student ---- */

/* Read at most `cap` bytes of `path` into sb (empty). Returns 1 when the
 * file was longer (cut), 0, or -1 when it cannot be read. */
static int read_capped(const char *path, size_t cap, struct sb *sb)
{
    enum sb_read r = sb_read_file(sb, path, cap - sb->len);

    if (r == SB_READ_OPEN || sb->truncated)
        return -1;
    return r == SB_READ_CUT;
}

/* read_capped() of <dir>/<id>/<name>, HTML_TEXT_MAX bytes. */
static int read_text(const char *dir, const char *id, const char *name, struct sb *sb)
{
    char path[BAT_PATH_MAX + 64];

    if (snprintf(path, sizeof path, "%s/%s/%s", dir, id, name) >= (int)sizeof path)
        return -1;
    return read_capped(path, HTML_TEXT_MAX, sb);
}

static int file_block(struct sb *out, const char *summary, const struct sb *text,
                      int got)
{
    int rc = sb_adds(out, "<details><summary>") | sb_adds(out, summary) |
             sb_adds(out, "</summary>");

    if (got < 0)
        return rc | sb_adds(out, "<p class=\"muted\">(no such file)</p></details>\n");
    rc |= sb_adds(out, "<pre>") | html_add_text(out, sb_str(text), text->len, 0);
    if (got > 0)
        rc |= sb_addf(out, "\n[... cut at %u KiB]", HTML_TEXT_MAX >> 10);
    return rc | sb_adds(out, "</pre></details>\n");
}

static int student(struct sb *out, const char *dir, const struct bat_row *r, size_t idx)
{
    struct sb staff, fb;
    int rc, gs, gf;

    sb_init(&staff, HTML_TEXT_MAX + 1);
    sb_init(&fb, HTML_TEXT_MAX + 1);
    gs = read_text(dir, r->id, "staff.md", &staff);
    gf = read_text(dir, r->id, "feedback.md", &fb);
    rc = sb_addf(out, "<article id=\"s-%zu\"><h3>", idx) | text1(out, r->id) |
         shown_name(out, r) | sb_adds(out, ": ") | add_pts(out, r->score) | sb_adds(out, " / ") |
         add_pts(out, r->max_score) | sb_adds(out, " (") | text1(out, r->status) |
         sb_adds(out, ")</h3>\n");
    if (gs < 0 && gf < 0)
        rc |= sb_adds(out, "<p class=\"muted\">No rubric: ") | text1(out, r->detail) |
              sb_adds(out, "</p>\n");
    else {
        rc |= file_block(out, "Staff view (every test, hidden included: staff.md)", &staff, gs);
        if (gs >= 0 && gf >= 0 && staff.len == fb.len &&
            memcmp(sb_str(&staff), sb_str(&fb), fb.len) == 0)
            rc |= sb_adds(out, "<p class=\"muted\">The student's feedback.md is exactly the "
                               "staff view above.</p>\n");
        else
            rc |= file_block(out, "What the student sees (feedback.md)", &fb, gf);
    }
    sb_release(&staff);
    sb_release(&fb);
    return rc | sb_adds(out, "</article>\n");
}

/* ---- similar pairs ---- */

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
        return sb_adds(out, "<td>") | text1(out, id) | sb_adds(out, "</td>");
    /* with the entry's name when it is not the id (an --id-regex id, a
     * made one): the TA knows the students by name */
    return sb_addf(out, "<td><a href=\"#s-%ld\">", i) | text1(out, id) | sb_adds(out, "</a>") |
           (rows[i].name != NULL && strcmp(rows[i].name, id) != 0
                ? sb_adds(out, "<br><span class=\"muted\">") | text1(out, rows[i].name) |
                      sb_adds(out, "</span>")
                : 0) |
           sb_adds(out, "</td>");
}

#define HTML_MAX_REGIONS 64
/* Pairs shown side by side, strongest first: each shows two whole
 * sources, so a class where most pairs match would otherwise make the
 * page megabytes per pair; the rest list their line ranges. */
#define HTML_SBS_PAIRS 10

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

/* One source with its lines numbered, the matched ones marked. */
static int source_pre(struct sb *out, const struct sb *src, long r[][2], size_t nr)
{
    const char *p = sb_str(src), *end = p + src->len;
    long line = 1;
    int rc = sb_adds(out, "<pre>");

    for (; rc == 0 && p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
        int marked = 0;

        for (size_t k = 0; k < nr && !marked; k++)
            marked = line >= r[k][0] && line <= r[k][1];
        rc = sb_adds(out, marked ? "<mark>" : "") | sb_addf(out, "%4ld  ", line) |
             html_add_text(out, p, len, 0) | sb_adds(out, marked ? "</mark>" : "\n");
        p += len + (nl != NULL);
    }
    return rc | sb_adds(out, "</pre>");
}

/* The pair's two sources side by side (kept by `batch --similarity` as
 * <id>/source.c), or a line saying they were not kept. */
static int side_by_side(struct sb *out, const char *dir, const char *a, const char *b,
                        const char *regions)
{
    long ra[HTML_MAX_REGIONS][2], rb[HTML_MAX_REGIONS][2];
    struct sb sa, sbb;
    size_t nr = parse_regions(regions, ra, rb);
    int rc, ga, gb;

    sb_init(&sa, HTML_TEXT_MAX + 1);
    sb_init(&sbb, HTML_TEXT_MAX + 1);
    ga = read_text(dir, a, "source.c", &sa);
    gb = read_text(dir, b, "source.c", &sbb);
    rc = sb_adds(out, "<tr><td colspan=\"5\" class=\"t\"><details><summary>side by side, "
                      "matched lines marked</summary>");
    if (ga < 0 || gb < 0)
        rc |= sb_adds(out, "<p class=\"muted\">(the sources were not kept: "
                           "grader batch --similarity keeps them)</p>");
    else
        rc |= sb_adds(out, "<div class=\"sbs\">") | source_pre(out, &sa, ra, nr) |
              source_pre(out, &sbb, rb, nr) | sb_adds(out, "</div>");
    sb_release(&sa);
    sb_release(&sbb);
    return rc | sb_adds(out, "</details></td></tr>\n");
}

static int pairs_table(struct sb *out, const char *dir, const struct gbx_table *t,
                       const struct bat_row *rows, size_t n, struct err *e)
{
    static const char *const need[] = {"id_a", "id_b", "share_a", "share_b", "regions"};
    int col[5], rc;

    for (size_t k = 0; k < 5; k++)
        if ((col[k] = gbx_col(t, need[k])) < 0)
            return err_set(e, HTML_SIM_NAME, 1, 0, "no '%s' column", need[k]);
    rc = sb_adds(out, "<table id=\"pairs\"><thead><tr><th>id A</th><th>id B</th>"
                      "<th>share of A</th><th>share of B</th><th>matched lines (A : B), "
                      "longest first</th></tr></thead><tbody>\n");
    if (t->n_rows - 1 > HTML_SBS_PAIRS)
        rc |= sb_addf(out, "<tr><td colspan=\"5\" class=\"t muted\">The %d strongest pairs "
                           "show their sources side by side; the others, their line ranges."
                           "</td></tr>\n", HTML_SBS_PAIRS);
    for (size_t r = 1; r < t->n_rows; r++) {
        char *const *c = t->cells + r * t->n_cols;

        rc |= sb_adds(out, "<tr>") | pair_id(out, rows, n, gbx_untext(c[col[0]])) |
              pair_id(out, rows, n, gbx_untext(c[col[1]])) | sb_adds(out, "<td>") |
              text1(out, c[col[2]]) | sb_adds(out, "</td><td>") | text1(out, c[col[3]]) |
              sb_adds(out, "</td><td class=\"t\">") | text1(out, c[col[4]]) |
              sb_adds(out, "</td></tr>\n");
        if (r <= HTML_SBS_PAIRS)
            rc |= side_by_side(out, dir, gbx_untext(c[col[0]]), gbx_untext(c[col[1]]),
                               c[col[4]]);
    }
    return rc | sb_adds(out, "</tbody></table>\n");
}

static int similar(struct sb *out, const char *dir, const struct bat_row *rows, size_t n,
                   struct err *e)
{
    char path[BAT_PATH_MAX + 32];
    struct sb csv;
    struct gbx_table t = {0, 0, NULL, NULL};
    int got, rc = 0;

    sb_init(&csv, HTML_SIM_MAX + 1);
    snprintf(path, sizeof path, "%s/%s", dir, HTML_SIM_NAME);
    if ((got = read_capped(path, HTML_SIM_MAX, &csv)) < 0) {
        sb_release(&csv);
        return 0; /* no similarity run: no section */
    }
    got = got > 0 ? err_set(e, HTML_SIM_NAME, 0, 0, "larger than its cap")
                  : gbx_csv_parse(sb_str(&csv), csv.len, HTML_SIM_NAME, &t, e);
    if (got == 0) {
        rc = sb_adds(out, "<section id=\"similar\"><h2>Similar pairs</h2>\n<p>Each pair "
                          "shares more of its token structure than the threshold, after the "
                          "template and the API are taken out. A reason to look, not a "
                          "verdict (docs/TA.md).</p>\n");
        rc |= t.n_rows > 1 ? pairs_table(out, dir, &t, rows, n, e)
                           : sb_adds(out, "<p>No pair above the threshold.</p>\n");
        rc |= sb_adds(out, "</section>\n");
    }
    gbx_table_free(&t);
    sb_release(&csv);
    return got < 0 ? -1 : rc;
}

/* ---- the page ---- */

/* `pairs`: a similarity.csv is there, so the page has the section the
 * "Similar pairs" link leads to (no dead link without --similarity). */
static int overview(struct sb *out, const struct bat_row *rows, size_t n, int pairs)
{
    size_t graded_n = 0;
    double sum = 0;

    for (size_t i = 0; i < n; i++)
        if (graded(&rows[i])) {
            graded_n++;
            sum += rows[i].max_score > 0 ? rows[i].score / rows[i].max_score : 0;
        }
    return sb_addf(out, "<h1>Class report</h1>\n<p>%zu folders, %zu graded; mean score "
                        "%.1f %%. <a href=\"summary.md\">summary.md</a> and "
                        "<a href=\"grades.csv\">grades.csv</a> hold the same numbers.</p>\n"
                        "<nav><a href=\"#gradebook\">Gradebook</a><a href=\"#charts\">"
                        "Charts</a>%s<a href=\"#students\">"
                        "Students</a></nav>\n",
                   n, graded_n, graded_n > 0 ? 100 * sum / (double)graded_n : 0.0,
                   pairs ? "<a href=\"#similar\">Similar pairs</a>" : "");
}

int html_write_report(const char *out_dir, const struct bat_row *rows, size_t n,
                      const char *const *test_ids, size_t n_tests, struct sb *out,
                      struct err *e)
{
    char sim[4096];
    int rc;

    snprintf(sim, sizeof sim, "%s/%s", out_dir, HTML_SIM_NAME);
    rc = head(out, e) | overview(out, rows, n, access(sim, F_OK) == 0);

    rc |= table(out, rows, n, test_ids, n_tests);
    rc |= sb_adds(out, "<section id=\"charts\" class=\"charts\"><h2>Charts</h2>\n");
    rc |= histogram(out, rows, n) | pass_rates(out, rows, n, test_ids, n_tests);
    rc |= sb_adds(out, "</section>\n");
    if (rc == 0 && similar(out, out_dir, rows, n, e) < 0)
        return -1;
    rc |= sb_adds(out, "<section id=\"students\"><h2>Students</h2>\n");
    for (size_t i = 0; i < n; i++)
        rc |= student(out, out_dir, &rows[i], i);
    rc |= sb_adds(out, "</section>\n<script>") | sb_adds(out, page_script) |
          sb_adds(out, "</script>\n</body></html>\n");
    if (rc != 0 || out->truncated)
        return err_set(e, NULL, 0, 0, "report.html is larger than its cap");
    return 0;
}
