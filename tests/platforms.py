#!/usr/bin/env python3
"""platforms.py -- the platform bundles, run as their platform runs them
(called by tests/test_platforms.c; prints what it checks, exits 1 on the
first broken rule).

  platforms.py gradescope  SRCDIR BUILD   make gradescope; unzip into a
      temporary AUTOGRADER_ROOT; setup.sh; run_autograder on the reference,
      the stub, a buggy submission, a missing and a misnamed file, on time
      and late; every results.json checked against Gradescope's documented
      fields, its score against the grader's own rubric.
  platforms.py ci SRCDIR BUILD   a compile error through the real grader:
      JUnit against the xunit plugin's junit-10.xsd, GitHub annotations.
  platforms.py classroom50 SRCDIR BUILD   make classroom50; autograder.py run
      with the Classroom 50 runner's environment in a checkout of each
      submission; result.json checked field by field against
      classroom50/result/v1, its integers against the rubric (x 100).

SRCDIR is the repository, BUILD the staff build whose grader gives the
rubric's score (`grader grade --format text`, its "score:" line).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

SUBS = [  # name, path in the repository (CATALOGUE/: the build's, tests/README.md), expected
    ("reference", "reference/attention.c", "full"),
    ("stub", "student_template/attention.c", "zero"),
    ("buggy", "CATALOGUE/submissions/softmax_wrong_axis.c", "partial"),
]
ON_TIME = {"id": 7, "created_at": "2026-12-02T08:59:00.000000-08:00",
           "assignment": {"due_date": "2026-12-02T09:00:00.000000-08:00",
                          "late_due_date": None, "title": "Attention",
                          "total_points": "120.0"},
           "users": [{"email": "zoe@example.edu", "id": 1, "name": "Zoë"}],
           "previous_submissions": []}
LATE = json.loads(json.dumps(ON_TIME))
LATE["created_at"] = "2026-12-02T10:30:00.000000-08:00"


def check(cond, what):
    if not cond:
        print("FAIL: " + what, flush=True)
        sys.exit(1)


def clean_env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GITHUB_OUTPUT")}
    env["LC_ALL"] = "C"
    return env


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, env=kw.pop("env", clean_env()),
                          check=False, **kw)


def sub_file(src, build, path):
    """A file of SUBS: CATALOGUE/ is the catalogue the build made whole."""
    if path.startswith("CATALOGUE/"):
        return os.path.join(build, "catalogue", path[len("CATALOGUE/"):])
    return os.path.join(src, path)


def rubric_score(build, specs, target):
    """The rubric's score and max: the last 'score: X / Y' of the text."""
    cmd = [os.path.join(build, "grader"), "grade"]
    for s in specs:
        cmd += ["--spec", s]
    p = sh(cmd + [target])
    text = p.stdout.decode("utf-8", "replace")
    m = re.findall(r"^score: ([0-9.]+) / ([0-9.]+)", text, re.M)
    check(m, f"no score line in the rubric of {target}:\n{text[-2000:]}")
    return float(m[-1][0]), float(m[-1][1])


def hidden_ids(src):
    ids = []
    with open(os.path.join(src, "specs", "hidden.yaml"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*-\s*id:\s*(\S+)", line)
            if m:
                ids.append(m.group(1))
    check(len(ids) > 5, "hidden.yaml lists its tests")
    return ids


# ---- Gradescope ----

GS_TOP = {"score", "execution_time", "output", "output_format",
          "test_output_format", "test_name_format", "visibility",
          "stdout_visibility", "extra_data", "tests", "leaderboard"}
GS_TEST = {"score", "max_score", "status", "name", "name_format", "number",
           "output", "output_format", "tags", "visibility", "extra_data"}
GS_VIS = {"hidden", "after_due_date", "after_published", "visible"}
GS_FMT = {"text", "html", "simple_format", "md", "ansi"}


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def gs_validate(res, name):
    """Gradescope's documented fields (autograder specifications)."""
    check(isinstance(res, dict), f"{name}: results.json is an object")
    extra = set(res) - GS_TOP
    check(not extra, f"{name}: unknown top-level fields {extra}")
    tests = res.get("tests", [])
    check(isinstance(tests, list), f"{name}: tests is a list")
    check("score" in res or all("score" in t for t in tests),
          f"{name}: a score at the top or on every test")
    if "score" in res:
        check(num(res["score"]) and res["score"] >= 0, f"{name}: score is a number")
    if "execution_time" in res:
        check(num(res["execution_time"]), f"{name}: execution_time in seconds")
    for key in ("output_format", "test_output_format"):
        if key in res:
            check(res[key] in GS_FMT, f"{name}: {key} '{res[key]}'")
    for key in ("visibility", "stdout_visibility"):
        if key in res:
            check(res[key] in GS_VIS, f"{name}: {key} '{res[key]}'")
    check(isinstance(res.get("output", ""), str), f"{name}: output is text")
    check(isinstance(res.get("extra_data", {}), dict), f"{name}: extra_data")
    for t in tests:
        extra = set(t) - GS_TEST
        check(not extra, f"{name}: unknown test fields {extra}")
        check(isinstance(t.get("name"), str) and t["name"], f"{name}: test name")
        if "score" in t:
            check(num(t["score"]) and t["score"] >= 0, f"{name}: {t['name']} score")
        if "max_score" in t:
            check(num(t["max_score"]) and t["max_score"] >= 0,
                  f"{name}: {t['name']} max_score")
        if "score" in t and "max_score" in t:
            check(t["score"] <= t["max_score"] + 1e-9, f"{name}: {t['name']} score <= max")
        if "status" in t:
            check(t["status"] in ("passed", "failed"), f"{name}: {t['name']} status")
        check(t.get("visibility", "visible") in GS_VIS, f"{name}: test visibility")
        check(t.get("output_format", "text") in GS_FMT, f"{name}: test output_format")
    print(f"ok: {name}: results.json has only Gradescope's documented fields, well typed")


def gs_root(tmp, zpath):
    root = os.path.join(tmp, "autograder")
    src = os.path.join(root, "source")
    os.makedirs(src)
    with zipfile.ZipFile(zpath) as z:
        names = z.namelist()
        check("setup.sh" in names and "run_autograder" in names,
              "setup.sh and run_autograder at the root of the zip")
        check(not any(n.startswith("tests/") for n in names),
              "the bundle holds no test suite")
        z.extractall(src)
        for info in z.infolist():  # zipfile drops the modes: restore them
            mode = info.external_attr >> 16
            if mode:
                os.chmod(os.path.join(src, info.filename), mode & 0o777)
    check(os.access(os.path.join(src, "run_autograder"), os.X_OK),
          "run_autograder is executable in the zip")
    print("ok: autograder.zip has setup.sh and run_autograder at its root")
    p = sh(["sh", os.path.join(src, "setup.sh")], cwd=src)
    check(p.returncode == 0, "setup.sh builds the grader:\n" +
          (p.stdout + p.stderr).decode("utf-8", "replace")[-3000:])
    check(b"staff build" in p.stdout, "setup.sh built a staff grader")
    print("ok: setup.sh built the staff grader (apt skipped: packages present)")
    # Gradescope copies run_autograder to /autograder/run_autograder.
    shutil.copy2(os.path.join(src, "run_autograder"), os.path.join(root, "run_autograder"))
    return root


def gs_run(root, files, meta):
    sub = os.path.join(root, "submission")
    shutil.rmtree(sub, ignore_errors=True)
    shutil.rmtree(os.path.join(root, "results"), ignore_errors=True)
    os.makedirs(sub)
    os.makedirs(os.path.join(root, "results"))
    for name, path in files.items():
        shutil.copyfile(path, os.path.join(sub, name))
    mpath = os.path.join(root, "submission_metadata.json")
    if meta is None:
        if os.path.exists(mpath):
            os.remove(mpath)
    else:
        with open(mpath, "w", encoding="utf-8") as f:
            json.dump(meta, f)
    env = clean_env()
    env["AUTOGRADER_ROOT"] = root
    p = sh([os.path.join(root, "run_autograder")], cwd=root, env=env)
    check(p.returncode == 0, "run_autograder exits 0:\n" +
          (p.stdout + p.stderr).decode("utf-8", "replace")[-3000:])
    with open(os.path.join(root, "results", "results.json"), encoding="utf-8") as f:
        return json.load(f)


def gradescope(src, build):
    tmp = tempfile.mkdtemp(prefix="plat-gs.")
    try:
        dist = os.path.join(tmp, "dist")
        p = sh(["make", "-C", src, "--no-print-directory", "gradescope", "DIST=" + dist])
        check(p.returncode == 0, "make gradescope:\n" + p.stderr.decode()[-2000:])
        root = gs_root(tmp, os.path.join(dist, "gradescope", "autograder.zip"))
        hidden = hidden_ids(src)
        specs = [os.path.join(src, "specs", s)
                 for s in ("public.yaml", "hidden.yaml", "written.yaml")]
        rows = []
        good = os.path.join(src, "tests", "answers_fixtures", "good")
        for name, path, kind in SUBS:
            files = {"attention.c": sub_file(src, build, path)}
            if kind == "full":  # the written part too
                for fn in os.listdir(good):
                    files[fn] = os.path.join(good, fn)
            res = gs_run(root, files, ON_TIME)
            gs_validate(res, name)
            stage = os.path.join(tmp, "stage-" + name)
            os.makedirs(stage)
            for fn, fpath in files.items():
                shutil.copyfile(fpath, os.path.join(stage, fn))
            score, mx = rubric_score(build, specs, stage)
            check(abs(res["score"] - score) < 1e-9,
                  f"{name}: Gradescope records {res['score']}, the rubric says {score}")
            auto = sum(t["max_score"] for t in res["tests"] if "score" in t)
            if kind == "zero":
                check(res["score"] == 0, f"{name}: the stub scores 0")
            elif kind == "partial":
                check(0 < res["score"] < auto, f"{name}: partial credit")
            by_id = {t["name"].split(":")[0]: t for t in res["tests"]}
            for h in hidden:
                check(by_id.get(h, {}).get("visibility") == "after_published",
                      f"{name}: hidden test {h} is after_published")
                check(h not in res["output"], f"{name}: top-level output names {h}")
            check("Submitted on time." in res["output"], f"{name}: on time said")
            check(res["extra_data"]["lateness"]["late"] is False, f"{name}: not late")
            rows.append((name, score, mx, res["score"]))
        print("ok: hidden tests are after_published and absent from the top-level output")
        late = gs_run(root, {"attention.c": sub_file(src, build, SUBS[2][1])}, LATE)
        gs_validate(late, "late")
        lt = late["extra_data"]["lateness"]
        check(lt["late"] is True and lt["seconds_late"] == 5400,
              f"late submission recorded: {lt}")
        check("1 h 30 min after the due date" in late["output"], "lateness said")
        check(abs(late["score"] - rows[2][3]) < 1e-9, "lateness changes no score")
        print("ok: a late submission: extra_data.lateness and one line, same score")
        for label, files, want in (
                ("missing", {}, "The submission is empty"),
                ("misnamed", {"Attention.c": sub_file(src, build, SUBS[0][1])},
                 "Found instead: Attention.c"),
                ("other file", {"notes.txt": os.path.join(src, "README.md")},
                 "Your submission holds: notes.txt")):
            res = gs_run(root, files, None)
            gs_validate(res, label)
            check(res["score"] == 0 and res["tests"] == [], f"{label}: score 0")
            check(want in res["output"], f"{label}: says '{want}':\n{res['output']}")
            check("lateness" not in res.get("extra_data", {}), f"{label}: no metadata")
        print("ok: missing and misnamed files get score 0 and a clear output")
        for name, score, mx, gs in rows:
            print(f"score: {name}: rubric {score:g} / {mx:g}, Gradescope {gs:g}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


# ---- Classroom 50 ----

C50_TOP = ["schema", "classroom", "assignment", "assignment_type", "owner",
           "submission", "commit", "release", "review", "datetime", "score",
           "max-score", "tests"]
C50_OPT = ["graded_at", "submitted_by"]
DT = re.compile(r"^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\dZ$")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def c50_validate(res, name, env):
    """classroom50/result/v1, field by field (schemas/result-v1.schema.json
    of foundation50/classroom50, and the cross-field rules runner.py adds)."""
    check(isinstance(res, dict), f"{name}: an object")
    for k in C50_TOP:
        check(k in res, f"{name}: required field '{k}'")
    extra = set(res) - set(C50_TOP) - set(C50_OPT)
    check(not extra, f"{name}: additionalProperties false, got {extra}")
    check(res["schema"] == "classroom50/result/v1", f"{name}: schema const")
    for k in ("classroom", "assignment", "owner", "commit", "release", "review"):
        check(isinstance(res[k], str) and len(res[k]) >= 1, f"{name}: {k} string")
    check(res["classroom"] == env["CLASSROOM"] and res["assignment"] == env["ASSIGNMENT"],
          f"{name}: identity from the runner's environment")
    check(res["owner"] == env["OWNER"], f"{name}: owner")
    check(res["assignment_type"] in ("individual", "group"), f"{name}: assignment_type")
    check(isinstance(res["submission"], str) and res["submission"].startswith("submit/"),
          f"{name}: submission pattern ^submit/")
    check(res["submission"] == env["SUBMISSION_TAG"], f"{name}: submission tag")
    check(res["commit"] == env["COMMIT_URL"] and res["release"] == env["RELEASE_URL"]
          and res["review"] == env["REVIEW_URL"], f"{name}: links")
    check(isinstance(res["datetime"], str) and DT.match(res["datetime"]),
          f"{name}: datetime pattern, got {res['datetime']!r}")
    check(res["datetime"] == "2026-12-02T16:59:00Z", f"{name}: datetime is the commit's")
    if "graded_at" in res:
        check(isinstance(res["graded_at"], str) and DT.match(res["graded_at"]),
              f"{name}: graded_at pattern")
    for k in ("score", "max-score"):
        check(is_int(res[k]) and res[k] >= 0, f"{name}: {k} a non-negative integer")
    check(res["score"] <= res["max-score"], f"{name}: score <= max-score")
    check(isinstance(res["tests"], list), f"{name}: tests array")
    for t in res["tests"]:
        check(isinstance(t, dict), f"{name}: test object")
        for k in ("test-name", "passed", "score", "max-score"):
            check(k in t, f"{name}: test field '{k}'")
        check(isinstance(t["test-name"], str) and t["test-name"], f"{name}: test-name")
        check(isinstance(t["passed"], bool), f"{name}: passed boolean")
        check(is_int(t["score"]) and t["score"] >= 0, f"{name}: test score integer")
        check(is_int(t["max-score"]) and t["max-score"] >= 0, f"{name}: test max integer")
        check(t["score"] <= t["max-score"], f"{name}: test score <= max-score")
        check(not t["passed"] or t["score"] == t["max-score"], f"{name}: passed = full")
    check(res["score"] == sum(t["score"] for t in res["tests"]), f"{name}: score = sum")
    check(res["max-score"] == sum(t["max-score"] for t in res["tests"]),
          f"{name}: max-score = sum")
    print(f"ok: {name}: result.json validates against classroom50/result/v1")


def c50_run(bundle, checkout, src_file, tmp, extra_env=None, expect_rc=0):
    os.makedirs(checkout)
    if src_file:
        shutil.copyfile(src_file, os.path.join(checkout, "attention.c"))
    # a student's own copy of the spec, which must not be graded with
    os.makedirs(os.path.join(checkout, "specs"))
    with open(os.path.join(checkout, "specs", "public.yaml"), "w") as f:
        f.write("tests: []\n")
    genv = clean_env()
    genv.update(GIT_AUTHOR_DATE="2026-12-02T16:59:00Z",
                GIT_COMMITTER_DATE="2026-12-02T16:59:00Z",
                GIT_AUTHOR_NAME="s", GIT_AUTHOR_EMAIL="s@x",
                GIT_COMMITTER_NAME="s", GIT_COMMITTER_EMAIL="s@x")
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "commit", "-q", "-m", "submit"]):
        p = sh(cmd, cwd=checkout, env=genv)
        check(p.returncode == 0, f"git {cmd[1]}: {p.stderr.decode()}")
    env = clean_env()
    env.update(CLASSROOM="cs101", ASSIGNMENT="attention",
               SUBMISSION_TAG="submit/2026-12-02T16-59-00Z-abc1234",
               USERNAME="zoe", OWNER="zoe", ASSIGNMENT_TYPE="individual",
               COMMIT_URL="https://github.com/cs101/cs101-attention-zoe/commit/abc1234",
               RELEASE_URL="https://github.com/cs101/cs101-attention-zoe/releases/tag/submit%2F1",
               REVIEW_URL="https://github.com/cs101/cs101-attention-zoe/compare/a...abc1234",
               PAGES_BASE_URL="https://cs101.github.io/classroom50",
               CLASSROOM50_BUNDLE_DIR=bundle, RUNNER_TEMP=tmp,
               GITHUB_REPOSITORY="cs101/cs101-attention-zoe", GITHUB_SHA="abc1234",
               GITHUB_SERVER_URL="https://github.com", GITHUB_ACTOR="zoe")
    env.update(extra_env or {})
    p = sh([sys.executable, os.path.join(bundle, "autograder.py")], cwd=checkout, env=env)
    if expect_rc != 0:
        return p
    check(p.returncode == 0, "autograder.py exits 0:\n" +
          p.stderr.decode("utf-8", "replace")[-3000:])
    with open(os.path.join(checkout, "result.json"), encoding="utf-8") as f:
        res = json.load(f)
    with open(os.path.join(checkout, "release-body.md"), encoding="utf-8") as f:
        body = f.read()
    return res, body, env


def c50_repro(bundle, checkout, name, res, body, tmp):
    """Every reproduce line names what the student's checkout has (the
    template's `make check ONLY=...`), never the runner's copy of the
    bundle; one of them, run with the bundle's grader, reruns one test."""
    text = json.dumps(res) + body
    for path in (bundle, tmp, "RUNNER_TEMP", "classroom50-runtime"):
        check(path not in text, f"{name}: result.json or release-body.md names {path}")
    texts = [body] + [t.get("message", "") for t in res["tests"]]
    lines = [m.strip().strip("`") for x in texts
             for m in re.findall(r"reproduce: *([^\n]*)", x)]
    if not lines:
        return None
    bad = [x for x in lines if not re.match(r"^make check ONLY='[^']+'$", x)]
    check(not bad, f"{name}: reproduce lines that are not `make check ONLY=...`: {bad[:3]}")
    only = re.match(r"^make check ONLY='([^']+)'", lines[0]).group(1)
    p = sh([os.path.join(bundle, "build", "grader"), "grade", "--only", only, "--spec",
            os.path.join(bundle, "specs", "public.yaml"), "attention.c"], cwd=checkout)
    text = p.stdout.decode("utf-8", "replace")
    check(re.search(r"\(\d+ of 1 tests? passed\)", text),
          f"{name}: ONLY='{only}' does not select one test:\n{text[-800:]}")
    return lines[0]


def c50_failures(src, tmp, bundle):
    """The paths that end the run: libraries missing and no sudo to install
    them (autograder.py's own ::error::, no traceback); a budget that runs
    out (a submission that loops everywhere, a budget of 2 s)."""
    fake = os.path.join(tmp, "fakebin")
    os.makedirs(fake)
    with open(os.path.join(fake, "pkg-config"), "w") as f:
        f.write("#!/bin/sh\nexit 1\n")  # every library "missing"
    os.chmod(os.path.join(fake, "pkg-config"), 0o755)
    with open(os.path.join(fake, "sudo"), "w") as f:
        f.write("#!/bin/sh\nexit 0\n")  # present, but not executable
    os.chmod(os.path.join(fake, "sudo"), 0o644)
    # not root (root never needs sudo): nobody, in folders it may use
    pub = tempfile.mkdtemp(prefix="plat-c50-nobody.")
    try:
        os.chmod(pub, 0o755)
        os.chmod(tmp, 0o755)
        os.chmod(fake, 0o755)
        nb_bundle = os.path.join(pub, "bundle")
        shutil.copytree(bundle, nb_bundle, ignore=shutil.ignore_patterns("build"))
        co = os.path.join(pub, "co")
        os.makedirs(co)
        shutil.copyfile(os.path.join(src, "reference", "attention.c"),
                        os.path.join(co, "attention.c"))
        os.chmod(co, 0o777)
        env = clean_env()
        env.update(PATH=fake + ":" + env.get("PATH", "/usr/bin:/bin"),
                   CLASSROOM50_BUNDLE_DIR=nb_bundle, HOME=pub)
        who = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        p = sh(who + [sys.executable, os.path.join(nb_bundle, "autograder.py")], cwd=co, env=env)
        err = p.stderr.decode("utf-8", "replace")
        check(p.returncode == 1 and "Traceback" not in err and
              "::error::the grader's libraries are missing" in err,
              f"missing libraries, sudo not runnable: rc={p.returncode}\n{err[-1500:]}")
        check("sudo: cannot run" in err, f"the reason sudo failed is shown:\n{err[-800:]}")
        print("ok: libraries missing and sudo not runnable: autograder.py's own ::error::, "
              "exit 1, no traceback")
    finally:
        shutil.rmtree(pub, ignore_errors=True)
    p = c50_run(bundle, os.path.join(tmp, "co-loops"),
                os.path.join(src, "tests", "hostile", "loop_everywhere.c"), tmp,
                extra_env={"ATTN_C50_BUDGET_S": "2"}, expect_rc=1)
    err = p.stderr.decode("utf-8", "replace")
    check(p.returncode == 1 and "Traceback" not in err and "::error::out of time" in err,
          f"a run over its budget: rc={p.returncode}\n{err[-1500:]}")
    print("ok: a run over its budget ends with autograder.py's own ::error::, no traceback")
    with open(os.path.join(bundle, "autograder.py"), encoding="utf-8") as f:
        code = f.read()
    m = re.search(r"^JOB_LIMIT_S = 15 \* 60\b", code, re.M)
    b = re.search(r"^BUDGET_S = min\((\d+) \* 60,", code, re.M)
    check(m and b and int(b.group(1)) * 60 <= 15 * 60 - 180,
          "autograder.py's budget leaves the 15-minute grade job 3 minutes of its own")


def classroom50(src, build):
    tmp = tempfile.mkdtemp(prefix="plat-c50.")
    try:
        dist = os.path.join(tmp, "dist")
        p = sh(["make", "-C", src, "--no-print-directory", "classroom50", "DIST=" + dist])
        check(p.returncode == 0, "make classroom50:\n" + p.stderr.decode()[-2000:])
        out = os.path.join(dist, "classroom50", "attention")
        for top, _dirs, files in os.walk(out):
            for fn in files:
                check(fn not in ("hidden.yaml", "impl_local.c"), f"staff file {fn} in the bundle")
        with open(os.path.join(src, "reference", "attention.c"), "rb") as f:
            ref = f.read()
        for top, _dirs, files in os.walk(out):
            for fn in files:
                with open(os.path.join(top, fn), "rb") as f:
                    check(f.read() != ref, f"the reference as {fn} in the bundle")
        print("ok: the Classroom 50 bundle holds no hidden spec and no reference")
        bundle = os.path.join(tmp, "runtime", "bundle")  # as the runner extracts it
        shutil.copytree(out, bundle)
        public = [os.path.join(src, "specs", "public.yaml")]
        rows = []
        for name, path, kind in SUBS:
            res, body, env = c50_run(bundle, os.path.join(tmp, "co-" + name),
                                     sub_file(src, build, path), tmp)
            c50_validate(res, name, env)
            score, mx = rubric_score(build, public, sub_file(src, build, path))
            check(res["score"] == round(score * 100) and res["max-score"] == round(mx * 100),
                  f"{name}: Classroom 50 records {res['score']}/{res['max-score']}, "
                  f"the rubric says {score}/{mx} (x100)")
            if kind == "full":
                check(res["score"] == res["max-score"] > 0, f"{name}: full marks")
            elif kind == "zero":
                check(res["score"] == 0, f"{name}: zero")
            else:
                check(0 < res["score"] < res["max-score"], f"{name}: partial")
            check("Score:" in body and "## Tests" in body,
                  f"{name}: release-body.md holds the rubric")
            check(f"{res['score']} / {res['max-score']}" in body,
                  f"{name}: release-body.md states the integer rule")
            line = c50_repro(bundle, os.path.join(tmp, "co-" + name), name, res, body, tmp)
            if kind == "partial":
                check(line is not None, f"{name}: no reproduce line for its failures")
                print(f"ok: {name}: reproduce lines name the student's `make check`, "
                      f"e.g. {line}")
            rows.append((name, score, mx, res["score"], res["max-score"]))
        res, body, env = c50_run(bundle, os.path.join(tmp, "co-missing"), None, tmp)
        c50_validate(res, "missing", env)
        check(res["score"] == 0 and res["max-score"] == rows[0][4], "missing: 0 of all")
        check("no attention.c" in body, "missing: release-body.md says why")
        print("ok: a checkout without attention.c: score 0 of the full max, and why")
        c50_failures(src, tmp, bundle)
        for name, score, mx, s, m in rows:
            print(f"score: {name}: rubric {score:g} / {mx:g}, Classroom 50 {s} / {m}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


# ---- plain CI: the formats a GitHub or GitLab job reads, on a compile error ----

def ci(src, build):
    """A submission that does not compile, through the real grader: JUnit
    valid against the xunit schema with one <error> holding the compiler's
    message; GitHub annotations with the error's line."""
    tmp = tempfile.mkdtemp(prefix="plat-ci.")
    try:
        sub = os.path.join(tmp, "attention.c")
        with open(sub, "w") as f:
            f.write('#include "attention.h"\n\nint broken = ;\n')
        grader = os.path.join(build, "grader")
        spec = os.path.join(src, "specs", "public.yaml")
        p = sh([grader, "grade", "--format", "junit", "--spec", spec, sub])
        check(p.returncode == 0, "junit: the grader runs")
        xml = os.path.join(tmp, "junit.xml")
        with open(xml, "wb") as f:
            f.write(p.stdout)
        v = sh(["xmllint", "--noout", "--schema",
                os.path.join(src, "tests", "junit-10.xsd"), xml])
        check(v.returncode == 0, "junit-10.xsd accepts it:\n" + v.stderr.decode())
        text = p.stdout.decode()
        check(text.count("<testcase") == 1 and text.count("<error") == 1
              and "<failure" not in text, "one test case, one <error>:\n" + text)
        case = text[text.index("<testcase"):text.index("</testcase>")]
        check("attention.c:3:14: error:" in case,
              "the compiler's message is in the test case:\n" + case)
        print("ok: a compile error is one JUnit <error> with the compiler's "
              "message, valid against the xunit plugin's schema")
        p = sh([grader, "grade", "--format", "github", "--spec", spec, sub])
        out = p.stdout.decode()
        check(out.startswith("::error file=attention.c,line=3,col=14,"
                             "title=compile error::error: "),
              "an ::error annotation on line 3:\n" + out[:500])
        print("ok: the github format annotates attention.c line 3")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    fns = {"gradescope": gradescope, "classroom50": classroom50, "ci": ci}
    if len(sys.argv) != 4 or sys.argv[1] not in fns:
        print(__doc__)
        sys.exit(2)
    fn = fns[sys.argv[1]]
    sys.exit(fn(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])))
