"""The demo job (scripts/demo.sh, what `make demo` runs), headless, in a temp output dir: every
step must run for real — 8 mixed C++/Python workers, the time server, the all-reduce barrier,
the exports, the stats and the raw-vs-corrected clock report. Then what the barrier buys: the
all_reduce is a real collective (ends at one true instant, the straggler makes everyone wait),
the corrected timeline shows those ends together although the raw stamps are the host skew
apart, and `--align-on all_reduce` recovers host-b's clock from logs without sync records."""
import csv
import json
import os
import pathlib
import re
import statistics
import struct
import subprocess

import pytest

from conftest import SOURCE_DIR, read_log

STEPS = 120  # ~3.5 s of job: enough sync bursts (every 0.5 s) for a drift estimate under load
# Ranks' all_reduce ends follow one release message: a few hundred µs apart on loopback; a loaded
# machine's scheduling may delay a wake-up, hence this allowance (and "most instances" below).
SCHEDULING_NS = 2_000_000
HOST_B_OFFSET_NS = 3_200_000  # run_demo.py's emulated skew of host-b (plus 40 ppm)


@pytest.fixture(scope="module")
def demo(tmp_path_factory, bin_dir):
    """Runs the demo once; returns (output dir, its stdout)."""
    build = bin_dir.parent
    assert (bin_dir / "example_worker").exists(), "the demo needs the C++ example_worker built"
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    out = tmp_path_factory.mktemp("demo")
    r = subprocess.run(["bash", str(SOURCE_DIR / "scripts" / "demo.sh"), str(build), "--out",
                        str(out), "--steps", str(STEPS), "--hang-grace", "1"],
                       capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    return out, r.stdout


def test_demo_headless(demo):
    out, text = demo
    assert "no window: $DISPLAY is not set" in text
    assert "not built" not in text and "yet (being written)" not in text, text

    job = out / "job"
    logs = sorted(job.glob("timer_events.*.log"))
    assert len(logs) == 8
    for log in logs:
        records = read_log(log) if "timer_events.6." not in log.name else None
        if records:
            assert records[-1]["t"] == "close"
            assert sum(x["t"] == "sync" for x in records) >= 8
    hung = (job / "timer_events.6.log").read_text().splitlines()
    assert '"close"' not in hung[-1]  # killed while hanging
    assert f"all-reduce barrier: {STEPS} instances released, 8 ranks left, 0 bad messages" in text

    with open(out / "events.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {int(x["rank"]) for x in rows} == set(range(8))
    assert {x["host"] for x in rows if int(x["rank"]) >= 4} == {"host-b"}
    python_ranks = {int(x["rank"]) for x in rows if x["name"] == "attention"}
    assert python_ranks == {1, 3, 5, 6}  # the others ran the C++ example_worker
    stuck = [x for x in rows if x["name"] == "checkpoint_save" and x["status"] == "open"]
    assert [int(x["rank"]) for x in stuck] == [6]
    assert int(stuck[0]["duration_ns"]) > 200_000_000  # past checkpoint_save's expected 200 ms
    assert any(x["name"] == "layer0" and int(x["depth"]) == 2 for x in rows)  # step>forward>layer

    for name in ("timeline.png", "timeline-steps.png"):
        png = (out / name).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", png[16:24]) == (1920, 1080)

    workers = json.loads((out / "stats.json").read_text())["workers"]
    assert len(workers) == 8 and {w["clock"]["method"] for w in workers} == {"sync"}
    # The drift must be right to 5 ppm, or to what the engine's own guaranteed bound allows over
    # the run when sync was poor (a loaded 2-core machine: exchanges of milliseconds): an offset
    # known to ±bound at both ends of a span T pins the drift to ±2·bound/T.
    import syncline
    tl = syncline.load_timeline(str(out / "job"))
    span_ns = max(1, tl.end_ns - tl.begin_ns)
    for w in workers:
        expected_drift = -40.0 if w["rank"] >= 4 else 0.0
        tolerance = max(5.0, 2e6 * w["clock"]["bound_ns"] / span_ns)
        assert abs(w["clock"]["drift_ppm"] - expected_drift) < tolerance, (w, tolerance)

    # The raw-vs-corrected table: host-b's raw clocks are > 3.2 ms off; corrected within bounds.
    table = re.findall(r"^\s*(\d) (host-[ab])\s+(-?[\d.]+) ms\s+(-?[\d.]+) ms\s+(-?[\d.]+) µs"
                       r"\s+([\d.]+) µs", text, re.M)
    assert len(table) == 8, text
    bound0 = float(table[0][5])
    for rank, host, truth, est, err, bound in table:
        assert (abs(float(truth)) > 3.2) == (host == "host-b")
        assert abs(float(err)) <= float(bound) + bound0 + 1.0, (rank, err, bound)
    for name in ("events.csv", "timeline.png", "timeline-steps.png", "stats.txt", "stats.json"):
        assert str(out / name) in text


def true_ns(header, local_ns):
    """CLOCK_MONOTONIC_RAW (shared by every process here) when a worker stamped local_ns: the
    header's synthetic `skew` undone (stamps = raw·(1 + ppm·1e-6) + offset)."""
    skew = header.get("skew")
    if not skew:
        return float(local_ns)
    return (local_ns - skew["offset_ns"]) / (1.0 + skew["drift_ppm"] * 1e-6)


def all_reduces(job):
    """{rank: (header, [(local begin, local end)] in step order)} from the logs themselves."""
    result = {}
    for log in sorted(job.glob("timer_events.*.log")):
        header, begins, ends = None, [], []
        for line in log.read_text().splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:  # the killed rank's torn last line
                continue
            if r["t"] == "header":
                header = r
            elif r.get("name") == "all_reduce":
                (begins if r["t"] == "B" else ends).append(r["ts"])
            assert r.get("name") not in ("barrier_timeout", "barrier_lost"), (log, r)
        assert len(ends) == STEPS, log
        result[header["rank"]] = (header, list(zip(begins, ends)))
    assert sorted(result) == list(range(8))
    return result


def test_demo_all_reduce_is_a_real_collective(demo):
    """In true time, nobody leaves an all_reduce before the last rank arrives, all leave
    together, and the last to arrive is the straggler (rank 5): it waits least, the others wait
    for it."""
    reduces = all_reduces(demo[0] / "job")
    spreads, lags, straggler_last = [], [], 0
    waits = {rank: [] for rank in reduces}
    for k in range(STEPS):
        begins = {r: true_ns(h, ev[k][0]) for r, (h, ev) in reduces.items()}
        ends = {r: true_ns(h, ev[k][1]) for r, (h, ev) in reduces.items()}
        assert min(ends.values()) > max(begins.values()), f"all_reduce {k}: left before all came"
        spreads.append(max(ends.values()) - min(ends.values()))
        lags.append(max(ends.values()) - max(begins.values()))
        straggler_last += max(begins, key=begins.get) == 5
        for r in reduces:
            waits[r].append(ends[r] - begins[r])
    # Leaving together is judged on the typical step: on a loaded 2-core machine a share of the
    # steps (up to ~40 % seen) has one rank scheduled 10–20 ms late after the release.
    assert statistics.median(spreads) <= SCHEDULING_NS, sorted(spreads)[-10:]
    assert statistics.median(lags) <= SCHEDULING_NS, statistics.median(lags)
    assert straggler_last >= 0.8 * STEPS, straggler_last
    median_wait = {r: statistics.median(w) for r, w in waits.items()}
    assert all(median_wait[5] * 3 < median_wait[r] for r in reduces if r != 5), median_wait


def test_demo_corrected_all_reduce_ends_coincide(demo):
    """The corrected timeline puts the k-th all_reduce's ends together (within the ranks'
    bounds plus the scheduling allowance), while the raw stamps of host-b are the skew ahead;
    against the truth, every corrected end is within its worker's bound."""
    import syncline

    job = demo[0] / "job"
    reduces = all_reduces(job)
    tl = syncline.load_timeline(str(job))
    workers = {w.rank: w for w in tl.workers}
    events = {r: sorted((e for e in tl if e.rank == r and e.name == "all_reduce"),
                        key=lambda e: e.start_ns) for r in workers}
    bound = {r: workers[r].clock["bound_ns"] for r in workers}
    assert {w.clock["method"] for w in workers.values()} == {"sync"}
    within, spreads, raw_gaps = 0, [], []
    for k in range(STEPS):
        ends = {r: events[r][k].end_ns for r in workers}
        assert all(ends[r] - events[r][k].start_ns == events[r][k].duration_ns for r in ends)
        first, last = min(ends, key=ends.get), max(ends, key=ends.get)
        spreads.append(ends[last] - ends[first])
        # The corrected spread is the true one, give or take the two ranks' bounds (the machine's
        # scheduling is in both, so it cancels).
        true_end = {r: true_ns(reduces[r][0], reduces[r][1][k][1]) for r in workers}
        true_spread = max(true_end.values()) - min(true_end.values())
        within += spreads[-1] <= true_spread + bound[first] + bound[last] + 1000
        # Exact: corrected minus true, relative to rank 0, within the two ranks' bounds.
        truth = {r: true_ns(reduces[r][0], reduces[r][1][k][1]) for r in workers}
        for r in workers:
            assert events[r][k].local_end_ns == reduces[r][1][k][1]
            error = (ends[r] - ends[0]) - (truth[r] - truth[0])
            assert abs(error) <= bound[r] + bound[0] + 1000, (k, r, error, bound)
        raw = {r: events[r][k].local_end_ns for r in workers}
        raw_gaps.append(statistics.mean(raw[r] for r in (4, 5, 6, 7)) -
                        statistics.mean(raw[r] for r in (0, 1, 2, 3)))
    assert within >= 0.9 * STEPS, sorted(spreads)[-10:]
    assert statistics.median(spreads) < 1_000_000, statistics.median(spreads)
    # Raw, host-b's stamps of the same instants are its skew ahead (3.2 ms + 40 ppm since boot):
    # without the correction the ends would be > 3.2 ms apart.
    header_b = reduces[4][0]
    predicted = header_b["skew"]["offset_ns"] + 40e-6 * true_ns(header_b, reduces[4][1][0][1])
    assert statistics.median(raw_gaps) > HOST_B_OFFSET_NS
    assert abs(statistics.median(raw_gaps) - predicted) < SCHEDULING_NS, (raw_gaps, predicted)

    # The raw VIEW (wall-clock anchored, what viewers without correction show) has host-b's
    # ends its wall-clock offset (3.2 ms, plus 40 µs/s) late: the correction, not the anchors,
    # is what lines them up.
    raw_tl = syncline.load_timeline(str(job), clock="raw")
    raw_events = {r: sorted((e for e in raw_tl if e.rank == r and e.name == "all_reduce"),
                            key=lambda e: e.start_ns) for r in workers}
    view_gaps = [statistics.mean(raw_events[r][k].end_ns for r in (4, 5, 6, 7)) -
                 statistics.mean(raw_events[r][k].end_ns for r in (0, 1, 2, 3))
                 for k in range(STEPS)]
    assert statistics.median(view_gaps) > HOST_B_OFFSET_NS - SCHEDULING_NS, view_gaps[:5]
    assert statistics.median(view_gaps) < HOST_B_OFFSET_NS + 2 * SCHEDULING_NS, view_gaps[:5]


def strip_sync(job, to):
    """Copies the job's logs and config into `to` without their `sync` records."""
    to.mkdir()
    (to / "timer_config.json").write_bytes((job / "timer_config.json").read_bytes())
    for log in job.glob("timer_events.*.log"):
        kept = [line for line in log.read_text().splitlines(keepends=True)
                if not line.startswith('{"t":"sync"')]
        (to / log.name).write_text("".join(kept))
        assert '"t":"sync"' not in (to / log.name).read_text()
    return to


def stats_clocks(bin_dir, *args):
    r = subprocess.run([str(bin_dir / "syncline"), "stats", *map(str, args), "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return {w["rank"]: w["clock"] for w in json.loads(r.stdout)["workers"]}


def test_demo_align_on_all_reduce_without_sync(demo, bin_dir, tmp_path):
    """Without sync samples, aligning the all_reduce ends recovers host-b's clock offset
    (global − local at each worker's first event, relative to rank 0) within 1 ms."""
    copy = strip_sync(demo[0] / "job", tmp_path / "nosync")
    assert {c["method"] for c in stats_clocks(bin_dir, copy).values()} == {"none"}
    clocks = stats_clocks(bin_dir, copy, "--align-on", "all_reduce")
    assert {c["method"] for c in clocks.values()} == {"collectives"}
    truth = {}
    for log in copy.glob("timer_events.*.log"):
        records = [json.loads(x) for x in log.read_text().splitlines() if x.endswith("}")]
        header = records[0]
        first = min(x["ts"] for x in records if x["t"] in ("B", "I", "X"))
        truth[header["rank"]] = true_ns(header, first) - first  # global − local, up to a constant
    for rank, clock in clocks.items():
        expected = truth[rank] - truth[0]
        if rank >= 4:
            assert expected < -HOST_B_OFFSET_NS  # host-b's clock is ahead: a real offset
        error = (clock["offset_ns"] - clocks[0]["offset_ns"]) - expected
        assert abs(error) < 1_000_000, (rank, error)
