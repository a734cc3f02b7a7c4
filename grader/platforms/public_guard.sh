#!/bin/sh
# The last step of `make classroom50`: refuse a bundle that holds a
# staff-only file (the hidden spec, impl_local.c, the reference, or a copy
# of it under another name). A Classroom 50 bundle is publicly readable.
# Usage: sh grader/platforms/public_guard.sh BUNDLE_DIR  (from the repo root)
set -u
out=$1
bad=0
for name in hidden.yaml impl_local.c reference reference.o; do
    hits=$(find "$out" -name "$name" | head -n 3)
    [ -z "$hits" ] || { echo "classroom50: staff-only '$name' in the bundle: $hits" >&2; bad=1; }
done
if [ -f reference/attention.c ]; then
    same=$(find "$out" -type f -name '*.c' -exec cmp -s {} reference/attention.c \; -print)
    [ -z "$same" ] || { echo "classroom50: the reference solution in the bundle: $same" >&2; bad=1; }
fi
if [ -f specs/hidden.yaml ]; then
    same=$(find "$out" -type f -exec cmp -s {} specs/hidden.yaml \; -print)
    [ -z "$same" ] || { echo "classroom50: the hidden spec in the bundle: $same" >&2; bad=1; }
fi
[ "$bad" -eq 0 ] || { rm -rf "$out"; exit 1; }
exit 0
