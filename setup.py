"""setup.py — the setuptools half of `pip install .` and `python3 -m build --wheel` (pyproject.toml
names setuptools as the backend). setuptools compiles nothing itself: build_ext configures this
repository with CMake (-DSYNCLINE_PYTHON_ONLY=ON: recorder, sync, timeline and python/, no Qt),
builds the one target syncline_python, and puts the extension it made (syncline/_core.<abi>.so)
in the wheel, without its debug info, beside the pure-Python package python/syncline/
(syncline/__init__.py, syncline.torch, syncline.torchrun). The version is read from CMakeLists.txt's project(), the same PROJECT_VERSION that
the module's __version__ and `syncline --version` print, so the three always agree.

Environment:
  SYNCLINE_CMAKE_BUILD_DIR=DIR  build the module in an already configured tree (e.g. build/)
                                instead of a private one in build-python/ (quick when it is built)
  CMAKE_BUILD_PARALLEL_LEVEL    build jobs (default: the CPU count)
No PyPI here: `pip install --no-build-isolation .`, `python3 -m build --wheel --no-isolation`.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
# setuptools' own scratch space: not build/, which is the CMake tree `make` uses.
BUILD_BASE = ROOT / "build-python"


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"^project\(syncline\s+VERSION\s+([0-9][0-9.]*)", text, re.MULTILINE)
    if not match:
        sys.exit("setup.py: no `project(syncline VERSION x.y.z ...)` in CMakeLists.txt")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds the `syncline._core` extension with CMake instead of setuptools' compiler driver."""

    def build_extension(self, ext):
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        build_dir = os.environ.get("SYNCLINE_CMAKE_BUILD_DIR")
        if build_dir:
            build_dir = pathlib.Path(build_dir).resolve()
            if not (build_dir / "CMakeCache.txt").is_file():
                sys.exit(f"setup.py: SYNCLINE_CMAKE_BUILD_DIR={build_dir} is not a configured CMake tree")
        else:
            # One tree per interpreter ABI, so a rebuild for the same Python is incremental.
            build_dir = BUILD_BASE / f"cmake{suffix.rsplit('.', 1)[0]}"
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            self.spawn(["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator,
                        "-DSYNCLINE_PYTHON_ONLY=ON", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                        f"-DPython_EXECUTABLE={sys.executable}"])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        self.spawn(["cmake", "--build", str(build_dir), "--target", "syncline_python", "-j", jobs])

        built = build_dir / "python" / "syncline" / f"_core{suffix}"
        if not built.is_file():
            found = ", ".join(p.name for p in (build_dir / "python" / "syncline").glob("_core*.so")) or "nothing"
            sys.exit(f"setup.py: {build_dir} made {found}, not syncline/_core{suffix} for {sys.executable}: "
                     "that tree was configured for another Python (-DPython_EXECUTABLE)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)
        strip = shutil.which("strip")
        if strip:  # the build keeps -g1 debug info; the installed module does not need it
            subprocess.run([strip, "--strip-debug", str(target)], check=True)


BUILD_BASE.mkdir(exist_ok=True)
setup(
    version=project_version(),
    ext_modules=[Extension("syncline._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(BUILD_BASE)}, "egg_info": {"egg_base": str(BUILD_BASE)}},
    zip_safe=False,
)
