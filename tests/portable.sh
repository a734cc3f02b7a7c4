#!/bin/sh
# The portable build (PORTABLE=1: what a student's Mac builds) proven on
# Linux, run by tests/test_cli.c:
#   1. make PORTABLE=1 into its own build directory (CI=1: -Werror);
#   2. ELF and seccomp are compiled out: the object check is the nm reader,
#      neither the grader nor the runner links libseccomp, and the Linux-only
#      calls take their POSIX fallbacks (core/compat.h: no memfd_create,
#      pipe2, prctl or Landlock), as on macOS;
#   3. it grades the reference (full marks) and buggy or refused submissions
#      with the very rubric of the ELF build;
#   4. it does so with /proc empty, as on macOS (a mount namespace);
#   5. its undefined symbols are all on tests/macos_symbols.txt.
# Usage: sh tests/portable.sh SRCDIR BUILD_DIR   (BUILD_DIR holds the ELF
# build; the portable one goes to BUILD_DIR/portable)
# Prints what it checks; exits 0 when everything holds, 1 otherwise.
set -u
src=$1
elf=$2
out="$elf/portable"
tmp=$(mktemp -d /tmp/grader-portable.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
unset MAKEFLAGS MFLAGS MAKELEVEL
# The portable build is what a student's Mac builds: plain. A sanitized
# `make SANITIZE=... test` exports SANITIZE, but ASan's runtime reads /proc
# (section 4 empties it) and its interceptors are undefined symbols no Mac
# libc has (section 5).
unset SANITIZE
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

cd "$src" || exit 2
# ---- 1. the build ----
# The diagnosis data is data, the same for both builds: the ELF build's
# diag.golden (make test builds it), copied with its time, is up to date for
# the portable build's `all`, which would otherwise record the catalogue again.
mkdir -p "$out"
[ -f "$elf/diag.golden" ] && cp -p "$elf/diag.golden" "$out/diag.golden"
if make --no-print-directory -j2 CI=1 PORTABLE=1 BUILD="$out" all >"$tmp/build.log" 2>&1; then
    ok "make PORTABLE=1 BUILD=$out (-Werror)"
else
    bad "the portable build fails:"; tail -n 30 "$tmp/build.log"; exit 1
fi

# ---- 2. what is compiled out ----
if nm "$out/obj/build/objcheck.o" | grep -q 'check_section\|load_sections'; then
    bad "the ELF reader is still in the portable objcheck.o"
elif ! nm "$out/obj/build/objcheck_nm.o" | grep -q ' T obj_check$'; then
    bad "objcheck_nm.o does not define obj_check"
else
    ok "the object check is the nm reader (no ELF reader linked)"
fi
if nm -u "$out/grader" "$out/runner_main.o" 2>/dev/null | grep -q 'seccomp_'; then
    bad "the portable grader or runner still calls libseccomp"
elif ! nm -u "$elf/runner_main.o" | grep -q 'seccomp_'; then
    bad "control: the ELF build's runner calls no libseccomp (the check is blind)"
else
    ok "no libseccomp in the portable grader and runner (the ELF build's runner has it)"
fi

for f in memfd_create pipe2 prctl mkostemp; do
    if nm -u "$out/grader" | grep -qw "$f"; then
        bad "the portable grader still calls '$f' (core/compat.h has its fallback)"
    fi
done
nm -u "$elf/grader" | grep -qw memfd_create ||
    bad "control: the ELF build's grader calls no memfd_create (the check is blind)"
[ "$fails" -eq 0 ] && ok "no Linux-only call in the portable grader (memfd_create, pipe2, prctl, mkostemp)"

# ---- 3. the same rubrics ----
# A rubric as both builds must print it: the reproduce lines name each
# build's own grader, and a long one is wrapped (" \" at the end of a
# line), at another place for a path of another length: joined first.
normalise() {
    awk '{ while (/ \\$/ && (getline n) > 0) { sub(/\\$/, "", $0); sub(/^ +/, "", n)
                                               $0 = $0 n }
           print }' "$1" |
        sed "s|$elf/portable/grader|GRADER|; s|$elf/grader|GRADER|"
}
score_of() { sed -n 's/^  score: *\([0-9.]*\) \/ \([0-9.]*\).*/\1 \2/p' "$1" | head -n 1; }
"$out/grader" grade reference/attention.c >"$tmp/ref.txt" 2>"$tmp/ref.err"
set -- $(score_of "$tmp/ref.txt")
if [ "${1:-x}" = "${2:-y}" ] && grep -q 'sandbox is reduced' "$tmp/ref.err"; then
    ok "reference: full marks ($1 / $2), and the reduced sandbox is said on stderr"
else
    bad "reference: '${1:-} / ${2:-}'"; tail -n 5 "$tmp/ref.txt" "$tmp/ref.err"
fi
printf '#include "attention.h"\n#include <stdio.h>\nint attn_softmax_rows(float *x, size_t r, size_t c)\n{ (void)x; (void)r; (void)c; return remove("x"); }\n' \
    >"$tmp/calls_remove.c"
for s in "$elf"/catalogue/submissions/block_prenorm.c "$elf"/catalogue/submissions/sdpa_no_scale.c \
         tests/batch_fixtures/broken.c "$tmp/calls_remove.c"; do
    "$elf/grader" grade "$s" >"$tmp/a.txt" 2>/dev/null
    a=$?
    "$out/grader" grade "$s" >"$tmp/b.txt" 2>/dev/null
    b=$?
    normalise "$tmp/a.txt" >"$tmp/a2.txt"
    normalise "$tmp/b.txt" >"$tmp/b2.txt"
    set -- $(score_of "$tmp/b.txt")
    if [ "$a" = "$b" ] && cmp -s "$tmp/a2.txt" "$tmp/b2.txt"; then
        ok "$(basename "$s"): the rubric of the ELF build (score ${1:-?} / ${2:-?})"
    else
        bad "$(basename "$s"): the rubrics differ (exit $a vs $b):"
        diff "$tmp/a2.txt" "$tmp/b2.txt" | head -n 20
    fi
done
grep -q "calls 'remove'" "$tmp/b.txt" || bad "the portable build did not refuse a call to remove()"

# ---- 4. where macOS has no /proc ----
# The whole grading path of the portable build with /proc empty (a mount
# namespace of its own, where this user may make one), against the rubric
# of the ELF build.
ns=""
if unshare -m true 2>/dev/null; then ns="unshare -m"
elif unshare -rm true 2>/dev/null; then ns="unshare -rm"; fi
if [ -z "$ns" ]; then
    echo "skip: no mount namespace for this user: the empty-/proc run was not made"
else
    for s in reference/attention.c "$elf"/catalogue/submissions/sdpa_no_scale.c; do
        "$elf/grader" grade "$s" >"$tmp/a.txt" 2>/dev/null
        $ns sh -c 'mount -t tmpfs none /proc && ! test -e /proc/self/exe &&
                   exec "$1" grade "$2"' sh "$out/grader" "$s" >"$tmp/b.txt" 2>"$tmp/np.err"
        normalise "$tmp/a.txt" >"$tmp/a.txt.n"
        normalise "$tmp/b.txt" >"$tmp/b.txt.n"
        mv "$tmp/a.txt.n" "$tmp/a.txt"
        mv "$tmp/b.txt.n" "$tmp/b.txt"
        if [ -s "$tmp/b.txt" ] && cmp -s "$tmp/a.txt" "$tmp/b.txt"; then
            ok "$(basename "$s") with /proc empty: the rubric of the ELF build"
        else
            bad "$(basename "$s") with /proc empty:"; head -n 5 "$tmp/np.err"
            diff "$tmp/a.txt" "$tmp/b.txt" | head -n 10
        fi
    done
fi

# ---- 5. only what macOS has ----
if sh tests/macos_symbols.sh tests/macos_symbols.txt "$out/grader" "$out/runner_main.o" \
    >"$tmp/sym.txt"; then
    ok "every undefined symbol of the portable grader and runner is on tests/macos_symbols.txt"
else
    bad "symbols macOS may not have:"; head -n 20 "$tmp/sym.txt"
fi
printf 'extern int memfd_create(const char *, unsigned);\nint main(void) { return memfd_create("x", 0); }\n' \
    >"$tmp/linux_only.c"
if cc -o "$tmp/linux_only" "$tmp/linux_only.c" 2>/dev/null &&
   sh tests/macos_symbols.sh tests/macos_symbols.txt "$tmp/linux_only" >/dev/null; then
    bad "control: the macOS list accepts memfd_create (the check is blind)"
fi

[ "$fails" -eq 0 ] || { echo "portable: $fails check(s) failed"; exit 1; }
echo "portable: all checks passed"
