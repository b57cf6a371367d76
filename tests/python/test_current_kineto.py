"""Profiler traces written by current PyTorch (2024-2026 Kineto output from NVIDIA and AMD GPUs,
and a CPU-only gloo rank), as other projects committed them (tests/data/current_kineto, see
tests/data/README.md): each loads on its own with every complete (X) and instant (i) event, at
the time the file gives it to the nanosecond — ts and dur read here independently, as decimal
µs, plus baseTimeNanoseconds where the file has one."""
import collections
import decimal
import gzip
import json
import os
import pathlib

import pytest

import syncline

DATA = pathlib.Path(os.environ["SYNCLINE_SOURCE_DIR"]) / "tests/data/current_kineto"
TRACES = sorted(p.name for p in DATA.glob("*.json.gz"))


def _ns(micros):
    return int((decimal.Decimal(str(micros)) * 1000).to_integral_value(decimal.ROUND_HALF_EVEN))


def _expected(path):
    """(name, start ns, end ns) of every X and i event of the file, as the file states them."""
    doc = json.loads(gzip.open(path).read(), parse_float=decimal.Decimal)
    base = int(doc.get("baseTimeNanoseconds", 0))
    want = collections.Counter()
    for e in doc["traceEvents"]:
        if e.get("ph") not in ("X", "i", "I"):
            continue
        name = e["name"]
        if name.startswith("ProfilerStep#"):
            name = "ProfilerStep"  # one name, the step number an arg (docs/pytorch.md)
        start = base + _ns(e["ts"])
        want[(name, start, start + (_ns(e.get("dur", 0)) if e["ph"] == "X" else 0))] += 1
    return doc, base, want


def test_the_traces_are_there():
    assert len(TRACES) == 6, TRACES


@pytest.mark.parametrize("name", TRACES)
def test_a_current_trace_loads_every_event_exactly(name):
    doc, base, want = _expected(DATA / name)
    tl = syncline.load_timeline(DATA / name, clock="raw")
    got = collections.Counter((e.name, e.local_start_ns, e.local_end_ns) for e in tl.events)
    assert got == want, (sum((want - got).values()), sum((got - want).values()))
    assert base > 0  # every one of them is the relative-time format
    # Nothing reported as an error: partial overlaps on GPU streams and a rank taken from the
    # file name are warnings and notes about what the file holds.
    kinds = set(tl.problem_kinds)
    assert kinds <= {"partial_overlap", "rank_assigned"}, tl.problems
    rank = doc.get("distributedInfo", {}).get("rank")
    if rank is not None:
        assert {w.rank for w in tl.workers} == {rank}
