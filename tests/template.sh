#!/bin/sh
# shellcheck disable=SC2086,SC2046  # $files and set -- $(...) split on purpose
# End-to-end test of `make template` (grader/template.mk), run by
# tests/test_template.c:
#   1. make template into a temporary DIST;
#   2. the tree holds nothing of the reference solution or the hidden spec;
#   3. a copy of it (a "fresh clone") builds its grader once (STAFF=0);
#   4. that grader and its runner object hold nothing of them either, while
#      the staff grader does (so the scan can see a leak at all);
#   5. make check grades the stub (0 points, "not implemented", exit != 0),
#      and the workflow's grading steps (grade.yml) put the rubric in the
#      step summary, annotate the failures and fail;
#   6. with the reference copied in, make check gives full marks, exit 0;
#   7. make map follows the locale for its glyphs; make vectors round-trips;
#   8. the portable student build (PORTABLE=1) grades the reference fully;
#   9. no answer key: no exp/sin/cos/pow call in the shipped sources nor in
#      the student grader's undefined symbols (the staff grader's as a
#      control), no oracle/trusted.*, specs/public.golden present and for
#      this spec, a changed golden file and another --seed refused;
#  10. every correct alternative full marks in the template; trivial work
#      scores there what the staff grader gives it;
#  11. diagnosis first from the shipped data: a few catalogue bugs' rubrics
#      open with the line naming their mistake.
# Usage: sh tests/template.sh SRCDIR STAFF_BUILD_DIR
# Prints what it checks; exits 0 when everything holds, 1 otherwise.
set -u
src=$1
staff=$2
tmp=$(mktemp -d /tmp/grader-template.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
# A fresh clone is built with nothing of the outer `make test` (-j, BUILD=).
unset MAKEFLAGS MFLAGS MAKELEVEL GITHUB_OUTPUT
export LC_ALL=C
fails=0

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Identifiers and comment lines that only the reference has (checked to be
# in it below, so the list cannot go stale silently).
ref_names="sdpa_job sdpa_mix sdpa_run sdpa_weights layer_norm_row softmax_row
mha_work_alloc mha_valid block_work_alloc ffn_sublayer alloc_mat mul_ok eps_ok"
ref_phrases="the course's solution of
Every input and output is float; everything in between is
cancellation of E[x^2] - E[x]^2"

# ---- 1. make template ----
cd "$src" || exit 2
if grep -q '^include grader/template.mk' Makefile; then
    mk="make --no-print-directory"
else
    mk="make --no-print-directory -f grader/template.mk"   # not wired yet
fi
if $mk template DIST="$tmp/dist" >"$tmp/template.log" 2>&1; then
    ok "make template"
else
    bad "make template failed:"; cat "$tmp/template.log"; exit 1
fi
tree="$tmp/dist/student_template"
for f in attention.h attention.c README.md answers.yaml Makefile \
         specs/public.yaml specs/written.yaml grader/deps.sh grader/attention.h \
         grader/cli/main.c grader/sandbox/runner_main.c .github/workflows/grade.yml; do
    [ -f "$tree/$f" ] || bad "the tree lacks '$f'"
done

# The student's deps.sh asks only for what the student build needs.
pk=$(sh "$tree/grader/deps.sh" --print)
case " $pk " in
    *" libxml2-utils "*|*" perl "*|*criterion*) bad "student deps.sh asks for: $pk" ;;
    *" libyaml-dev "*) ok "student deps.sh asks for: $pk" ;;
    *) bad "student deps.sh lacks libyaml-dev: $pk" ;;
esac

# The dev container (Codespaces, VS Code) installs those very packages.
dc="$tree/.devcontainer/devcontainer.json"
if [ -f "$dc" ] && grep -q '"image": *"[^"]*debian' "$dc"; then
    for p in $pk; do
        grep -q "install[^\"]* $p\b" "$dc" || bad "devcontainer.json does not install '$p'"
    done
    ok "devcontainer.json: Debian, with the packages deps.sh names"
else
    bad "the tree has no Debian .devcontainer/devcontainer.json"
fi

# ---- 2. nothing of the reference or the hidden spec in the tree ----
n=0
for w in $ref_names; do
    grep -qw "$w" reference/attention.c && n=$((n + 1))
done
[ "$n" -ge 8 ] || bad "only $n of the reference's names are still in reference/attention.c: update ref_names"
scan_text() {   # scan_text WHAT FILE... : report the reference's names and phrases
    what=$1; shift
    for w in $ref_names; do
        grep -qw "$w" reference/attention.c || continue
        hit=$(grep -lw -- "$w" "$@" 2>/dev/null | head -n 1)
        [ -z "$hit" ] || bad "$what: the reference's '$w' in $hit"
    done
    echo "$ref_phrases" | while IFS= read -r p; do
        hit=$(grep -lF -- "$p" "$@" 2>/dev/null | head -n 1)
        [ -z "$hit" ] || echo "FAIL: $what: the reference's comment '$p' in $hit"
    done | grep . && fails=$((fails + 1))
    return 0
}
files=$(find "$tree" -type f)
scan_text "tree" $files
for name in hidden.yaml reference impl_local.c; do
    [ -z "$(find "$tree" -name "$name")" ] || bad "the tree holds a '$name'"
done
# The spec's header comment may say that a hidden spec exists; nothing else
# may name it.
hit=$(grep -n 'hidden\.yaml' $files | grep -v ':[0-9]*: *#' | head -n 3)
[ -z "$hit" ] || bad "the tree names hidden.yaml: $hit"
grep -o '^- id: .*' specs/hidden.yaml | cut -c7- | sort -u >"$tmp/hid"
grep -o '^- id: .*' specs/public.yaml | cut -c7- | sort -u >"$tmp/pub"
comm -23 "$tmp/hid" "$tmp/pub" >"$tmp/hidden_ids"
[ -s "$tmp/hidden_ids" ] || bad "found no hidden-only test ids in specs/hidden.yaml"
while read -r id; do
    re="(^|[^A-Za-z0-9_.])$(echo "$id" | sed 's/\./\\./g')($|[^A-Za-z0-9_])"
    hit=$(grep -lE -- "$re" $files | head -n 1)
    [ -z "$hit" ] || bad "hidden test id '$id' in $hit"
done <"$tmp/hidden_ids"
# Any long line of the hidden spec that the shipped specs do not share.
awk 'length($0) >= 40' specs/hidden.yaml | grep -vxF -f specs/public.yaml |
    grep -vxF -f specs/written.yaml >"$tmp/hidden_lines"
hit=$(grep -lxF -f "$tmp/hidden_lines" $files | head -n 1)
[ -z "$hit" ] || bad "a line of specs/hidden.yaml in $hit"
[ "$fails" -eq 0 ] && ok "the tree holds nothing of reference/attention.c or specs/hidden.yaml"

# ---- 3. the template repository as git makes it, cloned; the workflow ----
# As docs/CLASSROOM.md says: git init, add -A, commit; the student works in
# a clone. A file that .gitignore hides (grader/build/ once did) is missing
# from the clone, so every file of the tree must be in the commit.
clone="$tmp/clone"
git_id="-c user.name=course -c user.email=course@example.edu -c init.defaultBranch=main"
if (cd "$tree" && git init -q -b main && git add -A &&
    git $git_id commit -q -m "Assignment: attention in C") >"$tmp/git.log" 2>&1 &&
   git clone -q "$tree" "$clone" >>"$tmp/git.log" 2>&1; then
    ok "the template made with git init/add -A/commit, then cloned"
else
    bad "git init/commit/clone of the template:"; cat "$tmp/git.log"; exit 1
fi
(cd "$tree" && find . -path ./.git -prune -o -type f -print | cut -c3- | sort) >"$tmp/tree.files"
(cd "$clone" && git ls-files | sort) >"$tmp/clone.files"
missing=$(comm -23 "$tmp/tree.files" "$tmp/clone.files" | head -n 5 | tr '\n' ' ')
[ -z "$missing" ] || bad "the tree's files missing from the clone (.gitignore?): $missing"
# Every .gitignore pattern is anchored: a bare `build/` also hides grader/build/.
hit=$(grep -v '^#' "$clone/.gitignore" | grep -v '^/' | grep . | head -n 3 | tr '\n' ' ')
[ -z "$hit" ] || bad ".gitignore patterns not anchored with a leading /: $hit"

# The workflow's steps (grade.yml), each `run:` as Actions runs it (bash -e,
# the job's LC_ALL=C, a step summary file), in the clone; apt-get (root,
# network) is the one step left out: its packages are checked instead.
# GRD_OPT (-Werror, not for students) reaches the build step through the
# environment: a warning in the student build, such as a header included
# only under GRADER_STAFF, must fail our suite.
wf="$clone/.github/workflows/grade.yml"
awk -v dir="$tmp" '
    /^        run: \|$/ { n++; f = dir "/gh_step." n; blk = 1; next }
    /^        run: / { n++; sub(/^        run: /, ""); print > (dir "/gh_step." n); blk = 0; next }
    blk && /^          / { sub(/^          /, ""); print > f; next }
    { blk = 0 }
    END { print n > (dir "/gh_steps") }' "$wf"
n_steps=$(cat "$tmp/gh_steps")
for p in $pk; do
    case "$p" in gcc|make|binutils) continue ;; esac   # on ubuntu-latest already
    grep -q "apt-get install.* $p\b" "$wf" || bad "grade.yml does not install '$p'"
done
run_gh_steps() {   # run_gh_steps LABEL: every step but apt-get; $tmp/LABEL.gh, .rc
    : >"$tmp/summary.md"
    : >"$tmp/$1.gh"
    i=1; rc=0
    while [ "$i" -le "$n_steps" ]; do
        if grep -q 'apt-get' "$tmp/gh_step.$i"; then i=$((i + 1)); continue; fi
        echo "--- step $i" >>"$tmp/$1.gh"
        (cd "$clone" && GITHUB_STEP_SUMMARY="$tmp/summary.md" GRD_OPT="-O2 -g -Werror" \
            bash -e "$tmp/gh_step.$i") >"$tmp/$1.step$i" 2>&1
        rc=$?
        cat "$tmp/$1.step$i" >>"$tmp/$1.gh"
        echo "$rc" >"$tmp/$1.rc$i"
        [ "$rc" -eq 0 ] || break   # a failed step ends the job
        i=$((i + 1))
    done
    echo "$i" >"$tmp/$1.last"
    return "$rc"
}
run_gh_steps stub
rc=$?
last=$(cat "$tmp/stub.last")
build_step=$(grep -l 'make --no-print-directory grader' "$tmp"/gh_step.* | head -n 1)
build_step=${build_step##*.}
if [ -x "$clone/build/grader" ] && [ "$(cat "$tmp/stub.rc$build_step" 2>/dev/null)" = 0 ]; then
    ok "the workflow's build step builds the grader in the fresh clone (STAFF=0, -Werror)"
else
    bad "the workflow's build step failed in the clone:"; tail -n 40 "$tmp/stub.step$build_step"
    exit 1
fi
# A first build is one line (V=1 shows the commands).
if [ "$(grep -c . "$tmp/stub.step$build_step")" -eq 1 ] &&
   grep -q '^grader: building build/grader' "$tmp/stub.step$build_step"; then
    ok "the first build prints one line: $(cat "$tmp/stub.step$build_step")"
else
    bad "the first build is not one line:"; head -n 5 "$tmp/stub.step$build_step"
fi
if [ "$rc" -ne 0 ] && [ "$last" -eq "$n_steps" ] && grep -q '^# Grading report' "$tmp/summary.md" &&
   grep -q '^::error file=attention.c,title=softmax\.' "$tmp/stub.gh" &&
   grep -q '^::stop-commands::' "$tmp/stub.gh"; then
    ok "stub: every step of the workflow ran: rubric in the step summary, ::error annotations, the last step fails the job (exit $rc)"
else
    bad "stub: workflow steps rc=$rc, stopped at step $last of $n_steps"; tail -n 5 "$tmp/stub.gh"
fi

# The GitLab example's before_script and script, as GitLab runs them (each
# line in a shell, the first failure ends the job), but apt-get.
gl=docs/gitlab-ci.example.yml
awk '/^  (before_script|script):$/ { on = 1; next } /^  [a-z_]+:/ { on = 0 }
     on && /^    - / { sub(/^    - /, ""); print }' "$gl" >"$tmp/gl_lines"
for p in $pk; do
    case "$p" in binutils) continue ;; esac   # gcc brings it
    grep -q "apt-get install.* $p\b" "$gl" || bad "$gl does not install '$p'"
done
run_gl_job() {   # run_gl_job LABEL: $tmp/LABEL.gl; the job's status
    : >"$tmp/$1.gl"
    rm -f "$clone/grader-junit.xml"
    while IFS= read -r line; do
        case "$line" in *apt-get*) continue ;; esac
        (cd "$clone" && LC_ALL=C sh -c "$line") >>"$tmp/$1.gl" 2>&1 || return 1
    done <"$tmp/gl_lines"
    return 0
}
junit_cases() { grep -c '<testcase ' "$clone/grader-junit.xml" 2>/dev/null; }
n_pub=$("$staff/grader" list --spec specs/public.yaml | grep -cE ' [0-9]+ cases? ')
if [ "$(wc -l <"$tmp/gl_lines")" -ge 3 ] && ! run_gl_job stub &&
   [ "$(junit_cases)" = "$n_pub" ] && grep -q '^score: 0.0 / ' "$tmp/stub.gl"; then
    ok "stub: the GitLab job writes grader-junit.xml ($n_pub test cases), prints the rubric and fails"
else
    bad "stub: the GitLab job (junit cases: $(junit_cases), want $n_pub)"; tail -n 5 "$tmp/stub.gl"
fi

# ---- 4. nothing of them in the binaries; the staff grader as a control ----
strings -a "$clone/build/grader" "$clone/build/runner_main.o" >"$tmp/bin.txt"
scan_text "binary" "$tmp/bin.txt"
while read -r id; do
    re="(^|[^A-Za-z0-9_.])$(echo "$id" | sed 's/\./\\./g')($|[^A-Za-z0-9_])"
    grep -qE -- "$re" "$tmp/bin.txt" && bad "binary: hidden test id '$id'"
done <"$tmp/hidden_ids"
grep -q 'hidden\.yaml' "$tmp/bin.txt" && bad "binary: names hidden.yaml"
if [ -x "$staff/grader" ]; then
    strings -a "$staff/grader" >"$tmp/staff.txt"
    n=0
    for w in $ref_names; do grep -qw "$w" "$tmp/staff.txt" && n=$((n + 1)); done
    if [ "$n" -gt 0 ]; then
        ok "control: the staff grader shows $n of the reference's names"
    else
        bad "control: the staff grader shows none of the reference's names: the scan is blind"
    fi
else
    bad "no staff grader at '$staff/grader' for the control"
fi

# ---- 5. the stub: 0 points, clear messages, exit != 0, no make noise ----
score_of() { sed -n 's/^score: \([0-9.]*\) \/ \([0-9.]*\) .*/\1 \2/p' "$1" | tail -n 1; }
# make's own lines around the rubric: its error line, recursion, "is up to
# date", the echoed grader command.
make_noise() { grep -nE '^make(\[[0-9]+\])?: |grade (\$\(CHECK_FLAGS\) )?--require-pass|--spec specs/' "$1" | head -n 3; }
make -C "$clone" --no-print-directory check >"$tmp/stub.txt" 2>&1
rc=$?
set -- $(score_of "$tmp/stub.txt")
if [ "$rc" -ne 0 ] && [ "${1:-x}" = "0.0" ] && [ -n "${2:-}" ] &&
   grep -q 'not implemented yet' "$tmp/stub.txt"; then
    ok "stub: score 0.0 / $2, 'not implemented yet', make check exit $rc"
else
    bad "stub: rc=$rc score='${1:-} / ${2:-}'"; tail -n 20 "$tmp/stub.txt"
fi
max=${2:-60.0}
noise=$(make_noise "$tmp/stub.txt")
if [ -z "$noise" ] && head -n 1 "$tmp/stub.txt" | grep -q '^attention-grader report'; then
    ok "stub: make check prints the rubric alone (no make line, no echoed command)"
else
    bad "stub: make noise around the rubric: ${noise:-first line $(head -n 1 "$tmp/stub.txt")}"
fi
# The written part in the template: the public and written specs graded
# together, from the shipped golden data (no other file needed).
make -C "$clone" --no-print-directory check-written >"$tmp/wstub.txt" 2>&1
rc=$?
set -- $(score_of "$tmp/wstub.txt")
wmax=$(awk -v m="$max" 'BEGIN { printf "%.1f", m + 20 }')
noise=$(make_noise "$tmp/wstub.txt")
if [ "$rc" -eq 1 ] && [ "${1:-x}" = "0.0" ] && [ "${2:-}" = "$wmax" ] && [ -z "$noise" ] &&
   grep -q '^  FAIL .* written\.top_pairs ' "$tmp/wstub.txt" &&
   grep -q '^  MANUAL .* written\.manual\.part2 ' "$tmp/wstub.txt"; then
    ok "stub: make check-written grades code and written parts together: 0.0 / $wmax, exit 1, no make noise"
else
    bad "stub: make check-written rc=$rc score='${1:-} / ${2:-}' (want 0.0 / $wmax) ${noise}"
    tail -n 5 "$tmp/wstub.txt"
fi
# Its reproduce line (the one batch feedback prints too) reruns one test.
repro=$(sed -n "s/^ *reproduce: \(make check-written ONLY='^written[^']*top_pairs[^']*'\)$/\1/p" \
        "$tmp/wstub.txt" | head -n 1)
[ -z "$repro" ] || (cd "$clone" && sh -c "$repro") >"$tmp/wrepro.txt" 2>&1
if [ -n "$repro" ] && grep -q '(0 of 1 tests passed)' "$tmp/wrepro.txt" &&
   grep -q 'written\.top_pairs' "$tmp/wrepro.txt"; then
    ok "stub: '$repro' reruns that test alone"
else
    bad "stub: check-written's reproduce line '${repro}':"; tail -n 5 "$tmp/wrepro.txt"
fi

# ---- 6. the reference copied in: full marks, exit 0 ----
cp reference/attention.c "$clone/attention.c"
make -C "$clone" --no-print-directory check >"$tmp/ref.txt" 2>&1
rc=$?
set -- $(score_of "$tmp/ref.txt")
if [ "$rc" -eq 0 ] && [ "${1:-x}" = "$max" ] && [ "${2:-y}" = "$max" ]; then
    ok "reference: score $1 / $2, make check exit 0"
else
    bad "reference: rc=$rc score='${1:-} / ${2:-}'"; tail -n 20 "$tmp/ref.txt"
fi
run_gh_steps ref
rc=$?
if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/ref.last")" -gt "$n_steps" ] &&
   ! grep -q '^::error' "$tmp/ref.gh" && grep -q "Score: $max / $max" "$tmp/summary.md"; then
    ok "reference: every step of the workflow passes, no annotation, full marks in the summary"
else
    bad "reference: workflow steps rc=$rc"; tail -n 5 "$tmp/ref.gh"
fi
if run_gl_job ref && [ "$(junit_cases)" = "$n_pub" ] &&
   ! grep -q '<failure\|<error' "$clone/grader-junit.xml"; then
    ok "reference: the GitLab job passes, its JUnit report without a failure"
else
    bad "reference: the GitLab job failed"; tail -n 5 "$tmp/ref.gl"
fi
# With answers that hold (tests/answers_fixtures/good), check-written passes
# with the manual items pending.
cp tests/answers_fixtures/good/* "$clone/"
make -C "$clone" --no-print-directory check-written >"$tmp/wref.txt" 2>&1
rc=$?
set -- $(score_of "$tmp/wref.txt")
if [ "$rc" -eq 0 ] && [ "${1:-x}" = "$(awk -v m="$max" 'BEGIN { printf "%.1f", m + 10 }')" ] &&
   [ "${2:-}" = "$wmax" ] && [ "$(grep -c '^  MANUAL ' "$tmp/wref.txt")" -eq 2 ]; then
    ok "reference with good answers: make check-written $1 / $2 (manual items pending), exit 0"
else
    bad "reference with good answers: check-written rc=$rc score='${1:-} / ${2:-}'"
    grep -E '^  (FAIL|CRASH)' "$tmp/wref.txt" | head -n 5
fi
(cd "$clone" && git checkout -q -- answers.yaml && rm -f part3_vectors.txt)

# ---- 7. the hands-on part in the clone: the heatmap follows the student's
# locale (the Makefile runs the grader with LC_ALL=C), vectors print ----
map_text="the cat sat on the mat"
env -u LC_ALL -u LC_CTYPE LANG=C.UTF-8 make -C "$clone" --no-print-directory map \
    TEXT="$map_text" >"$tmp/map_utf8.txt" 2>&1
env -u LC_ALL -u LC_CTYPE LANG=C make -C "$clone" --no-print-directory map \
    TEXT="$map_text" >"$tmp/map_c.txt" 2>&1
full_block=$(printf '\342\226\210')   # U+2588, the darkest shade
if grep -q "$full_block" "$tmp/map_utf8.txt"; then
    ok "map: Unicode shading under LANG=C.UTF-8"
else
    bad "map: no Unicode shading under LANG=C.UTF-8"; tail -n 20 "$tmp/map_utf8.txt"
fi
if grep -q '@@' "$tmp/map_c.txt" && ! grep -q "$full_block" "$tmp/map_c.txt"; then
    ok "map: the ASCII ramp under LANG=C"
else
    bad "map: not ASCII under LANG=C"; tail -n 20 "$tmp/map_c.txt"
fi
make -s -C "$clone" --no-print-directory vectors TEXT="$map_text" >"$tmp/vectors.txt" 2>&1
if [ "$(grep -vc '^#' "$tmp/vectors.txt")" -eq 5 ] &&
   make -C "$clone" --no-print-directory map TEXT="$map_text" VECTORS="$tmp/vectors.txt" \
       >"$tmp/map_vec.txt" 2>&1; then
    ok "vectors: 5 words, and map takes the file back"
else
    bad "vectors:"; cat "$tmp/vectors.txt" "$tmp/map_vec.txt" | tail -n 20
fi

# The README's examples, every command as printed (the reference is in):
# each exits 0, prints the output the README shows under it, and what they
# write is what answers.yaml names (tests/readme_examples.py --run).
if python3 "$src/tests/readme_examples.py" --run "$clone" >"$tmp/readme_run.txt" 2>&1; then
    ok "README: its $(grep -c '^ok: README' "$tmp/readme_run.txt") example commands run as printed; $(grep -c '^ok: [a-z]' "$tmp/readme_run.txt" | tr -d ' ') promises hold"
else
    bad "README examples as printed:"; grep -v '^ok' "$tmp/readme_run.txt" | head -n 30
fi
(cd "$clone" && git checkout -q -- . && git clean -fq)

# A compile error in make check: the compiler's message once (in the
# rubric), no make error line; the grader's own error (a bad ONLY): its
# line alone, exit 1.
printf 'int attn_softmax_rows(float *x)\n{\n    flaot y = 0\n}\n' >"$clone/attention.c"
make -C "$clone" --no-print-directory check >"$tmp/cerr.txt" 2>&1
rc=$?
noise=$(make_noise "$tmp/cerr.txt")
if [ "$rc" -eq 1 ] && [ -z "$noise" ] && grep -q '^COMPILE ERROR' "$tmp/cerr.txt" &&
   [ "$(grep -c "unknown type name .flaot" "$tmp/cerr.txt")" -eq 1 ]; then
    ok "compile error: the compiler's message once, in the rubric; no make line; exit 1"
else
    bad "compile error in make check: rc=$rc ${noise}"; head -n 12 "$tmp/cerr.txt"
fi
(cd "$clone" && git checkout -q -- attention.c)
make -C "$clone" --no-print-directory check ONLY='(' >"$tmp/gerr.txt" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && [ -z "$(make_noise "$tmp/gerr.txt")" ] &&
   [ "$(grep -c . "$tmp/gerr.txt")" -eq 1 ] && grep -q "^grader: bad --only pattern" "$tmp/gerr.txt"; then
    ok "grader error (ONLY='('): its one line, no make line, exit 1"
else
    bad "grader error in make check: rc=$rc"; head -n 5 "$tmp/gerr.txt"
fi
# No message of the template names a make target it lacks.
targets=$(make -C "$clone" -pRrq : 2>/dev/null | sed -n 's/^\([a-z][a-z-]*\):.*/\1/p' | sort -u)
# (what make printed in the clone so far; not the binaries' strings)
named=$(cd "$tmp" && cat stub.txt wstub.txt wrepro.txt ref.txt wref.txt map_utf8.txt \
        map_c.txt map_vec.txt cerr.txt gerr.txt 2>/dev/null |
        grep -oE '(`|reproduce: |^)make [a-z][a-z-]*' | sed 's/.* //' | sort -u)
for t in $named; do
    echo "$targets" | grep -qx "$t" || bad "a message names 'make $t', which the template lacks"
done
[ -n "$named" ] && ok "the targets the messages name are the template's: $(echo $named)"
cp reference/attention.c "$clone/attention.c"

# ---- 8. the portable student build (what a Mac builds), in the clone ----
if make -C "$clone" -j2 PORTABLE=1 GRD_OUT=build-portable GRADER=build-portable/grader \
        GRD_OPT="-O2 -g -Werror" V=1 grader >"$tmp/pbuild.log" 2>&1 &&
   grep -q -- '-c grader/cli/main.c' "$tmp/pbuild.log" &&
   make -C "$clone" --no-print-directory PORTABLE=1 GRD_OUT=build-portable \
        GRADER=build-portable/grader check >"$tmp/pref.txt" 2>&1; then
    set -- $(score_of "$tmp/pref.txt")
    ok "portable student build (PORTABLE=1, -Werror, V=1 shows its commands): the reference scores ${1:-?} / ${2:-?}"
else
    bad "portable student build:"; tail -n 20 "$tmp/pbuild.log" "$tmp/pref.txt"
fi

# ---- 9. no answer key: no trusted math shipped, golden data instead ----
# The shipped grader sources, comments and string literals removed, call
# none of exp, sin, cos, pow (or their float/long twins); a Gaussian sampler
# uses the polar method, expected values come from specs/public.golden.
math_re='(^|[^A-Za-z0-9_.>])(exp|expf|expl|exp2|expm1|sin|sinf|sinl|cos|cosf|cosl|sincos|sincosf|pow|powf|powl|tanh)[[:space:]]*\('
hits=""
for f in $(find "$tree/grader" -name '*.[ch]'); do
    cc -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null |
        sed -e 's/"\([^"\\]\|\\.\)*"/""/g' -e "s/'\([^'\\\\]\|\\\\.\)*'/''/g" |
        grep -qE "$math_re" && hits="$hits ${f#"$tree/"}"
done
n_src=$(find "$tree/grader" -name '*.[ch]' | wc -l)
if [ -z "$hits" ] && [ "$n_src" -gt 20 ]; then
    ok "no exp/sin/cos/pow call in the $n_src shipped grader sources"
else
    bad "exp/sin/cos/pow called in the shipped grader sources:$hits"
fi
sym_re=' (exp|expf|expl|exp2|expm1|sin|sinf|sinl|cos|cosf|cosl|sincos|sincosf|pow|powf|powl|tanh)(@|$)'
hit=$(nm -u "$clone/build/grader" 2>/dev/null | grep -E "$sym_re" | tr -s ' \n' ' ')
if [ -z "$hit" ] && nm -u "$clone/build/grader" | grep -q ' log\(@\|$\)'; then
    ok "the student grader's undefined symbols hold no exp/sin/cos/pow (log, sqrt only)"
else
    bad "the student grader needs math it must not have: ${hit:-no symbols read}"
fi
if [ -x "$staff/grader" ] && nm -u "$staff/grader" | grep -qE "$sym_re"; then
    ok "control: the staff grader's undefined symbols do hold them"
else
    bad "control: no exp/sin/cos/pow in the staff grader's symbols: the check is blind"
fi
for f in trusted.c trusted.h; do
    [ -z "$(find "$tree" -name "$f")" ] || bad "the tree holds the staff build's $f"
done
g="$tree/specs/public.golden"
gspec=$(sed -n 's/^spec //p' "$g" 2>/dev/null | cut -c1-12)
rspec=$(sed -n 's/^  spec: *//p' "$tmp/ref.txt" | head -n 1)
if [ -s "$g" ] && head -n 1 "$g" | grep -qx 'attention-grader-golden 1' &&
   [ -n "$gspec" ] && [ "$gspec" = "$rspec" ]; then
    ok "specs/public.golden ($(wc -c <"$g") bytes) names the public spec's hash"
else
    bad "specs/public.golden is missing or names another spec"
fi
# Changed data is refused, not used (its closing hash): in the clone.
g="$clone/specs/public.golden"
cp "$g" "$tmp/golden.bak"
awk '!done && /^o / { $2 = (substr($2, 1, 1) == "0" ? "1" : "0") substr($2, 2); done = 1 }
     { print }' "$tmp/golden.bak" >"$g"
make -C "$clone" --no-print-directory check >"$tmp/tamper.txt" 2>&1
rc=$?
(cd "$clone" && build/grader grade --spec specs/public.yaml attention.c) >/dev/null 2>&1
grc=$?
cp "$tmp/golden.bak" "$g"
# make check fails (1: make cannot exit 2 without its error line), the
# grader itself exits 2
if [ "$rc" -eq 1 ] && [ "$grc" -eq 2 ] && [ -z "$(make_noise "$tmp/tamper.txt")" ] &&
   grep -q 'closing hash does not match' "$tmp/tamper.txt"; then
    ok "a changed public.golden is refused (the grader exits 2; make check 1, its line alone)"
else
    bad "a changed public.golden was not refused: rc=$rc, grader $grc"; tail -n 3 "$tmp/tamper.txt"
fi
(cd "$clone" && build/grader grade --seed 7 attention.c) >"$tmp/seed.txt" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'seed 1 only' "$tmp/seed.txt"; then
    ok "another --seed is refused by the student build (its golden data is for seed 1)"
else
    bad "--seed 7 in the student build: rc=$rc"; tail -n 3 "$tmp/seed.txt"
fi

# ---- 10. in the template: every correct alternative full marks, trivial ~0 ----
for f in "$staff"/catalogue/submissions/correct_*.c "$staff"/catalogue/submissions/*_ok.c; do
    [ -f "$f" ] || continue
    cp "$f" "$clone/attention.c"
    make -C "$clone" --no-print-directory check >"$tmp/alt.txt" 2>&1
    set -- $(score_of "$tmp/alt.txt")
    if [ "${1:-x}" = "$max" ]; then
        ok "$(basename "$f"): score $1 / $max in the template"
    else
        bad "$(basename "$f"): score '${1:-}' / $max in the template"
        grep -E '^  (FAIL|CRASH|TIME)' "$tmp/alt.txt" | head -n 5
    fi
done
trivial=$(ls "$staff"/catalogue/submissions/trivial_*.c 2>/dev/null)
if [ -z "$trivial" ]; then   # none in the catalogue yet: a no-op of our own
    sed 's/return ATTN_ENOTIMPL;/return ATTN_OK;/' student_template/attention.c >"$tmp/trivial_noop.c"
    trivial="$tmp/trivial_noop.c"
fi
# The template grades trivial work about 0, exactly as the staff grader
# does on the same public tests.
for f in $trivial; do
    cp "$f" "$clone/attention.c"
    make -C "$clone" --no-print-directory check >"$tmp/triv.txt" 2>&1
    set -- $(score_of "$tmp/triv.txt")
    tpl=${1:-}
    "$staff/grader" grade --spec specs/public.yaml "$f" >"$tmp/triv_staff.txt" 2>&1
    set -- $(score_of "$tmp/triv_staff.txt")
    # "About 0": at most 2 % of the points, and what the staff build gives.
    if [ -n "$tpl" ] && [ "$tpl" = "${1:-x}" ] &&
       awk -v s="$tpl" -v m="$max" 'BEGIN { exit !(s <= 0.02 * m) }'; then
        ok "$(basename "$f"): score $tpl / $max in the template, as in the staff build"
    else
        bad "$(basename "$f"): score '$tpl' / $max in the template (at most 2 %), '${1:-}' in the staff build"
    fi
done

# ---- 11. diagnosis first, from the shipped data alone ----
for name in sdpa_no_scale pe_sin_cos_swapped layernorm_sample_variance mha_scale_by_dmodel; do
    f=$staff/catalogue/submissions/$name.c
    [ -f "$f" ] || { bad "no catalogue entry $f"; continue; }
    fn=${name%%_*}
    cp "$f" "$clone/attention.c"
    # (a diagnosis line wrapped at 100 columns continues indented 4: joined)
    make -C "$clone" --no-print-directory check 2>&1 |
        awk '/^    [^ ]/ && n { sub(/^ +/, ""); last = last " " $0; next }
             n { print last } { last = $0; n = 1 } END { if (n) print last }' >"$tmp/diag.txt"
    first=$(grep -n '^  [a-z]*: most likely cause: ' "$tmp/diag.txt" | grep " $fn: " | head -n 1)
    rows=$(grep -n '^  \(PASS\|FAIL\|CRASH\)' "$tmp/diag.txt" | head -n 1 | cut -d: -f1)
    if [ -n "$first" ] && [ "${first%%:*}" -lt "${rows:-999999}" ] &&
       echo "$first" | grep -qF "most likely cause: $(sed -n 's/^ \* bug: //p' "$f" | head -n 1)"; then
        ok "template: $name's rubric opens with its cause: $(echo "$first" | cut -d: -f2- | cut -c1-90)..."
    else
        bad "template: $name's rubric does not open with its cause"; sed -n '1,14p' "$tmp/diag.txt"
    fi
done

[ "$fails" -eq 0 ] || { echo "template: $fails check(s) failed"; exit 1; }
echo "template: all checks passed"
