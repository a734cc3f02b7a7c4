#!/bin/sh
# Run every test binary given, then print one closing line for the suite.
# Usage: tests/run.sh BUILD_DIR TEST_BIN...
set -u
build=$1; shift
export GRADER_BUILD="$build"
pass=0; fail=0; failed=""
log=$(mktemp) || exit 2
trap 'rm -f "$log"' EXIT INT TERM
for t in "$@"; do
    name=$(basename "$t")
    echo "== $name"
    if "$t" --jobs=2 >"$log" 2>&1; then
        pass=$((pass + 1)); tail -n 3 "$log"
    else
        fail=$((fail + 1)); failed="$failed $name"; tail -n 60 "$log"
    fi
done
echo
[ -n "$failed" ] && echo "failing suites:$failed"
echo "suites: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
