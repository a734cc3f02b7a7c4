/* test_json.c -- json.h and b64.h (strbuf.h: test_strbuf.c); the tests'
 * own reader (tests/support/json_read.h) and base64 decoder. What the
 * writer produces is read by an independent parser, Python's json. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/b64.h"
#include "support/b64_decode.h"
#include "core/json.h"
#include "support/json_read.h"
#include "core/strbuf.h"

/* Whether Python's json module reads doc[0..n) (strict UTF-8, one JSON
 * value) and the Python expression `check` over the value v holds. */
static int python_accepts(const char *doc, size_t n, const char *check)
{
    char cmd[512];
    FILE *p;

    snprintf(cmd, sizeof cmd, "python3 -c 'import json, sys; "
             "v = json.loads(sys.stdin.buffer.read().decode(\"utf-8\")); "
             "sys.exit(0 if (%s) else 1)' 2>/dev/null", check);
    if ((p = popen(cmd, "w")) == NULL)
        return 0;
    fwrite(doc, 1, n, p);
    return pclose(p) == 0;
}

Test(json, python_is_a_real_check)
{
    cr_expect(python_accepts("\"ok\"", 4, "v == \"ok\""));
    cr_expect(!python_accepts("\"ok", 3, "True"), "an unterminated string parsed");
    cr_expect(!python_accepts("\"\xff\"", 3, "True"), "invalid UTF-8 parsed");
    cr_expect(!python_accepts("1", 1, "v == 2"), "the check is not applied");
}

struct esc_case {
    const char *in;
    size_t n;
    const char *out;
};

Test(json, escapes_every_kind_of_byte)
{
    static const struct esc_case cases[] = {
        { "plain", 5, "\"plain\"" },
        { "a\"b\\c", 5, "\"a\\\"b\\\\c\"" },
        { "\n\r\t", 3, "\"\\n\\r\\t\"" },
        { "\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"" },
        { "nul\0x", 5, "\"nul\\u0000x\"" },
        { "\xc3\xa9", 2, "\"\xc3\xa9\"" },                 /* valid e-acute */
        { "\xff", 1, "\"\\ufffd\"" },
        { "\xc0\xaf", 2, "\"\\ufffd\\ufffd\"" },           /* overlong '/' */
        { "\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"" }, /* surrogate */
        { "\xe2\x82", 2, "\"\\ufffd\\ufffd\"" },           /* cut short */
        { "</x>]]>", 7, "\"</x>]]>\"" },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sb sb;

        sb_init(&sb, 0);
        cr_assert_eq(json_add_str(&sb, cases[i].in, cases[i].n, 0), 0);
        cr_expect_str_eq(sb_str(&sb), cases[i].out, "case %zu", i);
        cr_expect(python_accepts(sb_str(&sb), sb.len, "isinstance(v, str)"), "case %zu", i);
        sb_release(&sb);
    }
}

Test(json, clips_long_strings_with_a_note)
{
    struct sb sb;

    sb_init(&sb, 0);
    cr_assert_eq(json_add_str(&sb, "abcdefgh", 8, 3), 0);
    cr_expect_str_eq(sb_str(&sb), "\"abc [... 5 bytes cut]\"");
    sb_release(&sb);
}

Test(json, every_byte_value_round_trips_to_valid_json)
{
    char all[256];
    struct sb sb;
    size_t i;

    for (i = 0; i < 256; i++)
        all[i] = (char)i;
    sb_init(&sb, 0);
    cr_assert_eq(json_add_str(&sb, all, sizeof all, 0), 0);
    /* ASCII kept exactly, each byte above it alone is not UTF-8: U+FFFD */
    cr_expect(python_accepts(sb_str(&sb), sb.len, "[ord(c) for c in v[:128]] == "
                             "list(range(128)) and v[128:] == chr(0xfffd) * 128"));
    sb_release(&sb);
}

struct num_case {
    double v;
    const char *out;
};

Test(json, numbers_are_fixed_and_finite)
{
    const struct num_case cases[] = {
        { 2, "2" }, { 1.5, "1.5" }, { 1.0 / 3, "0.3333" }, { -0.0, "0" },
        { 0.00001, "0" }, { -2.5, "-2.5" }, { 2.00006, "2.0001" },
        { NAN, "0" }, { INFINITY, "0" }, { -INFINITY, "0" },
        { 1e20, "1.000000e+20" }, { 100, "100" },
    };
    char buf[JSON_NUM_MAX];
    size_t i;

    for (i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_expect_str_eq(json_fmt_num(cases[i].v, buf), cases[i].out,
                         "case %zu", i);
}

struct doc_case {
    const char *doc;
    int ok;
};

Test(json, validator_is_strict)
{
    static const struct doc_case cases[] = {
        { "{}", 1 }, { "[]", 1 }, { " {\"a\": [1, -2.5e3, true, null]} ", 1 },
        { "\"\\ud83d\\ude00\"", 1 }, { "0", 1 }, { "\"\xc3\xa9\"", 1 },
        { "", 0 }, { "{", 0 }, { "[1,]", 0 }, { "{\"a\":1,}", 0 },
        { "01", 0 }, { "1.", 0 }, { ".5", 0 }, { "+1", 0 }, { "1e", 0 },
        { "\"\x01\"", 0 }, { "\"\\x\"", 0 }, { "\"\\ud83d\"", 0 },
        { "\"\\ude00\"", 0 }, { "\"\xff\"", 0 }, { "nan", 0 }, { "tru", 0 },
        { "{} {}", 0 }, { "{'a':1}", 0 }, { "[1 2]", 0 }, { "{\"a\" 1}", 0 },
        { "// c\n{}", 0 },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct err e;
        int rc;

        err_clear(&e);
        rc = json_validate(cases[i].doc, strlen(cases[i].doc), &e);
        cr_expect_eq(rc == 0, cases[i].ok, "case %zu '%s': %s", i,
                     cases[i].doc, e.msg);
        if (!cases[i].ok)
            cr_expect(strncmp(e.msg, "json: ", 6) == 0);
    }
}

Test(json, nesting_is_bounded)
{
    char deep[2 * JSON_MAX_DEPTH + 4];
    size_t i, n = JSON_MAX_DEPTH + 1;

    for (i = 0; i < n; i++) {
        deep[i] = '[';
        deep[2 * n - 1 - i] = ']';
    }
    cr_expect_neq(json_validate(deep, 2 * n, NULL), 0);
    cr_expect_eq(json_validate(deep + 1, 2 * n - 2, NULL), 0);
}

Test(json, reader_gives_members_in_order)
{
    const char *doc = "{\"a\":1,\"b\":[\"x\",{\"c\":false}]}";
    struct json_value *v = json_parse(doc, strlen(doc), NULL);

    cr_assert_not_null(v);
    cr_expect_eq(json_get(v, "a")->num, 1);
    cr_expect_str_eq(json_at(json_get(v, "b"), 0)->str, "x");
    cr_expect_eq(json_get(json_at(json_get(v, "b"), 1), "c")->type, JSON_BOOL);
    cr_expect_null(json_get(v, "zz"));
    cr_expect_null(json_at(json_get(v, "b"), 2));
    json_free(v);
}

struct b64_case {
    const char *raw, *enc;
};

Test(b64, rfc4648_vectors_both_ways)
{
    static const struct b64_case cases[] = {
        { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
        { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
        { "foobar", "Zm9vYmFy" }, { "\xff\xfe\xfd", "//79" },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct sb a, b;

        sb_init(&a, 0);
        sb_init(&b, 0);
        cr_assert_eq(b64_encode(&a, cases[i].raw, strlen(cases[i].raw), NULL), 0);
        cr_expect_str_eq(sb_str(&a), cases[i].enc, "case %zu", i);
        cr_expect_eq(b64_encoded_len(strlen(cases[i].raw)), a.len);
        cr_assert_eq(b64_decode(&b, a.buf ? a.buf : "", a.len, NULL), 0);
        cr_expect_str_eq(sb_str(&b), cases[i].raw, "case %zu", i);
        sb_release(&a);
        sb_release(&b);
    }
}

Test(b64, decoder_refuses_malformed_text)
{
    static const char *const bad[] = {
        "Zg=", "Z===", "Zg==Zg==", "Zm9v!A==", "Zh==", "Zm9=", "=Zm9",
        "Zm=v", "Zm9v\n",
    };
    size_t i;

    for (i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct sb sb;
        struct err e;

        sb_init(&sb, 0);
        cr_expect_neq(b64_decode(&sb, bad[i], strlen(bad[i]), &e), 0,
                      "case %zu '%s'", i, bad[i]);
        sb_release(&sb);
    }
}
