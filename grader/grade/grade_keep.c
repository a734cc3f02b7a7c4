/* grade_keep.c -- see grade_keep.h. */
#include "grade/grade_keep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/objcache.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "oracle/oracle.h"
#include "sandbox/impl.h"

#define KEEP_TITLE "attention-grader verdicts 2" /* 2: with the facts */
#define ENV_MAGIC "attention-grader verdicts env 1\n"
#define KEY_MAGIC "attention-grader verdicts key 1\n"
#define KEPT_MAX (64u << 20)
#define KEPT_STR_MAX (16u << 20)
#define SUM_LINE (4 + SHA256_HEX_LEN) /* "sum ", 64 hex digits, "\n" */

/* ---- the key ---------------------------------------------------------------- */

/* s as a field: its length, then its bytes (no two field lists alike). */
static int put_str(struct sb *k, const char *s)
{
    if (s == NULL)
        return sb_adds(k, "-1:");
    return sb_addf(k, "%zu:", strlen(s)) < 0 || sb_adds(k, s) < 0 ? -1 : 0;
}

/* The file at path into k: "absent", or its SHA-256 (sha256_file: read in
 * chunks, so the grader's executable and the diagnosis data are hashed in
 * constant memory). */
static int put_file(struct sb *k, const char *path)
{
    char hex[SHA256_HEX_LEN];
    struct stat st;

    if (stat(path, &st) != 0)
        return errno == ENOENT ? sb_adds(k, "absent;") : -1;
    if (sha256_file(path, hex, NULL) < 0)
        return -1;
    return sb_addf(k, "%s;", hex) < 0 ? -1 : 0;
}

/* The identity of every file /proc/self/maps names, in its order (the
 * loader's, the same for every run of the same binary and libraries). */
static int put_maps(struct sb *k)
{
    struct sb m;
    const char *p, *end;
    char last[UT_PATH_MAX] = "";
    int rc = 0;

    sb_init(&m, 1u << 20);
    if (sb_read_file(&m, "/proc/self/maps", 0) != SB_READ_OK) {
        sb_release(&m);
        return -1;
    }
    for (p = sb_str(&m); rc == 0 && *p; p = *end ? end + 1 : end) {
        const char *path;
        char name[UT_PATH_MAX];
        struct stat st;
        size_t n;

        end = strchr(p, '\n');
        if (end == NULL)
            end = p + strlen(p);
        path = memchr(p, '/', (size_t)(end - p));
        n = path ? (size_t)(end - path) : 0;
        if (path == NULL || n >= sizeof name)
            continue;
        memcpy(name, path, n);
        name[n] = '\0';
        /* a memfd, a deleted file: nothing a path can name again */
        if (strcmp(name, last) == 0 || stat(name, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        snprintf(last, sizeof last, "%s", name);
        rc = put_str(k, name) < 0 ||
                     sb_addf(k, "%ju,%ju,%jd,%jd.%09ld;", (uintmax_t)st.st_dev,
                             (uintmax_t)st.st_ino, (intmax_t)st.st_size,
                             (intmax_t)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec) < 0
                 ? -1 : 0;
    }
    sb_release(&m);
    return rc;
}

int gk_env(const char *data_dir, char env[SHA256_HEX_LEN], struct err *e)
{
    char path[UT_PATH_MAX];
    struct sb k;
    int rc;

    env[0] = '\0';
    sb_init(&k, 0);
    snprintf(path, sizeof path, "%s/diag.golden", data_dir);
    rc = sb_adds(&k, ENV_MAGIC) < 0 || put_file(&k, "/proc/self/exe") < 0 ||
                 put_maps(&k) < 0 || put_file(&k, path) < 0
             ? -1 : 0;
    if (rc == 0)
        sha256_hex(k.buf, k.len, env);
    sb_release(&k);
    return rc == 0 ? 0 : err_set(e, NULL, 0, 0, "the grader cannot identify itself: "
                                 "its verdicts are not kept");
}

static int put_num(struct sb *k, double v)
{
    return sb_addf(k, "%a;", v);
}

static int put_list(struct sb *k, const double *v, size_t n)
{
    int rc = sb_addf(k, "%zu;", n);

    for (size_t j = 0; rc == 0 && j < n; j++)
        rc = put_num(k, v[j]);
    return rc;
}

static int put_case(struct sb *k, const struct spec_case *c)
{
    int rc = sb_addf(k, "case %zu;", c->n_params);

    for (size_t i = 0; rc == 0 && i < c->n_params; i++) {
        const struct spec_param *p = &c->params[i];
        rc = put_str(k, p->key) < 0 || sb_addf(k, "%d;", (int)p->kind) < 0 ? -1 : 0;
        if (rc == 0)
            rc = p->kind == SPEC_NUM   ? put_num(k, p->num)
                 : p->kind == SPEC_STR ? put_str(k, p->str)
                                       : put_list(k, p->list, p->list_len);
    }
    return rc;
}

/* Every field of test t but its points (and where it was written), and
 * which of its cases run. */
static int put_test(struct sb *k, const struct spec_test *t, const unsigned char *cases)
{
    int rc = put_str(k, t->id) < 0 || put_str(k, t->title) < 0 ||
                     put_str(k, t->function) < 0 || put_str(k, t->property) < 0 ||
                     sb_addf(k, "%d;%ld;%d;", (int)t->visibility, t->timeout_ms,
                             (int)t->scoring) < 0 ||
                     put_num(k, t->tolerance) < 0 || put_str(k, t->hint) < 0 ||
                     sb_addf(k, "deps %zu;", t->n_depends_on) < 0
                 ? -1 : 0;

    for (size_t i = 0; rc == 0 && i < t->n_depends_on; i++)
        rc = put_str(k, t->depends_on[i]);
    for (size_t i = 0; rc == 0 && i < t->n_cases; i++)
        rc = sb_addf(k, "%d", cases[i] ? 1 : 0) < 0 ? -1 : put_case(k, &t->cases[i]);
    return rc;
}

int gk_key(const char *env, const char *submission, const char *inputs, const char *runner,
           const struct spec_set *specs, const struct grun_sel *sel,
           const struct grade_opts *o, char key[SHA256_HEX_LEN], struct err *e)
{
    struct sb k;
    int rc;

    sb_init(&k, 0);
    rc = sb_adds(&k, KEY_MAGIC) < 0 || put_str(&k, env) < 0 || put_str(&k, submission) < 0 ||
                 put_str(&k, inputs) < 0 || put_str(&k, o->data_dir) < 0
             ? -1 : 0;
    if (rc == 0 && put_file(&k, runner) < 0) {
        sb_release(&k);
        return err_set(e, runner, 0, 0, "cannot read the runner");
    }
    rc = rc < 0 || sb_addf(&k, "seed %" PRIu64 ";", o->seed) < 0 ||
                 put_num(&k, o->budget_ms) < 0 || put_str(&k, o->only) < 0 ||
                 put_str(&k, o->repro_pre) < 0 || put_str(&k, o->repro_post) < 0 ||
                 put_str(&k, o->diag_exclude) < 0 ||
                 sb_addf(&k, "%d;%d;", o->stop_at_failure,
                         o->orc ? (int)o->orc->mode : -1) < 0
             ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < sel->n_tests; i++)
        if (sel->cases[i] != NULL)
            rc = put_test(&k, spec_test_at(specs, i), sel->cases[i]);
    if (rc == 0)
        sha256_hex(k.buf, k.len, key);
    sb_release(&k);
    return rc == 0 ? 0 : err_set(e, NULL, 0, 0, "out of memory");
}

/* ---- keeping ---------------------------------------------------------------- */

int gk_keepable(const struct grade_result *r)
{
    if (r->status != GRADE_OK || r->diag == GRADE_DIAG_CUT)
        return 0;
    for (size_t i = 0; i < r->n_tests; i++)
        if (r->tests[i].status == TEST_TIMED_OUT || r->tests[i].status == TEST_NOT_RUN)
            return 0;
    return 1;
}

static int put_text(struct sb *b, const char *s)
{
    if (s == NULL)
        return sb_adds(b, "-\n");
    return sb_addf(b, "%zu\n", strlen(s)) < 0 || sb_adds(b, s) < 0 || sb_addch(b, '\n') < 0
               ? -1 : 0;
}

static int put_result(struct sb *b, const char *key, const struct grade_result *r)
{
    int rc = sb_adds(b, KEEP_TITLE "\n") < 0 ||
                     sb_addf(b, "key %s\ndiag %d %a\ntests %zu\n", key, (int)r->diag,
                             r->diag_ms, r->n_tests) < 0
                 ? -1 : 0;

    for (size_t i = 0; rc == 0 && i < r->n_tests; i++) {
        const struct grade_test *t = &r->tests[i];
        rc = sb_addf(b, "t %d %zu %zu %zu %zu %zu %d %a\n", (int)t->status, t->cases_passed,
                     t->cases_run, t->cases_scored, t->failed_case, t->explained_by,
                     t->dependency_failed, t->elapsed_ms) < 0 ||
                     put_text(b, t->withheld_by) < 0 || put_text(b, t->message) < 0 ||
                     put_text(b, t->hint) < 0 || put_text(b, t->repro) < 0
                 ? -1 : 0;
    }
    rc = rc < 0 || sb_addf(b, "causes %zu\n", r->n_causes) < 0 ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < r->n_causes; i++) {
        const struct grade_cause *c = &r->causes[i];
        rc = sb_addf(b, "c %d %d %zu %zu %zu\n", c->strong, c->callee, c->explained,
                     c->failures, c->lead) < 0 ||
                     put_text(b, c->function) < 0 || put_text(b, c->variant) < 0 ||
                     put_text(b, c->bug) < 0
                 ? -1 : 0;
    }
    /* the facts too: a regrade shows the rubric the first grade showed */
    rc = rc < 0 || sb_addf(b, "facts %d\n", ASG_FN_COUNT) < 0 ? -1 : 0;
    for (int f = 0; rc == 0 && f < ASG_FN_COUNT; f++)
        rc = put_text(b, r->facts[f]);
    return rc;
}

int gk_store(const char *dir, const char *key, const struct grade_result *r, struct err *e)
{
    char path[UT_PATH_MAX], sum[SHA256_HEX_LEN];
    struct sb b;
    int rc;

    if (snprintf(path, sizeof path, "%s/%s", dir, GK_FILE) >= (int)sizeof path)
        return err_set(e, dir, 0, 0, "path too long");
    /* an old file goes first: never verdicts under a key that is not theirs */
    if (unlink(path) < 0 && errno != ENOENT)
        return err_set(e, path, 0, 0, "cannot remove: %s", strerror(errno));
    sb_init(&b, 0);
    rc = put_result(&b, key, r);
    if (rc == 0) {
        sha256_hex(b.buf, b.len, sum);
        rc = sb_addf(&b, "sum %s\n", sum);
    }
    rc = rc < 0 ? err_set(e, NULL, 0, 0, "out of memory")
                : ut_write_atomic(path, b.buf, b.len, 0, e);
    sb_release(&b);
    return rc;
}

/* ---- reading them back ------------------------------------------------------ */

/* A cursor over the kept file's bytes. */
struct rd {
    const char *p, *end;
};

/* The next line into buf (without its newline); 0, or -1 when none fits. */
static int line(struct rd *d, char *buf, size_t n)
{
    const char *nl = memchr(d->p, '\n', (size_t)(d->end - d->p));
    size_t len;

    if (nl == NULL || (len = (size_t)(nl - d->p)) >= n)
        return -1;
    memcpy(buf, d->p, len);
    buf[len] = '\0';
    d->p = nl + 1;
    return 0;
}

/* A put_text field: *out a new string (NULL for "-"); 0, -1 when damaged,
 * -2 when out of memory. */
static int text(struct rd *d, char **out)
{
    char head[32], *end;
    unsigned long long n;

    *out = NULL;
    if (line(d, head, sizeof head) < 0)
        return -1;
    if (strcmp(head, "-") == 0)
        return 0;
    errno = 0;
    n = strtoull(head, &end, 10);
    if (errno || end == head || *end || n > KEPT_STR_MAX || (size_t)(d->end - d->p) < n + 1 ||
        d->p[n] != '\n' || memchr(d->p, '\0', (size_t)n) != NULL)
        return -1;
    if ((*out = malloc((size_t)n + 1)) == NULL)
        return -2;
    memcpy(*out, d->p, (size_t)n);
    (*out)[n] = '\0';
    d->p += n + 1;
    return 0;
}

/* text() into a fixed array of n bytes. */
static int text_into(struct rd *d, char *buf, size_t n)
{
    char *s;
    int rc = text(d, &s);

    if (rc == 0 && (s == NULL || strlen(s) >= n))
        rc = -1;
    if (rc == 0)
        snprintf(buf, n, "%s", s);
    free(s);
    return rc;
}

static int valid_status(int st)
{
    return st >= TEST_PASSED && st <= TEST_WITHHELD && st != TEST_TIMED_OUT &&
           st != TEST_NOT_RUN;
}

/* Test i's outcome; 0, -1 damaged, -2 out of memory. */
static int read_test(struct rd *d, struct grade_test *t)
{
    char head[256];
    int st, dep, rc, used = 0;

    if (line(d, head, sizeof head) < 0 ||
        sscanf(head, "t %d %zu %zu %zu %zu %zu %d %la%n", &st, &t->cases_passed,
               &t->cases_run, &t->cases_scored, &t->failed_case, &t->explained_by, &dep,
               &t->elapsed_ms, &used) != 8 ||
        head[used] != '\0' || !valid_status(st) || (dep != 0 && dep != 1) ||
        t->cases_passed > t->cases_run || t->cases_run > t->test->n_cases ||
        t->cases_scored > t->test->n_cases || t->failed_case >= t->test->n_cases)
        return -1;
    t->status = (enum grade_test_status)st;
    t->dependency_failed = dep;
    if ((rc = text(d, &t->withheld_by)) < 0 || (rc = text(d, &t->message)) < 0 ||
        (rc = text(d, &t->hint)) < 0 || (rc = text(d, &t->repro)) < 0)
        return rc;
    return t->message && t->hint && t->repro ? 0 : -1;
}

static int read_cause(struct rd *d, size_t n_tests, struct grade_cause *c)
{
    char head[256];
    int used = 0, rc;

    if (line(d, head, sizeof head) < 0 ||
        sscanf(head, "c %d %d %zu %zu %zu%n", &c->strong, &c->callee, &c->explained,
               &c->failures, &c->lead, &used) != 5 ||
        head[used] != '\0' || (c->strong != 0 && c->strong != 1) || c->callee < 0 ||
        c->callee > ASG_FN_COUNT || c->lead >= n_tests || c->explained > c->failures ||
        c->failures > n_tests)
        return -1;
    if ((rc = text_into(d, c->function, sizeof c->function)) < 0 ||
        (rc = text_into(d, c->variant, sizeof c->variant)) < 0)
        return rc;
    return text(d, &c->bug);
}

static void drop(struct grade_result *r)
{
    for (size_t i = 0; i < r->n_tests; i++) {
        struct grade_test *t = &r->tests[i];
        free(t->withheld_by);
        free(t->message);
        free(t->hint);
        free(t->repro);
        memset(t, 0, sizeof *t);
    }
    for (size_t i = 0; i < r->n_causes; i++)
        free(r->causes[i].bug);
    for (int f = 0; f < ASG_FN_COUNT; f++) {
        free(r->facts[f]);
        r->facts[f] = NULL;
    }
    free(r->causes);
    r->causes = NULL;
    r->n_causes = 0;
    r->n_tests = 0;
}

/* Parse a whole kept file into r; 0, -1 damaged, -2 out of memory. */
static int parse(struct rd *d, const char *key, const struct spec_set *specs,
                 const struct grun_sel *sel, struct grade_result *r)
{
    char head[256], want[128];
    int diag, used = 0, rc = 0;
    size_t n, j = 0;

    snprintf(want, sizeof want, "key %s", key);
    if (line(d, head, sizeof head) < 0 || strcmp(head, KEEP_TITLE) != 0 ||
        line(d, head, sizeof head) < 0 || strcmp(head, want) != 0 ||
        line(d, head, sizeof head) < 0 ||
        sscanf(head, "diag %d %la%n", &diag, &r->diag_ms, &used) != 2 || head[used] ||
        diag < GRADE_DIAG_NO_DATA || diag > GRADE_DIAG_SELECTED || diag == GRADE_DIAG_CUT ||
        line(d, head, sizeof head) < 0 || sscanf(head, "tests %zu%n", &n, &used) != 1 ||
        head[used] || n != grun_selected_tests(sel) || n > r->tests_cap)
        return -1;
    r->diag = (enum grade_diag)diag;
    for (size_t i = 0; rc == 0 && i < sel->n_tests; i++) {
        if (sel->cases[i] == NULL)
            continue;
        r->tests[j].test = spec_test_at(specs, i);
        r->n_tests = ++j;
        rc = read_test(d, &r->tests[j - 1]);
    }
    if (rc == 0 && (line(d, head, sizeof head) < 0 ||
                    sscanf(head, "causes %zu%n", &n, &used) != 1 || head[used] ||
                    n > ASG_FN_COUNT))
        rc = -1;
    if (rc == 0 && n > 0 && (r->causes = calloc(n, sizeof *r->causes)) == NULL)
        rc = -2;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        r->n_causes = i + 1;
        rc = read_cause(d, r->n_tests, &r->causes[i]);
    }
    for (size_t i = 0; rc == 0 && i < r->n_tests; i++)
        if (r->tests[i].explained_by > r->n_causes)
            rc = -1;
    if (rc == 0 && (line(d, head, sizeof head) < 0 ||
                    sscanf(head, "facts %zu%n", &n, &used) != 1 || head[used] ||
                    n != ASG_FN_COUNT))
        rc = -1;
    for (int f = 0; rc == 0 && f < ASG_FN_COUNT; f++)
        rc = text(d, &r->facts[f]);
    return rc == 0 && d->p == d->end ? 0 : rc < 0 ? rc : -1;
}

/* The kept file's bytes (bld_cache_read: a regular file, never through a
 * link), checked against the sum on its last line; *len excludes that
 * line. NULL: nothing usable. */
static char *read_kept(const char *dir, size_t *len)
{
    char sum[SHA256_HEX_LEN];
    size_t n;
    char *b = bld_cache_read(dir, GK_FILE, KEPT_MAX, &n);
    const char *last;

    if (b == NULL || n < SUM_LINE || b[n - 1] != '\n') {
        free(b);
        return NULL;
    }
    last = b + n - SUM_LINE;
    sha256_hex(b, n - SUM_LINE, sum);
    if (memcmp(last, "sum ", 4) != 0 || memcmp(last + 4, sum, SHA256_HEX_LEN - 1) != 0 ||
        (n > SUM_LINE && last[-1] != '\n')) {
        free(b);
        return NULL;
    }
    *len = n - SUM_LINE;
    return b;
}

int gk_load(const char *dir, const char *key, const struct spec_set *specs,
            const struct grun_sel *sel, struct grade_result *r, struct err *e)
{
    size_t len;
    char *buf = read_kept(dir, &len);
    struct rd d;
    int rc;

    if (buf == NULL)
        return 0;
    d.p = buf;
    d.end = buf + len;
    rc = parse(&d, key, specs, sel, r);
    free(buf);
    if (rc < 0) {
        drop(r);
        r->diag = GRADE_DIAG_NO_DATA;
        r->diag_ms = 0.0;
        return rc == -2 ? err_set(e, NULL, 0, 0, "out of memory") : 0;
    }
    for (size_t i = 0; i < r->n_tests; i++)
        grun_score(&r->tests[i]);
    grun_total(r);
    return 1;
}

int gk_copy(const char *from, const char *to, struct err *e)
{
    char path[UT_PATH_MAX], head[256];
    size_t len;
    char *buf;
    struct rd d;
    int rc, ok;

    if (snprintf(path, sizeof path, "%s/%s", to, GK_FILE) >= (int)sizeof path)
        return err_set(e, to, 0, 0, "path too long");
    if (bld_cache_copy(from, to, e) < 0)
        return -1;
    /* an old file goes first: never the verdicts of another submission */
    if (unlink(path) < 0 && errno != ENOENT)
        return err_set(e, path, 0, 0, "cannot remove: %s", strerror(errno));
    if ((buf = read_kept(from, &len)) == NULL)
        return 0;
    d.p = buf;
    d.end = buf + len;
    ok = line(&d, head, sizeof head) == 0 && strcmp(head, KEEP_TITLE) == 0 &&
         line(&d, head, sizeof head) == 0 && strncmp(head, "key ", 4) == 0 &&
         strlen(head) == 4 + SHA256_HEX_LEN - 1 &&
         strspn(head + 4, "0123456789abcdef") == SHA256_HEX_LEN - 1;
    /* the whole file: its sum line too, as read and checked */
    rc = ok ? ut_write_atomic(path, buf, len + SUM_LINE, 0, e) : 0;
    free(buf);
    return rc < 0 ? -1 : ok;
}
