#!/bin/sh
# tests/machine.sh CASE BUILD OUT -- one grading of the reference under a
# disturbance of the machine, for tests/test_machine.c (issue 27). Writes
# OUT/out, OUT/err and OUT/rc. Exit 77 with the reason on stdout when the
# kernel or the user does not allow the case; 1 when the case itself could
# not be set up. Every process it starts is ended by pid, every wait is
# bounded, and the grader runs as `nobody` (setpriv) where that is possible.
#
# CASE: idle           undisturbed
#       swarm          600 sleeping processes of the same account
#       nproc          prlimit --nproc=400:400
#       freeze-compile frozen 12 s during the compile
#       freeze-tests   frozen five times 2.5 s during the tests
#       batch-kill     `grader batch` SIGKILLed mid-batch, then resumed
# MACHINE_GRADE_ARGS (optional): words put before the submission in the
# grade of idle, nproc and freeze-* (e.g. "--spec specs/public.yaml --spec
# specs/hidden.yaml", paths from the source tree), for runs by hand.
set -u
what=$1; build=$2; out=$3
src=$(cd "$(dirname "$0")/.." && pwd)
grader=$(cd "$build" && pwd)/grader
ref=$src/reference/attention.c
gargs=""
for a in ${MACHINE_GRADE_ARGS:-}; do
    case $a in specs/*) a=$src/$a ;; esac
    gargs="$gargs $a"
done
mkdir -p "$out/tmp" || exit 1
chmod 755 "$out" && chmod 1777 "$out/tmp" || exit 1

# as_user CMD...: CMD as nobody when we are root (the account whose
# processes are counted), else as ourselves.
as_user() {
    if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
            env TMPDIR="$out/tmp" "$@"
    else
        env TMPDIR="$out/tmp" "$@"
    fi
}

finish() { echo "$1" >"$out/rc"; exit 0; }

# ---- freezing: a freezer cgroup (v2, v1), else SIGSTOP of the groups ----
cg=""
cg_make() {
    if [ -f /sys/fs/cgroup/cgroup.controllers ] && mkdir "/sys/fs/cgroup/attn-machine-$$" 2>/dev/null; then
        cg=/sys/fs/cgroup/attn-machine-$$; cgv=2
    elif [ -d /sys/fs/cgroup/freezer ] && mkdir "/sys/fs/cgroup/freezer/attn-machine-$$" 2>/dev/null; then
        cg=/sys/fs/cgroup/freezer/attn-machine-$$; cgv=1
    fi
}
cg_drop() { [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; cg=""; }
# descendants PID: PID and every process below it
descendants() {
    all=$1; new=$1
    while [ -n "$new" ]; do
        next=""
        for p in $new; do
            next="$next $(ps -eo pid=,ppid= | awk -v p="$p" '$2 == p { print $1 }')"
        done
        new=$(echo $next); all="$all $new"
    done
    echo $all
}
freeze() {
    if [ -n "$cg" ] && [ "$cgv" = 2 ]; then echo 1 >"$cg/cgroup.freeze"
    elif [ -n "$cg" ]; then echo FROZEN >"$cg/freezer.state"
    else stopped=$(descendants "$1"); kill -STOP $stopped 2>/dev/null; fi
}
thaw() {
    if [ -n "$cg" ] && [ "$cgv" = 2 ]; then echo 0 >"$cg/cgroup.freeze"
    elif [ -n "$cg" ]; then echo THAWED >"$cg/freezer.state"
    else kill -CONT $stopped 2>/dev/null; fi
}
# start_grader: the grader in the cgroup (when there is one), in the background
start_grader() {
    if [ -n "$cg" ]; then
        sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
            "$0" as-user "$build" "$out" "$grader" grade $gargs "$ref" >"$out/out" 2>"$out/err" &
    else
        "$0" as-user "$build" "$out" "$grader" grade $gargs "$ref" >"$out/out" 2>"$out/err" &
    fi
    gpid=$!
}
# wait_for_runner: until the grader has linked its runner (its tests start
# next), 60 s at most. The runner file in its scratch folder lasts from the
# link to the end of the grade; a runner process can live a few ms, and the
# tests of an idle machine are over within the 0.1 s that a walk of the
# process tree with ps takes.
wait_for_runner() {
    i=0
    while [ $i -lt 6000 ]; do
        for f in "$out"/tmp/attn-grade-*/runner; do
            [ -e "$f" ] && return 0
        done
        kill -0 "$gpid" 2>/dev/null || return 1
        sleep 0.01; i=$((i + 1))
    done
    return 1
}

case $what in
as-user)   # internal: as_user for start_grader
    shift 3; as_user "$@"; exit $? ;;
idle)
    as_user "$grader" grade $gargs "$ref" >"$out/out" 2>"$out/err"; finish $? ;;
nproc)
    command -v prlimit >/dev/null || { echo "no prlimit"; exit 77; }
    as_user prlimit --nproc=400:400 "$grader" grade $gargs "$ref" >"$out/out" 2>"$out/err"
    finish $? ;;
swarm)
    [ "$(id -u)" = 0 ] || { echo "needs root to run the swarm as nobody"; exit 77; }
    # the swarm and the grader share the account; the sleeps end by pid
    as_user sh -c '
        pids=""; i=0
        while [ $i -lt 600 ]; do sleep 120 </dev/null >/dev/null 2>&1 & pids="$pids $!"; i=$((i + 1)); done
        "$1" grade "$2"; rc=$?
        kill $pids 2>/dev/null; wait
        exit $rc' sh "$grader" "$ref" >"$out/out" 2>"$out/err"
    finish $? ;;
freeze-compile|freeze-tests)
    cg_make
    [ -n "$cg" ] || [ "$(id -u)" = 0 ] || { echo "no freezer cgroup and not root"; exit 77; }
    start_grader
    if [ $what = freeze-compile ]; then
        sleep 0.3; freeze "$gpid"; sleep 12; thaw
    else
        wait_for_runner || { kill -CONT $(descendants "$gpid") 2>/dev/null; wait "$gpid"; cg_drop
                             echo "the grader ran no test"; exit 1; }
        for k in 1 2 3 4 5; do
            freeze "$gpid"; sleep 2.5; thaw; sleep 0.5
        done
    fi
    wait "$gpid"; rc=$?
    cg_drop
    finish $rc ;;
batch-kill)
    # OUT/book0: undisturbed; OUT/book: killed once a row is written, then
    # resumed; OUT/left: processes of the killed batch still alive after it
    for d in s1 s2 s3; do mkdir -p "$out/class/$d" || exit 1; done
    cp "$ref" "$out/class/s1/attention.c" && cp "$ref" "$out/class/s3/attention.c" &&
        cp "${grader%/grader}/catalogue/submissions/softmax_no_max_shift.c" "$out/class/s2/attention.c" || exit 1
    chmod -R a+rX "$out/class"
    mkdir -p "$out/book0" && chmod 777 "$out/book0"
    as_user "$grader" batch --jobs 1 --out "$out/book0" "$out/class" >/dev/null 2>&1 ||
        { echo "the undisturbed batch failed"; exit 1; }
    mkdir -p "$out/book" && chmod 777 "$out/book"
    "$0" as-user "$build" "$out" "$grader" batch --jobs 1 --out "$out/book" "$out/class" \
        >/dev/null 2>"$out/err" &
    bpid=$!
    i=0
    while [ ! -f "$out/book/s1/row.tsv" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    victims=$(descendants "$bpid")
    kill -KILL $victims 2>/dev/null     # the batch, and setpriv's exec of it
    wait "$bpid" 2>/dev/null
    : >"$out/left"
    i=0
    while [ $i -lt 50 ]; do   # 5 s at most for the kernel to deliver the deaths
        : >"$out/left"
        for p in $victims; do
            st=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)
            [ -n "$st" ] && [ "$st" != Z ] && echo "$p $(cat /proc/$p/comm 2>/dev/null)" >>"$out/left"
        done
        [ -s "$out/left" ] || break
        sleep 0.1; i=$((i + 1))
    done
    ls "$out/tmp" >"$out/scratch-after-kill"
    as_user "$grader" batch --jobs 1 --out "$out/book" "$out/class" >"$out/out" 2>>"$out/err"
    rc=$?
    ls "$out/tmp" >"$out/scratch-after-resume"
    finish $rc ;;
*)
    echo "unknown case '$what'"; exit 1 ;;
esac
