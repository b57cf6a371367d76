"""syncline.compare() / Timeline.compare(): the same document as `syncline compare --json` on
two simulated runs (one with a slowed rank), with and without --fail-if; its notebook HTML
parses and names the name of largest impact. Costs about 4 s (two 8-worker simulated jobs)."""
import html.parser
import json
import subprocess

import pytest

import syncline


def sim(bin_dir, out, slow=None):
    cmd = [str(bin_dir / "syncline-sim"), "--seed", "7", "--workers", "8", "--per-host", "4",
           "--duration-s", "2", "--iteration-ms", "5", "--out", str(out)]
    if slow is not None:
        cmd += ["--slow-rank", str(slow), "--slow-factor", "1.3"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory, bin_dir):
    d = tmp_path_factory.mktemp("compare")
    return str(sim(bin_dir, d / "a")), str(sim(bin_dir, d / "b", slow=3))


def cli(bin_dir, a, b, *extra, status=0):
    r = subprocess.run([str(bin_dir / "syncline"), "compare", a, b, "--json", "-q", *extra],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == status, r.stderr
    return json.loads(r.stdout)


class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.tags, self._in = [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in = tag in ("td", "th")

    def handle_endtag(self, tag):
        self._in = False

    def handle_data(self, data):
        if self._in:
            self.cells.append(data)


def test_compare_equals_the_cli_json(bin_dir, runs):
    a, b = runs
    want = cli(bin_dir, a, b)
    got = syncline.compare(a, b)
    assert isinstance(got, syncline.Comparison) and got == want
    ta, tb = syncline.load_timeline(a), syncline.load_timeline(b)
    assert ta.compare(tb) == want
    assert want["summary"]["delta_mean_ns"] > 0  # B has a slowed rank
    for row in want["deltas"]:
        if row["in"] == "both":
            assert row["impact_ns"] == row["delta"]["mean_ns"] * min(row["a"]["count"],
                                                                     row["b"]["count"])
    # Anchored and gated: the same as the CLI's, exit status 3 <-> gate failed.
    gated = cli(bin_dir, a, b, "--anchor", "step:3", "--fail-if", "step:mean>+5%",
                "--fail-if", "step:p50>+1000%", status=3)
    got = syncline.compare(a, b, anchor="step:3", fail_if=["step:mean>+5%", "step:p50>+1000%"])
    assert got == gated and got["gate"]["failed"]
    assert [c["holds"] for c in got["gate"]["conditions"]] == [True, False]
    with pytest.raises(ValueError, match="no complete event named 'nope'"):
        syncline.compare(ta, tb, fail_if=["nope:mean>+5%"])
    with pytest.raises(ValueError, match="fail_if"):
        ta.compare(tb, fail_if=["step:median>5%"])
    with pytest.raises(ValueError, match="clock modes"):
        ta.compare(syncline.load_timeline(b, clock="raw"))


def test_compare_html_names_the_top_delta(runs):
    got = syncline.compare(*runs, fail_if=["step:mean>+5%"])
    page = got._repr_html_()
    p = Cells()
    p.feed(page)
    p.close()
    assert "script" not in p.tags and "link" not in p.tags and "img" not in p.tags
    top = max((r for r in got["deltas"] if r["rank"] is None), key=lambda r: abs(r["impact_ns"]))
    assert p.cells[p.cells.index("name") + 6 + 1] == top["name"]  # first body row, after head
    assert "FAILED" in page and "per step (ms)" in p.cells
