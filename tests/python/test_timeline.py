"""get_timeline() and load_timeline(): the corrected global timeline through the timeline layer.
Across hosts (clock correction against a time server, wall clocks as a second opinion, the
client's global time): test_testbed_timeline.py, on the multi-host testbed."""
import json
import os
import pathlib
import resource

import pytest

import syncline
from conftest import run_python

WORKER = str(pathlib.Path(__file__).with_name("worker_script.py"))


def test_get_timeline_has_nesting_durations_and_identity(workdir):
    c = syncline.FileTimerClient()
    c.start_event("event1", step=1)
    c.start_event("event2")
    c.end_event("event2")
    c.end_event("event1")
    c.start_event("still_open")
    tl = c.get_timeline()  # flushes first: everything above is in it
    assert isinstance(tl, syncline.Timeline) and tl.mode == "corrected"
    events = {e.name: e for e in tl}
    assert len(tl) == 3 and set(events) == {"event1", "event2", "still_open"}
    e1, e2 = events["event1"], events["event2"]
    assert (e1.rank, e1.depth, e2.depth) == (0, 0, 1)
    assert e1.start_ns <= e2.start_ns <= e2.end_ns <= e1.end_ns
    assert e1.duration_ns == e1.end_ns - e1.start_ns >= 0
    assert e1.local_end_ns - e1.local_start_ns == e1.duration_ns  # one clock, no drift applied
    assert e1.status == "complete" and e1.kind == "event" and e1.args == {"step": 1}
    assert e1.tid == os.getpid() and e1.pid == os.getpid() and e1.thread == "main"
    assert e1.host == tl.workers[0].host and e1.restart == 0
    assert events["still_open"].status == "open" and events["still_open"].open
    assert tl.origin_ns == e1.start_ns == tl.begin_ns
    d = e2.to_dict()
    assert d["name"] == "event2" and d["depth"] == 1 and d["duration_ns"] == e2.duration_ns
    c.end_event("still_open")
    c.close()
    assert [e.status for e in c.get_timeline()] == ["complete"] * 3  # works after close too


def test_get_timeline_includes_every_worker_beside_this_one(workdir):
    (workdir / "timer_config.json").write_text(json.dumps({
        "event_kinds": [{"name": "layer", "expected_max_ms": 5}]}))
    r = run_python([WORKER, "3", "0.02"], workdir, RANK=1, WORLD_SIZE=2)
    assert r.returncode == 0, r.stderr
    os.environ["RANK"], os.environ["WORLD_SIZE"] = "0", "2"
    try:
        c = syncline.FileTimerClient()
    finally:
        del os.environ["RANK"], os.environ["WORLD_SIZE"]
    assert c.log_path == "timer_events.0.log"
    with c.event("layer"):
        pass
    tl = c.get_timeline()
    # ranks=: only the other worker's log
    assert [w.rank for w in c.get_timeline(ranks="1").workers] == [1]
    with pytest.raises(ValueError, match="ranks: 'a': not a rank"):
        c.get_timeline(ranks="a")
    c.close()
    assert [w.rank for w in tl.workers] == [0, 1]
    assert tl.workers[1].closed_cleanly and not tl.workers[0].closed_cleanly  # 0 still running
    layers = [e for e in tl if e.name == "layer"]
    assert sorted(e.rank for e in layers) == [0, 1, 1, 1]
    # expected_max_ms 5 from timer_config.json: the 20 ms layers of rank 1 are overdue
    assert {e.status for e in layers if e.rank == 1} == {"overdue"}
    assert [e.status for e in layers if e.rank == 0] == ["complete"]
    steps = [e for e in tl.workers[1].events if e.name == "step"]
    assert [e.args["i"] for e in steps] == [0, 1, 2]
    assert [e.kind for e in tl.workers[1].events if e.name == "tick"] == ["instant"] * 3
    rows = {(s["name"], s["rank"]): s for s in tl.stats()}
    assert rows[("layer", 1)]["count"] == 3 and rows[("layer", None)]["count"] == 4
    assert rows[("layer", 1)]["p50_ns"] >= 20_000_000


def test_load_timeline_paths_errors_and_modes(workdir):
    r = run_python([WORKER, "2", "0.001", "hang"], workdir)
    assert r.returncode == 0, r.stderr
    tl = syncline.load_timeline(workdir)  # a directory, as a Path
    assert [e.name for e in tl if e.depth == 0] == ["step", "tick", "step", "tick", "hang"]
    assert [e.status for e in tl if e.name == "hang"] == ["open"]
    assert not tl.workers[0].closed_cleanly
    raw = syncline.load_timeline(str(workdir / "timer_events.log"), clock="raw")
    assert raw.mode == "raw" and len(raw) == len(tl)
    with pytest.raises(syncline.LoadError, match="no/such/dir"):
        syncline.load_timeline("no/such/dir")
    with pytest.raises(ValueError, match='clock must be "corrected", "wall" or "raw"'):
        syncline.load_timeline(workdir, clock="ptp")
    with pytest.raises(TypeError, match="at least one path"):
        syncline.load_timeline()


LIMIT_CHILD = """
import resource, sys
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
import syncline
tl = syncline.load_timeline(sys.argv[1])
print(len(tl.workers), resource.getrlimit(resource.RLIMIT_NOFILE)[0], hard)
"""


def test_load_timeline_raises_the_open_file_limit(workdir):
    # A job of more logs than the usual soft limit of descriptors: the load raises the soft
    # limit to the hard one, as the syncline executable does.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 512:
        pytest.skip(f"hard open-file limit {hard}: no room above 256 to raise to")
    job = workdir / "job"
    job.mkdir()
    for r in range(300):
        (job / f"timer_events.{r}.log").write_text(
            '{"t":"header","format":"syncline","version":1,"rank":%d,"restart":0,"host":"h",'
            '"boot_id":"b","pid":7,"clock":"monotonic_raw","anchor":{"mono_ns":0,'
            '"wall_ns":1700000000000000000,"spread_ns":1},"config":null,"start_ns":0}\n'
            '{"t":"B","ts":1000,"tid":1,"name":"step"}\n'
            '{"t":"E","ts":2000,"tid":1,"name":"step"}\n'
            '{"t":"close","ts":3000,"events":1,"dropped":0,"open":0}\n' % r)
    script = workdir / "limit_child.py"
    script.write_text(LIMIT_CHILD)
    res = run_python([str(script), str(job)], cwd=workdir)
    assert res.returncode == 0, res.stderr
    workers, soft, child_hard = (int(x) for x in res.stdout.split())
    assert workers == 300
    assert soft == child_hard  # raised from 256 to the hard limit (-1: unlimited)


def test_bad_line_is_reported_as_a_problem(workdir):
    with syncline.FileTimerClient() as c:
        c.instant("x")
    lines = (workdir / "timer_events.log").read_text().splitlines(keepends=True)
    lines.insert(2, "{not json\n")
    (workdir / "timer_events.log").write_text("".join(lines))
    tl = syncline.load_timeline(workdir / "timer_events.log")
    assert [e.name for e in tl] == ["x"]
    assert any("timer_events.log:3:" in p for p in tl.problems), tl.problems
    # The kind of each problem, index for index: stable where the wording is not.
    kinds = tl.problem_kinds
    assert len(kinds) == len(tl.problems)
    bad = [p for p, k in zip(tl.problems, kinds) if k == "malformed_line"]
    assert len(bad) == 1 and "timer_events.log:3: malformed line" in bad[0], (tl.problems, kinds)


def test_get_timeline_clock_keyword(workdir):
    with syncline.FileTimerClient() as c:
        c.instant("x")
        tl = c.get_timeline(clock="wall")
        assert tl.clock == "wall" and [e.name for e in tl] == ["x"]
        # One worker without sync samples: nothing to check its wall clock against.
        assert tl.workers[0].clock["wall_verdict"] == "no_band"
        assert "no sync samples" in tl.workers[0].clock["wall_reason"]
        assert c.get_timeline(clock="raw").mode == "raw"
        assert c.get_timeline().clock == "corrected"
        with pytest.raises(ValueError, match="get_timeline"):
            c.get_timeline(clock="bogus")


def test_load_timeline_reads_a_gzipped_kineto_trace(tmp_path):
    # The real .pt.trace.json.gz of tests/data (current PyTorch, gzip'd): every X and i event.
    src = pathlib.Path(os.environ["SYNCLINE_SOURCE_DIR"]) / "tests/data/hta_ns_resolution_1rank"
    tl = syncline.load_timeline(src / "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
    assert len(tl.events) == 45422
    (tmp_path / "n.json").write_text("42\n")
    with pytest.raises(syncline.LoadError, match=r"JSON number \(42\).*not a Chrome trace"):
        syncline.load_timeline(tmp_path / "n.json")


def test_load_timeline_align_false_keeps_the_recorded_clocks(tmp_path):
    # Two ranks' Chrome traces, no sync samples, 20 all_reduces ending at the same true instant;
    # rank 1's clock 2 ms ahead. By default aligned on them; align=False leaves the 2 ms.
    for rank in range(2):
        events = [{"ph": "X", "name": "all_reduce", "pid": 1, "tid": 1,
                   "ts": 1_700_000_000_000_000 + k * 10_000 + rank * 2_000 - (rank + 1) * 100,
                   "dur": (rank + 1) * 100} for k in range(20)]
        (tmp_path / f"rank{rank}.json").write_text(json.dumps(
            {"traceEvents": events, "distributedInfo": {"rank": rank, "world_size": 2}}))

    def end_gap(tl):
        ends = {}
        for e in tl.events:
            ends.setdefault(e.rank, []).append(e.end_ns)
        return max(abs(a - b) for a, b in zip(sorted(ends[0]), sorted(ends[1])))

    assert end_gap(syncline.load_timeline(tmp_path)) <= 1_000
    off = syncline.load_timeline(tmp_path, align=False)
    assert end_gap(off) == 2_000_000
    assert any("collective alignment off" in n for n in off.notes)
    with pytest.raises(ValueError, match="contradict"):
        syncline.load_timeline(tmp_path, align=False, align_on="all_reduce")
