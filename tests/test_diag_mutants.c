/*
 * test_diag_mutants.c -- the diagnosis measured on bugs it has never seen
 * (issue 40): single-edit mutants of reference/attention.c made by the
 * audit's operators (specs/mutators.txt, grader/audit/mutate.h), whose
 * ground truth (function, line, operator) is known.
 *
 * The mutants are split by a seeded hash of their index: the "design" set
 * (hash even) is the one the facts and families of grade/diag_fit.c may be
 * looked at and tuned on (DIAG_MUTANTS_SET=design), with the first SEEN
 * of the odd ones (read during development); the "held-out" set (hash
 * odd, after those) is what `make test` grades, DIAG_MUTANTS of them (default
 * 60, for a bounded cost) in hash order. Each mutant is graded (both specs, the catalogue's
 * data, seed 1) on the tests of the API functions its edit can reach, and
 * every function with failures gets one verdict:
 *   right    a cause is named, and it predicts the mutant's outputs on
 *            fresh inputs (draw 7 of every case of that function's tests,
 *            never seen by the diagnosis): the named family's prediction,
 *            or the named catalogue entry's own outputs;
 *            Agreeing only in crashing or in error codes proves nothing: one
 *            fresh call at least must return outputs that differ from the
 *            reference's and agree, or (a catalogue mistake that shows only
 *            on its test's own inputs: an overflow, a 0/0) the named entry
 *            fails the lead test with the very same message;
 *   wrong    a cause is named and does not;
 *   callee   the function calls another API function that fails too, and
 *            the line says to fix that one first (the edit reaches both);
 *   fact     no cause, and a specific fact of where the failure shows;
 *   nothing  neither.
 * It fails on any wrong cause and when cause-or-fact is under 60 % of the
 * held-out failing functions. Two workers grade in parallel; the figures
 * go to $(BUILD)/diag-mutants.txt (printed by `make test`).
 * The hand-written bugs of tests/diag_heldout/ (kinds outside the
 * catalogue, kept out of the families' design) are graded the same way.
 */
#include <criterion/criterion.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <math.h>

#include "grading.h"
#include "audit/mutate.h"
#include "grade/diag_fit.h"
#include "oracle/golden.h"
#include "oracle/oracle.h"
#include "report/report.h"

#define REF_SRC TEST_SRCDIR "/reference/attention.c"
#define OPS_FILE TEST_SRCDIR "/specs/mutators.txt"
#define CAT_DIR TEST_SRCDIR "/tests/submissions"
#define HELD_DIR TEST_SRCDIR "/tests/diag_heldout"
#define DIAG_DATA TEST_BUILDDIR "/diag.golden"
#define WORK TEST_BUILDDIR "/diag-mutants"
#define SPLIT_SEED 0x40u
#define FRESH_DRAW 7
#define WORKERS 2
/* The first SEEN of the odd set were graded while the diagnosis was still
 * being written (their verdicts were read): they count as design, and the
 * held-out set starts after them. */
#define SEEN 60

enum verdict { V_RIGHT, V_WRONG, V_CALLEE, V_FACT, V_NOTHING, V_COUNT };
static const char *const vname[V_COUNT] = {"right", "wrong", "callee", "fact", "nothing"};

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The API functions an edit of C function `cfn` of the reference can
 * reach, as a --only pattern. */
static const char *reach_of(const char *cfn)
{
    static const struct { const char *prefix, *only; } map[] = {
        {"attn_softmax_rows", "^softmax\\."}, {"softmax_row", "^softmax\\."},
        {"visible", "^(sdpa|mha|block)\\."}, {"sdpa_", "^(sdpa|mha|block)\\."},
        {"attn_scaled_dot_product", "^sdpa\\."}, {"attn_positional_encoding", "^pe\\."},
        {"layer_norm_row", "^(layernorm|block)\\."}, {"attn_layer_norm", "^layernorm\\."},
        {"mha_", "^(mha|block)\\."}, {"attn_multi_head", "^mha\\."},
        {"block_", "^block\\."}, {"ffn_sublayer", "^block\\."},
        {"attn_transformer_block", "^block\\."},
    };

    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strncmp(cfn, map[i].prefix, strlen(map[i].prefix)) == 0)
            return map[i].only;
    return "^(softmax|sdpa|pe|mha|layernorm|block)\\.";
}

static int same_outputs(const struct pc_call *a, const float *const *got_a,
                        const struct impl_result *ra, const struct pc_call *b,
                        const struct impl_result *rb)
{
    if (ra->status != rb->status || (ra->status == CALL_RETURNED && ra->rc != rb->rc))
        return 0;
    if (ra->status != CALL_RETURNED || ra->rc != 0)
        return 1;
    for (size_t o = 0; o < a->n_out; o++)
        for (size_t j = 0; j < a->out_len[o]; j++) {
            double x = got_a[o][j], y = b->out[o][j];
            if (isnan(x) && isnan(y))
                continue;
            if (!(fabs(x - y) <= 1e-4 * fmax(1.0, fabs(x))))
                return 0;
        }
    return 1;
}

/*
 * Whether the cause named for fn predicts the submission `path` on fresh
 * inputs: every case of fn's tests, draw FRESH_DRAW. 1 right, 0 wrong.
 */
static int cause_holds(const struct spec_set *s, const char *path, const char *fn,
                       const struct grade_cause *k, const struct grade_test *lead)
{
    struct err e;
    char *refusal = NULL, twin[600];
    struct grade_session *gs = grade_session_open(path, TEST_BUILDDIR, s, &refusal, &e), *gt = NULL;
    struct impl ref = impl_local(), im, tw = {0};
    struct prop_env env = {0};
    size_t agree = 0, disagree = 0, evidence = 0;
    int family = strncmp(k->variant, DGF_FAMILY_PREFIX, strlen(DGF_FAMILY_PREFIX)) == 0;

    free(refusal);
    refusal = NULL;
    cr_assert(gs != NULL, "%s: no session: %s", path, e.msg);
    im = grade_session_impl(gs, 2000.0);
    if (!family) {
        snprintf(twin, sizeof twin, "%s/%s.c", CAT_DIR, k->variant);
        gt = grade_session_open(twin, TEST_BUILDDIR, s, &refusal, &e);
        free(refusal);
        cr_assert(gt != NULL, "%s: no session: %s", twin, e.msg);
        tw = grade_session_impl(gt, 2000.0);
    }
    env.student = im;
    env.reference = &ref;
    env.seed = 1;
    for (size_t i = 0; i < spec_test_count(s); i++) {
        const struct spec_test *t = spec_test_at(s, i);
        enum impl_fn tf;
        if (pc_fn(t, &tf) < 0 || strcmp(impl_fn_name(tf), fn) != 0 ||
            (t->property && strncmp(t->property, "einval", 6) == 0))
            continue;
        for (size_t c = 0; c < t->n_cases; c++) {
            struct pc_call kc;
            struct impl_result rr, rm;
            float *want[PC_MAX_OUT] = {NULL, NULL};
            int rc;
            if (pc_build_draw(tf, &env, t, &t->cases[c], FRESH_DRAW, &kc, &e) < 0)
                continue;
            /* evidence: the mutant returns, and not the reference's outputs */
            cr_assert(pc_invoke(&ref, &kc, &rr, &e) == 0, "%s", e.msg);
            for (size_t o = 0; o < kc.n_out; o++) {
                want[o] = malloc(kc.out_len[o] * sizeof(float) + 1);
                memcpy(want[o], kc.out[o], kc.out_len[o] * sizeof(float));
            }
            cr_assert(pc_invoke(&im, &kc, &rm, &e) == 0, "%s", e.msg);
            evidence += rm.status == CALL_RETURNED && rm.rc == 0 && rr.status == CALL_RETURNED &&
                        rr.rc == 0 && !same_outputs(&kc, (const float *const *)want, &rr, &kc, &rm);
            for (size_t o = 0; o < PC_MAX_OUT; o++)
                free(want[o]);
            if (family) {
                rc = dgf_family_agrees(k->variant + strlen(DGF_FAMILY_PREFIX), &im, &ref, &kc,
                                       &e);
                cr_assert(rc >= 0, "%s", e.msg);
            } else {
                struct impl_result ra, rb;
                float *got[PC_MAX_OUT] = {NULL, NULL};
                cr_assert(pc_invoke(&im, &kc, &ra, &e) == 0, "%s", e.msg);
                for (size_t o = 0; o < kc.n_out; o++) {
                    got[o] = malloc(kc.out_len[o] * sizeof(float) + 1);
                    memcpy(got[o], kc.out[o], kc.out_len[o] * sizeof(float));
                }
                cr_assert(pc_invoke(&tw, &kc, &rb, &e) == 0, "%s", e.msg);
                rc = same_outputs(&kc, (const float *const *)got, &ra, &kc, &rb);
                for (size_t o = 0; o < PC_MAX_OUT; o++)
                    free(got[o]);
            }
            agree += rc == 1;
            disagree += rc == 0;
            pc_release(&kc);
        }
    }
    grade_session_close(gs);
    if (gt)
        grade_session_close(gt);
    if (disagree == 0 && agree > 0 && evidence == 0 && !family && lead->message) {
        /* a mistake that shows only on its test's own inputs (an overflow,
         * a 0/0): the twin must fail the lead test with the same message */
        char only[300], twin_path[600];
        struct grade_result *tr;
        snprintf(only, sizeof only, "^%s$", lead->test->id);
        snprintf(twin_path, sizeof twin_path, "%s/%s.c", CAT_DIR, k->variant);
        tr = tg_grade(s, twin_path, only, &e);
        cr_assert(tr != NULL, "%s", e.msg);
        evidence = tr->n_tests == 1 && tr->tests[0].message &&
                   tr->tests[0].status == lead->status &&
                   strcmp(tr->tests[0].message, lead->message) == 0;
        grade_result_free(tr);
    }
    return disagree == 0 && agree > 0 && evidence > 0;
}

/* Whether fn's facts say where or when its failure shows (more than "so
 * many entries differ" or "the standard calls pass"): 2 where in the
 * output or on what it depends, 1 only the smallest failing shape, 0 no. */
static int specific_facts(const char *facts)
{
    int best = 0;

    for (const char *p = facts; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
        size_t n = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        if (strncmp(line, "your outputs equal the expected", 31) == 0 ||
            strncmp(line, "the failure does not depend", 27) == 0 ||
            strstr(line, "differ from the expected on the failing calls") != NULL)
            continue;
        best = strncmp(line, "smallest failing shape", 22) == 0 ? (best ? best : 1) : 2;
    }
    return best;
}

/* Grade path (only: a --only pattern or NULL) and append one line per
 * failing function to out: "<fn> <verdict> <label>". */
static void judge(const char *path, const char *only, const char *label, struct gold *g,
                  FILE *out)
{
    struct err e;
    struct spec_set *s = tg_specs(1, &e);
    struct orc o = {ORC_COMPUTE, g};
    struct grade_opts go;
    struct grade_result *r = NULL;

    cr_assert(s != NULL, "specs: %s", e.msg);
    memset(&go, 0, sizeof go);
    go.specs = s;
    go.seed = 1;
    go.data_dir = TEST_BUILDDIR;
    go.orc = &o;
    go.only = only;
    cr_assert(grade_submission(path, &go, &r, &e) == 0, "%s: %s", path, e.msg);
    for (int fn = 0; r->status == GRADE_OK && fn < IMPL_FN_COUNT; fn++) {
        const char *name = impl_fn_name((enum impl_fn)fn);
        const struct grade_cause *k = NULL;
        int failing = 0;
        enum verdict v;
        for (size_t i = 0; i < r->n_tests; i++) {
            const struct grade_test *t = &r->tests[i];
            failing |= (t->status == TEST_FAILED || t->status == TEST_CRASHED ||
                        t->status == TEST_TIMED_OUT) && strcmp(t->test->function, name) == 0;
        }
        int callee = 0;
        for (size_t i = 0; i < r->n_causes; i++) {
            if (strcmp(r->causes[i].function, name) == 0 && r->causes[i].bug)
                k = &r->causes[i];
            callee |= strcmp(r->causes[i].function, name) == 0 && r->causes[i].callee;
        }
        if (!failing)
            continue;
        if (callee)
            v = V_CALLEE;
        else if (k)
            v = cause_holds(s, path, name, k, &r->tests[k->lead]) ? V_RIGHT : V_WRONG;
        else
            v = specific_facts(r->facts[fn]) ? V_FACT : V_NOTHING;
        fprintf(out, "%s %s %s %s%s%s\n", name, vname[v],
                v == V_FACT && specific_facts(r->facts[fn]) == 1 ? "shape-only" : "-", label,
                k ? " cause: " : "", k ? k->bug : "");
    }
    fflush(out);
    grade_result_free(r);
    spec_set_free(s);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    cr_assert(f != NULL, "%s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    cr_assert(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

struct pick {
    size_t index;
    uint64_t h;
};

static int by_hash(const void *a, const void *b)
{
    const struct pick *x = a, *y = b;

    return x->h < y->h ? -1 : x->h > y->h;
}

/* Tally the verdict files into v[V_COUNT] (v[V_COUNT]: the facts that
 * give only the smallest failing shape). */
static void tally(const char *path, size_t *v)
{
    FILE *f = fopen(path, "r");
    char line[2048];

    while (f && fgets(line, sizeof line, f)) {
        char fn[32], vd[16];
        if (sscanf(line, "%31s %15s", fn, vd) != 2)
            continue;
        for (int i = 0; i < V_COUNT; i++)
            v[i] += strcmp(vd, vname[i]) == 0;
        v[V_COUNT] += strstr(line, " shape-only ") != NULL;
    }
    if (f)
        fclose(f);
}

Test(diag_mutants, held_out, .timeout = 3000)
{
    const char *set = getenv("DIAG_MUTANTS_SET");
    int design = set && strcmp(set, "design") == 0;
    size_t want = getenv("DIAG_MUTANTS") ? strtoul(getenv("DIAG_MUTANTS"), NULL, 10) : 60;
    struct err e;
    struct mut_ops *ops = mut_ops_load(OPS_FILE, &e);
    struct mut_mutant *m = NULL;
    struct pick *picks;
    size_t len, n = 0, k = 0, v[V_COUNT + 1] = {0}, heldv[V_COUNT + 1] = {0};
    char *src = read_all(REF_SRC, &len);
    pid_t pid[WORKERS];
    FILE *fig;

    cr_assert(ops != NULL, "%s", e.msg);
    cr_assert(mut_generate(ops, src, len, &m, &n, &e) == 0, "%s", e.msg);
    picks = malloc((n + 1) * sizeof *picks);
    for (size_t i = 0; i < n; i++) {
        uint64_t h = mix(i ^ ((uint64_t)SPLIT_SEED << 32));
        if ((int)(h & 1) == !design) /* odd: held out; even: design */
            picks[k++] = (struct pick){i, h};
    }
    qsort(picks, k, sizeof *picks, by_hash);
    if (!design) { /* the seen ones are design */
        size_t skip = k < SEEN ? k : SEEN;
        memmove(picks, picks + skip, (k - skip) * sizeof *picks);
        k -= skip;
    }
    if (getenv("DIAG_MUTANTS_ONLY")) { /* one mutant by index, to look at its verdict */
        size_t only = strtoul(getenv("DIAG_MUTANTS_ONLY"), NULL, 10), j = 0;
        for (size_t i = 0; i < k; i++)
            if (picks[i].index == only)
                picks[j++] = picks[i];
        k = j;
    }
    if (want < k)
        k = want;
    mkdir(WORK, 0755);
    for (int w = 0; w < WORKERS; w++) {
        if ((pid[w] = fork()) == 0) {
            struct gold *g = gold_load(DIAG_DATA, &e);
            char out[600];
            FILE *f;
            if (g == NULL)
                _exit(3);
            snprintf(out, sizeof out, "%s/verdicts-%d", WORK, w);
            f = fopen(out, "w");
            for (size_t i = (size_t)w; f && i < k; i += WORKERS) {
                const struct mut_mutant *mm = &m[picks[i].index];
                size_t mlen;
                char *msrc = mut_apply(mm, src, len, &mlen), path[600], label[200];
                FILE *sf;
                snprintf(path, sizeof path, "%s/m%05zu.c", WORK, picks[i].index);
                sf = fopen(path, "w");
                if (sf) {
                    fwrite(msrc, 1, mlen, sf);
                    fclose(sf);
                }
                free(msrc);
                snprintf(label, sizeof label, "m%05zu %s:%d %s", picks[i].index, mm->function,
                         mm->line, mm->op);
                judge(path, reach_of(mm->function), label, g, f);
            }
            if (f)
                fclose(f);
            gold_free(g);
            _exit(0);
        }
    }
    for (int w = 0; w < WORKERS; w++) {
        int st = 0;
        char out[600];
        waitpid(pid[w], &st, 0);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "worker %d failed (status %d)", w, st);
        snprintf(out, sizeof out, "%s/verdicts-%d", WORK, w);
        tally(out, v);
    }
    /* the hand-written bugs, graded on every function */
    {
        struct dirent **list = NULL;
        int nd = scandir(HELD_DIR, &list, tg_is_c, tg_by_name);
        struct gold *g = gold_load(DIAG_DATA, &e);
        FILE *f = fopen(WORK "/verdicts-hand", "w");
        cr_assert(g != NULL && f != NULL, "%s", e.msg);
        for (int i = 0; i < nd; i++) {
            char path[600];
            snprintf(path, sizeof path, "%s/%s", HELD_DIR, list[i]->d_name);
            judge(path, NULL, list[i]->d_name, g, f);
            free(list[i]);
        }
        free(list);
        fclose(f);
        gold_free(g);
        tally(WORK "/verdicts-hand", heldv);
    }
    {
        size_t fails = 0, hf = 0;
        double share;
        for (int i = 0; i < V_COUNT; i++)
            fails += v[i], hf += heldv[i];
        share = fails ? 100.0 * (double)(v[V_RIGHT] + v[V_CALLEE] + v[V_FACT]) / (double)fails
                      : 0.0;
        char text[1200];
        snprintf(text, sizeof text,
                 "diagnosis on unseen bugs (%s set of audit mutants, %zu graded; "
                 "DIAG_MUTANTS_SET=design for the other):\n"
                 "  failing functions: %zu: cause named right %zu, named wrong %zu, failing "
                 "callee named %zu, facts given %zu (%zu of them only the smallest failing "
                 "shape), nothing said %zu (cause or fact: %.0f %%)\n"
                 "  hand-written bugs (tests/diag_heldout/): %zu failing functions: right %zu, "
                 "wrong %zu, callee %zu, facts %zu, nothing %zu\n",
                 design ? "design" : "held-out", k, fails, v[V_RIGHT], v[V_WRONG], v[V_CALLEE],
                 v[V_FACT], v[V_COUNT], v[V_NOTHING], share, hf, heldv[V_RIGHT], heldv[V_WRONG],
                 heldv[V_CALLEE], heldv[V_FACT], heldv[V_NOTHING]);
        fputs(text, stderr);
        if ((fig = fopen(TEST_BUILDDIR "/diag-mutants.txt", "w")) != NULL) {
            fputs(text, fig);
            fclose(fig);
        }
        cr_expect(v[V_WRONG] == 0 && heldv[V_WRONG] == 0,
                  "a wrong cause was named (see %s/verdicts-*)", WORK);
        cr_expect(fails > 0 && share >= 60.0, "cause or fact for %.0f %% of the failing "
                  "functions, under 60 %%", share);
    }
    free(picks);
    free(m);
    free(src);
    mut_ops_free(ops);
}
