/* audit_report.c -- the audit's report (text, markdown, JSON) and the kept
 * list of equivalent mutants (audit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "core/json.h"

static const char *const class_names[] = {"killed", "survived", "equivalent", "invalid"};

int aud_format_parse(const char *s)
{
    if (strcmp(s, "text") == 0)
        return AUD_TEXT;
    if (strcmp(s, "json") == 0)
        return AUD_JSON;
    if (strcmp(s, "markdown") == 0)
        return AUD_MARKDOWN;
    return -1;
}

static double score(const struct aud_result *r)
{
    return r->killed + r->survived ? 100.0 * (double)r->killed / (double)(r->killed + r->survived)
                                   : 100.0;
}

/* ---- text and markdown ------------------------------------------------- */

static int add_mutant_line(struct sb *sb, const struct aud_result *r,
                           const struct aud_mutant *m, int md)
{
    const char *fence = md ? "`" : "";

    return sb_addf(sb, "%s%s:%d:%d%s in %s() [%s]\n%s    - %s%s%s\n%s    + %s%s%s\n",
                   md ? "- " : "  ", r->source, m->m.line, m->m.col, "", m->m.function, m->m.op,
                   md ? "" : "", fence, m->before, fence, md ? "" : "", fence, m->after, fence);
}

static int add_section(struct sb *sb, const struct aud_result *r, enum aud_class c,
                       int md, const char *title)
{
    int bad = 0, any = 0;

    for (size_t i = 0; i < r->n && !bad; i++) {
        const struct aud_mutant *m = &r->mut[i];
        if (m->cls != c || !m->m.function[0])
            continue;
        if (!any)
            bad = sb_addf(sb, md ? "\n## %s\n\n" : "\n%s:\n", title);
        any = 1;
        bad = bad || add_mutant_line(sb, r, m, md);
        if (c == AUD_SURVIVED)
            bad = bad || sb_addf(sb, "      %s\n", m->detail);
        else if (c == AUD_EQUIVALENT)
            bad = bad || sb_addf(sb, "      %s%s\n", m->rounding ? "(up to rounding) " : "",
                                 m->listed ? m->detail
                                 : "NOT in the kept list: confirm it, then add it with a reason");
    }
    return bad;
}

/* Killed mutants by the test that killed them first. */
static int add_killers(struct sb *sb, const struct aud_result *r, int md)
{
    int bad = sb_addf(sb, md ? "\n## Killed, by first failing test\n\n| test | mutants |\n|---|---|\n"
                             : "\nkilled, by first failing test:\n");

    for (size_t i = 0; i < r->n && !bad; i++) {
        size_t k = 0, seen = 0;
        if (r->mut[i].cls != AUD_KILLED || !r->mut[i].test[0])
            continue;
        for (size_t j = 0; j < i && !seen; j++)
            seen = r->mut[j].cls == AUD_KILLED && strcmp(r->mut[j].test, r->mut[i].test) == 0;
        if (seen)
            continue;
        for (size_t j = i; j < r->n; j++)
            k += r->mut[j].cls == AUD_KILLED && strcmp(r->mut[j].test, r->mut[i].test) == 0;
        bad = sb_addf(sb, md ? "| %s | %zu |\n" : "  %-44s %5zu\n", r->mut[i].test, k);
    }
    return bad;
}

/* --matrix: the cases that alone kill a mutant (deleting one lets it
 * survive), each with those mutants, then the cases that kill nothing
 * alone (deleting one leaves the score as it is). */
static int add_cases(struct sb *sb, const struct aud_result *r, int md)
{
    int bad = sb_addf(sb, md ? "\n## Cases that alone kill a mutant\n\n"
                             : "\ncases that alone kill a mutant (deleting one lets it survive):\n");

    for (size_t i = 0; i < r->n_cases && !bad; i++) {
        const struct aud_case *c = &r->cases[i];
        if (c->alone == 0)
            continue;
        bad = sb_addf(sb, "%s%s:%d: %s case %zu of %zu: %zu mutant%s\n", md ? "- " : "  ",
                      c->file, c->line, c->test, c->k + 1, c->n_cases, c->alone,
                      c->alone == 1 ? "" : "s");
        for (size_t j = 0; j < r->n && !bad; j++) {
            const struct aud_mutant *m = &r->mut[j];
            if (m->cls == AUD_KILLED && m->alone == (int)c->k + 1 && !strcmp(m->test, c->test))
                bad = add_mutant_line(sb, r, m, md);
        }
    }
    bad = bad || sb_addf(sb, md ? "\n## Cases that kill nothing alone\n\n"
                                : "\ncases that kill nothing alone (deleting one keeps the score):\n");
    for (size_t i = 0; i < r->n_cases && !bad; i++)
        if (r->cases[i].alone == 0)
            bad = sb_addf(sb, "%s%s:%d: %s case %zu of %zu\n", md ? "- " : "  ",
                          r->cases[i].file, r->cases[i].line, r->cases[i].test,
                          r->cases[i].k + 1, r->cases[i].n_cases);
    if (r->unsure)
        bad = bad || sb_addf(sb, "%s%zu killed mutants not attributed (a failing test stopped "
                             "before its last case)\n", md ? "\n" : "  ", r->unsure);
    return bad;
}

static int write_human(const struct aud_result *r, int md, struct sb *sb)
{
    int bad = sb_addf(sb, "%smutation audit of %s (spec sha256 %.12s)\n\n",
                      md ? "# " : "", r->source, r->spec_sha256);

    bad = bad || sb_addf(sb, "%smutation score: %.1f%% (%zu killed / %zu killed + survived)\n",
                         md ? "**" : "", score(r), r->killed, r->killed + r->survived);
    if (md)
        bad = bad || sb_adds(sb, "**\n");
    bad = bad || sb_addf(sb, "%zu mutants: %zu killed, %zu survived, %zu equivalent (%zu not in "
                         "the kept list), %zu invalid\n",
                         r->killed + r->survived + r->equivalent + r->invalid, r->killed,
                         r->survived, r->equivalent, r->unlisted, r->invalid);
    bad = bad || sb_addf(sb, "cost: %.1f s wall clock, %.1f s CPU (grader, compilers, runners)\n",
                         r->wall_ms / 1e3, r->cpu_ms / 1e3);
    if (r->n_same) {
        bad = bad || sb_addf(sb, "not mutated (defined word for word as in %s, its mutants "
                             "audited there):", r->same_as);
        for (size_t i = 0; i < r->n_same; i++)
            bad = bad || sb_addf(sb, " %s%s", r->same[i], i + 1 < r->n_same ? "," : "\n");
    }
    bad = bad || add_section(sb, r, AUD_SURVIVED, md,
                             "SURVIVED (no test fails; outputs differ from its source's)");
    bad = bad || add_section(sb, r, AUD_EQUIVALENT, md,
                             "likely equivalent (same outputs as its source, bit for bit or up to rounding)");
    bad = bad || add_killers(sb, r, md);
    if (r->cases)
        bad = bad || add_cases(sb, r, md);
    return bad ? -1 : 0;
}

/* ---- JSON -------------------------------------------------------------- */

static int json_mutant(struct sb *sb, const struct aud_mutant *m)
{
    int bad = sb_addf(sb, "{\"line\":%d,\"col\":%d,", m->m.line, m->m.col);

    bad = bad || json_add_key(sb, "function") || json_add_strz(sb, m->m.function, 64) ||
          sb_addch(sb, ',') || json_add_key(sb, "operator") || json_add_strz(sb, m->m.op, 64) ||
          sb_addch(sb, ',') || json_add_key(sb, "class") ||
          json_add_strz(sb, class_names[m->cls], 16) || sb_addch(sb, ',') ||
          json_add_key(sb, "before") || json_add_strz(sb, m->before, AUD_LINE_MAX) ||
          sb_addch(sb, ',') || json_add_key(sb, "after") ||
          json_add_strz(sb, m->after, AUD_LINE_MAX) || sb_addch(sb, ',');
    if (m->cls == AUD_KILLED)
        bad = bad || json_add_key(sb, "test") || json_add_strz(sb, m->test, 128) ||
              sb_addch(sb, ',') || json_add_key(sb, "how") || json_add_strz(sb, m->status, 32) ||
              sb_addch(sb, ',');
    if (m->cls == AUD_EQUIVALENT)
        bad = bad || sb_addf(sb, "\"listed\":%s,\"rounding\":%s,", m->listed ? "true" : "false",
                             m->rounding ? "true" : "false");
    return bad || json_add_key(sb, "detail") || json_add_strz(sb, m->detail, 256) ||
           sb_addch(sb, '}');
}

/* --matrix: "cases": each with the mutants only it kills. */
static int json_cases(struct sb *sb, const struct aud_result *r)
{
    int bad = sb_addf(sb, ",\"unsure\":%zu,\"cases\":[", r->unsure);

    for (size_t i = 0; i < r->n_cases && !bad; i++) {
        const struct aud_case *c = &r->cases[i];
        int first = 1;
        bad = (i && sb_addch(sb, ',')) || sb_adds(sb, "{\"test\":") ||
              json_add_strz(sb, c->test, sizeof c->test) || sb_adds(sb, ",\"file\":") ||
              json_add_strz(sb, c->file, sizeof c->file) ||
              sb_addf(sb, ",\"line\":%d,\"case\":%zu,\"of\":%zu,\"alone\":%zu,"
                      "\"mutants\":[", c->line, c->k + 1, c->n_cases, c->alone);
        for (size_t j = 0; j < r->n && !bad; j++) {
            const struct aud_mutant *m = &r->mut[j];
            if (m->cls != AUD_KILLED || m->alone != (int)c->k + 1 || strcmp(m->test, c->test))
                continue;
            bad = (!first && sb_addch(sb, ',')) || json_mutant(sb, m);
            first = 0;
        }
        bad = bad || sb_adds(sb, "]}");
    }
    return bad || sb_addch(sb, ']');
}

/* "same_as": the earlier source whose functions were not mutated again. */
static int json_same(struct sb *sb, const struct aud_result *r)
{
    int bad;

    if (r->same_as[0] == '\0')
        return 0;
    bad = sb_adds(sb, ",\"same_as\":{\"source\":") ||
          json_add_strz(sb, r->same_as, sizeof r->same_as) || sb_adds(sb, ",\"functions\":[");
    for (size_t i = 0; i < r->n_same && !bad; i++)
        bad = (i && sb_addch(sb, ',')) || json_add_strz(sb, r->same[i], MUT_NAME_MAX);
    return bad || sb_adds(sb, "]}");
}

static int write_json(const struct aud_result *r, struct sb *sb)
{
    int bad = sb_adds(sb, "{\"source\":") || json_add_strz(sb, r->source, 256) ||
              sb_addf(sb, ",\"spec_sha256\":\"%s\",\"score\":", r->spec_sha256) ||
              json_add_num(sb, score(r) / 100.0) ||
              sb_addf(sb, ",\"killed\":%zu,\"survived\":%zu,\"equivalent\":%zu,"
                      "\"unlisted_equivalent\":%zu,\"invalid\":%zu,\"wall_s\":",
                      r->killed, r->survived, r->equivalent, r->unlisted, r->invalid) ||
              json_add_num(sb, r->wall_ms / 1e3) || sb_adds(sb, ",\"cpu_s\":") ||
              json_add_num(sb, r->cpu_ms / 1e3) || json_same(sb, r) ||
              sb_adds(sb, ",\"mutants\":[");
    int first = 1;

    for (size_t i = 0; i < r->n && !bad; i++) {
        if (!r->mut[i].m.function[0] || (r->mut[i].cls == AUD_KILLED && !r->mut[i].test[0]))
            continue; /* not graded (another shard's) */
        bad = (!first && sb_addch(sb, ',')) || json_mutant(sb, &r->mut[i]);
        first = 0;
    }
    bad = bad || sb_addch(sb, ']') || (r->cases && json_cases(sb, r));
    return bad || sb_adds(sb, "}\n") ? -1 : 0;
}

int aud_write(const struct aud_result *r, enum aud_format f, struct sb *sb)
{
    return f == AUD_JSON ? write_json(r, sb) : write_human(r, f == AUD_MARKDOWN, sb);
}

/* ---- the kept list ----------------------------------------------------- */

static void trim(char *s)
{
    size_t n = strlen(s), a = 0;

    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    while (s[a] == ' ' || s[a] == '\t')
        a++;
    memmove(s, s + a, strlen(s + a) + 1);
}

/* One entry into fn, before, after, why (each AUD_LINE_MAX). 0, 1 for a
 * line to skip, -1 malformed. */
static int parse_entry(char *line, char *fn, char *before, char *after, char *why)
{
    char *colon = strstr(line, ": "), *arrow = strstr(line, " ==> "), *hash;

    trim(line);
    if (line[0] == '\0' || line[0] == '#')
        return 1;
    hash = strstr(line, " # ");
    if (!colon || !arrow || !hash || colon > arrow || arrow > hash)
        return -1;
    *colon = *arrow = *hash = '\0';
    snprintf(fn, AUD_LINE_MAX, "%.199s", line);
    snprintf(before, AUD_LINE_MAX, "%.199s", colon + 2);
    snprintf(after, AUD_LINE_MAX, "%.199s", arrow + 5);
    snprintf(why, AUD_LINE_MAX, "%.199s", hash + 3);
    trim(fn), trim(before), trim(after), trim(why);
    return why[0] ? 0 : -1;
}

static void mark(struct aud_mutant *m, size_t n, const char *fn, const char *before,
                 const char *after, const char *why)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].cls == AUD_EQUIVALENT && strcmp(m[i].m.function, fn) == 0 &&
            strcmp(m[i].before, before) == 0 && strcmp(m[i].after, after) == 0) {
            m[i].listed = 1;
            snprintf(m[i].detail, sizeof m[i].detail, "%s", why);
        }
}

/* Whether a "[source PATH]" line names `source`: PATH itself or a path
 * ending in "/PATH". */
static int names_source(const char *path, const char *source)
{
    size_t n = strlen(path), m = strlen(source);

    return strcmp(path, source) == 0 ||
           (m > n && source[m - n - 1] == '/' && strcmp(source + m - n, path) == 0);
}

int aud_apply_kept(const char *path, const char *source, struct aud_mutant *m, size_t n,
                   struct err *e)
{
    FILE *f = fopen(path, "r");
    char line[1024], fn[AUD_LINE_MAX], before[AUD_LINE_MAX], after[AUD_LINE_MAX], why[AUD_LINE_MAX];
    int ln = 0, rc = 0, ours = 1, heading = 0;

    if (f == NULL)
        return err_set(e, path, 0, 0, "cannot read the kept list '%s'", path);
    while (rc == 0 && fgets(line, sizeof line, f)) {
        int k;
        ln++;
        line[strcspn(line, "\n")] = '\0';
        trim(line);
        if (strncmp(line, "[source ", 8) == 0) {
            size_t len = strlen(line);
            if (len < 10 || line[len - 1] != ']')
                rc = err_set(e, path, ln, 1, "expected '[source PATH]'");
            line[len - 1] = '\0';
            trim(line + 8);
            /* "[source A]" lines in a row head one block: its entries
             * hold for each source they name (text-identical code) */
            ours = rc == 0 && ((heading && ours) || names_source(line + 8, source ? source : ""));
            heading = 1;
            continue;
        }
        k = parse_entry(line, fn, before, after, why);
        if (k == 0)
            heading = 0;
        if (k < 0)
            rc = err_set(e, path, ln, 1, "expected 'FUNCTION: BEFORE ==> AFTER  # REASON'");
        else if (k == 0 && ours)
            mark(m, n, fn, before, after, why);
    }
    fclose(f);
    return rc;
}
