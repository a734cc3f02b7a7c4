#!/bin/sh
# Check the two documented recipes without a cluster: run grade-array.sbatch
# once per array task (as Slurm would) and GNU parallel over the shards, merge
# each, and compare with a single run. Usage: sh tests/slurm/run-local.sh BUILD CLASS [N]
set -eu
build=$1; class=$2; n=${3:-3}
here=$(cd "$(dirname "$0")" && pwd); src=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT INT TERM
g="$build/grader"; spec="$src/specs/public.yaml"
"$g" batch --spec "$spec" --out "$tmp/single" "$class" 2>/dev/null
k=1
while [ "$k" -le "$n" ]; do
    SLURM_ARRAY_TASK_ID=$k N=$n CLASS=$class OUT=$tmp/slurm GRADER=$g SPEC=$spec \
        sh "$here/grade-array.sbatch" 2>/dev/null
    k=$((k + 1))
done
"$g" merge --out "$tmp/slurm/all" "$tmp"/slurm/shard-* 2>/dev/null
cmp "$tmp/single/grades.csv" "$tmp/slurm/all/grades.csv"
echo "slurm recipe: merged gradebook identical to a single run"
if command -v parallel >/dev/null 2>&1; then
    seq 1 "$n" | parallel -j 2 "$g" batch --spec "$spec" --jobs 1 --shard {}/"$n" \
        --out "$tmp/par/shard-{}" "$class" 2>/dev/null
    "$g" merge --out "$tmp/par/all" "$tmp"/par/shard-* 2>/dev/null
    cmp "$tmp/single/grades.csv" "$tmp/par/all/grades.csv"
    echo "parallel recipe: merged gradebook identical to a single run"
else
    echo "parallel recipe: GNU parallel not installed, not checked"
fi
