/*
 * test_props_b.c -- the properties of layernorm, mha and block (props-B).
 *
 *  - every test of both specs passes on the reference (impl_local);
 *  - every test of both specs passes on each correct alternative
 *    (tests/submissions/correct_*.c, loaded with impl_dl: TEST-ONLY);
 *  - each catalogue entry of ours fails exactly its expect-fail ids among
 *    the tests of both specs (expect-maybe ids may go either way).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impl_dl.h"
#include "grade/grade_props.h"
#include "props/prop.h"
#include "spec/spec.h"

static const char *const specs[] = {
    TEST_SRCDIR "/specs/public.yaml",
    TEST_SRCDIR "/specs/hidden.yaml",
};

static const char *const ours[] = {"layernorm", "mha", "block"};

static int is_ours(const struct spec_test *t)
{
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        if (strcmp(t->function, ours[i]) == 0)
            return 1;
    return 0;
}

static struct spec_set *load_specs(void)
{
    struct spec_set *s = spec_set_new();
    struct err e;

    cr_assert_not_null(s);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        cr_assert_eq(spec_load(s, specs[i], gprop_check_case, &e), 0,
                     "%s: %s (line %d)", specs[i], e.msg, e.line);
    return s;
}

/* Run test t on `im`: 1 when every case passes, 0 otherwise; the first
 * failure's message goes into msg. A grader error fails the Criterion
 * test. */
static int run_test(const struct impl *im, const struct spec_test *t,
                    char *msg, size_t n)
{
    struct impl ref = impl_local();
    const struct prop_def *d = gprop_find(t->function, t->property);
    struct prop_env env;

    memset(&env, 0, sizeof env);
    env.student = *im;
    env.reference = &ref;

    cr_assert_not_null(d, "%s: no property", t->id);
    for (size_t i = 0; i < t->n_cases; i++) {
        struct prop_verdict v;
        struct err e;
        memset(&v, 0, sizeof v);
        memset(&e, 0, sizeof e);
        cr_assert_eq(d->run(&(const struct prop_ctx){&env, t, &t->cases[i], d, &v, &e}), 0,
                     "%s case %zu: grader error: %s", t->id, i, e.msg);
        if (!v.passed) {
            snprintf(msg, n, "%s | hint: %s", v.msg, v.hint);
            return 0;
        }
    }
    return 1;
}

Test(props_b, reference_passes_every_case)
{
    struct spec_set *s = load_specs();
    struct impl im = impl_local();
    char msg[2200];
    size_t n = 0;

    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        if (!is_ours(t))
            continue;
        n++;
        cr_expect(run_test(&im, t, msg, sizeof msg), "%s: %s", t->id, msg);
    }
    cr_expect(n >= 30, "only %zu tests of layernorm/mha/block", n);
    spec_set_free(s);
}

/* ---- the catalogue ------------------------------------------------------ */

/* The text after `key` on its header line, e.g. the ids of expect-fail. */
static void header_field(const char *src, const char *key, char *out, size_t n)
{
    size_t used = 0;

    /* every line of the field, as the catalogue reads it (an entry may
     * continue a long list on a second "expect-fail:" line) */
    out[0] = '\0';
    for (const char *p = strstr(src, key); p != NULL; p = strstr(p, key)) {
        size_t len = 0;
        int k;

        p += strlen(key);
        while (p[len] && p[len] != '\n')
            len++;
        k = snprintf(out + used, n - used, " %.*s ", (int)len, p);
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
}

static int listed(const char *ids, const char *id)
{
    char pat[256];

    snprintf(pat, sizeof pat, " %s ", id);
    return strstr(ids, pat) != NULL;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 1 << 17);

    cr_assert_not_null(f, "cannot open %s", path);
    cr_assert_not_null(buf);
    cr_assert(fread(buf, 1, (1 << 17) - 1, f) > 0, "%s is empty", path);
    fclose(f);
    return buf;
}

/*
 * Tests an entry cannot run in-process: it writes past an output buffer,
 * which corrupts this process's heap (the sandbox reports it as an overrun
 * and the test fails there, as its expect-fail line says).
 */
static const struct {
    const char *entry, *ids;
} in_process_skip[] = {
    {"mha_heads_not_checked.c", " mha.einval "},
    /* reads past the end of Xq: only the sandbox's guard page sees it */
    {"mha_kv_from_xq.c", " mha.weights_rows_sum_to_one mha.inputs_unchanged mha.domain "},
};

static int skipped(const char *name, const char *id)
{
    for (size_t i = 0; i < sizeof in_process_skip / sizeof in_process_skip[0]; i++)
        if (!strcmp(in_process_skip[i].entry, name) &&
            listed(in_process_skip[i].ids, id))
            return 1;
    return 0;
}

/* Grade `name` with every test of both specs; compare with its header. */
static void check_entry(struct spec_set *s, const char *name)
{
    char path[512], err[512], fail[1024], maybe[1024], msg[2200];
    struct impl_dl dl;
    struct impl im;
    char *src;

    snprintf(path, sizeof path, "%s/submissions/%s", TEST_CATDIR, name);
    src = read_all(path);
    header_field(src, "expect-fail:", fail, sizeof fail);
    header_field(src, "expect-maybe:", maybe, sizeof maybe);
    free(src);
    cr_assert_eq(impl_dl_open(&dl, path, err, sizeof err), 0, "%s", err);
    im = impl_dl_impl(&dl);
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        int passed;
        if (listed(maybe, t->id) || skipped(name, t->id))
            continue;
        passed = run_test(&im, t, msg, sizeof msg);
        if (!passed && getenv("PROPS_B_VERBOSE") != NULL)
            cr_log_info("%s: %s: %s", name, t->id, msg);
        if (listed(fail, t->id))
            cr_expect(!passed, "%s: %s passed but is listed in expect-fail",
                      name, t->id);
        else
            cr_expect(passed, "%s: %s failed: %s", name, t->id, msg);
    }
    impl_dl_close(&dl);
}

static const char *const entries[] = {
    "correct_float_only.c",
    "correct_online_softmax.c",
    "correct_loop_orders.c",
    "layernorm_sample_variance.c",
    "layernorm_no_eps_guard_nan.c",
    "layernorm_eps_outside_sqrt.c",
    "mha_wrong_head_slicing.c",
    "mha_head_interleaved.c",
    "mha_missing_wo.c",
    "mha_scale_by_dmodel.c",
    "mha_kv_from_xq.c",
    "mha_weights_layout.c",
    "mha_weights_same_slot.c",
    "mha_heads_not_checked.c",
    "block_missing_residual.c",
    "block_prenorm.c",
    "block_no_relu.c",
    "block_missing_b2.c",
};

Test(props_b, catalogue_entries_fail_exactly_their_ids, .timeout = 120)
{
    struct spec_set *s = load_specs();
    const char *only = getenv("PROPS_B_ONLY");

    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (only == NULL || strstr(entries[i], only) != NULL)
            check_entry(s, entries[i]);
    spec_set_free(s);
}

/* Every property of ours can fail: some entry fails some test using it. */
Test(props_b, every_property_is_used_by_a_test)
{
    struct spec_set *s = load_specs();

    for (size_t i = 0; i < prop_count(); i++) {
        const struct prop_def *d = prop_at(i);
        int used = 0;
        if (strcmp(d->function, "layernorm") && strcmp(d->function, "mha") &&
            strcmp(d->function, "block"))
            continue;
        for (size_t j = 0; j < spec_test_count(s) && !used; j++) {
            const struct spec_test *t = spec_test_at(s, j);
            used = !strcmp(t->function, d->function) &&
                   !strcmp(t->property, d->property);
        }
        cr_expect(used, "%s.%s is used by no test", d->function, d->property);
    }
    spec_set_free(s);
}
