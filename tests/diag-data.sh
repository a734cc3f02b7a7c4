#!/bin/sh
# diag-data.sh: the diagnosis data (build/diag.golden, grade/diag.h), the
# catalogue's known mistakes recorded by grading the whole catalogue with
# `grader golden` (about 3 min of an idle 2-CPU machine). The recording is
# shipped in the repository, tests/diag.golden, with the SHA-256 of
# everything it was recorded from in tests/diag.golden.inputs, so that a
# fresh clone copies it in a second instead of recording it.
#
#   sh tests/diag-data.sh use BUILD INPUT...    build/diag.golden: the shipped
#       file when its inputs' hash is the one recorded beside it, else a
#       recording (said so, with a progress line every 10 s)
#   sh tests/diag-data.sh ship BUILD INPUT...   record, and ship the result
#       (tests/diag.golden and its .inputs; commit both)
#   sh tests/diag-data.sh check BUILD INPUT...  exit 1 when the shipped file
#       was recorded from other inputs (`make test` runs it: CI fails on a
#       stale shipped file)
#   sh tests/diag-data.sh verify BUILD INPUT... record afresh and compare
#       with the shipped file byte for byte (minutes; `make diag-verify`)
#   sh tests/diag-data.sh --self-test   the rules above in a scratch folder,
#       with a stand-in grader (tests/run.sh's call: `make test`, `make unit`)
#
# The INPUTs are the Makefile's DIAG_INPUTS (the reference, the specs, the
# catalogue, the recording code, this script); the hash also covers the
# grader's version. Run from the repository's top folder.
set -eu

# The rules, in a scratch copy: a stand-in grader records "fresh" files.
self_test() {
    here=$(cd "$(dirname "$0")" && pwd)
    t=$(mktemp -d) || exit 2
    trap 'rm -rf "$t"' EXIT
    ok=0; bad=0
    check() { # check NAME CONDITION...
        name=$1; shift
        if "$@"; then ok=$((ok + 1)); else bad=$((bad + 1)); echo "FAIL: $name"; fi
    }
    mkdir -p "$t/tests/submissions" "$t/grader/cli" "$t/build"
    cp "$here/diag-data.sh" "$t/tests/"
    echo '#define GRADER_VERSION "9.9"' >"$t/grader/cli/cli.h"
    echo "int a;" >"$t/tests/submissions/a.c"
    printf '#!/bin/sh\necho "$@" >"${0%%/*}/args"\nwhile [ "$1" != --out ]; do shift; done\necho fresh >"$2"\n' \
        >"$t/build/grader"
    chmod +x "$t/build/grader"
    d() { (cd "$t" && sh tests/diag-data.sh "$@" build tests/submissions/a.c) >"$t/out" 2>&1; }
    d ship
    check "ship records and ships" grep -qx fresh "$t/tests/diag.golden"
    check "ship writes the inputs' hash" [ -s "$t/tests/diag.golden.inputs" ]
    check "ship grades the catalogue as the build made it" \
        grep -q ' build/catalogue/submissions/a.c$' "$t/build/args"
    echo shipped >"$t/tests/diag.golden"
    d check
    check "check passes on today's inputs" [ $? -eq 0 ]
    d use
    check "use copies the shipped file" grep -qx shipped "$t/build/diag.golden"
    check "use says it copied" grep -q "matches its inputs: copied" "$t/out"
    echo "int b;" >"$t/tests/submissions/a.c"
    d check && rc=0 || rc=$?
    check "check fails once an input changed" [ "$rc" -eq 1 ]
    check "check names the fix" grep -q "make diag-ship" "$t/out"
    d use
    check "a stale shipped file is never copied" grep -qx fresh "$t/build/diag.golden"
    check "use says it records" grep -q "recorded from other inputs" "$t/out"
    echo "int a;" >"$t/tests/submissions/a.c"
    echo '#define GRADER_VERSION "9.10"' >"$t/grader/cli/cli.h"
    d check && rc=0 || rc=$?
    check "another grader version is a change" [ "$rc" -eq 1 ]
    echo "[====] Synthesis: Tested: $((ok + bad)) | Passing: $ok | Failing: $bad | Crashing: 0"
    [ "$bad" -eq 0 ]
}
case ${1:-} in -*) self_test; exit ;; esac

mode=$1
build=$2
shift 2
shipped=tests/diag.golden
stamp=tests/diag.golden.inputs

sha256() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

# SHA-256 over the inputs' hashes and paths (in the order given) and the
# grader's version.
inputs_hash() {
    {
        echo "attention-grader diagnosis data inputs 1"
        sed -n 's/^#define GRADER_VERSION "\(.*\)"$/version \1/p' grader/cli/cli.h
        sha256 "$@"
    } | sha256 | cut -d ' ' -f 1
}

# record OUT INPUT...: grade the catalogue into OUT (atomically): each
# tests/submissions/NAME.c or NAME.entry as the build made it whole,
# BUILD/catalogue/submissions/NAME.c (tests/README.md).
record() {
    out=$1
    shift
    subs=
    for f in "$@"; do
        case $f in
        tests/submissions/*.c | tests/submissions/*.entry)
            n=${f##*/}
            subs="$subs $build/catalogue/submissions/${n%.*}.c"
            ;;
        esac
    done
    # shellcheck disable=SC2086 # the catalogue's file names have no spaces
    "$build/grader" golden --progress --jobs "${DIAG_JOBS:-2}" \
        --spec specs/public.yaml --spec specs/hidden.yaml \
        --out "$out.tmp" reference/attention.c $subs
    mv "$out.tmp" "$out"
}

want=$(inputs_hash "$@")
have=$(cat "$stamp" 2>/dev/null || echo none)
case $mode in
use)
    out=$build/diag.golden
    if [ "$want" = "$have" ] && [ -f "$shipped" ]; then
        cp "$shipped" "$out.tmp" && mv "$out.tmp" "$out"
        echo "$want" >"$out.inputs"
        echo "diag: $shipped matches its inputs: copied to $out"
    else
        echo "diag: $shipped was recorded from other inputs than today's (run" \
            "'make diag-ship' and commit it); recording the catalogue's known" \
            "mistakes into $out, about 3 min on an idle 2-CPU machine"
        record "$out" "$@"
        echo "$want" >"$out.inputs"
    fi
    ;;
ship)
    out=$build/diag.golden
    # what `use` just recorded from these very inputs is not recorded twice
    if [ "$(cat "$out.inputs" 2>/dev/null)" != "$want" ] || [ ! -f "$out" ]; then
        record "$out" "$@"
        echo "$want" >"$out.inputs"
    fi
    cp "$out" "$shipped.tmp" && mv "$shipped.tmp" "$shipped"
    echo "$want" >"$stamp.tmp" && mv "$stamp.tmp" "$stamp"
    echo "diag: shipped $out as $shipped ($stamp: $want); commit both"
    ;;
check)
    if [ "$want" != "$have" ]; then
        echo "diag-check: $shipped was recorded from other inputs than today's" \
            "(the catalogue, a spec, the reference or the recording code changed):" \
            "run 'make diag-ship' and commit $shipped and $stamp" >&2
        exit 1
    fi
    echo "diag-check: $shipped matches its inputs ($want)"
    ;;
verify)
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/diag-verify.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    record "$tmp/diag.golden" "$@"
    if ! cmp -s "$tmp/diag.golden" "$shipped"; then
        echo "diag-verify: a fresh recording differs from $shipped" >&2
        exit 1
    fi
    echo "diag-verify: a fresh recording equals $shipped"
    ;;
*)
    echo "usage: diag-data.sh use|ship|check|verify BUILD INPUT..." >&2
    exit 2
    ;;
esac
