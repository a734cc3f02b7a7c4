#!/usr/bin/env python3
"""autograder.py -- the Classroom 50 autograder of the attention assignment.

Classroom 50's runner runs this once per submission, in the student's
checkout, with the bundle (this file's folder: the student build of the
grader and specs/public.yaml) extracted at $CLASSROOM50_BUNDLE_DIR. It

  1. builds the grader there (GRADER_STAFF=0: no reference, hidden specs
     refused; the bundle is publicly readable, so it holds neither);
  2. grades ./attention.c with the bundle's public spec -- never the
     checkout's copy of it, nor anything the checkout has built;
  3. writes ./result.json (schema classroom50/result/v1) and
     ./release-body.md (the Markdown rubric shown on the Release).

Points in result.json are integers: HUNDREDTHS OF A POINT, exactly
(specs/README.md, "Integer points"). A test worth 1.5 points has max-score
150, and the assignment's 60 public points are 6000. The grader's scores
are exact hundredths, so nothing is rounded away; the top-level score is
the sum of the tests' integers, as the schema asks.

Exit status 0 means the run finished, whatever the grade (a missing file
or a compile error is a result with score 0). Non-zero is an
infrastructure error (the grader would not build, failed or ran out of
time), announced by an ::error:: line; the runner writes its own error
result.

Time: Classroom 50's grade job has `timeout-minutes: 15`. Everything this
script runs (the libraries, the build, both grader calls) shares one
budget, BUDGET_S, well inside it, so that a stuck run ends with our own
message and not the job's cancellation.

Reproduce lines: the rubric's "reproduce:" commands name `make check
ONLY=...`, which works in the student's checkout (the template's
Makefile), not this bundle's temporary path.
"""

import datetime
import json
import math
import os
import pathlib
import re
import stat
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
BUNDLE = pathlib.Path(os.environ.get("CLASSROOM50_BUNDLE_DIR") or HERE).resolve()
GRADER = BUNDLE / "build" / "grader"
SPEC = BUNDLE / "specs" / "public.yaml"
SCALE = 100  # integers are hundredths of a point
JOB_LIMIT_S = 15 * 60  # Classroom 50's grade job: timeout-minutes: 15
# Ours: the job's limit less its checkout, the bundle's download and the
# release. ATTN_C50_BUDGET_S (the runner's environment, never the
# student's) shortens it, for the test suite.
_SHORTER = os.environ.get("ATTN_C50_BUDGET_S", "")
BUDGET_S = min(10 * 60, int(_SHORTER)) if _SHORTER.isdigit() else 10 * 60
DEADLINE = time.monotonic() + BUDGET_S
REPRO = "make check"  # what reruns one test in the student's checkout


def err(msg):
    """An annotation in the Actions log; never in result.json."""
    print(f"::error::{msg}", file=sys.stderr, flush=True)


def units(points):
    """Points as whole hundredths (they are exact hundredths already; the
    rounding only absorbs binary noise such as 0.1 + 0.2)."""
    return max(0, int(math.floor(float(points) * SCALE + 0.5)))


def points_text(u):
    return f"{u // SCALE}.{u % SCALE:02d}"


class OutOfTime(Exception):
    """The budget ran out (main() reports it)."""


def run(cmd, **kw):
    """cmd's CompletedProcess; a command that cannot start (no sudo, or
    one we may not run) is a failure with its reason in stderr, not an
    exception. Every command gets what is left of the budget."""
    left = DEADLINE - time.monotonic()
    if left <= 0:
        raise OutOfTime(cmd[0])
    try:
        return subprocess.run(cmd, capture_output=True, check=False,
                              timeout=left, **kw)
    except subprocess.TimeoutExpired:
        raise OutOfTime(os.path.basename(str(cmd[0])))
    except OSError as e:
        why = f"{cmd[0]}: cannot run: {e.strerror or e}\n"
        return subprocess.CompletedProcess(cmd, 127, b"", why.encode())


def build_grader():
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    deps = run(["sh", str(BUNDLE / "grader" / "deps.sh")], env=env)
    if deps.returncode != 0 and os.geteuid() != 0:
        # GitHub's hosted runners allow sudo without a password.
        deps = run(["sudo", "-n", "sh", str(BUNDLE / "grader" / "deps.sh")],
                   env=env)
    if deps.returncode != 0:
        sys.stderr.write(deps.stderr.decode("utf-8", "replace"))
        err("the grader's libraries are missing (add libyaml-dev, "
            "libpcre2-dev, libseccomp-dev to the assignment's runtime apt)")
        return False
    p = run(["make", "-C", str(BUNDLE), "--no-print-directory", "grader"],
            env=env)
    sys.stderr.write(p.stdout.decode("utf-8", "replace")[-4000:])
    if p.returncode != 0 or not GRADER.is_file():
        sys.stderr.write(p.stderr.decode("utf-8", "replace")[-8000:])
        err("the grader did not build")
        return False
    return True


def public_tests():
    """(id, title, units) of every public test, from `grader list`."""
    p = run([str(GRADER), "list", "--spec", str(SPEC)])
    if p.returncode != 0:
        return None
    row = re.compile(r"^(\S+)\s+([0-9]+(?:\.[0-9]+)?)\s+[a-z_]+\s+[0-9]+ "
                     r"cases?\s+(.*)$")
    tests = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        m = row.match(line)
        if m:
            tests.append((m.group(1), m.group(3), units(m.group(2))))
    return tests or None


def grade(fmt):
    p = run([str(GRADER), "grade", "--format", fmt, "--repro", REPRO,
             "--spec", str(SPEC), "attention.c"])
    sys.stderr.write(p.stderr.decode("utf-8", "replace")[-8000:])
    if p.returncode != 0:
        err(f"the grader failed (exit status {p.returncode})")
        return None
    return p.stdout.decode("utf-8", "replace")


def graded_tests(gs):
    """result/v1 tests from the grader's Gradescope JSON."""
    tests = []
    for t in gs["tests"]:
        if "score" not in t:
            continue  # a manual item: a TA scores it, not the workflow
        u, m = units(t["score"]), units(t["max_score"])
        passed = t.get("status") == "passed"
        entry = {"test-name": t["name"], "passed": passed,
                 "score": min(u, m), "max-score": m,
                 "points": f"{points_text(min(u, m))}/{points_text(m)}"}
        if not passed and t.get("output"):
            entry["message"] = t["output"][:2000]
        tests.append(entry)
    return tests


def missing_tests(why):
    listed = public_tests()
    if listed is None:
        return None
    return [{"test-name": f"{i}: {title}", "passed": False, "score": 0,
             "max-score": u, "points": f"0.00/{points_text(u)}",
             "message": why} for i, title, u in listed]


def utc(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%SZ")


def submitted_at():
    """The graded commit's committer date, else now (the runner stamps its
    own in any case)."""
    p = run(["git", "log", "-1", "--format=%ct", "HEAD"])
    out = p.stdout.decode().strip()
    if p.returncode == 0 and out.isdigit():
        return utc(int(out))
    return utc(datetime.datetime.now(datetime.timezone.utc).timestamp())


def envs(*names, default=""):
    for n in names:
        v = os.environ.get(n, "").strip()
        if v:
            return v
    return default


def result(tests):
    commit = envs("COMMIT_URL", default="unknown")
    return {
        "schema": "classroom50/result/v1",
        "classroom": envs("CLASSROOM", default="unknown"),
        "assignment": envs("ASSIGNMENT", default="unknown"),
        # owner and assignment_type are stamped again by the runner
        "assignment_type": "group" if envs("ASSIGNMENT_TYPE", "MODE") == "group"
                           else "individual",
        "owner": envs("OWNER", "USERNAME", "GITHUB_ACTOR", default="unknown"),
        "submission": envs("SUBMISSION_TAG", default="submit/unknown"),
        "commit": commit,
        "release": envs("RELEASE_URL", default=commit),
        "review": envs("REVIEW_URL", default=commit),
        "datetime": submitted_at(),
        "graded_at": utc(datetime.datetime.now(datetime.timezone.utc).timestamp()),
        "score": sum(t["score"] for t in tests),
        "max-score": sum(t["max-score"] for t in tests),
        "tests": tests,
    }


def note(res):
    return (f"\n---\nClassroom 50 records points in hundredths: "
            f"{res['score']} / {res['max-score']} here is "
            f"{points_text(res['score'])} / {points_text(res['max-score'])} "
            f"points of the rubric above.\n")


def write(res, body):
    pathlib.Path("result.json").write_text(json.dumps(res, indent=2) + "\n",
                                           encoding="utf-8")
    pathlib.Path("release-body.md").write_text(body + note(res),
                                               encoding="utf-8")


def main():
    try:
        return graded()
    except OutOfTime as e:
        err(f"out of time: {e} did not finish within {BUDGET_S} s, the budget "
            f"of this autograder inside the grade job's {JOB_LIMIT_S // 60} "
            f"minutes")
        return 1


def graded():
    if not build_grader():
        return 1
    try:
        st = os.lstat("attention.c")
        present = stat.S_ISREG(st.st_mode)
    except OSError:
        present = False
    if not present:
        why = ("no attention.c (a regular file) at the top of the repository; "
               "no test ran")
        tests = missing_tests(why)
        if tests is None:
            err("cannot list the public tests")
            return 1
        res = result(tests)
        write(res, f"# Grading report\n\n**Score: 0 / "
                   f"{points_text(res['max-score'])}**\n\n> **{why}.**\n")
        return 0
    gs_text, md = grade("gradescope"), grade("markdown")
    if gs_text is None or md is None:
        return 1
    res = result(graded_tests(json.loads(gs_text)))
    write(res, md.rstrip("\n") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
