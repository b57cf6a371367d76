#!/usr/bin/env bash
# `make sanitize` and CI: the test suite under the sanitizers (docs/reliability.md). The cheaper
# half first, so that a finding there fails early:
#   1. $TSAN_BUILD (default build-tsan): the recorder and live tests (ctest label "tsan",
#      build target syncline_tsan_tests: only what they link) under ThreadSanitizer.
#   2. $ASAN_BUILD (default build-asan): everything but the benchmarks built with ASan + UBSan
#      (-fno-sanitize-recover=all: the first report fails the test), then the WHOLE ctest suite
#      (scripts/run-tests.sh: C++, the viewer and CLI tests under xvfb, the Python tests with the
#      runtime preloaded into the interpreter).
#   asan-core: as 2, but only the tests of recorder/, sync/ and timeline/ (ctest label "core",
#      target syncline_core_tests: no viewer, CLI or Python, so neither ui/ nor app/ is built).
# Both build at -O1 -g1 (cmake/SynclineSanitize.cmake).
# Leak checking stays on; only third-party leaks are suppressed, by tests/sanitizers/lsan.supp
# (each entry says why). TSan reports inside uninstrumented third-party code: tsan.supp.
# Usage: bash scripts/sanitize.sh [tsan|asan|asan-core|all]   (default all: tsan, then asan)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
what=${1:-all}
case $what in tsan | asan | asan-core | all) ;; *)
  echo "usage: bash scripts/sanitize.sh [tsan|asan|asan-core|all]" >&2
  exit 2
  ;;
esac
ASAN_BUILD=${ASAN_BUILD:-build-asan}
TSAN_BUILD=${TSAN_BUILD:-build-tsan}
JOBS=${JOBS:-$(nproc)}
supp="$repo/tests/sanitizers"
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  -DPython_EXECUTABLE=/usr/bin/python3 -DSYNCLINE_BENCH=OFF)

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=0"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="suppressions=$supp/tsan.supp:halt_on_error=1:second_deadlock_stack=1"

if [ "$what" = tsan ] || [ "$what" = all ]; then
  [ -f "$TSAN_BUILD/build.ninja" ] || cmake -S . -B "$TSAN_BUILD" "${common[@]}" -DSYNCLINE_SANITIZE=thread >/dev/null
  nice -n 5 cmake --build "$TSAN_BUILD" -j "$JOBS" --target syncline_tsan_tests
  echo "sanitize: the recorder and live tests under TSan ($TSAN_BUILD)"
  mkdir -p "$TSAN_BUILD/xdg-runtime" && chmod 700 "$TSAN_BUILD/xdg-runtime"
  XDG_RUNTIME_DIR="$repo/$TSAN_BUILD/xdg-runtime" \
    ctest --test-dir "$TSAN_BUILD" -L tsan --output-on-failure -j "$JOBS"
fi
if [ "$what" = asan ] || [ "$what" = all ]; then
  [ -f "$ASAN_BUILD/build.ninja" ] || cmake -S . -B "$ASAN_BUILD" "${common[@]}" -DSYNCLINE_SANITIZE=address >/dev/null
  nice -n 5 cmake --build "$ASAN_BUILD" -j "$JOBS"
  echo "sanitize: the whole test suite under ASan + UBSan ($ASAN_BUILD)"
  bash scripts/run-tests.sh "$ASAN_BUILD"
fi
if [ "$what" = asan-core ]; then
  [ -f "$ASAN_BUILD/build.ninja" ] || cmake -S . -B "$ASAN_BUILD" "${common[@]}" -DSYNCLINE_SANITIZE=address >/dev/null
  nice -n 5 cmake --build "$ASAN_BUILD" -j "$JOBS" --target syncline_core_tests
  echo "sanitize: the recorder, sync and timeline tests under ASan + UBSan ($ASAN_BUILD)"
  mkdir -p "$ASAN_BUILD/xdg-runtime" && chmod 700 "$ASAN_BUILD/xdg-runtime"
  XDG_RUNTIME_DIR="$repo/$ASAN_BUILD/xdg-runtime" \
    ctest --test-dir "$ASAN_BUILD" -L core --output-on-failure -j "$JOBS"
fi
echo "sanitize: clean ($what)"
