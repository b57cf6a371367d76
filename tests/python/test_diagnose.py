"""`syncline diagnose` and Timeline.diagnose() on simulated jobs with one slowed rank (real logs
written by syncline-sim, real clock correction): the slowed rank is the top culprit, the ranks
that waited are victims and never stragglers, and the what-if step p50 is within 10 % of the
same seed's run without the slow rank; a run without one blames nobody. The CLI's JSON and the
Python dict are the same document."""
import json
import subprocess

import pytest

import syncline


def _sim(bin_dir, out, workers, per_host, seed, slow_rank=None, duration_s=12):
    cmd = [str(bin_dir / "syncline-sim"), "--out", str(out), "--workers", str(workers),
           "--per-host", str(per_host), "--duration-s", str(duration_s), "--seed", str(seed)]
    if slow_rank is not None:
        cmd += ["--slow-rank", str(slow_rank), "--slow-factor", "1.3"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return out


def _diagnose(bin_dir, path, *extra):
    r = subprocess.run([str(bin_dir / "syncline"), "diagnose", "-q", "--json", str(path), *extra],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("workers,per_host,slow,seed,duration", [
    (16, 1, 5, 11, 12), (16, 8, 12, 12, 12), (1024, 8, 700, 13, 3)])
def test_slowed_rank_is_the_culprit(tmp_path, bin_dir, workers, per_host, slow, seed, duration):
    slowed = _diagnose(bin_dir, _sim(bin_dir, tmp_path / "slow", workers, per_host, seed, slow,
                                     duration))
    baseline = _diagnose(bin_dir, _sim(bin_dir, tmp_path / "base", workers, per_host, seed, None,
                                       duration))
    assert slowed["steps"]["name"] == "step" and slowed["steps"]["count"] >= 20
    culprits = slowed["culprits"]
    assert culprits and culprits[0]["rank"] == slow, culprits[:3]
    top = culprits[0]
    assert top["times_last"] >= 0.9 * slowed["collectives"]["instances"]
    assert top["blame_ns"] > 0 and top["saved_ns_per_step"] > 0
    # What fixing it would buy: the step p50 of the run that never had the slow rank.
    want = baseline["steps"]["p50_ns"]
    assert abs(top["what_if_step_p50_ns"] - want) <= 0.10 * want, (top, want)
    # The ranks that waited are victims, not culprits.
    victims = {v["rank"] for v in slowed["victims"]}
    assert slow not in victims and len(victims) == workers - 1
    # No slow rank: nobody is blamed as a culprit.
    assert baseline["culprits"] == []
    assert baseline["steps"]["p50_ns"] < slowed["steps"]["p50_ns"]


def test_python_dict_is_the_cli_document(tmp_path, bin_dir):
    job = _sim(bin_dir, tmp_path / "job", 8, 4, 21, 3, duration_s=6)
    cli = _diagnose(bin_dir, job)
    tl = syncline.load_timeline(str(job))
    assert tl.diagnose() == cli
    assert tl.diagnose(step="step") == cli
    ranged = tl.diagnose(range=(0, 2_000_000_000))
    assert ranged == _diagnose(bin_dir, job, "--range", "0:2s")
    assert 0 < ranged["collectives"]["instances"] < cli["collectives"]["instances"]
    with pytest.raises(ValueError):
        tl.diagnose(range=(5, 1))


def test_stats_never_calls_a_waiting_rank_a_straggler(tmp_path, bin_dir):
    job = _sim(bin_dir, tmp_path / "job", 8, 1, 31, 6, duration_s=8)
    r = subprocess.run([str(bin_dir / "syncline"), "stats", "-q", str(job)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    text = r.stdout
    stragglers = text.split("stragglers (compute)")[1].split("waits (collectives)")[0]
    rows = {line.split()[0]: line for line in stragglers.splitlines()[2:] if line.strip()}
    assert "allreduce" not in rows  # a wait: judged by blame below, not by mean
    assert "6 (" in rows["forward"] and "6 (" in rows["backward"]
    waits = text.split("waits (collectives)")[1]
    assert "blame by rank: 6 (" in waits
    assert "waited longest (victims): 6 " not in waits
