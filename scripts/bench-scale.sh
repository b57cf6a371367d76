#!/usr/bin/env bash
# make bench-scale — the scale benchmark of issue 14 (not in CI): generates a job of the realistic
# shape with syncline-sim (datacenter regime, 2 ms steps, 8 processes per host, {"step": N} args
# on every event, message records), then measures on it: generation time, full load time, peak
# and resident bytes per event (bench_load --dir, the loader in a child process), the pread
# baseline, first frame and frame times of the whole job and of a zoomed view (bench_view --job),
# whole-job `syncline stats` time and peak, and `syncline export --range` (a 10 s window).
#
# usage: scripts/bench-scale.sh [BUILD] ; environment: WORKERS (1024), DURATION_S (42), SEED (7),
#        OUT (a directory with room: ~24 GB for 1,024 workers; default /tmp/syncline-scale),
#        KEEP=1 keeps the job afterwards. Runs niced.
set -euo pipefail
BUILD=${1:-build}
WORKERS=${WORKERS:-1024}
DURATION_S=${DURATION_S:-42}
SEED=${SEED:-7}
OUT=${OUT:-/tmp/syncline-scale}
BIN=$BUILD/bin
JOB=$OUT/job-$WORKERS
for b in syncline syncline-sim bench_load bench_view; do
    [ -x "$BIN/$b" ] || { echo "bench-scale: $BIN/$b missing (build first: make build)" >&2; exit 1; }
done
mkdir -p "$OUT"
TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench-scale: needs GNU time (/usr/bin/time, Debian package 'time')" >&2; exit 1; }
# "<seconds> <max RSS KB>" of a command, its output to $OUT/last.out.
measure() {
    $TIME -f "%e %M" -o "$OUT/time.txt" nice -n 10 "$@" > "$OUT/last.out" 2>&1
    cat "$OUT/time.txt"
}

echo "== bench-scale: $WORKERS workers x ${DURATION_S} s (seed $SEED), job in $JOB"
if [ ! -f "$JOB/timer_events.0.log" ]; then
    rm -rf "$JOB"
    read -r s _ < <(measure "$BIN/syncline-sim" --seed "$SEED" --workers "$WORKERS" \
        --duration-s "$DURATION_S" --iteration-ms 2 --per-host 8 --regime datacenter --out "$JOB")
    tail -1 "$OUT/last.out"
    echo "generation: $s s"
else
    echo "generation: skipped (job already there)"
fi
BYTES=$(du -sb "$JOB" | cut -f1)
echo "job size: $((BYTES / 1000000)) MB"

echo "== full load (parse + nest + correct), loader in a child process"
nice -n 10 "$BIN/bench_load" --dir "$JOB" --baselines 0 | sed 's/^/  /'

echo "== syncline check (whole job, CLI)"
read -r s kb < <(measure "$BIN/syncline" check --quiet "$JOB")
tail -1 "$OUT/last.out" | sed 's/^/  /'
echo "  check: $s s, peak $((kb / 1024)) MB"

echo "== syncline stats (whole job)"
read -r s kb < <(measure "$BIN/syncline" stats --quiet "$JOB")
echo "  stats: $s s, peak $((kb / 1024)) MB"

echo "== syncline export --range 10s:20s --csv (a 10 s window)"
read -r s kb < <(measure "$BIN/syncline" export --quiet "$JOB" --range 10s:20s --csv "$OUT/window.csv")
echo "  export of a 10 s window: $s s, peak $((kb / 1024)) MB, $(($(wc -l < "$OUT/window.csv") - 1)) events"
echo "  (the window is cut after the whole job is loaded: windowed reading is not implemented yet,"
echo "   see docs/scale.md 'Beyond one machine's memory')"

echo "== viewer frames (bench_view --job: load, first frame, whole job and zoomed)"
QT_QPA_PLATFORM=offscreen nice -n 10 "$BIN/bench_view" --job "$JOB" --frames 5 | sed 's/^/  /'

[ "${KEEP:-0}" = 1 ] || rm -rf "$JOB"
