#!/usr/bin/env bash
# The demo job — the README's first command (`make demo` runs `scripts/demo.sh build`).
# A real torchrun elastic job: 8 DDP workers (gloo, Debian's python3-torch) on two hosts with
# disagreeing clocks — as root the multi-host testbed's (one torchrun per host, the job's own time
# server), otherwise emulated inside the recorder, saying so — a straggler, one worker crashing
# once and the group restarted by torchelastic; opens the viewer live when there is a display,
# and always writes the timeline PNG, events CSV and stats and prints raw vs corrected clocks
# (on the testbed: each host's achieved error against the offsets set). Everything is in
# examples/demo/run_demo.py; see its --help.
# Usage: scripts/demo.sh [BUILD_DIR] [run_demo.py options, e.g. --out DIR --steps N --no-viewer]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
shift || true
exec /usr/bin/python3 "$ROOT/examples/demo/run_demo.py" --build "$BUILD" "$@"
