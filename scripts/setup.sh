#!/usr/bin/env bash
# Installs the Debian 12 packages syncline needs, only those missing.
# Idempotent: when everything is present it only runs dpkg queries (a second or two).
# python3-torch (PyTorch 1.13, CPU, gloo, torchrun; for /usr/bin/python3) runs the demo job and
# the real-torchrun tests; the syncline module itself does not need it.
# The last line is for packaging and its tests (make deb, make wheel, scripts/test-install.sh):
# dpkg-shlibdeps and file for CPack's Depends, setuptools/wheel/build/venv for the wheel,
# desktop-file-validate for the desktop entry. python3-torch (CPU, gloo, torchrun) is for
# syncline.torch, its tests and the demo job; the core module does not need it. clang and its
# runtime libraries (libclang-rt-14-dev: libFuzzer, only recommended by clang) are for `make fuzz`
# (scripts/fuzz.sh). chromium (headless) opens `syncline report`'s page in tst_reportcommand, which
# skips, saying so, without it. protobuf-compiler (protoc) decodes `export --perfetto`'s trace
# against Perfetto's perfetto_trace.proto in test_perfetto, which skips, saying so, without it.
# python3-distributed and python3-dask (2022.12) are the cluster engine syncline.dask runs on
# (docs/scale.md "Beyond one machine"): its tests start a LocalCluster of worker processes and a
# dask-scheduler with dask-workers, and skip, saying so, without them; `import syncline` never
# needs them.
# libnetfilter-queue-dev, iptables and iproute2 are for the multi-host testbed (scripts/testbed/:
# its NFQUEUE delay line, built by CMake, the router's rules, the veths; test_testbed and
# `make demo`, as root).
set -euo pipefail
PKGS=(
  cmake ninja-build g++ make pkg-config ccache
  qt6-base-dev libqt6opengl6-dev qt6-svg-dev libgl-dev
  nlohmann-json3-dev libsimdjson-dev libfmt-dev zlib1g-dev libsqlite3-dev
  pybind11-dev python3-dev python3-pytest python3-torch python3-numpy python3-pandas
  libbenchmark-dev libgtest-dev
  xvfb xauth imagemagick fonts-dejavu-core chromium protobuf-compiler
  dpkg-dev file python3-setuptools python3-wheel python3-build python3-venv desktop-file-utils
  python3-torch
  clang libclang-rt-14-dev
  python3-distributed python3-dask
  libnetfilter-queue-dev iptables iproute2
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
