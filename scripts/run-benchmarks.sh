#!/usr/bin/env bash
# Runs every benchmark program in build/bin/bench_* with the same arguments each time.
# Qt-based benches render offscreen into a private runtime dir (no display needed).
set -euo pipefail
BUILD=${1:-build}
mkdir -p "$BUILD/xdg-runtime" && chmod 700 "$BUILD/xdg-runtime"
export XDG_RUNTIME_DIR="$PWD/$BUILD/xdg-runtime"
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
for b in "$BUILD"/bin/bench_*; do
  [ -x "$b" ] || continue
  echo "=== $(basename "$b")"
  "$b"
done
