"""The request's four examples (examples/python/*.py), each run as a real process in its own
working directory; the log it leaves and the timeline it prints are checked."""
import re

import pytest

import syncline
from conftest import SOURCE_DIR, assert_valid_log, events_of, run_python

EXAMPLES = SOURCE_DIR / "examples" / "python"
LINE = re.compile(r"rank (\d+)\s+(\S+)\s+depth (\d+)\s+start\s+([\d.]+) ms\s+duration\s+([\d.]+) ms\s+(\w+)")


def run_example(name, workdir):
    r = run_python([str(EXAMPLES / f"{name}.py")], cwd=str(SOURCE_DIR), SYNCLINE_WORKDIR=workdir)
    assert r.returncode == 0, r.stderr
    log = workdir / "timer_events.log"
    records = assert_valid_log(log)  # the client closed at exit: header ... close
    return records, r.stdout


def printed(stdout):
    rows = [LINE.search(line) for line in stdout.splitlines()]
    return [(m.group(2), int(m.group(3)), float(m.group(4)), float(m.group(5)), m.group(6))
            for m in rows if m]


def begin_end(records):
    return [(r["t"], r["name"]) for r in events_of(records)]


def test_simple(workdir):
    records, out = run_example("simple", workdir)
    assert begin_end(records) == [("B", "my_event"), ("E", "my_event")]
    rows = printed(out)
    assert [(n, d, s) for n, d, _, _, s in rows] == [("my_event", 0, "complete")]
    assert rows[0][3] >= 10.0  # it slept 10 ms inside the event


def test_multiple_events(workdir):
    records, out = run_example("multiple_events", workdir)
    assert begin_end(records) == [("B", "event1"), ("E", "event1"), ("B", "event2"), ("E", "event2")]
    rows = printed(out)
    assert [(n, d) for n, d, _, _, _ in rows] == [("event1", 0), ("event2", 0)]
    (_, _, s1, d1, _), (_, _, s2, d2, _) = rows
    assert s1 == 0.0 and s2 >= s1 + d1 and d1 >= 10.0 and d2 >= 20.0  # one after the other


def test_nested_events(workdir):
    records, out = run_example("nested_events", workdir)
    assert begin_end(records) == [("B", "event1"), ("B", "event2"), ("E", "event2"), ("E", "event1")]
    rows = printed(out)
    assert [(n, d) for n, d, _, _, _ in rows] == [("event1", 0), ("event2", 1)]
    (_, _, s1, d1, _), (_, _, s2, d2, _) = rows
    assert s1 <= s2 and s2 + d2 <= s1 + d1 + 0.001 and d1 >= d2 + 10.0  # event2 inside event1
    # The same timeline loaded independently from the log agrees.
    tl = syncline.load_timeline(workdir / "timer_events.log")
    assert [(e.name, e.depth) for e in tl] == [("event1", 0), ("event2", 1)]


def test_callbacks(workdir):
    records, out = run_example("callbacks", workdir)
    assert out.splitlines() == ["イベント my_event が開始されました", "イベント my_event が終了しました"]
    assert begin_end(records) == [("B", "my_event"), ("E", "my_event")]


@pytest.mark.parametrize("name", ["simple", "nested_events"])
def test_examples_read_timer_config_in_workdir(workdir, name):
    (workdir / "timer_config.json").write_text('{"event_kinds":[{"glob":"*","expected_max_ms":1}]}')
    records, out = run_example(name, workdir)
    assert records[0]["config"] == str(workdir / "timer_config.json")
    assert {s for *_, s in printed(out)} == {"overdue"}  # every event > 1 ms


def test_counters_example(workdir):
    r = run_python([str(EXAMPLES / "counters.py"), "12"], cwd=str(SOURCE_DIR),
                   SYNCLINE_WORKDIR=workdir)
    assert r.returncode == 0, r.stderr
    records = assert_valid_log(workdir / "timer_events.log")
    samples = [rec for rec in records if rec["t"] == "C"]
    assert [s["name"] for s in samples if s["name"] == "loss"] == ["loss"] * 12
    # Printed from get_timeline(): each counter with its sample count (memory when torch is here).
    lines = {m.group(1): int(m.group(2)) for m in
             (re.search(r"counter (\S+)\s+(\d+) samples", line) for line in r.stdout.splitlines()) if m}
    assert lines["loss"] == 12 and lines["learning_rate"] == 12
    lr = [s["value"] for s in samples if s["name"] == "learning_rate"]
    assert lr[0] == 0.1 and all(a >= b for a, b in zip(lr, lr[1:]))  # the cosine schedule
