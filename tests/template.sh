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
#   8. the portable student build (PORTABLE=1) grades the reference fully.
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

# ---- 3. a fresh clone builds its grader once ----
clone="$tmp/clone"
cp -R "$tree" "$clone"
# -Werror here (not for students): a warning in the student build, such
# as a header included only under GRADER_STAFF, must fail our suite.
if make -C "$clone" -j2 GRD_OPT="-O2 -g -Werror" grader >"$tmp/build.log" 2>&1; then
    ok "make grader in the clone (STAFF=0, -Werror)"
else
    bad "the clone's grader does not build:"; tail -n 40 "$tmp/build.log"; exit 1
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

# ---- 5. the stub: 0 points, clear messages, exit != 0 ----
score_of() { sed -n 's/^score: \([0-9.]*\) \/ \([0-9.]*\) .*/\1 \2/p' "$1" | tail -n 1; }
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
# The workflow's own two grading steps, as Actions runs them: each `run:`
# line of grade.yml after the build, in the clone, with a step summary file.
wf="$clone/.github/workflows/grade.yml"
steps=$(sed -n 's/^        run: \(.*grader.*\|.*check.*\)$/\1/p' "$wf" | grep -v -- '--no-print-directory grader$')
[ "$(printf '%s\n' "$steps" | wc -l)" -eq 2 ] || bad "grade.yml: expected 2 grading steps, got: $steps"
run_steps() {   # $1: output file; exit status: the last step's
    : >"$tmp/summary.md"
    printf '%s\n' "$steps" | while IFS= read -r step; do
        (cd "$clone" && GITHUB_STEP_SUMMARY="$tmp/summary.md" sh -c "$step") >>"$1" 2>&1
        echo $? >"$tmp/step.rc"
    done
    return "$(cat "$tmp/step.rc")"
}
run_steps "$tmp/stub.gh"
rc=$?
if [ "$rc" -ne 0 ] && grep -q '^# Grading report' "$tmp/summary.md" &&
   grep -q '^::error file=attention.c,title=softmax\.' "$tmp/stub.gh" &&
   grep -q '^::stop-commands::' "$tmp/stub.gh"; then
    ok "stub: the workflow's steps: rubric in the step summary, ::error annotations, job fails (exit $rc)"
else
    bad "stub: workflow steps rc=$rc"; tail -n 5 "$tmp/stub.gh"
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
run_steps "$tmp/ref.gh"
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q '^::error' "$tmp/ref.gh" &&
   grep -q "Score: $max / $max" "$tmp/summary.md"; then
    ok "reference: the workflow's steps pass, no annotation, full marks in the summary"
else
    bad "reference: workflow steps rc=$rc"; tail -n 5 "$tmp/ref.gh"
fi

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

# ---- 8. the portable student build (what a Mac builds), in the clone ----
if make -C "$clone" -j2 PORTABLE=1 GRD_OUT=build-portable GRADER=build-portable/grader \
        GRD_OPT="-O2 -g -Werror" grader >"$tmp/pbuild.log" 2>&1 &&
   make -C "$clone" --no-print-directory PORTABLE=1 GRD_OUT=build-portable \
        GRADER=build-portable/grader check >"$tmp/pref.txt" 2>&1; then
    set -- $(score_of "$tmp/pref.txt")
    ok "portable student build (PORTABLE=1, -Werror): the reference scores ${1:-?} / ${2:-?}"
else
    bad "portable student build:"; tail -n 20 "$tmp/pbuild.log" "$tmp/pref.txt"
fi

[ "$fails" -eq 0 ] || { echo "template: $fails check(s) failed"; exit 1; }
echo "template: all checks passed"
