#!/bin/sh
# Batch-grading benchmark (make bench): medians and ratios, never a timed test.
# Usage: sh tests/bench.sh BUILD_DIR
#
# Builds a synthetic class of 100 submissions in a temporary directory
# (copies of the reference, of the buggy catalogue in tests/submissions/ and
# of the hostile fixtures in tests/batch_fixtures/, one of which loops
# forever), then prints:
#   - the median time to grade one correct submission next to `cc -c` alone
#     on the same file (the same flags the grader compiles with), and their ratio;
#   - the class's throughput with --jobs 1 and --jobs 2, and the speed-up;
#   - the slowest submission and what bounded it.
# Uses hyperfine when it is installed, else repeated runs and medians.
set -eu
build=${1:-build}
grader=$build/grader
src=$(cd "$(dirname "$0")/.." && pwd)
spec=$src/specs/public.yaml
runs=${BENCH_RUNS:-10}
export LC_ALL=C

if ! "$grader" batch --help >/dev/null 2>&1; then
    echo "bench: '$grader batch' is not available" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

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

# ---- per-submission cost ----
work=$tmp/one
mkdir -p "$work"
cp "$src/reference/attention.c" "$work/attention.c"
cc_cmd="cc -std=c11 -O2 -g0 -fPIE -fno-common -Wall -Wextra -I$build/include -c $work/attention.c -o $work/a.o"
grade_cmd="$grader grade --spec $spec $work/attention.c"
if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N --warmup 2 --runs "$runs" --export-json "$tmp/h.json" \
        "$cc_cmd" "$grade_cmd" >/dev/null 2>&1
    cc_ms=$(python3 -c "import json,sys;r=json.load(open(sys.argv[1]))['results'];print('%.1f'%(r[0]['median']*1e3))" "$tmp/h.json")
    grade_ms=$(python3 -c "import json,sys;r=json.load(open(sys.argv[1]))['results'];print('%.1f'%(r[1]['median']*1e3))" "$tmp/h.json")
    how="hyperfine, $runs runs, median"
else
    time_ms() { t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now); echo "($t1 - $t0) * 1000" | bc; }
    i=0; : >"$tmp/cc"; : >"$tmp/g"
    while [ $i -lt "$runs" ]; do
        # shellcheck disable=SC2086
        time_ms $cc_cmd >>"$tmp/cc"; time_ms $grade_cmd >>"$tmp/g"; i=$((i + 1))
    done
    cc_ms=$(median <"$tmp/cc"); grade_ms=$(median <"$tmp/g")
    how="$runs runs, median"
fi
echo "machine: $(uname -srm), $(nproc) CPUs online, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "per-submission cost ($how):"
printf '  cc -c alone           %8.1f ms\n' "$cc_ms"
printf '  grade (correct)       %8.1f ms\n' "$grade_ms"
printf '  ratio                 %8.2f x   (goal: <= 5x)\n' "$(echo "$grade_ms / $cc_ms" | bc -l)"

# ---- throughput ----
run_batch() { # run_batch JOBS -> seconds
    rm -rf "$tmp/out$1"
    t0=$(now)
    "$grader" batch --spec "$spec" --jobs "$1" --out "$tmp/out$1" "$class" 2>"$tmp/log$1" >/dev/null
    t1=$(now)
    echo "$t1 - $t0" | bc -l
}
t1=$(run_batch 1)
t2=$(run_batch 2)
if ! cmp -s "$tmp/out1/grades.csv" "$tmp/out2/grades.csv"; then
    echo "bench: --jobs 1 and --jobs 2 gave different gradebooks" >&2
    exit 1
fi
echo
echo "class of $n submissions:"
printf '  --jobs 1              %8.1f s   %6.2f submissions/s\n' "$t1" "$(echo "$n / $t1" | bc -l)"
printf '  --jobs 2              %8.1f s   %6.2f submissions/s\n' "$t2" "$(echo "$n / $t2" | bc -l)"
printf '  speed-up              %8.2f x   (goal: >= 1.7x)\n' "$(echo "$t1 / $t2" | bc -l)"
printf '  total (--jobs 2)      %8.1f s   (goal: < 60 s)\n' "$t2"

# ---- the slowest submission (from the --jobs 1 progress lines) ----
slow=$(sed -n 's/^\[[0-9]*\/[0-9]*\] \(.*\): \([a-z_]*\) .* (\([0-9.]*\) s).*$/\3 \1 \2/p' "$tmp/log1" |
       sort -rn | head -n 1)
secs=${slow%% *}; rest=${slow#* }; id=${rest% *}; status=${rest##* }
row=$tmp/out1/$id/row.tsv
timeouts=$(grep -c '^test	[^	]*	timed_out' "$row" || true)
crashes=$(grep -c '^test	[^	]*	crashed' "$row" || true)
echo
echo "slowest submission: $id ($secs s, status $status)"
if [ "$status" = budget_exhausted ]; then
    echo "  bounded by the whole-submission budget (grade_opts.budget_ms, 20 s by default)"
elif [ "$timeouts" -gt 0 ]; then
    echo "  bounded by the per-call deadlines: $timeouts tests timed out, each killed at its deadline"
else
    echo "  bounded by its own work ($crashes tests crashed, none timed out)"
fi
