#!/usr/bin/env python3
"""lms_feedback.py -- read `grader export --feedback` back as the LMS does
(called by tests/test_export.c and tests/test_batch_inputs.c).

  lms_feedback.py moodle ZIP CLASS OUT
      ZIP as Moodle's "Upload multiple feedback files in a zip" reads it
      (mod/assign/feedback/file/importziplib.php): every entry's path split
      at its first four underscores gives the participant id (digits), the
      plugin (assignsubmission, file) and the file name; the entry's folder
      must be a submission folder of CLASS (the download, as Moodle names
      its folders), every such folder must have its entry, and the entry
      must hold OUT/<id>/feedback.md, <id> the grades.csv row whose name is
      the folder. Python's zipfile checks every CRC-32 (testzip).
  lms_feedback.py canvas JSON ROSTER OUT
      JSON as Canvas's "Grade or comment on multiple submissions" takes it:
      {"grade_data": {student: {"text_comment": ...}}}, each student a
      roster canvas_id (or sis_user_id:...), its comment OUT/<id>/feedback.md.

Prints one line per entry checked; exit 1 with the reason on a mismatch.
"""

import csv
import json
import os
import sys
import zipfile


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def gradebook(out):
    with open(os.path.join(out, "grades.csv"), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def feedback_of(out, row_id):
    with open(os.path.join(out, row_id, "feedback.md"), "rb") as f:
        return f.read()


def moodle(zip_path, class_dir, out):
    rows = {r["name"]: r["id"] for r in gradebook(out)}
    folders = sorted(d for d in os.listdir(class_dir)
                     if "_assignsubmission_file" in d
                     and os.path.isdir(os.path.join(class_dir, d)))
    with zipfile.ZipFile(zip_path) as z:
        bad = z.testzip()
        if bad is not None:
            fail(f"{bad}: its CRC-32 does not match its data")
        seen = set()
        for info in z.infolist():
            if info.is_dir():
                continue
            if info.compress_type != zipfile.ZIP_STORED:
                fail(f"{info.filename}: compressed ({info.compress_type}), not stored")
            # Moodle: explode('_', $filepath . $filename, 5), the path from '/'
            parts = ("/" + info.filename).split("_", 4)
            if len(parts) < 5 or not parts[1].isdigit():
                fail(f"{info.filename}: no participant id between the first underscores")
            if (parts[2], parts[3]) != ("assignsubmission", "file"):
                fail(f"{info.filename}: plugin {parts[2]}_{parts[3]}, not assignsubmission_file")
            folder, _, name = info.filename.partition("/")
            if parts[4] != "/" + name or name != "feedback.md":
                fail(f"{info.filename}: the file is '{parts[4]}', not /feedback.md")
            if folder not in folders:
                fail(f"{info.filename}: '{folder}' is no folder of the download {folders}")
            if folder not in rows:
                fail(f"{info.filename}: no grades.csv row is named '{folder}'")
            if z.read(info) != feedback_of(out, rows[folder]):
                fail(f"{info.filename}: not {rows[folder]}/feedback.md")
            seen.add(folder)
            print(f"ok: {info.filename} (participant {parts[1]})")
        missing = [f for f in folders if f not in seen]
        if missing:
            fail(f"no feedback for the download's folders {missing}")
    return 0


def canvas(json_path, roster_path, out):
    with open(roster_path, newline="", encoding="utf-8-sig") as f:
        roster = {r["id"]: r for r in csv.DictReader(f)}
    with open(json_path, encoding="utf-8") as f:
        body = json.load(f)
    if list(body) != ["grade_data"]:
        fail(f"the body's keys are {list(body)}, not grade_data")
    students = {}
    for rid, r in roster.items():
        key = r.get("canvas_id") or ("sis_user_id:" + r["sis_user_id"]
                                     if r.get("sis_user_id") else "")
        if key:
            students[key] = rid
    for student, data in body["grade_data"].items():
        if student not in students:
            fail(f"'{student}' is no canvas_id (or sis_user_id:) of the roster")
        if list(data) != ["text_comment"]:
            fail(f"{student}: keys {list(data)}, not text_comment alone")
        want = feedback_of(out, students[student]).decode("utf-8")
        if data["text_comment"] != want:
            fail(f"{student}: the comment is not {students[student]}/feedback.md")
        print(f"ok: {student} ({students[student]})")
    return 0


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("moodle", "canvas"):
        print(__doc__)
        return 2
    if sys.argv[1] == "moodle":
        return moodle(*sys.argv[2:])
    return canvas(*sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
