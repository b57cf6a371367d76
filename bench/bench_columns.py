#!/usr/bin/env python3
"""Cost of Timeline.columns() (and to_pandas()) against the load of the same job, in one run.

Run: PYTHONPATH=<build>/python /usr/bin/python3 bench/bench_columns.py JOB [--repeats R]
JOB is a job directory, e.g. the realistic 64-worker job of bench_load:
  build/bin/syncline-sim --seed 3 --workers 64 --duration-s 42 --iteration-ms 2 --per-host 8 \\
      --regime datacenter --out /tmp/job64
Prints: the load time (the first load parses the logs unless their event stores exist; a second
load reads those), the best of R columns() calls, its share of each load time, the arrays' bytes
per event, and the memory columns() adds beyond its arrays (RSS after minus before minus the
arrays' nbytes, per event). Exit status 0 always: it measures, the goals (columns() <= 5 % of the
load, <= 10 B/event beyond the arrays) are reported, not enforced.
"""
import argparse
import gc
import time

import numpy

import syncline


def rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("job")
    ap.add_argument("--repeats", type=int, default=3)
    opts = ap.parse_args()

    t0 = time.perf_counter()
    tl = syncline.load_timeline(opts.job)
    load1 = time.perf_counter() - t0
    del tl
    gc.collect()
    t0 = time.perf_counter()
    tl = syncline.load_timeline(opts.job)
    load2 = time.perf_counter() - t0
    n = len(tl)
    numpy.zeros(1)  # numpy imported and initialised before measuring

    best = None
    extra = None
    nbytes = 0
    for _ in range(opts.repeats):
        gc.collect()
        before = rss_bytes()
        t0 = time.perf_counter()
        cols = tl.columns()
        dt = time.perf_counter() - t0
        after = rss_bytes()
        nbytes = sum(v.nbytes for v in cols.values() if isinstance(v, numpy.ndarray))
        extra = (after - before - nbytes) if extra is None else min(extra, after - before - nbytes)
        best = dt if best is None else min(best, dt)
        del cols
    print(f"job: {opts.job}: {len(tl.workers)} workers, {n} events")
    print(f"load (first, as found on disk): {load1:.3f} s; load again: {load2:.3f} s")
    print(f"columns(): best of {opts.repeats} {best:.3f} s = {100 * best / load1:.2f} % of the "
          f"first load, {100 * best / load2:.2f} % of the second")
    print(f"columns(): arrays {nbytes / n:.1f} B/event; beyond the "
          f"arrays {extra / n:+.2f} B/event")
    try:
        import pandas  # noqa: F401
        gc.collect()
        t0 = time.perf_counter()
        df = tl.to_pandas()
        dt = time.perf_counter() - t0
        print(f"to_pandas(): {dt:.3f} s ({len(df)} rows)")
    except ImportError:
        print("to_pandas(): pandas not installed")


if __name__ == "__main__":
    main()
