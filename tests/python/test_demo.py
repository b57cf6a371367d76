"""The demo job (scripts/demo.sh, what `make demo` runs), headless, in a temp output dir: every
step must run for real — 8 mixed C++/Python workers, the time server, the exports, the stats
and the raw-vs-corrected clock report."""
import csv
import json
import os
import pathlib
import re
import struct
import subprocess

from conftest import SOURCE_DIR, read_log


def test_demo_headless(tmp_path, bin_dir):
    build = bin_dir.parent
    assert (bin_dir / "example_worker").exists(), "the demo needs the C++ example_worker built"
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    out = tmp_path / "demo"
    r = subprocess.run(["bash", str(SOURCE_DIR / "scripts" / "demo.sh"), str(build), "--out",
                        str(out), "--steps", "60", "--hang-grace", "1"],
                       capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    text = r.stdout
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
    for w in workers:
        expected_drift = -40.0 if w["rank"] >= 4 else 0.0
        assert abs(w["clock"]["drift_ppm"] - expected_drift) < 5, w

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
