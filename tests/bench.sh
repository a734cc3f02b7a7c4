#!/bin/sh
# Grading benchmark (make bench): medians and ratios, never a timed test.
# Usage: sh tests/bench.sh BUILD_DIR
#
# In one run, side by side (issues 15 and 23), each figure as wall time and
# as CPU time (user + sys of the command and every process it waited for,
# from getrusage via /usr/bin/time): on a shared machine the wall clock
# moves with the others' load, the CPU time much less.
#   - grade / compile for the public spec and for public + hidden (the TA's
#     grade): the correct submission graded and `cc -c` alone on the same
#     file (the grader's flags), in interleaved runs, medians and ratios;
#     each grade with its tests on parallel lanes (the default) and with
#     --test-jobs 1 (one test at a time);
#   - a submission that loops in every function (tests/hostile/), public +
#     hidden, median;
#   - the runners of a public + hidden grade: how many, and the minor page
#     faults of each (the kernel's count, `grader grade --stats`);
#   - a class of 100 (the catalogue, $build/catalogue/submissions/, plus hostile fixtures of
#     tests/batch_fixtures/ plus copies of the reference), public + hidden:
#     its compile floor (each of its sources compiled alone with `cc -c`,
#     summed, divided by the CPUs), then --jobs 1 --test-jobs 1 (all in one
#     line), --jobs 1 (each submission's tests on parallel lanes) and --jobs
#     2 (two submissions at once, each on one lane); the three gradebooks
#     must be byte-identical; then the --jobs 2 class regraded after a spec
#     change, against its first grade: a hidden test's points (the kept
#     objects and the kept verdicts are reused: no compile, no test run),
#     then a hidden case's seed (the kept objects only: every test runs);
#   - the load average before and after, since a shared machine moves the
#     absolute figures (the ratios less).
#   - similarity over the same class of 100 (grader similar), median of 3.
# BENCH_RUNS (7), BENCH_LOOP_RUNS (3); BENCH_CLASS=0 skips the class;
# BENCH_CLASS_SIZE=N grades only N of the class (a trial of the script);
# BENCH_SIMILAR_ONLY=1 runs only the similarity figure.
# Last, the guard (tests/bench_guard.sh): each figure against the last one
# kept in docs/PERFORMANCE.md for this machine kind, REGRESSION (and exit
# 1) for any more than 15 % worse; BENCH_KEEP=1 keeps this run's figures.
set -eu
build=${1:-build}
grader=$build/grader
src=$(cd "$(dirname "$0")/.." && pwd)
pub="--spec $src/specs/public.yaml"
all="--spec $src/specs/public.yaml --spec $src/specs/hidden.yaml"
runs=${BENCH_RUNS:-7}
loop_runs=${BENCH_LOOP_RUNS:-3}
export LC_ALL=C

if ! [ -x /usr/bin/time ]; then
    echo "bench: /usr/bin/time is needed (Debian: apt-get install time)" >&2
    exit 2
fi
if ! "$grader" batch --help >/dev/null 2>&1; then
    echo "bench: '$grader batch' is not available" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# measure FILE CMD...: append "wall_ms cpu_ms" of one run of CMD to FILE
# (CPU: user + sys of CMD and its waited-for descendants, getrusage).
measure() {
    out=$1; shift
    t0=$(now)
    /usr/bin/time -f '%U %S' -o "$tmp/rusage" "$@" >/dev/null 2>&1 || true
    t1=$(now)
    cpu=$(tail -n 1 "$tmp/rusage" | awk '{printf "%.0f", ($1 + $2) * 1000}')
    echo "$(echo "($t1 - $t0) * 1000" | bc) $cpu" >>"$out"
}
wall() { cut -d' ' -f1 <"$1" | median; }   # median wall ms of a measure file
cpu() { cut -d' ' -f2 <"$1" | median; }    # median CPU ms
ratio_of() { echo "$1 / $2" | bc -l; }
load_before=$(load)
# fig NAME VALUE lower|higher: a figure the guard compares (bench_guard.sh)
: >"$tmp/figs"
fig() { printf '%s|%s|%s\n' "$1" "$(printf '%.2f' "$2")" "$3" >>"$tmp/figs"; }
# The machine kind figures are kept for: the same kind compares.
kind="$(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
doc=$src/docs/PERFORMANCE.md
# guard: every figure against the last kept for this kind; BENCH_KEEP=1
# appends this run's as the new kept ones (after a change that is meant)
guard() {
    echo
    echo "figures against the last kept in docs/PERFORMANCE.md for \"$kind\""
    echo "(REGRESSION: more than 15 % worse; load now $(load)):"
    rc=0
    sh "$src/tests/bench_guard.sh" compare "$doc" "$kind" "$tmp/figs" || rc=$?
    if [ "${BENCH_KEEP:-0}" = 1 ]; then
        sh "$src/tests/bench_guard.sh" keep "$doc" "$kind" "$tmp/figs" \
            "$(date -u +%Y-%m-%d) $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?'), load $load_before"
        echo "bench: this run's figures appended to $doc (BENCH_KEEP=1)"
    fi
    [ "$rc" -eq 0 ] || echo "bench: REGRESSION: at least one figure is more than 15 % worse than kept"
    return "$rc"
}

# ---- the class: 100 entries ----
class=$tmp/class
mkdir -p "$class"
n=0
add() { # add SOURCE NAME
    n=$((n + 1)); cp "$1" "$class/$(printf '%03d' "$n")-$2.c"
}
# at most 90 of the catalogue (it has grown past that), so the ten hostile
# and broken entries stay in a class of 100
for f in "$build"/catalogue/submissions/*.c; do
    if [ "$n" -lt 90 ]; then add "$f" "$(basename "$f" .c)"; fi
done
for i in 1 2 3 4; do add "$src/tests/batch_fixtures/loop_forever.c" "hostile_loop$i"; done
for i in 1 2 3; do add "$src/tests/batch_fixtures/calls_exit.c" "hostile_exit$i"; done
for i in 1 2 3; do add "$src/tests/batch_fixtures/broken.c" "broken$i"; done
while [ "$n" -lt 100 ]; do add "$src/reference/attention.c" correct; done
# BENCH_CLASS_SIZE=N keeps the first N (a quick trial of the script itself)
size=${BENCH_CLASS_SIZE:-100}
if [ "$size" -lt "$n" ]; then
    ls "$class" | tail -n +$((size + 1)) | while read -r f; do rm "$class/$f"; done
    n=$size
fi

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
cc_flags="-std=c11 -O2 -g0 -fPIE -fno-common -Wall -Wextra -I$build/include"
i=0; : >"$tmp/cc"; : >"$tmp/gp"; : >"$tmp/ga"; : >"$tmp/gp1"; : >"$tmp/ga1"; : >"$tmp/loop"
while [ $i -lt "$runs" ]; do
    # shellcheck disable=SC2086
    measure "$tmp/cc" cc $cc_flags -c "$work/attention.c" -o "$work/a.o"
    # shellcheck disable=SC2086
    measure "$tmp/gp" "$grader" grade $pub "$work/attention.c"
    # shellcheck disable=SC2086
    measure "$tmp/ga" "$grader" grade $all "$work/attention.c"
    # shellcheck disable=SC2086
    measure "$tmp/gp1" "$grader" grade --test-jobs 1 $pub "$work/attention.c"
    # shellcheck disable=SC2086
    measure "$tmp/ga1" "$grader" grade --test-jobs 1 $all "$work/attention.c"
    i=$((i + 1))
done
i=0
while [ $i -lt "$loop_runs" ]; do
    # shellcheck disable=SC2086
    measure "$tmp/loop" "$grader" grade $all "$src/tests/hostile/loop_everywhere.c"
    i=$((i + 1))
done
cc_ms=$(wall "$tmp/cc"); cc_cpu=$(cpu "$tmp/cc")
echo "machine: $(uname -srm), $(nproc) CPUs online, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "load:    $load_before (1, 5, 15 min) before the run"
echo
echo "per-submission cost ($runs interleaved runs, medians; CPU = user + sys):"
printf '  %-31s %8s %8s   %-22s %s\n' "" "wall ms" "CPU ms" "wall / compile" "CPU / compile"
printf '  %-31s %8.1f %8.1f\n' "cc -c alone" "$cc_ms" "$cc_cpu"
# ratio LABEL FILE NOTE: one grade's medians and their ratios to the compile's
ratio() {
    w=$(wall "$2"); c=$(cpu "$2")
    fig "$1, wall ms" "$w" lower
    fig "$1, CPU ms" "$c" lower
    fig "$1, CPU / compile" "$(ratio_of "$c" "$cc_cpu")" lower
    printf '  %-31s %8.1f %8.1f   %5.2f x %14s %5.2f x%s\n' "$1" "$w" "$c" \
        "$(ratio_of "$w" "$cc_ms")" "" "$(ratio_of "$c" "$cc_cpu")" "$3"
}
ratio "grade, public" "$tmp/gp" "   (goal: <= 1.3x)"
ratio "grade, public + hidden" "$tmp/ga" "   (goal: <= 1.6x)"
ratio "grade, public, --test-jobs 1" "$tmp/gp1" ""
ratio "grade, all, --test-jobs 1" "$tmp/ga1" ""
printf '  loops in every function         %8.1f %8.1f   (%s runs; goal: wall <= 5000 ms)\n' \
    "$(wall "$tmp/loop")" "$(cpu "$tmp/loop")" "$loop_runs"
# the runners: how many a public + hidden grade starts and the minor
# faults of each (the pages it touched after its fork: the figure to drive
# down, issue 39 item 2), as the kernel counts them (grader grade --stats)
# shellcheck disable=SC2086
"$grader" grade --stats $all "$work/attention.c" 2>"$tmp/stats" >/dev/null || true
runners=$(sed -n 's/^grader: \([0-9]*\) runners, .*/\1/p' "$tmp/stats")
per_runner=$(sed -n 's/.* minor faults, \([0-9]*\) per runner$/\1/p' "$tmp/stats")
printf '  runners, public + hidden grade   %8s runners, %s minor faults each (goal: <= 40 pages)\n' \
    "${runners:-?}" "${per_runner:-?}"
[ -z "$per_runner" ] || fig "runner, minor faults each" "$per_runner" lower
fig "cc -c alone, CPU ms" "$cc_cpu" lower
fig "loops in every function, wall ms" "$(wall "$tmp/loop")" lower

# ---- throughput ----
if [ "${BENCH_CLASS:-1}" = 0 ]; then   # per-submission figures only
    echo; echo "load:    $(load) (1, 5, 15 min) after the run"
    guard
    exit
fi
# The class's compile floor: each source compiled alone (what no grader
# of these sources can avoid), summed, over the CPUs.
cores=$(nproc)
: >"$tmp/floor"
for f in "$class"/*.c; do
    # shellcheck disable=SC2086
    measure "$tmp/floor" cc $cc_flags -c "$f" -o "$work/f.o"
done
floor_s=$(awk -v c="$cores" '{s += $1} END {printf "%.2f", s / 1000 / c}' "$tmp/floor")
floor_cpu=$(awk '{s += $2} END {printf "%.2f", s / 1000}' "$tmp/floor")
# run_batch NAME OUT SPECS BATCH-OPTIONS...: one batch of the class into
# $tmp/outOUT (kept), its "wall_ms cpu_ms" into $tmp/tNAME, its log $tmp/logNAME
run_batch() { # run_batch NAME OUT SPECS BATCH-OPTIONS...
    name=$1; outn=$2; specs=$3; shift 3
    : >"$tmp/t$name"
    # shellcheck disable=SC2086
    measure "$tmp/t$name" sh -c '"$@" 2>"$0"' "$tmp/log$name" "$grader" batch $specs "$@" \
        --out "$tmp/out$outn" "$class"
}
rm -rf "$tmp/out1s" "$tmp/out1" "$tmp/out2"
run_batch 1s 1s "$all" --jobs 1 --test-jobs 1
run_batch 1 1 "$all" --jobs 1
run_batch first 2 "$all" --jobs 2
for o in 1 2; do
    if ! cmp -s "$tmp/out1s/grades.csv" "$tmp/out$o/grades.csv"; then
        echo "bench: the gradebooks differ (--jobs 1 --test-jobs 1 against run $o)" >&2
        exit 1
    fi
done
# the regrade: a hidden test's points changed (another spec, the same
# source rules), the --jobs 2 class graded again into its own folder
sed '0,/^  points: 3$/s//  points: 4/' "$src/specs/hidden.yaml" >"$tmp/hidden.yaml"
run_batch regrade 2 "--spec $src/specs/public.yaml --spec $tmp/hidden.yaml" --jobs 2
# then one hidden case draws other inputs: every test runs again
sed '0,/seed: 2}$/s//seed: 5}/' "$tmp/hidden.yaml" >"$tmp/hidden-case.yaml"
run_batch recase 2 "--spec $src/specs/public.yaml --spec $tmp/hidden-case.yaml" --jobs 2
sec() { awk -v f="$2" '{printf "%.2f", $f / 1000}' "$tmp/t$1"; }
# kept NAME WHAT: how many entries of that batch reused their kept WHAT
kept() {
    sed -n "s/.*, \([0-9]*\) with \(its\|their\) kept $2.*/\1/p" "$tmp/log$1" | tail -n 1
}
echo
echo "class of $n submissions (public + hidden):"
printf '  %-36s %8s %8s\n' "" "wall s" "CPU s"
printf '  %-36s %8.2f %8.2f   (%s x cc -c alone; wall: their sum over %s CPUs)\n' \
    "compile floor" "$floor_s" "$floor_cpu" "$n" "$cores"
# rate LABEL NAME NOTE: one batch of the class
rate() {
    printf '  %-36s %8.2f %8.2f   %6.2f submissions/s   (%s)\n' "$1" "$(sec "$2" 1)" \
        "$(sec "$2" 2)" "$(echo "$n / $(sec "$2" 1)" | bc -l)" "$3"
}
rate "--jobs 1 --test-jobs 1" 1s "one test at a time"
rate "--jobs 1" 1 "tests on parallel lanes"
rate "--jobs 2, first grade" first "two submissions at once"
rate "--jobs 2, regrade, points changed" regrade \
    "$(kept regrade object || true) kept objects, $(kept regrade verdicts || true) kept verdicts"
rate "--jobs 2, regrade, a case changed" recase "$(kept recase object || true) kept objects"
fig "class, --jobs 2, first grade, wall s" "$(sec first 1)" lower
fig "class, --jobs 2, first grade, CPU s" "$(sec first 2)" lower
fig "class, regrade after points / first grade, CPU" \
    "$(ratio_of "$(sec regrade 2)" "$(sec first 2)")" lower
fig "class, first grade / compile floor, CPU" "$(ratio_of "$(sec first 2)" "$floor_cpu")" lower
printf '  first grade / compile floor   wall %5.2f x   CPU %5.2f x   (goal: <= 1.5x)\n' \
    "$(ratio_of "$(sec first 1)" "$floor_s")" "$(ratio_of "$(sec first 2)" "$floor_cpu")"
printf '  regrade / first grade         wall %5.2f x   CPU %5.2f x   (points changed; goal: <= 0.4x)\n' \
    "$(ratio_of "$(sec regrade 1)" "$(sec first 1)")" "$(ratio_of "$(sec regrade 2)" "$(sec first 2)")"
printf '  regrade / first grade         wall %5.2f x   CPU %5.2f x   (a case changed)\n' \
    "$(ratio_of "$(sec recase 1)" "$(sec first 1)")" "$(ratio_of "$(sec recase 2)" "$(sec first 2)")"
printf '  speed-up, --jobs 2 / one at a time  %5.2f x   (goal: >= 1.8x)\n' \
    "$(ratio_of "$(sec 1s 1)" "$(sec first 1)")"
printf '  speed-up, --jobs 2 / --jobs 1       %5.2f x   (--jobs 1 already uses both CPUs)\n' \
    "$(ratio_of "$(sec 1 1)" "$(sec first 1)")"
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
guard
