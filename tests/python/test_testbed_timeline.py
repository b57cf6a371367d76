"""get_timeline()/load_timeline() and the client's global time across hosts, on the multi-host
testbed (scripts/testbed/): three emulated hosts, each its own network, hostname, boot id and
monotonic clock, linked through a router by asymmetric, jittery delays. Nothing is emulated
inside the recorder but, in one test, a wrong wall clock: time namespaces cannot shift
CLOCK_REALTIME, so host-c's wall clock 3 ms ahead comes from SYNCLINE_TEST_WALL_OFFSET_NS.

Truth is what the testbed set: host k's clock reads physical time + offset_k (one oscillator:
no drift), so an event stamped `local` on host k happened at physical time local − offset_k.
A `syncline timeserver` runs on tb-a; the workers name it (tb-a:PORT) in timer_config.json.

One testbed for the module (about 2 s to start and stop); each test adds 2–4 s. Needs root and
the kernel features (time namespaces, veth, NFQUEUE, a bind mount over procfs); skips, saying
which, when they are missing (conftest's `delayline` fixture), as test_testbed.py does.
"""
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
# behind, 160 / 140 µs (floor +10 µs).
HOSTS = [
    dict(name="tb-a", offset_ns=1_500_000_123, up_ns=50_000, down_ns=60_000,
         up_jitter_ns=10_000, down_jitter_ns=10_000),
    dict(name="tb-b", offset_ns=1_503_200_123, up_ns=200_000, down_ns=80_000,
         up_jitter_ns=20_000, down_jitter_ns=10_000),
    dict(name="tb-c", offset_ns=1_495_000_456, up_ns=100_000, down_ns=90_000,
         up_jitter_ns=10_000, down_jitter_ns=10_000),
]
OFFSET = {h["name"]: h["offset_ns"] for h in HOSTS}


@pytest.fixture(scope="module")
def bed(delayline, tmp_path_factory):
    hosts = [testbed.Host(**h) for h in HOSTS]
    with testbed.Testbed(hosts, delayline, workdir=tmp_path_factory.mktemp("testbed")) as tb:
        yield tb


@pytest.fixture
def server(bed, bin_dir):
    """A real `syncline timeserver` on tb-a; yields its address as the workers name it."""
    p = bed.popen("tb-a", [bin_dir / "syncline", "timeserver", "--port", "0", "--bind",
                           "0.0.0.0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.search(r"port (\d+)", line)
    assert m, f"timeserver did not start: {line!r} {p.stderr.read() if not line else ''}"
    yield f"tb-a:{m.group(1)}"
    p.terminate()
    p.communicate(timeout=10)


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
