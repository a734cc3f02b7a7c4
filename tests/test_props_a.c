/*
 * test_props_a.c -- the softmax, sdpa and pe properties (prop_softmax.c,
 * prop_sdpa.c, prop_pe.c) and the generic runners of prop_common.c.
 *
 * Every property passes on the reference for every case of both specs;
 * every catalogue entry of props-A fails exactly its expect-fail tests and
 * passes every other softmax/sdpa/pe test (run in-process through the
 * TEST-ONLY impl_dl.h: these entries are ours and not hostile).
 * PA_DISCOVER=1 prints each entry's failing ids instead of asserting.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impl_dl.h"
#include "prop.h"
#include "prop_common.h"
#include "spec.h"

static const char *const my_fns[] = {"softmax", "sdpa", "pe"};

/* ---- loading only props-A's sections of a spec file --------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = calloc((size_t)n + 1, 1)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = buf ? strlen(buf) : 0;
    return buf;
}

/* Append the text between "# ---- fn (owner: props-A) ----" and its end. */
static void append_section(char *dst, size_t cap, const char *file, const char *fn)
{
    char start[80], end[80];
    const char *a, *b;

    snprintf(start, sizeof start, "# ---- %s (owner: props-A) ----\n", fn);
    snprintf(end, sizeof end, "# ---- end %s ----", fn);
    a = strstr(file, start);
    cr_assert(a != NULL, "no section '%s'", fn);
    a += strlen(start);
    b = strstr(a, end);
    cr_assert(b != NULL && strlen(dst) + (size_t)(b - a) < cap);
    strncat(dst, a, (size_t)(b - a));
}

/* The set of our tests in specs/public.yaml and specs/hidden.yaml. */
static struct spec_set *load_ours(void)
{
    static const char *const files[] = {"public.yaml", "hidden.yaml"};
    struct spec_set *s = spec_set_new();
    struct grd_err e = {0};

    cr_assert(s != NULL);
    for (size_t f = 0; f < 2; f++) {
        char path[512];
        size_t len, cap;
        char *file, *buf;
        snprintf(path, sizeof path, "%s/specs/%s", TEST_SRCDIR, files[f]);
        file = slurp(path, &len);
        cr_assert(file != NULL, "cannot read %s", path);
        cap = len + 64;
        buf = calloc(cap, 1);
        cr_assert(buf != NULL);
        strncat(buf, "version: 1\ntests:\n", cap - 1);
        for (size_t i = 0; i < 3; i++)
            append_section(buf, cap, file, my_fns[i]);
        cr_assert(spec_load_buffer(s, path, buf, strlen(buf), prop_check_case, &e) == 0,
                  "%s:%d:%d: %s", e.file, e.line, e.col, e.msg);
        free(buf);
        free(file);
    }
    return s;
}

/* ---- running tests ------------------------------------------------------- */

/* 1 when every case of t passes on `student`; the first failure in msg. */
static int test_passes(const struct spec_test *t, struct impl student, char *msg,
                       size_t n)
{
    struct impl ref = impl_local();
    struct prop_env env = {student, &ref, 1, 0};
    const struct prop_def *d = prop_find(t->function, t->property);

    cr_assert(d != NULL, "no property for %s", t->id);
    for (size_t i = 0; i < t->n_cases; i++) {
        struct prop_verdict v;
        struct grd_err e = {0};
        memset(&v, 0, sizeof v);
        cr_assert(d->run(&env, t, &t->cases[i], &v, &e) == 0, "%s case %zu: grader error: "
                  "%s", t->id, i, e.msg);
        if (!v.passed) {
            snprintf(msg, n, "%s: %s [hint: %s]", t->id, v.msg, v.hint);
            cr_assert(v.msg[0] != '\0', "%s failed without a message", t->id);
            return 0;
        }
    }
    return 1;
}

Test(props_a, reference_passes_every_case_of_both_specs)
{
    struct spec_set *s = load_ours();
    char msg[2048];

    cr_assert(spec_test_count(s) >= 40);
    for (size_t i = 0; i < spec_test_count(s); i++)
        cr_expect(test_passes(spec_test_at(s, i), impl_local(), msg, sizeof msg), "%s", msg);
    spec_set_free(s);
}

Test(props_a, points_total_32_public_and_22_hidden)
{
    struct spec_set *s = load_ours();
    double pub = 0, hid = 0;

    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        cr_expect(t->hint != NULL, "%s has no hint", t->id);
        if (strstr(t->file, "public.yaml"))
            pub += t->points;
        else
            hid += t->points;
    }
    cr_expect(fabs(pub - 32) < 1e-9, "public points %g", pub);
    cr_expect(fabs(hid - 22) < 1e-9, "hidden points %g", hid);
    spec_set_free(s);
}

/* ---- the catalogue ------------------------------------------------------- */

/* Whether `id` appears as a word in the header line starting with `tag`. */
static int header_lists(const char *src, const char *tag, const char *id)
{
    const char *line = strstr(src, tag), *eol;
    size_t n = strlen(id);

    if (line == NULL)
        return 0;
    eol = strchr(line, '\n');
    for (const char *p = line + strlen(tag); p && p < eol; p = strchr(p + 1, ' '))
        if (strncmp(p + 1, id, n) == 0 && (p[1 + n] == ' ' || p[1 + n] == '\n'))
            return 1;
    return 0;
}

/* Tests that an in-process impl cannot judge: it counts no allocations. */
static int in_process_blind(const struct spec_test *t)
{
    return strcmp(t->property, "no_leaks") == 0;
}

static void check_entry(const char *name)
{
    char path[512], err[256], msg[2048];
    struct impl_dl dl;
    struct spec_set *s = load_ours();
    size_t len;
    char *src;
    int discover = getenv("PA_DISCOVER") != NULL;

    snprintf(path, sizeof path, "%s/tests/submissions/%s.c", TEST_SRCDIR, name);
    src = slurp(path, &len);
    cr_assert(src != NULL && strstr(src, "/* CATALOGUE") == src, "%s: no header", name);
    cr_assert(impl_dl_open(&dl, path, err, sizeof err) == 0, "%s", err);
    if (discover)
        printf("DISCOVER %s:", name);
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        int passed = test_passes(t, impl_dl_impl(&dl), msg, sizeof msg);
        int must_fail = header_lists(src, " * expect-fail:", t->id);
        if (discover && !passed)
            printf(" %s", t->id);
        if (discover || in_process_blind(t) ||
            header_lists(src, " * expect-maybe:", t->id))
            continue;
        if (must_fail)
            cr_expect(!passed, "%s: '%s' should fail but passed", name, t->id);
        else
            cr_expect(passed, "%s: unexpected failure %s", name, msg);
    }
    if (discover)
        printf("\n");
    impl_dl_close(&dl);
    spec_set_free(s);
    free(src);
}

#define ENTRY(n) Test(props_a_catalogue, n) { check_entry(#n); }
ENTRY(softmax_float_ok)
ENTRY(sdpa_float_ok)
ENTRY(pe_float_ok)
ENTRY(softmax_no_max_shift)
ENTRY(softmax_wrong_axis)
ENTRY(softmax_exp_no_norm)
ENTRY(softmax_no_einval)
ENTRY(sdpa_no_scale)
ENTRY(sdpa_scale_by_d)
ENTRY(sdpa_transposed_index)
ENTRY(sdpa_inverted_mask)
ENTRY(sdpa_masked_nan)
ENTRY(sdpa_mask_minus_big)
ENTRY(sdpa_weights_unnormalised)
ENTRY(sdpa_weights_required)
ENTRY(sdpa_always_causal)
ENTRY(sdpa_leaks_scores)
ENTRY(pe_sin_cos_swapped)
ENTRY(pe_wrong_exponent)
ENTRY(pe_odd_d_cos)
ENTRY(pe_integer_division)
ENTRY(pe_ignores_position)
ENTRY(pe_missing_sin)
