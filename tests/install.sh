#!/bin/sh
# `make install` as a packager runs it, run by tests/test_cli.c: install
# into a temporary DESTDIR with PREFIX=/usr, then grade from / with the
# staged grader (it finds its data from where it runs), check --version,
# -h and the manual page, and uninstall.
# Usage: sh tests/install.sh SRCDIR BUILD_DIR (an up-to-date build)
set -u
src=$1
build=$2
dest=$(mktemp -d /tmp/grader-install.XXXXXX) || exit 2
trap 'rm -rf "$dest" "$dest.err" "$dest.log"' EXIT INT TERM
unset MAKEFLAGS MFLAGS MAKELEVEL
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

cd "$src" || exit 2
if make --no-print-directory -s install BUILD="$build" INSTALL_DEPS= DESTDIR="$dest" \
    PREFIX=/usr >"$dest.log" 2>&1; then
    ok "make install DESTDIR=... PREFIX=/usr"
else
    bad "make install failed:"; tail -n 20 "$dest.log"; rm -f "$dest.log"; exit 1
fi
rm -f "$dest.log"
g="$dest/usr/bin/grader"
for f in "$g" "$dest/usr/share/attention-grader/runner_main.o" \
         "$dest/usr/share/attention-grader/include/attention.h" \
         "$dest/usr/share/attention-grader/specs/public.yaml" \
         "$dest/usr/share/man/man1/grader.1"; do
    [ -f "$f" ] || bad "not installed: ${f#$dest}"
done
ref=$(cd "$src" && pwd)/reference/attention.c
out=$(cd / && "$g" grade "$ref" 2>"$dest.err")
case "$out" in
    *"score: 60.0 / 60.0"*) ok "the staged grader grades the reference from / (full marks)" ;;
    *) bad "grading from /:"; echo "$out" | tail -n 3; head -n 3 "$dest.err" ;;
esac
(cd / && "$g" --version) | grep -q '^attention-grader ' && ok "grader --version" ||
    bad "grader --version"
for h in -h --help "help grade"; do
    (cd / && "$g" $h >/dev/null) || bad "grader $h exits $?"
done
if command -v groff >/dev/null 2>&1; then
    w=$(groff -man -Tutf8 -ww -z "$dest/usr/share/man/man1/grader.1" 2>&1)
    [ -z "$w" ] && ok "grader.1 has no groff warning" || bad "grader.1: $w"
fi
grep -q '^\.SS grade$' "$dest/usr/share/man/man1/grader.1" || bad "grader.1 has no 'grade' section"
make --no-print-directory -s uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null 2>&1
left=$(find "$dest" -type f | head -n 5)
[ -z "$left" ] && ok "make uninstall removes every file" || bad "left after uninstall: $left"

[ "$fails" -eq 0 ] || { echo "install: $fails check(s) failed"; exit 1; }
echo "install: all checks passed"
