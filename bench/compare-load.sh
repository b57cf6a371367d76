#!/usr/bin/env bash
# compare-load.sh BASE NEW [WORKERS] [DURATION_S] — bench_load of two builds in one run.
#
# BASE and NEW are two `bench_load` binaries. One realistic job (bench_load's shape: syncline-sim
# datacenter, seed 3, 8 workers per host, 2 ms steps, args and messages) is written once, then
# loaded by BASE, NEW, BASE, NEW (each with the job's caches removed first, so every run parses
# and then decodes from the stores it wrote). Prints each run's full-load and loaded-again rows;
# compare the two builds run for run (the machine's load is the same for both within a pair).
set -euo pipefail
BASE=$(realpath "$1"); NEW=$(realpath "$2"); WORKERS=${3:-64}; DURATION=${4:-10}
JOB=$(mktemp -d /tmp/compare-load.XXXXXX)
trap 'rm -rf "$JOB"' EXIT
export XDG_CACHE_HOME=$JOB/xdg
"$NEW" --shape realistic --workers "$WORKERS" --duration-s "$DURATION" --keep "$JOB" \
    --baselines 0 > /dev/null
for run in 1 2; do
    for who in BASE NEW; do
        bin=$BASE; [ $who = NEW ] && bin=$NEW
        rm -rf "$JOB/realistic/.syncline-index" "$XDG_CACHE_HOME"
        echo "== run $run: $who"
        "$bin" --dir "$JOB/realistic" --baselines 0 | grep -E "files,|syncline loader|loaded again,|events loaded|resident after load"
    done
done
