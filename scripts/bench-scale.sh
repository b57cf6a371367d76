#!/usr/bin/env bash
# make bench-scale — the scale benchmark (not in CI): generates a job of the realistic
# shape with syncline-sim (datacenter regime, 2 ms steps, 8 processes per host, {"step": N} args
# on every event, message records), then measures on it: generation time, full load time, peak
# and resident bytes per event (bench_load --dir, the loader in a child process), the pread
# baseline, first frame and frame times of the whole job and of a zoomed view (bench_view --job),
# whole-job `syncline stats` time and peak, and a 10 s window (`syncline export --range 10s:20s`
# and `stats --range`): first cut from a full load (no index yet: that load writes it), then read
# through the index (only the blocks the window needs), time and peak of each, and the two CSVs
# compared byte for byte. As root, the same loads with the page cache dropped before each (the
# cold-read baseline, the logs parsed, the job again from its event stores, the window).
#
# usage: scripts/bench-scale.sh [BUILD] ; environment: WORKERS (1024), DURATION_S (42), SEED (7),
#        OUT (a directory with room: ~24 GB for 1,024 workers; default /tmp/syncline-scale),
#        KEEP=1 keeps the job afterwards, WINDOW_ONLY=1 measures only generation and the window
#        (skips bench_load, check, stats and bench_view: four more full loads), SKIP_CHECK=1
#        skips `syncline check` (one full load). Runs niced.
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
rm -rf "$JOB/.syncline-index" # a fresh index for every run (the first full load writes it)
# The logs against the RAM: a job bigger than the page cache is read cold by every full load
# (bench_load's pread baseline below then measures the cold read).
LOGBYTES=$(find "$JOB" -maxdepth 1 -name '*.log' -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s}')
echo "logs: $((LOGBYTES / 1000000)) MB in $(find "$JOB" -maxdepth 1 -name '*.log' | wc -l) files; RAM $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MB"
BYTES=$(du -sb "$JOB" | cut -f1)
echo "job size: $((BYTES / 1000000)) MB"

echo "== a 10 s window, no index yet: the whole job is loaded and cut (that load writes the index)"
read -r s kb < <(measure "$BIN/syncline" export --quiet "$JOB" --range 10s:20s --csv "$OUT/window-full.csv")
echo "  export --range 10s:20s (full load + cut): $s s, peak $((kb / 1024)) MB, $(($(wc -l < "$OUT/window-full.csv") - 1)) events"
echo "  index written: $(du -sb "$JOB/.syncline-index" | cut -f1) bytes in $JOB/.syncline-index"
for kind in sevt sidx scc slk; do
    b=$(find "$JOB/.syncline-index" -name "*.$kind" -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s}')
    echo "    .$kind: $((b / 1000000)) MB"
done

if [ "${WINDOW_ONLY:-0}" != 1 ]; then
echo "== full load (parse + nest + correct), loader in a child process"
nice -n 10 "$BIN/bench_load" --dir "$JOB" --baselines 0 | sed 's/^/  /'

# Cold: the page cache dropped before each run (root only; elsewhere skipped), so the logs,
# which do not stay cached here, and the event stores are read from disk: the cold-read
# baseline (cat of every log, two at a time), the logs parsed, and the job loaded again from
# its event stores; with the bytes the disk delivered (/proc/diskstats).
DEV=$(lsblk -no pkname "$(df --output=source "$JOB" | tail -1)" 2>/dev/null || true)
[ -n "$DEV" ] || DEV=$(basename "$(df --output=source "$JOB" | tail -1)")
if [ -w /proc/sys/vm/drop_caches ] && grep -q " $DEV " /proc/diskstats; then
    echo "== cold page cache (dropped before each; disk $DEV)"
    cold() { # label, command...
        local label=$1 a b c d s kb
        shift
        sync
        echo 3 > /proc/sys/vm/drop_caches
        read -r a b < <(awk -v d="$DEV" '$3 == d {print $4, $6}' /proc/diskstats)
        read -r s kb < <(measure "$@")
        read -r c d < <(awk -v d="$DEV" '$3 == d {print $4, $6}' /proc/diskstats)
        echo "  $label: $s s, peak $((kb / 1024)) MB, $(((d - b) * 512 / 1000000)) MB read from disk in $((c - a)) requests"
    }
    cold "cold read of the logs (cat, 2 at a time)" sh -c "find '$JOB' -maxdepth 1 -name '*.log' -print0 | xargs -0 -P 2 -n 32 cat > /dev/null"
    cold "full load, logs parsed (bench_load's loader, writeIndex off)" "$BIN/bench_load" --loader-child 1 "$JOB" 0 0 0 0 0 0
    cold "full load again, from the event stores" "$BIN/bench_load" --loader-child 1 "$JOB" 0 0 0 0 0 1
    cold "10 s window (bench_load --window 10:20)" "$BIN/bench_load" --dir "$JOB" --window 10:20
    grep -h "window 10 s" "$OUT/last.out" | sed 's/^ */    /'
fi

if [ "${SKIP_CHECK:-0}" != 1 ]; then
echo "== syncline check (whole job, CLI)"
read -r s kb < <(measure "$BIN/syncline" check --quiet "$JOB")
tail -1 "$OUT/last.out" | sed 's/^/  /'
echo "  check: $s s, peak $((kb / 1024)) MB"
fi

echo "== syncline stats (whole job)"
read -r s kb < <(measure "$BIN/syncline" stats --quiet "$JOB")
echo "  stats: $s s, peak $((kb / 1024)) MB"
fi

echo "== the same 10 s window through the index and the event stores (only the chunks it needs)"
echo "  opening it (JobLoader with the window, in a child; bench_load --window):"
nice -n 10 "$BIN/bench_load" --dir "$JOB" --window 10:20 | sed 's/^/  /'
read -r s kb < <(measure "$BIN/syncline" export --quiet "$JOB" --range 10s:20s --csv "$OUT/window.csv")
echo "  export --range 10s:20s (windowed): $s s, peak $((kb / 1024)) MB, $(($(wc -l < "$OUT/window.csv") - 1)) events"
if cmp -s "$OUT/window.csv" "$OUT/window-full.csv"; then
    echo "  windowed CSV == full-load-cut CSV (byte for byte)"
else
    echo "  windowed CSV DIFFERS from the full-load-cut CSV"
fi
read -r s kb < <(measure "$BIN/syncline" stats --quiet "$JOB" --range 10s:20s)
echo "  stats --range 10s:20s (windowed): $s s, peak $((kb / 1024)) MB"
rm -f "$OUT/window.csv" "$OUT/window-full.csv"

if [ "${WINDOW_ONLY:-0}" != 1 ]; then
echo "== viewer frames (bench_view --job: load, first frame, whole job and zoomed)"
QT_QPA_PLATFORM=offscreen nice -n 10 "$BIN/bench_view" --job "$JOB" --frames 5 | sed 's/^/  /'
fi

[ "${KEEP:-0}" = 1 ] || rm -rf "$JOB"
