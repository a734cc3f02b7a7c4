/*
 * batch.h -- grade a whole class: find the submissions, name them, shard
 * them, grade each in a forked worker, resume, and write the gradebook.
 *
 * Layout of an output directory (every file written atomically: a
 * temporary ".tmp-*" file in the same directory, fsync, rename):
 *   <out>/<id>/results.json   Gradescope schema, for the student
 *   <out>/<id>/feedback.md    the Markdown rubric, for the student: the
 *                             visible tests only, and the hidden tests' count
 *                             and points (rpt_opts.student_view)
 *   <out>/<id>/staff.md       the whole Markdown rubric, for the TA
 *   <out>/<id>/row.tsv        the machine row (written last: it commits)
 *   <out>/grades.csv          rebuilt from the row files (RFC 4180, CRLF)
 *   <out>/summary.md, summary.svg  (summary.h)
 *   <out>/manual.csv          the TA's manual scores (bat_manual_apply):
 *                             written once when absent, then only read
 * The row files carry no timing, so the gradebook rebuilt from them is
 * byte-identical whether it comes from one run, a resumed run or a merge.
 *
 * Library code: nothing here prints. What a TA must hear about (an entry
 * the --id-regex does not match, a duplicate id, a finished submission)
 * goes to the caller's callbacks.
 */
#ifndef GRD_BATCH_H
#define GRD_BATCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "assign/assign.h"
#include "core/err.h"
#include "spec/spec.h"
#include "core/strbuf.h"

#define BAT_ID_MAX 200          /* bytes of a student id */
#define BAT_PATH_MAX 4096
#define BAT_ROW_NAME "row.tsv"
#define BAT_MSG_MAX 1024        /* bytes of one failure message kept in a row */
#define BAT_MAX_ENTRIES 100000  /* entries of one batch */
#define BAT_SOURCE_MAX ((size_t)1 << 20)  /* the grader's limit on attention.c */
#define BAT_MANUAL_NAME "manual.csv"

/* ---- student ids ---- */

struct bat_idre;  /* a compiled --id-regex */

/*
 * Compile a PCRE2 pattern that must hold a named group `id`. Returns the
 * matcher (free with bat_idre_free), or NULL with `e` set (syntax error
 * with its offset, no group named 'id', out of memory).
 */
struct bat_idre *bat_idre_new(const char *pattern, struct err *e);

void bat_idre_free(struct bat_idre *re);  /* NULL is a no-op */

/*
 * Apply `re` to an entry name; on a match copy group `id` into out (size
 * n). Returns 1 matched, 0 no match (or the group did not take part, or
 * the id is longer than n - 1), -1 on a matching error (e set).
 */
int bat_idre_match(const struct bat_idre *re, const char *name, char *out,
                   size_t n, struct err *e);

/*
 * Whether `id` is an id as bat_id_make makes them: 1 to BAT_ID_MAX bytes of
 * [A-Za-z0-9._~-], starting with a letter, a digit or '_', no "..", not one
 * of the gradebook's own file names (BAT_RESERVED, any case). Returns 0 or
 * -1 with `e` set to the reason.
 */
int bat_id_check(const char *id, struct err *e);

/* The names of the gradebook's own files, which no id may take. */
#define BAT_RESERVED {"grades.csv", "summary.md", "summary.svg", "manual.csv", \
                      "report.html", "similarity.csv", "row.tsv", "results.json", \
                      "feedback.md", "staff.md"}

/* Bytes of a name kept as the id as it is; and of the readable part of a
 * hashed id (then '~' and BAT_ID_HASH hex digits of the name's SHA-256). */
#define BAT_ID_KEEP 128
#define BAT_ID_PART 100
#define BAT_ID_HASH 12

/*
 * The id of a folder or file name (or of an --id-regex group): `raw` itself
 * when it passes bat_id_check and is at most BAT_ID_KEEP bytes without '~';
 * otherwise its first BAT_ID_PART bytes with every run of other bytes
 * (spaces, controls, non-ASCII, '/', '~'...) as one '_' and a leading '.'
 * or '-' as '_', then '~' and the first BAT_ID_HASH hex digits of
 * SHA-256(raw). Distinct names give distinct ids (a kept name has no '~',
 * a made one always has), the same name always the same id, and no id
 * holds a byte a terminal, a CSV reader or a workflow runner acts on.
 * `out` holds at least BAT_ID_MAX + 1 bytes.
 */
void bat_id_make(const char *raw, char *out);

/*
 * `s` as text safe to show on any output (a terminal, a log a CI runner
 * reads, a CSV or Markdown cell): printable ASCII and valid UTF-8 kept;
 * '\\' doubled; C0 and C1 controls, DEL, invalid bytes and Unicode
 * format characters (bidi overrides and isolates, zero widths, line and
 * paragraph separators, the BOM) as \xNN or \u{NNNN}; a leading ':' as
 * \x3a (no "::" workflow command). Cut to fit n (at least 1) bytes.
 */
void bat_show(const char *s, char *out, size_t n);

/*
 * "dir/name" into out (size n) with the slashes that end `dir` dropped
 * ("class/" and "a" give "class/a"; "/" and "a" give "/a"). Returns 0, or
 * -1 when it does not fit (out then holds a cut path).
 */
int bat_path_join(const char *dir, const char *name, char *out, size_t n);

/* ---- entries ---- */

struct bat_entry {
    char *id;             /* owned */
    char *name;           /* the entry's name in the class folder (owned) */
    char *path;           /* what grade_submission() is given (owned) */
    char *source;         /* the attention.c hashed for resumption (owned) */
    /* NULL for a submission; else the row status of an entry that is not
     * graded but still gets a row: "missing" (a folder without
     * attention.c), "skipped" (its name does not match --id-regex) or
     * "rejected" (the entry or its attention.c is a symbolic link, not a
     * regular file, or larger than BAT_SOURCE_MAX: never read). */
    const char *absent;
    char *why;            /* absent's reason, for the row (owned; or NULL) */
};

/* A folder without attention.c that holds other .c files says so in its
 * reason: "...; found instead: Attention.c (rename your file to
 * attention.c, lower case)", as the Gradescope bundle tells a student. */
#define BAT_FOUND_INSTEAD "found instead: "
#define BAT_RENAME "rename your file to " ASG_SOURCE ", lower case"

struct bat_list {
    struct bat_entry *v;  /* sorted by id (bytewise) after bat_discover */
    size_t n, cap;
};

/* A line for the TA ("entry 'x' does not match --id-regex: skipped"). */
typedef void (*bat_note_fn)(void *ctx, const char *msg);

/*
 * Add the entries found in each directory of dirs[0..n): a submission is a
 * directory holding attention.c or a regular file ending in ".c"; entries
 * whose name starts with '.' are ignored silently. Entries are visited in
 * bytewise name order, directories in the order given. The id is
 * bat_id_make of the entry's name (minus ".c"), or of group `id` of `re`
 * when re is not NULL; the name is kept in bat_entry.name for the row.
 * Every entry is checked with lstat before anything reads it, and every
 * folder (and .c file, symbolic link, device or FIFO) of the class gets an
 * entry, so that it gets a row: one whose name does not match `re` is
 * "skipped" (its id made from its name), a folder without attention.c is
 * "missing", an entry that is a link or no regular file, or whose
 * attention.c is, or is larger than BAT_SOURCE_MAX, is "rejected" (see
 * bat_entry.absent; its reason in bat_entry.why). `note` (may be NULL)
 * hears of an entry left out: a stray regular file, or one whose id an
 * earlier entry took (two names giving one --id-regex group); names in
 * notes go through bat_show. On return the list is sorted by id. Returns
 * 0, or -1 with `e` set (unreadable directory, too many entries, out of
 * memory); the list then holds what was found before the failure.
 */
int bat_discover(const char *const *dirs, size_t n, const struct bat_idre *re,
                 struct bat_list *out, bat_note_fn note, void *ctx,
                 struct err *e) __attribute__((warn_unused_result));

/*
 * bat_discover, with Canvas's flattened download regrouped when `stage`
 * is not NULL: the regular files of a class folder named
 * "<login>_[LATE_]<user id>_<file id>_<file>" are one student's
 * submission per "<login>_[LATE_]<user id>_", copied (regular files of at
 * most BAT_SOURCE_MAX bytes, never through a link) into the folder
 * stage/<the prefix of its .c file> under their own names, a trailing
 * "-N" before the extension (Canvas's mark of a file uploaded again)
 * dropped and the highest N kept; that folder is then the entry, so
 * answers.yaml and the files it names arrive with attention.c. `stage`
 * is created when absent; each folder there is emptied and written again
 * on every call. Also, with or without a stage, a Moodle folder of a
 * plugin other than the files ("..._assignsubmission_onlinetext_") is
 * heard of through `note` and gets no row.
 */
int bat_discover_lms(const char *const *dirs, size_t n, const struct bat_idre *re,
                     const char *stage, struct bat_list *out, bat_note_fn note, void *ctx,
                     struct err *e) __attribute__((warn_unused_result));

void bat_list_release(struct bat_list *l);  /* free and empty; reusable */

void bat_entry_release(struct bat_entry *v);  /* free what it owns */

/*
 * The resume key of submission `v` into key (65 bytes): SHA-256 over every
 * file its grading reads: its source, the answers.yaml beside it and the
 * VECTORS files that names (vectors, part3.vectors). Each is read only
 * when lstat shows a regular file of at most BAT_SOURCE_MAX bytes (a named
 * file also inside the folder), opened with O_NOFOLLOW; any other enters
 * the key as its refusal (a symbolic link to /proc/self/pagemap costs an
 * lstat). source_sha gets the source's own SHA-256 (or its refusal).
 * Returns 0, or -1 when out of memory.
 */
int bat_inputs_key(const struct bat_entry *v, char key[65], char source_sha[65])
    __attribute__((warn_unused_result));

/* ---- sharding ---- */

/*
 * Parse "K/N" with 1 <= K <= N <= 10000. Returns 0 or -1 (e set).
 */
int bat_shard_parse(const char *s, unsigned *k, unsigned *n, struct err *e);

/*
 * The shard (1..n) that owns `id`: 1 + FNV-1a-64(id bytes) mod n. Depends
 * on the id alone, so a student stays in the same shard when others are
 * added or removed.
 */
unsigned bat_shard_of(const char *id, unsigned n);

/* Keep only the entries of shard k of n (order kept). */
void bat_list_shard(struct bat_list *l, unsigned k, unsigned n);

/* ---- rows: one graded submission, as plain data ---- */

struct bat_test_row {
    char *id;             /* test id (owned) */
    char status[24];      /* grade_test_status_name() */
    double score, max_score;
    char *message;        /* first BAT_MSG_MAX bytes of the failure (owned) */
};

struct bat_row {
    char *id;                   /* owned */
    char status[24];            /* grade_status_name(): ok, compile_error... */
    double score, max_score;
    char grader_version[32];
    char spec_sha256[65];
    char submission_sha256[65];
    uint64_t seed;
    char *detail;               /* compile error etc., capped (owned) */
    struct bat_test_row *tests; /* in spec order (owned) */
    size_t n_tests;
    char *name;                 /* the entry's name in the class folder as
                                   bat_show shows it (owned; NULL: the id) */
    char inputs_sha256[65];     /* bat_inputs_key: what resuming compares */
};

struct grade_result;

/*
 * Fill `row` from a grading result. Returns 0, or -1 with `e` set (out of
 * memory; row is then released).
 */
int bat_row_from_result(const struct grade_result *r, const char *id,
                        const char *version, struct bat_row *row,
                        struct err *e) __attribute__((warn_unused_result));

/*
 * Fill `row` for a submission the grader could not grade: status "error",
 * zero score, `why` as detail, and every test of `specs` (may be NULL)
 * not_run with zero points. Returns 0 or -1 (e set; row released).
 */
int bat_row_error(const char *id, const char *sub_sha256, const char *spec_sha,
                  const struct spec_set *specs, const char *version,
                  uint64_t seed, const char *why, struct bat_row *row,
                  struct err *e) __attribute__((warn_unused_result));

/* Free what the row owns and zero it. */
void bat_row_release(struct bat_row *row);

/* Append the row's text form (tab-separated lines, escaped; no timing).
 * Returns 0 or -1 (the buffer's cap was hit). */
int bat_row_format(const struct bat_row *row, struct sb *out)
    __attribute__((warn_unused_result));

/* Parse a row's text form. Returns 0, or -1 with `e` set (row released). */
int bat_row_parse(const char *buf, size_t n, struct bat_row *row,
                  struct err *e) __attribute__((warn_unused_result));

/* Read and parse <dir>/row.tsv. Returns 0, -1 with `e` set. */
int bat_row_load(const char *dir, struct bat_row *row, struct err *e)
    __attribute__((warn_unused_result));

/* ---- the gradebook ---- */

/*
 * Append one RFC 4180 field: quoted (with '"' doubled) when it holds a
 * comma, a quote, CR or LF, or starts or ends with a space; as is
 * otherwise. Returns 0 or -1 (cap).
 */
int bat_csv_field(struct sb *sb, const char *s)
    __attribute__((warn_unused_result));

/* The first characters that make a spreadsheet read a cell as a formula
 * (or, for tab and CR, that Excel strips before it does). */
#define BAT_CSV_FORMULA_LEAD "=+-@\t\r"

/*
 * bat_csv_field() for a text cell that a spreadsheet will open: a value
 * starting with one of BAT_CSV_FORMULA_LEAD gets a leading apostrophe
 * ("=1+1" becomes "'=1+1"), so that Excel, LibreOffice and Google Sheets
 * show it as text instead of running it (OWASP's CSV injection advice).
 * Readers of the gradebook drop that apostrophe again (bat_csv_untext).
 * Returns 0 or -1 (cap).
 */
int bat_csv_text(struct sb *sb, const char *s)
    __attribute__((warn_unused_result));

/*
 * Append grades.csv: the header `id,score,max_score,status,<test ids>,
 * grader_version,spec_sha256,submission_sha256,note,name`, then one row per
 * entry of rows[0..n) in bytewise id order (rows itself is not reordered).
 * Points are formatted with at most four decimals; a test a row lacks is
 * 0; a manual item not yet scored is blank. `note` says in one line why
 * a row is not ok (its detail's first line; a compile error's first
 * "error:" line), and is empty for an ok row; `name` is the entry's name as the row keeps it
 * (bat_show). The id, the note and the name go through bat_csv_text
 * (formulas neutralised).
 * Lines end in CRLF. Returns 0 or -1 (cap or out of memory).
 */
int bat_csv_write(const char *const *test_ids, size_t n_tests,
                  const struct bat_row *rows, size_t n, struct sb *out)
    __attribute__((warn_unused_result));

/*
 * Write n bytes to `path` atomically: a temporary file "<dir>/.tmp-<name>
 * -XXXXXX" in the same directory, fsync, rename over `path`, fsync of the
 * directory. Returns 0, or -1 with `e` set; the temporary file is then
 * removed and `path` is untouched.
 */
int bat_write_atomic(const char *path, const void *data, size_t n,
                     struct err *e) __attribute__((warn_unused_result));

/* Remove the leftover temporary files (".tmp-*") in `dir`. Returns the
 * number removed. */
size_t bat_remove_temps(const char *dir);

/* What bat_finish, bat_merge and bat_run return when the gradebook was
 * written but report.html was not (e says why). */
#define BAT_NO_PAGE 2

/*
 * Rebuild <out>/grades.csv, summary.md and summary.svg from the row files
 * of ids[0..n) (every one must exist) and the TA's <out>/manual.csv
 * (bat_manual_apply), then report.html (html.h) from them and the files
 * beside them: the gradebook never waits for the page, nor for
 * similarity.csv. The columns are `test_ids` when not NULL, else the
 * first row's tests (by id order). Returns 0; BAT_NO_PAGE with `e` set
 * when the gradebook was written but the page could not be (out of memory,
 * a write failure: a report.html from before is removed, so none older
 * than grades.csv is left); or -1 with `e` set (a missing or unreadable
 * row, rows from different specs, a bad manual.csv, a write failure of
 * the gradebook), the gradebook's files then left as they were.
 */
int bat_finish(const char *out_dir, const char *const *ids, size_t n,
               const char *const *test_ids, size_t n_tests, struct err *e)
    __attribute__((warn_unused_result));

/* ---- the TA's manual scores ---- */

/*
 * <out_dir>/manual.csv holds the TA's scores of the manual items (tests
 * of property "manual"): RFC 4180, a header `id,<item id>...` (columns
 * `name` and `comment` are allowed and ignored), one row per student, a
 * score from 0 to the item's points or a blank cell for one not scored.
 * The grader writes it once, when absent and the specs have manual items
 * (every id, its name, blank cells), and never again.
 */

/*
 * Check <out_dir>/manual.csv (absent: fine) against the manual items of
 * `specs`: an id column, every other column an item (or ignored), every
 * id once, every score a number in range. Returns 0, or -1 with `e` set to
 * "<path>:line:col: ..." (the file untouched).
 */
int bat_manual_check(const char *out_dir, const struct spec_set *specs, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Add the scores of <out_dir>/manual.csv to rows[0..n): each scored item
 * of a row gets status "manual_scored", its points, and its row's score
 * grows by them. The manual items are the tests pending in some row. An
 * absent file is written (see above) when there are items. Returns 0, or
 * -1 with `e` set as bat_manual_check, or for an id with no row (rows may
 * then be partly scored; the file is never changed).
 */
int bat_manual_apply(const char *out_dir, struct bat_row *rows, size_t n, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Add the scores of <out_dir>/manual.csv to the one row `row` (an id of
 * the file with no row is passed over; an absent or bad file leaves the
 * row as it is: bat_manual_check says what is wrong). For the progress
 * line of a submission that is up to date. Returns 0, or -1 when out of
 * memory.
 */
int bat_manual_row(const char *out_dir, struct bat_row *row);

/*
 * Make <out_dir>/<id>/staff.md and feedback.md of rows[0..n) (after
 * bat_manual_apply) say what grades.csv says: each manual item's row of
 * the rubric shows the TA's points ("| MANUAL | 5.0/6.0 |", or "-/6.0"
 * while it is not scored) and the score line counts them. A file whose
 * text does not change is not written. Returns 0, or -1 with `e` set.
 */
int bat_manual_rubrics(const char *out_dir, const struct bat_row *rows, size_t n,
                       struct err *e) __attribute__((warn_unused_result));

/* ---- running ---- */

/* What happened to one entry, for progress lines. */
struct bat_event {
    const char *id;
    const char *status;     /* grade status, or "up to date" when skipped */
    double score, max_score;
    double elapsed_ms;      /* 0 when skipped */
    int skipped;            /* resumed: already graded */
    size_t done, total;     /* entries finished (graded or skipped) */
    size_t failures;        /* rows whose status is not ok */
    const char *why;        /* for status error: the reason; else NULL */
    int object_reused;      /* graded with its kept object: no compile
                               (build/objcache.h, bat_opts.no_cache) */
    int verdicts_reused;    /* graded with its kept verdicts: no test ran
                               (grade/grade_keep.h, bat_opts.no_cache) */
};

typedef void (*bat_event_fn)(void *ctx, const struct bat_event *ev);

struct bat_opts {
    const struct spec_set *specs;
    const char *out_dir;       /* created when missing */
    const char *data_dir;      /* see grade_opts.data_dir */
    const char *version;       /* the grader's version, recorded per row */
    uint64_t seed;
    unsigned jobs;             /* workers at once; 0: the usable CPUs
                                  (ut_usable_cpus) */
    int force;                 /* regrade even when up to date */
    double worker_timeout_ms;  /* hard limit per worker; 0: 180 s */
    double budget_ms;          /* grade_opts.budget_ms; 0: its default */
    bat_event_fn on_event;     /* may be NULL */
    void *ctx;
    /* Set by the caller's SIGINT/SIGTERM handler (may be NULL): stop
     * launching, kill the workers, remove their temporary files. */
    const volatile sig_atomic_t *stop;
    unsigned test_jobs;        /* grade_opts.lanes of each submission; 0: 1
                                  when more than one worker runs (the CPUs
                                  are theirs), else grade_opts' default */
    struct orc *orc;           /* grade_opts.orc: golden data, or the
                                  diagnosis data (staff); NULL: none */
    /* 0: each submission's compiled object is kept in <out>/<id>/ and a
     * regrade whose compile would see the same inputs (source, compiler,
     * flags, header, source rules, grader version) reuses it instead of
     * compiling (build/objcache.h); so are its verdicts, which a regrade
     * whose tests would run exactly as before (everything but points)
     * scores afresh instead of running them (grade/grade_keep.h); 1: every
     * grade compiles and runs every test. */
    int no_cache;
};

/*
 * Grade every entry of `l` into o->out_dir: first check the TA's
 * manual.csv (bat_manual_check: a bad one stops the batch before any
 * grading), then skip the entries whose row records the same resume key
 * (bat_inputs_key), spec hash, grader version and seed and a status
 * other than error (unless o->force), keep o->jobs forked
 * workers busy (each in its own process group, its own scratch
 * directory), turn a worker that dies or overruns into an "error" row,
 * then write the gradebook and summary for the entries of `l`.
 * Returns 0 when the batch completed (whatever the scores), 1 when *stop
 * was set (workers killed, no gradebook written, only complete files
 * left), BAT_NO_PAGE when it completed and wrote the gradebook but not
 * report.html (bat_finish; `e` says why), -1 with `e` set on an error of
 * the batch itself.
 */
int bat_run(const struct bat_list *l, const struct bat_opts *o, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Combine the id directories of dirs[0..n) (shard outputs) into out_dir
 * (created when missing; it may be one of the inputs) and rebuild the
 * gradebook and summary, identical to a single run over the same class.
 * An id present in two inputs is an error. Returns 0, BAT_NO_PAGE as
 * bat_finish, or -1 with `e` set.
 */
int bat_merge(const char *out_dir, const char *const *dirs, size_t n,
              struct err *e) __attribute__((warn_unused_result));

/* The CPUs this process may use (ut_usable_cpus), 1 to 256. */
unsigned bat_default_jobs(void);

#endif
