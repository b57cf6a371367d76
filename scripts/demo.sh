#!/usr/bin/env bash
# The main job (README's first command). Filled in as the layers land.
set -euo pipefail
BUILD=${1:-build}
echo "demo: not built yet" >&2
exit 1
