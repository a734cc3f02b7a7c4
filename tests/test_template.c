/*
 * test_template.c -- the Classroom template and the CI formats, end to end:
 *   - `make template`, made a git repository and cloned, then `make check`,
 *     `make check-written` and the CI files' steps in the clone, and
 *     nothing of the reference in it (tests/template.sh);
 *   - the student README's example outputs are the reference's
 *     (tests/readme_examples.py);
 *   - the real build/grader's classroom, JUnit and TAP output on a full, a
 *     partial and a zero submission;
 *   - the workflow (grader/template/grade.yml, plain GitHub Actions) and the
 *     GitLab example (docs/gitlab-ci.example.yml) parse and are wired as
 *     Actions and GitLab expect (summary, annotations, JUnit report).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>

#include "support/b64_decode.h"
#include "support/json_read.h"
#include "core/strbuf.h"

#ifndef TEST_SRCDIR
#define TEST_SRCDIR "."
#endif
#ifndef TEST_BUILDDIR
#define TEST_BUILDDIR "build"
#endif

#define READ_CAP (4u << 20)

/* One graded submission and what its rubric must say. */
struct sub {
    const char *name;
    const char *path;
    const char *status;    /* the classroom result's overall status */
};

static const struct sub subs[] = {
    {"full", TEST_SRCDIR "/reference/attention.c", "pass"},
    /* a value test with partial credit: pe.formula passes 3 of 5 cases */
    {"partial", TEST_CATDIR "/submissions/pe_odd_d_cos.c", "fail"},
    {"zero", TEST_SRCDIR "/student_template/attention.c", "fail"},
};
#define N_SUBS (sizeof subs / sizeof subs[0])

/* ---- helpers ---- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(READ_CAP + 1);
    size_t n = 0;

    cr_assert_not_null(f, "cannot open '%s'", path);
    cr_assert_not_null(buf);
    n = fread(buf, 1, READ_CAP, f);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static char *make_tmpdir(void)
{
    char *d = strdup("/tmp/test-template.XXXXXX");

    cr_assert_not_null(mkdtemp(d));
    return d;
}

static void remove_tree(char *dir)
{
    char *cmd = NULL;

    cr_assert(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
    cr_expect_eq(system(cmd), 0);
    free(cmd);
    free(dir);
}

/* Exit status of sh -c cmd (-1 when it did not exit). */
static int shell(const char *cmd)
{
    int st = system(cmd);

    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Run the real grader on subs[i] with `--format fmt` (and --github-output
 * into dir/gh_output) and return its stdout; *rc gets its exit status.
 */
static char *grade(const char *dir, size_t i, const char *fmt, int *rc)
{
    char *cmd = NULL, *out = NULL, *text;

    cr_assert(asprintf(&out, "%s/%s.%s", dir, subs[i].name, fmt) > 0);
    cr_assert(asprintf(&cmd, "GITHUB_OUTPUT='%s/gh_output' '%s/grader' grade "
                       "--format %s --github-output --spec '%s/specs/public.yaml' "
                       "'%s' >'%s' 2>/dev/null", dir, TEST_BUILDDIR, fmt,
                       TEST_SRCDIR, subs[i].path, out) > 0);
    *rc = shell(cmd);
    text = read_all(out, NULL);
    free(cmd);
    free(out);
    return text;
}

/* The rubric's "score: X / Y" line (the last one: the summary). */
static void text_score(const char *text, double *score, double *max)
{
    const char *p = text, *last = NULL;

    while ((p = strstr(p, "\nscore: ")) != NULL)
        last = ++p;
    cr_assert_not_null(last, "no 'score:' line in:\n%s", text);
    cr_assert_eq(sscanf(last, "score: %lf / %lf", score, max), 2);
}

/* Run `INTERP 'SRCDIR/tests/SCRIPT' 'SRCDIR' 'BUILDDIR'`; its exit status in
 * *rc and its output (stdout and stderr), which the caller frees. */
static char *run_script(const char *interp, const char *script, int *rc)
{
    char *dir = make_tmpdir(), *log = NULL, *cmd = NULL, *text;

    cr_assert(asprintf(&log, "%s/script.log", dir) > 0);
    cr_assert(asprintf(&cmd, "%s '%s/tests/%s' '%s' '%s' >'%s' 2>&1", interp, TEST_SRCDIR,
                       script, TEST_SRCDIR, TEST_BUILDDIR, log) > 0);
    *rc = shell(cmd);
    text = read_all(log, NULL);
    free(cmd);
    free(log);
    remove_tree(dir);
    return text;
}

/* ---- the student README's examples: what the reference prints ---- */

Test(template, readme_examples_are_the_references_output)
{
    int rc;
    char *text = run_script("python3", "readme_examples.py", &rc);

    cr_expect_eq(rc, 0, "student_template/README.md's examples are stale (make "
                 "readme-examples rewrites them):\n%s", text);
    free(text);
}

/* ---- tests/template.sh: make template, git, a clone, make check there ---- */

Test(template, standalone_repository_grades_itself_without_the_reference)
{
    int rc;
    char *text = run_script("sh", "template.sh", &rc);

    cr_expect_eq(rc, 0, "tests/template.sh failed (%d):\n%s", rc, text);
    cr_expect(strstr(text, "template: all checks passed") != NULL, "%s", text);
    free(text);
}

/* ---- classroom: decodes, sums to the rubric, right statuses ---- */

static const struct json_value *member(const struct json_value *o,
                                       const char *key, enum json_type type)
{
    const struct json_value *v = json_get(o, key);

    cr_assert_not_null(v, "no '%s'", key);
    cr_assert_eq(v->type, type, "'%s' has JSON type %d", key, (int)v->type);
    return v;
}

/* Every test object as the reporter reads it; returns the sum of scores. */
static double check_tests(const struct json_value *tests, const char *name)
{
    static const char *const strs[] = {"name", "status", "message", "test_code",
                                       "filename"};
    double sum = 0;

    cr_assert(tests->n > 0, "%s: no tests", name);
    for (size_t i = 0; i < tests->n; i++) {
        const struct json_value *t = json_at(tests, i);
        const char *st = member(t, "status", JSON_STR)->str;

        for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
            member(t, strs[k], JSON_STR);
        member(t, "line_no", JSON_NUM);
        member(t, "duration", JSON_NUM);
        cr_expect(!strcmp(st, "pass") || !strcmp(st, "fail") || !strcmp(st, "error"),
                  "%s: test status '%s'", name, st);
        cr_expect(member(t, "score", JSON_NUM)->num >= 0);
        sum += member(t, "score", JSON_NUM)->num;
    }
    return sum;
}

/* A failing test that still earned points: partial credit reached JSON. */
static int has_partial_credit(const struct json_value *tests)
{
    for (size_t i = 0; i < tests->n; i++) {
        const struct json_value *t = json_at(tests, i);
        if (strcmp(json_get(t, "status")->str, "pass") != 0 &&
            json_get(t, "score")->num > 0)
            return 1;
    }
    return 0;
}

static struct json_value *decode(const char *b64, const char *name)
{
    struct sb sb;
    struct err e;
    struct json_value *v;
    size_t n = strcspn(b64, "\n");

    err_clear(&e);
    sb_init(&sb, 0);
    cr_assert_eq(b64_decode(&sb, b64, n, &e), 0, "%s: not base64: %s", name, e.msg);
    v = json_parse(sb_str(&sb), sb.len, &e);
    cr_assert_not_null(v, "%s: not JSON: %s\n%s", name, e.msg, sb_str(&sb));
    sb_release(&sb);
    return v;
}

static void check_classroom(const char *dir, size_t i)
{
    int rc;
    char *text = grade(dir, i, "text", &rc);
    char *b64 = grade(dir, i, "classroom", &rc);
    char *gh = NULL, *ghout = NULL;
    double score, max, sum;
    struct json_value *v = decode(b64, subs[i].name);

    text_score(text, &score, &max);
    cr_expect_eq(rc, 0, "%s: grader exit %d", subs[i].name, rc);
    cr_expect_eq(member(v, "version", JSON_NUM)->num, 1);
    cr_expect_str_eq(member(v, "status", JSON_STR)->str, subs[i].status, "%s", subs[i].name);
    cr_expect_eq(member(v, "max_score", JSON_NUM)->num, max, "%s", subs[i].name);
    sum = check_tests(member(v, "tests", JSON_ARR), subs[i].name);
    cr_expect(sum > score - 1e-3 && sum < score + 1e-3,
              "%s: tests sum to %g, the rubric says %g", subs[i].name, sum, score);
    if (!strcmp(subs[i].name, "full"))
        cr_expect(score == max && max > 0, "full: %g / %g", score, max);
    if (!strcmp(subs[i].name, "zero"))
        cr_expect_eq(score, 0);
    if (!strcmp(subs[i].name, "partial"))
        cr_expect(score > 0 && score < max && has_partial_credit(json_get(v, "tests")),
                  "partial: %g / %g without a partly credited test", score, max);
    cr_assert(asprintf(&gh, "%s/gh_output", dir) > 0);
    ghout = read_all(gh, NULL);
    free(gh);
    cr_assert(asprintf(&gh, "result=%.*s\n", (int)strcspn(b64, "\n"), b64) > 0);
    cr_expect(strstr(ghout, gh) != NULL, "%s: $GITHUB_OUTPUT lacks the result", subs[i].name);
    json_free(v);
    free(gh);
    free(ghout);
    free(b64);
    free(text);
}

Test(formats_e2e, classroom_decodes_sums_to_the_rubric_with_right_status)
{
    for (size_t i = 0; i < N_SUBS; i++) {
        char *dir = make_tmpdir();
        check_classroom(dir, i);
        remove_tree(dir);
    }
}

/* ---- JUnit and TAP of the real binary ---- */

Test(formats_e2e, junit_of_the_real_grader_validates_against_the_schema)
{
    char *dir = make_tmpdir();

    for (size_t i = 0; i < N_SUBS; i++) {
        int rc;
        char *xml = grade(dir, i, "junit", &rc), *cmd = NULL;

        cr_expect_eq(rc, 0);
        cr_assert(asprintf(&cmd, "xmllint --noout --schema '%s/tests/junit-10.xsd' "
                           "'%s/%s.junit' >/dev/null 2>&1", TEST_SRCDIR, dir,
                           subs[i].name) > 0);
        cr_expect_eq(shell(cmd), 0, "%s: xmllint refuses:\n%.2000s", subs[i].name, xml);
        cr_expect(strstr(xml, "<testsuites") != NULL);
        free(cmd);
        free(xml);
    }
    remove_tree(dir);
}

Test(formats_e2e, tap_of_the_real_grader_is_accepted_by_prove)
{
    char *dir = make_tmpdir();

    for (size_t i = 0; i < N_SUBS; i++) {
        int rc;
        char *tap = grade(dir, i, "tap", &rc), *cmd = NULL, *log;

        cr_assert(asprintf(&cmd, "prove --exec cat '%s/%s.tap' >'%s/prove.log' 2>&1",
                           dir, subs[i].name, dir) > 0);
        rc = shell(cmd);
        free(cmd);
        cr_assert(asprintf(&cmd, "%s/prove.log", dir) > 0);
        log = read_all(cmd, NULL);
        cr_expect_eq(rc == 0, !strcmp(subs[i].status, "pass"),
                     "%s: prove exit %d:\n%s", subs[i].name, rc, log);
        cr_expect_null(strstr(log, "Parse errors"), "%s: %s", subs[i].name, log);
        cr_expect(strncmp(tap, "TAP version 13\n", 15) == 0, "%.200s", tap);
        free(log);
        free(cmd);
        free(tap);
    }
    remove_tree(dir);
}

/* ---- the workflow and the GitLab example, read with libyaml ---- */

static yaml_document_t *load_yaml(const char *rel)
{
    char *path = NULL, *text;
    size_t n;
    yaml_parser_t p;
    yaml_document_t *doc = calloc(1, sizeof *doc);

    cr_assert(asprintf(&path, "%s/%s", TEST_SRCDIR, rel) > 0);
    text = read_all(path, &n);
    cr_assert(yaml_parser_initialize(&p));
    yaml_parser_set_input_string(&p, (const unsigned char *)text, n);
    cr_assert(yaml_parser_load(&p, doc), "%s:%zu:%zu: %s", rel,
              p.problem_mark.line + 1, p.problem_mark.column + 1,
              p.problem ? p.problem : "not YAML");
    cr_assert_not_null(yaml_document_get_root_node(doc), "%s is empty", rel);
    yaml_parser_delete(&p);
    free(text);
    free(path);
    return doc;
}

static void free_yaml(yaml_document_t *doc)
{
    yaml_document_delete(doc);
    free(doc);
}

/* The text of a scalar node, or NULL. */
static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of `key` in mapping m, or NULL. */
static yaml_node_t *get(yaml_document_t *d, const yaml_node_t *m, const char *key)
{
    if (m == NULL || m->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(d, p->key));
        if (k && strcmp(k, key) == 0)
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

static size_t seq_len(const yaml_node_t *s)
{
    return s && s->type == YAML_SEQUENCE_NODE
               ? (size_t)(s->data.sequence.items.top - s->data.sequence.items.start) : 0;
}

static yaml_node_t *seq_at(yaml_document_t *d, const yaml_node_t *s, size_t i)
{
    return yaml_document_get_node(d, s->data.sequence.items.start[i]);
}

/* Index of the first step whose `key` contains `needle`; n when none. */
static size_t find_step(yaml_document_t *d, const yaml_node_t *steps,
                        const char *key, const char *needle)
{
    size_t i, n = seq_len(steps);

    for (i = 0; i < n; i++) {
        const char *v = scalar(get(d, seq_at(d, steps, i), key));
        if (v && strstr(v, needle))
            break;
    }
    return i;
}

/* Whether any step of `steps` has `key` containing `needle`. */
static int any_step(yaml_document_t *d, const yaml_node_t *steps,
                    const char *key, const char *needle)
{
    return find_step(d, steps, key, needle) < seq_len(steps);
}

Test(workflow, grade_yml_summarises_annotates_and_fails_on_plain_actions)
{
    yaml_document_t *d = load_yaml("grader/template/grade.yml");
    yaml_node_t *root = yaml_document_get_root_node(d);
    yaml_node_t *job = get(d, get(d, root, "jobs"), "grade");
    yaml_node_t *steps = get(d, job, "steps"), *on = get(d, root, "on");
    size_t n = seq_len(steps), build, summary, grade, i;
    int push = 0;

    cr_assert_not_null(job, "no job 'grade'");
    for (i = 0; i < seq_len(on); i++)
        push |= scalar(seq_at(d, on, i)) && !strcmp(scalar(seq_at(d, on, i)), "push");
    cr_expect(push, "the workflow does not run on push");
    cr_expect_str_eq(scalar(get(d, get(d, root, "permissions"), "contents")), "read");
    cr_expect(any_step(d, steps, "uses", "actions/checkout@"));
    cr_expect(any_step(d, steps, "run", "apt-get install"));
    /* the retired Classroom reporter and its result format are gone */
    cr_expect(!any_step(d, steps, "uses", "classroom-resources/"));
    cr_expect(!any_step(d, steps, "run", "--format classroom"));
    build = find_step(d, steps, "run", "make --no-print-directory grader");
    summary = find_step(d, steps, "run", "--format markdown");
    grade = find_step(d, steps, "run", "check CHECK_FLAGS=\"--format github\"");
    cr_assert(build < summary && summary < grade && grade < n,
              "expected: build, rubric into the summary, grade (%zu %zu %zu of %zu)",
              build, summary, grade, n);
    cr_expect(strstr(scalar(get(d, seq_at(d, steps, summary), "run")),
                     ">> \"$GITHUB_STEP_SUMMARY\"") != NULL);
    cr_expect_null(get(d, seq_at(d, steps, grade), "continue-on-error"),
                   "a failing test must fail the job");
    free_yaml(d);
}

Test(workflow, grade_yml_never_takes_classroom50s_reserved_name)
{
    /* Classroom 50 writes its caller to .github/workflows/autograde.yaml */
    char *mk = NULL, *text;

    cr_assert(asprintf(&mk, "%s/grader/template.mk", TEST_SRCDIR) > 0);
    text = read_all(mk, NULL);
    cr_expect_not_null(strstr(text, "/.github/workflows/grade.yml'"));
    cr_expect_null(strstr(text, "workflows/autograde."));
    free(text);
    free(mk);
}

Test(workflow, gitlab_example_publishes_the_junit_report)
{
    yaml_document_t *d = load_yaml("docs/gitlab-ci.example.yml");
    yaml_node_t *job = get(d, yaml_document_get_root_node(d), "grade");
    yaml_node_t *script = get(d, job, "script");
    const char *report = scalar(get(d, get(d, get(d, job, "artifacts"), "reports"), "junit"));
    int junit_run = 0, rubric_run = 0;

    cr_assert_not_null(job, "no job 'grade'");
    cr_assert_not_null(report, "no artifacts:reports:junit");
    for (size_t i = 0; i < seq_len(script); i++) {
        const char *line = scalar(seq_at(d, script, i));
        junit_run |= line && strstr(line, "--format junit") && strstr(line, report);
    }
    cr_expect(junit_run, "no script line writes --format junit into '%s'", report);
    for (size_t i = 0; i < seq_len(script); i++) {
        const char *line = scalar(seq_at(d, script, i));
        rubric_run |= line && strstr(line, "make --no-print-directory check") != NULL;
    }
    cr_expect(rubric_run, "no script line prints the rubric in the job log");
    cr_expect_str_eq(scalar(get(d, get(d, job, "artifacts"), "when")), "always");
    free_yaml(d);
}
