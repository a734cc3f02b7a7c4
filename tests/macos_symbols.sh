#!/bin/sh
# Every symbol the portable build leaves undefined is one macOS provides, as
# tests/macos_symbols.txt lists it (with the counterpart of each glibc or
# Linux-only name). Usage: sh tests/macos_symbols.sh LIST FILE...
# Prints each symbol not on the list; exits 1 if any, 0 otherwise.
set -u
list=$1; shift
pats=$(sed -n 's/^[a-z][a-z]*  *\([^ ]*\).*/\1/p' "$list")
unknown=0
for s in $(nm -u "$@" | awk 'NF >= 2 {print $NF}' | sed 's/@.*//' | sort -u); do
    found=0
    for p in $pats; do
        case "$s" in $p) found=1; break ;; esac
    done
    [ "$found" = 1 ] || { echo "not on the macOS list: $s"; unknown=$((unknown + 1)); }
done
[ "$unknown" -eq 0 ]
