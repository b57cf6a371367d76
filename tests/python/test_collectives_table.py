"""The SQLite `collectives` table (`syncline export --sqlite`, `syncline query`): one row per
(instance, worker) of the diagnosis's collective instances. Checked against `syncline diagnose
--json` on a job written by three real recorder processes (all_reduce keyed by process group,
barrier by occurrence) and on a simulated 16-worker job: instance counts, decided counts, per rank
the waits, instances, times last and blame, the undecided instances. Costs about 3 s."""
import json
import pathlib
import sqlite3
import subprocess
import sys

import pytest

from conftest import python_env

WORKER = str(pathlib.Path(__file__).with_name("collective_worker.py"))
STEPS = 30


@pytest.fixture(scope="module")
def recorded_job(tmp_path_factory):
    job = tmp_path_factory.mktemp("collectives")
    procs = [subprocess.Popen([sys.executable, WORKER, str(STEPS)], cwd=job,
                              env=python_env(RANK=r, WORLD_SIZE=3), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for r in range(3)]
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    return job


def export(bin_dir, job, db):
    subprocess.run([str(bin_dir / "syncline"), "export", str(job), "--sqlite", str(db), "-q"],
                   check=True, capture_output=True, timeout=120)
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return con


def diagnose(bin_dir, job):
    r = subprocess.run([str(bin_dir / "syncline"), "diagnose", str(job), "--json", "-q"],
                       check=True, capture_output=True, text=True, timeout=120)
    return json.loads(r.stdout)


def check_against_diagnosis(con, d):
    rows = [dict(r) for r in con.execute("SELECT * FROM collectives ORDER BY id")]
    assert rows, "no collective rows"
    by_instance = {}
    for r in rows:
        by_instance.setdefault(r["instance"], []).append(r)
    assert sorted(by_instance) == list(range(len(by_instance)))
    assert len(by_instance) == d["collectives"]["instances"]
    assert sum(rs[0]["decided"] for rs in by_instance.values()) == d["collectives"]["decided"]
    assert {r["name"] for r in rows} <= set(d["collectives"]["names"])
    per_rank = {}
    undecided = []
    for inst, rs in by_instance.items():
        assert len(rs) == rs[0]["participants"] >= 2
        assert len({r["worker_id"] for r in rs}) == len(rs)
        last = [r for r in rs if r["last"]]
        assert len(last) == 1
        last = last[0]
        second = max(r["arrival_ns"] for r in rs if r is not last)
        assert last["arrival_ns"] == max(r["arrival_ns"] for r in rs)
        for r in rs:
            assert r["wait_ns"] == last["arrival_ns"] - r["arrival_ns"]
            assert r["end_ns"] >= r["arrival_ns"]
            p = per_rank.setdefault(r["rank"], {"wait_ns": 0, "instances": 0, "times_last": 0,
                                                 "blame_ns": 0})
            p["wait_ns"] += r["wait_ns"]
            p["instances"] += 1
        if rs[0]["decided"]:
            per_rank[last["rank"]]["times_last"] += 1
            per_rank[last["rank"]]["blame_ns"] += (len(rs) - 1) * (last["arrival_ns"] - second)
        else:
            undecided.append((rs[0]["name"], rs[0]["generation"], rs[0]["sequence"],
                              last["rank"], last["arrival_ns"] - second))
    want = {r["rank"]: {k: r[k] for k in ("wait_ns", "instances", "times_last", "blame_ns")}
            for r in d["ranks"] if r["instances"]}
    assert per_rank == want
    listed = [(u["name"], u["generation"], u["index"], u["last_rank"], u["lead_ns"])
              for u in d["undecided"]["instances"]]
    assert len(undecided) == d["undecided"]["count"]
    if len(undecided) <= 100:  # the JSON lists at most 100
        assert sorted(undecided) == sorted(listed)
    # Each row's event is the collective event itself, on the row's worker.
    bad = con.execute("SELECT count(*) FROM collectives c JOIN events e ON e.id = c.event_id "
                      "WHERE e.name != c.name OR e.worker_id != c.worker_id "
                      "OR e.start_ns != c.arrival_ns OR e.end_ns != c.end_ns").fetchone()[0]
    assert bad == 0
    return by_instance


def test_recorded_job_collectives_agree_with_diagnose(bin_dir, recorded_job, tmp_path):
    con = export(bin_dir, recorded_job, tmp_path / "job.db")
    d = diagnose(bin_dir, recorded_job)
    by_instance = check_against_diagnosis(con, d)
    assert con.execute("SELECT value FROM meta WHERE key='format'").fetchone()[0] == \
        "syncline-sqlite/2"
    # all_reduce is keyed by its process group and sequence number, barrier by occurrence.
    groups = {(r["name"], r["process_group"]) for rs in by_instance.values() for r in rs}
    assert groups == {("all_reduce", "dp"), ("barrier", None)}
    seqs = sorted(rs[0]["sequence"] for rs in by_instance.values() if rs[0]["name"] == "all_reduce")
    assert seqs == list(range(STEPS))
    assert all(len(rs) == 3 for rs in by_instance.values())
    # Rank 2 computes 3 ms longer: it is last at (nearly) every all_reduce.
    last2 = con.execute("SELECT count(*) FROM collectives WHERE name='all_reduce' AND last=1 "
                        "AND rank=2").fetchone()[0]
    assert last2 >= STEPS * 0.8
    # The same table through `syncline query`.
    sql = ("SELECT rank, count(*) AS n, sum(wait_ns) AS wait FROM collectives "
           "GROUP BY rank ORDER BY rank")
    r = subprocess.run([str(bin_dir / "syncline"), "query", str(recorded_job), sql, "--json",
                        "-q"], check=True, capture_output=True, text=True, timeout=120)
    got = json.loads(r.stdout)
    assert got["columns"] == ["rank", "n", "wait"]
    assert got["rows"] == [[x["rank"], x["instances"], x["wait_ns"]] for x in d["ranks"]]


def test_collective_columns_are_the_table(bin_dir, recorded_job, tmp_path):
    np = pytest.importorskip("numpy")
    import syncline

    con = export(bin_dir, recorded_job, tmp_path / "job.db")
    tl = syncline.load_timeline(recorded_job)
    cols = tl.collective_columns()
    ev = tl.columns(["start_ns", "end_ns", "name_id"])
    table = [dict(r) for r in con.execute("SELECT * FROM collectives ORDER BY id")]
    assert len(cols["instance"]) == len(table) > 0
    for i, r in enumerate(table):
        got = {k: int(cols[k][i]) for k in ("instance", "rank", "restart", "sequence",
                                              "generation", "participants", "decided",
                                              "arrival_ns", "end_ns", "wait_ns", "last")}
        got["worker_id"] = int(cols["worker"][i])
        got["event_id"] = int(cols["event"][i])
        got["name"] = cols["names"][cols["name_id"][i]]
        assert got == {k: r[k] for k in got}
        e = int(cols["event"][i])  # the row of columns(): the collective event itself
        assert (ev["start_ns"][e], ev["end_ns"][e]) == (r["arrival_ns"], r["end_ns"])
        assert ev["names"][ev["name_id"][e]] == r["name"]
    assert cols["decided"].dtype == np.bool_ and cols["wait_ns"].dtype == np.int64


def test_simulated_job_collectives_agree_with_diagnose(bin_dir, tmp_path):
    job = tmp_path / "sim"
    subprocess.run([str(bin_dir / "syncline-sim"), "--seed", "5", "--workers", "16",
                    "--duration-s", "2", "--iteration-ms", "5", "--per-host", "4",
                    "--slow-rank", "9", "--slow-factor", "1.3", "--out", str(job)],
                   check=True, capture_output=True, timeout=120)
    con = export(bin_dir, job, tmp_path / "sim.db")
    check_against_diagnosis(con, diagnose(bin_dir, job))
