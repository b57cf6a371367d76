"""syncline.dask's `diagnose` equals `syncline diagnose` byte for byte: its --json document (and
its text) on a 16-worker simulated job with a slow rank (sync samples, collectives aligned: the
defaults), the same job without sync samples (aligned on collectives only) and with a restart of
one rank cut short (a second generation, an unclosed worker); with --range, --step, --ranks,
--raw, --no-align and --align-on, and a job whose logs meet their names in different orders
(rank 0 records its `barrier` after the first `allreduce`, the others before it: the name ids,
so the collective names' order, are the full load's only when the parts' names are interned in
the timeline's order). (1) The split's C++ steps in this process (each log's part with its own
worker's clocks; damaged parts refused); (2) on a LocalCluster of 2 worker processes, the tasks
seen on both workers, through `python3 -m syncline.dask diagnose --scheduler` and `syncline
diagnose --dask`. Cost: about 6 s on 2 idle cores, 13 s beside a build (the job and the in-process
checks ~1 s, the cluster ~3 s to start and stop, each command ~1 s to import distributed). (2) skips, saying why, without
dask.distributed or under ASan."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from syncline import _core

from conftest import (dask_tasks_ran_on as ran_on, needs_distributed, syncline_cli as cli,
                      two_dask_workers)


def simulate(bin_dir, out, *extra):
    subprocess.run([str(bin_dir / "syncline-sim"), "--seed", "5", "--workers", "16",
                    "--per-host", "4", "--duration-s", "1", "--iteration-ms", "5",
                    "--slow-rank", "11", "--slow-factor", "1.6", *extra, "--out", str(out)],
                   check=True, capture_output=True, timeout=120)
    return str(out)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory, bin_dir):
    root = tmp_path_factory.mktemp("daskdiagnose")
    job = simulate(bin_dir, root / "job")
    # The same job without sync samples: clocks aligned on the collectives alone.
    unsynced = root / "unsynced"
    unsynced.mkdir()
    # Names met in different orders: every rank has a `barrier` between its first two steps;
    # rank 0's record comes after its first step (the name after `allreduce` in its table),
    # the others' first of all (before `step`).
    reordered = root / "reordered"
    reordered.mkdir()
    for log in sorted(f for f in os.listdir(job) if f.endswith(".log")):
        with open(os.path.join(job, log), "rb") as f:
            lines = f.readlines()
        (unsynced / log).write_bytes(b"".join(ln for ln in lines if b'"t":"sync"' not in ln))
        ends = [i for i, ln in enumerate(lines) if ln.startswith(b'{"t":"E"') and
                b'"name":"step"' in ln]
        first_end = ends[0]
        ts = int(re.search(rb'"ts":(\d+)', lines[first_end]).group(1))
        tid = re.search(rb'"tid":(\d+)', lines[first_end]).group(1)
        barrier = b'{"t":"X","ts":%d,"dur":100000,"tid":%s,"name":"barrier"}\n' % (ts + 50000,
                                                                                    tid)
        at = first_end + 1 if log == "timer_events.0.log" else 3  # after the thread records
        (reordered / log).write_bytes(b"".join(lines[:at] + [barrier] + lines[at:]))
    # A restart of rank 3: its log again as restart 1, cut at two thirds (open events, no close
    # record): a second generation and an unclosed worker.
    restarted = root / "restarted"
    restarted.mkdir()
    for log in os.listdir(job):
        if log.endswith(".log"):
            (restarted / log).write_bytes((pathlib.Path(job) / log).read_bytes())
    lines = (restarted / "timer_events.3.log").read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b'"restart":0', b'"restart":1')
    (restarted / "timer_events.3.r1.log").write_bytes(b"".join(lines[:len(lines) * 2 // 3]))
    return {"job": job, "unsynced": str(unsynced), "reordered": str(reordered),
            "restarted": str(restarted)}


def diagnose_in_process(path, ranks=None, align_on="", align=True, clock="corrected", step="",
                        range_ns=None, as_json=True):
    """The split's steps here: each log's part, one document (parts made again if asked)."""
    logs, config_path, config, _ = _core._split_inputs([path], ranks)
    inputs = [_core._split_clock_inputs(log, config_path, config, align_on) for log in logs]
    clocks = _core._split_clocks(inputs, config_path, config, align_on, align, ranks)
    config_path = config_path or None
    parts = [_core._split_diagnose_part(log, c, rank, config_path, config, align_on, step)
             for log, rank, c in clocks]
    text, lacking, key = _core._split_diagnose(parts, config_path, config, align_on, clock, step,
                                               range_ns, as_json)
    assert text is not None and lacking == [] and key == "", (lacking, key)
    return text, parts


def test_diagnose_split_equals_cli(jobs, bin_dir):
    job = jobs["job"]
    text = cli(bin_dir, "diagnose", job, "--json").stdout
    got, parts = diagnose_in_process(job)
    assert got == text
    doc = json.loads(text)
    assert doc["steps"]["name"] == "step" and doc["steps"]["count"] >= 50
    assert [c["rank"] for c in doc["culprits"]] == [11]  # the slow rank
    assert doc["collectives"]["instances"] >= 50
    # A part holds a few bytes an event (its log: ~70 bytes a record, most of them sync).
    assert sum(len(p) for p in parts) < 0.25 * sum(
        os.path.getsize(os.path.join(job, f)) for f in os.listdir(job) if f.endswith(".log"))
    # The text form from the same parts.
    assert diagnose_in_process(job, as_json=False)[0] == cli(bin_dir, "diagnose", job).stdout
    # Options as the CLI takes them.
    for args, kw in ((["--range", "100ms:400ms"], dict(range_ns=(100_000_000, 400_000_000))),
                     (["--step", "forward"], dict(step="forward")),
                     (["--ranks", "2-12"], dict(ranks="2-12")),
                     (["--raw", "--ranks", "0,3,11"], dict(clock="raw", ranks="0,3,11")),
                     (["--no-align"], dict(align=False)),
                     (["--align-on", "allreduce"], dict(align_on="allreduce"))):
        assert diagnose_in_process(job, **kw)[0] == \
            cli(bin_dir, "diagnose", job, "--json", *args).stdout, args


def test_diagnose_split_aligned_reordered_restarted(jobs, bin_dir):
    for name in ("unsynced", "restarted", "reordered"):
        text = cli(bin_dir, "diagnose", jobs[name], "--json").stdout
        assert diagnose_in_process(jobs[name])[0] == text, name
        if name == "restarted":
            assert [u["rank"] for u in json.loads(text)["unclosed"]] == [3]
    names = json.loads(text)["collectives"]["names"]
    assert names == ["allreduce", "barrier"]  # rank 0's order: the first worker's names first


def test_diagnose_split_parts_refused_when_damaged(jobs):
    _, parts = diagnose_in_process(jobs["job"], ranks="0-1")
    for bad, why in ((parts[1][:-3], "truncated or damaged"), (b"z" * 40, "bad magic")):
        with pytest.raises(ValueError, match=why):
            _core._split_diagnose([parts[0], bad], None, b"", "", "corrected", "", None, True)
    # A log gone between the correction and its part: the loader's words, no crash.
    logs, config_path, config, _ = _core._split_inputs([jobs["job"]], "0")
    clocks = _core._split_clocks([_core._split_clock_inputs(logs[0], config_path, config, "")],
                                 config_path, config, "", True, "0")
    with pytest.raises(_core.LoadError, match="syncline.dask: .*nothing.log"):
        _core._split_diagnose_part(logs[0] + ".nothing.log", clocks[0][2], 0, None, b"", "", "")


def test_localcluster_diagnose(jobs, bin_dir, tmp_path):
    distributed = needs_distributed()
    import syncline.dask as sd
    job = jobs["job"]
    with two_dask_workers(tmp_path) as (cluster, client, workers):
        text = cli(bin_dir, "diagnose", job, "--json").stdout
        with distributed.get_task_stream(client=client) as ts:
            assert sd.diagnose_json(job, client) == text
        ran = ran_on(ts, "_diagnose_part")
        assert sum(ran.values()) == 16 and set(ran) == workers, ran
        assert sd.diagnose(jobs["reordered"], client, step="step", range="50ms:300ms") == \
            json.loads(cli(bin_dir, "diagnose", jobs["reordered"], "--json", "--step", "step",
                           "--range", "50ms:300ms").stdout)
        # The module's command line against this scheduler, and `syncline diagnose --dask`
        # (which runs it): the CLI's stdout and status.
        address = cluster.scheduler_address
        args = ["--ranks", "1-13", "--range", "0.1s:0.5s", "--raw"]
        want = cli(bin_dir, "diagnose", jobs["unsynced"], *args).stdout
        r = subprocess.run([sys.executable, "-m", "syncline.dask", "diagnose", jobs["unsynced"],
                            "--scheduler", address, *args], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stdout == want
        r = cli(bin_dir, "diagnose", job, "--json", "--step", "backward", "--dask", address)
        assert r.stdout == cli(bin_dir, "diagnose", job, "--json", "--step", "backward").stdout
        r = cli(bin_dir, "diagnose", job, "--no-correct", "--dask", address, ok=(2,))
        assert "--dask takes the corrected or raw clock only" in r.stderr
