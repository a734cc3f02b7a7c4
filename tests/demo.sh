#!/bin/sh
# make demo: what the grader does, for a newcomer, in two screens: a table of
# the bundled sample submissions (score and first problem of each, graded
# with the public tests as a student's `make check` does), then the full
# rubric of one buggy submission.
# Usage: tests/demo.sh BUILD_DIR   (the Makefile has built the grader)
set -u
build=$1
g="$build/grader"
tmp=$(mktemp -d /tmp/grader-demo.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
spec=specs/public.yaml
# The table fits 100 columns: name, score, then the first problem from
# column PROBLEM_PAD + 1, wrapped once.
PROBLEM_PAD=40
PROBLEM_COLS=60
# The submission whose whole rubric closes the demo.
full=$build/catalogue/submissions/block_prenorm.c

cat=$build/catalogue/submissions
samples="reference/attention.c student_template/attention.c
$cat/sdpa_no_scale.c $cat/softmax_no_max_shift.c
$cat/sdpa_inverted_mask.c $cat/pe_sin_cos_swapped.c
$cat/layernorm_sample_variance.c $cat/mha_wrong_head_slicing.c
$cat/block_prenorm.c tests/batch_fixtures/broken.c"

# The first problem a rubric names: its first function's diagnosis when it
# has one (the line under the rubric's 'diagnosis' heading, with its
# wrapped continuation), else the banner's next line (compile error,
# refusal), the stubs, or the first test that did not pass with its first
# detail line; a diagnosis without its "(explains ...)". Printed as at
# most two lines of PROBLEM_COLS columns.
first_problem() {
    awk -v cols="$PROBLEM_COLS" -v pad="$PROBLEM_PAD" '
        function out(s,   a, b, cut) {
            if (length(s) <= cols) { print s; return }
            cut = cols; while (cut > 1 && substr(s, cut + 1, 1) != " ") cut--
            if (cut <= 1) cut = cols
            a = substr(s, 1, cut); b = substr(s, cut + 2)
            if (length(b) > cols) b = substr(b, 1, cols - 1) "~"
            printf "%s\n%" pad "s%s\n", a, "", b
        }
        function cont(s) { return s ~ /^ +[^ ]/ && (match(s, /^ +/) && RLENGTH == want) }
        taking && cont($0) { sub(/^ +/, ""); text = text " " $0; next }
        taking { sub(/ \(explains [^)]*\)/, "", text); out(text); taking = 0; done = 1 }
        done { next }
        /^diagnosis/ { diag = 1; next }
        diag && /^  [a-z_]+: / { sub(/^ +/, ""); text = $0; taking = 1; want = 4; next }
        /^(COMPILE ERROR|REJECTED|GRADER ERROR)/ { banner = 1; next }
        banner && /error/ { sub(/^ +/, ""); out("compile error: " $0); done = 1; next }
        /^not implemented yet:/ { text = $0; taking = 1; want = 2; next }
        /^  (FAIL|CRASH|TIME|TODO|SKIP) / && !id { id = $3; next }
        id { sub(/^ +/, ""); text = id ": " $0; taking = 1; want = 12; next }
        END { if (taking) { sub(/ \(explains [^)]*\)/, "", text); out(text) }
              else if (!done) print "-" }
    ' "$1"
}

score_of() {   # the header's "  score:      52.0 / 60.0"
    sed -n 's/^  score: *\([0-9.]*\) \/ \([0-9.]*\).*/\1\/\2/p' "$1" | head -n 1
}

echo
echo "== the sample submissions, graded with the public tests ($spec)"
printf '%-28s %-10s %s\n' "submission" "score" "first problem"
for s in $samples; do
    "$g" grade --spec "$spec" "$s" >"$tmp/r.txt" 2>"$tmp/err.txt"
    rc=$?
    [ "$rc" -le 1 ] || { echo "demo: the grader failed (exit $rc):" >&2; cat "$tmp/err.txt" >&2
                         exit 1; }
    name=$(basename "$s")
    [ "$s" = student_template/attention.c ] && name="template (stubs)"
    [ "$s" = reference/attention.c ] && name="reference"
    printf '%-28s %-10s %s\n' "$name" "$(score_of "$tmp/r.txt")" "$(first_problem "$tmp/r.txt")"
done
echo
echo "== one buggy submission's whole rubric: $full"
echo "   (the bug: a pre-norm block, X + sublayer(LN(X)), where the header asks for post-norm;"
echo "   the failures come first, the passing tests follow one line per function)"
"$g" grade --spec "$spec" --repro "make check SUB=$full" "$full"
rc=$?
[ "$rc" -le 1 ] || { echo "demo: the grader failed (exit $rc)" >&2; exit 1; }
echo
echo "demo: grade your own file with: make check SUB=path/to/attention.c [ONLY=regex]"
