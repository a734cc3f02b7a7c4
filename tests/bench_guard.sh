#!/bin/sh
# bench_guard.sh: `make bench`'s guard. Each figure of a bench run is
# compared with the last one kept for the same machine kind in
# docs/PERFORMANCE.md ("Kept figures": lines "kept: KIND | NAME | VALUE |
# NOTE", the last of a KIND and NAME wins), and one more than 15 % worse is
# marked REGRESSION (exit 1).
#
#   sh tests/bench_guard.sh compare DOC KIND FIGS
#   sh tests/bench_guard.sh keep DOC KIND FIGS NOTE   append FIGS as kept
#   sh tests/bench_guard.sh --self-test   (or any --option: tests/run.sh's call)
#
# FIGS: one figure a line, "NAME|VALUE|lower" (smaller is better: times,
# ratios to the compile, page faults) or "NAME|VALUE|higher" (rates,
# speed-ups). KIND: what makes figures comparable (tests/bench.sh: the
# architecture, the CPUs online and the CPU's model name).
set -u
LIMIT=15   # per cent worse than kept: a regression

compare() { # compare DOC KIND FIGS
    awk -F'|' -v kind="$2" -v limit="$LIMIT" '
        function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
        FNR == NR {
            if ($0 !~ /^kept: /) next
            k = $1; sub(/^kept: /, "", k)
            if (trim(k) == kind) kept[trim($2)] = trim($3)
            next
        }
        {
            name = $1; v = $2 + 0; better = $3
            if (!(name in kept) || kept[name] + 0 == 0) {
                printf "  %-44s %12.2f   (none kept for this machine kind)\n", name, v
                next
            }
            k = kept[name] + 0
            worse = better == "higher" ? (k - v) / k * 100 : (v - k) / k * 100
            mark = worse > limit ? "   REGRESSION" : ""
            bad += mark != ""
            printf "  %-44s %12.2f   kept %12.2f   %+6.1f %% %s%s\n", name, v, k, worse,
                   better == "higher" ? "(higher is better)" : "", mark
        }
        END { exit bad > 0 }
    ' "$1" "$3"
}

keep() { # keep DOC KIND FIGS NOTE
    while IFS='|' read -r name value better; do
        echo "kept: $2 | $name | $value | $4"
    done <"$3" >>"$1"
}

self_test() {
    t=$(mktemp -d) || exit 2
    trap 'rm -rf "$t"' EXIT
    ok=0; bad=0
    check() { # check NAME CONDITION...
        name=$1; shift
        if "$@"; then ok=$((ok + 1)); else bad=$((bad + 1)); echo "FAIL: $name"; fi
    }
    cat >"$t/doc" <<'EOF'
# a doc
kept: m1 | grade cpu ms | 100 | old
kept: m1 | grade cpu ms | 200 | newer: this one counts
kept: m2 | grade cpu ms | 50 | another machine kind
kept: m1 | rate | 10 | x
EOF
    printf 'grade cpu ms|229|lower\nrate|8.8|higher\n' >"$t/ok"
    printf 'grade cpu ms|231|lower\nrate|10|higher\n' >"$t/slow"
    printf 'grade cpu ms|100|lower\nrate|8.4|higher\n' >"$t/fewer"
    printf 'new figure|5|lower\n' >"$t/new"
    compare "$t/doc" m1 "$t/ok" >"$t/out"
    check "within 15 % passes" [ $? -eq 0 ]
    check "no REGRESSION printed within 15 %" sh -c "! grep -q REGRESSION '$t/out'"
    check "the last kept line counts" grep -q "kept *200.00" "$t/out"
    compare "$t/doc" m1 "$t/slow" >"$t/out"
    check "15.5 % slower fails" [ $? -eq 1 ]
    check "REGRESSION printed" grep -q "grade cpu ms.*REGRESSION" "$t/out"
    compare "$t/doc" m1 "$t/fewer" >"$t/out"
    check "a rate 16 % lower fails (higher is better)" [ $? -eq 1 ]
    check "the rate is the regression" grep -q "^  rate .*REGRESSION" "$t/out"
    compare "$t/doc" m3 "$t/ok" >"$t/out"
    check "another machine kind compares with nothing" [ $? -eq 0 ]
    check "says none kept" grep -q "none kept" "$t/out"
    keep "$t/doc" m3 "$t/new" "note"
    check "keep appends" grep -q "^kept: m3 | new figure | 5 | note$" "$t/doc"
    compare "$t/doc" m3 "$t/new" >"$t/out"
    check "a kept figure compares" grep -q "kept *5.00" "$t/out"
    echo "[====] Synthesis: Tested: $((ok + bad)) | Passing: $ok | Failing: $bad | Crashing: 0"
    [ "$bad" -eq 0 ]
}

case ${1:-} in
compare) compare "$2" "$3" "$4" ;;
keep) keep "$2" "$3" "$4" "$5" ;;
-*) self_test ;;
*) echo "usage: bench_guard.sh compare|keep DOC KIND FIGS [NOTE] | --self-test" >&2; exit 2 ;;
esac
