"""Timeline.columns() / to_pandas() / counter_columns() / link_columns(): numpy columns over a
real simulated job (syncline-sim, 16 workers) that agree exactly with `syncline stats --json`
(counts and total durations per name and rank) and with the per-event API."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

import syncline

np = pytest.importorskip("numpy")

BIN = pathlib.Path(os.environ.get("SYNCLINE_BIN", ""))


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    out = tmp_path_factory.mktemp("columns") / "job"
    subprocess.run([str(BIN / "syncline-sim"), "--seed", "3", "--workers", "16", "--duration-s",
                    "2", "--iteration-ms", "5", "--per-host", "4", "--regime", "datacenter",
                    "--out", str(out)], check=True, capture_output=True)
    return out


def cli_stats(job, *extra):
    r = subprocess.run([str(BIN / "syncline"), "stats", str(job), "--json", "--quiet", *extra],
                       check=True, capture_output=True, text=True)
    doc = json.loads(r.stdout)
    rows = {}
    for row in doc["events"]:
        rows[(row["name"], row["rank"])] = (row["count"], row["total_ns"])
    return rows


def column_stats(cols, complete):
    """(name, rank or None) -> (count, total) from the columns, over the `complete` rows."""
    names = cols["names"]
    dur = (cols["end_ns"] - cols["start_ns"])[complete]
    name_id = cols["name_id"][complete]
    rank = cols["rank"][complete]
    out = {}
    for nid in np.unique(name_id):
        sel = name_id == nid
        out[(names[nid], None)] = (int(sel.sum()), int(dur[sel].sum()))
        for r in np.unique(rank[sel]):
            s2 = sel & (rank == r)
            out[(names[nid], int(r))] = (int(s2.sum()), int(dur[s2].sum()))
    return out


def complete_mask(cols):
    # Stats counts complete intervals: not open, not instants (flags bits 1 and 4).
    return (cols["flags"] & (1 | 4)) == 0


@pytest.mark.parametrize("clock", ["corrected", "raw"])
def test_columns_agree_with_stats_json(job, clock):
    tl = syncline.load_timeline(job, clock=clock)
    cols = tl.columns()
    n = len(tl)
    assert n > 10000
    for key in ("worker", "rank", "restart", "tid", "name_id", "depth", "parent", "start_ns",
                "end_ns", "local_start_ns", "local_end_ns", "status", "flags", "bound_ns"):
        assert len(cols[key]) == n, key
    for key in ("start_ns", "end_ns", "local_start_ns", "local_end_ns", "bound_ns", "tid",
                "parent"):
        assert cols[key].dtype == np.int64, key
    expected = cli_stats(job, *(["--raw"] if clock == "raw" else []))
    got = column_stats(cols, complete_mask(cols))
    assert got == expected
    assert set(np.unique(cols["rank"])) == set(range(16))
    assert cols["start_ns"].min() == tl.begin_ns
    assert cols["end_ns"].max() == tl.end_ns


def test_large_columns_exact_writable_and_kept_alive(tmp_path):
    """Columns of 2 MiB and more live in their own huge-page mappings (pycolumns.cpp): on a job
    of 417,600 events (its int64 columns 3.2 MiB) they agree with `stats --json` and with the
    event objects, are writable numpy arrays, and a slice outlives the dict it came from."""
    big = tmp_path / "big"
    subprocess.run([str(BIN / "syncline-sim"), "--seed", "5", "--workers", "16", "--duration-s",
                    "26", "--iteration-ms", "5", "--per-host", "4", "--regime", "datacenter",
                    "--out", str(big)], check=True, capture_output=True)
    tl = syncline.load_timeline(big)
    cols = tl.columns()
    assert len(tl) > 2 * 2**20 // 8  # the int64 columns take the mapped path
    assert column_stats(cols, complete_mask(cols)) == cli_stats(big)
    last = tl.workers[-1]  # its rows lie at the end of the columns, past the first 2 MiB
    rows = np.flatnonzero(cols["worker"] == len(tl.workers) - 1)
    assert rows.min() * 8 > 2 * 2**20
    by_key = {(int(t), int(ls), int(d)): int(i) for t, ls, d, i in zip(
        cols["tid"][rows], cols["local_start_ns"][rows], cols["depth"][rows], rows)}
    events = last.events
    assert len(events) == len(rows)
    for e in events[::101]:
        i = by_key[(e.tid, e.local_start_ns, e.depth)]
        assert (cols["start_ns"][i], cols["end_ns"][i]) == (e.start_ns, e.end_ns)
    start = cols["start_ns"]
    assert start.flags.writeable and start.dtype == np.int64
    tail = start[-1000:]
    expected = tail.copy()
    del cols, start
    import gc
    gc.collect()
    again = tl.columns(["start_ns"])  # new mappings, likely where the old ones were
    assert (tail == expected).all() and (again["start_ns"][-1000:] == expected).all()


def test_columns_match_the_event_objects(job):
    tl = syncline.load_timeline(job)
    cols = tl.columns()
    names = cols["names"]
    rows = {}
    for i in range(len(tl)):
        key = (int(cols["rank"][i]), int(cols["tid"][i]), int(cols["local_start_ns"][i]),
               names[cols["name_id"][i]], int(cols["depth"][i]))
        rows[key] = i
    assert len(rows) == len(tl)
    workers = {w.rank: w for w in tl.workers}
    for e in tl.events[::97]:
        i = rows[(e.rank, e.tid, e.local_start_ns, e.name, e.depth)]
        assert cols["start_ns"][i] == e.start_ns
        assert cols["end_ns"][i] == e.end_ns
        assert cols["local_end_ns"][i] == e.local_end_ns
        assert cols["status_names"][cols["status"][i]] == e.status
        assert cols["bound_ns"][i] == workers[e.rank].clock["bound_ns"]
        p = cols["parent"][i]
        if e.depth == 0:
            assert p == -1
        else:
            assert 0 <= p < i and cols["depth"][p] == e.depth - 1
            assert cols["start_ns"][p] <= e.start_ns and cols["end_ns"][p] >= e.end_ns
            assert cols["rank"][p] == e.rank and cols["tid"][p] == e.tid


def test_columns_fields_and_errors(job):
    tl = syncline.load_timeline(job)
    cols = tl.columns(["start_ns", "rank"])
    assert set(cols) == {"start_ns", "rank"}
    assert np.array_equal(cols["start_ns"], tl.columns()["start_ns"])
    with pytest.raises(ValueError, match="unknown field 'nope'"):
        tl.columns(["nope"])
    # The arrays own their memory: they outlive the Timeline.
    del tl
    assert cols["rank"].sum() > 0


def test_to_pandas_agrees_with_stats_json(job):
    pd = pytest.importorskip("pandas")
    tl = syncline.load_timeline(job)
    df = tl.to_pandas()
    assert len(df) == len(tl)
    assert isinstance(df["name"].dtype, pd.CategoricalDtype)
    assert isinstance(df["status"].dtype, pd.CategoricalDtype)
    done = df[(df["flags"] & 5) == 0]
    done = done.assign(dur=done["end_ns"] - done["start_ns"])
    g = done.groupby(["name", "rank"], observed=True)["dur"].agg(["count", "sum"])
    per_rank = {(n, int(r)): (int(c), int(s)) for (n, r), (c, s) in g.iterrows()}
    expected = cli_stats(job)
    assert per_rank == {k: v for k, v in expected.items() if k[1] is not None}
    g = done.groupby("name", observed=True)["dur"].agg(["count", "sum"])
    assert {(n, None): (int(c), int(s)) for n, (c, s) in g.iterrows()} == \
        {k: v for k, v in expected.items() if k[1] is None}
    small = tl.to_pandas(fields=["name", "start_ns"])
    assert list(small.columns) == ["name", "start_ns"]


def test_counter_and_link_columns(tmp_path):
    # A log with counters and messages, written by the recorder (two ranks).
    script = tmp_path / "w.py"
    script.write_text(
        "import sys, syncline\n"
        "r = int(sys.argv[1])\n"
        "c = syncline.FileTimerClient(config_path='none.json', "
        "log_path=f'timer_events.{r}.log')\n"
        "for i in range(5):\n"
        "    c.start_event('step'); c.counter('loss', 1.0 / (i + 1)); c.end_event('step')\n"
        "    c.message('send' if r == 0 else 'recv', 1 - r, f'm{i}')\n"
        "c.close()\n")
    for r in (0, 1):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE="2")
        subprocess.run([sys.executable, str(script), str(r)], cwd=tmp_path, check=True, env=env)
    tl = syncline.load_timeline(tmp_path)
    cc = tl.counter_columns()
    assert cc["names"] == ["loss"]
    assert len(cc["value"]) == 10
    assert sorted(cc["value"][cc["rank"] == 1].tolist()) == sorted(1.0 / (i + 1) for i in range(5))
    per_worker = {w.rank: w for w in tl.workers}
    for r in (0, 1):
        series = per_worker[r].counters[0]
        assert cc["time_ns"][cc["rank"] == r].tolist() == list(series["times_ns"])
    lc = tl.link_columns()
    assert set(lc) >= {"from_rank", "to_rank", "from_ns", "to_ns", "kind", "kind_names"}
    assert len(lc["from_ns"]) == 5  # rank 0's five sends to rank 1
    assert lc["from_rank"].tolist() == [0] * 5 and lc["to_rank"].tolist() == [1] * 5
    assert lc["kind_names"][lc["kind"][0]] == "message"
    assert (lc["to_ns"] >= lc["from_ns"]).all()  # causality holds on the corrected clock


SQL_STATS = ("SELECT name, rank, count(*) AS n, sum(dur_ns) AS total FROM events "
             "WHERE status != 'open' AND kind != 'instant' GROUP BY name, rank "
             "UNION ALL SELECT name, NULL, count(*), sum(dur_ns) FROM events "
             "WHERE status != 'open' AND kind != 'instant' GROUP BY name")


def test_export_sqlite_agrees_with_stats_json(job, tmp_path):
    import sqlite3
    db = tmp_path / "job.db"
    subprocess.run([str(BIN / "syncline"), "export", str(job), "--sqlite", str(db), "--quiet"],
                   check=True)
    con = sqlite3.connect(db)
    got = {(n, r): (c, t) for n, r, c, t in con.execute(SQL_STATS)}
    assert got == cli_stats(job)
    tl = syncline.load_timeline(job)
    assert con.execute("SELECT count(*) FROM events").fetchone()[0] == len(tl)
    assert con.execute("SELECT value FROM meta WHERE key='format'").fetchone()[0] == \
        "syncline-sqlite/2"
    # workers carry identity and the clock; events' parent_id points at the enclosing event.
    rows = con.execute("SELECT rank, host, clock_method, clock_bound_ns FROM workers "
                       "ORDER BY id").fetchall()
    assert [(w.rank, w.host, w.clock["method"], w.clock["bound_ns"]) for w in tl.workers] == rows
    bad = con.execute("SELECT count(*) FROM events c JOIN events p ON c.parent_id = p.id "
                      "WHERE p.depth != c.depth - 1 OR p.start_ns > c.start_ns "
                      "OR p.tid != c.tid OR p.rank != c.rank").fetchone()[0]
    assert bad == 0
    assert con.execute("SELECT count(*) FROM events WHERE depth > 0 AND parent_id IS NULL"
                       ).fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM steps").fetchone()[0] > 10
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"events_name", "events_start"} <= indexes
    # The same through `syncline query` (CSV and JSON) and Timeline.query.
    r = subprocess.run([str(BIN / "syncline"), "query", str(job), SQL_STATS, "--json", "-q"],
                       check=True, capture_output=True, text=True)
    doc = json.loads(r.stdout)
    assert doc["columns"] == ["name", "rank", "n", "total"]
    assert {(n, rk): (c, t) for n, rk, c, t in doc["rows"]} == got
    r = subprocess.run([str(BIN / "syncline"), "query", str(job), SQL_STATS, "--csv", "-q"],
                       check=True, capture_output=True, text=True)
    lines = r.stdout.splitlines()
    assert lines[0] == "name,rank,n,total" and len(lines) == len(got) + 1
    res = tl.query(SQL_STATS)
    try:
        import pandas  # noqa: F401
        pairs = {(n, None if rk is None or rk != rk else int(rk)): (int(c), int(t))
                 for n, rk, c, t in res.itertuples(index=False)}
    except ImportError:
        pairs = {(n, None if rk is None else int(rk)): (int(c), int(t))
                 for n, rk, c, t in zip(res["name"], res["rank"], res["n"], res["total"])}
    assert pairs == got


def test_query_errors(job):
    r = subprocess.run([str(BIN / "syncline"), "query", str(job), "SELECT nope FROM events", "-q"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no such column: nope" in r.stderr
    r = subprocess.run([str(BIN / "syncline"), "query", str(job), "DELETE FROM events", "-q"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "readonly" in r.stderr
