#!/bin/sh
# make demo: grade the bundled sample submissions and show their rubrics.
# Usage: tests/demo.sh BUILD_DIR
set -u
build=$1
g="$build/grader"
show() {
    echo
    echo "=================================================================="
    echo "== $1"
    echo "=================================================================="
    shift
    "$g" grade "$@"
    rc=$?
    [ "$rc" -le 1 ] || { echo "demo: the grader failed (exit $rc)" >&2; exit 1; }
}
show "the reference solution, public + hidden specs (staff build)" \
    --spec specs/public.yaml --spec specs/hidden.yaml reference/attention.c
show "the student template as handed out (stubs)" student_template/attention.c
show "a buggy submission: the division by sqrt(d_k) is missing" \
    --spec specs/public.yaml --spec specs/hidden.yaml tests/submissions/sdpa_no_scale.c
show "a buggy submission: softmax without the max-shift" \
    tests/submissions/softmax_no_max_shift.c
show "a buggy submission: pre-norm instead of post-norm" \
    --only '^block\.' tests/submissions/block_prenorm.c
echo
echo "demo: done. Grade your own file with: $g grade path/to/attention.c"
