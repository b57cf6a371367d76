"""The demo job's two hosts on the multi-host testbed (scripts/testbed/testbed.py): real hosts
as far as syncline can tell, on one Linux machine, as root.

host-a and host-b are each a process tree in its own network, UTS, mount and time namespaces:
its own hostname, boot id and CLOCK_MONOTONIC/_RAW offset, linked through a router by delayed,
asymmetric, jittery paths (the NFQUEUE delay line, <build>/bin/delayline). One plain multi-node
torchrun agent per host (`--nnodes 2 --nproc_per_node 4`, c10d rendezvous on host-a across the
emulated network) starts that host's 4 workers; no time server is named anywhere, so the workers
use the job's own (rank 0's, on host-a; docs/timeserver.md).

Truth is what the testbed sets: host k's clock reads physical time + offset_k (no drift: one
oscillator drives every namespace's clocks), so host-b's clock is HOST_B_AHEAD_NS (1.23 s)
ahead of host-a's. The links set each host's floor, the error no sync method can avoid: half the
asymmetry of its path to the server, (to host-a − from host-a) / 2.

`unavailable()` says why the testbed cannot run here ("" when it can); `run_job()` runs the
job and returns the truth. Everything the testbed creates is removed when run_job returns or
raises, also on SIGINT or SIGTERM (Testbed's context manager). Threads: none.
"""
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts" / "testbed"))
import testbed  # noqa: E402

NAMES = ("host-a", "host-b")
HOST_B_AHEAD_NS = 1_234_567_891  # real hosts' monotonic clocks differ by their boot times
# Monotonic offsets with ns parts (each host its own); delays in ns (up: host -> router, down:
# router -> host; each packet waits delay + uniform [0, jitter]). host-b -> host-a waits
# 300 + 150 µs, host-a -> host-b 100 + 120 µs: host-b's floor is (450 − 220) / 2 = +115 µs.
HOSTS = (
    dict(name="host-a", offset_ns=2_000_987_654, up_ns=100_000, down_ns=150_000,
         up_jitter_ns=20_000, down_jitter_ns=20_000),
    dict(name="host-b", offset_ns=2_000_987_654 + HOST_B_AHEAD_NS, up_ns=300_000,
         down_ns=120_000, up_jitter_ns=50_000, down_jitter_ns=30_000),
)
RDZV_PORT = 29400


def delayline_path(build):
    return pathlib.Path(build) / "bin" / "delayline"


def unavailable(build):
    """Why the demo cannot put its hosts on the testbed here ("" when it can): root, the
    kernel's namespaces and NFQUEUE (tried for real), the tools, the built delay line."""
    return testbed.unavailable(delayline_path(build))


def floor_ns(host, server):
    """The floor the links set for `host` against the server's host: half the asymmetry."""
    if host is server:
        return 0.0
    return ((host.up_ns + server.down_ns) - (server.up_ns + host.down_ns)) / 2


def truth(hosts):
    """{host: {offset_ns, drift_ppm, floor_ns, to_server_ns, from_server_ns, boot_id}}: stamps
    on host k read physical time + offset_ns; host-a (rank 0's) is the server's host."""
    server = hosts[0]
    return {h.name: {"offset_ns": h.offset_ns, "drift_ppm": 0.0, "boot_id": h.boot_id,
                     "floor_ns": floor_ns(h, server),
                     "to_server_ns": h.up_ns + server.down_ns if h is not server else 0,
                     "from_server_ns": server.up_ns + h.down_ns if h is not server else 0}
            for h in hosts}


def agent_command(fixes, jobdir, run_id, worker_args):
    """One host's torchrun command line (printed, so a user can rerun it on real hosts);
    fixes: the options Debian's torchrun needs (run_demo.TORCHRUN_FIXES)."""
    return ["/usr/bin/python3", "-m", "torch.distributed.run", *fixes,
            "--nnodes", "2", "--nproc_per_node", "4", "--max_restarts", "1",
            "--monitor_interval", "0.5", "--role", "trainer",
            "--rdzv_backend", "c10d", "--rdzv_endpoint", f"{NAMES[0]}:{RDZV_PORT}",
            "--rdzv_id", run_id, "--log_dir", str(jobdir.parent / "torchrun-logs"),
            *worker_args]


def run_job(build, jobdir, run_id, fixes, worker_args, env, say):
    """Starts the testbed, one torchrun agent per host, waits for both; returns
    (truth, [(host, returncode, output)]). The testbed is gone when this returns or raises."""
    hosts = [testbed.Host(**h) for h in HOSTS]
    logs = jobdir.parent / "torchrun-logs"
    logs.mkdir(parents=True, exist_ok=True)
    results = []
    with testbed.Testbed(hosts, delayline_path(build), seed=7) as tb:
        for h in hosts:
            say(f"demo: {h.name}: {h.ip}, boot id {h.boot_id}, monotonic clock "
                f"{h.offset_ns / 1e9:+.9f} s from this machine's; link to the router "
                f"{h.up_ns / 1e3:.0f} µs (+0–{h.up_jitter_ns / 1e3:.0f}) up, "
                f"{h.down_ns / 1e3:.0f} µs (+0–{h.down_jitter_ns / 1e3:.0f}) down")
        cmd = agent_command(fixes, jobdir, run_id, worker_args)
        say("demo: on each host: " + " ".join(cmd))
        agents = []
        for h in hosts:
            out = open(logs / f"agent-{h.name}.txt", "w+", encoding="utf-8")
            agents.append((h.name, tb.popen(h.name, cmd, cwd=jobdir, env=env, stdout=out,
                                            stderr=subprocess.STDOUT), out))
        deadline = time.monotonic() + 900
        for name, p, out in agents:
            try:
                rc = p.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                rc = None  # the testbed's close kills it
            out.seek(0)
            results.append((name, rc, out.read()))
            out.close()
    stats = tb.delayline_stats
    if stats:
        held = [q for q in stats["queues"] if q["packets"]]
        say(f"demo: the delay line held {sum(q['packets'] for q in held)} packets; shortest "
            f"hold = the delay set on every queue: "
            f"{all(q['hold_min_ns'] >= q['delay_ns'] for q in held)}")
    return truth(hosts), results
