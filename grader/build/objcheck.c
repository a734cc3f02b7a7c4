/*
 * objcheck.c -- see objcheck.h.
 *
 * Why an allow-list of undefined symbols rather than a deny-list: the
 * submission is linked into a runner that executes inside a sandbox, and
 * every symbol it may reach is a door out of "compute in memory and return
 * the result". A deny-list misses the door nobody thought of.
 *
 * The list must still accept everything an ordinary compiler emits on its
 * own for correct code: gcc -O0..-O3 and clang -O2 turn struct copies and
 * loops into memcpy/memset, printf("x\n") into puts, fprintf(stderr, "x")
 * into fwrite, sin+cos into sincos, memcmp()==0 into bcmp (clang); Debian,
 * Ubuntu and Fedora add _FORTIFY_SOURCE (the __*_chk functions) and the
 * stack protector (__stack_chk_fail) by default or on request.
 */
#include "build/objcheck.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/objcheck_internal.h"
#include "core/strbuf.h"

#if !GRADER_PORTABLE
#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#else
#error "objcheck: unsupported host machine (add its EM_ constant)"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif
#endif /* !GRADER_PORTABLE */


/* Sorted by strcmp (bsearch); tests check the order. libm comes in its
 * double, float and long double forms, with glibc's classification
 * helpers that isnan()/isinf()/signbit() may expand to. */
static const char *const allowed_undef[] = {
    "_GLOBAL_OFFSET_TABLE_", "__assert_fail", "__ctype_b_loc",
    "__ctype_tolower_loc", "__ctype_toupper_loc", "__divdc3", "__divsc3",
    "__errno_location", "__finite", "__finitef", "__finitel", "__fpclassify",
    "__fpclassifyf", "__fpclassifyl", "__fprintf_chk", "__isinf", "__isinff",
    "__isinfl", "__isnan", "__isnanf", "__isnanl", "__isnormal",
    "__isnormalf", "__isnormall", "__isoc23_strtol", "__isoc23_strtoll",
    "__isoc23_strtoul", "__isoc23_strtoull",
    "__issignaling", "__issignalingf", "__issignalingl", "__memcpy_chk",
    "__memmove_chk", "__memset_chk", "__muldc3", "__mulsc3", "__powidf2",
    "__powisf2", "__printf_chk", "__signbit", "__signbitf", "__signbitl",
    "__snprintf_chk", "__stack_chk_fail", "__stack_chk_fail_local",
    "__stack_chk_guard", "__stpcpy_chk", "__stpncpy_chk", "__strcat_chk",
    "__strcpy_chk", "__strncat_chk", "__strncpy_chk", "__vfprintf_chk",
    "__vprintf_chk", "__vsnprintf_chk", "abort", "abs", "acos", "acosf",
    "acosh", "acoshf", "acoshl", "acosl", "asin", "asinf", "asinh", "asinhf",
    "asinhl", "asinl", "atan", "atan2", "atan2f", "atan2l", "atanf", "atanh",
    "atanhf", "atanhl", "atanl", "bcmp", "bsearch", "calloc", "cbrt", "cbrtf",
    "cbrtl", "ceil", "ceilf", "ceill", "copysign", "copysignf", "copysignl",
    "cos", "cosf", "cosh", "coshf", "coshl", "cosl", "div", "erf", "erfc",
    "erfcf", "erfcl", "erff", "erfl", "exp", "exp10", "exp10f", "exp10l",
    "exp2", "exp2f", "exp2l", "expf", "expl", "expm1", "expm1f", "expm1l",
    "fabs", "fabsf", "fabsl", "fdim", "fdimf", "fdiml", "fflush", "floor",
    "floorf", "floorl", "fma", "fmaf", "fmal", "fmax", "fmaxf", "fmaxl",
    "fmin", "fminf", "fminl", "fmod", "fmodf", "fmodl", "fprintf", "fputc",
    "fputs", "free", "frexp", "frexpf", "frexpl", "fwrite", "hypot", "hypotf",
    "hypotl", "ilogb", "ilogbf", "ilogbl", "isalpha", "isdigit", "islower",
    "isspace", "isupper", "labs", "ldexp", "ldexpf", "ldexpl", "ldiv",
    "lgamma", "lgammaf", "lgammal", "llabs", "lldiv", "llrint", "llrintf",
    "llrintl", "llround", "llroundf", "llroundl", "log", "log10", "log10f",
    "log10l", "log1p", "log1pf", "log1pl", "log2", "log2f", "log2l", "logb",
    "logbf", "logbl", "logf", "logl", "lrint", "lrintf", "lrintl", "lround",
    "lroundf", "lroundl", "malloc", "memchr", "memcmp", "memcpy", "memmove",
    "memset", "modf", "modff", "modfl", "nan", "nanf", "nanl", "nearbyint",
    "nearbyintf", "nearbyintl", "nextafter", "nextafterf", "nextafterl",
    "nexttoward", "nexttowardf", "nexttowardl", "pow", "powf", "powl",
    "printf", "putc", "putchar", "puts", "qsort", "realloc", "remainder",
    "remainderf", "remainderl", "remquo", "remquof", "remquol", "rint",
    "rintf", "rintl", "round", "roundf", "roundl", "scalbln", "scalblnf",
    "scalblnl", "scalbn", "scalbnf", "scalbnl", "sin", "sincos", "sincosf",
    "sincosl", "sinf", "sinh", "sinhf", "sinhl", "sinl", "snprintf", "sqrt",
    "sqrtf", "sqrtl", "stderr", "stdout", "stpcpy", "stpncpy", "strcat",
    "strchr", "strcmp", "strcpy", "strcspn", "strlen", "strncat", "strncmp",
    "strncpy", "strnlen", "strpbrk", "strrchr", "strspn", "strstr", "strtod",
    "strtof", "strtol", "strtold", "strtoll", "strtoul", "strtoull", "tan",
    "tanf", "tanh", "tanhf", "tanhl", "tanl", "tgamma", "tgammaf", "tgammal",
    "tolower", "toupper", "trunc", "truncf", "truncl", "vfprintf", "vprintf",
    "vsnprintf",
};

/* Undefined symbols refused with a more useful message than the default. */
struct special {
    const char *name;
    const char *msg;         /* follows "calls 'NAME'" */
};

static const struct special specials[] = {
    {"syscall", ": system calls are not allowed in a submission"},
    {"fork", ": a submission may not start processes"},
    {"vfork", ": a submission may not start processes"},
    {"clone", ": a submission may not start processes"},
    {"system", ": a submission may not start processes"},
    {"popen", ": a submission may not start processes"},
    {"execl", ": a submission may not start processes"},
    {"execlp", ": a submission may not start processes"},
    {"execv", ": a submission may not start processes"},
    {"execve", ": a submission may not start processes"},
    {"execvp", ": a submission may not start processes"},
    {"posix_spawn", ": a submission may not start processes"},
    {"exit", ": return an error code instead of calling exit()"},
    {"_exit", ": return an error code instead of calling exit()"},
    {"_Exit", ": return an error code instead of calling exit()"},
    {"quick_exit", ": return an error code instead of calling exit()"},
    {"atexit", ": code may run only when the grader calls your functions"},
    {"at_quick_exit", ": code may run only when the grader calls your functions"},
    {"strdup", ", which allocates behind the grader's back: use malloc and memcpy"},
    {"strndup", ", which allocates behind the grader's back: use malloc and memcpy"},
    {"aligned_alloc", ", which the grader does not track: use malloc, calloc or realloc"},
    {"posix_memalign", ", which the grader does not track: use malloc, calloc or realloc"},
    {"memalign", ", which the grader does not track: use malloc, calloc or realloc"},
    {"valloc", ", which the grader does not track: use malloc, calloc or realloc"},
    {"reallocarray", ", which the grader does not track: use malloc, calloc or realloc"},
};

/* Prefixes of names that look like the grader's or a reference's code. */
static const char *const grader_prefixes[] = {
    "ref_", "reference", ASG_API_PREFIX "ref", "grd_", "runner_", "impl_", "prop_", "__real_",
};

static int cmp_name(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

int obj_symbol_allowed(const char *name)
{
    return bsearch(name, allowed_undef, sizeof allowed_undef / sizeof allowed_undef[0],
                   sizeof allowed_undef[0], cmp_name) != NULL;
}

static int api_index(const char *name)
{
    for (size_t i = 0; i < ASG_FN_COUNT; i++)
        if (strcmp(name, asg_fn_cname((enum asg_fn)i)) == 0)
            return (int)i;
    return -1;
}

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* How much of a symbol's name a warning quotes. */
#define SYM_SHOWN 64

void obj_push(struct obj_ctx *c, char ***arr, size_t *n, size_t *dropped,
              const char *fmt, ...)
{
    char buf[ERR_MSG_MAX];
    va_list ap;
    char **grown;

    if (*n >= OBJ_MAX_MESSAGES) {
        (*dropped)++;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    grown = realloc(*arr, (*n + 1) * sizeof *grown);
    if (grown == NULL || (grown[*n] = strdup(buf)) == NULL) {
        if (grown != NULL)
            *arr = grown;
        c->oom = 1;
        return;
    }
    *arr = grown;
    (*n)++;
}


static void add_localise(struct obj_ctx *c, const char *sym)
{
    char **grown;

    if (c->rep->n_localise >= OBJ_MAX_LOCALISE) {
        REJECT(c, "'%s' defines more than %d global symbols; make helpers static",
               c->name, OBJ_MAX_LOCALISE);
        return;
    }
    grown = realloc(c->rep->localise, (c->rep->n_localise + 1) * sizeof *grown);
    if (grown == NULL || (grown[c->rep->n_localise] = strdup(sym)) == NULL) {
        if (grown != NULL)
            c->rep->localise = grown;
        c->oom = 1;
        return;
    }
    c->rep->localise = grown;
    c->rep->n_localise++;
}

void obj_report_init(struct obj_report *r)
{
    memset(r, 0, sizeof *r);
}

static void free_list(char **a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

void obj_report_release(struct obj_report *r)
{
    if (r == NULL)
        return;
    free_list(r->rejections, r->n_rejections);
    free_list(r->warnings, r->n_warnings);
    free_list(r->localise, r->n_localise);
    obj_report_init(r);
}

char *obj_report_text(const struct obj_report *r, int which)
{
    char *const *msgs = which ? r->warnings : r->rejections;
    size_t n = which ? r->n_warnings : r->n_rejections;
    size_t dropped = which ? r->n_warnings_dropped : r->n_rejections_dropped;
    size_t total = 32, off = 0;
    char *out;

    for (size_t i = 0; i < n; i++)
        total += strlen(msgs[i]) + 1;
    if ((out = malloc(total)) == NULL)
        return NULL;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        off += (size_t)snprintf(out + off, total - off, "%s%s", i ? "\n" : "", msgs[i]);
    if (dropped > 0)
        snprintf(out + off, total - off, "%s(and %zu more)", n ? "\n" : "", dropped);
    return out;
}

void obj_undefined(struct obj_ctx *c, const char *sym)
{
    if (sym[0] == '\0' || obj_symbol_allowed(sym) || api_index(sym) >= 0 ||
        obj_platform_allowed(sym))
        return;
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        if (strcmp(sym, specials[i].name) == 0) {
            REJECT(c, "calls '%s'%s", sym, specials[i].msg);
            return;
        }
    for (size_t i = 0; i < sizeof grader_prefixes / sizeof grader_prefixes[0]; i++)
        if (has_prefix(sym, grader_prefixes[i])) {
            REJECT(c, "calls '%s', which looks like grader or reference code: only "
                   "your own file is linked, so write it yourself", sym);
            return;
        }
    if (has_prefix(sym, ASG_API_PREFIX))
        REJECT(c, "calls '%s', which is not defined: check its spelling, or define it "
               "(static) in " ASG_SOURCE, sym);
    else
        REJECT(c, "calls '%s', which the assignment does not allow: compute in "
               "memory and return the result", sym);
}

void obj_defined(struct obj_ctx *c, const char *sym, int is_function)
{
    int api = api_index(sym);

    if (api >= 0) {
        c->api_found[api] = 1;
        if (!is_function)
            REJECT(c, "'%s' must be a function, as declared in " ASG_HEADER, sym);
        return;
    }
    add_localise(c, sym);
    if (strcmp(sym, "main") == 0)
        WARN(c, "'main' is defined; it was made local (the grader provides main: "
             "keep your own tests out of " ASG_SOURCE ")");
    else if (obj_symbol_allowed(sym))
        WARN(c, "'%s' has the name of a C library function; it was made local "
             "(rename your helper and make it static)", sym);
    else
        /* A name can be longer than a message: cut the name, never the advice. */
        WARN(c, "helper '%.*s%s' should be static; it was made local", SYM_SHOWN, sym,
             strlen(sym) > SYM_SHOWN ? "..." : "");
}

void obj_missing_api(struct obj_ctx *c)
{
    for (size_t i = 0; i < ASG_FN_COUNT; i++)
        if (!c->api_found[i])
            WARN(c, "does not define '%s': its tests count as not implemented",
                 asg_fn_cname((enum asg_fn)i));
}

#if !GRADER_PORTABLE
/* ---- the ELF reader (the portable build reads `nm -P` instead:
 * objcheck_nm.c) ---- */

int obj_platform_allowed(const char *name)
{
    (void)name;
    return 0;
}

/* 1 if [off, off + size) lies inside the file. */
static int in_file(const struct obj_ctx *c, Elf64_Off off, Elf64_Xword size)
{
    return off <= c->len && size <= c->len - off;
}

/* The NUL-terminated string at `off` of string-table section `s`, or NULL. */
static const char *str_at(const struct obj_ctx *c, const Elf64_Shdr *s, Elf64_Word off)
{
    const char *base;

    if (s->sh_type != SHT_STRTAB || off >= s->sh_size)
        return NULL;
    base = (const char *)c->buf + s->sh_offset;
    if (memchr(base + off, '\0', s->sh_size - off) == NULL)
        return NULL;
    return base + off;
}

/* Header checks. Returns 0, or -1 after recording a rejection. */
static int check_header(struct obj_ctx *c, Elf64_Ehdr *eh)
{
    if (c->len < sizeof *eh || memcmp(c->buf, ELFMAG, SELFMAG) != 0) {
        REJECT(c, "'%s' is not an object file for this machine", c->name);
        return -1;
    }
    memcpy(eh, c->buf, sizeof *eh);
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != HOST_DATA ||
        eh->e_machine != HOST_MACHINE || eh->e_version != EV_CURRENT) {
        REJECT(c, "'%s' is not an object file for this machine", c->name);
        return -1;
    }
    if (eh->e_type != ET_REL) {
        REJECT(c, "'%s' is not an object file for this machine (it is linked; "
               "compile with -c)", c->name);
        return -1;
    }
    return 0;
}

/* Copy and validate the section headers. Returns 0, or -1 (rejected). */
static int load_sections(struct obj_ctx *c, const Elf64_Ehdr *eh)
{
    size_t n = eh->e_shnum;

    if (n == 0 || n > OBJ_MAX_SECTIONS || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(c, eh->e_shoff, (Elf64_Xword)n * sizeof(Elf64_Shdr)) ||
        eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= n) {
        REJECT(c, "'%s' is a malformed object file (section headers)", c->name);
        return -1;
    }
    if ((c->sh = malloc(n * sizeof *c->sh)) == NULL) {
        c->oom = 1;
        return -1;
    }
    memcpy(c->sh, c->buf + eh->e_shoff, n * sizeof *c->sh);
    c->shnum = n;
    for (size_t i = 1; i < n; i++) {
        if (c->sh[i].sh_type != SHT_NOBITS &&
            !in_file(c, c->sh[i].sh_offset, c->sh[i].sh_size)) {
            REJECT(c, "'%s' is a malformed object file (section %zu is outside the file)",
                   c->name, i);
            return -1;
        }
    }
    c->shstr = &c->sh[eh->e_shstrndx];
    return 0;
}

/* `name` is `p` or `p` followed by ".suffix" (".text.hot", ".rodata.str1.1"). */
static int name_is(const char *name, const char *p)
{
    size_t n = strlen(p);

    return strncmp(name, p, n) == 0 && (name[n] == '\0' || name[n] == '.');
}

/* Sections an ordinary compile produces: code, data, notes, unwind and
 * debug info, symbol tables, COMDAT groups, clang's address-significance
 * table. Relocation sections are judged by the section they apply to. */
static int section_allowed(const char *name)
{
    static const char *const ok[] = {
        ".text", ".data", ".rodata", ".bss", ".sdata", ".sbss", ".srodata",
        ".eh_frame", ".comment", ".group", ".symtab", ".strtab", ".shstrtab",
        ".llvm_addrsig", ".gcc_except_table", ".sframe", ".note",
        ".gnu.build.attributes", ".ARM.attributes", ".riscv.attributes",
    };

    if (has_prefix(name, ".rela."))
        return section_allowed(name + 5);
    if (has_prefix(name, ".rel."))
        return section_allowed(name + 4);
    if (has_prefix(name, ".debug_") || has_prefix(name, ".note."))
        return 1;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (name_is(name, ok[i]))
            return 1;
    return 0;
}

/* `s` may be NULL: judge by the name alone. */
static int is_constructor(const char *name, const Elf64_Shdr *s)
{
    static const char *const ctor[] = {
        ".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors", ".init", ".fini",
    };

    if (s != NULL && (s->sh_type == SHT_INIT_ARRAY || s->sh_type == SHT_FINI_ARRAY ||
                      s->sh_type == SHT_PREINIT_ARRAY))
        return 1;
    for (size_t i = 0; i < sizeof ctor / sizeof ctor[0]; i++)
        if (name_is(name, ctor[i]))
            return 1;
    return 0;
}

/* One section: constructors, TLS, executable stack, foreign sections. */
static void check_section(struct obj_ctx *c, size_t i)
{
    const Elf64_Shdr *s = &c->sh[i];
    const char *name = str_at(c, c->shstr, s->sh_name);

    if (name == NULL) {
        REJECT(c, "'%s' is a malformed object file (name of section %zu)", c->name, i);
        return;
    }
    if ((has_prefix(name, ".rela.") && is_constructor(name + 5, NULL)) ||
        (has_prefix(name, ".rel.") && is_constructor(name + 4, NULL)))
        return;             /* the section it relocates is reported */
    if (is_constructor(name, s))
        REJECT(c, "defines a constructor (section '%s'): code may run only when "
               "the grader calls your functions", name);
    else if ((s->sh_flags & SHF_TLS) || name_is(name, ".tbss") || name_is(name, ".tdata"))
        REJECT(c, "uses thread-local storage (section '%s'), which is not supported", name);
    else if (strcmp(name, ".note.GNU-stack") == 0 && (s->sh_flags & SHF_EXECINSTR))
        REJECT(c, "needs an executable stack (section '.note.GNU-stack'): do not take "
               "the address of nested functions");
    else if (!section_allowed(name))
        REJECT(c, "unexpected section '%s': keep to ordinary C code and data", name);
}

/*
 * What the object's sections take in memory once loaded (code, data,
 * .bss): a runner whose image exceeds its address-space limit cannot even
 * start, so a huge static array is refused here, with a reason, before
 * any test runs. Sizes are capped one by one, so the sum cannot overflow.
 */
static void check_static_size(struct obj_ctx *c)
{
    uint64_t total = 0, largest = 0;
    size_t big = 0;

    for (size_t i = 1; i < c->shnum; i++) {
        uint64_t sz = c->sh[i].sh_size;
        if (!(c->sh[i].sh_flags & SHF_ALLOC))
            continue;
        if (sz > OBJ_MAX_STATIC_BYTES)
            sz = OBJ_MAX_STATIC_BYTES + 1;
        total += sz;
        if (sz > largest)
            largest = sz, big = i;
    }
    if (total > OBJ_MAX_STATIC_BYTES) {
        const char *name = str_at(c, c->shstr, c->sh[big].sh_name);
        REJECT(c, "its code and static data take more than %u MiB (section '%s': "
               "%llu MiB): allocate large arrays with malloc", OBJ_MAX_STATIC_BYTES >> 20,
               name ? name : "?", (unsigned long long)(c->sh[big].sh_size >> 20));
    }
}

/* The single SHT_SYMTAB, or NULL after recording a rejection. */
static const Elf64_Shdr *find_symtab(struct obj_ctx *c)
{
    const Elf64_Shdr *found = NULL;

    for (size_t i = 1; i < c->shnum; i++) {
        if (c->sh[i].sh_type != SHT_SYMTAB)
            continue;
        if (found != NULL) {
            REJECT(c, "'%s' is a malformed object file (two symbol tables)", c->name);
            return NULL;
        }
        found = &c->sh[i];
    }
    if (found == NULL)
        REJECT(c, "'%s' has no symbol table (do not strip it)", c->name);
    else if (found->sh_entsize != sizeof(Elf64_Sym) || found->sh_size % sizeof(Elf64_Sym) ||
             found->sh_size / sizeof(Elf64_Sym) > OBJ_MAX_SYMBOLS ||
             found->sh_link == 0 || found->sh_link >= c->shnum ||
             c->sh[found->sh_link].sh_type != SHT_STRTAB) {
        REJECT(c, "'%s' is a malformed object file (symbol table)", c->name);
        return NULL;
    }
    return found;
}

static void check_symbol(struct obj_ctx *c, const Elf64_Shdr *strtab, const Elf64_Sym *s)
{
    const char *sym = str_at(c, strtab, s->st_name);
    unsigned type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);

    if (sym == NULL || strlen(sym) > OBJ_MAX_NAME) {
        REJECT(c, "'%s' is a malformed object file (symbol name)", c->name);
        return;
    }
    if (type == STT_GNU_IFUNC)
        REJECT(c, "'%s' is an indirect function (ifunc): define an ordinary function", sym);
    else if (type == STT_TLS)
        REJECT(c, "'%s' is thread-local, and thread-local storage is not supported", sym);
    else if (s->st_shndx == SHN_COMMON)
        REJECT(c, "'%s' is a common symbol; make it static or initialise it", sym);
    else if (bind == STB_LOCAL)
        return;
    else if (s->st_shndx == SHN_UNDEF)
        obj_undefined(c, sym);
    else if (s->st_shndx >= c->shnum && s->st_shndx != SHN_ABS)
        REJECT(c, "'%s' is a malformed object file (section of symbol '%s')", c->name, sym);
    else
        obj_defined(c, sym, ELF64_ST_TYPE(s->st_info) == STT_FUNC);
}

static void check_symbols(struct obj_ctx *c)
{
    const Elf64_Shdr *tab = find_symtab(c);
    size_t n;
    Elf64_Sym s;

    if (tab == NULL)
        return;
    n = tab->sh_size / sizeof s;
    for (size_t i = 1; i < n && !c->oom; i++) {
        memcpy(&s, c->buf + tab->sh_offset + i * sizeof s, sizeof s);
        check_symbol(c, &c->sh[tab->sh_link], &s);
    }
    obj_missing_api(c);
}

/* ---- which API function calls which (for the diagnosis only) --------- */

#define CALLS_MAX_FUNCS 512
#define CALLS_MAX_EDGES 8192

struct fsym {
    size_t shndx;
    Elf64_Addr lo, hi;
    int api;                 /* the enum asg_fn, or -1 */
};

struct graph {
    struct fsym *f;
    size_t n;
    size_t (*edge)[2];
    size_t n_edges;
};

/* The function symbol of section sh covering offset off; n when none. */
static size_t fn_at(const struct graph *g, size_t sh, Elf64_Addr off)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->f[i].shndx == sh && off >= g->f[i].lo && off < g->f[i].hi)
            return i;
    return g->n;
}

static void add_edge(struct graph *g, size_t from, size_t to)
{
    if (from < g->n && to < g->n && from != to && g->n_edges < CALLS_MAX_EDGES) {
        g->edge[g->n_edges][0] = from;
        g->edge[g->n_edges++][1] = to;
    }
}

static size_t collect_functions(const struct obj_ctx *c, const Elf64_Shdr *tab, struct graph *g)
{
    size_t n = tab->sh_size / sizeof(Elf64_Sym);
    Elf64_Sym s;

    for (size_t i = 1; i < n && g->n < CALLS_MAX_FUNCS; i++) {
        const char *name;
        memcpy(&s, c->buf + tab->sh_offset + i * sizeof s, sizeof s);
        if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF ||
            s.st_shndx >= c->shnum)
            continue;
        name = str_at(c, &c->sh[tab->sh_link], s.st_name);
        g->f[g->n].shndx = s.st_shndx;
        g->f[g->n].lo = s.st_value;
        g->f[g->n].hi = s.st_value + (s.st_size ? s.st_size : 1);
        g->f[g->n++].api = ELF64_ST_BIND(s.st_info) != STB_LOCAL && name ? api_index(name) : -1;
    }
    return n;
}

/* The function a relocation against symbol sym (with addend a) reaches. */
static size_t reloc_target(const struct obj_ctx *c, const Elf64_Shdr *tab, const struct graph *g,
                           size_t sym, Elf64_Sxword a)
{
    Elf64_Sym s;
    size_t t;

    if (sym == 0 || sym >= tab->sh_size / sizeof s)
        return g->n;
    memcpy(&s, c->buf + tab->sh_offset + sym * sizeof s, sizeof s);
    if (s.st_shndx == SHN_UNDEF || s.st_shndx >= c->shnum)
        return g->n;
    if (ELF64_ST_TYPE(s.st_info) == STT_SECTION) /* x86-64 call: addend is target - 4 */
        return (t = fn_at(g, s.st_shndx, (Elf64_Addr)(a + 4))) < g->n
                   ? t : fn_at(g, s.st_shndx, (Elf64_Addr)a);
    return fn_at(g, s.st_shndx, s.st_value);
}

static void relocation_edges(const struct obj_ctx *c, const Elf64_Shdr *tab, struct graph *g)
{
    for (size_t i = 1; i < c->shnum; i++) {
        const Elf64_Shdr *r = &c->sh[i];
        Elf64_Rela rel;
        if (r->sh_type != SHT_RELA || r->sh_entsize != sizeof rel || r->sh_info >= c->shnum ||
            &c->sh[r->sh_link] != tab)
            continue;
        for (size_t k = 0; k < r->sh_size / sizeof rel; k++) {
            memcpy(&rel, c->buf + r->sh_offset + k * sizeof rel, sizeof rel);
            add_edge(g, fn_at(g, r->sh_info, rel.r_offset),
                     reloc_target(c, tab, g, ELF64_R_SYM(rel.r_info), rel.r_addend));
        }
    }
}

/* Calls the assembler resolved itself (x86-64 `call rel32` to a function
 * of the same section): no relocation names them. */
static void direct_call_edges(const struct obj_ctx *c, struct graph *g)
{
    if (HOST_MACHINE != EM_X86_64)
        return;
    for (size_t i = 0; i < g->n; i++) {
        const Elf64_Shdr *s = &c->sh[g->f[i].shndx];
        const unsigned char *b = c->buf + s->sh_offset;
        if (s->sh_type != SHT_PROGBITS || g->f[i].hi > s->sh_size)
            continue;
        for (Elf64_Addr p = g->f[i].lo; p + 5 <= g->f[i].hi; p++) {
            int32_t rel;
            size_t t;
            if (b[p] != 0xe8)
                continue;
            memcpy(&rel, b + p + 1, sizeof rel);
            t = fn_at(g, g->f[i].shndx, (Elf64_Addr)((int64_t)p + 5 + rel));
            if (t < g->n && g->f[t].lo == (Elf64_Addr)((int64_t)p + 5 + rel))
                add_edge(g, i, t);
        }
    }
}

/* Mark in c->rep->calls[api] every API function reachable from function
 * `from` (seen: visited functions). */
static void reach(const struct graph *g, size_t from, int api, unsigned char *seen,
                  struct obj_report *rep)
{
    if (seen[from])
        return;
    seen[from] = 1;
    if (g->f[from].api >= 0 && g->f[from].api != api)
        rep->calls[api][g->f[from].api] = 1;
    for (size_t e = 0; e < g->n_edges; e++)
        if (g->edge[e][0] == from)
            reach(g, g->edge[e][1], api, seen, rep);
}

static void check_calls(struct obj_ctx *c)
{
    const Elf64_Shdr *tab = NULL;
    struct graph g = {0};
    unsigned char *seen;

    for (size_t i = 1; i < c->shnum; i++)
        if (c->sh[i].sh_type == SHT_SYMTAB)
            tab = &c->sh[i];
    if (tab == NULL || c->rep->n_rejections > 0)
        return;
    g.f = calloc(CALLS_MAX_FUNCS, sizeof *g.f);
    g.edge = calloc(CALLS_MAX_EDGES, sizeof *g.edge);
    seen = calloc(CALLS_MAX_FUNCS, 1);
    if (g.f && g.edge && seen) {
        collect_functions(c, tab, &g);
        relocation_edges(c, tab, &g);
        direct_call_edges(c, &g);
        for (size_t i = 0; i < g.n; i++)
            if (g.f[i].api >= 0) {
                memset(seen, 0, CALLS_MAX_FUNCS);
                reach(&g, i, g.f[i].api, seen, c->rep);
            }
    }
    free(g.f);
    free(g.edge);
    free(seen);
}

static void check_all(struct obj_ctx *c)
{
    Elf64_Ehdr eh;

    if (check_header(c, &eh) < 0 || load_sections(c, &eh) < 0)
        return;
    if (c->shstr->sh_type != SHT_STRTAB) {
        REJECT(c, "'%s' is a malformed object file (section names)", c->name);
        return;
    }
    for (size_t i = 1; i < c->shnum && !c->oom; i++)
        check_section(c, i);
    check_static_size(c);
    check_symbols(c);
    check_calls(c);
}

int obj_check_buffer(const unsigned char *buf, size_t len, const char *name,
                     struct obj_report *rep, struct err *e)
{
    struct obj_ctx c;

    obj_report_release(rep);
    memset(&c, 0, sizeof c);
    c.buf = buf;
    c.len = len;
    c.name = name;
    c.rep = rep;
    if (len > OBJ_MAX_BYTES)
        REJECT(&c, "'%s' is larger than %u MiB", name, OBJ_MAX_BYTES >> 20);
    else
        check_all(&c);
    free(c.sh);
    if (c.oom) {
        obj_report_release(rep);
        return err_set(e, name, 0, 0, "out of memory while checking the object");
    }
    return 0;
}

/* Read `path` whole, or its first OBJ_MAX_BYTES + 1 bytes (enough to
 * tell "too big"). Returns NULL with `e` set on failure. */
static unsigned char *read_capped(const char *path, size_t *len, struct err *e)
{
    struct sb sb;
    char *buf = NULL;

    sb_init(&sb, (size_t)OBJ_MAX_BYTES + 1);
    if (sb_load_file(&sb, path, (size_t)OBJ_MAX_BYTES + 1, e) >= 0 &&
        (buf = sb_detach(&sb, len)) == NULL)
        err_set(e, path, 0, 0, "out of memory while reading the object");
    sb_release(&sb);
    return (unsigned char *)buf;
}

int obj_check(const char *path, struct obj_report *rep, struct err *e)
{
    size_t len = 0;
    unsigned char *buf = read_capped(path, &len, e);
    const char *base = strrchr(path, '/');
    int rc;

    if (buf == NULL) {
        obj_report_release(rep);
        return -1;
    }
    rc = obj_check_buffer(buf, len, base ? base + 1 : path, rep, e);
    free(buf);
    return rc;
}
#endif /* !GRADER_PORTABLE */
