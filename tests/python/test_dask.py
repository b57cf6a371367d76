"""syncline.dask on real dask.distributed clusters: `stats` equals `syncline stats --json` byte
for byte on a 32-worker simulated job, (1) with the split's C++ steps run in this process (each
log's clock inputs, the correction once, each log's part with its own worker's clocks, merges in
two groupings: also under ASan; damaged and forged bytes refused), (2) on a LocalCluster of
2 worker processes, the tasks seen on both workers in the scheduler's task stream, and with the
job split over two directories each read only by its own worker (workers=), (3) against a
separately started dask-scheduler and 2 dask-worker processes (ephemeral ports, stopped always),
through `python3 -m syncline.dask stats --scheduler` and through `syncline stats --json
--dask`. A rank subset gives the subset's CLI document too; without dask.distributed the CLI
says what to install. Cost: about 30 s (the job ~2 s, each cluster ~5-8 s to start and stop).
(2) and (3) skip, saying why, without dask.distributed or under ASan: there every worker process
would be an instrumented interpreter running distributed's event loop, whose exit-time leak check
reports the interpreter's own allocations; the C++ they run is what (1) checks under ASan."""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

import syncline
from syncline import _core

from conftest import needs_distributed, two_dask_workers



@pytest.fixture(scope="module")
def job(tmp_path_factory, bin_dir):
    out = tmp_path_factory.mktemp("dask") / "job"
    subprocess.run([str(bin_dir / "syncline-sim"), "--seed", "11", "--workers", "32",
                    "--per-host", "8", "--duration-s", "1", "--iteration-ms", "5",
                    "--out", str(out)], check=True, capture_output=True, timeout=120)
    return str(out)


def cli_stats(bin_dir, job, *extra):
    r = subprocess.run([str(bin_dir / "syncline"), "stats", job, "--json", "-q", *extra],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def split_in_process(paths, ranks=None, group=None, align_on=""):
    """The split's C++ steps run here: inputs, one clock-inputs part per log, the correction
    once, one stats part per log with only its worker's clocks, merges."""
    logs, config_path, config, _ = _core._split_inputs([paths], ranks)
    inputs = [_core._split_clock_inputs(log, config_path, config, align_on) for log in logs]
    clocks = _core._split_clocks(inputs, config_path, config, align_on, True, ranks)
    parts = [_core._split_stats_part(log, c, rank, "corrected") for log, rank, c in clocks]
    if group:
        parts = [_core._split_stats_merge(parts[i:i + group]) for i in range(0, len(parts), group)]
    return _core._split_stats_json(_core._split_stats_merge(parts)), clocks


def test_split_in_process_equals_cli(job, bin_dir):
    expected = cli_stats(bin_dir, job)
    flat, clocks = split_in_process(job)
    assert len(clocks) == 32
    assert flat == expected
    tree, _ = split_in_process(job, group=5)  # merges of 5, then of those: the same document
    assert tree == expected
    doc = json.loads(flat)
    assert len(doc["workers"]) == 32 and len(doc["events"]) > 32
    assert any(w["clock"]["method"] == "sync" for w in doc["workers"])


def test_split_aligned_on_collectives_equals_cli(job, bin_dir, tmp_path):
    # Without sync samples the clocks come from the allreduce instances: each log's clock
    # inputs must keep exactly the events the correction reads.
    unsynced = tmp_path / "unsynced"
    unsynced.mkdir()
    for log in os.listdir(job):
        if not log.endswith(".log"):
            continue  # the truth CSVs, the index a load wrote beside the logs
        with open(os.path.join(job, log), "rb") as f:
            lines = [ln for ln in f if not ln.startswith(b'{"t":"sync"')]
        (unsynced / log).write_bytes(b"".join(lines))
    expected = cli_stats(bin_dir, str(unsynced))
    assert {w["clock"]["method"] for w in json.loads(expected)["workers"]} == {"collectives"}
    text, _ = split_in_process(str(unsynced))
    assert text == expected


def test_split_subset_equals_cli_subset(job, bin_dir):
    expected = cli_stats(bin_dir, job, "--ranks", "0-5,17")
    text, clocks = split_in_process(job, ranks="0-5,17")
    assert sorted(r for _, r, _ in clocks) == [0, 1, 2, 3, 4, 5, 17]
    assert text == expected


def test_each_log_gets_its_own_clocks_only(job):
    # The correction's result is sliced per worker: a slice names one log (a task receives
    # only its own worker's clocks), and another log loaded with it is refused.
    logs, config_path, config, _ = _core._split_inputs([job], None)
    inputs = [_core._split_clock_inputs(log, config_path, config, "") for log in logs]
    clocks = _core._split_clocks(inputs, config_path, config, "", True, None)
    assert sorted(log for log, _, _ in clocks) == sorted(logs)
    sizes = [len(c) for _, _, c in clocks]
    assert max(sizes) < 2 * min(sizes), sizes  # one worker each, not the job's 32
    (_, rank0, c0), (log1, _, _) = clocks[0], clocks[1]
    with pytest.raises(syncline.LoadError, match="names none of these logs"):
        _core._split_stats_part(log1, c0, rank0, "corrected")
    # What a log gives the correction is small next to the log itself.
    assert all(len(b) < os.path.getsize(log) / 4 for b, log in zip(inputs, logs))


def fnv1a64(data):
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def rehashed(record):
    """A CacheFile record whose body was changed, its trailing hash made right again: only
    the record's own checks can refuse it."""
    body = record[:-8]
    return body + fnv1a64(body).to_bytes(8, "little")


def test_split_refuses_damaged_parts(job):
    logs, config_path, config, _ = _core._split_inputs([job], None)
    inputs = [_core._split_clock_inputs(log, config_path, config, "") for log in logs]
    clocks = _core._split_clocks(inputs, config_path, config, "", True, None)
    log, rank, c = clocks[0]
    part = _core._split_stats_part(log, c, rank, "corrected")
    with pytest.raises(ValueError, match="truncated or damaged"):
        _core._split_stats_json(part[:-3])
    with pytest.raises(ValueError, match="bad magic"):
        _core._split_stats_json(b"x" * 20)
    with pytest.raises(syncline.LoadError, match="clock plan"):
        _core._split_stats_part(log, c[:-9], rank, "corrected")
    # Clock inputs: truncated, not a record, and forged (a byte of the last chunk changed and
    # the record's hash made right again: the chunk's own hash refuses it).
    for bad, why in ((inputs[0][:-5], "hash mismatch|too short"),
                     (b"x" * 40, "bad magic"),
                     (rehashed(inputs[0][:-9] + bytes([inputs[0][-9] ^ 1]) + inputs[0][-8:]),
                      "damaged")):
        with pytest.raises(ValueError, match="input 1: clock inputs refused: .*(%s)" % why):
            _core._split_clocks([inputs[1], bad] + inputs[2:], config_path, config, "", True,
                                None)
    with pytest.raises(TypeError, match="must be bytes"):
        _core._split_clocks(["text"], config_path, config, "", True, None)


def test_correction_takes_inputs_one_at_a_time(job):
    # The correction takes any iterable of bytes and lets go of each once it is decoded, before
    # it asks for the next (syncline.dask's task fetches them one batch at a time): when the
    # generator resumes, nothing but itself holds the bytes it gave. The clocks are the same
    # as from a list, and with synced=True (every log has sync samples: only what the
    # correction aligns on is decoded).
    logs, config_path, config, _ = _core._split_inputs([job], None)
    inputs = [_core._split_clock_inputs(log, config_path, config, "") for log in logs]
    assert all(_core._split_clock_inputs_synced(b) for b in inputs)
    assert not _core._split_clock_inputs_synced(b"x" * 40)
    held = []

    def one_at_a_time():
        for b in inputs:
            part = bytes(bytearray(b))  # a new object, referenced here and by the caller only
            yield part
            held.append(sys.getrefcount(part) - 1)  # the caller asks for the next one

    want = _core._split_clocks(inputs, config_path, config, "", True, None)
    assert _core._split_clocks(one_at_a_time(), config_path, config, "", True, None) == want
    assert held == [1] * len(inputs)
    assert _core._split_clocks(iter(inputs), config_path, config, "", True, None,
                               synced=True) == want

    def failing():
        yield inputs[0]
        raise RuntimeError("the fetch failed")

    with pytest.raises(RuntimeError, match="the fetch failed"):
        _core._split_clocks(failing(), config_path, config, "", True, None)
    with pytest.raises(ValueError, match="without sync samples|clock inputs refused"):
        _core._split_clocks([inputs[0], b"x" * 40], config_path, config, "", True, None,
                            synced=True)


def test_localcluster_of_two_processes(job, bin_dir, tmp_path):
    distributed = needs_distributed()
    import syncline.dask as sd
    expected = cli_stats(bin_dir, job)
    with two_dask_workers(tmp_path) as (_cluster, client, _workers):
        with distributed.get_task_stream(client=client) as ts:
            text = sd.stats_json(job, client)
        assert text == expected
        assert sd.stats(job, client, ranks=[0, 1, 2]) == json.loads(
            cli_stats(bin_dir, job, "--ranks", "0-2"))
        ran = {}
        for t in ts.data:
            if "_stats_part" in t["key"]:
                ran[t["worker"]] = ran.get(t["worker"], 0) + 1
        assert sum(ran.values()) == 32, ran
        assert set(ran) == set(client.scheduler_info()["workers"]), ran
        # Node-local disks: half the logs in each of two directories, each directory read only
        # by its own worker (workers=); every log's tasks ran there, and the result is the
        # CLI's over both directories.
        a, b = sorted(client.scheduler_info()["workers"])
        halves = {a: tmp_path / "nodeA", b: tmp_path / "nodeB"}
        for d in halves.values():
            d.mkdir()
        logs = sorted(n for n in os.listdir(job) if n.endswith(".log"))
        for i, name in enumerate(logs):
            shutil.copyfile(os.path.join(job, name), halves[a if i % 2 else b] / name)
        dirs = [str(halves[a]), str(halves[b])]
        with distributed.get_task_stream(client=client) as ts:
            text = sd.stats_json(dirs, client, workers={str(d): w for w, d in halves.items()})
        assert text == cli_stats(bin_dir, *dirs)
        where = {}  # worker: the logs its tasks read (keys name "<fn>-<dir>/<log>-<id>")
        for t in ts.data:
            fn, _, rest = t["key"].partition("-")
            if fn in ("_clock_inputs", "_stats_part") and rest.startswith(("nodeA/", "nodeB/")):
                where.setdefault(t["worker"], set()).add(rest.rsplit("-", 1)[0])
        assert set(where) == {a, b}, where
        for w, d in halves.items():
            assert where[w] == {d.name + "/" + n for n in os.listdir(d) if n.endswith(".log")}, \
                (w, where[w])
        # Ranks 0 and 10 both lie in one directory: the other holds none of them, and that is
        # no error.
        assert "timer_events.0.log" in os.listdir(halves[b]) and \
            "timer_events.10.log" in os.listdir(halves[b])
        assert sd.stats(dirs, client, workers={str(d): w for w, d in halves.items()},
                        ranks="0,10") == json.loads(cli_stats(bin_dir, *dirs, "--ranks", "0,10"))


def test_scheduler_and_workers_started_apart(job, bin_dir, tmp_path):
    distributed = needs_distributed()
    expected = cli_stats(bin_dir, job)
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    sched_file = tmp_path / "scheduler.json"
    procs = []
    try:
        procs.append(subprocess.Popen(
            ["dask-scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(sched_file)], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sched_file.exists(), "dask-scheduler wrote no scheduler file in 60 s"
        for _ in range(2):
            procs.append(subprocess.Popen(
                ["dask-worker", "--scheduler-file", str(sched_file), "--nworkers", "1",
                 "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                 "--memory-limit", "1GiB", "--local-directory", str(tmp_path / "dask")],
                env=env, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        with distributed.Client(scheduler_file=str(sched_file), timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            address = client.scheduler.address
            with distributed.get_task_stream(client=client) as ts:
                r = subprocess.run([sys.executable, "-m", "syncline.dask", "stats", job,
                                    "--scheduler", address], capture_output=True, text=True,
                                   timeout=120, env=env)
            assert r.returncode == 0, r.stderr
            assert r.stdout == expected
            workers = {t["worker"] for t in ts.data if "_stats_part" in t["key"]}
            assert workers == set(client.scheduler_info()["workers"]), workers
            assert len(workers) == 2
            # The CLI hands `stats --json --dask ADDRESS` to the module: the same document.
            r = subprocess.run([str(bin_dir / "syncline"), "stats", job, "--json", "--ranks",
                                "0-2", "--dask", address], capture_output=True, text=True,
                               timeout=120, env=env)
            assert r.returncode == 0, r.stderr
            assert r.stdout == cli_stats(bin_dir, job, "--ranks", "0-2")
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_cli_dask_without_distributed(job, bin_dir, tmp_path):
    # A Python where `import distributed` fails (a package of that name first on the path that
    # raises ImportError, as a missing one does): one line saying what to install, status 3.
    hidden = tmp_path / "hidden" / "distributed"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text('raise ImportError("No module named distributed")\n')
    env = dict(os.environ, PYTHONPATH=str(hidden.parent))
    r = subprocess.run([str(bin_dir / "syncline"), "stats", job, "--json", "--dask",
                        "tcp://127.0.0.1:1"], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "needs dask.distributed (Debian: apt-get install python3-distributed" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    r = subprocess.run([str(bin_dir / "syncline"), "stats", job, "--dask", "tcp://127.0.0.1:1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--json" in r.stderr


def test_import_syncline_does_not_import_dask():
    r = subprocess.run([sys.executable, "-c",
                        "import sys, syncline; print('dask' in sys.modules, "
                        "'distributed' in sys.modules)"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]
