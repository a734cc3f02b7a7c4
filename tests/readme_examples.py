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
  readme_examples.py --run CLONE             run the README's examples as a
                                             student types them (below)

--run: CLONE is a clone of the template repository (`make template`, git
init, add -A, commit, clone; tests/template.sh) with the grader built and a
correct attention.c in it. Every line of every ```sh block of its README.md
runs, exactly as printed, with `sh -c` in CLONE (a UTF-8 locale, as a
student's terminal), in order, and must exit 0; a block of one command
followed by a marked output block must print that output (all of it, or
its last lines after "..."). Then what the examples promise must hold:
the file part 3's commands write is the one answers.yaml's part3 names,
part 4 permutes part 1's text, answers.yaml filled from what the examples
printed passes `make check-written` (its parts 1, 3 and 4), and no example
or code span holds a Makefile variable (`$(...)`) instead of something to
type.
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


SH_BLOCK = "```sh"
TEXT_OF = re.compile(r'TEXT="([^"]*)"')


def sh_blocks(lines):
    """(first line index, command lines, marker args or None) per ```sh block."""
    found = []
    i = 0
    while i < len(lines):
        if lines[i] != SH_BLOCK:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end] != "```":
            end += 1
        cmds = [ln for ln in lines[i + 1:end] if ln.strip() and not ln.startswith("#")]
        m = MARK.match(lines[end + 1]) if end + 1 < len(lines) else None
        found.append((i, cmds, m.group(1) if m else None, end + 1))
        i = end + 1
    return found


PAIR = re.compile(r"^\s+\d\. (\S+) (?:\u2192|->) (\S+)\s+([0-9.]+)")
ORDER_OF = re.compile(r'ORDER="([^"]*)"')
VECTORS_OF = re.compile(r"VECTORS=(\S+)")


def answers_from_examples(clone, env, outputs):
    """answers.yaml filled from what the examples printed, as the README
    tells a student to: `make check-written ONLY='^written\\.'` must pass
    (the manual items pending). Returns the number of failures."""
    part1 = part3 = perm = None
    for cmd, out in outputs:
        if cmd.startswith("make map") and "PE=1" not in cmd and "VECTORS=" not in cmd:
            part1 = part1 or (cmd, out)
        elif cmd.startswith("make map") and "VECTORS=" in cmd:
            part3 = part3 or cmd
        elif cmd.startswith("make permute") and "PE=1" in cmd:
            perm = perm or (cmd, out)
    if not (part1 and part3 and perm):
        print("FAIL: the examples lack part 1's map, part 3's map with VECTORS or part 4's "
              "permute with PE=1")
        return 1
    pairs = [PAIR.match(ln).groups() for ln in part1[1] if PAIR.match(ln)]
    diff = re.search(r"max_abs_diff: ([0-9.]+)", "\n".join(perm[1]))
    if len(pairs) != 3 or not diff:
        print(f"FAIL: part 1's map printed {len(pairs)} pairs, part 4's permute "
              f"{'a' if diff else 'no'} max_abs_diff")
        return 1
    order = ORDER_OF.search(perm[0]).group(1).split()
    yaml = [f'text: "{TEXT_OF.search(part1[0]).group(1)}"', "pe: false", "top_pairs:"]
    yaml += [f'  - {{query: "{q}", key: "{k}", weight: {w}}}' for q, k, w in pairs]
    yaml += ["part2:", '  - "an artefact"', '  - "an artefact"', '  - "an artefact"',
             "part3:", f'  text: "{TEXT_OF.search(part3).group(1)}"',
             f"  vectors: {VECTORS_OF.search(part3).group(1)}", '  note: "meaningless"',
             "part4:", f"  order: [{', '.join(order)}]", "  pe: true",
             f"  max_abs_diff: {diff.group(1)}"]
    path = os.path.join(clone, "answers.yaml")
    with open(path, encoding="utf-8") as f:
        kept = f.read()
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(yaml) + "\n")
        p = subprocess.run(["make", "--no-print-directory", "check-written", "ONLY=^written\\."],
                           cwd=clone, env=env, capture_output=True, timeout=900, check=False)
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(kept)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0 or out.count("  MANUAL ") != 2:
        print(f"FAIL: answers.yaml filled from the examples' output: make check-written "
              f"exits {p.returncode}:\n{out[-3000:]}")
        return 1
    print("ok: answers.yaml filled from the examples' output passes make check-written "
          "(parts 1, 3 and 4; the manual items pending)")
    return 0


def run_clone(clone):
    path = os.path.join(clone, "README.md")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "LC_ALL", "LC_CTYPE")}
    env["LANG"] = "C.UTF-8"
    fails = 0
    texts = {}
    outputs = []   # (command, its stdout lines), in order
    blocks_found = sh_blocks(lines)
    if len(blocks_found) < 6:
        print(f"FAIL: README.md has {len(blocks_found)} ```sh blocks, expected 6 or more")
        return 1
    for i, cmds, marker, after in blocks_found:
        for cmd in cmds:
            p = subprocess.run(["sh", "-c", cmd], cwd=clone, env=env, capture_output=True,
                               timeout=900, check=False)
            out = p.stdout.decode("utf-8", "replace").rstrip("\n").split("\n")
            words = cmd.split()
            tool = words[1] if len(words) > 1 and words[0] == "make" else words[0]
            m = TEXT_OF.search(cmd)
            if m and tool in ("map", "permute") and tool not in texts:
                texts[tool] = m.group(1)
            outputs.append((cmd, out))
            if p.returncode != 0:
                fails += 1
                print(f"FAIL: README.md:{i + 1}: `{cmd}` exits {p.returncode}:")
                print(p.stderr.decode("utf-8", "replace")[-2000:] + "\n".join(out[-10:]))
                continue
            if marker is not None and len(cmds) == 1:
                end = after + 2
                while end < len(lines) and lines[end] != "```":
                    end += 1
                body = lines[after + 2:end]
                want = expected(body, out)
                if want != body:
                    fails += 1
                    print(f"FAIL: README.md:{i + 1}: `{cmd}` does not print the block under it:")
                    sys.stdout.writelines(d + "\n" for d in difflib.unified_diff(
                        body, want, "README.md", "printed", lineterm=""))
                    continue
                print(f"ok: README.md:{i + 1}: `{cmd[:60]}` prints the block under it")
                continue
            print(f"ok: README.md:{i + 1}: `{cmd[:70]}`")
    with open(os.path.join(clone, "answers.yaml"), encoding="utf-8") as f:
        answers = f.read()
    m = re.search(r"^part3:\n(?:  .*\n|\s*\n)*?  vectors: (\S+)", answers, re.M)
    if not m:
        fails += 1
        print("FAIL: answers.yaml names no part3 vectors file")
    elif not os.path.isfile(os.path.join(clone, m.group(1))):
        fails += 1
        print(f"FAIL: answers.yaml's part3 reads '{m.group(1)}', which no example writes")
    else:
        print(f"ok: the examples write answers.yaml's part3 file '{m.group(1)}'")
    if texts.get("map") is None or texts.get("map") != texts.get("permute"):
        fails += 1
        print(f"FAIL: part 4's example permutes {texts.get('permute')!r}, not part 1's "
              f"text {texts.get('map')!r} (answers.yaml asks for part 1's words)")
    else:
        print("ok: part 4's example permutes part 1's text")
    fails += answers_from_examples(clone, env, outputs)
    code = [ln for ln in lines if "$(" in ln and ("`" in ln or ln.startswith("make "))]
    if code:
        fails += 1
        print(f"FAIL: a Makefile variable where a command is expected: {code[0].strip()}")
    else:
        print("ok: no Makefile variable in an example or a code span")
    return 1 if fails else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--run":
        return run_clone(os.path.abspath(sys.argv[2]))
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
