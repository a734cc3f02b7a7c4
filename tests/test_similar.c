/*
 * test_similar.c -- similarity across a class (grader/similar/).
 *
 * The planted class is made here, in a temporary folder, from the
 * reference and the catalogue: copies of the reference with every
 * identifier renamed, with its functions in reverse order, with comments
 * and layout redone, with a helper extracted, with independent statements
 * reordered, and with all of that at once; the independent correct
 * solutions of tests/submissions (correct_*.c: their header comments say
 * "bug: none" and they are not built from the reference, unlike the
 * *_float_ok.c files); and the untouched template ten times. Every copy
 * pair must be found and ranked above every honest pair; no honest or
 * template pair may be reported at the default threshold. Precision and
 * recall print on stderr (docs/TA.md quotes them).
 */
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch/batch.h"
#include "build/srcrules.h"
#include "support/json_read.h"
#include "similar/similar.h"
#include "similar/similar_internal.h"

#define REF TEST_SRCDIR "/reference/attention.c"
#define TEMPLATE TEST_SRCDIR "/student_template/attention.c"
#define SUBS TEST_CATDIR "/submissions/"

static const char *const base_files[] = {
    TEMPLATE, TEST_SRCDIR "/student_template/attention.h",
    TEST_SRCDIR "/specs/similarity_base.c",
};

static const char *const honest[] = {"correct_float_only", "correct_loop_orders",
                                     "correct_online_softmax"};
#define N_HONEST (sizeof honest / sizeof honest[0])

/* ---- files ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 20);
    size_t n;

    cr_assert(f != NULL && buf != NULL, "cannot read '%s'", path);
    n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void spill(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");

    cr_assert(f != NULL, "cannot write '%s'", path);
    fputs(text, f);
    fclose(f);
}

/* A submission as an LMS export names it: a folder holding attention.c. */
static void put(const char *root, const char *id, const char *text)
{
    char path[4096];

    snprintf(path, sizeof path, "%s/%s", root, id);
    cr_assert(mkdir(path, 0755) == 0, "mkdir '%s'", path);
    snprintf(path, sizeof path, "%s/%s/attention.c", root, id);
    spill(path, text);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

/* SIMILAR_KEEP=1 keeps the classes (their paths on stderr), to measure
 * other tools on the same files (docs/DESIGN.md). */
static void remove_tree(const char *root)
{
    if (getenv("SIMILAR_KEEP") != NULL)
        fprintf(stderr, "similar: kept %s\n", root);
    else
        nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *temp_root(void)
{
    char *root = strdup("/tmp/grader-similar-XXXXXX");

    cr_assert(root != NULL && mkdtemp(root) != NULL);
    return root;
}

/* ---- the transformations ---- */

struct buf {
    char *s;
    size_t n, cap;
};

static void add(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        cr_assert_not_null(b->s = realloc(b->s, b->cap));
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void adds(struct buf *b, const char *s)
{
    add(b, s, strlen(s));
}

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Names a copier cannot rename: keywords, the API, the C library. */
static int kept_name(const char *w, size_t n)
{
    static const char *const keep[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
        "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
        "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
        "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "size_t",
        "NULL", "SIZE_MAX", "INFINITY", "HUGE_VALF", "malloc", "calloc", "free", "realloc",
        "memcpy", "memset", "exp", "expf", "sqrt", "sqrtf", "sin", "sinf", "cos", "cosf",
        "pow", "powf", "log", "fabs", "fabsf", "isnan", "isinf", "isfinite", "uint64_t",
        "int64_t", "uint32_t", "FLT_MAX", "DBL_MAX", "include",
    };

    if ((n > 5 && (memcmp(w, "attn_", 5) == 0 || memcmp(w, "ATTN_", 5) == 0)))
        return 1;
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (strlen(keep[i]) == n && memcmp(keep[i], w, n) == 0)
            return 1;
    return 0;
}

/* Every other identifier becomes another name (the same one each time). */
static char *rename_all(const char *src)
{
    size_t len = strlen(src);
    char *code = src_blank(src, len), name[64];
    struct buf out = {NULL, 0, 0};

    cr_assert_not_null(code);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        if (code[i] == '#') {   /* #include lines stay */
            for (; j < len && src[j] != '\n'; j++)
                ;
            add(&out, src + i, j - i);
            i = j;
            continue;
        }
        if (code[i] != ' ' && word_char(code[i]) && !(code[i] >= '0' && code[i] <= '9') &&
            (i == 0 || !word_char(code[i - 1]))) {
            while (j < len && word_char(code[j]))
                j++;
            if (!kept_name(src + i, j - i)) {
                unsigned h = 5381;
                for (size_t k = i; k < j; k++)
                    h = h * 33 + (unsigned char)src[k];
                snprintf(name, sizeof name, "zz%c%x", "qwrt"[h % 4], h % 0xfffff);
                adds(&out, name);
                i = j;
                continue;
            }
            add(&out, src + i, j - i);
            i = j;
            continue;
        }
        add(&out, src + i, 1);
        i++;
    }
    free(code);
    return out.s;
}

/* Top-level items (functions, structs, declarations) with the comments
 * and blank lines before each, as byte offsets [start, end). */
struct items {
    size_t start[128], end[128], n, head_end;
};

static void split_items(const char *src, struct items *it)
{
    size_t len = strlen(src), depth = 0, start;
    char *code = src_blank(src, len);
    const char *first = strstr(src, "#include <string.h>");

    cr_assert(code != NULL && first != NULL);
    it->n = 0;
    it->head_end = start = (size_t)(strchr(first, '\n') - src) + 1;
    for (size_t i = start; i < len; i++) {
        if (code[i] == '{')
            depth++;
        else if (code[i] == '}')
            depth--;
        if (depth == 0 && (code[i] == ';' || code[i] == '}')) {
            size_t e = i + 1;
            while (e < len && code[e] == ' ')
                e++;
            if (code[i] == '}' && e < len && code[e] == ';')
                continue;    /* "};" ends the item */
            e = strchr(src + i, '\n') ? (size_t)(strchr(src + i, '\n') - src) + 1 : len;
            cr_assert_lt(it->n, 128);
            it->start[it->n] = start;
            it->end[it->n++] = e;
            start = i = e;
            i--;
        }
    }
    free(code);
}

/* Where item i's code starts (after its comments) and its '{', if any. */
static size_t code_start(const char *code, size_t from, size_t to, size_t *brace)
{
    size_t i = from;

    while (i < to && (code[i] == ' ' || code[i] == '\n'))
        i++;
    for (*brace = i; *brace < to && code[*brace] != '{' && code[*brace] != ';'; (*brace)++)
        ;
    return i;
}

/* The functions in reverse order, after the structs (in their order) and
 * a prototype of each function, so that the copy still compiles. */
static char *reorder_functions(const char *src)
{
    struct items it;
    struct buf out = {NULL, 0, 0};
    char *code = src_blank(src, strlen(src));
    int is_fn[128];

    split_items(src, &it);
    cr_assert(code != NULL && it.n > 20, "the reference has %zu top-level items", it.n);
    add(&out, src, it.head_end);
    for (size_t i = 0; i < it.n; i++) {
        size_t brace, at = code_start(code, it.start[i], it.end[i], &brace);
        is_fn[i] = code[brace] == '{' && strncmp(code + at, "struct", 6) != 0;
        if (!is_fn[i])
            add(&out, src + it.start[i], it.end[i] - it.start[i]);
    }
    for (size_t i = 0; i < it.n; i++) {
        size_t brace, at = code_start(code, it.start[i], it.end[i], &brace);
        if (is_fn[i]) {
            add(&out, src + at, brace - at);
            adds(&out, ";\n");
        }
    }
    for (size_t i = it.n; i-- > 0;)
        if (is_fn[i])
            add(&out, src + it.start[i], it.end[i] - it.start[i]);
    free(code);
    return out.s;
}

/* No comment left, a comment of its own every sixth line, every run of
 * blanks one space, indented by braces with tabs, blank lines gone. */
static char *restyle(const char *src)
{
    char *code = src_blank(src, strlen(src));
    struct buf out = {NULL, 0, 0};
    int depth = 0, lines = 0;

    cr_assert_not_null(code);
    for (char *line = code, *nl; line != NULL; line = nl ? nl + 1 : NULL) {
        int blank = 1, space = 0;
        if ((nl = strchr(line, '\n')) != NULL)
            *nl = '\0';
        for (char *p = line; *p; p++)
            blank &= *p == ' ' || *p == '\t';
        if (blank)
            continue;
        depth -= line[strspn(line, " \t")] == '}';
        for (int d = 0; d < depth; d++)
            adds(&out, "\t");
        for (char *p = line + strspn(line, " \t"); *p; p++) {
            if (*p == ' ' || *p == '\t') {
                space = 1;
                continue;
            }
            if (space)
                adds(&out, " ");
            space = 0;
            add(&out, p, 1);
            depth += (*p == '{') - (*p == '}' && p != line + strspn(line, " \t"));
        }
        adds(&out, ++lines % 6 == 0 ? "   // my own work\n" : "\n");
    }
    free(code);
    return out.s;
}

static char *replace_once(const char *src, const char *from, const char *to)
{
    const char *at = strstr(src, from);
    struct buf out = {NULL, 0, 0};

    cr_assert_not_null(at, "the reference no longer holds: %s", from);
    add(&out, src, (size_t)(at - src));
    adds(&out, to);
    adds(&out, at + strlen(from));
    return out.s;
}

/* attn_positional_encoding's body becomes a helper it calls. */
static char *extract_helper(const char *src)
{
    char *a = replace_once(src, "int attn_positional_encoding(float *pe, size_t n, size_t d)\n{",
                           "static int fill_table(float *pe, size_t n, size_t d)\n{");
    char *b = replace_once(a, "int attn_layer_norm(", "int attn_positional_encoding(float *pe, "
                           "size_t n, size_t d)\n{\n    return fill_table(pe, n, d);\n}\n\n"
                           "int attn_layer_norm(");

    free(a);
    return b;
}

/* Allocations and frees that do not depend on each other, reordered. */
static char *reorder_statements(const char *src)
{
    char *a = replace_once(src,
        "    w->q = alloc_mat(n_q, d, sizeof(float));\n"
        "    w->k = alloc_mat(n_kv, d, sizeof(float));\n"
        "    w->v = alloc_mat(n_kv, d, sizeof(float));\n"
        "    w->cat = alloc_mat(n_q, d, sizeof(float));\n"
        "    w->scratch = alloc_mat(n_kv + d, 1, sizeof(double));\n",
        "    w->scratch = alloc_mat(n_kv + d, 1, sizeof(double));\n"
        "    w->cat = alloc_mat(n_q, d, sizeof(float));\n"
        "    w->q = alloc_mat(n_q, d, sizeof(float));\n"
        "    w->v = alloc_mat(n_kv, d, sizeof(float));\n"
        "    w->k = alloc_mat(n_kv, d, sizeof(float));\n");
    char *b = replace_once(a,
        "    free(w->q);\n    free(w->k);\n    free(w->v);\n    free(w->cat);\n"
        "    free(w->scratch);\n",
        "    free(w->scratch);\n    free(w->v);\n    free(w->q);\n    free(w->cat);\n"
        "    free(w->k);\n");

    free(a);
    return b;
}

static char *all_at_once(const char *src)
{
    char *a = reorder_statements(src), *b = extract_helper(a), *c = reorder_functions(b);
    char *d = rename_all(c), *e = restyle(d);

    free(a);
    free(b);
    free(c);
    free(d);
    return e;
}

/* ---- copies hidden in macros (issue 35) ---- */

/* Everything after the reference's last #include as one object-like
 * macro, `#define SOLUTION \` and a splice at every line's end, used once
 * at the end: the compiler sees the reference; the tokens once saw none. */
static char *wrap_in_macro(const char *src)
{
    const char *body = strstr(src, "#include <string.h>\n");
    struct buf out = {NULL, 0, 0};

    cr_assert_not_null(body, "the reference no longer includes <string.h>");
    body = strchr(body, '\n') + 1;
    cr_assert(strstr(body, "//") == NULL, "a // comment would swallow the splices");
    add(&out, src, (size_t)(body - src));
    adds(&out, "\n#define SOLUTION \\\n");
    for (const char *p = body, *nl; *p; p = nl + 1) {
        if ((nl = strchr(p, '\n')) == NULL)
            nl = p + strlen(p);
        add(&out, p, (size_t)(nl - p));
        adds(&out, " \\\n");
        if (*nl == '\0')
            break;
    }
    adds(&out, "\n\nSOLUTION\n");
    return out.s;
}

/* Fifteen keywords behind aliases (`#define K00 return`, ...), every use
 * in the code spelled with its alias: 44% shared before, under 50%. */
static const char *const aliased_kw[] = {
    "return", "for", "if", "else", "float", "double", "const", "static", "int", "void",
    "while", "struct", "sizeof", "unsigned", "break",
};
#define N_ALIASED (sizeof aliased_kw / sizeof aliased_kw[0])

static char *alias_keywords(const char *src)
{
    size_t len = strlen(src), at = (size_t)(strstr(src, "#include <string.h>\n") - src) + 20;
    char *code = src_blank(src, len), name[16];
    struct buf out = {NULL, 0, 0};

    cr_assert_not_null(code);
    add(&out, src, at);
    for (size_t k = 0; k < N_ALIASED; k++) {
        snprintf(name, sizeof name, "#define K%02zu ", k);
        adds(&out, name);
        adds(&out, aliased_kw[k]);
        adds(&out, "\n");
    }
    for (size_t i = at, j; i < len; i = j) {
        size_t k = N_ALIASED;

        for (j = i; j < len && word_char(code[j]) && code[j] != ' '; j++)
            ;
        if (j == i || (i > 0 && word_char(code[i - 1]))) {
            j = j == i ? i + 1 : j;
            add(&out, src + i, j - i);
            continue;
        }
        for (k = 0; k < N_ALIASED; k++)
            if (strlen(aliased_kw[k]) == j - i && memcmp(aliased_kw[k], src + i, j - i) == 0)
                break;
        if (k < N_ALIASED) {
            snprintf(name, sizeof name, "K%02zu", k);
            adds(&out, name);
        } else {
            add(&out, src + i, j - i);
        }
    }
    free(code);
    return out.s;
}

/* The larger share of the pair (a, b) in r, 0 when it is not reported. */
static double score_of(const struct sim_report *r, const char *a, const char *b)
{
    for (size_t i = 0; i < r->n; i++)
        if ((strcmp(r->pairs[i].id_a, a) == 0 && strcmp(r->pairs[i].id_b, b) == 0) ||
            (strcmp(r->pairs[i].id_a, b) == 0 && strcmp(r->pairs[i].id_b, a) == 0))
            return r->pairs[i].score;
    return 0;
}

/* Issue 35: a verbatim copy inside one multi-line macro (it scored 0: no
 * pair even at threshold 0) and a copy behind fifteen keyword aliases
 * (44%) score as the copies they are, over 80%, because macros are
 * expanded at their uses; the honest solutions of the catalogue, the
 * control, stay apart from the reference, from each other and from both
 * copies, as they were (strongest 29% before and after). */
Test(similar, copies_hidden_in_macros_score_as_copies)
{
    struct sim_opts o = {0, 0, 0.0, 1};
    struct sim_class *c = sim_class_new(&o);
    char *ref = slurp(REF), *wrapped = wrap_in_macro(ref), *aliased = alias_keywords(ref);
    const char *ids[] = {"reference", "wrapped", "aliased"};
    double best_honest = 0;
    struct sim_report r;
    struct err e;

    cr_assert(strstr(aliased, "K00 ") != NULL && strstr(wrapped, "SOLUTION\n") != NULL);
    for (size_t i = 0; i < 3; i++)
        cr_assert(sim_add_file(c, NULL, base_files[i], 0, &e) == 0, "%s", e.msg);
    cr_assert(sim_add(c, ids[0], ref, strlen(ref), 0, &e) == 0);
    cr_assert(sim_add(c, ids[1], wrapped, strlen(wrapped), 0, &e) == 0);
    cr_assert(sim_add(c, ids[2], aliased, strlen(aliased), 0, &e) == 0);
    for (size_t i = 0; i < N_HONEST; i++) {
        char path[4096], *h;

        snprintf(path, sizeof path, SUBS "%s.c", honest[i]);
        h = slurp(path);
        cr_assert(sim_add(c, honest[i], h, strlen(h), 0, &e) == 0);
        free(h);
    }
    cr_assert(sim_compare(c, &r, &e) == 0, "%s", e.msg);
    cr_expect_gt(score_of(&r, "reference", "wrapped"), 0.8, "wrapped in a macro: %.3f",
                 score_of(&r, "reference", "wrapped"));
    cr_expect_gt(score_of(&r, "reference", "aliased"), 0.8, "behind aliases: %.3f",
                 score_of(&r, "reference", "aliased"));
    for (size_t i = 0; i < N_HONEST; i++) {
        for (size_t j = 0; j < 3; j++)
            best_honest = fmax(best_honest, score_of(&r, honest[i], ids[j]));
        for (size_t j = i + 1; j < N_HONEST; j++)
            best_honest = fmax(best_honest, score_of(&r, honest[i], honest[j]));
    }
    cr_expect_lt(best_honest, 0.4, "an honest pair at %.3f", best_honest);
    fprintf(stderr, "similar: wrapped in a macro %.3f, behind 15 aliases %.3f, strongest "
            "honest pair %.3f\n", score_of(&r, "reference", "wrapped"),
            score_of(&r, "reference", "aliased"), best_honest);
    sim_report_release(&r);
    sim_class_free(c);
    free(ref);
    free(wrapped);
    free(aliased);
}

/* What the expander does, one case each: the tokens of a file with a
 * macro are those of the file written out (function-like, arguments
 * expanded first, # and ##, #undef, a macro not expanded in itself, a
 * function-like name without arguments left alone). */
Test(similar, macros_expand_as_the_compiler_expands_them)
{
    static const struct { const char *with, *without; } cases[] = {
        {"#define RET return\nint f(int x) { RET x + 1; }\n", "int f(int x) { return x + 1; }\n"},
        {"#define SQ(a) ((a) * (a))\nint f(int x) { return SQ(x + 1); }\n",
         "int f(int x) { return ((x + 1) * (x + 1)); }\n"},
        {"#define ONE 1\n#define INC(a) a + ONE\nint f(int x) { return INC(INC(x)); }\n",
         "int f(int x) { return x + 1 + 1; }\n"},
        {"#define CAT(a, b) a##b\nint f(int x) { CAT(ret, urn) x; }\n",
         "int f(int x) { return x; }\n"},
        {"#define S(a) #a\nconst char *s = S(hello world);\n", "const char *s = \"h\";\n"},
        {"#define V(...) g(__VA_ARGS__)\nint f(int x) { return V(x, 2, 3); }\n",
         "int f(int x) { return g(x, 2, 3); }\n"},
        {"#define f(a) a\nint f;\nint g(void) { return f(2) + f; }\n",
         "int f;\nint g(void) { return 2 + f; }\n"},
        {"#define x x + 1\nint g(int x) { return x; }\n",
         "int g(int x + 1) { return x + 1; }\n"},
        {"#define R return\n#undef R\nint R;\n", "int R;\n"},
        {"#define A B\n#define B A\nint A;\n", "int A;\n"},
        {"#define LONG \\\n  for (;;) \\\n    break;\nvoid f(void) { LONG }\n",
         "void f(void) { for (;;) break; }\n"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sim_toks a, b;

        cr_assert(sim_tokenize(cases[i].with, strlen(cases[i].with), &a) == 0);
        cr_assert(sim_tokenize(cases[i].without, strlen(cases[i].without), &b) == 0);
        cr_expect(a.n == b.n && memcmp(a.kind, b.kind, a.n * sizeof *a.kind) == 0,
                  "case %zu: %zu tokens against %zu", i, a.n, b.n);
        sim_toks_release(&a);
        sim_toks_release(&b);
    }
}

/* Macros that double at each level (2^40 tokens) and nested calls: the
 * file's tokens stop at SIM_MAX_TOKENS, in bounded work. */
Test(similar, a_macro_bomb_is_expanded_in_bounded_work, .timeout = 30)
{
    struct buf b = {NULL, 0, 0};
    char line[64];
    struct sim_toks t;

    for (int i = 0; i < 40; i++) {
        snprintf(line, sizeof line, "#define A%d A%d A%d\n", i, i + 1, i + 1);
        adds(&b, line);
    }
    adds(&b, "#define F(x) G(x x)\n#define G(x) x x x\nvoid f(void) { A0; F(F(F(F(F(F(F(1))))))); }\n");
    cr_assert(sim_tokenize(b.s, b.n, &t) == 0);
    cr_expect_eq(t.n, SIM_MAX_TOKENS);
    sim_toks_release(&t);
    free(b.s);
}

/* ---- the planted class ---- */

static const struct {
    const char *id;
    char *(*make)(const char *);
} copies[] = {
    {"Copy Renamed_1001_assignsubmission_file_", rename_all},
    {"Copy Reordered_1002_assignsubmission_file_", reorder_functions},
    {"Copy Restyled_1003_assignsubmission_file_", restyle},
    {"Copy Extracted_1004_assignsubmission_file_", extract_helper},
    {"Copy Statements_1005_assignsubmission_file_", reorder_statements},
    {"Copy Everything_1006_assignsubmission_file_", all_at_once},
};
#define N_COPIES (sizeof copies / sizeof copies[0])
#define REF_ID "Reference Author_1000_assignsubmission_file_"

static char *planted_class(void)
{
    char *root = temp_root(), *ref = slurp(REF), *tmpl = slurp(TEMPLATE), id[128];

    put(root, REF_ID, ref);
    for (size_t i = 0; i < N_COPIES; i++) {
        char *c = copies[i].make(ref);
        put(root, copies[i].id, c);
        free(c);
    }
    for (size_t i = 0; i < N_HONEST; i++) {
        char path[4096], *s;
        snprintf(path, sizeof path, SUBS "%s.c", honest[i]);
        s = slurp(path);
        snprintf(id, sizeof id, "Honest %s_%zu_assignsubmission_file_", honest[i], 2000 + i);
        put(root, id, s);
        free(s);
    }
    for (int i = 1; i <= 10; i++) {
        snprintf(id, sizeof id, "Template Only %02d_%d_assignsubmission_file_", i, 3000 + i);
        put(root, id, tmpl);
    }
    free(ref);
    free(tmpl);
    return root;
}

/* The class of `root` through the library, as `grader similar` reads it. */
static struct sim_class *load_class(const char *root, double threshold, unsigned threads)
{
    struct sim_opts o = {0, 0, threshold, threads};
    struct sim_class *c = sim_class_new(&o);
    struct bat_list l = {NULL, 0, 0};
    const char *dirs[] = {root};
    struct err e;

    cr_assert_not_null(c);
    for (size_t i = 0; i < 3; i++)
        cr_assert(sim_add_file(c, NULL, base_files[i], 0, &e) == 0, "%s", e.msg);
    cr_assert(bat_discover(dirs, 1, NULL, &l, NULL, NULL, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < l.n; i++)
        cr_assert(sim_add_file(c, l.v[i].id, l.v[i].source, 0, &e) == 0, "%s", e.msg);
    bat_list_release(&l);
    return c;
}

static int is_copy_family(const char *id)
{
    /* batch may write the folder's spaces as '_' and add a suffix: prefixes */
    return strncmp(id, "Copy", 4) == 0 || strncmp(id, "Reference", 9) == 0;
}

static int is_template(const char *id)
{
    return strncmp(id, "Template", 8) == 0;
}

#define N_FAMILY (N_COPIES + 1)
#define TRUE_PAIRS (N_FAMILY * (N_FAMILY - 1) / 2)

Test(similar, planted_copies_rank_above_every_honest_pair, .timeout = 60)
{
    char *root = planted_class();
    struct sim_class *c = load_class(root, 0.0, 2);
    struct sim_report r;
    struct err e;
    double worst_copy = 2, best_honest = -1;
    size_t copy_pairs = 0;

    cr_assert(sim_compare(c, &r, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < r.n; i++) {
        const struct sim_pair *p = &r.pairs[i];
        cr_expect(!is_template(p->id_a) && !is_template(p->id_b),
                  "a template-only submission is in a pair: %s ~ %s (%.2f)", p->id_a, p->id_b,
                  p->score);
        if (is_copy_family(p->id_a) && is_copy_family(p->id_b)) {
            copy_pairs++;
            worst_copy = p->score < worst_copy ? p->score : worst_copy;
        } else {
            best_honest = p->score > best_honest ? p->score : best_honest;
        }
    }
    cr_expect_eq(copy_pairs, TRUE_PAIRS, "%zu of %zu copy pairs share code at all", copy_pairs,
                 TRUE_PAIRS);
    cr_expect_gt(worst_copy, best_honest, "a copy pair (%.3f) ranks below an honest pair (%.3f)",
                 worst_copy, best_honest);
    cr_expect_gt(worst_copy, SIM_DEFAULT_THRESHOLD);
    cr_expect_lt(best_honest, SIM_DEFAULT_THRESHOLD);
    fprintf(stderr, "similar: planted class: weakest copy pair %.3f, strongest honest pair %.3f\n",
            worst_copy, best_honest);
    sim_report_release(&r);
    sim_class_free(c);
    remove_tree(root);
    free(root);
}

Test(similar, planted_class_precision_and_recall_at_the_default_threshold, .timeout = 60)
{
    char *root = planted_class();
    struct sim_class *c = load_class(root, SIM_DEFAULT_THRESHOLD, 2);
    struct sim_report r;
    struct err e;
    size_t tp = 0;

    cr_assert(sim_compare(c, &r, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < r.n; i++) {
        int good = is_copy_family(r.pairs[i].id_a) && is_copy_family(r.pairs[i].id_b);
        tp += (size_t)good;
        cr_expect(good, "reported though independent: %s ~ %s (%.3f)", r.pairs[i].id_a,
                  r.pairs[i].id_b, r.pairs[i].score);
    }
    fprintf(stderr, "similar: planted class (1 solution + %zu copies, %zu independent "
            "solutions, 10 templates): %zu pairs reported, %zu true of %zu; precision %.3f, "
            "recall %.3f\n", N_COPIES, N_HONEST + 0, r.n, tp, TRUE_PAIRS,
            r.n ? (double)tp / (double)r.n : 1.0, (double)tp / (double)TRUE_PAIRS);
    cr_expect_eq(tp, TRUE_PAIRS);
    cr_expect_eq(r.n, TRUE_PAIRS);
    sim_report_release(&r);
    sim_class_free(c);
    remove_tree(root);
    free(root);
}

/* Files compared on 1 or 4 threads: the same report byte for byte. */
Test(similar, the_report_is_the_same_on_any_number_of_threads, .timeout = 60)
{
    char *root = planted_class(), *text[2];
    struct err e;

    for (int i = 0; i < 2; i++) {
        struct sim_class *c = load_class(root, 0.0, i == 0 ? 1 : 4);
        struct sim_report r;
        struct sb sb;
        cr_assert(sim_compare(c, &r, &e) == 0, "%s", e.msg);
        sb_init(&sb, 0);
        cr_assert(sim_format_report(&r, SIM_JSON, &sb) == 0);
        text[i] = sb_detach(&sb, NULL);
        sim_report_release(&r);
        sim_class_free(c);
    }
    cr_expect_str_eq(text[0], text[1]);
    free(text[0]);
    free(text[1]);
    remove_tree(root);
    free(root);
}

/* Without the base, the ten templates are all the same file: the base is
 * what keeps them out, and what keeps the API's checks out of honest pairs. */
Test(similar, the_base_is_what_keeps_templates_out)
{
    struct sim_opts o = {0, 0, SIM_DEFAULT_THRESHOLD, 1};
    struct sim_class *c = sim_class_new(&o);
    char *tmpl = slurp(TEMPLATE);
    struct sim_report r;
    struct err e;

    cr_assert(sim_add(c, "t1", tmpl, strlen(tmpl), 0, &e) == 0);
    cr_assert(sim_add(c, "t2", tmpl, strlen(tmpl), 0, &e) == 0);
    cr_assert(sim_compare(c, &r, &e) == 0);
    cr_expect_eq(r.n, 1, "without a base the templates are one pair");
    sim_report_release(&r);
    cr_assert(sim_add_base(c, tmpl, strlen(tmpl), &e) == 0);
    cr_assert(sim_compare(c, &r, &e) == 0);
    cr_expect_eq(r.n, 0, "with the template as base there is no pair");
    sim_report_release(&r);
    sim_class_free(c);
    free(tmpl);
}

/* ---- regions ---- */

/* The 1-based line of the first occurrence of `needle` in s. */
static unsigned line_of(const char *s, const char *needle)
{
    const char *at = strstr(s, needle);
    unsigned line = 1;

    cr_assert_not_null(at, "no '%s'", needle);
    for (const char *p = s; p < at; p++)
        line += *p == '\n';
    return line;
}

/* An honest solution that took the reference's layer norm (renamed, at
 * its end, after a declaration the reference does not have): every
 * region in the taken lines is the same lines of the reference, and the
 * regions cover them but for the API's argument check (base code). */
Test(similar, regions_point_at_the_copied_lines)
{
    char *ref = slurp(REF), *own = slurp(SUBS "correct_online_softmax.c"), *taken;
    const char *from = strstr(ref, "static void layer_norm_row(");
    const char *to = strstr(ref, "/* ---- multi-head");
    struct buf b = {NULL, 0, 0}, piece = {NULL, 0, 0};
    struct sim_opts o = {0, 0, 0.0, 1};
    struct sim_class *c = sim_class_new(&o);
    struct sim_report r;
    struct err e;
    unsigned a_first, a_last, b_first, covered = 0;

    cr_assert(from != NULL && to != NULL && to > from, "the reference changed its layout");
    add(&piece, from, (size_t)(to - from));
    taken = rename_all(piece.s);
    adds(&b, own);
    adds(&b, "\nstatic int marker[3][4][5];\n");
    adds(&b, taken);
    a_first = line_of(ref, "static void layer_norm_row(");
    a_last = line_of(ref, "/* ---- multi-head") - 1;
    b_first = line_of(b.s, "static int marker[3]") + 1;
    for (size_t i = 0; i < 3; i++)
        cr_assert(sim_add_file(c, NULL, base_files[i], 0, &e) == 0);
    cr_assert(sim_add(c, "ref", ref, strlen(ref), 0, &e) == 0);
    cr_assert(sim_add(c, "taker", b.s, b.n, 0, &e) == 0);
    cr_assert(sim_compare(c, &r, &e) == 0);
    cr_assert_eq(r.n, 1);
    cr_assert_geq(r.pairs[0].n_regions, 1);
    for (size_t i = 0; i < r.pairs[0].n_regions; i++) {
        const struct sim_region *g = &r.pairs[0].regions[i];
        cr_expect(i == 0 || g->tokens <= r.pairs[0].regions[i - 1].tokens, "not longest first");
        if (g->b_last < b_first)
            continue;        /* what the two solutions share anyway (about 11%) */
        cr_expect(g->a_first >= a_first && g->a_last <= a_last,
                  "region %u-%u is not inside the reference's layer norm, lines %u-%u",
                  g->a_first, g->a_last, a_first, a_last);
        cr_expect(g->b_first - b_first == g->a_first - a_first &&
                  g->b_last - b_first == g->a_last - a_first,
                  "region %u-%u of the taker is not the copy of %u-%u", g->b_first, g->b_last,
                  g->a_first, g->a_last);
        covered += g->a_last - g->a_first + 1;
    }
    cr_expect_geq(covered * 10, (a_last - a_first + 1) * 7, "regions cover %u of %u lines",
                  covered, a_last - a_first + 1);
    sim_report_release(&r);
    sim_class_free(c);
    free(ref);
    free(own);
    free(taken);
    free(b.s);
    free(piece.s);
}

/* ---- archive ---- */

Test(similar, archive_members_are_not_compared_with_each_other)
{
    struct sim_opts o = {0, 0, SIM_DEFAULT_THRESHOLD, 1};
    struct sim_class *c = sim_class_new(&o);
    char *ref = slurp(REF), *own = slurp(SUBS "correct_loop_orders.c"), *renamed = rename_all(ref);
    struct sim_report r;
    struct err e;

    for (size_t i = 0; i < 3; i++)
        cr_assert(sim_add_file(c, NULL, base_files[i], 0, &e) == 0);
    cr_assert(sim_add(c, "student", renamed, strlen(renamed), 0, &e) == 0);
    cr_assert(sim_add(c, "honest", own, strlen(own), 0, &e) == 0);
    cr_assert(sim_add(c, "2025/a", ref, strlen(ref), 1, &e) == 0);
    cr_assert(sim_add(c, "2025/b", ref, strlen(ref), 1, &e) == 0);
    cr_assert(sim_compare(c, &r, &e) == 0);
    cr_expect_eq(r.n, 2, "student ~ 2025/a and student ~ 2025/b only, got %zu", r.n);
    for (size_t i = 0; i < r.n; i++) {
        cr_expect_str_eq(r.pairs[i].id_a, "student");
        cr_expect(strncmp(r.pairs[i].id_b, "2025/", 5) == 0);
    }
    cr_expect_eq(r.n_archive, 2);
    sim_report_release(&r);
    sim_class_free(c);
    free(ref);
    free(own);
    free(renamed);
}

/* Two hostile files that repeat one statement 30000 times: every k-gram
 * is the same, which without a bound on repeats makes 10^9 seeds. */
Test(similar, a_file_that_repeats_itself_is_compared_in_bounded_work, .timeout = 60)
{
    struct sim_opts o = {0, 0, 0.5, 1};
    struct sim_class *c = sim_class_new(&o);
    struct buf b = {NULL, 0, 0};
    struct sim_report r;
    struct err e;

    adds(&b, "void f(int x)\n{\n");
    for (int i = 0; i < 30000; i++)
        adds(&b, "    x = x + 1;\n");
    adds(&b, "}\n");
    cr_assert(sim_add(c, "h1", b.s, b.n, 0, &e) == 0);
    cr_assert(sim_add(c, "h2", b.s, b.n, 0, &e) == 0);
    cr_assert(sim_compare(c, &r, &e) == 0, "%s", e.msg);
    cr_expect_eq(r.n, 1);
    cr_expect(r.n == 1 && r.pairs[0].share_a > 0.99, "the same file is one whole match");
    sim_report_release(&r);
    sim_class_free(c);
    free(b.s);
}

/* ---- output ---- */

Test(similar, hostile_ids_are_neutralised_in_every_format)
{
    static const char *const ids[] = {"=HYPERLINK(\"x\")\n2", "a\033[2J,\"b\""};
    struct sim_opts o = {0, 0, 0.5, 1};
    struct sim_class *c = sim_class_new(&o);
    char *ref = slurp(REF);
    struct sim_report r;
    struct sb sb;
    struct err e;

    for (size_t i = 0; i < 2; i++)
        cr_assert(sim_add(c, ids[i], ref, strlen(ref), 0, &e) == 0);
    cr_assert(sim_compare(c, &r, &e) == 0);
    cr_assert_eq(r.n, 1);
    sb_init(&sb, 0);
    cr_assert(sim_format_report(&r, SIM_TEXT, &sb) == 0);
    cr_expect(strchr(sb.buf, '\033') == NULL && strstr(sb.buf, "\")\n2") == NULL,
              "a control byte reached the text report: %s", sb.buf);
    sb_release(&sb);
    cr_assert(sim_format_report(&r, SIM_CSV, &sb) == 0);
    cr_expect(strstr(sb.buf, "\"'=HYPERLINK(\"\"x\"\")\n2\"") != NULL, "%s", sb.buf);
    cr_expect(strstr(sb.buf, ",\"a\033[2J,\"\"b\"\"\",1.0000,") != NULL, "%s", sb.buf);
    cr_expect(strncmp(sb.buf, "id_a,id_b,share_a,share_b,matched_tokens,regions\r\n", 50) == 0);
    sb_release(&sb);
    cr_assert(sim_format_report(&r, SIM_JSON, &sb) == 0);
    cr_expect(json_validate(sb.buf, sb.len, &e) == 0, "%s: %s", e.msg, sb.buf);
    sb_release(&sb);
    cr_assert(sim_format_summary(&r, 20, &sb) == 0);
    cr_expect(strstr(sb.buf, "## Similarity") != NULL && strchr(sb.buf, '\033') == NULL);
    cr_expect(strstr(sb.buf, "\")\n2") == NULL, "a newline split a summary row: %s", sb.buf);
    sb_release(&sb);
    sim_report_release(&r);
    sim_class_free(c);
    free(ref);
}

/* ---- the CLI ---- */

static int run_cli(const char *const argv[], const char *out_path, const char *err_path)
{
    pid_t pid = fork();
    int status;

    cr_assert(pid >= 0);
    if (pid == 0) {
        if (freopen(err_path, "w", stderr) == NULL || freopen(out_path, "w", stdout) == NULL)
            _exit(127);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    cr_assert(waitpid(pid, &status, 0) == pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Test(similar, cli_similar_reports_the_planted_pairs_as_csv, .timeout = 60)
{
    char *root = planted_class(), out[4096], err[4096], *csv, *text;
    const char *argv[] = {TEST_BUILDDIR "/grader", "similar", "--format", "csv", root, NULL};
    size_t rows = 0;
    int rc;

    snprintf(out, sizeof out, "%s.out", root);
    snprintf(err, sizeof err, "%s.err", root);
    rc = run_cli(argv, out, err);
    csv = slurp(out);
    text = slurp(err);
    cr_expect_eq(rc, 0, "exit %d: %s", rc, text);
    cr_expect(strstr(text, "no base file") == NULL, "the default base was not found: %s", text);
    for (const char *p = strstr(csv, "\r\n"); p != NULL && p[2]; p = strstr(p + 2, "\r\n")) {
        rows++;
        cr_expect(strncmp(p + 2, "Copy", 4) == 0 || strncmp(p + 2, "Reference", 9) == 0,
                  "an unexpected row: %.80s", p + 2);
    }
    cr_expect_eq(rows, TRUE_PAIRS, "%zu rows:\n%s", rows, csv);
    free(csv);
    free(text);
    remove(out);
    remove(err);
    remove_tree(root);
    free(root);
}

/* An archive through the CLI: shown as DIRNAME/ID, its members never
 * paired with each other; bad options are one line and exit 2. */
Test(similar, cli_archive_entries_show_their_folder_and_stay_apart, .timeout = 60)
{
    char *root = temp_root(), cls[4096], arch[4096], out[4096], err[4096], *json, *text;
    char *ref = slurp(REF), *copy = restyle(ref);
    const char *argv[] = {TEST_BUILDDIR "/grader", "similar", "--format", "json", "--archive",
                          arch, cls, NULL};
    const char *bad[] = {TEST_BUILDDIR "/grader", "similar", "--threshold", "150%", cls, NULL};
    struct err e;
    int rc;

    snprintf(cls, sizeof cls, "%s/class", root);
    snprintf(arch, sizeof arch, "%s/hw3-2025/", root);
    snprintf(out, sizeof out, "%s/stdout", root);
    snprintf(err, sizeof err, "%s/stderr", root);
    cr_assert(mkdir(cls, 0755) == 0 && mkdir(arch, 0755) == 0);
    put(cls, "zoe", copy);
    put(arch, "old1", ref);
    put(arch, "old2", ref);
    rc = run_cli(argv, out, err);
    json = slurp(out);
    text = slurp(err);
    cr_expect_eq(rc, 0, "exit %d: %s", rc, text);
    cr_expect(json_validate(json, strlen(json), &e) == 0, "%s", json);
    cr_expect(strstr(json, "\"id_a\":\"zoe\",\"id_b\":\"hw3-2025/old1\"") != NULL, "%s", json);
    cr_expect(strstr(json, "\"id_a\":\"zoe\",\"id_b\":\"hw3-2025/old2\"") != NULL, "%s", json);
    cr_expect(strstr(json, "\"id_a\":\"hw3-2025/") == NULL, "archive paired with archive: %s",
              json);
    free(json);
    free(text);
    rc = run_cli(bad, out, err);
    text = slurp(err);
    cr_expect(rc == 2 && strncmp(text, "grader: --threshold takes a share", 33) == 0,
              "exit %d: %s", rc, text);
    free(text);
    free(ref);
    free(copy);
    remove_tree(root);
    free(root);
}

Test(similar, batch_similarity_writes_the_csv_and_the_summary_section, .timeout = 300)
{
    char *root = temp_root(), cls[4096], outdir[4096], out[4096], err[4096], path[8192];
    char *ref = slurp(REF), *copy = rename_all(ref), *own = slurp(SUBS "correct_float_only.c");
    char *csv, *md, *text;
    const char *argv[] = {TEST_BUILDDIR "/grader", "batch", "--spec",
                          TEST_SRCDIR "/specs/public.yaml", "--jobs", "2", "--similarity",
                          "--out", outdir, cls, NULL};
    int rc;

    snprintf(cls, sizeof cls, "%s/class", root);
    snprintf(outdir, sizeof outdir, "%s/gradebook", root);
    snprintf(out, sizeof out, "%s/stdout", root);
    snprintf(err, sizeof err, "%s/stderr", root);
    cr_assert(mkdir(cls, 0755) == 0);
    put(cls, "alice", ref);
    put(cls, "bob", copy);
    put(cls, "carol", own);
    rc = run_cli(argv, out, err);
    text = slurp(err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, text);
    snprintf(path, sizeof path, "%s/similarity.csv", outdir);
    csv = slurp(path);
    cr_expect(strncmp(csv, "id_a,id_b,share_a,share_b,matched_tokens,regions\r\nalice,bob,1.0000,"
                      "1.0000,", 70) == 0, "%s", csv);
    cr_expect(strstr(csv, "carol") == NULL, "%s", csv);
    snprintf(path, sizeof path, "%s/summary.md", outdir);
    md = slurp(path);
    cr_expect(strstr(md, "## Similarity") != NULL && strstr(md, "| `alice` | 100% | `bob` |"),
              "%s", md);
    free(md);
    snprintf(path, sizeof path, "%s/report.html", outdir);
    md = slurp(path);
    cr_expect(strstr(md, "Similar pairs") != NULL, "report.html has no similar pairs");
    free(csv);
    free(md);
    free(text);
    free(ref);
    free(copy);
    free(own);
    remove_tree(root);
    free(root);
}

/* ---- the gradebook before the page ---- */

/* One spec test, so that the class below grades in seconds. */
static const char tiny_spec[] =
    "version: 1\ntests:\n- id: softmax.rows_sum_to_one\n"
    "  title: every softmax row is a set of weights summing to one\n"
    "  function: softmax\n  property: rows_sum_to_one\n  points: 1\n"
    "  cases:\n    - {rows: 1, cols: 1}\n";

/* A common idiom (the reference's matrix product, bias, residual, ReLU
 * and softmax row: lines 57 to 108) with `newlines` empty lines inside
 * its first function's body. */
static char *idiom(const char *ref, unsigned newlines)
{
    const char *from = strstr(ref, "static void matmul("), *to = strstr(ref, "int attn_softmax_rows(");
    const char *body;
    struct buf b = {NULL, 0, 0};

    cr_assert(from != NULL && to != NULL && to > from, "the reference changed its layout");
    body = strstr(from, "\n{\n") + 3;
    adds(&b, "#include <math.h>\n#include <stddef.h>\n");
    add(&b, from, (size_t)(body - from));
    for (unsigned i = 0; i < newlines; i++)
        adds(&b, "\n");
    add(&b, body, (size_t)(to - body));
    return b.s;
}

/* Issue 35: a 65 KB file holding one common idiom with 65000 empty lines
 * inside the matched run pairs at 100% with every file that has the
 * idiom; each side-by-side view of it was 1.3 MB of marked lines. Four
 * such files in a class of 24 (one does it in a class of about 150) made
 * the page pass its 16 MiB cap: `batch --similarity` exited 2, and every
 * later run (similarity.csv stays) no longer wrote grades.csv. Now the
 * gradebook is written before the page, and the page is bounded by what
 * it renders: both runs exit 0, write grades.csv, and the page fits and
 * says what it folded. */
Test(similar, an_inflated_pair_never_stops_the_gradebook, .timeout = 600)
{
    char *root = temp_root(), cls[4096], outdir[4096], spec[4096], err[4096], path[8192];
    char *ref = slurp(REF), *big = idiom(ref, 65000), *small = idiom(ref, 0), *text, id[64];
    const char *argv[] = {TEST_BUILDDIR "/grader", "batch", "--spec", spec, "--jobs", "2",
                          "--similarity", "--out", outdir, cls, NULL};
    struct stat st;

    snprintf(cls, sizeof cls, "%s/class", root);
    snprintf(outdir, sizeof outdir, "%s/gradebook", root);
    snprintf(spec, sizeof spec, "%s/tiny.yaml", root);
    snprintf(err, sizeof err, "%s/stderr", root);
    spill(spec, tiny_spec);
    cr_assert(mkdir(cls, 0755) == 0);
    cr_assert_gt(strlen(big), 65000);
    for (int i = 0; i < 4; i++) {
        snprintf(id, sizeof id, "a%c_inflated", 'a' + i);
        put(cls, id, big);
    }
    for (int i = 1; i <= 20; i++) {
        snprintf(id, sizeof id, "s%02d", i);
        put(cls, id, small);
    }
    snprintf(path, sizeof path, "%s/grades.csv", outdir);
    for (int run = 0; run < 2; run++) {   /* the second: similarity.csv is there */
        int rc = run_cli(argv, "/dev/null", err);
        char *page;

        text = slurp(err);
        cr_expect_eq(rc, 0, "run %d: exit %d: %s", run, rc, text);
        cr_expect(stat(path, &st) == 0 && st.st_size > 100, "run %d: no grades.csv: %s", run,
                  text);
        free(text);
        cr_assert(unlink(path) == 0 || run == 1);
        snprintf(path, sizeof path, "%s/report.html", outdir);
        cr_assert(stat(path, &st) == 0, "run %d: no report.html", run);
        cr_expect_lt(st.st_size, 16 << 20, "run %d: a page of %ld bytes", run, (long)st.st_size);
        page = slurp(path);
        cr_expect(strstr(page, "This page was shrunk") != NULL, "run %d: no note", run);
        cr_expect(strstr(page, "(65000 empty lines)") != NULL, "run %d: not folded", run);
        fprintf(stderr, "similar: inflated class, run %d: report.html %ld bytes\n", run,
                (long)st.st_size);
        free(page);
        snprintf(path, sizeof path, "%s/grades.csv", outdir);
    }
    free(ref);
    free(big);
    free(small);
    remove_tree(root);
    free(root);
}

/* `grader similar --id-regex` gives the gradebook's ids: the Moodle user
 * id of a folder, and of Canvas's flattened files (regrouped per student,
 * so a student's answers.yaml beside the .c is no stray entry). */
Test(similar, cli_id_regex_gives_the_batch_ids, .timeout = 60)
{
    char *root = temp_root(), cls[4096], out[4096], err[4096], path[4200], *csv, *text;
    char *ref = slurp(REF), *copy = restyle(ref);
    const char *moodle[] = {TEST_BUILDDIR "/grader", "similar", "--format", "csv",
                            "--id-regex", "_(?<id>\\d+)_assignsubmission_file_?$", cls, NULL};
    const char *canvas[] = {TEST_BUILDDIR "/grader", "similar", "--format", "csv",
                            "--id-regex", "^[^_]+_(?:LATE_)?(?<id>\\d+)_\\d+_", cls, NULL};
    FILE *f;
    int rc;

    snprintf(cls, sizeof cls, "%s/class", root);
    snprintf(out, sizeof out, "%s/stdout", root);
    snprintf(err, sizeof err, "%s/stderr", root);
    cr_assert(mkdir(cls, 0755) == 0);
    put(cls, "Ada Lovelace_12345_assignsubmission_file_", ref);
    put(cls, "Alan Turing_12346_assignsubmission_file_", copy);
    rc = run_cli(moodle, out, err);
    csv = slurp(out);
    text = slurp(err);
    cr_expect(rc == 0 && strstr(csv, "\r\n12345,12346,") != NULL, "exit %d: %s\n%s", rc, csv,
              text);
    free(csv);
    free(text);
    remove_tree(root);
    free(root);
    root = temp_root();
    snprintf(cls, sizeof cls, "%s/class", root);
    snprintf(out, sizeof out, "%s/stdout", root);
    snprintf(err, sizeof err, "%s/stderr", root);
    cr_assert(mkdir(cls, 0755) == 0);
    snprintf(path, sizeof path, "%s/lovelaceada_12345_901_attention.c", cls);
    cr_assert((f = fopen(path, "w")) != NULL);
    fputs(ref, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/lovelaceada_12345_902_answers.yaml", cls);
    cr_assert((f = fopen(path, "w")) != NULL);
    fputs("text: \"the cat\"\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/turingalan_LATE_12346_903_attention-1.c", cls);
    cr_assert((f = fopen(path, "w")) != NULL);
    fputs(copy, f);
    fclose(f);
    rc = run_cli(canvas, out, err);
    csv = slurp(out);
    text = slurp(err);
    cr_expect(rc == 0 && strstr(csv, "\r\n12345,12346,") != NULL, "exit %d: %s\n%s", rc, csv,
              text);
    cr_expect(strstr(text, "neither a .c file") == NULL, "%s", text);
    free(csv);
    free(text);
    free(ref);
    free(copy);
    remove_tree(root);
    free(root);
}
