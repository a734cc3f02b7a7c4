#!/bin/sh
# Grading benchmark (make bench): medians and ratios, never a timed test.
# Usage: sh tests/bench.sh BUILD_DIR
#
# In one run, side by side (issue 15):
#   - grade / compile for the public spec and for public + hidden (the TA's
#     grade): the correct submission graded and `cc -c` alone on the same
#     file (the grader's flags), in interleaved runs, medians and ratios;
#     each grade with its tests on parallel lanes (the default) and with
#     --test-jobs 1 (one test at a time);
#   - a submission that loops in every function (tests/hostile/), public +
#     hidden, median;
#   - a class of 100 (tests/submissions/ plus hostile fixtures of
#     tests/batch_fixtures/ plus copies of the reference), public + hidden,
#     with --jobs 1 --test-jobs 1 (all in one line), --jobs 1 (each
#     submission's tests on parallel lanes) and --jobs 2 (two submissions at
#     once, each on one lane); the three gradebooks must be byte-identical;
#   - the load average before and after, since a shared machine moves the
#     absolute figures (the ratios less).
#   - similarity over the same class of 100 (grader similar), median of 3.
# BENCH_RUNS (10), BENCH_LOOP_RUNS (3); BENCH_CLASS=0 skips the class;
# BENCH_SIMILAR_ONLY=1 runs only the similarity figure.
set -eu
build=${1:-build}
grader=$build/grader
src=$(cd "$(dirname "$0")/.." && pwd)
pub="--spec $src/specs/public.yaml"
all="--spec $src/specs/public.yaml --spec $src/specs/hidden.yaml"
runs=${BENCH_RUNS:-10}
loop_runs=${BENCH_LOOP_RUNS:-3}
export LC_ALL=C

if ! "$grader" batch --help >/dev/null 2>&1; then
    echo "bench: '$grader batch' is not available" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
time_ms() { t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now); echo "($t1 - $t0) * 1000" | bc; }
load_before=$(load)

# ---- the class: 100 entries ----
class=$tmp/class
mkdir -p "$class"
n=0
add() { # add SOURCE NAME
    n=$((n + 1)); cp "$1" "$class/$(printf '%03d' "$n")-$2.c"
}
for f in "$src"/tests/submissions/*.c; do add "$f" "$(basename "$f" .c)"; done
for i in 1 2 3 4; do add "$src/tests/batch_fixtures/loop_forever.c" "hostile_loop$i"; done
for i in 1 2 3; do add "$src/tests/batch_fixtures/calls_exit.c" "hostile_exit$i"; done
for i in 1 2 3; do add "$src/tests/batch_fixtures/broken.c" "broken$i"; done
while [ "$n" -lt 100 ]; do add "$src/reference/attention.c" correct; done

# ---- similarity over the class (grader similar; goal: < 10 s on 2 cores) ----
# Most of this class is the reference and the catalogue made from it, so
# nearly every pair matches: the most work a class of 100 can ask for.
# BENCH_SIMILAR_ONLY=1 runs only this part.
: >"$tmp/sim"
i=0
while [ $i -lt 3 ]; do
    t0=$(now)
    "$grader" similar --format csv "$class" >"$tmp/sim.csv" 2>"$tmp/sim.err" || {
        cat "$tmp/sim.err" >&2; exit 1; }
    t1=$(now)
    echo "$t1 - $t0" | bc -l >>"$tmp/sim"
    i=$((i + 1))
done
sim_s=$(median <"$tmp/sim")
sim_pairs=$(($(wc -l <"$tmp/sim.csv") - 1))
sim_line() {
    printf '  similarity, %d files    %7.2f s   (%s pairs at the default threshold, median of 3;'\
' goal: < 10 s)\n' "$n" "$sim_s" "$sim_pairs"
}
if [ "${BENCH_SIMILAR_ONLY:-0}" = 1 ]; then
    echo "load:    $load_before (1, 5, 15 min) before the run"
    sim_line
    echo "load:    $(load) (1, 5, 15 min) after the run"
    exit 0
fi

# ---- per-submission cost, interleaved: cc, grade public, grade all ----
work=$tmp/one
mkdir -p "$work"
cp "$src/reference/attention.c" "$work/attention.c"
cc_cmd="cc -std=c11 -O2 -g0 -fPIE -fno-common -Wall -Wextra -I$build/include -c $work/attention.c -o $work/a.o"
i=0; : >"$tmp/cc"; : >"$tmp/gp"; : >"$tmp/ga"; : >"$tmp/gp1"; : >"$tmp/ga1"; : >"$tmp/loop"
while [ $i -lt "$runs" ]; do
    # shellcheck disable=SC2086
    time_ms $cc_cmd >>"$tmp/cc"
    # shellcheck disable=SC2086
    time_ms "$grader" grade $pub "$work/attention.c" >>"$tmp/gp"
    # shellcheck disable=SC2086
    time_ms "$grader" grade $all "$work/attention.c" >>"$tmp/ga"
    # shellcheck disable=SC2086
    time_ms "$grader" grade --test-jobs 1 $pub "$work/attention.c" >>"$tmp/gp1"
    # shellcheck disable=SC2086
    time_ms "$grader" grade --test-jobs 1 $all "$work/attention.c" >>"$tmp/ga1"
    i=$((i + 1))
done
i=0
while [ $i -lt "$loop_runs" ]; do
    # shellcheck disable=SC2086
    time_ms "$grader" grade $all "$src/tests/hostile/loop_everywhere.c" >>"$tmp/loop"
    i=$((i + 1))
done
cc_ms=$(median <"$tmp/cc"); gp_ms=$(median <"$tmp/gp"); ga_ms=$(median <"$tmp/ga")
gp1_ms=$(median <"$tmp/gp1"); ga1_ms=$(median <"$tmp/ga1")
loop_ms=$(median <"$tmp/loop")
echo "machine: $(uname -srm), $(nproc) CPUs online, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load:    $load_before (1, 5, 15 min) before the run"
echo
echo "per-submission cost ($runs interleaved runs, medians):"
printf '  cc -c alone                     %8.1f ms\n' "$cc_ms"
# ratio LABEL MS NOTE: one grade's median and its ratio to the compile
ratio() {
    printf '  %-31s %8.1f ms   %5.2f x compile%s\n' "$1" "$2" "$(echo "$2 / $cc_ms" | bc -l)" "$3"
}
ratio "grade, public" "$gp_ms" "   (goal: <= 1.5x)"
ratio "grade, public + hidden" "$ga_ms" "   (goal: <= 3x)"
ratio "grade, public, --test-jobs 1" "$gp1_ms" ""
ratio "grade, all, --test-jobs 1" "$ga1_ms" ""
printf '  loops in every function         %8.1f ms   (%s runs; goal: <= 5000 ms)\n' \
    "$loop_ms" "$loop_runs"

# ---- throughput ----
if [ "${BENCH_CLASS:-1}" = 0 ]; then   # per-submission figures only
    echo; echo "load:    $(load) (1, 5, 15 min) after the run"; exit 0
fi
run_batch() { # run_batch NAME BATCH-OPTIONS... -> seconds
    name=$1; shift
    rm -rf "$tmp/out$name"
    t0=$(now)
    # shellcheck disable=SC2086
    "$grader" batch $all "$@" --out "$tmp/out$name" "$class" 2>"$tmp/log$name" >/dev/null
    t1=$(now)
    echo "$t1 - $t0" | bc -l
}
t1s=$(run_batch 1s --jobs 1 --test-jobs 1)
t1=$(run_batch 1 --jobs 1)
t2=$(run_batch 2 --jobs 2)
for o in 1 2; do
    if ! cmp -s "$tmp/out1s/grades.csv" "$tmp/out$o/grades.csv"; then
        echo "bench: the gradebooks differ (--jobs 1 --test-jobs 1 against run $o)" >&2
        exit 1
    fi
done
echo
echo "class of $n submissions (public + hidden):"
# rate LABEL SECONDS NOTE: one batch of the class
rate() {
    printf '  %-22s %7.1f s   %6.2f submissions/s   (%s)\n' "$1" "$2" "$(echo "$n / $2" | bc -l)" "$3"
}
rate "--jobs 1 --test-jobs 1" "$t1s" "one test at a time"
rate "--jobs 1" "$t1" "tests on parallel lanes"
rate "--jobs 2" "$t2" "two submissions at once"
printf '  speed-up, --jobs 2 / one at a time  %5.2f x   (goal: >= 1.8x)\n' "$(echo "$t1s / $t2" | bc -l)"
printf '  speed-up, --jobs 2 / --jobs 1       %5.2f x   (--jobs 1 already uses both CPUs)\n' \
    "$(echo "$t1 / $t2" | bc -l)"
printf '  total (--jobs 2)      %8.1f s   (goal: < 30 s)\n' "$t2"
# report.html of that class, written again from its rows (grader report)
t0=$(now)
"$grader" report "$tmp/out2" 2>/dev/null
t1=$(now)
printf '  report.html           %8.2f s   %7.0f KB   (grader report; goals: < 1 s, < 2 MB)\n' \
    "$(echo "$t1 - $t0" | bc -l)" "$(echo "$(wc -c <"$tmp/out2/report.html") / 1024" | bc -l)"
sim_line

# ---- the slowest submission (from the one-at-a-time progress lines) ----
slow=$(sed -n 's/^\[[0-9]*\/[0-9]*\] \(.*\): \([a-z_]*\) .* (\([0-9.]*\) s).*$/\3 \1 \2/p' "$tmp/log1s" |
       sort -rn | head -n 1)
secs=${slow%% *}; rest=${slow#* }; id=${rest% *}; status=${rest##* }
row=$tmp/out1s/$id/row.tsv
timeouts=$(grep -c '^test	[^	]*	timed_out' "$row" || true)
crashes=$(grep -c '^test	[^	]*	crashed' "$row" || true)
echo
echo "slowest submission: $id ($secs s, status $status)"
if [ "$status" = budget_exhausted ]; then
    echo "  bounded by the whole-submission budget (grade_opts.budget_ms, 15 s by default)"
elif [ "$timeouts" -gt 0 ]; then
    echo "  bounded by the per-call deadlines: $timeouts tests timed out, each killed at its deadline"
else
    echo "  bounded by its own work ($crashes tests crashed, none timed out)"
fi
echo
echo "load:    $(load) (1, 5, 15 min) after the run"
