#!/bin/sh
# make test-slurm: the documented Slurm recipe (grade-array.sbatch, then the
# dependent merge job) run by a real scheduler, on a one-node cluster that
# cluster.sh starts in a temporary folder. Opt-in, not part of `make test`.
#
#   sh tests/slurm/test-slurm.sh BUILD
#
# 1. grades a class (the catalogue plus copies of the reference) with one
#    `grader batch`, then with `sbatch --wait --array=1-3` and the merge job;
#    the merged gradebook must equal the single run's, byte for byte;
# 2. a task that is not a shard of 1..N fails (exit 2) before grading;
# 3. cancels task 2 mid-run (scancel JOB_2), resubmits the same array and
#    checks that no submission graded before the cancel is graded again and
#    the merge still equals the single run.
# Always compared with a single run of the same build, never a stored copy.
#
# Without Slurm and munge it installs them (root with apt-get), or prints
# "test-slurm: skipped: ..." and exits 0. TEST_SLURM_PRETEND_MISSING="sbatch
# munged" (or "all") treats those tools as missing and installs nothing, to
# check that path; TEST_SLURM_REQUIRE=1 turns a skip into a failure;
# TEST_SLURM_KEEP=1 keeps the temporary folder (the daemons still stop).
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd); src=$(cd "$here/../.." && pwd)
PATH=$PATH:/usr/sbin:/sbin
# shellcheck source=tests/slurm/cluster.sh
. "$here/cluster.sh"

say() { echo "test-slurm: $*"; }
fail() { echo "test-slurm: FAIL: $*" >&2; exit 1; }
skip() {
    say "skipped: $*"
    [ -z "${TEST_SLURM_REQUIRE:-}" ] || exit 1
    exit 0
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

tools="munged slurmctld slurmd sbatch scancel squeue scontrol"
missing_tools() {
    mt=
    for t in $tools; do
        case " ${TEST_SLURM_PRETEND_MISSING:-} " in
        *" all "* | *" $t "*) mt="$mt $t"; continue ;;
        esac
        command -v "$t" >/dev/null 2>&1 || mt="$mt $t"
    done
    echo "${mt# }"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-slurm.XXXXXX")
chmod 755 "$tmp" # munged wants every folder above its socket traversable by all
cleanup() {
    rc=$?
    trap - EXIT INT TERM HUP
    cl_stop "$tmp"
    if [ "$rc" -ne 0 ] && [ -d "$tmp/log" ]; then
        for f in "$tmp"/log/grade-*.log; do
            [ -f "$f" ] && { echo "--- $f:" >&2; tail -n 5 "$f" >&2; }
        done
    fi
    if [ -n "${TEST_SLURM_KEEP:-}" ]; then
        echo "test-slurm: kept $tmp" >&2
    else
        rm -rf "$tmp"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# --- Slurm and munge, installed if we can -----------------------------------
missing=$(missing_tools)
if [ -n "$missing" ] && [ -z "${TEST_SLURM_PRETEND_MISSING:-}" ] &&
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing slurm-wlm and munge with apt-get"
    if ! { timeout 900 apt-get update &&
        DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y \
            --no-install-recommends -o DPkg::Lock::Timeout=300 slurm-wlm munge; } \
        >"$tmp/apt.log" 2>&1; then
        tail -n 5 "$tmp/apt.log" >&2
        skip "apt-get could not install slurm-wlm and munge"
    fi
    missing=$(missing_tools)
fi
if [ -n "$missing" ]; then
    how="install slurm-wlm and munge (apt-get install slurm-wlm munge, as root)"
    [ -z "${TEST_SLURM_PRETEND_MISSING:-}" ] || how="TEST_SLURM_PRETEND_MISSING is set"
    skip "missing $missing; $how"
fi
[ "$(nproc)" -ge 2 ] || skip "the one-node cluster has 2 CPUs; this machine has $(nproc)"

g=$(cd "$build" && pwd)/grader
[ -x "$g" ] || fail "$g not built (run make first)"
# Two specs, to check SPEC's list (written.yaml leaves blank manual cells).
specs="specs/public.yaml:specs/written.yaml"

# --- The class: the catalogue plus correct submissions, files and folders ---
class=$tmp/class; mkdir -p "$tmp/log"
mkdir -p "$class"
cp "${g%/grader}"/catalogue/submissions/*.c "$class"/
for i in 1 2; do cp "$src/reference/attention.c" "$class/reference_copy_$i.c"; done
mkdir "$class/reference_folder" && cp "$src/reference/attention.c" "$class/reference_folder/"
n_subs=$(find "$class" -mindepth 1 -maxdepth 1 | wc -l)
[ "$n_subs" -ge 30 ] || fail "the class has $n_subs submissions, fewer than 30"
ntasks=3

count_rows() { find "$1" -name row.tsv 2>/dev/null | wc -l; }

# The whole tree, byte for byte, each student's kept object (compile.key,
# compile.o) and verdicts (verdicts.kept) included; in results.json only
# Gradescope's execution_time may differ (it is the one timing the grader
# writes), in verdicts.kept the times (last field of its "diag" and "t"
# lines) and so its sum line.
same_tree() {
    (cd "$1" && find . -type f | LC_ALL=C sort) >"$tmp/files.a"
    (cd "$2" && find . -type f | LC_ALL=C sort) >"$tmp/files.b"
    cmp -s "$tmp/files.a" "$tmp/files.b" ||
        fail "$3: the merge holds other files than the single run: $(diff "$tmp/files.a" "$tmp/files.b" | head -n 5 | tr '\n' ' ')"
    while read -r f; do
        case $f in
        */results.json)
            sed -E 's/"execution_time": *[0-9.eE+-]+//' "$1/$f" >"$tmp/res.a"
            sed -E 's/"execution_time": *[0-9.eE+-]+//' "$2/$f" >"$tmp/res.b"
            cmp -s "$tmp/res.a" "$tmp/res.b" || fail "$3: $f differs from the single run" ;;
        */verdicts.kept)
            sed -E '/^sum /d; s/^((diag|t) .*) [^ ]+$/\1/' "$1/$f" >"$tmp/res.a"
            sed -E '/^sum /d; s/^((diag|t) .*) [^ ]+$/\1/' "$2/$f" >"$tmp/res.b"
            cmp -s "$tmp/res.a" "$tmp/res.b" || fail "$3: $f differs from the single run" ;;
        *) cmp -s "$1/$f" "$2/$f" || fail "$3: $f differs from the single run" ;;
        esac
    done <"$tmp/files.a"
}

# --- The cluster ---------------------------------------------------------------
if ! cl_start "$tmp/cluster"; then
    skip "could not start a one-node Slurm cluster (munged, slurmctld, slurmd)"
fi
say "one-node cluster up ($(sinfo -h -o '%P %c CPUs %t' 2>/dev/null || echo agnode))"

# --- The single run, timed on the same machine and CPUs ----------------------
say "$n_subs submissions; single run: grader batch --jobs 2"
t0=$(now)
timeout --foreground 900 nice -n 10 "$g" batch --spec "$src/specs/public.yaml" \
    --spec "$src/specs/written.yaml" --jobs 2 --out "$tmp/single" "$class" \
    >"$tmp/single.log" 2>&1 || fail "the single batch failed: $(tail -n 3 "$tmp/single.log")"
t_single=$(secs "$t0" "$(now)")

cd "$src"
# As documented: from the repository's root, GRADER by default, SPEC relative
# to it. Only --output moves, so that the logs land in the temporary folder.
export_vars() { # OUT
    ev="ALL,N=$ntasks,CLASS=$class,OUT=$1,SPEC=$specs"
    [ "$g" = "$src/build/grader" ] || ev="$ev,GRADER=$g"
    echo "$ev"
}
submit_array() { # OUT [sbatch options...]
    so=$1; shift
    timeout --foreground 900 sbatch --parsable --array=1-$ntasks --output="$tmp/log/grade-%A_%a.log" \
        --export="$(export_vars "$so")" "$@" tests/slurm/grade-array.sbatch
}
# The documented merge job, run after the array: afterok, and cancelled by
# Slurm (not left pending for ever) when a task fails or is cancelled.
submit_merge() { # ARRAY_JOB OUT [sbatch options...]
    sm_j=$1 sm_o=$2; shift 2
    timeout --foreground 300 sbatch --parsable --dependency=afterok:"$sm_j" \
        --kill-on-invalid-dep=yes --output="$tmp/log/merge-%j.log" "$@" \
        --wrap "$g merge --out $sm_o/all $sm_o/shard-*"
}
merge_job() { # ARRAY_JOB OUT
    submit_merge "$1" "$2" --wait >/dev/null ||
        fail "the merge job after $1 failed: $(cat "$tmp"/log/merge-*.log 2>/dev/null | tail -n 3)"
}
task_state() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }
# Submission to the last task's end, from Slurm's own times (whole seconds):
# sbatch --wait polls with a growing interval and returns up to ~30 s later.
span() { # JOB
    scontrol -o show job "$1" | tr ' ' '\n' | sed -n 's/^\(SubmitTime\|EndTime\)=//p' |
        while read -r t; do date -d "$t" +%s; done | sort -n | sed -n '1p;$p' | paste -s -d' ' |
        awk '{ print $2 - $1 }'
}
queued() { # JOB: submission to the first task's start
    scontrol -o show job "$1" | tr ' ' '\n' | sed -n 's/^\(SubmitTime\|StartTime\)=//p' |
        while read -r t; do date -d "$t" +%s; done | sort -n | sed -n '1p;2p' | paste -s -d' ' |
        awk '{ print $2 - $1 }'
}
run_times() { # JOB: the tasks' run times, "16+13+18 s"
    scontrol -o show job "$1" | sed -n 's/.*ArrayTaskId=\([0-9]*\) .*RunTime=\([0-9:-]*\).*/\1 \2/p' |
        sort -n | awk '{ n = split($2, t, ":"); s = t[n] + 60 * t[n - 1] + 3600 * t[n - 2];
                         printf "%s%d", (NR > 1 ? "+" : ""), s } END { print " s" }'
}

# 1. The array job, then the merge job.
out1=$tmp/out1
t0=$(now)
jid=$(submit_array "$out1" --wait) ||
    fail "sbatch --wait returned $? for the array job (a task failed or the wait timed out)"
t_array=$(secs "$t0" "$(now)")
for k in $(seq 1 $ntasks); do
    [ "$(task_state "${jid}_$k")" = COMPLETED ] || fail "task $k ended $(task_state "${jid}_$k")"
done
merge_job "$jid" "$out1"
same_tree "$tmp/single" "$out1/all" "array job"
say "array job $jid: $ntasks tasks, merge identical to the single run"

# 2. A task outside 1..N fails before grading, with a clear line in its log.
rc=0
bad=$(timeout --foreground 300 sbatch --parsable --wait --array=$((ntasks + 1)) \
    --output="$tmp/log/bad-%A_%a.log" --export="$(export_vars "$tmp/bad")" \
    tests/slurm/grade-array.sbatch) || rc=$?
[ "$rc" -eq 2 ] || fail "task $((ntasks + 1)) of N=$ntasks: sbatch --wait returned $rc, expected 2"
grep -q "outside 1-$ntasks" "$tmp"/log/bad-*.log ||
    fail "task $((ntasks + 1)) of N=$ntasks: no clear line in its log"
[ ! -e "$tmp/bad" ] || fail "task $((ntasks + 1)) of N=$ntasks wrote output"
say "task outside 1-$ntasks: exit 2, nothing graded (job $bad)"

# 3. Cancel task 2 mid-run, resubmit, check the rerun resumes.
out2=$tmp/out2; k=2
expect=$(count_rows "$out1/shard-$k")
[ "$expect" -ge 2 ] || fail "shard $k has $expect submissions: too few to cancel it mid-run"
jid2=$(submit_array "$out2")
mjid2=$(submit_merge "$jid2" "$out2")
cl_n=3000 # 600 s
while :; do
    st=$(task_state "${jid2}_$k")
    [ "$st" = RUNNING ] && [ "$(count_rows "$out2/shard-$k")" -ge 1 ] && break
    case $st in PENDING | RUNNING | CONFIGURING | "") ;; *) fail "task $k ended $st before it could be cancelled" ;; esac
    cl_n=$((cl_n - 1)); [ "$cl_n" -gt 0 ] || fail "task $k did not start grading within 600 s"
    sleep 0.2
done
scancel "${jid2}_$k"
cl_wait 600 sh -c "[ -z \"\$(squeue -h -j $jid2 -o %i)\" ]" || fail "job $jid2 still queued 600 s after scancel"
[ "$(task_state "${jid2}_$k")" = CANCELLED ] || fail "task $k ended $(task_state "${jid2}_$k"), not CANCELLED"
cl_wait 60 sh -c "scontrol -o show job $mjid2 | grep -q JobState=CANCELLED" ||
    fail "the merge job $mjid2 is $(task_state "$mjid2") after task $k was cancelled, not CANCELLED"
[ ! -e "$out2/all" ] || fail "the merge job ran although task $k was cancelled"
done_k=$(count_rows "$out2/shard-$k")
[ "$done_k" -lt "$expect" ] || fail "task $k had graded its whole shard before the cancel took"
# scancel signals every process of the task, the grader's workers too: one
# being graded then may die before the grader stops it and leave a row with
# status error ("died of signal 15"), which a rerun retries by design. Any
# other row must keep its inode and mtime through the rerun (a regraded
# submission gets a new row.tsv: written aside, then renamed).
find "$out2" -name row.tsv | LC_ALL=C sort >"$tmp/rows.all"
{ xargs -r grep -l '^status	error$' <"$tmp/rows.all" || true; } >"$tmp/rows.error"
n_err=$(wc -l <"$tmp/rows.error")
[ "$n_err" -le 2 ] || fail "the cancel left $n_err rows with status error, more than its 2 workers"
! grep -v "/shard-$k/" "$tmp/rows.error" >/dev/null || fail "rows with status error outside shard $k"
grep -v -x -F -f "$tmp/rows.error" "$tmp/rows.all" | xargs -r stat -c '%n %i %y' |
    LC_ALL=C sort >"$tmp/rows.before"
before=$(wc -l <"$tmp/rows.before")
t0=$(now)
jid3=$(submit_array "$out2" --wait) || fail "the resubmitted array job failed ($?)"
t_rerun=$(secs "$t0" "$(now)")
find "$out2" -name row.tsv -exec stat -c '%n %i %y' {} + | LC_ALL=C sort >"$tmp/rows.after"
regraded=$(LC_ALL=C comm -23 "$tmp/rows.before" "$tmp/rows.after" | wc -l)
[ "$regraded" -eq 0 ] || fail "the rerun regraded $regraded submission(s) that were already graded"
[ "$(count_rows "$out2/shard-$k")" -eq "$expect" ] || fail "the rerun did not finish shard $k"
merge_job "$jid3" "$out2"
same_tree "$tmp/single" "$out2/all" "resubmitted array job"
say "cancelled task $k at $done_k/$expect (merge job cancelled by Slurm, $n_err in-flight row(s) left as error);" \
    "the rerun kept the $before graded rows, graded $((n_subs - before)), merge identical"

say "$n_subs submissions, $ntasks tasks, 2 CPUs: single run $t_single s;" \
    "array job: submit to last end $(span "$jid") s (first start after $(queued "$jid") s), sbatch --wait $t_array s, tasks $(run_times "$jid");" \
    "rerun after the cancel: $(span "$jid3") s, sbatch --wait $t_rerun s, tasks $(run_times "$jid3")"
say "passed"
