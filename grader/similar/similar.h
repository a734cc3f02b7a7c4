/*
 * similar.h -- similarity across a class: which submissions share code
 * beyond what the assignment gives everyone (docs/TA.md, docs/DESIGN.md).
 *
 * Each file is read as the compiler's first phases read it (src_blank:
 * trigraphs, splices, digraphs, comments and literal contents gone), then
 * cut into tokens where every identifier is one token kind and every
 * literal another, and preprocessor lines are left out. So layout,
 * comments, names and literal values do not change the token string, and
 * statements of the same shape read the same in any order.
 *
 * Matching is winnowing (Schleimer, Wilkerson, Aiken 2003, as MOSS does
 * it): hashes of the k-grams of tokens, the minimum of each window of w
 * kept as the file's fingerprints. Two files sharing a fingerprint share
 * a run of at least k tokens; each shared fingerprint seeds a match that
 * is extended both ways over equal tokens. The matches of a pair are then
 * tiled longest first, each token of either file used once, so code that
 * repeats (the same loop ten times) is not counted ten times. The order
 * of the functions does not matter: every match stands alone.
 *
 * Base code is subtracted: a token covered by any k-gram of a base file
 * (the template, the header, the argument checks the API forces) never
 * counts and never matches, and is left out of the file's size.
 *
 * A pair's shares: the tokens of each file inside its tiles over the
 * file's tokens that are not base. Its score is the larger share (a
 * copy padded with extra code still shows on the side it came from).
 *
 * Archive files are compared with the class but not with each other.
 */
#ifndef GRD_SIMILAR_H
#define GRD_SIMILAR_H

#include <stddef.h>

#include "core/err.h"
#include "core/strbuf.h"

#define SIM_DEFAULT_K 20         /* tokens in a k-gram: the noise threshold */
#define SIM_DEFAULT_WINDOW 8     /* k-grams in a winnowing window */
#define SIM_DEFAULT_THRESHOLD 0.5
#define SIM_MAX_FILES 10000
#define SIM_MAX_TOKENS 200000    /* tokens read of one file; the rest ignored */
#define SIM_MAX_THREADS 16
#define SIM_MAX_REPEAT 16        /* fingerprints of one hash kept per file */

struct sim_opts {
    size_t k;            /* 0: SIM_DEFAULT_K */
    size_t window;       /* 0: SIM_DEFAULT_WINDOW */
    double threshold;    /* pairs whose score is at least this (0 to 1) */
    unsigned threads;    /* files compared at once, 1 to SIM_MAX_THREADS (0: 1);
                            the report is the same for any number */
};

/* A region of a pair: 1-based inclusive line ranges in both files. */
struct sim_region {
    unsigned a_first, a_last, b_first, b_last;
    size_t tokens;
};

struct sim_pair {
    const char *id_a, *id_b;   /* owned by the class; id_a is never archive
                                  unless both are class members */
    double share_a, share_b, score;
    size_t matched;            /* tokens of a in the tiles (= of b) */
    size_t file_a, file_b;     /* the files' places in the order added */
    struct sim_region *regions;  /* longest first (owned) */
    size_t n_regions;
};

struct sim_report {
    struct sim_pair *pairs;    /* best score first, then most tokens, then ids
                                  bytewise, then the order the files were added */
    size_t n;
    size_t n_files, n_archive; /* what was compared */
    double threshold;
};

struct sim_class;  /* the files to compare, and the base */

/* A new, empty class (o may be NULL: the defaults). NULL when out of
 * memory. Free with sim_class_free. */
struct sim_class *sim_class_new(const struct sim_opts *o);

void sim_class_free(struct sim_class *c);  /* NULL is a no-op */

/*
 * Add base code src[0..len). Returns 0, or -1 with `e` set (out of
 * memory); the class is then unchanged.
 */
int sim_add_base(struct sim_class *c, const char *src, size_t len, struct err *e)
    __attribute__((warn_unused_result));

/*
 * Add a file to compare under `id` (copied); `archive` non-zero for a
 * member of an archive. Returns 0, or -1 with `e` set (too many files,
 * out of memory); the class is then unchanged.
 */
int sim_add(struct sim_class *c, const char *id, const char *src, size_t len, int archive,
            struct err *e) __attribute__((warn_unused_result));

/*
 * Read `path` (a regular file of at most SRC_MAX_BYTES, not followed
 * when it is a symbolic link) and sim_add_base it (id NULL) or sim_add
 * it. Returns 0, or -1 with `e` set (unreadable, not a regular file, too
 * large, out of memory).
 */
int sim_add_file(struct sim_class *c, const char *id, const char *path, int archive,
                 struct err *e) __attribute__((warn_unused_result));

/*
 * Compare every pair (but archive with archive) and fill `r` with the
 * pairs whose score is at least the class's threshold and that share at
 * least one tile. Returns 0, or -1 with `e` set (out of memory; r then
 * empty). Release r with sim_report_release; the ids in r belong to the
 * class, which must outlive it. The class may be compared again (after
 * more files or base); each call starts over.
 */
int sim_compare(struct sim_class *c, struct sim_report *r, struct err *e)
    __attribute__((warn_unused_result));

void sim_report_release(struct sim_report *r);  /* frees and zeroes */

/* ---- output (sim_format.c) ---- */

enum sim_format { SIM_TEXT, SIM_CSV, SIM_JSON };

/* "text", "csv" or "json" into *f. Returns 0, or -1 for another name. */
int sim_format_parse(const char *name, enum sim_format *f);

/*
 * Append the report in format f. Ids are hostile (folder names): in text
 * every control byte shows as '?'; in CSV each id goes through
 * bat_csv_text (quoted, formula-leading cells neutralised); JSON escapes.
 * CSV columns: id_a,id_b,share_a,share_b,matched_tokens,regions; shares
 * with four decimals; regions `a_first-a_last:b_first-b_last` joined by
 * ';', longest first; lines end in CRLF (as grades.csv). Text and JSON
 * show a region's tokens too. Returns 0 or -1 (the buffer's cap).
 */
int sim_format_report(const struct sim_report *r, enum sim_format f, struct sb *out)
    __attribute__((warn_unused_result));

/*
 * Append the Markdown section the batch adds to summary.md: the number
 * of pairs at the threshold and a table of the first `max_rows` of them
 * (ids as inline code, with '`' and control bytes neutralised), pointing
 * at similarity.csv for the regions. Returns 0 or -1 (cap).
 */
int sim_format_summary(const struct sim_report *r, size_t max_rows, struct sb *out)
    __attribute__((warn_unused_result));

#endif
