/*
 * test_selfcheck.c -- the hands-on part's computations (selfcheck.h) on the
 * reference through impl_local(), and the figures (svg.h), checked for
 * well-formed XML with xmllint.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "selfcheck/selfcheck.h"
#include "core/svg.h"

#define TEXT "The cat sat on the mat. It was warm, and the cat slept."

static struct impl ref;

static void setup(void)
{
    ref = impl_local();
}

TestSuite(selfcheck, .init = setup);

Test(selfcheck, tokenize_lowercases_words)
{
    struct sc_words w;
    struct err e;

    cr_assert_eq(sc_tokenize("  It's the CAT, 2 mats!", "t", &w, &e), 0, "%s", e.msg);
    cr_assert_eq(w.n, 5);
    cr_expect_str_eq(w.w[0], "it's");
    cr_expect_str_eq(w.w[2], "cat");
    cr_expect_str_eq(w.w[3], "2");
    cr_expect_str_eq(w.w[4], "mats");
}

Test(selfcheck, tokenize_refuses_with_column)
{
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"caf\u00e9 au lait", "TEXT:1:4: non-ASCII character"},
        {"alone", "TEXT: the text has 1 word: attention needs at least two"},
        {"...", "TEXT: the text has 0 words"},
        {"", "TEXT: no text given: write three or four sentences, e.g. TEXT=\"The cat"},
        {" \n", "TEXT: no text given"},
        {"a bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "TEXT:1:3: word 'bbbb"},
    };
    struct sc_words w;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct err e;
        char buf[1024];
        err_clear(&e);
        cr_expect_eq(sc_tokenize(cases[i].text, "TEXT", &w, &e), -1, "case %zu", i);
        err_format(&e, buf, sizeof buf);
        cr_expect(strncmp(buf, cases[i].expect, strlen(cases[i].expect)) == 0,
                  "case %zu: got '%s'", i, buf);
    }
}

/* The known map of TEXT with the reference: repeated words are the top
 * pairs (identical vectors), each word pair counted once. */
Test(selfcheck, map_of_fixed_text_has_known_top_pairs)
{
    static const struct {
        const char *q, *k;
        double w;
    } expect[3] = {{"cat", "cat", 0.45978}, {"the", "the", 0.30240}, {"slept", "mat", 0.23192}};
    struct sc_words w;
    struct sc_map m;
    struct sc_pair top[3];
    struct err e;

    cr_assert_eq(sc_tokenize(TEXT, "t", &w, &e), 0);
    cr_assert_eq(sc_map_build(&ref, &w, NULL, 0, &m, &e), SC_OK, "%s", e.msg);
    cr_assert_eq(m.n, 13);
    cr_assert_eq(m.d, SC_D);
    cr_assert_eq(sc_top_pairs(&m, top, 3), 3);
    for (size_t i = 0; i < 3; i++) {
        cr_expect_str_eq(m.words.w[top[i].q], expect[i].q, "pair %zu", i);
        cr_expect_str_eq(m.words.w[top[i].k], expect[i].k, "pair %zu", i);
        cr_expect(fabs(top[i].weight - expect[i].w) < 5e-5, "pair %zu: %f", i,
                  (double)top[i].weight);
    }
    for (size_t q = 0; q < m.n; q++) {
        double s = 0;
        for (size_t k = 0; k < m.n; k++)
            s += m.w[q * m.n + k];
        cr_expect(fabs(s - 1) < 1e-5, "row %zu sums to %f", q, s);
    }
    sc_map_release(&m);
}

Test(selfcheck, word_vectors_are_deterministic_and_unit_variance)
{
    float a[256], b[256];
    double s2 = 0;

    sc_word_vector("cat", a, 256);
    sc_word_vector("cat", b, 256);
    cr_expect(memcmp(a, b, sizeof a) == 0);
    sc_word_vector("mat", b, 256);
    cr_expect(memcmp(a, b, sizeof a) != 0);
    for (size_t i = 0; i < 256; i++)
        s2 += (double)a[i] * a[i];
    cr_expect(s2 / 256 > 0.7 && s2 / 256 < 1.3, "variance %f", s2 / 256);
}

/* Vectors written to a file and read back give the same map. */
Test(selfcheck, vectors_file_round_trips)
{
    char path[] = "/tmp/sc_vectors_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    struct sc_words w;
    struct sc_vectors *vs;
    struct sc_map a, b;
    struct err e;
    float v[SC_D];

    cr_assert_not_null(f);
    cr_assert_eq(sc_tokenize(TEXT, "t", &w, &e), 0);
    fprintf(f, "# the hash-seeded vectors, written out\n\n");
    for (size_t i = 0; i < w.n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(w.w[i], w.w[j]) == 0;
        if (seen)
            continue; /* a word has one vector */
        sc_word_vector(w.w[i], v, SC_D);
        fprintf(f, "%s", w.w[i]);
        for (size_t k = 0; k < SC_D; k++)
            fprintf(f, " %.9g", (double)v[k]);
        fprintf(f, "\n");
    }
    fclose(f);
    vs = sc_vectors_load(path, &e);
    unlink(path);
    cr_assert_not_null(vs, "%s", e.msg);
    cr_expect_eq(sc_vectors_dim(vs), SC_D);
    cr_expect_eq(sc_vectors_count(vs), 10);
    cr_assert_eq(sc_map_build(&ref, &w, vs, 0, &a, &e), SC_OK, "%s", e.msg);
    cr_assert_eq(sc_map_build(&ref, &w, NULL, 0, &b, &e), SC_OK, "%s", e.msg);
    cr_expect(memcmp(a.w, b.w, w.n * w.n * sizeof *a.w) == 0);
    sc_map_release(&a);
    sc_map_release(&b);
    sc_vectors_free(vs);
}

Test(selfcheck, bad_vector_lines_name_their_line)
{
    static const struct {
        const char *buf, *expect;
    } cases[] = {
        {"cat 1 2 3\nmat 1 2\n", "v.txt:2:8: 'mat' has 2 numbers, expected 3"},
        {"cat 1 2\n\n# c\nmat 1 x\n", "v.txt:4:7: not a finite number: 'x'"},
        {"cat 1 2\nmat 1 nan\n", "v.txt:2:7: not a finite number: 'nan'"},
        {"cat 1\ncat 2\n", "v.txt:2:1: duplicate word 'cat'"},
        {"c@t 1\n", "v.txt:1:1: not a word"},
        {"cat\n", "v.txt:1:4: no numbers after 'cat'"},
        {"# only a comment\n", "v.txt: no vectors"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct err e;
        char buf[1024];
        struct sc_vectors *v;
        err_clear(&e);
        v = sc_vectors_parse("v.txt", cases[i].buf, strlen(cases[i].buf), &e);
        cr_expect_null(v, "case %zu parsed", i);
        sc_vectors_free(v);
        err_format(&e, buf, sizeof buf);
        cr_expect(strncmp(buf, cases[i].expect, strlen(cases[i].expect)) == 0,
                  "case %zu: got '%s', expected '%s'", i, buf, cases[i].expect);
    }
}

Test(selfcheck, missing_word_in_vectors_is_named)
{
    struct sc_words w;
    struct sc_vectors *vs;
    struct sc_map m;
    struct err e;
    const char *buf = "the 1 0\ncat 0 1\n";

    cr_assert_eq(sc_tokenize("the cat sat", "t", &w, &e), 0);
    vs = sc_vectors_parse("v", buf, strlen(buf), &e);
    cr_assert_not_null(vs);
    cr_expect_eq(sc_map_build(&ref, &w, vs, 0, &m, &e), SC_ERR);
    cr_expect(strstr(e.msg, "'sat' has no vector") != NULL, "%s", e.msg);
    sc_vectors_free(vs);
}

/* The notebook's measurement: without 1/sqrt(d) the mean max weight
 * creeps towards one; with it, it holds near its small-d value. */
Test(selfcheck, saturation_creeps_without_scaling)
{
    struct sc_sat_row rows[SC_SAT_ROWS];
    struct err e;

    cr_assert_eq(sc_saturation(&ref, SC_SAT_SEED, rows, &e), SC_OK, "%s", e.msg);
    cr_expect_eq(rows[0].d, 2);
    cr_expect_eq(rows[SC_SAT_ROWS - 1].d, 1024);
    cr_expect(rows[SC_SAT_ROWS - 1].unscaled > 0.9, "%f", rows[SC_SAT_ROWS - 1].unscaled);
    for (size_t i = 0; i < SC_SAT_ROWS; i++)
        cr_expect(rows[i].scaled > 0.15 && rows[i].scaled < 0.35, "d=%zu: %f", rows[i].d,
                  rows[i].scaled);
    cr_expect(rows[SC_SAT_ROWS - 1].unscaled > rows[3].unscaled);
}

Test(selfcheck, permutation_is_invisible_without_pe_only)
{
    struct sc_words w;
    size_t order[SC_MAX_WORDS];
    struct sc_perm p;
    struct err e;

    cr_assert_eq(sc_tokenize("The cat sat on the mat.", "t", &w, &e), 0);
    cr_assert_eq(sc_parse_order("6 2 3 4 5 1", w.n, order, &e), 0, "%s", e.msg);
    cr_assert_eq(sc_permute(&ref, &w, NULL, order, 0, &p, &e), SC_OK, "%s", e.msg);
    cr_expect(p.same_set, "diff %g", p.max_abs_diff);
    cr_expect_str_eq(p.perm.words.w[0], "mat");
    sc_perm_release(&p);
    cr_assert_eq(sc_permute(&ref, &w, NULL, order, 1, &p, &e), SC_OK, "%s", e.msg);
    cr_expect(!p.same_set && p.max_abs_diff > 0.1, "diff %g", p.max_abs_diff);
    sc_perm_release(&p);
}

Test(selfcheck, order_is_validated)
{
    static const struct {
        const char *s, *expect;
    } cases[] = {
        {"1 2", "the order has 2 numbers but the text has 3 words"},
        {"1 2 3 4", "the order has more than 3 numbers"},
        {"1 2 2", "position '2' appears twice"},
        {"1 2 4", "'4' is not a position 1..3"},
        {"1,2,x", "'x' is not a number"},
        {"0 1 2", "'0' is not a position 1..3"},
    };
    size_t order[3];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct err e;
        err_clear(&e);
        cr_expect_eq(sc_parse_order(cases[i].s, 3, order, &e), -1, "case %zu", i);
        cr_expect(strstr(e.msg, cases[i].expect) != NULL, "case %zu: %s", i, e.msg);
    }
    cr_assert_eq(sc_parse_order(" 3, 1 2 ", 3, order, NULL), 0);
    cr_expect(order[0] == 2 && order[1] == 0 && order[2] == 1);
}

/* ---- svg -------------------------------------------------------------------- */

static void expect_wellformed(const struct sb *b, const char *what)
{
    char path[] = "/tmp/sc_svg_XXXXXX";
    char cmd[128];
    int fd = mkstemp(path), rc;

    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(svg_save(b, path, NULL), 0);
    snprintf(cmd, sizeof cmd, "xmllint --noout %s", path);
    rc = system(cmd);
    unlink(path);
    cr_expect_eq(rc, 0, "%s is not well-formed XML", what);
}

Test(svg, figures_are_wellformed_xml)
{
    const char *labels[3] = {"a<b", "c&d", "\"q\"\x01"};
    double vals[9] = {0.1, 0.2, 0.7, 0.3, 0.3, 0.4, 1, 0, 0};
    double x[3] = {2, 4, 8}, y1[3] = {0.2, 0.2, 0.2}, y2[3] = {0.3, 0.6, 0.9};
    struct svg_series s[2] = {{"with <1/sqrt(d)>", y1}, {"without & co", y2}};
    struct svg_heatmap_opts h = {"map <&>", "sub", "query", "key", labels, labels, 3, 3,
                                 vals, 0, 1, 1};
    struct svg_lines_opts l = {"sat", NULL, "d", "w", x, 3, 1, s, 2, 0, 1};
    struct sb b;
    struct err e;

    sb_init(&b, SVG_DEFAULT_CAP);
    cr_assert_eq(svg_heatmap(&b, &h, &e), 0, "%s", e.msg);
    cr_expect(strstr(sb_str(&b), "a&lt;b") != NULL);
    expect_wellformed(&b, "heatmap");
    cr_assert_eq(svg_lines(&b, &l, &e), 0, "%s", e.msg);
    expect_wellformed(&b, "lines");
    sb_release(&b);
}

Test(svg, cap_and_bad_options_fail_cleanly)
{
    double vals[1] = {1}, x[2] = {1, 1};
    const char *labels[1] = {"a"};
    struct svg_series s = {"s", vals};
    struct svg_heatmap_opts h = {"t", NULL, "q", "k", labels, labels, 1, 1, vals, 0, 1, 0};
    struct svg_lines_opts l = {"t", NULL, "x", "y", x, 2, 0, &s, 1, 0, 1};
    struct sb b;
    struct err e;

    sb_init(&b, 100);
    cr_expect_eq(svg_heatmap(&b, &h, &e), -1);
    cr_expect(strstr(e.msg, "larger than 100 bytes") != NULL, "%s", e.msg);
    cr_expect_eq(b.len, 0);
    cr_expect_str_eq(sb_str(&b), "");
    cr_expect_eq(svg_lines(&b, &l, &e), -1);
    cr_expect(strstr(e.msg, "invalid figure") != NULL, "%s", e.msg);
    sb_release(&b);
}

/* The subtitle of a narrow figure (the map of a 3-word text) wraps and is
 * never cut: its lines hold every word, in order, each inside the width. */
Test(svg, subtitle_wraps_and_is_never_cut)
{
    static const char sub[] = "1 layer, 1 head, Q = K = V = X, d = 16, no PE, vectors: "
                              "hash-seeded. Arbitrary vectors: a description, not an explanation";
    const char *labels[3] = {"the", "cat", "sat"};
    double vals[9] = {1, 0, 0, 0, 1, 0, 0.2, 0, 0.8};
    struct svg_heatmap_opts h = {"Self-attention map", sub, "query", "key", labels, labels, 3,
                                 3, vals, 0, 1, 1};
    struct sb b;
    char joined[512] = "";
    const char *doc, *p;
    double width;
    size_t lines = 0;

    sb_init(&b, SVG_DEFAULT_CAP);
    cr_assert_eq(svg_heatmap(&b, &h, NULL), 0);
    doc = sb_str(&b);
    width = strtod(strstr(doc, "width=\"") + 7, NULL);
    for (p = strstr(doc, "fill=\"#444\">"); p; p = strstr(p + 1, "fill=\"#444\">")) {
        const char *t = strchr(p, '>') + 1;
        size_t n = strcspn(t, "<");

        /* 12 px sans glyphs are at most 6.8 px wide; the text starts at x = 16 */
        cr_expect(16 + 6.8 * (double)n <= width, "line '%.*s' is wider than %.0f px", (int)n,
                  t, width);
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%.*s",
                 lines++ ? " " : "", (int)n, t);
    }
    cr_expect(lines >= 2, "the subtitle did not wrap on a %.0f px figure", width);
    cr_expect_str_eq(joined, sub);
    expect_wellformed(&b, "heatmap with a wrapped subtitle");
    sb_release(&b);
}
