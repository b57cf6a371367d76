#!/usr/bin/env bash
# test-install.sh — tests what syncline installs, as a user gets it, not the build tree. Run by
# .ci/run after `make test`, on the tree that already built (nothing is compiled again except
# the small consumer project in tests/install).
#
# Usage:
#   scripts/test-install.sh [BUILD]         (default: build)
#       `cmake --install BUILD` into a temporary prefix P and test it there, then again after
#       moving P (relocatable); the refusals (a prefix that cannot be written, one holding an
#       older version); `python3 -m build --wheel` into a fresh venv, and `pip install .`.
#       Writes nothing outside its temporary directory but BUILD/install_manifest.txt (CMake's)
#       and build-python/ (setuptools' scratch space).
#   SYNCLINE_ALLOW_SYSTEM_INSTALL=1 scripts/test-install.sh --deb [BUILD]
#       apt-get install BUILD/syncline_<version>_<arch>.deb (from `make deb`) and test the system
#       install: /usr, no PYTHONPATH; the refusals (the preinst over a `cmake --install` in /usr,
#       `cmake --install` over the package); the .deb as an upgrade of an older package. This
#       changes the machine, so without that variable (.ci/run sets it; CI machines are thrown
#       away) it refuses. It removes the package again at the end unless SYNCLINE_KEEP_DEB=1.
#
# What is checked, in every mode (check_installed): `syncline --version` matches the build;
# `syncline-sim` writes a small job and the installed `syncline export JOB --png` renders it
# headless; every installed header compiles on its own; tests/install (find_package(syncline),
# syncline::recorder) builds docs/cpp.md's example and the installed C++ example worker, which
# run and write logs that `syncline check` accepts; the same example through pkg-config; the
# installed Python examples run from outside the repository with only the installed module;
# the desktop entry validates, names an installed icon, and its Exec line opens a job in the
# viewer (under xvfb-run when there is no display).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
MODE=prefix
if [ "${1:-}" = "--deb" ]; then
  MODE=deb
  shift
fi
BUILD=$(cd "${1:-build}" && pwd)
[ -f "$BUILD/CMakeCache.txt" ] || { echo "test-install: $BUILD is not a CMake build tree" >&2; exit 2; }
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
VERSION=$(cache CMAKE_PROJECT_VERSION)
LIBDIR=$(cache CMAKE_INSTALL_LIBDIR)
PYDIR_REL=$(cache SYNCLINE_PYTHON_INSTALL_DIR)

if [ "$MODE" = deb ] && [ "${SYNCLINE_ALLOW_SYSTEM_INSTALL:-}" != 1 ]; then
  cat >&2 <<EOF
test-install: --deb installs the syncline package on this machine (apt-get install) and removes
it afterwards; it only does so with SYNCLINE_ALLOW_SYSTEM_INSTALL=1 (set by .ci/run). Without
--deb it tests a temporary prefix and changes nothing outside it.
EOF
  exit 2
fi

# The README's Install commands are the ones tested here, and every package file name in the
# README and docs/ is this build's (they name the version: kept true when it changes).
PYTAG=$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
ARCH=$(dpkg --print-architecture)
for cmd in "apt-get install ./build/syncline_${VERSION}_$ARCH.deb" "pip install --no-build-isolation ." \
  "cmake --install build --prefix" "python3 -m build --wheel"; do
  grep -qF -- "$cmd" "$ROOT/README.md" || { echo "test-install: README.md lacks '$cmd'" >&2; exit 1; }
done
stale=$(grep -rhoE 'syncline_[0-9][0-9.]*_[a-z0-9]+\.deb|syncline-[0-9][0-9.]*-cp[0-9]+' "$ROOT/README.md" \
  "$ROOT/docs" | sort -u | grep -vxF -e "syncline_${VERSION}_$ARCH.deb" -e "syncline-$VERSION-$PYTAG" || true)
[ -z "$stale" ] || { echo "test-install: README.md/docs name $stale, not this build's" >&2; exit 1; }

T=$(mktemp -d /tmp/syncline-test-install.XXXXXX)
export XDG_RUNTIME_DIR="$T/xdg" && mkdir -m 700 "$XDG_RUNTIME_DIR"
step() { echo "test-install: $*"; }
fail() { echo "test-install: FAIL: $*" >&2; exit 1; }
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
REMOVE_DEB=0
cleanup() {
  local rc=$?
  if [ "$REMOVE_DEB" = 1 ] && [ "${SYNCLINE_KEEP_DEB:-}" != 1 ]; then
    step "removing the package again (SYNCLINE_KEEP_DEB=1 keeps it)"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq syncline >/dev/null || true
  fi
  if [ "$rc" = 0 ]; then rm -rf "$T"; else echo "test-install: files kept in $T" >&2; fi
}
trap cleanup EXIT

# Runs a command with the display the viewer needs: the real one, else a virtual one.
with_display() {
  if [ -n "${DISPLAY:-}" ]; then "$@"; else xvfb-run -a -s "-screen 0 1280x800x24" "$@"; fi
}

# check_installed P PYDIR — every check of an install under prefix P whose Python module is in
# PYDIR. Commands are found on PATH (P/bin first), the module with PYTHONPATH=PYDIR unless PYDIR
# is already on Debian's sys.path (the .deb).
check_installed() {
  local P=$1 PYDIR=$2 tag=$3 w="$T/$3"
  mkdir -p "$w"
  local -a pyenv=(env -u PYTHONPATH)
  if ! "$PY" -c "import sys; sys.exit('$PYDIR' not in sys.path)" 2>/dev/null; then
    pyenv=(env PYTHONPATH="$PYDIR")
  fi
  export PATH="$P/bin:$PATH"
  [ "$(command -v syncline)" = "$P/bin/syncline" ] || fail "syncline on PATH is $(command -v syncline)"

  local v
  v=$(syncline --version)
  [[ "$v" == "syncline $VERSION "* ]] || fail "syncline --version: '$v', expected $VERSION"
  step "[$tag] $P/bin/syncline --version: $v"

  syncline-sim --seed 7 --workers 4 --per-host 2 --duration-s 2 --regime datacenter --out "$w/job" >/dev/null
  syncline check "$w/job" >/dev/null || fail "syncline check on the simulated job"
  QT_QPA_PLATFORM=offscreen syncline export "$w/job" --png "$w/job.png" >/dev/null
  "$PY" -c "import sys; sys.exit(open(sys.argv[1], 'rb').read(8) != b'\x89PNG\r\n\x1a\n')" "$w/job.png" \
    || fail "export --png did not write a PNG"
  step "[$tag] syncline-sim job → syncline export --png: $(stat -c %s "$w/job.png") bytes"

  local h n=0
  for h in "$P/include/syncline/recorder/"*.h; do
    echo "#include \"recorder/$(basename "$h")\"" |
      g++ -std=c++17 -fsyntax-only -I"$P/include/syncline" -x c++ - || fail "$h does not compile alone"
    n=$((n + 1))
  done
  step "[$tag] $n installed headers each compile alone with -I$P/include/syncline"

  local -a hint=()
  [ "$P" = /usr ] || hint=(-DCMAKE_PREFIX_PATH="$P")
  cmake -S "$ROOT/tests/install" -B "$w/consumer" -G Ninja "${hint[@]}" \
    -DSYNCLINE_EXAMPLE_DIR="$P/share/doc/syncline/examples/cpp" >"$w/consumer.log"
  grep -q "syncline $VERSION from $P/$LIBDIR/cmake/syncline" "$w/consumer.log" ||
    fail "find_package(syncline) did not find $P: $(grep 'syncline ' "$w/consumer.log")"
  cmake --build "$w/consumer" >>"$w/consumer.log"
  mkdir -p "$w/run-consumer" "$w/run-worker"
  (cd "$w/run-consumer" && "$w/consumer/consumer")
  syncline check "$w/run-consumer" >/dev/null || fail "syncline check on the consumer's log"
  (cd "$w/run-worker" && "$w/consumer/example_worker" --steps 3 --log timer_events.log)
  syncline check "$w/run-worker" >/dev/null || fail "syncline check on example_worker's log"
  step "[$tag] tests/install (find_package(syncline), syncline::recorder): consumer and example_worker built, ran, logs check"

  local pc=("$P/$LIBDIR/pkgconfig")
  [ "$(PKG_CONFIG_PATH="${pc[0]}" pkg-config --modversion syncline)" = "$VERSION" ] || fail "pkg-config --modversion"
  # shellcheck disable=SC2046
  g++ -std=c++17 -O1 "$ROOT/tests/install/consumer.cpp" -o "$w/consumer-pc" \
    $(PKG_CONFIG_PATH="${pc[0]}" pkg-config --cflags --libs syncline)
  mkdir -p "$w/run-pc" && (cd "$w/run-pc" && "$w/consumer-pc" >/dev/null)
  step "[$tag] pkg-config syncline: $(PKG_CONFIG_PATH="${pc[0]}" pkg-config --cflags --libs syncline) → built and ran"

  local info
  info=$(cd "$T" && "${pyenv[@]}" "$PY" -c "import syncline; print(syncline.__version__, syncline.__file__)")
  [ "${info%% *}" = "$VERSION" ] || fail "the module's version is ${info%% *}, syncline's $VERSION"
  [[ "${info#* }" == "$PYDIR/"* ]] || fail "python imported ${info#* }, not the module in $PYDIR"
  local ex
  for ex in simple multiple_events nested_events callbacks; do
    (cd "$T" && SYNCLINE_WORKDIR="$w/py-$ex" "${pyenv[@]}" "$PY" \
      "$P/share/doc/syncline/examples/python/$ex.py" >"$w/py-$ex.out") || fail "examples/python/$ex.py"
    [ -s "$w/py-$ex/timer_events.log" ] || fail "$ex.py wrote no log"
  done
  step "[$tag] python3 (${pyenv[*]}) from $T: syncline $info; the 4 installed Python examples ran"
  # The package's pure-Python modules are installed beside the extension; syncline.torch
  # imports where PyTorch is installed (the core never needs it).
  local core
  core=$(cd "$T" && "${pyenv[@]}" "$PY" -c "import sys, syncline, syncline._core as c; print(c.__file__, 'torch' in sys.modules)")
  [[ "$core" == "$PYDIR/syncline/_core."*".so False" ]] || fail "syncline._core: $core"
  if "$PY" -c "import torch" 2>/dev/null; then
    (cd "$T" && "${pyenv[@]}" "$PY" -c "import syncline.torch, syncline.torchrun") || fail "import syncline.torch"
    (cd "$T" && "${pyenv[@]}" "$PY" -m syncline.torchrun --help >/dev/null) || fail "python3 -m syncline.torchrun --help"
    step "[$tag] syncline.torch imports; python3 -m syncline.torchrun --help runs"
  else
    step "[$tag] syncline.torch: not imported (no PyTorch on this machine)"
  fi

  local desktop="$P/share/applications/syncline.desktop"
  if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$desktop" || fail "desktop-file-validate $desktop"
  fi
  local icon exec
  icon=$(sed -n 's/^Icon=//p' "$desktop")
  [ -f "$P/share/icons/hicolor/scalable/apps/$icon.svg" ] || fail "no icon $icon.svg for $desktop"
  exec=$(sed -n 's/^Exec=//p' "$desktop")
  # A viewer that opened the job is still running when the timeout ends it (status 124);
  # one that failed exits early with its error. A missing path must be refused (status 2),
  # which shows that the entry's %F reaches `syncline open`.
  local rc=0
  with_display timeout 8 ${exec//%F/$w/job} >"$w/desktop.out" 2>&1 || rc=$?
  [ "$rc" = 124 ] || fail "Exec=$exec on the job exited with $rc: $(cat "$w/desktop.out")"
  rc=0
  with_display timeout 8 ${exec//%F/$w/missing} >/dev/null 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "Exec=$exec on a missing path gave $rc, not 2"
  step "[$tag] $desktop: valid, icon $icon.svg, 'Exec=$exec' kept the viewer open on the job"
}

# check_no_build_paths FILE... — no ELF file names an RPATH (every project library is static;
# the Qt libraries are the system's), and no file names the build or source tree: text files
# and stripped binaries (debug info, when kept, records where each file was compiled).
check_no_build_paths() {
  local f
  for f in "$@"; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    if readelf -d "$f" 2>/dev/null | grep -qE 'RPATH|RUNPATH'; then fail "$f has an RPATH"; fi
    if grep -Il -e "$BUILD" -e "$ROOT/" "$f" >/dev/null; then fail "$f names $BUILD or $ROOT"; fi
    if readelf -h "$f" >/dev/null 2>&1 && ! readelf -S "$f" 2>/dev/null | grep -q '\.debug_info' &&
      strings -a "$f" | grep -qF -e "$BUILD" -e "$ROOT/"; then
      fail "$f (stripped) names $BUILD or $ROOT: $(strings -a "$f" | grep -F -e "$BUILD" -e "$ROOT/" | head -3)"
    fi
  done
}

# snapshot DIR — one line per file: path, size, mtime; equal before and after = untouched.
snapshot() { (cd "$1" && find . -printf '%p %s %T@\n' | sort); }

# refusal NAME EXPECTED-TEXT cmd... — the command must fail and say EXPECTED-TEXT (compared
# with runs of white space as one space: CMake wraps its messages).
refusal() {
  local name=$1 expected=$2 out rc=0
  shift 2
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" != 0 ] || fail "$name: succeeded, should have been refused"
  out=$(tr -s '[:space:]' ' ' <<<"$out")
  [[ "$out" == *"$expected"* ]] || fail "$name: no '$expected' in: $out"
  case "$out" in # show the refusal itself, not CMake's or apt's chatter around it
    *"not installing to "*) out="…${out#*not installing to }" && out=${out%% Call Stack*} ;;
    *"syncline: "*) out="syncline: ${out#*syncline: }" && out=${out%% dpkg: error*} ;;
  esac
  step "$name: refused (status $rc): $out"
}

if [ "$MODE" = prefix ]; then
  P="$T/prefix"
  step "cmake --install $BUILD --prefix $P"
  cmake --install "$BUILD" --prefix "$P" >"$T/install.log"
  find "$P" -type f | sed "s|^$P/||" | sort >"$T/installed.txt"
  step "installed $(wc -l <"$T/installed.txt") files: $(grep -vE '^share/doc/' "$T/installed.txt" | tr '\n' ' ')+ share/doc/syncline/"
  mapfile -t files < <(find "$P" -type f)
  check_no_build_paths "${files[@]}"
  step "no RPATH, no build or source path in the installed text files"
  check_installed "$P" "$P/$PYDIR_REL" prefix

  # Relocatable: moved elsewhere, the same install still works.
  Q="$T/moved/elsewhere"
  mkdir -p "$T/moved" && mv "$P" "$Q"
  [ "$(PYTHONPATH="$Q/$PYDIR_REL" "$PY" -c 'import syncline; print(syncline.__version__)')" = "$VERSION" ]
  [ "$("$Q/bin/syncline" --version | cut -d' ' -f2)" = "$VERSION" ]
  [[ "$(PKG_CONFIG_PATH="$Q/$LIBDIR/pkgconfig" pkg-config --cflags syncline)" == "-I$Q/"* ]] || fail "moved .pc"
  cmake -S "$ROOT/tests/install" -B "$T/moved-consumer" -G Ninja -DCMAKE_PREFIX_PATH="$Q" >"$T/moved.log"
  grep -q "syncline $VERSION from $Q/" "$T/moved.log" || fail "find_package after moving the prefix"
  step "moved to $Q: syncline, the module, pkg-config and find_package(syncline) still work"

  # Refusals leave the target as it was.
  touch "$T/a-file"
  refusal "a prefix under a regular file" "is not a directory" cmake --install "$BUILD" --prefix "$T/a-file/p"
  [ ! -e "$T/a-file/p" ] || fail "something was created under $T/a-file"
  mkdir -m 555 "$T/read-only"
  if [ "$(id -u)" != 0 ]; then
    refusal "a read-only prefix" "is not writable" cmake --install "$BUILD" --prefix "$T/read-only/p"
  elif setpriv --inh-caps=-dac_override --bounding-set=-dac_override true 2>/dev/null &&
    ! setpriv --inh-caps=-dac_override --bounding-set=-dac_override touch "$T/read-only/x" 2>/dev/null; then
    # root writes anywhere; without CAP_DAC_OVERRIDE the directory's mode applies to it too.
    refusal "a read-only prefix (as root without CAP_DAC_OVERRIDE)" "is not writable" \
      setpriv --inh-caps=-dac_override --bounding-set=-dac_override cmake --install "$BUILD" --prefix "$T/read-only/p"
  else
    step "a read-only prefix: not tested (root, and CAP_DAC_OVERRIDE cannot be dropped here)"
  fi
  [ -z "$(ls -A "$T/read-only")" ] || fail "something was written into $T/read-only"
  echo "0.0.1" >"$Q/share/syncline/version" # what an older install's marker says
  before=$(snapshot "$Q")
  refusal "installing over an older version" "holds an older syncline (0.0.1" \
    cmake --install "$BUILD" --prefix "$Q"
  [ "$before" = "$(snapshot "$Q")" ] || fail "the refused install changed $Q"
  echo "$VERSION" >"$Q/share/syncline/version"
  cmake --install "$BUILD" --prefix "$Q" >/dev/null || fail "re-installing the same version"
  step "re-installing the same version over it: allowed"

  # The wheel, from the tree already built, into a fresh venv; then `pip install .`.
  step "python3 -m build --wheel --no-isolation (SYNCLINE_CMAKE_BUILD_DIR=$BUILD)"
  (cd "$ROOT" && SYNCLINE_CMAKE_BUILD_DIR="$BUILD" "$PY" -m build --wheel --no-isolation \
    --outdir "$T/dist" . >"$T/wheel.log" 2>&1) || { tail -20 "$T/wheel.log"; fail "building the wheel"; }
  wheel=$(ls "$T/dist/"*.whl)
  [[ "$(basename "$wheel")" == "syncline-$VERSION-$PYTAG-$PYTAG-linux_"*.whl ]] || fail "wheel name $(basename "$wheel")"
  "$PY" -m venv "$T/venv"
  "$T/venv/bin/pip" install -q --no-index "$wheel"
  info=$(cd "$T" && env -u PYTHONPATH "$T/venv/bin/python" -c \
    "import syncline; print(syncline.__version__, syncline.__file__)")
  [ "${info%% *}" = "$VERSION" ] && [[ "${info#* }" == "$T/venv/"* ]] || fail "venv import: $info"
  check_no_build_paths "${info#* }" "$(dirname "${info#* }")"/_core.*.so
  (cd "$T" && SYNCLINE_WORKDIR="$T/venv-simple" env -u PYTHONPATH "$T/venv/bin/python" \
    "$Q/share/doc/syncline/examples/python/simple.py" >/dev/null) || fail "simple.py in the venv"
  step "$(basename "$wheel") → fresh venv, from $T with no PYTHONPATH: syncline $info; simple.py ran"
  "$PY" -m venv --system-site-packages "$T/venv-pip" # Debian's setuptools and wheel, no PyPI
  (cd "$ROOT" && SYNCLINE_CMAKE_BUILD_DIR="$BUILD" "$T/venv-pip/bin/pip" install -q \
    --no-build-isolation --no-index . >"$T/pip.log" 2>&1) || { tail -20 "$T/pip.log"; fail "pip install ."; }
  info=$(cd "$T" && env -u PYTHONPATH "$T/venv-pip/bin/python" -c \
    "import syncline; print(syncline.__version__, syncline.__file__)")
  [ "${info%% *}" = "$VERSION" ] && [[ "${info#* }" == "$T/venv-pip/"* ]] || fail "pip install . import: $info"
  step "pip install --no-build-isolation . (venv): syncline $info"
else
  debs=("$BUILD"/syncline_"$VERSION"_*.deb)
  [ -f "${debs[0]}" ] || fail "no $BUILD/syncline_${VERSION}_*.deb: run make deb first"
  deb=${debs[0]}
  depends=$(dpkg-deb -f "$deb" Depends)
  step "$(basename "$deb"): Depends: $depends"
  for d in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6 libsimdjson14 "python3 (>= "; do
    [[ "$depends" == *"$d"* ]] || fail "Depends lacks $d"
  done
  dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$T/deb-files.txt"
  for f in /usr/bin/syncline /usr/bin/syncline-sim "/usr/$LIBDIR/libsyncline_recorder.a" \
    /usr/include/syncline/recorder/filetimerclient.h "/usr/$LIBDIR/cmake/syncline/synclineConfig.cmake" \
    "/usr/$LIBDIR/pkgconfig/syncline.pc" /usr/share/applications/syncline.desktop \
    /usr/share/icons/hicolor/scalable/apps/syncline.svg /usr/share/doc/syncline/README.md; do
    grep -qx "$f" "$T/deb-files.txt" || fail "the package lacks $f"
  done
  for f in "syncline/_core\.cpython-.*\.so" syncline/__init__\.py syncline/torchrun\.py syncline/torch/__init__\.py; do
    grep -q "^/usr/$PYDIR_REL/$f$" "$T/deb-files.txt" || fail "the package lacks $f"
  done
  if dpkg-query -W -f='${Status}' syncline 2>/dev/null | grep -q "install ok installed"; then
    step "removing the syncline package installed before this test"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq syncline >/dev/null
  fi

  # The preinst refuses a /usr that holds a `cmake --install` of syncline; nothing is left.
  if [ ! -e /usr/share/syncline ]; then
    $SUDO mkdir -p /usr/share/syncline && echo "0.0.1" | $SUDO tee /usr/share/syncline/version >/dev/null
    refusal "the .deb over a cmake --install in /usr" "installed by cmake --install" \
      $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb"
    $SUDO rm -rf /usr/share/syncline
    ! dpkg-query -W -f='${Status}' syncline 2>/dev/null | grep -q "ok installed" || fail "half-installed after the refusal"
    [ ! -e /usr/bin/syncline ] || fail "/usr/bin/syncline left after the refusal"
    [ -z "$(dpkg --audit 2>&1)" ] || fail "dpkg --audit: $(dpkg --audit 2>&1)"
  fi

  # Over an older package the .deb is an ordinary upgrade, which dpkg does whole (the preinst
  # lets it through: the old files are the package's). The "older" one is this tree packaged
  # as 0.0.1.
  (cd "$BUILD" && cpack -G DEB -D CPACK_PACKAGE_VERSION=0.0.1 -B "$T/old-deb" >"$T/old-deb.log")
  REMOVE_DEB=1
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$T/old-deb/syncline_0.0.1_$ARCH.deb" \
    >"$T/apt-old.log" 2>&1 || { cat "$T/apt-old.log"; fail "apt-get install of the 0.0.1 package"; }
  step "apt-get install $deb (over the package 0.0.1)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$T/apt.log" 2>&1 ||
    { cat "$T/apt.log"; fail "apt-get install"; }
  [ "$(dpkg-query -W -f='${Version} ${Status}' syncline)" = "$VERSION install ok installed" ] ||
    fail "after the upgrade: $(dpkg-query -W -f='${Version} ${Status}' syncline)"
  [ -z "$(dpkg --verify syncline 2>&1)" ] || fail "dpkg --verify syncline: $(dpkg --verify syncline 2>&1)"
  step "upgraded 0.0.1 → $VERSION: installed, dpkg --verify clean"
  mapfile -t files < <(grep -v '/$' "$T/deb-files.txt")
  check_no_build_paths "${files[@]}"
  check_installed /usr "/usr/$PYDIR_REL" deb
  (cd / && env -u PYTHONPATH "$PY" -c "import syncline") || fail "import syncline from /"
  step "[deb] python3 -c 'import syncline' from / with no PYTHONPATH: ok"

  # `cmake --install` over the package is refused and changes none of its files.
  refusal "cmake --install over the package" "belongs to the Debian package 'syncline'" \
    $SUDO cmake --install "$BUILD" --prefix /usr
  [ -z "$(dpkg --verify syncline 2>&1)" ] || fail "dpkg --verify syncline: $(dpkg --verify syncline 2>&1)"
fi
step "all install checks passed ($MODE)"
