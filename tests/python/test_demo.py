"""The demo job (scripts/demo.sh, what `make demo` runs), headless, in a temp output dir: a real
torchrun elastic job — 8 DDP workers over gloo on two hosts (as root where the kernel allows, the
multi-host testbed's, one torchrun per host and the job's own time server; else emulated inside
the recorder, one torchrun and `syncline timeserver`), a straggler, one worker crashing and the
group restarted by torchelastic — then the exports, the stats and the raw-vs-corrected clock
report. Checks what a user is told the demo shows: restart 0 and restart 1 of every rank, the
crashed incarnation ended without a close record, the explicit all_reduce a real collective (its
ends at one true instant), the corrected timeline putting those ends together within the
engine's bounds although host-b's raw stamps are 3.2 ms or more off, and `--align-on all_reduce`
recovering host-b's clock from logs without sync records. The truth is the demo's truth.json
(the testbed's offsets, or the headers' emulated `skew`). Timing is judged on medians and
bounds, never on wall-clock durations (a loaded 2-core machine)."""
import csv
import json
import os
import re
import statistics
import struct
import subprocess

import pytest

from conftest import SOURCE_DIR, read_log, without_leak_check

STEPS, CRASH_STEP = 40, 20  # restart 0 runs steps 0..19, restart 1 resumes at 20 (checkpoint)
CRASH_RANK, STRAGGLER = 3, 5
HOST_B_OFFSET_NS = 3_200_000  # host-b's clock is at least this far ahead of host-a's


@pytest.fixture(scope="module")
def demo(tmp_path_factory, bin_dir):
    """Runs the demo once; returns (output dir, its stdout)."""
    build = bin_dir.parent
    env = without_leak_check(os.environ)  # the demo's workers import torch
    env.pop("DISPLAY", None)
    out = tmp_path_factory.mktemp("demo")
    r = subprocess.run(["bash", str(SOURCE_DIR / "scripts" / "demo.sh"), str(build), "--out",
                        str(out), "--steps", str(STEPS), "--crash-step", str(CRASH_STEP)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    global TRUTH
    TRUTH = json.loads((out / "truth.json").read_text())
    return out, r.stdout


TRUTH = None  # the demo's truth.json: {"hosts": "testbed" | "emulated", "truth": {host: ...}}


def logs_by_incarnation(job):
    """{(rank, restart): (path, records)} for every log of the job (a torn last line skipped)."""
    out = {}
    for log in sorted(job.glob("timer_events.*.log")):
        records = []
        for line in log.read_text().splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # the crashed rank's torn last line
        h = records[0]
        assert h["t"] == "header"
        out[(h["rank"], h["restart"])] = (log, records)
    return out


def test_demo_headless(demo):
    out, text = demo
    assert "no window: $DISPLAY is not set" in text
    assert "torch.distributed.run --redirects 2 --tee 2" in text  # the command is shown
    assert f"rank {CRASH_RANK}: crashing at step {CRASH_STEP}" in text
    testbed = TRUTH["hosts"] == "testbed"
    assert ("on each host: /usr/bin/python3 -m torch.distributed.run" in text) == testbed

    logs = logs_by_incarnation(out / "job")
    assert sorted(logs) == [(r, k) for r in range(8) for k in (0, 1)]
    run_ids = set()
    for (rank, restart), (path, records) in logs.items():
        h = records[0]
        assert path.name == (f"timer_events.{rank}.log" if restart == 0 else
                             f"timer_events.{rank}.r1.log")
        assert (h["world_size"], h["local_rank"], h["role"]) == (
            8, rank % 4 if testbed else rank, "trainer")
        assert h["host"] == ("host-a" if rank < 4 else "host-b")
        assert ("skew" in h) == (rank >= 4 and not testbed)
        if testbed:  # a testbed host's own boot id, and no server named: the job's own
            assert h["boot_id"] == TRUTH["truth"][h["host"]]["boot_id"]
            assert any(x["t"] == "note" and x["msg"].startswith(
                "no time server named: using the job's own, host-a:") for x in records), path
        run_ids.add(h["run_id"])
        assert sum(x["t"] == "sync" for x in records) >= 2, path
        if restart == 1:
            assert records[-1]["t"] == "close", path
            steps = [x["args"]["step"] for x in records if x["t"] == "B" and x["name"] == "step"]
            assert steps == list(range(CRASH_STEP, STEPS)), (path, steps)  # resumed, not redone
    assert len(run_ids) == 1 and next(iter(run_ids)).startswith("demo-")
    crashed = logs[(CRASH_RANK, 0)][1]
    assert crashed[-1]["t"] != "close"
    # os._exit loses what the writer had not flushed yet: at most the last flush interval
    # (50 ms in the demo's config) when the machine is idle, a step or two more on a loaded one
    # (docs/reliability.md, the kill -9 bound). Nothing past the crash is ever there.
    last = max(x["args"]["step"] for x in crashed if x["t"] == "B" and x["name"] == "step")
    assert CRASH_STEP - 3 <= last <= CRASH_STEP - 1, last

    with open(out / "events.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {(int(x["rank"]), int(x["restart"])) for x in rows} == set(logs)
    assert {x["host"] for x in rows if int(x["rank"]) >= 4} == {"host-b"}
    assert any(x["name"] == "layer0" and int(x["depth"]) == 2 for x in rows)  # step>forward>layer
    assert any(x["name"] == "checkpoint_save" and x["rank"] == "0" for x in rows)

    for name in ("timeline.png", "timeline-steps.png"):
        png = (out / name).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", (out / "timeline.png").read_bytes()[16:24]) == (1920, 1080)

    workers = json.loads((out / "stats.json").read_text())["workers"]
    assert sorted((w["rank"], w["restart"]) for w in workers) == sorted(logs)
    assert {w["clock"]["method"] for w in workers} == {"sync"}
    assert [w["rank"] for w in workers if not w["closed"]].count(CRASH_RANK) == 1
    assert all(w["closed"] for w in workers if w["restart"] == 1)
    assert re.search(rf"restart 0: 8 workers .*ended without a close record: rank .*{CRASH_RANK}",
                     text), text
    assert "restart 1: 8 workers (ranks 0, 1, 2, 3, 4, 5, 6, 7), world size [8]; every log closed" \
        in text

    # The raw-vs-corrected table: host-b's raw clocks are > 3.2 ms off; corrected within bounds.
    table = re.findall(r"^\s*(\d)\s+([01]) (host-[ab])\s+(-?[\d.]+) ms\s+(-?[\d.]+) ms\s+"
                       r"(-?[\d.]+) µs\s+([\d.]+) µs", text, re.M)
    assert len(table) == 16, text
    bound0 = float(table[0][6])
    for rank, restart, host, truth, est, err, bound in table:
        assert (abs(float(truth)) >= 3.2) == (host == "host-b")
        assert abs(float(err)) <= float(bound) + bound0 + 1.0, (rank, restart, err, bound)
    # Per host, the achieved error against the truth (on the testbed, beside the floor its
    # links set); within the largest bound of the table.
    achieved = dict(re.findall(r"^(host-[ab]): achieved error ([-+][\d.]+) µs", text, re.M))
    assert sorted(achieved) == ["host-a", "host-b"], text
    assert all(abs(float(e)) <= max(float(row[6]) for row in table) for e in achieved.values())
    assert ("the floor its links set" in text) == testbed
    for name in ("events.csv", "timeline.png", "timeline-steps.png", "stats.txt", "stats.json",
                 "diagnose.txt", "truth.json"):
        assert str(out / name) in text
    # Who holds the job back: the straggler, rank 5, is the top culprit; the crash is a warning.
    diagnosis = (out / "diagnose.txt").read_text()
    assert "culprits (the last to arrive" in diagnosis, diagnosis
    culprits = diagnosis.split("culprits (the last to arrive")[1].splitlines()
    assert culprits[2].split()[0] == "5", diagnosis
    assert "warning: rank 3 (restart 0) has no close record" in diagnosis
    assert "=== syncline diagnose: who holds the job back ===" in text


def true_ns(header, local_ns):
    """This machine's CLOCK_MONOTONIC_RAW (one physical clock under every host) when a worker
    stamped local_ns: its host's truth undone (stamps = raw·(1 + ppm·1e-6) + offset)."""
    t = TRUTH["truth"][header["host"]]
    return (local_ns - t["offset_ns"]) / (1.0 + t["drift_ppm"] * 1e-6)


def intervals(records, name):
    """[(local begin, local end, begin args)] of `name` on the trainer thread, in order."""
    out, open_ = [], []
    for r in records:
        if r.get("name") != name or r["t"] not in ("B", "E"):
            continue
        if r["t"] == "B":
            open_.append(r)
        else:
            b = open_.pop()
            out.append((b["ts"], r["ts"], b.get("args", {})))
    return out


def restart1_all_reduces(job):
    """{rank: (header, {step: (local begin, local end)})} of the restart-1 incarnations."""
    result = {}
    for (rank, restart), (_, records) in logs_by_incarnation(job).items():
        if restart == 1:
            result[rank] = (records[0], {a["step"]: (b, e) for b, e, a in
                                         intervals(records, "all_reduce")})
            assert sorted(result[rank][1]) == list(range(CRASH_STEP, STEPS))
    return result


def test_demo_all_reduce_is_a_real_collective(demo):
    """In true time nobody leaves a step's all_reduce before the last rank entered it (gloo's
    all_reduce completes on each rank at its own moment — on a loaded 2-core machine ms apart —
    so how close the ends are is not judged here); the straggler's forward is the longest and
    the others wait for it (their backward, where DDP all-reduces the gradients, is longer)."""
    reduces = restart1_all_reduces(demo[0] / "job")
    for k in range(CRASH_STEP, STEPS):
        begins = {r: true_ns(h, ev[k][0]) for r, (h, ev) in reduces.items()}
        ends = {r: true_ns(h, ev[k][1]) for r, (h, ev) in reduces.items()}
        assert min(ends.values()) > max(begins.values()), f"all_reduce {k}: left before all came"

    logs = logs_by_incarnation(demo[0] / "job")
    def median_ms(rank, name):
        return statistics.median((e - b) / 1e6 for b, e, _ in intervals(logs[(rank, 1)][1], name))
    forward = {r: median_ms(r, "forward") for r in range(8)}
    assert max(forward, key=forward.get) == STRAGGLER, forward
    backward = {r: median_ms(r, "backward") for r in range(8)}
    assert statistics.median(v for r, v in backward.items() if r != STRAGGLER) > \
        backward[STRAGGLER], backward


def test_demo_corrected_all_reduce_ends_coincide(demo):
    """Corrected, every rank's all_reduce end is where the truth puts it relative to rank 0,
    within the two workers' bounds; raw, host-b's stamps of the same instants are its skew
    ahead."""
    import syncline

    job = demo[0] / "job"
    reduces = restart1_all_reduces(job)
    tl = syncline.load_timeline(str(job))
    workers = {w.rank: w for w in tl.workers if w.restart == 1}
    assert len(workers) == 8 and {w.clock["method"] for w in workers.values()} == {"sync"}
    events = {r: sorted((e for e in tl if e.rank == r and e.restart == 1 and e.name == "all_reduce"),
                        key=lambda e: e.start_ns) for r in workers}
    bound = {r: workers[r].clock["bound_ns"] for r in workers}
    raw_minus_true = []
    for i, k in enumerate(range(CRASH_STEP, STEPS)):
        truth = {r: true_ns(reduces[r][0], reduces[r][1][k][1]) for r in workers}
        for r in workers:
            assert events[r][i].local_end_ns == reduces[r][1][k][1]
            error = (events[r][i].end_ns - events[0][i].end_ns) - (truth[r] - truth[0])
            assert abs(error) <= bound[r] + bound[0] + 1000, (k, r, error, bound)
        raw = {r: events[r][i].local_end_ns - truth[r] for r in workers}
        raw_minus_true.append(statistics.mean(raw[r] for r in (4, 5, 6, 7)) -
                              statistics.mean(raw[r] for r in (0, 1, 2, 3)))
    assert statistics.median(raw_minus_true) >= HOST_B_OFFSET_NS - 1_000


def test_demo_align_on_all_reduce_without_sync(demo, tmp_path):
    """Without sync samples, aligning the all_reduce ends of the restart-1 workers recovers
    host-b's clock offset (1.23 s on the testbed; emulated, hundreds of ms: 3.2 ms + 40 ppm
    since boot).
    Alignment assumes a step's ends coincide; gloo's ring on a loaded machine leaves them
    milliseconds apart, and each domain's map is a median-based fit of per-instance differences
    between the domains' median ends, so at the instances its error cannot exceed how far apart
    the ends of one instance truly are (the spread over all ranks, at most over the instances).
    Judged on the median instance (+ 1 ms), and at each worker's first event (1.1 s before the
    first all_reduce, so extrapolated) against the offset itself: never on one instance's luck."""
    import syncline

    to = tmp_path / "nosync"
    to.mkdir()
    job = demo[0] / "job"
    (to / "timer_config.json").write_bytes((job / "timer_config.json").read_bytes())
    for log in job.glob("timer_events.*.r1.log"):
        (to / log.name).write_text("".join(
            line for line in log.read_text().splitlines(keepends=True)
            if not line.startswith('{"t":"sync"')))
    tl = syncline.load_timeline(str(to), align_on="all_reduce")
    workers = {w.rank: w for w in tl.workers}
    assert sorted(workers) == list(range(8))
    assert {w.clock["method"] for w in workers.values()} == {"collectives"}

    reduces = restart1_all_reduces(job)
    steps = range(CRASH_STEP, STEPS)
    truth = {r: [true_ns(reduces[r][0], reduces[r][1][k][1]) for k in steps] for r in workers}
    ends = {}
    for r in workers:
        events = sorted((e for e in tl if e.rank == r and e.name == "all_reduce"),
                        key=lambda e: e.start_ns)
        assert [e.local_end_ns for e in events] == [reduces[r][1][k][1] for k in steps]
        ends[r] = [e.end_ns for e in events]
    spread = max(max(truth[r][i] for r in workers) - min(truth[r][i] for r in workers)
                 for i in range(len(steps)))
    first_event_truth = {}
    for log in to.glob("timer_events.*.log"):
        records = read_log(log)
        first = min(x["ts"] for x in records if x["t"] in ("B", "I", "X"))
        first_event_truth[records[0]["rank"]] = true_ns(records[0], first) - first
    for r, w in workers.items():
        errors = [(ends[r][i] - ends[0][i]) - (truth[r][i] - truth[0][i])
                  for i in range(len(steps))]
        assert abs(statistics.median(errors)) <= spread + 1_000_000, (r, errors, spread)
        expected = first_event_truth[r] - first_event_truth[0]
        if r >= 4:
            assert expected <= -HOST_B_OFFSET_NS + 1_000  # host-b's clock is ahead
            error = (w.clock["offset_ns"] - workers[0].clock["offset_ns"]) - expected
            assert abs(error) < 0.25 * abs(expected), (r, error, expected)