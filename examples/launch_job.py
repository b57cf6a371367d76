#!/usr/bin/python3
"""Launch N example workers as real processes, the way torchrun does.

Each worker gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_NAME,
TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_RUN_ID, MASTER_ADDR and MASTER_PORT (not with
--no-sync: under torchrun they make rank 0 serve the job's time server). With
--nnodes > 1 the nodes are emulated on this machine: node k's workers get SYNCLINE_HOST=node-k
and SYNCLINE_BOOT_ID=emulated-boot-k (a clock domain each) and a synthetic clock skew through
SYNCLINE_TEST_CLOCK_OFFSET_NS / SYNCLINE_TEST_CLOCK_DRIFT_PPM (k × --node-offset-ms,
k × --node-drift-ppm; node 0 is the reference). Unless --no-sync, rank 0 hosts the time server
(the config's sync.host_server) on a free UDP port given to all workers in SYNCLINE_TIME_SERVER.
The launcher also hosts the workers' all-reduce barrier (demo/demobarrier.py, a stand-in for a
blocking collective) on a loopback TCP port given in SYNCLINE_DEMO_BARRIER; --no-barrier leaves
it out (example_worker then paces its all_reduce by its --sync-ms period).

The logs land in --outdir (timer_events.<rank>.log) together with the config used. Exit status:
0 when every worker succeeded, otherwise 1 (each failure is printed).
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "demo"))
import demobarrier  # noqa: E402


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nproc", type=int, default=4, help="workers per node (default 4)")
    p.add_argument("--nnodes", type=int, default=1, help="emulated nodes (default 1)")
    p.add_argument("--outdir", default="job-logs", help="where logs go (default job-logs)")
    p.add_argument("--worker", default=os.path.join(REPO, "build", "bin", "example_worker"),
                   help="worker executable (default build/bin/example_worker)")
    p.add_argument("--config", default=os.path.join(HERE, "timer_config.json"),
                   help="timer_config.json to use (copied into --outdir)")
    p.add_argument("--steps", type=int, default=20, help="training steps per worker")
    p.add_argument("--node-offset-ms", type=float, default=3.0,
                   help="synthetic clock offset per node index, ms (default 3.0)")
    p.add_argument("--node-drift-ppm", type=float, default=40.0,
                   help="synthetic clock drift per node index, ppm (default 40)")
    p.add_argument("--run-id", default="", help="TORCHELASTIC_RUN_ID (default: time based)")
    p.add_argument("--no-sync", action="store_true", help="no time server / sync client")
    p.add_argument("--no-barrier", action="store_true",
                   help="no all-reduce barrier (workers fall back to their own pacing)")
    p.add_argument("--timeout", type=float, default=600, help="seconds before workers are killed")
    p.add_argument("worker_args", nargs=argparse.REMAINDER,
                   help="after --: extra arguments for every worker")
    args = p.parse_args(argv)
    if args.nproc < 1 or args.nnodes < 1:
        p.error("--nproc and --nnodes must be >= 1")
    if args.worker_args and args.worker_args[0] == "--":
        args.worker_args = args.worker_args[1:]
    return args


def worker_env(args, node, local, run_id, server, barrier):
    world = args.nproc * args.nnodes
    env = dict(os.environ)
    env.update({
        "RANK": str(node * args.nproc + local),
        "LOCAL_RANK": str(local),
        "WORLD_SIZE": str(world),
        "LOCAL_WORLD_SIZE": str(args.nproc),
        "GROUP_RANK": str(node),
        "ROLE_NAME": "trainer",
        "TORCHELASTIC_RESTART_COUNT": "0",
        "TORCHELASTIC_RUN_ID": run_id,
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": "29500",
    })
    for key in ("SYNCLINE_HOST", "SYNCLINE_BOOT_ID", "SYNCLINE_TEST_CLOCK_OFFSET_NS",
                "SYNCLINE_TEST_CLOCK_DRIFT_PPM", "SYNCLINE_TIME_SERVER", demobarrier.ENV):
        env.pop(key, None)
    if args.nnodes > 1:
        env["SYNCLINE_HOST"] = "node-%d" % node
        env["SYNCLINE_BOOT_ID"] = "emulated-boot-%d" % node
        if node > 0:
            env["SYNCLINE_TEST_CLOCK_OFFSET_NS"] = str(int(node * args.node_offset_ms * 1e6))
            env["SYNCLINE_TEST_CLOCK_DRIFT_PPM"] = repr(node * args.node_drift_ppm)
    if server:
        env["SYNCLINE_TIME_SERVER"] = server
    else:  # --no-sync: without MASTER_ADDR/PORT no worker derives the job's own server
        env.pop("MASTER_ADDR")
        env.pop("MASTER_PORT")
    if barrier:
        env[demobarrier.ENV] = barrier
    return env


def main(argv):
    args = parse_args(argv)
    if not os.access(args.worker, os.X_OK):
        print("launch_job: worker %s not found (build it first: make, or cmake --build build "
              "--target example_worker)" % args.worker, file=sys.stderr)
        return 1
    os.makedirs(args.outdir, exist_ok=True)
    config = os.path.join(os.path.abspath(args.outdir), "timer_config.json")
    if os.path.abspath(args.config) != config:
        shutil.copyfile(args.config, config)
    run_id = args.run_id or time.strftime("job-%Y%m%d-%H%M%S")
    server = None if args.no_sync else "127.0.0.1:%d" % free_udp_port()
    barrier = None if args.no_barrier else demobarrier.BarrierServer(args.nproc * args.nnodes)
    log_template = os.path.join(os.path.abspath(args.outdir), "timer_events.{rank}.log")
    procs = []
    # A common start (a rendezvous) 1 s from now, and a finish barrier so that rank 0, which
    # hosts the time server, outlives the others' final sync bursts.
    start_at = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW) + 1000000000
    barrier_dir = os.path.join(os.path.abspath(args.outdir), "barrier")
    shutil.rmtree(barrier_dir, ignore_errors=True)
    os.makedirs(barrier_dir)
    # Rank 0 first: it hosts the time server the others sync against.
    for node in range(args.nnodes):
        for local in range(args.nproc):
            cmd = [args.worker, "--config", config, "--log", log_template,
                   "--steps", str(args.steps), "--start-at", str(start_at),
                   "--barrier-dir", barrier_dir] + args.worker_args
            env = worker_env(args, node, local, run_id, server, barrier and barrier.address)
            procs.append((int(env["RANK"]), subprocess.Popen(cmd, env=env)))
            if len(procs) == 1:
                time.sleep(0.05)
    if barrier:  # a worker that dies no longer holds up the others' all-reduces
        barrier.watch(dict(procs))
    failed = []
    deadline = time.monotonic() + args.timeout
    for rank, proc in procs:
        try:
            rc = proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        if rc != 0:
            failed.append((rank, rc))
    shutil.rmtree(barrier_dir, ignore_errors=True)
    if barrier:
        barrier.stop()
    for rank, rc in failed:
        print("launch_job: rank %d failed (exit status %d)" % (rank, rc), file=sys.stderr)
    print("launch_job: %d workers, run id %s, logs in %s" %
          (len(procs), run_id, os.path.abspath(args.outdir)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
