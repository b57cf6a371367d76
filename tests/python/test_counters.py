"""client.counter(name, value) in a real worker process: the `C` records it writes (format
1.1, with a note for 1.0 readers), read back through load_timeline() as Worker.counters with the
values exact and the times on the worker's clock, between its events."""
import json
import math
import pathlib

import pytest

import syncline
from conftest import read_log, run_python, torch_available

WORKER = str(pathlib.Path(__file__).with_name("counter_worker.py"))


def _run(workdir, steps, with_torch):
    r = run_python([WORKER, str(steps), "1" if with_torch else "0"], workdir,
                   imports_torch=with_torch)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
    return read_log(workdir / "timer_events.log")


def test_counter_records_and_timeline(workdir):
    records = _run(workdir, 5, with_torch=False)
    assert records[0]["t"] == "header" and records[0]["version"] == 1 and records[0]["minor"] == 2
    counters = [r for r in records if r["t"] == "C"]
    assert [(r["name"], r["value"]) for r in counters if r["name"] == "loss"] == [
        ("loss", 8.0), ("loss", 4.0), ("loss", None), ("loss", 1.0), ("loss", 0.5)]
    assert [r["value"] for r in counters if r["name"] == "tokens"] == [1024.0 * k for k in range(1, 6)]
    notes = [r for r in records if r["t"] == "note" and "counter records" in r["msg"]]
    assert len(notes) == 1 and "readers of format 1.0 skip them" in notes[0]["msg"]

    tl = syncline.load_timeline(str(workdir))
    w = tl.workers[0]
    by_name = {c["name"]: c for c in w.counters}
    assert sorted(by_name) == ["loss", "tokens"]
    loss = by_name["loss"]
    assert loss["values"] == [8.0, 4.0, 1.0, 0.5]  # the NaN (null) is no sample
    assert loss["series"] == "" and loss["label"] == "loss"
    assert loss["local_ns"] == [r["ts"] for r in counters if r["name"] == "loss" and r["value"] is not None]
    # Each sample lies inside its step on the global timeline (same clock map as events).
    steps = sorted((e for e in tl if e.name == "step"), key=lambda e: e.start_ns)
    assert len(steps) == 5
    for t, step in zip(loss["times_ns"], [0, 1, 3, 4]):
        assert steps[step].start_ns <= t <= steps[step].end_ns
    assert len(tl) == 5  # counters are not events


def test_counter_errors(workdir):
    with syncline.FileTimerClient(config_path="", log_path="x.log") as c:
        with pytest.raises(syncline.TimerError, match="empty counter name"):
            c.counter("", 1.0)
        with pytest.raises(TypeError):
            c.counter("loss", "high")
        c.counter("inf", math.inf)
        c.counter("int", 3)
    counters = [r for r in read_log(workdir / "x.log") if r["t"] == "C"]
    assert [(r["name"], r["value"]) for r in counters] == [("inf", None), ("int", 3.0)]


def test_record_memory_in_a_real_process(workdir):
    if not torch_available():
        pytest.skip("PyTorch is not installed")
    records = _run(workdir, 3, with_torch=True)
    names = {r["name"] for r in records if r["t"] == "C"}
    assert names >= {"loss", "tokens"}
    assert names & {"cpu_rss_bytes", "cuda_memory_allocated"}
    tl = syncline.load_timeline(str(workdir))
    mem = [c for c in tl.workers[0].counters if c["name"] in ("cpu_rss_bytes", "cuda_memory_allocated")]
    assert mem and len(mem[0]["values"]) == 3 and min(mem[0]["values"]) > 0
