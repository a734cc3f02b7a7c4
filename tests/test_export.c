/*
 * test_export.c -- the gradebook for spreadsheets and LMSs (batch/export.h):
 * formulas in ids neutralised in grades.csv, the CSV reader, Canvas's and
 * Moodle's import layouts from grades.csv and a roster, the byte-order mark,
 * `grader export` end to end, and the feedback exports (Moodle's zip,
 * Canvas's bulk comments) read back by tests/lms_feedback.py as the LMS
 * reads them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch/batch.h"
#include "batch/export.h"
#include "core/zip.h"

#ifndef TEST_BUILDDIR
#define TEST_BUILDDIR "build"
#endif

/* A grades.csv as `grader batch` writes it (header of batch.h). */
static const char grades_csv[] =
    "id,score,max_score,status,softmax.values,grader_version,spec_sha256,"
    "submission_sha256,note\r\n"
    "'=HYPERLINK(\"http://x\"),10,60,ok,2,1.0.0,aa,bb,\r\n"
    "alice,52.5,60,ok,2,1.0.0,aa,bb,\r\n"
    "bob,0,60,compile_error,0,1.0.0,aa,bb,\r\n"
    "carol,0,60,missing,0,1.0.0,aa,,no attention.c in the folder\r\n"
    "zoe,60,60,ok,2,1.0.0,aa,bb,\r\n";

static const char roster_csv[] =
    "\xEF\xBB\xBFid,name,canvas_id,sis_user_id,sis_login_id,section,username,email,idnumber\n"
    "zoe,Zoë Ångström,101,S1,zoe,A,zoe,zoe@uni.example,1001\n"
    "alice,\"Lovelace, Ada\",102,S2,alice,A,ada,ada@uni.example,1002\n"
    "bob,=cmd|' /C calc'!A0,103,S3,bob,B,bob,bob@uni.example,1003\n"
    "carol,Carol,104,S4,carol,B,carol,carol@uni.example,1004\n"
    "dave,Dave,105,S5,dave,B,dave,dave@uni.example,1005\n";

static void parse(const char *text, struct gbx_table *t)
{
    struct err e;

    cr_assert_eq(gbx_csv_parse(text, strlen(text), "t.csv", t, &e), 0, "%s", e.msg);
}

Test(export, grades_csv_neutralises_formulas_in_ids_and_notes)
{
    static const char *const ids[] = {
        "=HYPERLINK(\"http://evil\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx", "plain-id",
    };
    static const char *const want[] = {
        "\"'=HYPERLINK(\"\"http://evil\"\")\"", "'+1", "'-2", "'@SUM(A1)",
        "'\tx", "\"'\rx\"", "plain-id",
    };

    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        struct bat_row row;
        struct sb sb;
        const char *line;

        memset(&row, 0, sizeof row);
        row.id = (char *)ids[i];
        snprintf(row.status, sizeof row.status, "missing");
        row.detail = (char *)"=1+1 in the note too";
        sb_init(&sb, 0);
        cr_assert(bat_csv_write(NULL, 0, &row, 1, &sb) == 0);
        line = strstr(sb_str(&sb), "\r\n") + 2;
        cr_expect(strncmp(line, want[i], strlen(want[i])) == 0 &&
                  line[strlen(want[i])] == ',', "id %zu: %s", i, line);
        cr_expect(strstr(line, ",'=1+1 in the note too,") != NULL, "%s", line);
        sb_release(&sb);
    }
    cr_expect_str_eq(gbx_untext("'=1+1"), "=1+1");
    cr_expect_str_eq(gbx_untext("'plain"), "'plain");
}

Test(export, csv_reader_reads_quotes_crlf_and_bom_and_refuses_bad_rows)
{
    struct gbx_table t;
    struct err e;
    static const char *const bad[] = {
        "a,b\r\n1\r\n", "a,b\n\"open,2\n", "a\n\"x\"y\n",
    };

    parse("\xEF\xBB\xBF" "a,b\r\n\"x, \"\"y\"\"\",\"two\nlines\"\r\n,\n", &t);
    cr_expect_eq(t.n_rows, 3);
    cr_expect_eq(t.n_cols, 2);
    cr_expect_str_eq(t.cells[0], "a");
    cr_expect_str_eq(t.cells[2], "x, \"y\"");
    cr_expect_str_eq(t.cells[3], "two\nlines");
    cr_expect_str_eq(t.cells[4], "");
    cr_expect_eq(gbx_col(&t, "b"), 1);
    cr_expect_eq(gbx_col(&t, "c"), -1);
    gbx_table_free(&t);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_expect_eq(gbx_csv_parse(bad[i], strlen(bad[i]), "bad.csv", &t, &e), -1,
                     "bad %zu accepted", i);
        cr_expect(e.line > 0, "bad %zu: no line: %s", i, e.msg);
    }
}

/* Found by tests/fuzz/fuzz_roster.c: text ending just after a comma lost
 * its last row (and leaked that row's cells); the field after the comma is
 * empty, and a row missing more than that is refused. */
Test(export, csv_reader_keeps_a_last_row_ending_in_a_comma)
{
    struct gbx_table t;
    struct err e;

    parse("id,score\nalice,", &t);
    cr_assert_eq(t.n_rows, 2);
    cr_expect_str_eq(t.cells[2], "alice");
    cr_expect_str_eq(t.cells[3], "");
    gbx_table_free(&t);
    cr_expect_eq(gbx_csv_parse("a,b,c\n1,", 9, "t.csv", &t, &e), -1);
}

static char *export(enum gbx_lms lms, struct gbx_stats *st)
{
    struct gbx_table g, r;
    struct sb out;
    struct err e;

    parse(grades_csv, &g);
    parse(roster_csv, &r);
    sb_init(&out, 0);
    cr_assert_eq(gbx_export(lms, &g, &r, "Attention (12345)", &out, st, &e), 0,
                 "%s", e.msg);
    gbx_table_free(&g);
    gbx_table_free(&r);
    return sb_detach(&out, NULL);
}

Test(export, canvas_columns_in_roster_order_blank_without_a_grade)
{
    struct gbx_stats st;
    char *s = export(GBX_CANVAS, &st);

    cr_expect_str_eq(s,
        "Student,ID,SIS User ID,SIS Login ID,Section,Attention (12345)\r\n"
        "Points Possible,,,,,60\r\n"
        "Zoë Ångström,101,S1,zoe,A,60\r\n"
        "\"Lovelace, Ada\",102,S2,alice,A,52.5\r\n"
        "'=cmd|' /C calc'!A0,103,S3,bob,B,0\r\n"
        "Carol,104,S4,carol,B,\r\n"
        "Dave,105,S5,dave,B,\r\n");
    cr_expect_eq(st.graded, 3);
    cr_expect_eq(st.blank, 2);          /* carol: missing; dave: no row */
    cr_expect_eq(st.not_in_roster, 1);  /* the =HYPERLINK id */
    cr_expect(st.unmatched != NULL && st.unmatched[0] == 1, "the row is not named");
    gbx_stats_release(&st);
    free(s);
}

Test(export, moodle_columns_with_feedback)
{
    struct gbx_stats st;
    char *s = export(GBX_MOODLE, &st);

    cr_expect_str_eq(s,
        "Username,Email address,ID number,Attention (12345),Feedback\r\n"
        "zoe,zoe@uni.example,1001,60,\r\n"
        "ada,ada@uni.example,1002,52.5,\r\n"
        "bob,bob@uni.example,1003,0,\r\n"
        "carol,carol@uni.example,1004,,no attention.c in the folder\r\n"
        "dave,dave@uni.example,1005,,no submission graded\r\n");
    gbx_stats_release(&st);
    free(s);
}

Test(export, refuses_a_file_that_is_no_gradebook_or_roster)
{
    struct gbx_table g, r;
    struct sb out;
    struct gbx_stats st;
    struct err e;

    parse("name,points\nx,1\n", &g);
    parse(roster_csv, &r);
    sb_init(&out, 0);
    cr_expect_eq(gbx_export(GBX_CANVAS, &g, &r, "A", &out, &st, &e), -1);
    cr_expect(strstr(e.msg, "grades.csv") != NULL, "%s", e.msg);
    gbx_table_free(&g);
    parse(grades_csv, &g);
    gbx_table_free(&r);
    parse("id,name\nzoe,Z\nzoe,Y\n", &r);
    cr_expect_eq(gbx_export(GBX_CANVAS, &g, &r, "A", &out, &st, &e), -1);
    cr_expect(strstr(e.msg, "twice") != NULL, "%s", e.msg);
    gbx_stats_release(&st);
    gbx_table_free(&g);
    gbx_table_free(&r);
    sb_release(&out);
}

/* ---- the command ---- */

static void write_file(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");

    cr_assert_not_null(f);
    cr_assert_eq(fwrite(s, 1, strlen(s), f), strlen(s));
    fclose(f);
}

static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 1 << 16);

    cr_assert_not_null(f, "%s", path);
    *n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    return buf;
}

Test(export, grader_export_writes_canvas_with_a_bom_and_excel_alone)
{
    char dir[] = "/tmp/test-export.XXXXXX", cmd[1024], path[256];
    size_t n;
    char *s;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/grades.csv", dir);
    write_file(path, grades_csv);
    snprintf(path, sizeof path, "%s/roster.csv", dir);
    write_file(path, roster_csv);
    snprintf(cmd, sizeof cmd, "cd %s && '%s/grader' export --canvas --excel "
             "--roster roster.csv --out canvas.csv grades.csv 2>err.txt && "
             "'%s/grader' export --excel grades.csv > excel.csv && "
             "! '%s/grader' export --moodle grades.csv 2>>err.txt",
             dir, TEST_BUILDDIR, TEST_BUILDDIR, TEST_BUILDDIR);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/canvas.csv", dir);
    s = read_file(path, &n);
    cr_expect(strncmp(s, "\xEF\xBB\xBFStudent,ID,", 14) == 0, "%s", s);
    cr_expect(strstr(s, "\r\nZoë Ångström,101,S1,zoe,A,60\r\n") != NULL, "%s", s);
    free(s);
    snprintf(path, sizeof path, "%s/excel.csv", dir);
    s = read_file(path, &n);
    cr_expect_eq(n, 3 + strlen(grades_csv));
    cr_expect(memcmp(s, "\xEF\xBB\xBF", 3) == 0 && strcmp(s + 3, grades_csv) == 0);
    free(s);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    s = read_file(path, &n);
    cr_expect(strstr(s, "3 graded, 2 left blank") != NULL, "%s", s);
    cr_expect(strstr(s, "grader: export: grades.csv:2: '=HYPERLINK(\"http://x\")' is in the "
                        "gradebook, not in the roster: not exported\n") != NULL &&
                  strstr(s, "1 gradebook row not in the roster (named above)") != NULL,
              "the row not in the roster is not named: %s", s);
    cr_expect(strstr(s, "need --roster") != NULL, "%s", s);
    free(s);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

/* ---- feedback back into the LMS in bulk ---- */

Test(export, crc32_is_the_zip_polynomial)
{
    /* the check value of CRC-32/ISO-HDLC, the one zip uses */
    cr_expect_eq(zip_crc32(0, "123456789", 9), 0xCBF43926u);
    cr_expect_eq(zip_crc32(zip_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
    cr_expect_eq(zip_crc32(0, "", 0), 0u);
}

Test(export, zip_refuses_names_that_leave_the_folder)
{
    const char *bad[] = {"", "/etc/passwd", "a/../b", "..", "a/./b", "a\\b", "a/", "a//b",
                         "tab\tname"};
    struct zip_writer z;
    struct sb out;
    struct err e;

    sb_init(&out, 0);
    zip_begin(&z, &out);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(zip_add(&z, bad[i], "x", 1, &e), -1, "'%s' was taken", bad[i]);
    cr_expect_eq(zip_add(&z, "Zoë Ünal_1_assignsubmission_file_/feedback.md", "x", 1, &e), 0);
    cr_expect_eq(zip_finish(&z, &e), 0, "%s", e.msg);
    sb_release(&out);
}

/* A batch's output with Moodle's folder names in grades.csv's name column:
 * two with feedback.md (one with accents), one without, one not Moodle's. */
static const char moodle_grades[] =
    "id,score,max_score,status,note,name\r\n"
    "2345,60,60,ok,,Zoë Ünal_2345_assignsubmission_file_\r\n"
    "2346,10,60,ok,,Al Jones_2346_assignsubmission_file_\r\n"
    "2347,0,60,missing,,Kim Lee_2347_assignsubmission_file_\r\n"
    "octocat,60,60,ok,,octocat\r\n";

static void plant_out(const char *dir)
{
    const char *ids[] = {"2345", "2346", "octocat"};
    char path[512];

    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, ids[i]);
        cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
        snprintf(path, sizeof path, "%s/%s/feedback.md", dir, ids[i]);
        write_file(path, i == 0 ? "# Zoë\n\nscore: 60 / 60 \"all\" passed\n"
                                : i == 1 ? "score: 10 / 60\n\\ backslash, tab\t.\n"
                                         : "octocat's\n");
    }
    snprintf(path, sizeof path, "%s/grades.csv", dir);
    write_file(path, moodle_grades);
}

Test(export, feedback_zip_reads_back_as_moodle_does_and_comments_as_canvas_takes_them)
{
    char dir[] = "/tmp/test-export.XXXXXX", cmd[2048], path[600];
    size_t n;
    char *s;

    cr_assert_not_null(mkdtemp(dir));
    plant_out(dir);
    /* the download Moodle gave: a folder per submission */
    snprintf(path, sizeof path, "%s/class", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/class/Zoë Ünal_2345_assignsubmission_file_", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/class/Al Jones_2346_assignsubmission_file_", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/roster.csv", dir);
    write_file(path, "id,canvas_id,sis_user_id\n2345,11,\n2346,,S46\n2347,13,\n");
    snprintf(cmd, sizeof cmd, "cd %s && '%s/grader' export --feedback --moodle "
             "--out fb.zip grades.csv 2>err.txt && "
             "python3 '%s/tests/lms_feedback.py' moodle fb.zip class . >py.txt && "
             "'%s/grader' export --feedback --canvas --roster roster.csv "
             "--out comments.json grades.csv 2>>err.txt && "
             "python3 '%s/tests/lms_feedback.py' canvas comments.json roster.csv . >>py.txt && "
             "! '%s/grader' export --feedback --moodle grades.csv 2>>err.txt",
             dir, TEST_BUILDDIR, TEST_SRCDIR, TEST_BUILDDIR, TEST_SRCDIR, TEST_BUILDDIR);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/py.txt", dir);
    s = read_file(path, &n);
    cr_expect(strstr(s, "ok: Zoë Ünal_2345_assignsubmission_file_/feedback.md (participant "
                        "2345)\n") != NULL &&
                  strstr(s, "ok: Al Jones_2346_assignsubmission_file_/feedback.md") != NULL &&
                  strstr(s, "ok: 11 (2345)\nok: sis_user_id:S46 (2346)\n") != NULL, "%s", s);
    free(s);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    s = read_file(path, &n);
    cr_expect(strstr(s, "grader: export: grades.csv:4: 'Kim Lee_2347_assignsubmission_file_' "
                        "left out: no feedback.md in its folder\n") != NULL &&
                  strstr(s, "grader: export: grades.csv:5: 'octocat' left out: its name is "
                            "not a Moodle submission folder") != NULL &&
                  strstr(s, "2 feedback files in the zip, 2 gradebook rows left out") != NULL,
              "%s", s);
    cr_expect(strstr(s, "grades.csv:5: 'octocat' left out: not in the roster\n") != NULL &&
                  strstr(s, "2 feedback files as Canvas comments, 2 gradebook rows left out")
                      != NULL, "%s", s);
    cr_expect(strstr(s, "give --out FILE.zip") != NULL, "%s", s);
    free(s);
    /* the same gradebook, the same bytes: nothing in the zip depends on the day */
    snprintf(cmd, sizeof cmd, "cd %s && '%s/grader' export --feedback --moodle --out fb2.zip "
             "grades.csv 2>/dev/null && cmp -s fb.zip fb2.zip", dir, TEST_BUILDDIR);
    cr_expect_eq(system(cmd), 0, "two exports of one gradebook differ");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}
