"""get_timeline()/load_timeline(), the client's global time and `syncline check`/`stats` across
hosts, on the multi-host testbed (scripts/testbed/): four emulated hosts, each its own network,
hostname, boot id and monotonic clock, linked through a router by asymmetric, jittery delays.
Nothing is emulated inside the recorder but, in one test, a wrong wall clock: time namespaces
cannot shift CLOCK_REALTIME, so host-c's wall clock 3 ms ahead comes from
SYNCLINE_TEST_WALL_OFFSET_NS.

Truth is what the testbed set: host k's clock reads physical time + offset_k (one oscillator:
no drift), so an event stamped `local` on host k happened at physical time local − offset_k.
A `syncline timeserver` runs on tb-a; the workers name it (tb-a:PORT) in timer_config.json. One
test adds a second server, on tb-d (a second reference clock: another boot id).

One testbed for the module (about 2 s to start and stop); each test adds 2–4 s. Needs root and
the kernel features (time namespaces, veth, NFQUEUE, a bind mount over procfs); skips, saying
which, when they are missing (conftest's `delayline` fixture), as test_testbed.py does.
"""
import contextlib
import json
import pathlib
import re
import subprocess
import sys

import pytest

import syncline
from conftest import import_testbed, python_env, read_log

testbed = import_testbed()
WORKER = str(pathlib.Path(__file__).with_name("worker_script.py"))
# tb-b: 3.2 ms ahead of tb-a, its path to tb-a 260 µs, back 130 µs (floor +65 µs); tb-c: 5 ms
# behind, 160 / 140 µs (floor +10 µs); tb-d: 8.4 s ahead (its workers sync with its own server).
HOSTS = [
    dict(name="tb-a", offset_ns=1_500_000_123, up_ns=50_000, down_ns=60_000,
         up_jitter_ns=10_000, down_jitter_ns=10_000),
    dict(name="tb-b", offset_ns=1_503_200_123, up_ns=200_000, down_ns=80_000,
         up_jitter_ns=20_000, down_jitter_ns=10_000),
    dict(name="tb-c", offset_ns=1_495_000_456, up_ns=100_000, down_ns=90_000,
         up_jitter_ns=10_000, down_jitter_ns=10_000),
    dict(name="tb-d", offset_ns=9_876_543_210, up_ns=150_000, down_ns=100_000,
         up_jitter_ns=10_000, down_jitter_ns=10_000),
]
OFFSET = {h["name"]: h["offset_ns"] for h in HOSTS}


@pytest.fixture(scope="module")
def bed(delayline, tmp_path_factory):
    hosts = [testbed.Host(**h) for h in HOSTS]
    with testbed.Testbed(hosts, delayline, workdir=tmp_path_factory.mktemp("testbed")) as tb:
        yield tb


@contextlib.contextmanager
def timeserver_on(bed, bin_dir, host, *args):
    """A real `syncline timeserver` on `host`; yields (its address as the workers name it, its
    boot hash)."""
    p = bed.popen(host, [bin_dir / "syncline", "timeserver", "--port", "0", "--bind", "0.0.0.0",
                         *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        m = re.search(r"port (\d+) \(UDP\), boot hash ([0-9a-f]{16})", line)
        assert m, f"timeserver did not start: {line!r} {p.stderr.read() if not line else ''}"
        yield f"{host}:{m.group(1)}", m.group(2)
    finally:
        p.terminate()
        p.communicate(timeout=10)


@pytest.fixture
def server(bed, bin_dir):
    """A real `syncline timeserver` on tb-a; yields its address as the workers name it."""
    with timeserver_on(bed, bin_dir, "tb-a") as (address, _):
        yield address


def run_workers(bed, workdir, placement, args=("10", "0.05"), **env):
    """Runs worker_script.py as rank r on host h for every (r, h) of placement, at once; extra
    env per rank: env[r] (a dict)."""
    procs = []
    for rank, host in placement:
        procs.append(bed.popen(host, [sys.executable, WORKER, *args], cwd=workdir,
                               env=python_env(RANK=rank, WORLD_SIZE=len(placement),
                                              **env.get(f"rank{rank}", {})),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, out + err


def true_ns(e):
    """Physical time of an event's start: its host's offset undone."""
    return e.local_start_ns - OFFSET[e.host]


def sync_config(workdir, server):
    (workdir / "timer_config.json").write_text(json.dumps({
        "sync": {"server": server, "interval_s": 0.2, "burst_size": 8}}))


def test_time_server_correction_across_hosts(bed, server, workdir):
    """Two workers on two hosts (tb-b's clock 3.2 ms ahead, its path asymmetric), one time server
    on tb-a: each header names its host and boot id and carries no emulated skew, and the
    corrected timeline agrees with the truth to within the engine's own bounds."""
    sync_config(workdir, server)
    run_workers(bed, workdir, [(0, "tb-a"), (1, "tb-b")])
    assert sum(r["t"] == "sync" for r in read_log(workdir / "timer_events.1.log")) >= 8
    tl = syncline.load_timeline(workdir)
    w0, w1 = tl.workers
    assert (w0.host, w1.host) == ("tb-a", "tb-b")
    boot = {h.name: h.boot_id for h in bed.hosts}
    for w in (w0, w1):
        assert read_log(w.source_file)[0]["boot_id"] == boot[w.host]
        assert w.skew is None
        assert w.clock["method"] == "sync" and w.clock["samples"] >= 8
        assert 0 < w.clock["bound_ns"] < 5_000_000
    e0 = [e for e in tl if e.rank == 0 and e.name == "step"]
    e1 = [e for e in tl if e.rank == 1 and e.name == "step"]
    allowed = w0.clock["bound_ns"] + w1.clock["bound_ns"] + 1000
    worst = 0
    for a in e0:
        for b in e1:
            true_gap = true_ns(b) - true_ns(a)
            local_gap = b.local_start_ns - a.local_start_ns
            assert abs(local_gap - true_gap) > 3_000_000  # the raw stamps disagree by > 3 ms
            worst = max(worst, abs((b.start_ns - a.start_ns) - true_gap))
    assert worst <= allowed, f"corrected error {worst} ns > bounds {allowed} ns"


def test_wall_clocks_as_a_second_opinion(bed, server, workdir):
    """Three workers on three hosts. tb-a's and tb-b's wall clocks are exact (the machine's, as
    PTP would give); tb-c's is 3 ms ahead (the recorder's wall-clock hook: no namespace shifts
    the wall clock). The check accepts a and b and refuses c; clock="wall" places a and b by
    their wall clocks within 10 µs of the truth and keeps c on its corrected clock, with a note."""
    sync_config(workdir, server)
    run_workers(bed, workdir, [(0, "tb-a"), (1, "tb-b"), (2, "tb-c")],
                rank2={"SYNCLINE_TEST_WALL_OFFSET_NS": 3_000_000})
    tl = syncline.load_timeline(workdir)
    assert tl.clock == "corrected" and tl.mode == "corrected"
    assert [w.host for w in tl.workers] == ["tb-a", "tb-b", "tb-c"]
    verdicts = [w.clock["wall_verdict"] for w in tl.workers]
    assert verdicts == ["consistent", "consistent", "outside"], [w.clock for w in tl.workers]
    c = tl.workers[2].clock
    assert 2_900_000 < c["wall_offset_ns"] < 3_100_000 and 0 < c["wall_band_ns"] < 1_000_000
    assert "outside its sync band" in c["wall_reason"] and not c["wall_used"]
    assert "--clock wall would be refused for tb-c (rank 2)" in tl.wall_clocks

    wall = syncline.load_timeline(workdir, clock="wall")
    assert wall.clock == "wall" and wall.mode == "corrected"
    assert [w.clock["wall_used"] for w in wall.workers] == [True, True, False]
    assert any(n.startswith("--clock wall refused for host tb-c (rank 2)") for n in wall.notes)
    steps = {r: [e for e in wall if e.rank == r and e.name == "step"] for r in range(3)}
    worst = 0
    for a in steps[0]:
        for b in steps[1]:
            worst = max(worst, abs((b.start_ns - a.start_ns) - (true_ns(b) - true_ns(a))))
    assert worst <= 10_000, f"--clock wall: tb-b off by {worst} ns"
    # tb-c stays on its corrected clock: within its bounds of the truth, never 3 ms off.
    allowed = (wall.workers[2].clock["bound_ns"] + wall.workers[0].clock["bound_ns"]
               + wall.workers[0].clock["wall_band_ns"] + 1000)
    for a in steps[0]:
        for b in steps[2]:
            err = abs((b.start_ns - a.start_ns) - (true_ns(b) - true_ns(a)))
            assert err <= allowed and err < 1_000_000, (err, allowed)


GLOBAL_TIME = ("import syncline, time\n"
               "c = syncline.FileTimerClient()\n"
               "deadline = time.monotonic() + 10\n"
               "while c.global_time_ns(with_bound=True)[1] < 0 and time.monotonic() < deadline:\n"
               "    time.sleep(0.02)\n"
               "g, b = c.global_time_ns(with_bound=True)\n"
               "print(g, b, c.now_ns())\n"
               "c.close()\n")


def test_global_time_with_time_server(bed, server, workdir):
    """A client on tb-c, 5 ms behind the server's host: its global time is its local time plus
    that difference, within its bound (and the 2 ms the test allows for the reads' spacing)."""
    (workdir / "timer_config.json").write_text(json.dumps({
        "sync": {"server": server, "interval_s": 0.1}}))
    r = bed.run("tb-c", [sys.executable, "-c", GLOBAL_TIME], cwd=workdir, env=python_env(),
                timeout=60)
    assert r.returncode == 0, r.stderr
    g, bound, local = map(int, r.stdout.split())
    assert 0 <= bound < 5_000_000
    ahead = OFFSET["tb-a"] - OFFSET["tb-c"]
    assert ahead > 4_000_000  # the testbed sets tb-c 5 ms behind
    assert abs((g - local) - ahead) < bound + 2_000_000


def test_two_time_servers_are_two_references(bed, bin_dir, workdir):
    """Ranks 0-1 on tb-a sync with tb-a's time server (the config's sync.server), ranks 2-3 on
    tb-d with tb-d's (SYNCLINE_TIME_SERVER): two reference clocks, the two hosts' real boot ids.
    Two servers' clocks are unrelated, so the job has no one corrected clock: `syncline check`
    says so (a warning, exit status 1, the clock note naming which ranks used which reference),
    and `stats --json` gives ranks 2-3 no sync-sample correction and no bound against rank 0's
    reference. tb-d's monotonic clock, 8.4 s ahead of tb-a's, is not "corrected" onto tb-a's
    reference (which would leave it 8.4 s off): ranks 2-3 keep their own wall-clock anchors,
    and the hosts share one wall clock, so their events are placed within 1 ms of the truth."""
    with timeserver_on(bed, bin_dir, "tb-a", "--token", "tst-job") as (a, hash_a), \
            timeserver_on(bed, bin_dir, "tb-d", "--token", "tst-job") as (b, hash_b):
        assert hash_a != hash_b  # two boot ids: two reference clocks
        (workdir / "timer_config.json").write_text(json.dumps({
            "sync": {"server": a, "burst_size": 8, "interval_s": 0.1, "timeout_ms": 100,
                     "token": "tst-job"}}))
        other = {"SYNCLINE_TIME_SERVER": b}
        run_workers(bed, workdir, [(0, "tb-a"), (1, "tb-a"), (2, "tb-d"), (3, "tb-d")],
                    rank2=other, rank3=other)
    boot = {h.name: h.boot_id for h in bed.hosts}
    for r in range(4):
        records = read_log(workdir / f"timer_events.{r}.log")
        host = "tb-a" if r < 2 else "tb-d"
        assert (records[0]["host"], records[0]["boot_id"]) == (host, boot[host])
        refs = {x["ref"] for x in records if x["t"] == "sync"}
        assert refs == {f"{a}@{hash_a}" if r < 2 else f"{b}@{hash_b}"}, (r, refs)

    # check: the clock note names both references and the ranks of each; a warning; status 1.
    check = subprocess.run([bin_dir / "syncline", "check", workdir], capture_output=True,
                           text=True, timeout=60)
    out = check.stdout
    print(out)
    assert check.returncode == 1, out + check.stderr
    note = re.compile(
        r"clock: workers synced to 2 unrelated reference clocks \(time servers; no shared "
        r"corrected clock\): ranks 0-1 to " + re.escape(f"{a}@") + r"[0-9a-f]{16} \(the "
        r"reference\), ranks 2-3 to " + re.escape(f"{b}@") + r"[0-9a-f]{16}; ranks 2-3 not "
        r"placed on the reference")
    assert note.search(out), out
    assert ("warning: rank(s) 2, 3 synced to another reference clock (time server) than the "
            "job's reference") in out, out
    assert "rank 2: not corrected (synced to another reference clock" in out, out

    # stats: ranks 0-1 corrected by their samples (µs bounds: each host's server is local to
    # its workers); ranks 2-3 not on that scale, so neither the method nor a bound claims they
    # are.
    stats = subprocess.run([bin_dir / "syncline", "stats", "--json", workdir],
                           capture_output=True, text=True, timeout=60)
    assert stats.returncode == 0, stats.stderr
    workers = json.loads(stats.stdout)["workers"]
    assert len(workers) == 4
    for w in workers:
        if w["rank"] < 2:
            assert w["clock"]["method"] == "sync", w
            assert 0 < w["clock"]["bound_ns"] < 1_000_000, w
        else:
            assert w["clock"]["method"] == "none", w
            assert w["clock"]["bound_ns"] == 0, w  # none: no bound against the reference

    # What only real hosts show: tb-d's clock offset is kept out of the correction. The raw
    # stamps of tb-a and tb-d disagree by 8.4 s; the timeline places tb-d's events by its wall
    # clock, within 1 ms of the truth.
    tl = syncline.load_timeline(workdir)
    steps = {r: [e for e in tl if e.rank == r and e.name == "step"] for r in range(4)}
    worst = 0
    for r in (2, 3):
        for x in steps[0]:
            for y in steps[r]:
                true_gap = true_ns(y) - true_ns(x)
                assert abs((y.local_start_ns - x.local_start_ns) - true_gap) > 8_000_000_000
                worst = max(worst, abs((y.start_ns - x.start_ns) - true_gap))
    print(f"ranks 2-3 (tb-d) placed within {worst / 1e3:.1f} µs of the truth")
    assert worst < 1_000_000, f"tb-d's events {worst} ns off the truth"
