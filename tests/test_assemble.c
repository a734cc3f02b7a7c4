/*
 * test_assemble.c -- the catalogue's assembler (tests/catalogue/assemble.c):
 * an entry's units replace, join and drop the base's, byte for byte, and a
 * malformed entry fails with one "file:line: message" line.
 *
 * Every catalogue entry assembled equal to the full file it replaced is
 * what the conversion checked with cmp (tests/README.md); here are the
 * rules one by one, on small planted files.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ASSEMBLE TEST_BUILDDIR "/tools/assemble"

/* A base of every kind of unit: head, includes, a section comment, a
 * macro, a struct, functions (one with a blank line, braces in a string
 * and a comment inside). */
static const char base[] =
    "/*\n"
    " * base.c -- the reference.\n"
    " */\n"
    "#include \"attention.h\"\n"
    "\n"
    "#include <math.h>\n"
    "#include <stdlib.h>\n"
    "\n"
    "/* ---- section ---- */\n"
    "\n"
    "#define TWO 2\n"
    "\n"
    "struct pair {\n"
    "    int a, b;\n"
    "};\n"
    "\n"
    "/* One. */\n"
    "static int one(void)\n"
    "{\n"
    "    const char *s = \"}\"; /* } */\n"
    "\n"
    "    return s[0] == '}';\n"
    "}\n"
    "\n"
    "int attn_two(int x)\n"
    "{\n"
    "    return x * TWO;\n"
    "}\n";

#define HEAD "/* CATALOGUE\n * bug: a test\n */\n"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 1 << 16);
    size_t n;

    cr_assert_not_null(buf);
    if (f == NULL)
        return buf;
    n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");

    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Runs the assembler on `base` and `entry` in a scratch folder; returns
 * its exit status, *out the assembled text, *err its message. */
static int assemble(const char *entry, char **out, char **err)
{
    char dir[] = "/tmp/test_assemble.XXXXXX", path[256], cmd[1024];
    int rc;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/base.c", dir);
    spit(path, base);
    snprintf(path, sizeof path, "%s/e.entry", dir);
    spit(path, entry);
    snprintf(cmd, sizeof cmd,
             "cd %s && '%s' base.c e.entry -o out.c 2>err.txt", dir, ASSEMBLE);
    rc = system(cmd);
    snprintf(path, sizeof path, "%s/out.c", dir);
    *out = slurp(path);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    *err = slurp(path);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* `text` with `from` (the first occurrence) replaced by `to`; frees text. */
static char *replaced(char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *s = malloc(n);

    cr_assert_not_null(at, "'%s' is not in the text", from);
    cr_assert_not_null(s);
    snprintf(s, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    free(text);
    return s;
}

/* What an entry of head HEAD that changes `from` into `to` assembles to. */
static char *base_with(const char *from, const char *to)
{
    char *s = replaced(strdup(base), "/*\n * base.c -- the reference.\n */\n", HEAD);

    return replaced(s, from, to);
}

static const struct {
    const char *what, *entry, *from, *to;
} good[] = {
    {"the head alone replaces the base's head",
     HEAD, HEAD, HEAD},
    {"a function replaced in place, its comment with it",
     HEAD "\n/* One, wrong. */\nstatic int one(void)\n{\n    return 0;\n}\n",
     "/* One. */\nstatic int one(void)\n{\n    const char *s = \"}\"; /* } */\n\n"
     "    return s[0] == '}';\n}\n",
     "/* One, wrong. */\nstatic int one(void)\n{\n    return 0;\n}\n"},
    {"a new unit goes in before the next unit the entry replaces",
     HEAD "\nstatic int three(void)\n{\n    return 3;\n}\n\n"
          "int attn_two(int x)\n{\n    return x * three();\n}\n",
     "int attn_two(int x)\n{\n    return x * TWO;\n}\n",
     "static int three(void)\n{\n    return 3;\n}\n\n"
     "int attn_two(int x)\n{\n    return x * three();\n}\n"},
    {"a new unit after the last replaced one goes after it",
     HEAD "\nstruct pair {\n    long a, b;\n};\n\n#define THREE 3\n",
     "struct pair {\n    int a, b;\n};\n",
     "struct pair {\n    long a, b;\n};\n\n#define THREE 3\n"},
    {"@drop removes a unit, an include block is named by its first file",
     HEAD "\n@drop struct pair\n@drop one\n\n#include <math.h>\n#include <string.h>\n",
     "#include <math.h>\n#include <stdlib.h>\n\n/* ---- section ---- */\n\n#define TWO 2\n\n"
     "struct pair {\n    int a, b;\n};\n\n/* One. */\nstatic int one(void)\n{\n"
     "    const char *s = \"}\"; /* } */\n\n    return s[0] == '}';\n}\n\n",
     "#include <math.h>\n#include <string.h>\n\n/* ---- section ---- */\n\n#define TWO 2\n\n"},
};

Test(assemble, units_replace_join_and_drop_the_base_byte_for_byte)
{
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *out, *err, *want = base_with(good[i].from, good[i].to);
        int rc = assemble(good[i].entry, &out, &err);
        cr_expect_eq(rc, 0, "%s: exit %d: %s", good[i].what, rc, err);
        cr_expect_str_eq(out, want, "%s", good[i].what);
        free(out);
        free(err);
        free(want);
    }
}

static const struct {
    const char *entry, *message;
} bad[] = {
    {"int x;\n", "e.entry:1: an entry starts with its header comment ('/*')\n"},
    {HEAD "\n@drop nope\n", "e.entry:5: @drop 'nope': the base has no such unit\n"},
    {HEAD "\n@keep one\n", "e.entry:5: unknown directive '@keep one' (the one directive is "
                           "'@drop NAME')\n"},
    {HEAD "\n@drop one\n@drop one\n", "e.entry:6: 'one' is dropped twice\n"},
    {HEAD "\n@drop one\n\nstatic int one(void)\n{\n    return 1;\n}\n",
     "e.entry:5: 'one' is both dropped and replaced\n"},
    {HEAD "\nint attn_two(int x)\n{\n    return x;\n}\n\n#define TWO 3\n",
     "e.entry:10: 'TWO' comes before the unit above it in the base: keep the base's order\n"},
    {HEAD "\nstatic int three(void)\n{\n    return 3;\n",
     "e.entry:5: a '{' in this unit is never closed\n"},
    {HEAD "\n/* open\nint attn_two(int x);\n", "e.entry:5: a comment that never ends\n"},
    {HEAD "\nint f(void);\n\nint f(void);\n", "e.entry:7: 'f' is defined again in this file\n"},
    {HEAD "\nstatic int three(void)\n{\n    return 3;\n}\n",
     "e.entry:5: the entry replaces no unit of the base to place its new units by\n"},
    {HEAD "\nint attn_two(int x)\n{\n    return x;\n}", "e.entry:1: the file is empty or does "
                                                       "not end with a newline\n"},
    {HEAD "\n@drop one\nint f(void);\n", "e.entry:6: a line of code among '@drop' lines: "
                                         "leave a blank line between them\n"},
    {HEAD "\n@dorp one\nint f(void);\n", "e.entry:5: unknown directive '@dorp one' (the one "
                                         "directive is '@drop NAME')\n"},
    {HEAD "\nint f(void);\n@drop one\n", "e.entry:6: a '@drop' line among code: leave a "
                                         "blank line between them\n"},
    {HEAD "\n;\n", "e.entry:5: cannot tell what this unit defines\n"},
    {HEAD "\nconst char *s = \"open;\n", "e.entry:5: unterminated string or character "
                                         "literal\n"},
};

Test(assemble, a_malformed_entry_fails_with_one_file_line_message)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out, *err;
        int rc = assemble(bad[i].entry, &out, &err);
        cr_expect_eq(rc, 1, "case %zu: exit %d", i, rc);
        cr_expect_str_eq(err, bad[i].message, "case %zu", i);
        cr_expect_str_eq(out, "", "case %zu: wrote an output", i);
        free(out);
        free(err);
    }
}
