"""`syncline export --perfetto` / Timeline.to_perfetto(): the trace decodes with `protoc
--decode=perfetto.protos.Trace` against Perfetto's published perfetto_trace.proto
(tests/data/perfetto/), and the decoded packets hold the job: one process per worker, hosts as
machines, per worker the same slices (name, begin, end), instants and counter samples as the
columns API, flows for the links, the clock bound. The job is written by three real recorder
processes on two (named) hosts. Costs about 2 s; skips without protoc (Debian
protobuf-compiler, scripts/setup.sh)."""
import collections
import pathlib
import shutil
import subprocess
import sys

import pytest

import syncline
from conftest import python_env

np = pytest.importorskip("numpy")

PROTO_DIR = pathlib.Path(__file__).resolve().parents[1] / "data" / "perfetto"
WORKER = """
import os, sys, syncline
r = int(os.environ["RANK"])
c = syncline.FileTimerClient()
for i in range(20):
    with c.event("step", i=i):
        with c.event("forward"):
            c.instant("tick")
        c.counter("loss", 1.0 / (i + 1))
    c.message("send" if r == 0 else "recv", 1 if r == 0 else 0, f"m{i}") if r < 2 else None
c.start_event("hang")
c.flush()
os._exit(0)
"""


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    d = tmp_path_factory.mktemp("perfetto")
    (d / "w.py").write_text(WORKER)
    procs = [subprocess.Popen([sys.executable, "w.py"], cwd=d, stderr=subprocess.PIPE, text=True,
                              env=python_env(RANK=r, WORLD_SIZE=3,
                                             SYNCLINE_HOST="node-a" if r < 2 else "node-b"))
             for r in range(3)]
    for p in procs:
        assert p.wait(timeout=60) == 0, p.stderr.read()
    return d


def parse_text(text):
    """protoc's text format -> nested lists of (key, value) pairs."""
    root, stack = [], []
    cur = root
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            node = []
            cur.append((line[:-1].strip(), node))
            stack.append(cur)
            cur = node
        elif line == "}":
            cur = stack.pop()
        else:
            key, _, value = line.partition(": ")
            if value.startswith('"'):
                value = value[1:-1].encode("latin-1").decode("unicode_escape").encode(
                    "latin-1").decode("utf-8")
            cur.append((key, value))
    return root


def get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default


def decode(path):
    if not shutil.which("protoc"):
        pytest.skip("protoc not installed (Debian protobuf-compiler; scripts/setup.sh)")
    with open(path, "rb") as f:
        r = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "perfetto_trace.proto"],
                           cwd=PROTO_DIR, stdin=f, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()
    assert not r.stderr, r.stderr.decode()  # no unknown fields, no warnings
    return [v for k, v in parse_text(r.stdout.decode()) if k == "packet"]


def test_perfetto_export_decodes_and_holds_the_job(bin_dir, job, tmp_path):
    out = tmp_path / "job.pftrace"
    r = subprocess.run([str(bin_dir / "syncline"), "export", str(job), "--perfetto", str(out),
                        "-q"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    tl = syncline.load_timeline(job)
    py = tmp_path / "py.pftrace"
    counts = tl.to_perfetto(py)
    assert py.read_bytes() == out.read_bytes()
    assert counts["bytes"] == out.stat().st_size
    packets = decode(out)
    assert len(packets) == counts["packets"]

    # Sequences: one per host, each starting with a SystemInfo naming its machine.
    machine_of_seq, names, ann_names = {}, {}, {}
    for p in packets:
        seq = int(get(p, "trusted_packet_sequence_id"))
        info = get(p, "system_info")
        if info is not None:
            assert seq not in machine_of_seq and get(p, "sequence_flags") == "1"
            machine_of_seq[seq] = (get(info, "machine_name"), int(get(p, "machine_id", 0)))
        assert int(get(p, "machine_id", 0)) == machine_of_seq[seq][1]
        for k, data in p:
            if k == "interned_data":
                for kk, en in data:
                    if kk == "event_names":
                        names[(seq, int(get(en, "iid")))] = get(en, "name")
                    elif kk == "debug_annotation_names":
                        ann_names[(seq, int(get(en, "iid")))] = get(en, "name")
    assert sorted(machine_of_seq.values()) == [("node-a", 0), ("node-b", 1)]

    # Tracks: a process per worker (its host's sequence), threads and counters under it.
    procs, thread_of, counter_of = {}, {}, {}
    for p in packets:
        d = get(p, "track_descriptor")
        if d is None:
            continue
        uuid = int(get(d, "uuid"))
        if get(d, "process") is not None:
            pr = get(d, "process")
            procs[uuid] = (int(get(pr, "pid")), get(pr, "process_name"), get(pr, "process_labels"),
                           machine_of_seq[int(get(p, "trusted_packet_sequence_id"))][0])
        elif get(d, "counter") is not None:
            counter_of[uuid] = (int(get(d, "parent_uuid")), get(d, "name"))
        else:
            thread_of[uuid] = int(get(d, "parent_uuid"))
    workers = tl.workers
    assert len(procs) == len(workers) == 3
    by_pid = {pid: (name, labels, host) for pid, name, labels, host in procs.values()}
    for i, w in enumerate(workers):
        name, labels, host = by_pid[i + 1]
        assert name == f"rank {w.rank} ({w.host})" and host == w.host
        assert labels.startswith("clock: ")
    pid_of_uuid = {u: v[0] for u, v in procs.items()}

    # Events per worker: slices (name, begin, end), instants, counter samples, flows.
    slices, instants, samples = (collections.Counter() for _ in range(3))
    open_stack = collections.defaultdict(list)
    flows_out, flows_in, bounds = set(), set(), {}
    for p in packets:
        ev = get(p, "track_event")
        if ev is None:
            continue
        seq, ts = int(get(p, "trusted_packet_sequence_id")), int(get(p, "timestamp"))
        track, kind = int(get(ev, "track_uuid")), get(ev, "type")
        name = names.get((seq, int(get(ev, "name_iid", 0))))
        if kind == "TYPE_COUNTER":
            parent, cname = counter_of[track]
            samples[(pid_of_uuid[parent] - 1, cname, ts, float(get(ev, "double_counter_value")))] += 1
            continue
        worker = pid_of_uuid[thread_of[track]] - 1
        if kind == "TYPE_SLICE_BEGIN":
            open_stack[track].append((name, ts))
            for k, a in ev:
                if k == "debug_annotations" and ann_names[(seq, int(get(a, "name_iid")))] == \
                        "clock_bound_ns":
                    bounds.setdefault(worker, set()).add(int(get(a, "int_value")))
        elif kind == "TYPE_SLICE_END":
            bname, begin = open_stack[track].pop()
            assert ts >= begin
            slices[(worker, bname, begin, ts)] += 1
        elif kind == "TYPE_INSTANT":
            if get(ev, "flow_ids") is not None:
                flows_out.add(int(get(ev, "flow_ids")))
            elif get(ev, "terminating_flow_ids") is not None:
                flows_in.add(int(get(ev, "terminating_flow_ids")))
            else:
                instants[(worker, name, ts)] += 1
    assert not any(open_stack.values())

    cols = tl.columns()
    want_slices, want_instants = collections.Counter(), collections.Counter()
    for i in range(len(cols["start_ns"])):
        key = (int(cols["worker"][i]), cols["names"][cols["name_id"][i]], int(cols["start_ns"][i]))
        if cols["flags"][i] & 4:
            want_instants[key] += 1
        else:
            want_slices[key + (int(cols["end_ns"][i]),)] += 1
    assert slices == want_slices and instants == want_instants
    assert sum(1 for k in slices if k[1] == "hang") == 3  # open events end at their last time
    cc = tl.counter_columns()
    want_samples = collections.Counter(
        (int(cc["worker"][i]), cc["names"][cc["name_id"][i]], int(cc["time_ns"][i]),
         float(cc["value"][i])) for i in range(len(cc["value"])))
    assert samples == want_samples and sum(samples.values()) == 60
    links = tl.link_columns()
    assert len(links["from_ns"]) == 20 == counts["flows"]
    assert flows_out == flows_in == set(range(1, 21))
    # The clock bound on every outermost slice of each worker.
    assert bounds == {i: {w.clock["bound_ns"]} for i, w in enumerate(workers)}


def test_perfetto_export_of_a_simulated_job(bin_dir, tmp_path):
    job = tmp_path / "sim"
    subprocess.run([str(bin_dir / "syncline-sim"), "--seed", "2", "--workers", "8",
                    "--per-host", "4", "--duration-s", "1", "--out", str(job)],
                   check=True, capture_output=True, timeout=120)
    tl = syncline.load_timeline(job)
    counts = tl.to_perfetto(tmp_path / "sim.pftrace")
    packets = decode(tmp_path / "sim.pftrace")
    begins = sum(1 for p in packets if get(get(p, "track_event", []), "type") == "TYPE_SLICE_BEGIN")
    cols = tl.columns(["flags"])
    assert begins == counts["slices"] == int(((cols["flags"] & 4) == 0).sum())
    hosts = {get(get(p, "system_info"), "machine_name") for p in packets
             if get(p, "system_info") is not None}
    assert hosts == {w.host for w in tl.workers} and len(hosts) == 2
