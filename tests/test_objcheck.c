/* test_objcheck.c -- the static checks of compiled submissions. */
#include <criterion/criterion.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/objcheck.h"
#include "objcheck_fixtures/fixture_util.h"

/* Compile fixture `name` (in tests/objcheck_fixtures, or a path) with
 * `cc` and `flags`, then check it into `rep`. */
static void check_fixture(const char *cc, const char *const *flags, const char *name,
                          struct obj_report *rep)
{
    char dir[64], src[512], obj[128];
    struct err e;

    cr_assert_eq(fx_mkdtemp(dir, sizeof dir), 0);
    if (name[0] == '/')
        snprintf(src, sizeof src, "%s", name);
    else
        snprintf(src, sizeof src, "%s/%s", FX_DIR, name);
    snprintf(obj, sizeof obj, "%s/x.o", dir);
    cr_assert_eq(fx_compile(cc, flags, src, obj), 0, "cannot compile %s with %s", name, cc);
    obj_report_init(rep);
    cr_assert_eq(obj_check(obj, rep, &e), 0, "%s", e.msg);
    fx_rmtree(dir);
}

/* 1 if some message of `msgs` contains `needle`. */
static int any_contains(char *const *msgs, size_t n, const char *needle)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(msgs[i], needle) != NULL)
            return 1;
    return 0;
}

static const char *const O2[] = {"-std=c11", "-O2", NULL};

Test(objcheck, rejects_each_hostile_fixture)
{
    static const struct {
        const char *file;
        const char *flag;    /* one extra flag or NULL */
        const char *expect;  /* substring of one rejection */
    } cases[] = {
        {"constructor.c", NULL, "defines a constructor (section '.init_array')"},
        {"init_array.c", NULL, "defines a constructor (section '.init_array')"},
        {"ifunc.c", NULL, "'pick' is an indirect function (ifunc)"},
        {"fopen.c", NULL, "calls 'fopen', which the assignment does not allow"},
        {"syscall.c", NULL, "calls 'syscall': system calls are not allowed"},
        {"exit.c", NULL, "calls 'exit': return an error code instead of calling exit()"},
        {"refname.c", NULL, "calls 'ref_softmax_rows', which looks like grader"},
        {"common.c", "-fcommon", "'counter' is a common symbol; make it static or initialise"},
        {"tls.c", NULL, "uses thread-local storage (section '.tbss')"},
        {"tls.c", NULL, "'scratch' is thread-local"},
        {"foreign_section.c", NULL, "unexpected section '.foo'"},
        {"execstack.c", "-std=gnu11", "needs an executable stack"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *flags[] = {"-std=c11", "-O2", cases[i].flag, NULL};
        struct obj_report rep;

        check_fixture("cc", flags, cases[i].file, &rep);
        cr_expect(any_contains(rep.rejections, rep.n_rejections, cases[i].expect),
                  "%s: no rejection containing \"%s\"", cases[i].file, cases[i].expect);
        obj_report_release(&rep);
    }
}

Test(objcheck, localises_global_helpers_with_a_warning)
{
    static const struct {
        const char *file;
        const char *symbol;
        const char *warning;
    } cases[] = {
        {"helper.c", "square", "helper 'square' should be static; it was made local"},
        {"main.c", "main", "'main' is defined; it was made local"},
        {"memcmp.c", "memcmp", "'memcmp' has the name of a C library function"},
        {"memcmp.c", "malloc", "'malloc' has the name of a C library function"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct obj_report rep;

        check_fixture("cc", O2, cases[i].file, &rep);
        cr_expect_eq(rep.n_rejections, 0, "%s: %s", cases[i].file,
                     rep.n_rejections ? rep.rejections[0] : "");
        cr_expect(any_contains(rep.localise, rep.n_localise, cases[i].symbol),
                  "%s: '%s' not localised", cases[i].file, cases[i].symbol);
        cr_expect(any_contains(rep.warnings, rep.n_warnings, cases[i].warning),
                  "%s: no warning \"%s\"", cases[i].file, cases[i].warning);
        obj_report_release(&rep);
    }
}

Test(objcheck, missing_api_function_is_a_warning)
{
    struct obj_report rep;

    check_fixture("cc", O2, "missing.c", &rep);
    cr_expect_eq(rep.n_rejections, 0);
    cr_expect(any_contains(rep.warnings, rep.n_warnings,
                           "does not define 'attn_layer_norm': its tests count as not"));
    cr_expect_eq(rep.n_localise, 0);
    obj_report_release(&rep);
}

/* Correct code must pass whatever the compiler and its hardening flags. */
Test(objcheck, accepts_correct_code_from_every_compiler)
{
    static const struct {
        const char *cc;
        const char *flags[6];
    } builds[] = {
        {"gcc", {"-std=c11", "-O0", NULL}},
        {"gcc", {"-std=c11", "-O2", NULL}},
        {"gcc", {"-std=c11", "-O3", NULL}},
        {"gcc", {"-std=c11", "-O2", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", NULL}},
        {"gcc", {"-std=c11", "-O2", "-fstack-protector-all", "-D_FORTIFY_SOURCE=3",
                 "-fcf-protection", NULL}},
        {"gcc", {"-std=c11", "-Os", "-g", "-fPIC", NULL}},
        {"clang", {"-std=c11", "-O2", NULL}},
        {"clang", {"-std=c11", "-O3", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", NULL}},
    };
    static const char *const sources[] = {
        "clean.c", "clean_stdio.c", TEST_SRCDIR "/reference/attention.c",
    };

    for (size_t b = 0; b < sizeof builds / sizeof builds[0]; b++) {
        if (!fx_have(builds[b].cc))
            continue;           /* clang is optional */
        for (size_t s = 0; s < sizeof sources / sizeof sources[0]; s++) {
            struct obj_report rep;

            check_fixture(builds[b].cc, builds[b].flags, sources[s], &rep);
            cr_expect_eq(rep.n_rejections, 0, "%s %s %s: %s", builds[b].cc, builds[b].flags[1],
                         sources[s], rep.n_rejections ? rep.rejections[0] : "");
            if (strstr(sources[s], "clean_stdio") == NULL)
                cr_expect_eq(rep.n_localise, 0, "%s: %s", sources[s],
                             rep.n_localise ? rep.localise[0] : "");
            obj_report_release(&rep);
        }
    }
}

Test(objcheck, allow_list_lookups)
{
    static const struct {
        const char *name;
        int allowed;
    } cases[] = {
        {"_GLOBAL_OFFSET_TABLE_", 1}, {"__stack_chk_fail", 1}, {"__memcpy_chk", 1},
        {"memcpy", 1}, {"memset", 1}, {"bcmp", 1}, {"malloc", 1}, {"free", 1},
        {"expf", 1}, {"sqrtl", 1}, {"sincosf", 1}, {"__isnanf", 1}, {"fwrite", 1},
        {"stderr", 1}, {"stdout", 1}, {"truncl", 1}, {"tanhf", 1}, {"puts", 1},
        {"fopen", 0}, {"strdup", 0}, {"system", 0}, {"syscall", 0}, {"exit", 0},
        {"stdin", 0}, {"dlopen", 0}, {"mmap", 0}, {"", 0}, {"zzz", 0}, {"___", 0},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(obj_symbol_allowed(cases[i].name), cases[i].allowed, "'%s'",
                     cases[i].name);
}

/* Read a whole small file into a new buffer. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = malloc(1 << 20);

    cr_assert(f != NULL && buf != NULL);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

/* clean.c compiled, as a buffer the malformed cases mutate. */
static unsigned char *clean_object(size_t *len)
{
    char dir[64], obj[128];
    unsigned char *buf;

    cr_assert_eq(fx_mkdtemp(dir, sizeof dir), 0);
    snprintf(obj, sizeof obj, "%s/clean.o", dir);
    cr_assert_eq(fx_compile("cc", O2, FX_DIR "/clean.c", obj), 0);
    buf = slurp(obj, len);
    fx_rmtree(dir);
    return buf;
}

static void set_u16(unsigned char *p, uint16_t v) { memcpy(p, &v, sizeof v); }
static void set_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }

Test(objcheck, rejects_malformed_and_foreign_files)
{
    static const struct {
        size_t off;          /* where to write */
        int width;           /* 1, 2 or 8 bytes */
        uint64_t value;
        const char *expect;
    } cases[] = {
        {0, 1, 0x7e, "is not an object file for this machine"},
        {EI_CLASS, 1, ELFCLASS32, "is not an object file for this machine"},
        {offsetof(Elf64_Ehdr, e_machine), 2, EM_ARM, "is not an object file for this machine"},
        {offsetof(Elf64_Ehdr, e_type), 2, ET_EXEC, "it is linked"},
        {offsetof(Elf64_Ehdr, e_shoff), 8, (uint64_t)1 << 40, "malformed object file"},
        {offsetof(Elf64_Ehdr, e_shoff), 8, UINT64_MAX - 8, "malformed object file"},
        {offsetof(Elf64_Ehdr, e_shnum), 2, 60000, "malformed object file"},
        {offsetof(Elf64_Ehdr, e_shstrndx), 2, 9999, "malformed object file"},
        {offsetof(Elf64_Ehdr, e_shentsize), 2, 32, "malformed object file"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        unsigned char *buf = clean_object(&len);
        struct obj_report rep;
        struct err e;

        if (cases[i].width == 1)
            buf[cases[i].off] = (unsigned char)cases[i].value;
        else if (cases[i].width == 2)
            set_u16(buf + cases[i].off, (uint16_t)cases[i].value);
        else
            set_u64(buf + cases[i].off, cases[i].value);
        obj_report_init(&rep);
        cr_assert_eq(obj_check_buffer(buf, len, "attention.o", &rep, &e), 0);
        cr_expect(any_contains(rep.rejections, rep.n_rejections, cases[i].expect),
                  "case %zu: %s", i, rep.n_rejections ? rep.rejections[0] : "no rejection");
        obj_report_release(&rep);
        free(buf);
    }
}

Test(objcheck, rejects_section_table_pointing_outside_the_file)
{
    size_t len;
    unsigned char *buf = clean_object(&len);
    Elf64_Ehdr eh;
    struct obj_report rep;
    struct err e;

    memcpy(&eh, buf, sizeof eh);
    /* section 1's sh_offset: far past the end of the file */
    set_u64(buf + eh.e_shoff + sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_offset),
            (uint64_t)1 << 50);
    obj_report_init(&rep);
    cr_assert_eq(obj_check_buffer(buf, len, "attention.o", &rep, &e), 0);
    cr_expect(any_contains(rep.rejections, rep.n_rejections, "is outside the file"));
    obj_report_release(&rep);
    free(buf);
}

/* Random byte flips must never crash the checker (it may accept or reject). */
Test(objcheck, survives_random_corruption)
{
    size_t len;
    unsigned char *orig = clean_object(&len);
    unsigned char *buf = malloc(len);
    unsigned seed = 12345;

    cr_assert(buf != NULL);
    for (int round = 0; round < 3000; round++) {
        struct obj_report rep;
        struct err e;

        memcpy(buf, orig, len);
        for (int k = 0; k < 1 + round % 8; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % (round % 2 ? 64 + 0u : len);
            buf[at % len] ^= (unsigned char)(1u << (seed % 8));
        }
        obj_report_init(&rep);
        cr_assert_eq(obj_check_buffer(buf, round % 5 ? len : len / 2, "attention.o", &rep, &e),
                     0);
        obj_report_release(&rep);
    }
    free(buf);
    free(orig);
}

Test(objcheck, non_objects_and_missing_files)
{
    static const char *const junk[] = {"", "hello", "\x7f" "ELF", "#include <stdio.h>\n"};
    struct obj_report rep;
    struct err e;

    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        obj_report_init(&rep);
        cr_assert_eq(obj_check_buffer((const unsigned char *)junk[i], strlen(junk[i]),
                                      "attention.o", &rep, &e), 0);
        cr_expect(any_contains(rep.rejections, rep.n_rejections,
                               "'attention.o' is not an object file for this machine"));
        obj_report_release(&rep);
    }
    obj_report_init(&rep);
    cr_expect_eq(obj_check("/nonexistent/attention.o", &rep, &e), -1);
    cr_expect(strstr(e.msg, "cannot open") != NULL, "%s", e.msg);
    cr_expect_eq(rep.n_rejections, 0);
    obj_report_release(&rep);
}

/* Forty forbidden calls: the first OBJ_MAX_MESSAGES are kept, the rest counted. */
Test(objcheck, caps_the_number_of_messages)
{
    char dir[64], src[128], obj[128];
    struct obj_report rep;
    struct err e;
    FILE *f;
    char *text;

    cr_assert_eq(fx_mkdtemp(dir, sizeof dir), 0);
    snprintf(src, sizeof src, "%s/many.c", dir);
    snprintf(obj, sizeof obj, "%s/many.o", dir);
    cr_assert((f = fopen(src, "w")) != NULL);
    fprintf(f, "#include \"stubs.inc\"\nstatic void all(void);\n");
    for (int i = 0; i < 40; i++)
        fprintf(f, "void forbidden%d(void);\n", i);
    fprintf(f, "void (*const table[])(void) = {\n");
    for (int i = 0; i < 40; i++)
        fprintf(f, "forbidden%d,\n", i);
    fprintf(f, "all};\nstatic void all(void) {}\n");
    fclose(f);
    cr_assert_eq(fx_compile("cc", O2, src, obj), 0);
    obj_report_init(&rep);
    cr_assert_eq(obj_check(obj, &rep, &e), 0);
    cr_expect_eq(rep.n_rejections, OBJ_MAX_MESSAGES);
    cr_expect_eq(rep.n_rejections_dropped, 40 - OBJ_MAX_MESSAGES);
    text = obj_report_text(&rep, 0);
    cr_assert(text != NULL);
    cr_expect(strstr(text, "(and 8 more)") != NULL, "%s", text);
    free(text);
    obj_report_release(&rep);
    fx_rmtree(dir);
}
