"""syncline.dask's `compare` and `export` equal the CLI's output byte for byte: `syncline compare
A B --json` (and its --csv, with --anchor, --fail-if, --ranks) and `syncline export --csv`
(with and without --range) on simulated jobs: two seeds of an 8-worker job, the same job with a
restart of one rank (a log cut short: open events, an unclosed worker) and the job without sync
samples (aligned on collectives); the restarted job has a config whose limit makes events
overdue. (1) The split's C++ steps run in this process (each log's part with its own worker's
clocks, merges in two groupings; damaged parts refused; also under ASan); (2) on a LocalCluster
of 2 worker processes, the tasks seen on both workers, and through `python3 -m syncline.dask
compare --scheduler` and `syncline export --csv --dask` (which runs `python3 -m syncline.dask
export`). Cost: about 15 s on 2 idle cores (the jobs ~2 s, the cluster ~5 s to start and stop,
each module command ~2 s to import distributed). (2) skips, saying why, without dask.distributed or
under ASan (test_dask.py says why)."""
import json
import os
import subprocess
import sys

import pytest

import syncline
from syncline import _core

from conftest import (dask_tasks_ran_on as ran_on, needs_distributed, syncline_cli as cli,
                      two_dask_workers)



def simulate(bin_dir, out, seed):
    subprocess.run([str(bin_dir / "syncline-sim"), "--seed", str(seed), "--workers", "8",
                    "--per-host", "4", "--duration-s", "1", "--iteration-ms", "5",
                    "--out", str(out)], check=True, capture_output=True, timeout=120)
    return str(out)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory, bin_dir):
    root = tmp_path_factory.mktemp("daskverbs")
    a = simulate(bin_dir, root / "a", 21)
    b = simulate(bin_dir, root / "b", 22)
    # B with a restart of rank 3: its log again as restart 1, cut at two thirds (events left
    # open, no close record), so the job has an incarnation that did not end cleanly.
    restarted = root / "restarted"
    simulate(bin_dir, restarted, 22)
    with open(restarted / "timer_events.3.log", "rb") as f:
        lines = f.readlines()
    lines[0] = lines[0].replace(b'"restart":0', b'"restart":1')
    (restarted / "timer_events.3.r1.log").write_bytes(b"".join(lines[:len(lines) * 2 // 3]))
    # Its config flags the longer backward passes overdue (the CSV's status): each log's task
    # must get the job's config.
    (restarted / "timer_config.json").write_text(
        '{"event_kinds": [{"name": "backward", "category": "compute", "expected_max_ms": 2.47}]}')
    # A without sync samples: clocks aligned on the collectives.
    unsynced = root / "unsynced"
    unsynced.mkdir()
    for log in os.listdir(a):
        if log.endswith(".log"):
            with open(os.path.join(a, log), "rb") as f:
                kept = [ln for ln in f if not ln.startswith(b'{"t":"sync"')]
            (unsynced / log).write_bytes(b"".join(kept))
    return {"a": a, "b": b, "restarted": str(restarted), "unsynced": str(unsynced)}


def cli_csv(bin_dir, tmp_path, verb, *args):
    out = tmp_path / ("cli-%s.csv" % verb)
    r = cli(bin_dir, verb, *args, "--csv", str(out), ok=(0, 3))
    return r.stdout, out.read_text()


def corrected(paths, ranks=None, align_on=""):
    """The split's first steps, here: [(log, rank, its clocks)], config path, config."""
    logs, config_path, config, _ = _core._split_inputs(paths, ranks)
    inputs = [_core._split_clock_inputs(log, config_path, config, align_on) for log in logs]
    clocks = _core._split_clocks(inputs, config_path, config, align_on, True, ranks)
    return clocks, config_path or None, config


def compare_in_process(a, b, anchor="start", fail_if=(), ranks=None, group=None, clock="corrected"):
    merged = []
    for run in (a, b):
        clocks, config_path, config = corrected([run], ranks)
        parts = [_core._split_compare_part(log, c, rank, clock, anchor, config_path, config)
                 for log, rank, c in clocks]
        if group:
            parts = [_core._split_compare_merge(parts[i:i + group])
                     for i in range(0, len(parts), group)]
        merged.append(_core._split_compare_merge(parts))
    return _core._split_compare(merged[0], merged[1], [a], [b], clock, anchor, list(fail_if))


def export_in_process(paths, range_ns=None, ranks=None, clock="corrected", align_on=""):
    clocks, config_path, config = corrected(paths, ranks, align_on)
    origin = _core._split_origin([_core._split_earliest(log, c, rank, clock, config_path, config)
                                  for log, rank, c in clocks])
    return _core._split_csv_header() + "".join(
        _core._split_csv_part(log, c, rank, clock, config_path, config, origin,
                              range_ns).decode() for log, rank, c in clocks)


def test_compare_split_equals_cli(jobs, bin_dir, tmp_path):
    a, b = jobs["a"], jobs["restarted"]
    text, csv = cli_csv(bin_dir, tmp_path, "compare", a, b, "--json")
    assert compare_in_process(a, b) == (text, csv, False)
    assert compare_in_process(a, b, group=3)[0] == text  # merges of 3, then of those
    doc = json.loads(text)
    assert doc["b"]["workers"] == 9 and doc["ranks"] == {"only_a": [], "only_b": []}
    # An anchor on the step's 3rd instance, a gate that holds and one that does not, a rank
    # subset, the raw clock.
    step = doc["summary"]["step"]
    assert step
    args = ["--anchor", step + ":3", "--fail-if", step + ":mean>-50%", "--fail-if",
            step + ":p99>+900%", "--ranks", "1-3,6", "--raw"]
    text, csv = cli_csv(bin_dir, tmp_path, "compare", a, b, "--json", *args)
    got = compare_in_process(a, b, anchor=step + ":3", ranks="1-3,6", clock="raw",
                             fail_if=[step + ":mean>-50%", step + ":p99>+900%"])
    assert got == (text, csv, True)
    assert json.loads(text)["gate"]["failed"] is True
    # Errors in the CLI's words: an anchor one run lacks, a gate naming nothing.
    r = cli(bin_dir, "compare", a, b, "--anchor", step + ":100000", ok=(1,))
    with pytest.raises(ValueError) as e:
        compare_in_process(a, b, anchor=step + ":100000")
    assert "syncline compare: " + str(e.value) + "\n" == r.stderr
    with pytest.raises(ValueError, match="--fail-if 'nothing:mean>1ms': no complete event "
                                         "named 'nothing' in A or B"):
        compare_in_process(a, b, fail_if=["nothing:mean>1ms"])
    with pytest.raises(ValueError, match="--anchor: expected start"):
        _core._split_compare_options("x:0", [])


def test_compare_split_parts_refused_when_damaged(jobs):
    clocks, config_path, config = corrected([jobs["a"]])
    log, rank, c = clocks[0]
    part = _core._split_compare_part(log, c, rank, "corrected", "start", config_path, config)
    with pytest.raises(ValueError, match="truncated or damaged|truncated"):
        _core._split_compare_merge([part[:-2]])
    with pytest.raises(ValueError, match="bad magic"):
        _core._split_compare_merge([b"y" * 30])


def test_export_split_equals_cli(jobs, bin_dir, tmp_path):
    for job, extra in ((jobs["a"], ()), (jobs["restarted"], ()), (jobs["unsynced"], ()),
                       (jobs["restarted"], ("--ranks", "2-4")), (jobs["a"], ("--raw",))):
        out = tmp_path / "cli.csv"
        cli(bin_dir, "export", job, "--csv", str(out), *extra)
        ranks = extra[1] if extra[:1] == ("--ranks",) else None
        clock = "raw" if "--raw" in extra else "corrected"
        assert export_in_process([job], ranks=ranks, clock=clock) == out.read_text(), (job, extra)
    # A range (the CLI reads only that window through the index; the split cuts each log).
    text = (tmp_path / "cli.csv").read_text()
    statuses = {line.rsplit(",", 1)[1] for line in export_in_process([jobs["restarted"]])
                .splitlines()[1:]}
    assert statuses == {"complete", "open", "overdue"}  # the cut restart, the config's limit
    for spec in ("0:0.25s", "300ms:300.5ms", "2s:3s"):
        out = tmp_path / "range.csv"
        cli(bin_dir, "export", jobs["restarted"], "--csv", str(out), "--range", spec)
        got = export_in_process([jobs["restarted"]], _core._split_parse_range(spec))
        assert got == out.read_text(), spec
    assert text.count("\n") > 1000
    with pytest.raises(ValueError, match="expected START:END"):
        _core._split_parse_range("5s:1s")


def test_localcluster_compare_and_export(jobs, bin_dir, tmp_path):
    distributed = needs_distributed()
    import syncline.dask as sd
    a, b = jobs["a"], jobs["restarted"]
    with two_dask_workers(tmp_path) as (cluster, client, workers):
        text, csv = cli_csv(bin_dir, tmp_path, "compare", a, b, "--json")
        with distributed.get_task_stream(client=client) as ts:
            assert sd.compare_json(a, b, client) == text
        ran = ran_on(ts, "_compare_part")
        assert sum(ran.values()) == 17 and set(ran) == workers, ran
        out = tmp_path / "cli.csv"
        cli(bin_dir, "export", b, "--csv", str(out), "--range", "100ms:400ms")
        ranged = out.read_text()
        with distributed.get_task_stream(client=client) as ts:
            assert sd.export_csv(b, client, range="100ms:400ms") == ranged
        ran = ran_on(ts, "_csv_part")
        assert sum(ran.values()) == 9 and set(ran) == workers, ran
        assert sd.export_csv(b, client, range=(100_000_000, 400_000_000)) == ranged
        # The module's command line against this scheduler: the CLI's stdout, files and status.
        address = cluster.scheduler_address
        step = json.loads(text)["summary"]["step"]
        args = ["--anchor", step + ":2", "--fail-if", step + ":mean>-50%", "--ranks", "0-5"]
        cli_text, cli_rows = cli_csv(bin_dir, tmp_path, "compare", a, b, "--json", *args)
        r = subprocess.run([sys.executable, "-m", "syncline.dask", "compare", a, b,
                            "--scheduler", address, "--csv", str(tmp_path / "mod.csv"), *args],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 3, r.stderr  # the gate holds, as the CLI's status says
        assert r.stdout == cli_text and (tmp_path / "mod.csv").read_text() == cli_rows
        # The CLI hands `export --csv FILE --dask ADDRESS` to the module (python3 -m
        # syncline.dask export): the same file; with another output besides --csv it refuses
        # (usage, 2).
        args = ["--csv", str(out), "--raw", "--range", "100ms:400ms"]
        cli(bin_dir, "export", jobs["unsynced"], *args)
        args[1] = str(tmp_path / "dask.csv")
        cli(bin_dir, "export", jobs["unsynced"], *args, "--dask", address)
        assert (tmp_path / "dask.csv").read_text() == out.read_text()
        r = cli(bin_dir, "export", b, "--csv", str(tmp_path / "dask.csv"), "--chrome",
                str(tmp_path / "t.json"), "--dask", address, ok=(2,))
        assert "--dask writes the events CSV only" in r.stderr
