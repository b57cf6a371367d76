#!/usr/bin/env bash
# `make fuzz` and CI: builds the libFuzzer harnesses (tests/fuzz/, clang, ASan + UBSan, build
# folder $FUZZ_BUILD, default build-fuzz) and runs each one for FUZZ_SECONDS (default 60) on one
# core, niced, from its corpus: $FUZZ_BUILD/fuzz/corpus/<harness>/ (kept between runs, so a
# longer run goes on where the last one stopped) seeded from tests/fuzz/seeds/ and tests/data/.
# A crash, an assertion of the harness, a sanitizer report, a timeout (10 s an input) or a
# run over 2 GiB stops that harness; the input is written to $FUZZ_BUILD/fuzz/artifacts/ and the
# script exits 1 after running the others. docs/reliability.md: what each harness checks.
#   FUZZ_SECONDS=3600 bash scripts/fuzz.sh            # an hour each
#   FUZZ_TARGETS="fuzz_logparser" bash scripts/fuzz.sh
#   FUZZ_PARALLEL=2 bash scripts/fuzz.sh              # two harnesses at a time (CI: one per core)
#   FUZZ_NICE=19 ...                                  # the niceness of the runs (default 10)
#   FUZZ_TIMEOUT=30 ...                               # seconds one input may take (default 10;
#                                                     # more on a machine busy with other work)
#   $FUZZ_BUILD/fuzz/fuzz_logparser CRASH_FILE         # replay one input
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
BUILD=${FUZZ_BUILD:-build-fuzz}
SECS=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-$(nproc)}
PARALLEL=${FUZZ_PARALLEL:-1}
NICE=${FUZZ_NICE:-10}
TIMEOUT=${FUZZ_TIMEOUT:-10}
TARGETS=${FUZZ_TARGETS:-fuzz_linescanner fuzz_logparser fuzz_chrometrace fuzz_timerconfig fuzz_syncpacket fuzz_jobload fuzz_cachefiles}
command -v clang++ >/dev/null || bash scripts/setup.sh
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DPython_EXECUTABLE=/usr/bin/python3 \
    -DSYNCLINE_SANITIZE=fuzzer -DSYNCLINE_BENCH=OFF >/dev/null
fi
nice -n 5 cmake --build "$BUILD" -j "$JOBS" --target syncline_fuzzers

seed() { # harness → the seed folders (and prefixes of the real traces, made here)
  local h=$1 out="$BUILD/fuzz/seeds-generated/$1"
  mkdir -p "$out"
  case $h in
    fuzz_linescanner|fuzz_logparser) echo tests/fuzz/seeds/log tests/data/demo_excerpt ;;
    fuzz_chrometrace)
      for f in tests/data/*/*.json; do
        for n in 2048 16384; do head -c $n "$f" >"$out/$(basename "$f" .json)-$n.json"; done
      done
      echo tests/fuzz/seeds/chrome "$out" ;;
    fuzz_jobload)
      # First byte 0: a log, 1: a Chrome trace (fuzz_jobload.cpp).
      for f in tests/fuzz/seeds/log/* tests/data/demo_excerpt/*.log; do { printf '\0'; cat "$f"; } >"$out/log-$(basename "$f")"; done
      for f in tests/fuzz/seeds/chrome/*; do { printf '\1'; cat "$f"; } >"$out/chrome-$(basename "$f")"; done
      echo "$out" ;;
    fuzz_timerconfig) echo tests/fuzz/seeds/config ;;
    fuzz_syncpacket) echo tests/fuzz/seeds/packet ;;
    fuzz_cachefiles) echo tests/fuzz/seeds/cache ;; # operations on the job's cache files
  esac
}

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$repo/tests/sanitizers/lsan.supp:print_suppressions=0"
export TMPDIR="$(mktemp -d /tmp/syncline-fuzz-run.XXXXXX)"
trap 'rm -rf "$TMPDIR"' EXIT
# One harness: its run, then one result line (stat::number_of_executed_units, corpus size).
run_one() {
  local h=$1 corpus="$BUILD/fuzz/corpus/$1" art="$BUILD/fuzz/artifacts" seeds
  mkdir -p "$corpus" "$art"
  seeds=$(seed "$h")
  # -max_len: whole small logs and trace prefixes; -timeout: one input may not take 10 s (FUZZ_TIMEOUT).
  # shellcheck disable=SC2086
  if nice -n "$NICE" "$BUILD/fuzz/$h" -max_total_time="$SECS" -timeout="$TIMEOUT" -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$art/$h-" \
      "$corpus" $seeds >"$BUILD/fuzz/$h.log" 2>&1; then
    echo "fuzz: $h clean: $(grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$BUILD/fuzz/$h.log" |
      tr '\n' ' ')corpus $(find "$corpus" -type f | wc -l) files"
  else
    echo "fuzz: $h FAILED — last lines of $BUILD/fuzz/$h.log:"
    tail -40 "$BUILD/fuzz/$h.log"
    return 1
  fi
}
# FUZZ_PARALLEL harnesses at a time (default 1; CI runs one per core), each on one core.
failed=()
declare -A pids=()
for h in $TARGETS; do
  while ((${#pids[@]} >= PARALLEL)); do
    for p in "${!pids[@]}"; do
      if ! kill -0 "$p" 2>/dev/null; then
        wait "$p" || failed+=("${pids[$p]}")
        unset "pids[$p]"
      fi
    done
    ((${#pids[@]} < PARALLEL)) || sleep 1
  done
  echo "fuzz: $h for ${SECS}s (corpus $BUILD/fuzz/corpus/$h)"
  run_one "$h" &
  pids[$!]=$h
done
for p in "${!pids[@]}"; do
  wait "$p" || failed+=("${pids[$p]}")
done
if ((${#failed[@]})); then
  echo "fuzz: failed: ${failed[*]} (inputs in $BUILD/fuzz/artifacts/)"
  exit 1
fi
echo "fuzz: all ${SECS}s runs clean"
