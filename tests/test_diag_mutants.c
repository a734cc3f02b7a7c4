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
 *
 * On the same graded results, every hint shown is checked against its
 * premise (issue 40: no hint for a failure whose facts contradict it) by
 * an experiment of this file's own, never the grader's gate
 * (props/prop_premise.c, the properties' own tests): the failing case's
 * call rebuilt and varied on the bug and on the reference implementation
 * (check_hints below says what contradicts each kind: mask, hidden rows,
 * NULL, sin/cos swapped, a column the max search skips). A bug's session
 * is opened again only when a hint with a premise shows. It fails on any
 * contradicted premise and prints hints shown, checked, held, contradicted
 * and not reproduced beside the diagnosis's figures. The catalogue's sdpa,
 * softmax and pe entries (the functions whose tests carry such hints) are
 * graded on those tests alone and join the count (measured: about 20 s of
 * CPU more on 48; DIAG_MUTANTS_CATALOGUE=0 leaves them out).
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
#define CAT_DIR TEST_CATDIR "/submissions"
#define HELD_DIR TEST_CATDIR "/diag_heldout"
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
        enum asg_fn tf;
        if (pc_fn(t, &tf) < 0 || strcmp(asg_fn_name(tf), fn) != 0 ||
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

/* ---- hints against their premises (issue 40, item 4) ---------------------- */

/*
 * A hint written for one mistake assumes evidence (its premise); the
 * grader shows it only when its gate (props/prop_premise.c for a spec's
 * hint_premise, the property's own test for its hints) finds that evidence
 * in the failing call. Here every hint shown on a graded bug is measured
 * again by an experiment of its own, not by the gate's code: the failing
 * case's call rebuilt (pc_build, the run's seed) and varied, run on the bug
 * and on the reference implementation. A premise is contradicted when the
 * experiment shows the failure does not rest on what the hint assumes:
 *   mask    the failure shows just as well when no key is hidden: with the
 *           mask NULL and with a mask of ones (both: an ignored mask fails
 *           the first, an inverted one the second), and it is not wholly in
 *           which keys are hidden (the bug's answer is not the reference's
 *           under the mask its own zero weights show: a mask always causal);
 *           or the call has no mask;
 *   hidden  the failure shows in the queries that see some key: the same
 *           call without the queries that see none still differs (or the
 *           call has no such query);
 *   null    the same inputs with a weights buffer and no mask differ too
 *           (the failing call being the one with both NULL);
 *   swap    no pair of columns of a fresh table (n 6, d 8, rows 1..5) holds
 *           the reference's cosine where its sine belongs and the sine
 *           where the cosine does; for a mutant, also when its edit is not
 *           in attn_positional_encoding (the ground truth);
 *   maxcol  rows of large logits (1e4 in column r of row r, 0 elsewhere)
 *           come out wrong wherever the large entry is: no column is
 *           skipped, what is subtracted is not a maximum at all.
 * "unreproduced": the rebuilt call does not fail (the property failed on
 * inputs of its own, a redraw); it is counted, not taken as support. A
 * hint none of these words match restates its test (the formula, the
 * property) and claims no cause: counted as shown, not checked.
 */
enum hint_kind { H_NONE, H_MASK, H_HIDDEN, H_NULL, H_SWAP, H_MAXCOL };
enum hint_outcome { HO_UNCHECKED, HO_HELD, HO_CONTRADICTED, HO_UNREPRODUCED, HO_COUNT };
static const char *const honame[HO_COUNT] = {"unchecked", "held", "contradicted",
                                             "unreproduced"};
static const char *const hkname[] = {"-", "mask", "hidden", "null", "swap", "maxcol"};

/* Every hint of the specs and the properties that assumes a cause, by its
 * words (the specs' YAML, grader/props/prop_sdpa.c, prop_sdpa_values.c,
 * prop_pe.c, prop_softmax.c). */
static const struct {
    const char *words;
    enum hint_kind kind;
} hint_words[] = {
    {"leave it out of the max", H_MASK},          /* sdpa.masked_weights_zero */
    {"a causal mask lets", H_MASK},               /* sdpa.causal */
    {"hidden keys get weight exactly 0", H_MASK}, /* sdpa.masked_weights_zero.more */
    {"Is the mask test inverted?", H_MASK},       /* the property's own */
    {"the future must not leak", H_MASK},         /* causal's own */
    {"sum of exponentials is 0", H_HIDDEN},       /* fully_masked_row, spec and own */
    {"sees no key", H_HIDDEN},                    /* fully_masked_row's own */
    {"test before use", H_NULL},                  /* sdpa.null_weights_and_mask */
    {"test each before using it", H_NULL},        /* its own */
    {"sin and cos swapped", H_SWAP},              /* pe.formula's own */
    {"visit every column", H_MAXCOL},             /* softmax.stable's own */
};

static enum hint_kind hint_kind_of(const char *hint)
{
    for (size_t i = 0; i < sizeof hint_words / sizeof hint_words[0]; i++)
        if (strstr(hint, hint_words[i].words))
            return hint_words[i].kind;
    return H_NONE;
}

/* Call k on ref, then on im: ref's outputs into want[] (malloc'ed, the
 * caller frees), im's left in k->out. */
static void run_both(const struct impl *im, const struct impl *ref, struct pc_call *k,
                     float **want, struct impl_result *rr, struct impl_result *rm)
{
    struct err e;

    cr_assert(pc_invoke(ref, k, rr, &e) == 0, "%s", e.msg);
    for (size_t o = 0; o < PC_MAX_OUT; o++)
        want[o] = NULL;
    for (size_t o = 0; o < k->n_out; o++) {
        want[o] = malloc(k->out_len[o] * sizeof(float) + 1);
        cr_assert(want[o] != NULL);
        memcpy(want[o], k->out[o], k->out_len[o] * sizeof(float));
    }
    cr_assert(pc_invoke(im, k, rm, &e) == 0, "%s", e.msg);
}

static int close_to(double x, double y)
{
    return (isnan(x) && isnan(y)) || fabs(x - y) <= 1e-5 * fmax(1.0, fabs(y));
}

static float *dup_floats(const float *x, size_t n, int nan_fill)
{
    float *y = malloc(n * sizeof *y + 1);

    cr_assert(y != NULL);
    for (size_t i = 0; i < n; i++)
        y[i] = nan_fill ? NAN : x[i];
    return y;
}

/* Whether the answer (rm, k->out) differs from (rr, want): status, return
 * code, or an entry beyond 1e-5 relative (the two share every line but the
 * edit). */
static int answers_differ(const struct pc_call *k, float *const *want,
                          const struct impl_result *rr, const struct impl_result *rm)
{
    if (rr->status != rm->status || (rr->status == CALL_RETURNED && rr->rc != rm->rc))
        return 1;
    if (rr->status == CALL_RETURNED && rr->rc == 0)
        for (size_t o = 0; o < k->n_out; o++)
            for (size_t j = 0; j < k->out_len[o]; j++)
                if (!close_to(k->out[o][j], want[o][j]))
                    return 1;
    return 0;
}

/* Whether im's answer to k differs from ref's. */
static int differs(const struct impl *im, const struct impl *ref, struct pc_call *k)
{
    struct impl_result rr, rm;
    float *want[PC_MAX_OUT];
    int d;

    run_both(im, ref, k, want, &rr, &rm);
    d = answers_differ(k, want, &rr, &rm);
    for (size_t o = 0; o < PC_MAX_OUT; o++)
        free(want[o]);
    return d;
}

/* Whether im's answer to k (left in k->out by run_both) is the reference's
 * attention under the mask its own weights show (a key hidden where its
 * weight is 0): a failure wholly in which keys are hidden (a mask always
 * causal, say, fails with no mask too). */
static int own_hiding_explains(const struct impl *ref, struct pc_call *k,
                               const struct impl_result *rm)
{
    struct impl_result rr;
    struct err e;
    float *mine[PC_MAX_OUT] = {NULL, NULL};
    unsigned char *mask = k->mask, *own;
    int same;

    if (rm->status != CALL_RETURNED || rm->rc != 0 || k->n_out < 2)
        return 0;
    own = malloc(k->n_q * k->n_k + 1);
    cr_assert(own != NULL);
    for (size_t i = 0; i < k->n_q * k->n_k; i++)
        own[i] = k->out[1][i] != 0.0f;
    for (size_t o = 0; o < k->n_out; o++)
        mine[o] = dup_floats(k->out[o], k->out_len[o], 0);
    k->mask = own;
    cr_assert(pc_invoke(ref, k, &rr, &e) == 0, "%s", e.msg);
    same = !answers_differ(k, mine, rm, &rr);
    k->mask = mask;
    free(own);
    for (size_t o = 0; o < PC_MAX_OUT; o++)
        free(mine[o]);
    return same;
}

static int query_sees_none(const struct pc_call *k, size_t i)
{
    for (size_t j = 0; j < k->n_k; j++)
        if (k->mask[i * k->n_k + j])
            return 0;
    return 1;
}

static enum hint_outcome mask_premise(const struct impl *im, const struct impl *ref,
                                      struct pc_call *k)
{
    unsigned char *mask = k->mask, *ones;
    struct impl_result rr, rm;
    float *want[PC_MAX_OUT];
    int bare, all_seen, failed, explained;

    if (mask == NULL)
        return HO_CONTRADICTED;
    run_both(im, ref, k, want, &rr, &rm);
    failed = answers_differ(k, want, &rr, &rm);
    for (size_t o = 0; o < PC_MAX_OUT; o++)
        free(want[o]);
    if (!failed)
        return HO_UNREPRODUCED;
    explained = own_hiding_explains(ref, k, &rm);
    k->mask = NULL;
    bare = differs(im, ref, k);
    ones = malloc(k->n_q * k->n_k);
    cr_assert(ones != NULL);
    memset(ones, 1, k->n_q * k->n_k);
    k->mask = ones;
    all_seen = differs(im, ref, k);
    k->mask = mask;
    free(ones);
    return bare && all_seen && !explained ? HO_CONTRADICTED : HO_HELD;
}

static enum hint_outcome hidden_premise(const struct impl *im, const struct impl *ref,
                                        struct pc_call *k)
{
    struct pc_call r;
    size_t none = 0, at = 0;
    int rc;

    for (size_t i = 0; k->mask && i < k->n_q; i++)
        none += query_sees_none(k, i);
    if (none == 0)
        return HO_CONTRADICTED;
    if (!differs(im, ref, k))
        return HO_UNREPRODUCED;
    if (none == k->n_q)
        return HO_HELD;
    /* the same call without the queries that see no key */
    memset(&r, 0, sizeof r);
    r.fn = ASG_SDPA;
    r.n_q = k->n_q - none;
    r.n_k = k->n_k, r.d_k = k->d_k, r.d_v = k->d_v;
    r.mask_kind = k->mask_kind;
    r.n_in = 3, r.n_out = 2;
    r.in_len[0] = r.n_q * r.d_k;
    r.in[0] = dup_floats(NULL, r.in_len[0], 1);
    r.in[1] = dup_floats(k->in[1], r.in_len[1] = k->in_len[1], 0);
    r.in[2] = dup_floats(k->in[2], r.in_len[2] = k->in_len[2], 0);
    r.mask = malloc(r.n_q * r.n_k + 1);
    cr_assert(r.mask != NULL);
    for (size_t i = 0; i < k->n_q; i++) {
        if (query_sees_none(k, i))
            continue;
        memcpy(r.in[0] + at * r.d_k, k->in[0] + i * k->d_k, k->d_k * sizeof(float));
        memcpy(r.mask + at * r.n_k, k->mask + i * k->n_k, k->n_k);
        at++;
    }
    r.out_len[0] = r.n_q * r.d_v, r.out_len[1] = r.n_q * r.n_k;
    for (size_t o = 0; o < 2; o++) {
        r.out[o] = dup_floats(NULL, r.out_len[o], 1);
        r.init[o] = dup_floats(NULL, r.out_len[o], 1);
    }
    rc = differs(im, ref, &r);
    pc_release(&r);
    return rc ? HO_CONTRADICTED : HO_HELD;
}

static enum hint_outcome null_premise(const struct impl *im, const struct impl *ref,
                                      struct pc_call *k)
{
    unsigned char *mask = k->mask;
    float *w = k->out[1], *wi = k->init[1];
    size_t n_out = k->n_out;
    int bare, buffered = 0;

    if (n_out < 2)
        return HO_UNREPRODUCED;
    k->mask = NULL;
    k->out[1] = k->init[1] = NULL;
    k->n_out = 1;
    bare = differs(im, ref, k);   /* weights NULL, mask NULL: the failing call */
    k->out[1] = w, k->init[1] = wi, k->n_out = n_out;
    if (bare)
        buffered = differs(im, ref, k);
    k->mask = mask;
    return !bare ? HO_UNREPRODUCED : buffered ? HO_CONTRADICTED : HO_HELD;
}

/* A call of fn with one output of n floats, NaN before each call. */
static void own_call(struct pc_call *k, enum asg_fn fn, size_t n)
{
    memset(k, 0, sizeof *k);
    k->fn = fn;
    k->n_out = 1;
    k->out_len[0] = n;
    k->out[0] = dup_floats(NULL, n, 1);
    k->init[0] = dup_floats(NULL, n, 1);
}

static enum hint_outcome swap_premise(const struct impl *im, const struct impl *ref,
                                      const char *edit_fn)
{
    struct pc_call k;
    struct impl_result rr, rm;
    float *want[PC_MAX_OUT];
    size_t pairs = 0;

    own_call(&k, ASG_PE, 6 * 8);
    k.n = 6, k.d = 8;
    run_both(im, ref, &k, want, &rr, &rm);
    for (size_t p = 1; rm.status == CALL_RETURNED && rm.rc == 0 && p < k.n; p++)
        for (size_t c = 0; c + 1 < k.d; c += 2) {
            const float *m = k.out[0] + p * k.d, *w = want[0] + p * k.d;
            pairs += fabs(w[c] - w[c + 1]) > 1e-3 && close_to(m[c], w[c + 1]) &&
                     close_to(m[c + 1], w[c]);
        }
    free(want[0]);
    pc_release(&k);
    if (edit_fn && strcmp(edit_fn, "attn_positional_encoding") != 0)
        return HO_CONTRADICTED;
    return pairs ? HO_HELD : HO_CONTRADICTED;
}

static enum hint_outcome maxcol_premise(const struct impl *im, const struct impl *ref)
{
    enum { C = 8 };
    struct pc_call k;
    struct impl_result rr, rm;
    float *want[PC_MAX_OUT];
    size_t right = 0;

    own_call(&k, ASG_SOFTMAX, C * C);
    k.rows = k.cols = C;
    for (size_t r = 0; r < C; r++)
        for (size_t j = 0; j < C; j++)
            k.init[0][r * C + j] = r == j ? 1e4f : 0.0f;
    run_both(im, ref, &k, want, &rr, &rm);
    for (size_t r = 0; rm.status == CALL_RETURNED && rm.rc == 0 && r < C; r++) {
        int ok = 1;
        for (size_t j = 0; j < C; j++)
            ok &= close_to(k.out[0][r * C + j], want[0][r * C + j]);
        right += ok;
    }
    free(want[0]);
    pc_release(&k);
    return right == C ? HO_UNREPRODUCED : right ? HO_HELD : HO_CONTRADICTED;
}

/*
 * Measure the premise of every hint r shows (path graded with specs s;
 * edit_fn: the C function a mutant's edit is in, NULL for a hand-written
 * bug) and append one line per hint to out: "hint <outcome> <kind> <test>
 * <label>". The bug is compiled again only when a hint has a premise.
 */
static void check_hints(const struct spec_set *s, const char *path, const char *edit_fn,
                        const struct grade_result *r, const char *label, FILE *out)
{
    struct grade_session *gs = NULL;
    struct impl ref = impl_local(), im = {0};
    struct prop_env env = {0};
    struct err e;

    for (size_t i = 0; i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];
        enum hint_kind kind = t->hint ? hint_kind_of(t->hint) : H_NONE;
        enum hint_outcome o = HO_UNCHECKED;
        enum asg_fn tf;
        if (!t->hint || !t->hint[0] || t->status == TEST_PASSED)
            continue;
        if (kind != H_NONE && gs == NULL) {
            char *refusal = NULL;
            gs = grade_session_open(path, TEST_BUILDDIR, s, &refusal, &e);
            free(refusal);
            cr_assert(gs != NULL, "%s: no session: %s", path, e.msg);
            im = grade_session_impl(gs, 2000.0);
            env.student = im;
            env.reference = &ref;
            env.seed = 1;
        }
        if (kind == H_SWAP)
            o = swap_premise(&im, &ref, edit_fn);
        else if (kind == H_MAXCOL)
            o = maxcol_premise(&im, &ref);
        else if (kind != H_NONE) {
            struct pc_call k;
            if (pc_fn(t->test, &tf) < 0 || tf != ASG_SDPA ||
                t->failed_case >= t->test->n_cases ||
                pc_build(ASG_SDPA, &env, t->test, &t->test->cases[t->failed_case], &k,
                         &e) < 0)
                o = HO_UNREPRODUCED;
            else {
                o = kind == H_MASK ? mask_premise(&im, &ref, &k)
                  : kind == H_HIDDEN ? hidden_premise(&im, &ref, &k)
                                     : null_premise(&im, &ref, &k);
                pc_release(&k);
            }
        }
        fprintf(out, "hint %s %s %s %s\n", honame[o], hkname[kind], t->test->id, label);
    }
    if (gs)
        grade_session_close(gs);
}

/* Tally the hint lines of a verdict file into h[HO_COUNT]. */
static void tally_hints(const char *path, size_t *h)
{
    FILE *f = fopen(path, "r");
    char line[2048];

    while (f && fgets(line, sizeof line, f)) {
        char w[16], o[16];
        if (sscanf(line, "%15s %15s", w, o) != 2 || strcmp(w, "hint") != 0)
            continue;
        for (int i = 0; i < HO_COUNT; i++)
            h[i] += strcmp(o, honame[i]) == 0;
    }
    if (f)
        fclose(f);
}

/* Grade path (only: a --only pattern or NULL) and append one line per
 * failing function to out: "<fn> <verdict> <label>", then one per hint
 * shown (check_hints; edit_fn as there). */
static void judge(const char *path, const char *only, const char *edit_fn, const char *label,
                  struct gold *g, FILE *out)
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
    for (int fn = 0; r->status == GRADE_OK && fn < ASG_FN_COUNT; fn++) {
        const char *name = asg_fn_name((enum asg_fn)fn);
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
    if (r->status == GRADE_OK)
        check_hints(s, path, edit_fn, r, label, out);
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

/* The tests whose hints (the spec's or the property's own) assume a cause:
 * the ones the catalogue's entries are graded on here. */
#define PREMISE_TESTS "^(sdpa\\.(masked_weights_zero|fully_masked_row|causal|null_weights_and_mask)" \
                      "|softmax\\.stable|pe\\.(formula|values))"

/* Grade the catalogue's sdpa, softmax and pe entries (the functions whose
 * tests carry such hints) on PREMISE_TESTS, `workers` in parallel, and
 * tally their hints' premises into h (DIAG_MUTANTS_CATALOGUE=0: not). */
static void catalogue_hints(size_t *h)
{
    struct dirent **list = NULL;
    int nd = scandir(CAT_DIR, &list, tg_is_c, tg_by_name), kept = 0;
    pid_t pid[WORKERS];

    for (int i = 0; i < nd; i++) {
        const char *n = list[i]->d_name;
        if (strncmp(n, "sdpa_", 5) == 0 || strncmp(n, "softmax_", 8) == 0 ||
            strncmp(n, "pe_", 3) == 0)
            list[kept++] = list[i];
        else
            free(list[i]);
    }
    for (int w = 0; w < WORKERS; w++) {
        if ((pid[w] = fork()) == 0) {
            char out[600];
            FILE *f;
            snprintf(out, sizeof out, "%s/verdicts-cat-%d", WORK, w);
            f = fopen(out, "w");
            for (int i = w; f && i < kept; i += WORKERS) {
                struct err e;
                struct spec_set *s = tg_specs(1, &e);
                struct grade_opts go;
                struct grade_result *r = NULL;
                char path[600];
                if (s == NULL)
                    _exit(3);
                snprintf(path, sizeof path, "%s/%s", CAT_DIR, list[i]->d_name);
                memset(&go, 0, sizeof go);
                go.specs = s;
                go.seed = 1;
                go.data_dir = TEST_BUILDDIR;
                go.only = PREMISE_TESTS;
                if (grade_submission(path, &go, &r, &e) != 0)
                    _exit(4);
                if (r->status == GRADE_OK)
                    check_hints(s, path, NULL, r, list[i]->d_name, f);
                fflush(f);
                grade_result_free(r);
                spec_set_free(s);
            }
            if (f)
                fclose(f);
            _exit(0);
        }
    }
    for (int w = 0; w < WORKERS; w++) {
        int st = 0;
        char out[600];
        waitpid(pid[w], &st, 0);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "catalogue worker %d failed "
                  "(status %d)", w, st);
        snprintf(out, sizeof out, "%s/verdicts-cat-%d", WORK, w);
        tally_hints(out, h);
    }
    for (int i = 0; i < kept; i++)
        free(list[i]);
    free(list);
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
    size_t hs[HO_COUNT] = {0}, hc[HO_COUNT] = {0};
    int catalogue = !getenv("DIAG_MUTANTS_CATALOGUE") || atoi(getenv("DIAG_MUTANTS_CATALOGUE"));
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
                judge(path, reach_of(mm->function), mm->function, label, g, f);
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
        tally_hints(out, hs);
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
            judge(path, NULL, NULL, list[i]->d_name, g, f);
            free(list[i]);
        }
        free(list);
        fclose(f);
        gold_free(g);
        tally(WORK "/verdicts-hand", heldv);
        tally_hints(WORK "/verdicts-hand", hs);
    }
    if (catalogue)
        catalogue_hints(hc);
    {
        size_t fails = 0, hf = 0, shown = 0, cshown = 0;
        double share;
        for (int i = 0; i < V_COUNT; i++)
            fails += v[i], hf += heldv[i];
        for (int i = 0; i < HO_COUNT; i++)
            shown += hs[i], cshown += hc[i];
        share = fails ? 100.0 * (double)(v[V_RIGHT] + v[V_CALLEE] + v[V_FACT]) / (double)fails
                      : 0.0;
        char text[2000], cat[400];
        if (catalogue)
            snprintf(cat, sizeof cat, "  hints shown on the catalogue's sdpa, softmax and pe "
                     "entries (their tests with such hints): %zu; with a premise: %zu: held %zu, "
                     "contradicted %zu, not reproduced %zu\n", cshown,
                     cshown - hc[HO_UNCHECKED], hc[HO_HELD], hc[HO_CONTRADICTED],
                     hc[HO_UNREPRODUCED]);
        else
            snprintf(cat, sizeof cat, "  (the catalogue's hints: left out, "
                     "DIAG_MUTANTS_CATALOGUE=0)\n");
        snprintf(text, sizeof text,
                 "diagnosis on unseen bugs (%s set of audit mutants, %zu graded; "
                 "DIAG_MUTANTS_SET=design for the other):\n"
                 "  failing functions: %zu: cause named right %zu, named wrong %zu, failing "
                 "callee named %zu, facts given %zu (%zu of them only the smallest failing "
                 "shape), nothing said %zu (cause or fact: %.0f %%)\n"
                 "  hand-written bugs (tests/diag_heldout/): %zu failing functions: right %zu, "
                 "wrong %zu, callee %zu, facts %zu, nothing %zu\n"
                 "  hints shown on both: %zu; with a premise, measured again by an experiment "
                 "of their own: %zu: held %zu, contradicted %zu, failing call not reproduced "
                 "%zu (the other %zu restate their test)\n%s",
                 design ? "design" : "held-out", k, fails, v[V_RIGHT], v[V_WRONG], v[V_CALLEE],
                 v[V_FACT], v[V_COUNT], v[V_NOTHING], share, hf, heldv[V_RIGHT], heldv[V_WRONG],
                 heldv[V_CALLEE], heldv[V_FACT], heldv[V_NOTHING], shown,
                 shown - hs[HO_UNCHECKED], hs[HO_HELD], hs[HO_CONTRADICTED], hs[HO_UNREPRODUCED],
                 hs[HO_UNCHECKED], cat);
        fputs(text, stderr);
        if ((fig = fopen(TEST_BUILDDIR "/diag-mutants.txt", "w")) != NULL) {
            fputs(text, fig);
            fclose(fig);
        }
        cr_expect(v[V_WRONG] == 0 && heldv[V_WRONG] == 0,
                  "a wrong cause was named (see %s/verdicts-*)", WORK);
        cr_expect(hs[HO_CONTRADICTED] + hc[HO_CONTRADICTED] == 0, "%zu hints shown whose "
                  "premise the failure contradicts (lines 'hint contradicted' in "
                  "%s/verdicts-*)", hs[HO_CONTRADICTED] + hc[HO_CONTRADICTED], WORK);
        cr_expect(fails > 0 && share >= 60.0, "cause or fact for %.0f %% of the failing "
                  "functions, under 60 %%", share);
    }
    free(picks);
    free(m);
    free(src);
    mut_ops_free(ops);
}
