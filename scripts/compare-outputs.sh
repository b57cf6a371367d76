#!/usr/bin/env bash
# compare-outputs.sh BASE NEW [SIM] — are two builds of syncline byte-identical on what users get?
#
# BASE and NEW are two `syncline` binaries (e.g. main's build and a branch's). Every input is
# loaded by each from the SAME path (a fresh copy, with its own XDG_CACHE_HOME, so neither reads
# the other's cache files), twice: cold (no caches: a parse, which writes the index, event store
# and correction cache) and warm (the caches just written are read). For each load it keeps
#   export --csv, export --chrome, stats --json, check (stdout and exit status)
# and compares BASE against NEW byte for byte, cold with cold and warm with warm, and NEW cold
# against NEW warm. Nothing is excluded: the inputs sit at the same path for both binaries, so
# the paths in problems and exports agree, and no output carries a wall-clock time of the run.
#
# Inputs: every directory of tests/data and every trace or log file in it; a job with problems
# of many kinds, each past the shown-per-kind cap (so the "… and N more" summaries and their
# order are compared); and, when SIM (a `syncline-sim`) is given, a 64-worker realistic job
# (bench_load's shape: args on every event, message records, 8 ranks per host, 2 ms steps).
# Exit status: 0 when everything is identical, 1 otherwise (the differing files are named).
set -euo pipefail
BASE=$(realpath "$1"); NEW=$(realpath "$2"); SIM=${3:+$(realpath "$3")}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/compare-outputs.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/src"

# The inputs, as name → path.
declare -A INPUT
for d in "$ROOT"/tests/data/*/; do
    n=$(basename "$d")
    [ "$n" = perfetto ] && continue # a .proto schema, no trace
    INPUT[$n]=$d
    for f in "$d"*; do
        case "$f" in *.log|*.json|*.json.gz) INPUT[$n--$(basename "$f")]=$f ;; esac
    done
done
# A log with problems of many kinds, 8 of each (5 shown, then one summary per kind).
mkdir -p "$W/src/problems"
{
    echo '{"t":"header","format":"syncline","version":1,"rank":0,"world_size":1,"restart":0,"pid":1,"host":"h","anchor":{"mono_ns":1000,"wall_ns":1700000000000000000}}'
    for i in 1 2 3 4 5 6 7 8; do
        echo "{not json $i"
        echo "{\"t\":\"E\",\"ts\":$((1000 + i)),\"tid\":1,\"name\":\"orphan$i\"}"
        echo "{\"t\":\"B\",\"ts\":$((5000 + 10 * i)),\"tid\":2,\"name\":\"open$i\"}"
        echo "{\"t\":\"X\",\"ts\":$((2000 + i)),\"dur\":-5,\"tid\":3,\"name\":\"neg$i\"}"
        echo "{\"t\":\"B\",\"ts\":$((900 - i)),\"tid\":4,\"name\":\"late$i\"}"
        echo "{\"t\":\"E\",\"ts\":$((901 - i)),\"tid\":4,\"name\":\"late$i\"}"
    done
} > "$W/src/problems/timer_events.0.log"
INPUT[problems]=$W/src/problems
if [ -n "$SIM" ]; then
    "$SIM" --out "$W/src/sim64" --workers 64 --duration-s 4 --per-host 8 --iteration-ms 2 \
        --regime datacenter > /dev/null
    INPUT[sim64]=$W/src/sim64
fi

# run BIN OUTDIR INPUTPATH: the four outputs of one load.
run() {
    local bin=$1 out=$2 in=$3
    mkdir -p "$out"
    "$bin" export "$in" --csv "$out/events.csv" > "$out/export-csv.stdout" 2>&1 || echo "rc=$?" >> "$out/export-csv.stdout"
    "$bin" export "$in" --chrome "$out/chrome.json" > "$out/export-chrome.stdout" 2>&1 || echo "rc=$?" >> "$out/export-chrome.stdout"
    "$bin" stats "$in" --json > "$out/stats.json" 2> "$out/stats.stderr" || echo "rc=$?" >> "$out/stats.stderr"
    local rc=0
    "$bin" check "$in" > "$out/check.txt" 2> "$out/check.stderr" || rc=$?
    echo "rc=$rc" >> "$out/check.txt"
}

status=0
for n in $(printf '%s\n' "${!INPUT[@]}" | sort); do
    src=${INPUT[$n]}
    for who in base new; do
        bin=$BASE; [ $who = new ] && bin=$NEW
        rm -rf "$W/in" "$W/cache"
        mkdir -p "$W/in"
        cp -r "${src%/}" "$W/in/"
        export XDG_CACHE_HOME=$W/cache
        run "$bin" "$W/out/$n/$who/cold" "$W/in/$(basename "${src%/}")"
        run "$bin" "$W/out/$n/$who/warm" "$W/in/$(basename "${src%/}")"
    done
    same=1
    for a in "base/cold new/cold" "base/warm new/warm" "new/cold new/warm"; do
        set -- $a
        if ! diff -rq "$W/out/$n/$1" "$W/out/$n/$2" > "$W/diff" 2>&1; then
            same=0; status=1
            echo "DIFFERENT $n: $1 vs $2"; sed 's/^/    /' "$W/diff"
        fi
    done
    files=$(ls "$W/out/$n/new/cold" | wc -l)
    bytes=$(cat "$W/out/$n/new/cold"/* | wc -c)
    [ $same = 1 ] && echo "identical  $n ($files outputs, $bytes bytes, cold and warm)"
done
exit $status
