/* test_srcrules.c -- source rules over blanked source. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "build/srcrules.h"

/* The default rules' verdict on `src`: the violations text or "". */
static char *check_defaults(const char *src)
{
    size_t n;
    const struct spec_rule *rules = src_default_rules(&n);
    char *v = NULL;
    struct err e;

    cr_assert_eq(src_check_rules(rules, n, src, strlen(src), "attention.c", &v, &e), 0, "%s",
                 e.msg);
    return v ? v : strdup("");
}

Test(srcrules, each_default_rule_fires)
{
    static const struct {
        const char *src;
        const char *expect;   /* a full violation line */
    } cases[] = {
        {"int f(void) { asm(\"nop\"); return 0; }\n",
         "attention.c:1:15: inline assembly is not allowed"},
        {"void f(void) {\n  __asm__ volatile(\"\");\n}\n", "attention.c:2:3: inline assembly"},
        {"#include \"secret.h\"\n", "attention.c:1:1: only \"attention.h\" may be included"},
        {"#include \"../reference/attention.c\"\n", "attention.c:1:1: only \"attention.h\""},
        {"  # include <unistd.h>\n", "attention.c:1:3: this header is not allowed"},
        {"#include <sys/syscall.h>\n", "attention.c:1:1: this header is not allowed"},
        {"#include <stdio.h>\n#include <dlfcn.h>\n", "attention.c:2:1: this header is not"},
        {"%:include <unistd.h>\n", "attention.c:1:1: this header is not allowed"},
        {"#define H <unistd.h>\n#include H\n", "attention.c:2:1: include headers by name"},
        {"#include_next <stdio.h>\n", "attention.c:1:1: only #include is allowed"},
        {"long f(void) { return syscall(39); }\n", "attention.c:1:23: system calls are not"},
        {"long f(void) { return sys\\\ncall(39); }\n", "attention.c:1:23: system calls"},
        {"__attribute__((constructor)) static void f(void) {}\n",
         "attention.c:1:1: this attribute is not allowed"},
        {"static void f(void) __attribute__ ((used, section(\".init_array\")));\n",
         "attention.c:1:21: this attribute is not allowed"},
        {"int g(void) __attribute((__weak__));\n", "attention.c:1:13: this attribute"},
        {"int p(void) __attribute__((ifunc(\"r\")));\n", "attention.c:1:13: this attribute"},
        {"#pragma GCC optimize(\"O0\")\n", "attention.c:1:1: pragmas are not allowed"},
        {"_Pragma(\"once\")\n", "attention.c:1:1: pragmas are not allowed"},
        {"?\?=include <unistd.h>\n", "attention.c:1:1: trigraphs are not allowed"},
        {"?\?=include <unistd.h>\n", "attention.c:1:1: this header is not allowed"},
        {"#line 3 \"hidden.yaml\"\n", "attention.c:1:1: #line directives and line markers"},
        {"[[[[x]]]] __attribute__((constructor)) void f(void);\n",
         "attention.c:1:1: this attribute is not allowed"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *v = check_defaults(cases[i].src);

        cr_expect(strstr(v, cases[i].expect) != NULL, "case %zu: want \"%s\", got \"%s\"", i,
                  cases[i].expect, v);
        free(v);
    }
}

Test(srcrules, ordinary_code_passes)
{
    static const char *const ok[] = {
        "#include \"attention.h\"\n#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n"
        "#include <stdio.h>\n#include <float.h>\n#include <stdint.h>\n#include <assert.h>\n",
        "/* we never call syscall() or asm */\nint x;\n",
        "// #include <unistd.h>\n// __attribute__((constructor))\nint y;\n",
        "static const char *s = \"asm syscall #pragma __attribute__((constructor))\";\n",
        "static const char q = '\"'; static const char *t = \"\\\"asm\\\"\";\n",
        "static const char c = '\\''; int z; /* syscall */\n",
        "static int disasm, asm_count, syscalls; /* identifiers that contain the words */\n",
        "static inline int sq(int v) __attribute__((unused));\n",
        "static float w[] = {1.0f}; /* a ?? b */\n",
    };

    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char *v = check_defaults(ok[i]);

        cr_expect_str_eq(v, "", "case %zu: %s", i, ok[i]);
        free(v);
    }
}

Test(srcrules, blanking_keeps_lines_and_header_names)
{
    static const struct {
        const char *src;
        const char *blanked;
    } cases[] = {
        {"a // b\nc", "a     \nc"},
        {"a /* b\nc */ d", "a     \n     d"},
        {"x = \"a\\\"b\";", "x = \"    \";"},
        {"c = '\\'';", "c = '  ';"},
        {"#include \"attention.h\" // x", "#include \"attention.h\"     "},
        {"s = \"#include\";", "s = \"        \";"},
        {"ab\\\ncd\nef", "abcd\n\nef"},
        {"a\\  \ncd", "acd\n"},
        {"\"unterminated\nnext", "\"            \nnext"},
        {"/* unterminated\nnext", "               \n    "},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *b = src_blank(cases[i].src, strlen(cases[i].src));

        cr_assert(b != NULL);
        cr_expect_str_eq(b, cases[i].blanked, "case %zu", i);
        free(b);
    }
}

Test(srcrules, nul_bytes_and_control_characters_refuse_the_source)
{
    static const char src[] = "long f(void) { return sys\0call(1); }\n";
    static const char ctl[] = "int a;\nint b;\x1b[2J\n";
    size_t n;
    const struct spec_rule *rules = src_default_rules(&n);
    char *v = NULL;
    struct err e;

    cr_assert_eq(src_check_rules(rules, n, src, sizeof src - 1, "attention.c", &v, &e), 0);
    cr_assert(v != NULL);
    cr_expect(strstr(v, "attention.c:1:26: the source holds a NUL byte (byte 0x00)") != NULL,
              "%s", v);
    free(v);
    cr_assert_eq(src_check_rules(rules, n, ctl, sizeof ctl - 1, "attention.c", &v, &e), 0);
    cr_assert(v != NULL);
    cr_expect(strstr(v, "attention.c:2:7: the source holds a control character (byte 0x1b)") !=
              NULL, "%s", v);
    free(v);
    /* UTF-8 in a comment is text. */
    v = check_defaults("/* Jos\xc3\xa9 */ int a;\n");
    cr_expect_str_eq(v, "");
    free(v);
}

/* The blanker reads what gcc -std=c11 reads: a trigraph "??/" before a
 * newline splices the line, so "*??/<newline>/" closes the comment and
 * the code after it is seen. */
Test(srcrules, blanker_honours_trigraphs_digraphs_and_splices)
{
    static const struct {
        const char *src, *blanked;
    } cases[] = {
        {"/* a *?\?/\n/ asm", "        asm\n"},
        {"\"?\?/\"\" x", "\"  \" x  "},
        {"<% %> <: :> %:", "{  }  [  ]  # "},
        {"/\\\n* c */ x", "        x\n"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *b = src_blank(cases[i].src, strlen(cases[i].src));
        cr_assert(b != NULL);
        cr_expect_str_eq(b, cases[i].blanked, "case %zu", i);
        free(b);
    }
    {
        char *v = check_defaults("/* *?\?/\n/ __asm__(\"nop\");\n");
        cr_expect(strstr(v, "trigraphs are not allowed") != NULL, "%s", v);
        cr_expect(strstr(v, "inline assembly is not allowed") != NULL, "%s", v);
        free(v);
    }
}

Test(srcrules, line_directives_and_markers_are_refused)
{
    static const char *const srcs[] = {
        "#line 1 \"hidden.yaml\"\n", "# 1 \"/etc/passwd\"\n", "  %: line 7\n",
        "#\\\nline 3\n",
    };

    for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
        char *v = check_defaults(srcs[i]);
        cr_expect(strstr(v, "#line directives and line markers are not allowed") != NULL,
                  "case %zu: %s", i, v);
        free(v);
    }
    {
        char *v = check_defaults("#define N 1\nint a = N;\n#\n");
        cr_expect_str_eq(v, "");
        free(v);
    }
}

/* A 100 KB run of "[[" is one linear scan of the attribute rule, and a
 * rule that backtracks without end is stopped by the file's budget: both
 * quickly, and neither is a grader error. */
Test(srcrules, work_is_bounded_per_file)
{
    static const struct spec_rule slow[] = {{"slow", "a+(?=[^a])", "m", "t.yaml", 8, 3}};
    size_t len = 100000, n;
    const struct spec_rule *rules = src_default_rules(&n);
    char *src = malloc(len + 1), *v = NULL;
    struct err e;

    cr_assert(src != NULL);
    for (size_t i = 0; i < len; i++)
        src[i] = '[';
    src[len] = '\0';
    cr_expect_eq(src_check_rules(rules, n, src, len, "attention.c", &v, &e), 0, "%s", e.msg);
    cr_expect_null(v, "%s", v);
    free(v);
    memset(src, 'a', len);
    cr_expect_eq(src_check_rules(slow, 1, src, len, "attention.c", &v, &e), 0, "%s", e.msg);
    cr_assert_not_null(v);
    cr_expect(strstr(v, "rule 'slow' could not be checked within the grader's limits") != NULL,
              "%s", v);
    free(v);
    free(src);
}

Test(srcrules, one_line_per_rule_at_first_match)
{
    static const struct spec_rule rules[] = {
        {"malloc", "\\bmalloc\\b", "use the arena", "t.yaml", 3, 5},
        {"never", "\\bnever_here\\b", "unused", "t.yaml", 4, 5},
        {"goto", "^\\s*goto\\b", "no goto", "t.yaml", 5, 5},
    };
    static const char src[] = "int a;\nvoid *p = malloc(1);\nvoid *q = malloc(2);\n  goto x;\n";
    char *v = NULL;
    struct err e;

    cr_assert_eq(src_check_rules(rules, 3, src, sizeof src - 1, "sub/attention.c", &v, &e), 0);
    cr_assert(v != NULL);
    cr_expect_str_eq(v, "sub/attention.c:2:11: use the arena\nsub/attention.c:4:1: no goto\n");
    free(v);
    cr_assert_eq(src_check_rules(rules, 3, "int a;\n", 7, "attention.c", &v, &e), 0);
    cr_expect_null(v);
}

Test(srcrules, grader_errors)
{
    static const struct spec_rule bad[] = {{"bad", "(unclosed", "m", "t.yaml", 7, 3}};
    static const struct spec_rule slow[] = {{"slow", "(a+)+$", "m", "t.yaml", 8, 3}};
    char src[64], *v = (char *)1;
    struct err e;

    cr_expect_eq(src_check_rules(bad, 1, "x", 1, "attention.c", &v, &e), -1);
    cr_expect(strstr(e.msg, "rule 'bad': bad pattern") != NULL, "%s", e.msg);
    cr_expect_eq(e.line, 7);
    cr_expect_null(v);
    memset(src, 'a', sizeof src - 2);
    src[sizeof src - 2] = '!';
    src[sizeof src - 1] = '\0';
    /* A source that exhausts the match limit is refused, not an error. */
    cr_expect_eq(src_check_rules(slow, 1, src, strlen(src), "attention.c", &v, &e), 0);
    cr_assert_not_null(v);
    cr_expect(strstr(v, "rule 'slow' could not be checked") != NULL, "%s", v);
    free(v);
}

Test(srcrules, rules_from_a_spec)
{
    static const char yaml[] =
        "version: 1\n"
        "source_rules:\n"
        "  - id: no_goto\n"
        "    pattern: '\\bgoto\\b'\n"
        "    message: do not use goto\n";
    struct spec_set *s = spec_set_new();
    struct err e;
    char *v = NULL;

    cr_assert(s != NULL);
    if (spec_load_buffer(s, "t.yaml", yaml, sizeof yaml - 1, NULL, &e) != 0) {
        spec_set_free(s);
        cr_assert_fail("spec: %s", e.msg);
    }
    cr_assert_eq(spec_rule_count(s), 1);
    cr_assert_eq(src_check(s, "x: goto x;\n", 11, "attention.c", &v, &e), 0, "%s", e.msg);
    cr_expect_str_eq(v, "attention.c:1:4: do not use goto\n");
    free(v);
    spec_set_free(s);
}
