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
#   $FUZZ_BUILD/fuzz/fuzz_logparser CRASH_FILE         # replay one input
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
BUILD=${FUZZ_BUILD:-build-fuzz}
SECS=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-$(nproc)}
TARGETS=${FUZZ_TARGETS:-fuzz_linescanner fuzz_logparser fuzz_chrometrace fuzz_timerconfig fuzz_syncpacket fuzz_jobload}
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
    fuzz_linescanner|fuzz_logparser) echo tests/fuzz/seeds/log ;;
    fuzz_chrometrace)
      for f in tests/data/*/*.json; do
        for n in 2048 16384; do head -c $n "$f" >"$out/$(basename "$f" .json)-$n.json"; done
      done
      echo tests/fuzz/seeds/chrome "$out" ;;
    fuzz_jobload)
      # First byte 0: a log, 1: a Chrome trace (fuzz_jobload.cpp).
      for f in tests/fuzz/seeds/log/*; do { printf '\0'; cat "$f"; } >"$out/log-$(basename "$f")"; done
      for f in tests/fuzz/seeds/chrome/*; do { printf '\1'; cat "$f"; } >"$out/chrome-$(basename "$f")"; done
      echo "$out" ;;
    fuzz_timerconfig) echo tests/fuzz/seeds/config ;;
    fuzz_syncpacket) echo tests/fuzz/seeds/packet ;;
  esac
}

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$repo/tests/sanitizers/lsan.supp:print_suppressions=0"
export TMPDIR="$(mktemp -d /tmp/syncline-fuzz-run.XXXXXX)"
trap 'rm -rf "$TMPDIR"' EXIT
failed=()
for h in $TARGETS; do
  corpus="$BUILD/fuzz/corpus/$h"
  art="$BUILD/fuzz/artifacts"
  mkdir -p "$corpus" "$art"
  # shellcheck disable=SC2046
  seeds=$(seed "$h")
  echo "fuzz: $h for ${SECS}s (corpus $corpus)"
  # -max_len: whole small logs and trace prefixes; -timeout: one input may not take 10 s.
  if nice -n 10 "$BUILD/fuzz/$h" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$art/$h-" \
      "$corpus" $seeds >"$BUILD/fuzz/$h.log" 2>&1; then
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done)' "$BUILD/fuzz/$h.log" | tr '\n' ' '
    echo
  else
    echo "fuzz: $h FAILED — last lines of $BUILD/fuzz/$h.log:"
    tail -40 "$BUILD/fuzz/$h.log"
    failed+=("$h")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: failed: ${failed[*]} (inputs in $BUILD/fuzz/artifacts/)"
  exit 1
fi
echo "fuzz: all ${SECS}s runs clean"
