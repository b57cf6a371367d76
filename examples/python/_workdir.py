"""Shared by the examples: run in the directory named by SYNCLINE_WORKDIR (default: the current
directory), so timer_config.json and timer_events.log are read and written there, and find the
`syncline` module of a build tree when it is not on PYTHONPATH yet."""
import os
import pathlib
import sys


def enter_workdir():
    workdir = os.environ.get("SYNCLINE_WORKDIR")
    if workdir:
        os.makedirs(workdir, exist_ok=True)
        os.chdir(workdir)
    try:
        import syncline  # noqa: F401
    except ImportError:
        root = pathlib.Path(__file__).resolve().parents[2]
        for build in ("build", "build-python"):
            candidate = root / build / "python"
            if any(candidate.glob("syncline/_core*.so")):
                sys.path.insert(0, str(candidate))
                break
        else:
            sys.exit("the syncline module is not built: run `make` (or cmake --build build "
                     "--target syncline_python) and set PYTHONPATH=build/python")


def print_timeline(timeline):
    """One line per event, times relative to the earliest event (ms)."""
    for e in timeline:
        print(f"rank {e.rank}  {'  ' * e.depth}{e.name:<12} depth {e.depth}  "
              f"start {(e.start_ns - timeline.origin_ns) / 1e6:9.3f} ms  "
              f"duration {e.duration_ns / 1e6:9.3f} ms  {e.status}")
