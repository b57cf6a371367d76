#!/usr/bin/env bash
# The demo job — the README's first command (`make demo` runs `scripts/demo.sh build`).
# Runs 8 workers (C++ and Python) on two emulated hosts with disagreeing clocks, the time server
# and a fake training loop (straggler, checkpoint, a hung rank), then writes the timeline PNG,
# events CSV and stats, prints raw vs corrected clocks, and opens the viewer when there is a
# display. Everything is in examples/demo/run_demo.py; see its --help.
# Usage: scripts/demo.sh [BUILD_DIR] [run_demo.py options, e.g. --out DIR --steps N --no-viewer]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
shift || true
exec /usr/bin/python3 "$ROOT/examples/demo/run_demo.py" --build "$BUILD" "$@"
