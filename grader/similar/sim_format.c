/* sim_format.c -- a similarity report as text, CSV, JSON or Markdown. */
#include <stdio.h>
#include <string.h>

#include "batch/batch.h"
#include "core/json.h"
#include "similar/similar.h"

#define ID_SHOWN_MAX 120   /* bytes of an id shown in text and Markdown */

int sim_format_parse(const char *name, enum sim_format *f)
{
    static const char *const names[] = {"text", "csv", "json"};

    for (size_t i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *f = (enum sim_format)i;
            return 0;
        }
    return -1;
}

/* An id for a terminal or a Markdown cell: control bytes, DEL, and the
 * bytes in `also` become '?'; at most ID_SHOWN_MAX bytes, then "...". */
static int add_id_plain(struct sb *sb, const char *id, const char *also)
{
    size_t i;
    int rc = 0;

    for (i = 0; id[i] != '\0' && i < ID_SHOWN_MAX && rc == 0; i++) {
        unsigned char c = (unsigned char)id[i];
        rc = sb_addch(sb, c < 0x20 || c == 0x7f || strchr(also, c) != NULL ? '?' : (char)c);
    }
    return rc == 0 && id[i] != '\0' ? sb_adds(sb, "...") : rc;
}

static int pct(double share)
{
    return (int)(share * 100.0 + 0.5);
}

static int text_pair(struct sb *sb, const struct sim_pair *p)
{
    int rc = sb_adds(sb, "");

    rc |= add_id_plain(sb, p->id_a, "");
    rc |= sb_addf(sb, " (%d%%)  ", pct(p->share_a));
    rc |= add_id_plain(sb, p->id_b, "");
    rc |= sb_addf(sb, " (%d%%)  %zu tokens in %zu %s\n", pct(p->share_b), p->matched,
                  p->n_regions, p->n_regions == 1 ? "region" : "regions");
    for (size_t i = 0; i < p->n_regions && rc == 0; i++) {
        const struct sim_region *g = &p->regions[i];
        rc |= sb_addf(sb, "    lines %u-%u  ~  lines %u-%u  (%zu tokens)\n", g->a_first,
                      g->a_last, g->b_first, g->b_last, g->tokens);
    }
    return rc ? -1 : 0;
}

static int format_text(const struct sim_report *r, struct sb *sb)
{
    int rc = sb_addf(sb, "%zu %s at %d%% or more (%zu %s compared, %zu of them archive)\n",
                     r->n, r->n == 1 ? "pair" : "pairs", pct(r->threshold), r->n_files,
                     r->n_files == 1 ? "file" : "files", r->n_archive);

    for (size_t i = 0; i < r->n && rc == 0; i++)
        rc = text_pair(sb, &r->pairs[i]);
    return rc;
}

static int csv_regions(struct sb *sb, const struct sim_pair *p)
{
    int rc = 0;

    for (size_t i = 0; i < p->n_regions && rc == 0; i++) {
        const struct sim_region *g = &p->regions[i];
        rc = sb_addf(sb, "%s%u-%u:%u-%u", i ? ";" : "", g->a_first, g->a_last, g->b_first,
                     g->b_last);
    }
    return rc;
}

static int format_csv(const struct sim_report *r, struct sb *sb)
{
    int rc = sb_adds(sb, "id_a,id_b,share_a,share_b,matched_tokens,regions\r\n");

    for (size_t i = 0; i < r->n && rc == 0; i++) {
        const struct sim_pair *p = &r->pairs[i];
        rc |= bat_csv_text(sb, p->id_a);
        rc |= sb_addch(sb, ',');
        rc |= bat_csv_text(sb, p->id_b);
        rc |= sb_addf(sb, ",%.4f,%.4f,%zu,", p->share_a, p->share_b, p->matched);
        rc |= csv_regions(sb, p);
        rc |= sb_adds(sb, "\r\n");
    }
    return rc ? -1 : 0;
}

static int json_region(struct sb *sb, const struct sim_region *g)
{
    return sb_addf(sb, "{\"a\":[%u,%u],\"b\":[%u,%u],\"tokens\":%zu}", g->a_first, g->a_last,
                   g->b_first, g->b_last, g->tokens);
}

static int json_pair(struct sb *sb, const struct sim_pair *p)
{
    int rc = sb_adds(sb, "{\"id_a\":");

    rc |= json_add_strz(sb, p->id_a, 0);
    rc |= sb_adds(sb, ",\"id_b\":");
    rc |= json_add_strz(sb, p->id_b, 0);
    rc |= sb_addf(sb, ",\"share_a\":%.4f,\"share_b\":%.4f,\"matched_tokens\":%zu,"
                  "\"regions\":[", p->share_a, p->share_b, p->matched);
    for (size_t i = 0; i < p->n_regions && rc == 0; i++)
        rc |= (i ? sb_addch(sb, ',') : 0) | json_region(sb, &p->regions[i]);
    return rc | sb_adds(sb, "]}") ? -1 : 0;
}

static int format_json(const struct sim_report *r, struct sb *sb)
{
    int rc = sb_addf(sb, "{\"threshold\":%.4f,\"files\":%zu,\"archive_files\":%zu,"
                     "\"pairs\":[", r->threshold, r->n_files, r->n_archive);

    for (size_t i = 0; i < r->n && rc == 0; i++)
        rc |= (i ? sb_addch(sb, ',') : 0) | json_pair(sb, &r->pairs[i]);
    return rc | sb_adds(sb, "]}\n") ? -1 : 0;
}

int sim_format_report(const struct sim_report *r, enum sim_format f, struct sb *out)
{
    switch (f) {
    case SIM_TEXT:
        return format_text(r, out);
    case SIM_CSV:
        return format_csv(r, out);
    case SIM_JSON:
        return format_json(r, out);
    }
    return -1;
}

static int summary_row(struct sb *sb, const struct sim_pair *p)
{
    int rc = sb_adds(sb, "| `");

    rc |= add_id_plain(sb, p->id_a, "`|");
    rc |= sb_addf(sb, "` | %d%% | `", pct(p->share_a));
    rc |= add_id_plain(sb, p->id_b, "`|");
    rc |= sb_addf(sb, "` | %d%% | %zu | %zu |\n", pct(p->share_b), p->matched, p->n_regions);
    return rc ? -1 : 0;
}

int sim_format_summary(const struct sim_report *r, size_t max_rows, struct sb *out)
{
    int rc = sb_addf(out, "\n## Similarity\n\n%zu %s of submissions %s %d%% or more of "
                     "their code beyond the base (%zu files compared). A high share is a "
                     "reason to look at both files, not a verdict: see `similarity.csv` for "
                     "the matched lines.\n", r->n, r->n == 1 ? "pair" : "pairs",
                     r->n == 1 ? "shares" : "share",
                     pct(r->threshold), r->n_files);

    if (r->n > 0)
        rc |= sb_adds(out, "\n| a | share of a | b | share of b | tokens | regions |\n"
                           "|---|---:|---|---:|---:|---:|\n");
    for (size_t i = 0; i < r->n && i < max_rows && rc == 0; i++)
        rc = summary_row(out, &r->pairs[i]);
    if (rc == 0 && r->n > max_rows)
        rc = sb_addf(out, "\n(%zu more in `similarity.csv`)\n", r->n - max_rows);
    return rc ? -1 : 0;
}
