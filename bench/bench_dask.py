#!/usr/bin/env python3
"""syncline.dask against single-process `syncline stats --json`, in the same run, on one job
(docs/scale.md "Beyond one machine").

Run: PYTHONPATH=<build>/python /usr/bin/python3 bench/bench_dask.py JOB --syncline <build>/bin/syncline
       [--workers 2] [--memory-limit 2GiB] [--runs 1] [--compare-with JOB_B] [--diagnose]
Prints: the single process's wall time and peak RSS; the cluster's wall time (a LocalCluster of
N worker processes of one thread each, started before the clock runs), each worker's peak RSS
against its limit (the process's own ru_maxrss, asked after the run); what moved over the
network: each log's clock inputs (to the one correction task) and its worker's clocks (back
to that log's stats task), in all, per log and the largest; the per-log parts (bytes in all,
per log, per counted duration), the merges' outputs; and whether the two documents are equal
byte for byte (exit 1 when not). With --compare-with B: `compare JOB B` and `export JOB --csv`
through syncline.dask too, with the bytes of their per-log parts and whether each equals the
CLI's output. With --diagnose: `diagnose JOB --json` through syncline.dask, its wall time and
the CLI's, the bytes of its per-log parts, and whether it equals the CLI's document. Each figure is one run's (with --runs R, every run is printed).
"""
import argparse
import json
import operator
import os
import resource
import subprocess
import sys
import tempfile
import time

import distributed

import syncline.dask as sd


def single_process(exe, job):
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    r = subprocess.run([exe, "stats", job, "--json", "-q"], capture_output=True, text=True,
                       check=True)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, the largest child so far
    return r.stdout, wall, peak * 1024 if peak > before else None


def peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def cluster_run(client, job, fanin):
    """stats_json's steps, with the bytes of each measured where they are (len on the worker)."""
    def sizes(futures):
        return client.gather([client.submit(len, f, pure=False) for f in futures])

    t0 = time.perf_counter()
    logs, config_path, config, _ = client.submit(sd._inputs, [job], None, pure=False).result()
    inputs = [client.submit(sd._clock_inputs, log, config_path, config, "", pure=False)
              for log in logs]
    input_bytes = sizes(inputs)
    t_inputs = time.perf_counter() - t0
    # As syncline.dask places it: the correction fetches the finished inputs itself.
    synced = all(client.gather([client.submit(sd._synced, f, pure=False) for f in inputs]))
    clocks = client.submit(sd._clocks, config_path, config, "", True, None, synced,
                           [f.key for f in inputs], pure=False)
    n = len(client.submit(sd._logs_of, clocks, pure=False).result())
    t_clocks = time.perf_counter() - t0 - t_inputs
    entries = [client.submit(operator.getitem, clocks, i, pure=False) for i in range(n)]
    slice_bytes = client.gather([client.submit(lambda e: len(e[2]), e, pure=False)
                                 for e in entries])
    parts = [client.submit(sd._stats_part, e, "corrected", pure=False) for e in entries]
    part_bytes = sizes(parts)
    merge_bytes = 0
    while len(parts) > 1:
        parts = [client.submit(sd._stats_merge, *parts[i:i + fanin], pure=False)
                 for i in range(0, len(parts), fanin)]
        merge_bytes += sum(sizes(parts))
    text = client.submit(sd._stats_document, parts[0], pure=False).result()
    return (text, time.perf_counter() - t0, t_inputs, t_clocks, input_bytes, slice_bytes,
            part_bytes, merge_bytes)


def verbs_run(client, exe, job, other, fanin):
    """compare (job vs other) and export --csv through syncline.dask, with the bytes of each
    verb's per-log parts measured where they are, and each result against the CLI's."""
    def sizes(futures):
        return client.gather([client.submit(len, f, pure=False) for f in futures])

    out = {}
    t0 = time.perf_counter()
    jobs = [sd._Job(client, [p], "", True, None, None) for p in (job, other)]
    parts, part_bytes, merge_bytes = [], [], 0
    for j in jobs:
        p = j.per_log(sd._compare_part, "corrected", "start", j.config_path or None, j.config)
        part_bytes += sizes(p)
        while len(p) > 1:
            p = [client.submit(sd._compare_merge, *p[i:i + fanin], pure=False)
                 for i in range(0, len(p), fanin)]
            merge_bytes += sum(sizes(p))
        parts.append(p[0])
    text = client.submit(sd._compare_document, parts[0], parts[1], [job], [other], "corrected",
                         "start", [], pure=False).result()[0]
    out["compare"] = (time.perf_counter() - t0, part_bytes, merge_bytes, len(text))
    expected = subprocess.run([exe, "compare", job, other, "--json", "-q"], capture_output=True,
                              text=True, check=True).stdout
    out["compare_equal"] = text == expected
    t0 = time.perf_counter()
    j = sd._Job(client, [job], "", True, None, None)
    entries = j.entries()
    cfg = j.config_path or None
    earliest = [client.submit(sd._earliest, e, "corrected", cfg, j.config, pure=False)
                for _log, _where, e in entries]
    origin = sd._core._split_origin(client.gather(earliest))
    rows = [client.submit(sd._csv_part, e, "corrected", cfg, j.config, origin, None, pure=False)
            for _log, _where, e in entries]
    row_bytes = sizes(rows)
    csv = sd._core._split_csv_header().encode() + b"".join(client.gather(rows))
    out["export"] = (time.perf_counter() - t0, len(earliest) * 8, row_bytes, len(csv))
    fd, path = tempfile.mkstemp(suffix=".csv")
    os.close(fd)
    try:
        subprocess.run([exe, "export", job, "--csv", path, "-q"], check=True)
        with open(path, "rb") as f:
            out["export_equal"] = f.read() == csv
    finally:
        os.unlink(path)
    return out


def diagnose_run(client, exe, job):
    """diagnose through syncline.dask, with the bytes of each log's part measured where it is,
    against `syncline diagnose --json` (timed too)."""
    t0 = time.perf_counter()
    j = sd._Job(client, [job], "", True, None, None)
    entries = j.entries()
    cfg = j.config_path or None
    parts = [client.submit(sd._diagnose_part, e, cfg, j.config, "", "", pure=False)
             for _log, _where, e in entries]
    part_bytes = client.gather([client.submit(len, f, pure=False) for f in parts])
    text, lacking, _key = client.submit(sd._diagnose_document, cfg, j.config, "", "corrected",
                                        "", None, True, *parts, pure=False).result()
    if text is None:  # parts made again with the step's name: the module's whole run
        text = sd.diagnose_json(job, client)
    wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    expected = subprocess.run([exe, "diagnose", job, "--json", "-q"], capture_output=True,
                              text=True, check=True).stdout
    wall1 = time.perf_counter() - t0
    log_bytes = sum(os.path.getsize(log) for log, _where, _e in entries)
    return wall, wall1, part_bytes, log_bytes, len(lacking), len(text), text == expected


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("job")
    ap.add_argument("--syncline", required=True, help="the syncline executable")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="2GiB")
    ap.add_argument("--fanin", type=int, default=16)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--compare-with", metavar="JOB",
                    help="also compare JOB (run A) with this run B and export JOB's events CSV "
                         "through syncline.dask, measuring the bytes of each verb's parts")
    ap.add_argument("--diagnose", action="store_true",
                    help="also diagnose JOB through syncline.dask, measuring its parts' bytes")
    a = ap.parse_args()
    job = os.path.abspath(a.job)
    print(f"machine: {os.cpu_count()} cores; job {job}")
    with distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                  memory_limit=a.memory_limit, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        limit = {w: info["memory_limit"] for w, info in client.scheduler_info()["workers"].items()}
        equal = True
        for run in range(a.runs):
            expected, wall1, peak1 = single_process(a.syncline, job)
            text, wall, t_in, t_clk, in_b, slice_b, part_b, merge_b = cluster_run(
                client, job, a.fanin)
            nlogs = len(part_b)
            equal = equal and text == expected
            counted = sum(e["count"] for e in json.loads(text)["events"] if e["rank"] is None)
            peaks = client.run(peak_rss)
            print(f"run {run + 1}: single process: {wall1:.2f} s, peak RSS "
                  f"{(peak1 or 0) / 2**20:.0f} MiB")
            print(f"run {run + 1}: {a.workers} dask workers: {wall:.2f} s "
                  f"({wall / wall1:.2f} x the single process; clock inputs {t_in:.2f} s, "
                  f"the correction {t_clk:.2f} s)")
            for w, p in sorted(peaks.items()):
                print(f"  worker {w}: peak RSS {p / 2**20:.0f} MiB of a {limit[w] / 2**20:.0f} "
                      f"MiB limit")
            print(f"  clock inputs: {sum(in_b)} bytes from {len(in_b)} logs "
                  f"({sum(in_b) / len(in_b):.0f} per log, max {max(in_b)}), to one task")
            print(f"  clocks: {sum(slice_b)} bytes to {nlogs} logs ({sum(slice_b) / nlogs:.0f} "
                  f"per log, max {max(slice_b)}), each to its own log's task")
            print(f"  parts: {sum(part_b)} bytes from {nlogs} logs ({sum(part_b) / nlogs:.0f} "
                  f"per log, max {max(part_b)}); {counted} counted durations: "
                  f"{sum(part_b) / max(counted, 1):.2f} bytes per duration")
            print(f"  merges: {merge_b} bytes; document {len(text)} bytes")
            print(f"  equal to `syncline stats --json`: {text == expected}")
            if a.compare_with:
                v = verbs_run(client, a.syncline, job, os.path.abspath(a.compare_with), a.fanin)
                wall, part_b, merge_b, doc = v["compare"]
                print(f"  compare: {wall:.2f} s; parts {sum(part_b)} bytes from {len(part_b)} "
                      f"logs of both runs ({sum(part_b) / len(part_b):.0f} per log, max "
                      f"{max(part_b)}); merges {merge_b} bytes; document {doc} bytes; equal to "
                      f"`syncline compare --json`: {v['compare_equal']}")
                wall, earliest_b, row_b, total = v["export"]
                print(f"  export: {wall:.2f} s; earliest starts {earliest_b} bytes; rows "
                      f"{sum(row_b)} bytes from {len(row_b)} logs ({sum(row_b) / len(row_b):.0f} "
                      f"per log, max {max(row_b)}); file {total} bytes; equal to `syncline "
                      f"export --csv`: {v['export_equal']}")
                equal = equal and v["compare_equal"] and v["export_equal"]
            if a.diagnose:
                wall, wall1, part_b, log_b, again, doc, same = diagnose_run(client, a.syncline,
                                                                            job)
                print(f"  diagnose: {wall:.2f} s (`syncline diagnose --json`: {wall1:.2f} s); "
                      f"parts {sum(part_b)} bytes from {len(part_b)} logs "
                      f"({sum(part_b) / len(part_b):.0f} per log, max {max(part_b)}; "
                      f"{100 * sum(part_b) / log_b:.1f} % of the logs), {again} made again; "
                      f"document {doc} bytes; equal to `syncline diagnose --json`: {same}")
                equal = equal and same
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
