#!/bin/sh
# The last step of `make template`: refuse a student tree that holds a
# staff-only file, or whose Makefile did not come out standalone (the sed
# of the course's student Makefile no longer matching it).
# Usage: sh grader/template/guard.sh DIST_TREE    (run from the repo root)
set -u
out=$1
bad=0

fail() {
    echo "template: $*" >&2
    bad=1
}

# trusted.c/h: the staff build's double-precision softmax, attention, PE,
# layer norm, multi-head attention and block (an answer key); the student
# build answers from specs/public.golden instead.
for name in hidden.yaml impl_local.c reference trusted.c trusted.h; do
    hits=$(find "$out" -name "$name" | head -n 3)
    [ -z "$hits" ] || fail "staff-only '$name' in the student tree: $hits"
done
if [ -f reference/attention.c ]; then
    same=$(find "$out" -type f -name '*.c' -exec cmp -s {} reference/attention.c \; -print)
    [ -z "$same" ] || fail "the reference solution in the student tree: $same"
fi
grep -q -- '-C \.\.' "$out/Makefile" &&
    fail "'$out/Makefile' still calls the course repository (make -C ..)"
# shellcheck disable=SC2016 # a literal make variable
grep -q 'grade $(CHECK_FLAGS) --require-pass' "$out/Makefile" ||
    fail "'$out/Makefile': check does not pass CHECK_FLAGS (student_template/Makefile changed?)"
grep -q criterion "$out/grader/deps.sh" &&
    fail "'$out/grader/deps.sh' still asks for criterion (grader/deps.sh changed?)"
[ -s "$out/specs/public.golden" ] ||
    fail "'$out/specs/public.golden' is missing: the student build has no expected values"
[ "$bad" -eq 0 ] || { rm -rf "$out"; exit 1; }
exit 0
