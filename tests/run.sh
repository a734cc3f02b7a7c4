#!/bin/sh
# Run every test binary given, then print one closing line for the suite
# (the last line: "tests: N passed, N failed").
# Usage: [FUZZ_STATUS=0|N|skipped] tests/run.sh BUILD_DIR TEST_BIN...
set -u
build=$1; shift
export GRADER_BUILD="$build"
pass=0; fail=0; failed=""; tpass=0; tfail=0
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
    # Criterion's synthesis line: "Tested: N | Passing: P | Failing: F | Crashing: C"
    line=$(grep 'Synthesis:' "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
    f=$(echo "$line" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
    # (Criterion counts crashes among the failures.)
    # A suite that died before its synthesis counts as one failure.
    [ -n "$p" ] || { p=0; f=1; }
    tpass=$((tpass + p)); tfail=$((tfail + f))
done
# The fuzz harnesses (run before, by the Makefile; FUZZ_STATUS is their
# exit status, or "skipped"): one suite and one test.
case "${FUZZ_STATUS:-skipped}" in
    skipped) ;;
    0) pass=$((pass + 1)); tpass=$((tpass + 1)) ;;
    *) fail=$((fail + 1)); tfail=$((tfail + 1)); failed="$failed fuzz" ;;
esac
echo
# the diagnosis's cross-validation figures (tests/test_diag.c writes them)
[ -f "$build/diag-cv.txt" ] && cat "$build/diag-cv.txt"
# the diagnosis on unseen bugs (tests/test_diag_mutants.c writes them)
[ -f "$build/diag-mutants.txt" ] && cat "$build/diag-mutants.txt"
[ -n "$failed" ] && echo "failing suites:$failed"
echo "suites: $pass passed, $fail failed"
echo "tests: $tpass passed, $tfail failed"
[ "$fail" -eq 0 ]
