"""Rank subsets (`--ranks`, load_timeline(ranks=...)): only the chosen workers' logs are opened —
every other log is replaced by bytes that are no syncline log at all (and, when this runs without
root, made unreadable), and the subset loads without a word about them; the clocks come from
the subset's own samples, with an Info saying what the subset leaves out; bad specs are refused
with what is wrong. Cost: about 3 s (one 8-worker simulated job, a few loads)."""
import json
import os
import shutil
import subprocess

import pytest

import syncline


@pytest.fixture(scope="module")
def job(tmp_path_factory, bin_dir):
    out = tmp_path_factory.mktemp("ranks") / "job"
    subprocess.run([str(bin_dir / "syncline-sim"), "--seed", "5", "--workers", "8",
                    "--per-host", "4", "--duration-s", "1", "--iteration-ms", "5",
                    "--out", str(out)], check=True, capture_output=True, timeout=120)
    return out


@pytest.fixture
def poisoned(job, tmp_path):
    """A copy of the job whose logs of ranks 4-7 cannot be read as logs (nor at all without
    root): loading any of them would be an error naming the file."""
    d = tmp_path / "job"
    shutil.copytree(job, d)
    for r in range(4, 8):
        p = d / f"timer_events.{r}.log"
        p.write_bytes(b"\x00not a syncline log\n")
        os.chmod(p, 0)
    yield d
    for r in range(4, 8):
        os.chmod(d / f"timer_events.{r}.log", 0o644)


def test_only_the_chosen_logs_are_read(poisoned):
    whole = syncline.load_timeline(poisoned)  # the poisoned logs are read here: said so
    assert any("timer_events.5.log" in p for p in whole.problems)
    tl = syncline.load_timeline(poisoned, ranks="0-2,3")
    assert sorted(w.rank for w in tl.workers) == [0, 1, 2, 3]
    assert not any(f"timer_events.{r}.log" in p for p in tl.problems for r in range(4, 8))
    [note] = [p for p in tl.problems if "subset:" in p]
    assert "ranks 0-3" in note and "bounds may be looser" in note
    assert "4 logs of other ranks not opened" in note
    assert all(w.clock["method"] == "sync" for w in tl.workers)


def test_cli_ranks(poisoned, bin_dir):
    exe = str(bin_dir / "syncline")
    r = subprocess.run([exe, "stats", str(poisoned), "--json", "-q", "--ranks", "1,3"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [w["rank"] for w in doc["workers"]] == [1, 3]
    assert {e["rank"] for e in doc["events"]} == {None, 1, 3}
    r = subprocess.run([exe, "check", str(poisoned), "--ranks", "0-3"], capture_output=True,
                       text=True, timeout=60)
    assert "subset: ranks 0-3" in r.stdout + r.stderr
    assert "timer_events.6.log" not in r.stdout + r.stderr
    # The viewer takes the same option (checked before any window opens) ...
    r = subprocess.run([exe, "open", str(poisoned), "--ranks", "3-1"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert "syncline open: --ranks: '3-1': the range ends before it starts" in r.stderr
    # ... and attach, which follows every worker that appears, refuses it.
    r = subprocess.run([exe, "attach", str(poisoned), "--ranks", "1"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert "syncline attach: --ranks is for a finished job" in r.stderr


@pytest.mark.parametrize("spec,why", [
    ("5-3", "'5-3': the range ends before it starts"),
    ("x", "'x': not a rank"),
    ("1,,2", "empty item"),
    ("", "no ranks given"),
    ("-1", "'-1': not a rank"),
    ("99999999999", "'99999999999': not a rank"),
])
def test_bad_specs(job, bin_dir, spec, why):
    r = subprocess.run([str(bin_dir / "syncline"), "stats", str(job), "--ranks", spec],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert f"syncline stats: --ranks: {why}" in r.stderr
    with pytest.raises(ValueError, match="ranks: " + why.replace("(", r"\(")[:12]):
        syncline.load_timeline(job, ranks=spec)


def test_python_rank_lists(job):
    tl = syncline.load_timeline(job, ranks=[6, 2, 2])
    assert [w.rank for w in tl.workers] == [2, 6]
    with pytest.raises(ValueError, match="ranks: -1 is not a rank"):
        syncline.load_timeline(job, ranks=[-1])
    with pytest.raises(TypeError, match="ranks: expected ints"):
        syncline.load_timeline(job, ranks=["1"])
    with pytest.raises(ValueError, match="empty"):
        syncline.load_timeline(job, ranks=[])
    with pytest.raises(syncline.LoadError, match="no log of ranks 100"):
        syncline.load_timeline(job, ranks="100")
