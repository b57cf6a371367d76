"""What a notebook shows: Timeline._repr_html_ (the job's summary cards, the top culprit, a step
map as inline SVG) and Timeline.stats()'s _repr_html_ (a table), on a simulated job with one
slowed rank (syncline-sim, real logs). The HTML names the worker count, ranks, hosts and the
slowed rank, has one step-map row per worker, escapes names, and loads nothing from anywhere."""
import re
import subprocess

import syncline


def _sim(bin_dir, out, slow_rank=None):
    cmd = [str(bin_dir / "syncline-sim"), "--out", str(out), "--workers", "8", "--per-host", "4",
           "--duration-s", "4", "--seed", "21"]
    if slow_rank is not None:
        cmd += ["--slow-rank", str(slow_rank), "--slow-factor", "1.3"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return out


def test_timeline_repr_html(tmp_path, bin_dir):
    tl = syncline.load_timeline(str(_sim(bin_dir, tmp_path / "job", slow_rank=3)))
    h = tl._repr_html_()
    assert "<b>8</b><span>workers</span>" in h
    assert "<b>8</b><span>ranks</span>" in h
    assert "<b>2</b><span>hosts</span>" in h
    assert "<b>%s</b><span>events</span>" % format(len(tl), ",") in h
    top = tl.diagnose()["culprits"][0]["rank"]
    assert top == 3
    assert "Rank <b>3</b> holds the job back" in h
    # The step map: one labelled row per worker, one cell per step and worker.
    assert h.count("<svg") == 1
    steps = tl.diagnose()["steps"]["count"]
    assert h.count("<rect x=") == 8 * min(steps, 120)
    for w in tl.workers:
        assert ">rank %d · " % w.rank in h
    # Self-contained: no script, no URL.
    assert "<script" not in h and "http" not in h and "src=" not in h


def test_timeline_repr_html_without_culprit(tmp_path, bin_dir):
    tl = syncline.load_timeline(str(_sim(bin_dir, tmp_path / "base")))
    h = tl._repr_html_()
    assert "holds the job back" not in h
    assert re.search(r"\d+ steps of <b>step</b>, p50 [0-9.]+ ms; no culprit", h)


def test_stats_repr_html(tmp_path, bin_dir):
    tl = syncline.load_timeline(str(_sim(bin_dir, tmp_path / "job", slow_rank=3)))
    rows = tl.stats()
    assert isinstance(rows, list) and rows == list(rows)  # still the list of dicts
    h = rows._repr_html_()
    every = sorted((r for r in rows if r["rank"] is None), key=lambda r: -r["total_ns"])
    assert "%d names over all ranks, 8 ranks" % len(every) in h
    first = every[0]
    assert ('<tr><td style="text-align:left">%s</td><td style="text-align:right">%d</td>'
            '<td style="text-align:right">%.3f</td>' % (first["name"], first["count"],
                                                         first["total_ns"] / 1e6)) in h
    assert h.index(">%s<" % every[0]["name"]) < h.index(">%s<" % every[-1]["name"])


def test_repr_html_escapes_names(tmp_path, bin_dir):
    d = tmp_path / "evil"
    d.mkdir()
    head = ('{"t":"header","format":"syncline","version":1,"rank":0,"restart":0,'
            '"host":"<b>h</b>","boot_id":"b","pid":7,"clock":"monotonic_raw","anchor":'
            '{"mono_ns":0,"wall_ns":1700000000000000000,"spread_ns":1},"config":null,'
            '"start_ns":0}\n')
    body = "".join('{"t":"B","ts":%d,"tid":1,"name":"<i>x</i>"}\n{"t":"E","ts":%d,"tid":1,'
                   '"name":"<i>x</i>"}\n' % (1000 * i, 1000 * i + 500) for i in range(1, 4))
    (d / "timer_events.0.log").write_text(head + body)
    tl = syncline.load_timeline(str(d))
    assert "<b>h</b>" not in tl._repr_html_() and "&lt;b&gt;h&lt;/b&gt;" in tl._repr_html_()
    h = tl.stats()._repr_html_()
    assert "<i>x</i>" not in h and "&lt;i&gt;x&lt;/i&gt;" in h
