#!/bin/sh
# quiet-build.sh: `make demo`'s build, one line of output: the commands and
# warnings go to BUILD/build.log, and while make runs a progress line every
# 10 s says how many files it compiled so far (a first build compiles about
# 110; on a busy 2-CPU machine that is minutes, which must not look hung),
# or, while the diagnosis data is recorded (tests/diag-data.sh: only when
# the shipped recording is stale), the recording's own last progress line.
#
#   sh tests/quiet-build.sh BUILD MAKE TARGET...
#
# Exit status: make's. On a failure, the log's last 30 lines.
set -u
build=$1
make=$2
shift 2
mkdir -p "$build/obj"
log=$build/build.log
mark=$build/.build-start
: >"$mark"
printf 'build: %s/grader and its diagnosis data ... ' "$build"
"$make" --no-print-directory -s "$@" >"$log" 2>&1 &
pid=$!
start=$(date +%s)
last=$start
while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    now=$(date +%s)
    if [ $((now - last)) -ge 10 ]; then
        last=$now
        n=$(find "$build" -name '*.o' -newer "$mark" 2>/dev/null | wc -l)
        echo
        case $(tail -n 1 "$log") in
        golden:* | diag:*) # recording the diagnosis data: its own progress line
            printf '%s (%d s) ... ' "$(tail -n 1 "$log")" $((now - start)) ;;
        *) printf 'build: %d files compiled so far (%d s) ... ' "$n" $((now - start)) ;;
        esac
    fi
done
wait "$pid"
rc=$?
rm -f "$mark"
if [ "$rc" -eq 0 ]; then
    echo "ok (commands and warnings in $log; V=1 shows them)"
else
    echo "failed:"
    tail -n 30 "$log"
fi
exit "$rc"
