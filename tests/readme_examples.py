#!/usr/bin/env python3
"""readme_examples.py -- the student README's example outputs are what the
reference prints (called by tests/test_template.c; `make readme-examples`
rewrites them).

Each example in student_template/README.md is a fenced block right after a
marker line

    <!-- output of: TOOL ARGS -->

(invisible on GitHub), and holds what

    BUILD/grader TOOL ARGS --spec specs/public.yaml reference/attention.c

prints, run in an empty folder (the tools write their SVG there). A block
whose first line is "..." shows the output's last lines only.

  readme_examples.py SRCDIR BUILD            check: exit 1 and a diff per
                                             block that differs
  readme_examples.py SRCDIR BUILD --update   rewrite the blocks in place
"""

import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

MARK = re.compile(r"^<!-- output of: (.*) -->$")
README = os.path.join("student_template", "README.md")


def blocks(lines):
    """(marker index, tool args, first and last+1 line of the block body)."""
    found = []
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        if i + 1 >= len(lines) or lines[i + 1] != "```":
            sys.exit(f"{README}:{i + 1}: the marker is not followed by a ``` block")
        end = i + 2
        while end < len(lines) and lines[end] != "```":
            end += 1
        if end == len(lines):
            sys.exit(f"{README}:{i + 2}: the block is not closed")
        found.append((i, m.group(1), i + 2, end))
    return found


def output_of(src, build, args, tmp):
    cmd = [os.path.join(build, "grader")] + shlex.split(args) + [
        "--spec", os.path.join(src, "specs", "public.yaml"),
        os.path.join(src, "reference", "attention.c")]
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL")}
    env["LC_ALL"] = "C"
    p = subprocess.run(cmd, cwd=tmp, capture_output=True, env=env, check=False)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n"
                 + p.stderr.decode("utf-8", "replace"))
    return p.stdout.decode("utf-8").rstrip("\n").split("\n")


def expected(body, out):
    """What the block must hold: the whole output, or "..." and its tail."""
    if body and body[0] == "...":
        return ["..."] + out[len(out) - (len(body) - 1):]
    return out


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--update"):
        print(__doc__)
        return 2
    src, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    update = len(sys.argv) == 4
    path = os.path.join(src, README)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = blocks(lines)
    if len(found) < 4:
        print(f"FAIL: {README} has {len(found)} marked examples, expected 4 or more")
        return 1
    differ = 0
    with tempfile.TemporaryDirectory(prefix="readme-examples.") as tmp:
        for i, args, a, b in reversed(found):  # from the end: indices stay valid
            want = expected(lines[a:b], output_of(src, build, args, tmp))
            if want == lines[a:b]:
                print(f"ok: {README}:{i + 1}: {args[:60]}")
                continue
            differ += 1
            if update:
                lines[a:b] = want
                print(f"updated: {README}:{i + 1}: {args[:60]}")
            else:
                print(f"FAIL: {README}:{i + 1}: the example is not what the reference "
                      f"prints for: {args}")
                sys.stdout.writelines(d + "\n" for d in difflib.unified_diff(
                    lines[a:b], want, "README.md", "reference", lineterm=""))
    if update and differ:
        tmp_path = path + ".tmp"
        with open(tmp_path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        os.replace(tmp_path, path)
    if differ and not update:
        print(f"{differ} example(s) differ: `make readme-examples` rewrites them")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
