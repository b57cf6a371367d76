"""event_store: real worker processes (the Python recorder) write their own log's index and event
store when they close, and the first open of the job decodes them instead of parsing the logs:
the stores are trusted as written (not rewritten by the load) and the job's statistics are
byte for byte those of the same logs parsed. Off by default."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

from conftest import python_env

WORKER = str(pathlib.Path(__file__).with_name("store_worker.py"))


def record_job(d, config, workers=4, steps=300):
    d.mkdir()
    (d / "timer_config.json").write_text(json.dumps(config))
    procs = [subprocess.Popen([sys.executable, WORKER, str(steps)], cwd=d,
                              env=python_env(RANK=r, WORLD_SIZE=workers),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in range(workers)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert "event store not written" not in err, err
    return [d / ("timer_events.%d.log" % r) for r in range(workers)]


def stats_json(bin_dir, path):
    r = subprocess.run([str(bin_dir / "syncline"), "stats", "--json", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def stamps(files):
    return {f.name: (f.stat().st_ino, f.stat().st_mtime_ns, f.stat().st_size) for f in files}


def test_workers_write_their_event_stores_and_the_first_open_decodes_them(tmp_path, bin_dir,
                                                                        timeserver):
    logs = record_job(tmp_path / "job", {"event_store": True, "flush_interval_ms": 10,
                                         "sync": {"server": timeserver.address}})
    cache = tmp_path / "job" / ".syncline-index"
    written = sorted(cache.iterdir())
    for log in logs:
        assert [f.name for f in written if f.name.startswith(log.name + ".")] == \
            [log.name + ".sevt", log.name + ".sidx"], [f.name for f in written]
    before = stamps(written)

    # The same logs, without their stores, parsed.
    copy = tmp_path / "parsed"
    copy.mkdir()
    for f in logs + [tmp_path / "job" / "timer_config.json"]:
        shutil.copy2(f, copy / f.name)
    parsed = stats_json(bin_dir, copy)
    decoded = stats_json(bin_dir, tmp_path / "job")
    assert decoded == parsed
    doc = json.loads(decoded)
    assert doc["workers"] and len(doc["workers"]) == 4
    # Trusted as the workers wrote them: a store or index that failed a check would have been
    # written again by the load.
    # (The load adds the job's own caches, the correction and the links, beside them.)
    assert stamps(written) == before


def test_off_by_default(tmp_path):
    logs = record_job(tmp_path / "job", {"flush_interval_ms": 10}, workers=2, steps=20)
    assert all(log.exists() for log in logs)
    assert not (tmp_path / "job" / ".syncline-index").exists()
