/*
 * test_audit.c -- `grader audit` checked on a small fixed mutant set: the
 * mutants of softmax_row under four operators (tests/audit/mutators.txt),
 * graded with a two-test spec (tests/audit/softmax.yaml), must land in
 * known classes; the same spec with its one large-logit case deleted must
 * let a mutant survive and report a lower score. Plus the lexer's ground
 * rules: no mutant in comments or literals, none across a line splice.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "support/json_read.h"
#include "grading.h"

#define DIR TEST_SRCDIR "/tests/audit/"
#define REF TEST_SRCDIR "/reference/attention.c"

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 16);

    cr_assert(f && buf, "cannot read %s", path);
    *n = fread(buf, 1, (1 << 16) - 1, f);
    buf[*n] = '\0';
    fclose(f);
    return buf;
}

/* The options every audit here shares: 2 jobs, seed 1, 10 equivalence
 * trials per function, the grader's build directory. */
static void base_opts(struct aud_opts *o, const struct spec_set *s, const struct mut_ops *ops,
                      const char *source, const char *name, const char *kept,
                      const char *function)
{
    memset(o, 0, sizeof *o);
    o->specs = s;
    o->source = source;
    o->source_name = name;
    o->ops = ops;
    o->equivalents = kept;
    o->data_dir = TEST_BUILDDIR;
    o->jobs = 2;
    o->seed = 1;
    o->equiv_trials = 10;
    o->function = function;
}

/* The audit of softmax_row under ops with the spec text `spec` (with
 * --matrix when `matrix`). */
static struct aud_result *audit_m(const char *spec, size_t len, struct mut_ops *ops,
                                  const char *kept, int matrix)
{
    struct spec_set *s = spec_set_new();
    struct aud_opts o;
    struct aud_result *r = NULL;
    struct err e;

    err_clear(&e);
    cr_assert(spec_load_buffer(s, "softmax.yaml", spec, len, gprop_check_case, &e) == 0, "%s", e.msg);
    base_opts(&o, s, ops, REF, "reference/attention.c", kept, "softmax_row");
    o.matrix = matrix;
    cr_assert(aud_run(&o, &r, &e) == 0, "audit: %s", e.msg);
    spec_set_free(s);
    return r;
}

static struct aud_result *audit(const char *spec, size_t len, struct mut_ops *ops,
                                const char *kept)
{
    return audit_m(spec, len, ops, kept, 0);
}

static const struct aud_mutant *find(const struct aud_result *r, int line, const char *after)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->mut[i].m.line == line && strcmp(r->mut[i].after, after) == 0)
            return &r->mut[i];
    cr_assert_fail("no mutant at line %d giving '%s'", line, after);
    return NULL;
}

static const struct {
    int line;
    const char *after;
    enum aud_class cls;
    const char *test; /* killed: the first failing test */
} expected[] = {
    {98, "double max = x[0], sum = 1.0;", AUD_KILLED, "softmax.values"},
    {98, "double max = x0], sum = 0.0;", AUD_INVALID, NULL},
    {100, "for (size_t j = 0; j < cols; j++)", AUD_EQUIVALENT, NULL},
    {101, "if (x[j] >= max)", AUD_EQUIVALENT, NULL},
    {102, ";", AUD_KILLED, "softmax.stable"},
    {104, ";", AUD_KILLED, "softmax.values"},
    {106, ";", AUD_KILLED, "softmax.values"},
    {106, "xj] = (float)(exp((double)x[j] - max) / sum);", AUD_INVALID, NULL},
};

Test(audit, fixed_mutants_are_classified, .timeout = 600)
{
    size_t len;
    char *spec = slurp(DIR "softmax.yaml", &len);
    struct err e;
    struct mut_ops *ops = mut_ops_load(DIR "mutators.txt", &e);
    struct aud_result *r;
    struct sb sb;

    cr_assert(ops != NULL, "%s", e.msg);
    r = audit(spec, len, ops, DIR "equivalent.txt");
    cr_expect_eq(r->n, 15, "15 mutants of softmax_row, got %zu", r->n);
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        const struct aud_mutant *m = find(r, expected[i].line, expected[i].after);
        cr_expect_eq(m->cls, expected[i].cls, "line %d '%s': class %d, expected %d (%s)",
                     expected[i].line, expected[i].after, m->cls, expected[i].cls, m->detail);
        if (expected[i].test)
            cr_expect_str_eq(m->test, expected[i].test, "line %d '%s'", expected[i].line,
                             expected[i].after);
    }
    cr_expect(find(r, 101, "if (x[j] >= max)")->listed, "the kept list names it");
    cr_expect_not(find(r, 100, "for (size_t j = 0; j < cols; j++)")->listed);
    cr_expect_eq(r->survived, 0);
    cr_expect_eq(r->invalid, 6, "one per '[' dropped: %zu", r->invalid);
    cr_expect_eq(r->unlisted, 1);
    sb_init(&sb, 0);
    cr_assert(aud_write(r, AUD_JSON, &sb) == 0);
    cr_expect(json_validate(sb_str(&sb), sb.len, &e) == 0, "JSON: %s", e.msg);
    cr_expect(strstr(sb_str(&sb), "\"score\":1,") != NULL, "%s", sb_str(&sb));
    sb_release(&sb);
    aud_result_free(r);
    mut_ops_free(ops);
    free(spec);
}

/* The large-logit case is the only one where the row's max matters to
 * more than rounding: without it, dropping `max = x[j]` survives. */
Test(audit, deleting_a_case_lowers_the_score, .timeout = 600)
{
    size_t len;
    char *spec = slurp(DIR "softmax.yaml", &len), *cut = strstr(spec, "    - {rows: 4, cols: 16, magnitude: 10000}\n");
    struct err e;
    struct mut_ops *ops = mut_ops_parse("delete statement\n", 17, "ops", &e);
    struct aud_result *full, *less;

    cr_assert(ops && cut, "%s", e.msg);
    full = audit(spec, len, ops, NULL);
    memmove(cut, strchr(cut, '\n') + 1, strlen(strchr(cut, '\n') + 1) + 1);
    less = audit(spec, strlen(spec), ops, NULL);
    cr_expect_eq(full->survived, 0);
    cr_expect_eq(less->survived, 1, "survivors: %zu", less->survived);
    cr_expect_eq(find(less, 102, ";")->cls, AUD_SURVIVED, "%s", find(less, 102, ";")->detail);
    cr_expect_lt((double)less->killed / (double)(less->killed + less->survived),
                 (double)full->killed / (double)(full->killed + full->survived));
    aud_result_free(full);
    aud_result_free(less);
    mut_ops_free(ops);
    free(spec);
}

/* Line `line` (1-based) of text cut out, in place. */
static void cut_line(char *text, int line)
{
    char *at = text, *end;

    for (int i = 1; i < line && at; i++)
        at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
    cr_assert(at && (end = strchr(at, '\n')), "no line %d", line);
    memmove(at, end + 1, strlen(end + 1) + 1);
}

/* --matrix names, per case, the mutants only it kills: deleting the case
 * it names lets exactly those survive, and deleting a case it says kills
 * nothing alone leaves no survivor. */
Test(audit, the_matrix_names_the_case_whose_deletion_lowers_the_score, .timeout = 900)
{
    size_t len, named = 0, idle = 0;
    char *spec = slurp(DIR "softmax.yaml", &len), *copy = strdup(spec);
    struct err e;
    struct mut_ops *ops = mut_ops_parse("delete statement\n", 17, "ops", &e);
    struct aud_result *m, *less;
    struct sb sb;
    int named_line = 0, idle_line = 0;

    cr_assert(ops && copy, "%s", e.msg);
    m = audit_m(spec, len, ops, NULL, 1);
    cr_assert_eq(m->n_cases, 4, "2 + 2 cases, got %zu", m->n_cases);
    for (size_t i = 0; i < m->n_cases; i++) {
        if (m->cases[i].alone > 0)
            named++, named_line = m->cases[i].line;
        else if (!idle_line && strcmp(m->cases[i].test, "softmax.stable") == 0)
            idle_line = m->cases[i].line;
        idle += m->cases[i].alone == 0;
    }
    cr_expect_eq(named, 1, "one case alone kills a mutant: %zu", named);
    cr_expect_eq(idle, 3, "three kill nothing alone: %zu", idle);
    cr_expect_eq(m->cases[3].alone, 1, "softmax.stable case 2 (the 1e4 one): %zu",
                 m->cases[3].alone);
    cr_expect_eq(find(m, 102, ";")->alone, 2, "max = x[j] deleted: case %d",
                 find(m, 102, ";")->alone);
    sb_init(&sb, 0);
    cr_assert(aud_write(m, AUD_TEXT, &sb) == 0);
    cr_expect(strstr(sb_str(&sb), "softmax.yaml:20: softmax.stable case 2 of 2: 1 mutant\n")
              != NULL, "%s", sb_str(&sb));
    cr_expect(strstr(sb_str(&sb), "softmax.yaml:19: softmax.stable case 1 of 2\n") != NULL,
              "%s", sb_str(&sb));
    sb_release(&sb);
    sb_init(&sb, 0);
    cr_assert(aud_write(m, AUD_JSON, &sb) == 0);
    cr_expect(json_validate(sb_str(&sb), sb.len, &e) == 0, "JSON: %s", e.msg);
    sb_release(&sb);

    cut_line(spec, named_line);     /* the named case: its mutant survives */
    less = audit(spec, strlen(spec), ops, NULL);
    cr_expect_eq(less->survived, 1, "survivors: %zu", less->survived);
    cr_expect_eq(find(less, 102, ";")->cls, AUD_SURVIVED, "%s", find(less, 102, ";")->detail);
    aud_result_free(less);
    cut_line(copy, idle_line);      /* a case that kills nothing alone */
    less = audit(copy, strlen(copy), ops, NULL);
    cr_expect_eq(less->survived, 0, "survivors: %zu", less->survived);
    cr_expect_eq(less->killed, m->killed);
    aud_result_free(less);
    aud_result_free(m);
    mut_ops_free(ops);
    free(copy);
    free(spec);
}

/* Mutants come from tokens: nothing in comments or string literals, none
 * outside a function body, none in a token a line splice cuts in two; a
 * token after a splice is edited at its own place in the raw source. */
Test(audit, mutants_come_from_code_tokens)
{
    static const char src[] =
        "static int k = 1 + 2;\n"
        "int f(int a)\n"
        "{\n"
        "    /* a + b */ const char *s = \"x + y\";\n"
        "    int b = a \\\n+ 1;\n"
        "    b +\\\n= 1;\n"
        "    return b - a + (s != 0);\n"
        "}\n";
    struct err e;
    struct mut_ops *ops = mut_ops_parse("swap arith + -\nswap assign += -=\n", 34, "ops", &e);
    struct mut_mutant *m = NULL;
    size_t n = 0, len = 0;
    char *text;

    cr_assert(ops != NULL, "%s", e.msg);
    cr_assert(mut_generate(ops, src, sizeof src - 1, &m, &n, &e) == 0, "%s", e.msg);
    /* the '+' after the splice (line 6) and the two of the return line;
     * not k's (outside a body), not the split '+=' */
    cr_assert_eq(n, 3, "%zu mutants", n);
    cr_expect_eq(m[0].line, 6, "the raw line of the '+': %d", m[0].line);
    cr_expect_eq(m[1].line, 9);
    cr_expect_eq(m[2].line, 9);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(m[i].function, "f");
    text = mut_apply(&m[0], src, sizeof src - 1, &len);
    cr_expect(strstr(text, "int b = a \\\n- 1;") != NULL, "%s", text);
    free(text);
    free(m);
    mut_ops_free(ops);
}

/* A function of n additions: one mutant each under "swap arith + -". */
static char *additions(size_t n, size_t *len)
{
    struct sb sb;
    int bad;

    sb_init(&sb, 0);
    bad = sb_adds(&sb, "int f(int a)\n{\n    int b = a;\n");
    for (size_t i = 0; i < n; i++)
        bad |= sb_adds(&sb, "    b = b + 1;\n");
    bad |= sb_adds(&sb, "    return b;\n}\n");
    cr_assert(bad == 0 && !sb.truncated, "out of memory");
    return sb_detach(&sb, len);
}

/* The limit on mutants is MUT_MAX_MUTANTS itself: a source of 17000 is
 * listed whole, one of MUT_MAX_MUTANTS + 1 is refused with the limit in
 * the message. (Before, the list's doubling stopped at 16384, so a source
 * of 16385 to 20000 mutants was refused as "more than 20000".) */
Test(audit, the_mutant_limit_is_the_one_it_states, .timeout = 120)
{
    static const size_t counts[] = {17000, MUT_MAX_MUTANTS, MUT_MAX_MUTANTS + 1};
    struct err e;
    struct mut_ops *ops = mut_ops_parse("swap arith + -\n", 15, "ops", &e);

    cr_assert(ops != NULL, "%s", e.msg);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        struct mut_mutant *m = NULL;
        size_t n = 0, len = 0;
        char *src = additions(counts[i], &len);
        int rc = mut_generate(ops, src, len, &m, &n, &e);

        if (counts[i] <= MUT_MAX_MUTANTS) {
            cr_expect(rc == 0, "%zu additions: %s", counts[i], e.msg);
            cr_expect_eq(n, counts[i], "%zu additions gave %zu mutants", counts[i], n);
        } else {
            cr_expect(rc < 0, "%zu additions were listed", counts[i]);
            cr_expect(strstr(e.msg, "more than 20000 mutants") != NULL, "%s", e.msg);
        }
        free(m);
        free(src);
    }
    mut_ops_free(ops);
}

/* The audit of `source` (shown as `name`) with spec file `spec`, ops and
 * the kept list `kept`, on `function` only. */
static struct aud_result *audit_src(const char *source, const char *name, const char *spec,
                                    const struct mut_ops *ops, const char *kept,
                                    const char *function)
{
    struct spec_set *s = spec_set_new();
    struct aud_opts o;
    struct aud_result *r = NULL;
    struct err e;

    err_clear(&e);
    cr_assert(spec_load(s, spec, gprop_check_case, &e) == 0, "%s", e.msg);
    base_opts(&o, s, ops, source, name, kept, function);
    cr_assert(aud_run(&o, &r, &e) == 0, "audit: %s", e.msg);
    spec_set_free(s);
    return r;
}

#define PLAIN TEST_SRCDIR "/tests/solutions/plain_double.c"

/* A correct solution that is not the reference is judged against itself
 * (issue 36 item 2): `if (w[j] > m)` -> `>=` in its max changes nothing it
 * computes, so it is likely equivalent, not a survivor. (Compared with the
 * reference's outputs, as before, it "survived": this solution divides by
 * sqrt(d_k) and by the sum where the reference multiplies, so no output
 * of it, mutant or not, matches the reference's rounding bit for bit.)
 * The kept list names it for this source only: the same line under the
 * reference's [source] heading does not list it. */
Test(audit, a_non_reference_source_is_judged_against_itself, .timeout = 600)
{
    struct err e;
    struct mut_ops *ops = mut_ops_parse("swap compare > >=\n", 18, "ops", &e);
    static const char kept[] =
        "[source reference/attention.c]\n"
        "attend: if (w[j] > m) ==> if (w[j] >= m)  # the reference's, not this one's\n"
        "[source tests/solutions/plain_double.c]\n"
        "attend: if (w[j] > m) ==> if (w[j] >= m)  # a tie keeps the same max\n";
    char path[] = "/tmp/test_audit_kept_XXXXXX";
    int fd = mkstemp(path);
    struct aud_result *r;
    const struct aud_mutant *m;

    cr_assert(ops != NULL, "%s", e.msg);
    cr_assert(fd >= 0 && write(fd, kept, sizeof kept - 1) == (ssize_t)sizeof kept - 1);
    close(fd);
    r = audit_src(PLAIN, "tests/solutions/plain_double.c", DIR "sdpa.yaml", ops, path,
                  "attend");
    cr_assert_eq(r->n, 1, "one '>' in attend: %zu mutants", r->n);
    m = find(r, 53, "if (w[j] >= m)");
    cr_expect_eq(m->cls, AUD_EQUIVALENT, "class %d: %s", m->cls, m->detail);
    cr_expect(m->listed, "the kept list names it for this source");
    cr_expect_not(m->rounding, "the same bit for bit");
    cr_expect_str_eq(m->detail, "a tie keeps the same max");
    cr_expect_eq(r->survived, 0);
    aud_result_free(r);
    /* shown under another name, the entry of plain_double.c is not its */
    r = audit_src(PLAIN, "elsewhere/attention.c", DIR "sdpa.yaml", ops, path, "attend");
    cr_expect_eq(r->mut[0].cls, AUD_EQUIVALENT, "%s", r->mut[0].detail);
    cr_expect_not(r->mut[0].listed, "listed for a source it does not name: %s",
                  r->mut[0].detail);
    cr_expect_eq(r->unlisted, 1);
    aud_result_free(r);
    unlink(path);
    mut_ops_free(ops);
}

#define FLOAT_ONLY TEST_CATDIR "/submissions/correct_float_only.c"

/* A float solution's mutant that adds 1 to every score of a query before
 * its softmax (shift-invariant) computes the same function and rounds its
 * own way: equivalent up to rounding, not a survivor. One that starts the
 * row's sum at 1 passes these tests too, yet is a different function: it
 * survives, and its outputs are not "up to rounding" of the source's. */
Test(audit, a_mutant_that_only_moves_the_rounding_is_equivalent, .timeout = 600)
{
    struct err e;
    struct mut_ops *ops = mut_ops_parse("init start 1\n", 13, "ops", &e);
    struct aud_result *r;
    const struct aud_mutant *m;
    int sums = 0;

    cr_assert(ops != NULL, "%s", e.msg);
    r = audit_src(FLOAT_ONLY, "tests/submissions/correct_float_only.c", DIR "sdpa.yaml", ops,
                  DIR "equivalent.txt", "attend");
    m = find(r, 70, "float dot = 1;");
    cr_expect_eq(m->cls, AUD_EQUIVALENT, "class %d: %s", m->cls, m->detail);
    cr_expect(m->rounding, "equivalent up to rounding, not bit for bit");
    for (size_t i = 0; i < r->n; i++)
        if (r->mut[i].m.line == 68 && strstr(r->mut[i].after, "sum = 1")) {
            sums++;
            cr_expect_neq(r->mut[i].cls, AUD_EQUIVALENT, "a sum started at 1: %s",
                          r->mut[i].detail);
        }
    cr_expect_eq(sums, 1, "one mutant of the sum's start");
    aud_result_free(r);
    mut_ops_free(ops);
}

/* Whether the kept list names the equivalent mutant fn: before ==> after
 * of `source`. */
static int kept_names(const char *list, const char *source, const char *fn, const char *before,
                      const char *after)
{
    char path[] = "/tmp/test_audit_kept_XXXXXX";
    int fd = mkstemp(path);
    struct aud_mutant m;
    struct err e;
    int rc;

    cr_assert(fd >= 0 && write(fd, list, strlen(list)) == (ssize_t)strlen(list));
    close(fd);
    memset(&m, 0, sizeof m);
    m.cls = AUD_EQUIVALENT;
    snprintf(m.m.function, sizeof m.m.function, "%s", fn);
    snprintf(m.before, sizeof m.before, "%s", before);
    snprintf(m.after, sizeof m.after, "%s", after);
    rc = aud_apply_kept(path, source, &m, 1, &e);
    unlink(path);
    cr_assert_eq(rc, 0, "%s", e.msg);
    return m.listed;
}

/* Several [source] lines in a row head one block, for solutions that
 * share a function word for word; a [source] line after an entry starts
 * a new block, which inherits nothing from the one before. */
Test(audit, source_lines_in_a_row_share_one_block)
{
    static const char list[] =
        "[source a.c]\n"
        "# a comment between the headings\n"
        "[source dir/b.c]\n"
        "f: if (x > m) ==> if (x >= m)  # a tie keeps the same max\n"
        "[source c.c]\n"
        "f: int i = 0; ==> int i = 1;  # c.c's own\n";

    cr_expect(kept_names(list, "a.c", "f", "if (x > m)", "if (x >= m)"));
    cr_expect(kept_names(list, "dir/b.c", "f", "if (x > m)", "if (x >= m)"));
    cr_expect(kept_names(list, "c.c", "f", "int i = 0;", "int i = 1;"));
    cr_expect_not(kept_names(list, "c.c", "f", "if (x > m)", "if (x >= m)"),
                  "c.c's block starts after an entry: it holds only its own");
    cr_expect_not(kept_names(list, "a.c", "f", "int i = 0;", "int i = 1;"));
    cr_expect_not(kept_names(list, "d.c", "f", "if (x > m)", "if (x >= m)"));
}

/* Whether the mutants m[0..n) of src include one whose diff gives `after`
 * for the line `before`. */
static int has_mutant(const struct mut_mutant *m, size_t n, const char *src, const char *before,
                      const char *after)
{
    for (size_t i = 0; i < n; i++) {
        char b[AUD_LINE_MAX], a[AUD_LINE_MAX];
        mut_diff(&m[i], src, strlen(src), b, a, sizeof b);
        if (strcmp(b, before) == 0 && strcmp(a, after) == 0)
            return 1;
    }
    return 0;
}

/* The classes of mutant that held-out bugs showed the old operators
 * lacked (issue 36 item 3): a statement guarded by a size or a value
 * threshold, an initial value replaced (-INFINITY <-> 0), a continue or
 * break exchanged or added, a condition's operand dropped. */
Test(audit, the_operators_for_the_classes_that_slipped)
{
    static const char src[] =
        "static void f(float *x, size_t cols, const unsigned char *mask, float eps)\n"
        "{\n"
        "    double m = -INFINITY, s = 0.0, var = 0.0;\n"
        "    for (size_t j = 0; j < cols; j++) {\n"
        "        if (mask && !mask[j])\n"
        "            continue;\n"
        "        m = x[j];\n"
        "    }\n"
        "    var = s + eps;\n"
        "    x[0] = (float)(m + var);\n"
        "}\n";
    static const char ops_text[] = "guard size 16\nguard value 1e-6\ninit start 0 -INFINITY\n"
                                   "jump jump\noperand operand\n";
    static const struct {
        const char *before, *after;
    } want[] = {
        /* size: only a statement in a loop, on each size_t parameter */
        {"m = x[j];", "if (cols <= 16) m = x[j];"},
        /* value: on each floating variable the statement uses */
        {"var = s + eps;", "if (fabs(var) >= 1e-6) var = s + eps;"},
        {"var = s + eps;", "if (fabs(s) >= 1e-6) var = s + eps;"},
        {"var = s + eps;", "if (fabs(eps) >= 1e-6) var = s + eps;"},
        /* init: -INFINITY <-> 0 */
        {"double m = -INFINITY, s = 0.0, var = 0.0;", "double m = 0, s = 0.0, var = 0.0;"},
        {"double m = -INFINITY, s = 0.0, var = 0.0;",
         "double m = -INFINITY, s = -INFINITY, var = 0.0;"},
        /* jump: exchanged, and a break closing the loop's body */
        {"continue;", "break;"},
        {"}", "break; }"},
        /* operand: each side of the && */
        {"if (mask && !mask[j])", "if (!mask[j])"},
        {"if (mask && !mask[j])", "if (mask)"},
    };
    struct err e;
    struct mut_ops *ops = mut_ops_parse(ops_text, sizeof ops_text - 1, "ops", &e);
    struct mut_mutant *m = NULL;
    size_t n = 0;

    cr_assert(ops != NULL, "%s", e.msg);
    cr_assert(mut_generate(ops, src, sizeof src - 1, &m, &n, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(has_mutant(m, n, src, want[i].before, want[i].after), "no mutant '%s' ==> '%s'",
                  want[i].before, want[i].after);
    /* 0.0 is already 0: no mutant for it; a statement outside a loop gets
     * no size guard; `x` (a pointer) no value guard */
    cr_expect_not(has_mutant(m, n, src, "double m = -INFINITY, s = 0.0, var = 0.0;",
                             "double m = -INFINITY, s = 0, var = 0.0;"));
    cr_expect_not(has_mutant(m, n, src, "var = s + eps;", "if (cols <= 16) var = s + eps;"));
    cr_expect_not(has_mutant(m, n, src, "x[0] = (float)(m + var);",
                             "if (fabs(x) >= 1e-6) x[0] = (float)(m + var);"));
    cr_expect_eq(n, 14, "%zu mutants", n);
    free(m);
    mut_ops_free(ops);
    cr_expect_null(mut_ops_parse("guard width 16\n", 15, "m.txt", &e));
    cr_expect(strstr(e.msg, "unknown guard 'width'") != NULL, "%s", e.msg);
    cr_expect_null(mut_ops_parse("guard size k\n", 13, "m.txt", &e));
    cr_expect(strstr(e.msg, "is not a number") != NULL, "%s", e.msg);
}

Test(audit, operator_file_errors_name_the_line)
{
    struct err e;

    err_clear(&e);
    cr_expect_null(mut_ops_parse("swap arith + -\nswop x + -\n", 26, "m.txt", &e));
    cr_expect_eq(e.line, 2);
    cr_expect(strstr(e.msg, "unknown operator kind 'swop'") != NULL, "%s", e.msg);
    cr_expect_null(mut_ops_parse("nudge constant triple\n", 22, "m.txt", &e));
    cr_expect(strstr(e.msg, "unknown nudge 'triple'") != NULL, "%s", e.msg);
}

/* A later source of a run leaves to the first the functions it defines
 * word for word as the first does (blanks and comments aside): their
 * mutants are the first's. One token of difference, in the body or the
 * signature, and the function is its own. */
Test(audit, functions_defined_word_for_word_alike_are_found)
{
    static const char a[] =
        "static int same(int x) { return x + 1; }\n"
        "static int body(int x) { return x + 1; }\n"
        "static int sig(int x) { return x; }\n"
        "static int only_a(void) { return 0; }\n";
    static const char b[] =
        "/* a comment */ static int same(int x)\n{\n    return x   + 1; // spaced\n}\n"
        "static int body(int x) { return x + 2; }\n"
        "static long sig(int x) { return x; }\n"
        "static int only_b(void) { return 0; }\n";
    char names[8][MUT_NAME_MAX];
    size_t n = 9;
    struct err e;

    err_clear(&e);
    cr_assert(mut_same_functions(b, sizeof b - 1, a, sizeof a - 1, names, 8, &n, &e) == 0,
              "%s", e.msg);
    cr_assert_eq(n, 1, "only 'same' is the same: %zu", n);
    cr_expect_str_eq(names[0], "same");
}

/* softmax_float_ok.c is the reference with attn_softmax_rows rewritten:
 * audited after the reference, its other functions are not mutated again
 * (the report names them), and its own function is. */
Test(audit, a_later_source_leaves_the_functions_it_shares_to_the_first, .timeout = 600)
{
    struct spec_set *s = spec_set_new();
    struct err e;
    struct mut_ops *ops = mut_ops_parse("swap compare > >=\n", 18, "ops", &e);
    struct aud_opts o;
    struct aud_result *r = NULL;
    struct sb sb;
    int shared = 0, own = 0;

    cr_assert(ops != NULL, "%s", e.msg);
    err_clear(&e);
    cr_assert(spec_load(s, DIR "sdpa.yaml", gprop_check_case, &e) == 0, "%s", e.msg);
    base_opts(&o, s, ops, TEST_CATDIR "/submissions/softmax_float_ok.c", NULL, NULL, "relu");
    o.same_as = REF;
    cr_assert(aud_run(&o, &r, &e) == 0, "audit: %s", e.msg);
    for (size_t i = 0; i < r->n_same; i++) {
        shared += strcmp(r->same[i], "relu") == 0;
        own += strcmp(r->same[i], "attn_softmax_rows") == 0;
    }
    cr_expect_eq(shared, 1, "relu is the reference's, word for word");
    cr_expect_eq(own, 0, "attn_softmax_rows is the source's own");
    cr_expect_eq(r->n, 0, "no mutant of a function left to the reference: %zu", r->n);
    sb_init(&sb, 0);
    cr_assert(aud_write(r, AUD_TEXT, &sb) == 0);
    cr_expect(strstr(sb_str(&sb), "not mutated (defined word for word as in ") != NULL,
              "%s", sb_str(&sb));
    sb_release(&sb);
    aud_result_free(r);
    /* without same_as, its relu is mutated as any other function */
    o.same_as = NULL;
    cr_assert(aud_run(&o, &r, &e) == 0, "audit: %s", e.msg);
    cr_expect_gt(r->n, 0, "relu has a '>' to swap");
    cr_expect_eq(r->n_same, 0);
    aud_result_free(r);
    spec_set_free(s);
    mut_ops_free(ops);
}
