#!/usr/bin/env bash
# Runs every test under ctest. Widgets run offscreen (set per test); anything that needs a
# real X server (OpenGL) gets one from xvfb-run when no DISPLAY is set.
set -euo pipefail
BUILD=${1:-build}
mkdir -p "$BUILD/xdg-runtime" && chmod 700 "$BUILD/xdg-runtime"
export XDG_RUNTIME_DIR="$PWD/$BUILD/xdg-runtime"
cmd=(ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)")
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
  exec xvfb-run -a -s "-screen 0 1920x1080x24" "${cmd[@]}"
fi
exec "${cmd[@]}"
