#!/usr/bin/env bash
# Runs every benchmark program in build/bin/bench_* with the same arguments each time.
set -euo pipefail
BUILD=${1:-build}
for b in "$BUILD"/bin/bench_*; do
  [ -x "$b" ] || continue
  echo "=== $(basename "$b")"
  "$b"
done
