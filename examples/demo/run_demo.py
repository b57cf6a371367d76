#!/usr/bin/python3
"""The demo job (README's first command, via `make demo` → scripts/demo.sh).

Runs a fake distributed training job for real: 8 worker processes — C++ (example_worker) and
Python (py_worker.py) mixed — on two emulated hosts whose clocks disagree (host-b: +3.2 ms and
+40 ppm, through the recorder's documented test facility SYNCLINE_TEST_CLOCK_*; each host its own
clock domain through SYNCLINE_HOST / SYNCLINE_BOOT_ID), the real time server
(`syncline timeserver`), data loading, forward with nested layers, backward, an all-reduce in
which rank 5 is a straggler, checkpoints, and rank 6 hanging in its final checkpoint past the
expected duration (timer_config.json: checkpoint_save ≤ 200 ms) until it is killed.

The all-reduce is a real blocking collective across the 8 processes: a barrier served by this
launcher on loopback (demobarrier.py; the workers find it in env SYNCLINE_DEMO_BARRIER). Every
rank waits in all_reduce until the last one arrives and all are released at once, so the
straggler's late arrival shows as long all_reduce waits on every other rank, and the ranks'
all_reduce ends coincide in true time (the basis of `syncline ... --align-on all_reduce`).

With $DISPLAY the viewer opens (live with `syncline attach` when the build has it, otherwise
`syncline open` on the finished job). Always: writes the timeline PNG, the events CSV and the
stats, prints their paths, and prints raw vs corrected clocks side by side: the truth from each
log header's `skew`, the engine's estimate from `syncline stats --json`, the error and the bound.
"""
import argparse
import csv
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import demobarrier  # noqa: E402  (beside this file)

# rank -> (host, kind); the straggler and the hanging rank (a Python worker: it leaves the
# barrier before hanging) are on host-b.
LAYOUT = {0: ("host-a", "c++"), 1: ("host-a", "python"), 2: ("host-a", "c++"),
          3: ("host-a", "python"), 4: ("host-b", "c++"), 5: ("host-b", "python"),
          6: ("host-b", "python"), 7: ("host-b", "c++")}
STRAGGLER, HANG_RANK = 5, 6
HOST_B_OFFSET_NS, HOST_B_DRIFT_PPM = 3_200_000, 40.0


def say(msg=""):
    print(msg, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=str(ROOT / "build"), help="build directory (default build)")
    p.add_argument("--out", default=str(ROOT / "demo-output"),
                   help="output directory (default demo-output); the job's logs go to OUT/job")
    p.add_argument("--steps", type=int, default=200, help="training steps per worker (200)")
    p.add_argument("--period-ms", type=int, default=60,
                   help="all-reduce period, ms, only for workers that lose the barrier (60)")
    p.add_argument("--barrier-timeout-ms", type=int, default=10000,
                   help="longest all-reduce wait before a rank gives up on the others (10000)")
    p.add_argument("--hang-grace", type=float, default=1.5,
                   help="seconds the hung rank is given after the others finish (1.5)")
    p.add_argument("--no-viewer", action="store_true", help="never open a window")
    return p.parse_args()


class Tools:
    """The build's programs, and which `syncline` verbs this build has."""

    def __init__(self, build):
        self.build = pathlib.Path(build).resolve()
        self.syncline = self.build / "bin" / "syncline"
        self.worker = self.build / "bin" / "example_worker"
        self.pymodule = self.build / "python"
        if not self.syncline.exists():
            sys.exit(f"demo: {self.syncline} not found: build first (make, or cmake --build "
                     f"{self.build})")
        if not list(self.pymodule.glob("syncline/_core*.so")):
            sys.exit(f"demo: the Python module is not built in {self.pymodule} "
                     f"(cmake --build {self.build} --target syncline_python)")

    def help(self, verb):
        r = subprocess.run([str(self.syncline), "help", verb], capture_output=True, text=True)
        return r.stdout if r.returncode == 0 else None

    def has(self, verb, option=None):
        text = self.help(verb)
        return text is not None and (option is None or option in text)


class TimeServer:
    def __init__(self, tools):
        self.proc = subprocess.Popen([str(tools.syncline), "timeserver", "--port", "0",
                                      "--bind", "127.0.0.1", "--stats-interval", "3600"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.banner = self.proc.stdout.readline().strip()
        m = re.search(r"port (\d+)", self.banner)
        if not m:
            self.proc.kill()
            sys.exit(f"demo: the time server did not start: {self.banner}")
        self.address = f"127.0.0.1:{m.group(1)}"

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=10)
        return [line for line in out.splitlines() if line.startswith("timeserver")]


def worker_env(tools, rank, server, barrier, run_id):
    host, _ = LAYOUT[rank]
    env = dict(os.environ)
    for key in list(env):
        if key.startswith("SYNCLINE_"):
            del env[key]
    env.update({
        "RANK": str(rank), "LOCAL_RANK": str(rank % 4), "WORLD_SIZE": str(len(LAYOUT)),
        "LOCAL_WORLD_SIZE": "4", "GROUP_RANK": str(rank // 4), "ROLE_NAME": "trainer",
        "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_RUN_ID": run_id,
        "SYNCLINE_HOST": host, "SYNCLINE_BOOT_ID": f"demo-boot-{host}",
        "SYNCLINE_TIME_SERVER": server, demobarrier.ENV: barrier,
        "PYTHONPATH": os.pathsep.join([str(tools.pymodule), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    })
    if host == "host-b":
        env["SYNCLINE_TEST_CLOCK_OFFSET_NS"] = str(HOST_B_OFFSET_NS)
        env["SYNCLINE_TEST_CLOCK_DRIFT_PPM"] = str(HOST_B_DRIFT_PPM)
    return env


def worker_command(tools, rank, o, config, log):
    kind = LAYOUT[rank][1]
    if kind == "c++" and tools.worker.exists():
        return kind, [str(tools.worker), "--config", config, "--log", log, "--steps", str(o.steps),
                      "--straggler", str(STRAGGLER), "--sync-ms", str(o.period_ms),
                      "--barrier-timeout-ms", str(o.barrier_timeout_ms)]
    if kind == "c++":
        say(f"demo: {tools.worker} is not built; rank {rank} runs the Python worker instead")
    return "python", [sys.executable, str(HERE / "py_worker.py"), "--config", config, "--log", log,
                      "--steps", str(o.steps), "--straggler", str(STRAGGLER),
                      "--period-ms", str(o.period_ms), "--hang-rank", str(HANG_RANK),
                      "--barrier-timeout-ms", str(o.barrier_timeout_ms)]


def run_job(tools, o, jobdir):
    config = str(jobdir / "timer_config.json")
    log = str(jobdir / "timer_events.{rank}.log")
    server = TimeServer(tools)
    say(f"demo: time server: {server.banner}")
    barrier = demobarrier.BarrierServer(len(LAYOUT))
    say(f"demo: all-reduce barrier for {len(LAYOUT)} ranks on tcp {barrier.address}")
    run_id = time.strftime("demo-%Y%m%d-%H%M%S")
    procs, kinds = {}, {}
    # A common start: each worker is started waiting for a line on stdin (Python: py_worker.py
    # --wait-go, which says "ready" once its client is up; C++: a shell that execs example_worker
    # after the line), then all are released together just after a period boundary, the epoch
    # (which paces the all-reduces only for a rank that loses the barrier).
    for rank in sorted(LAYOUT):
        kinds[rank], cmd = worker_command(tools, rank, o, config, log)
        if kinds[rank] == "python":
            cmd = cmd + ["--wait-go"]
        else:
            cmd = ["/bin/sh", "-c", 'read _ && exec "$0" "$@"'] + cmd
        procs[rank] = subprocess.Popen(cmd, cwd=str(jobdir), text=True, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE if kinds[rank] == "python" else None,
                                       env=worker_env(tools, rank, server.address,
                                                      barrier.address, run_id))
    barrier.watch(procs)  # a worker that dies no longer holds up the others' all-reduces
    for rank, p in procs.items():
        line = p.stdout.readline().strip() if kinds[rank] == "python" else "ready"
        if line != "ready":
            sys.exit(f"demo: Python worker rank {rank} did not start: {line!r}")
    period = o.period_ms * 1_000_000
    epoch = (time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW) // period + 1) * period
    time.sleep(max(0, epoch + 1_000_000 - time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)) / 1e9)
    for p in procs.values():
        p.stdin.write(f"go {epoch}\n")
        p.stdin.close()
    say(f"demo: 8 workers started ({', '.join(f'{r}:{LAYOUT[r][0]}/{kinds[r]}' for r in procs)}); "
        f"rank {STRAGGLER} is the straggler, rank {HANG_RANK} will hang")
    failed = []
    for rank, p in procs.items():
        if rank != HANG_RANK and p.wait(timeout=600) != 0:
            failed.append(rank)
        if rank != HANG_RANK and p.stdout:
            say(p.stdout.read().strip())
    hung = procs[HANG_RANK]
    say(hung.stdout.readline().strip())
    try:
        hung.wait(timeout=o.hang_grace)
        say(f"demo: rank {HANG_RANK} finished by itself (it was expected to hang)")
    except subprocess.TimeoutExpired:
        hung.kill()
        hung.wait()
        say(f"demo: rank {HANG_RANK} still hung {o.hang_grace} s after the others finished: killed "
            f"(its log has no close record; checkpoint_save stays open)")
    for line in server.stop():
        say(f"demo: {line}")
    barrier.stop()
    say(f"demo: all-reduce barrier: {barrier.released} instances released, "
        f"{barrier.departed} ranks left, {barrier.rejected} bad messages")
    if failed:
        sys.exit(f"demo: ranks {failed} failed")
    return kinds


def run_tool(tools, args, what, stdout_path=None, env=None):
    """Runs a `syncline` verb; returns True on success, prints why not otherwise."""
    cmd = [str(tools.syncline), *args]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        say(f"demo: {what} failed (exit {r.returncode}): {' '.join(cmd)}\n{r.stderr.strip()}")
        return False
    if stdout_path:
        pathlib.Path(stdout_path).write_text(r.stdout)
    return True


def five_steps_range(events_csv, o):
    """--range for five steps from the middle of the job: rank 0's step events in the CSV (the
    step length depends on the straggler); without a CSV, five periods from the middle."""
    starts = []
    if events_csv:
        with open(events_csv, newline="", encoding="utf-8") as f:
            starts = sorted(int(r["start_ns"]) for r in csv.DictReader(f)
                            if r["rank"] == "0" and r["name"] == "step")
    if len(starts) >= 6:
        first = len(starts) // 2 - 3
        return f"{starts[first]}:{starts[first + 5]}"
    mid = o.steps * o.period_ms // 2  # ms from the first event
    return f"{mid}ms:{mid + 5 * o.period_ms}ms"


def write_outputs(tools, jobdir, out, o):
    """PNGs (whole job, and five steps from its middle), events CSV, stats (text and JSON).
    Returns {what: path} of what was written."""
    written = {}
    env = dict(os.environ)
    if not env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    if tools.has("export", "--csv"):
        if run_tool(tools, ["export", str(jobdir), "--csv", str(out / "events.csv")], "CSV export"):
            written["events CSV"] = out / "events.csv"
    else:
        say("demo: this build's `syncline` has no `export --csv` yet (being written): no events CSV")
    if tools.has("export", "--png"):
        if run_tool(tools, ["export", str(jobdir), "--png", str(out / "timeline.png"),
                            "--width", "1920", "--height", "1080"], "PNG export", env=env):
            written["timeline PNG"] = out / "timeline.png"
        if run_tool(tools, ["export", str(jobdir), "--png", str(out / "timeline-steps.png"),
                            "--range", five_steps_range(written.get("events CSV"), o)],
                    "PNG export (zoom)", env=env):
            written["5 steps PNG"] = out / "timeline-steps.png"
    else:
        say("demo: this build's `syncline` has no `export --png` yet (being written): no PNG")
    if tools.has("stats"):
        if run_tool(tools, ["stats", str(jobdir)], "stats", stdout_path=out / "stats.txt"):
            written["stats"] = out / "stats.txt"
        if run_tool(tools, ["stats", str(jobdir), "--json"], "stats --json",
                    stdout_path=out / "stats.json"):
            written["stats JSON"] = out / "stats.json"
    else:
        say("demo: this build's `syncline` has no `stats` yet (being written): no statistics")
    return written


def first_event_and_header(log):
    """The log's header and the local stamp of its first B/I/X record."""
    header, first = None, None
    with open(log, encoding="utf-8") as f:
        for line in f:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r.get("t") == "header":
                header = r
            elif r.get("t") in ("B", "I", "X"):
                first = r["ts"] if first is None else min(first, r["ts"])
                if first is not None and header is not None:
                    break
    return header, first


def true_minus_local(header, local_ns):
    """global − local at local_ns, from the header's `skew` (the truth; no skew: 0): the stamps
    are raw·(1 + ppm·1e-6) + offset and the reference is the machine's raw clock."""
    skew = header.get("skew")
    if not skew:
        return 0.0
    raw = (local_ns - skew["offset_ns"]) / (1.0 + skew["drift_ppm"] * 1e-6)
    return raw - local_ns


def report_clocks(jobdir, stats_json):
    say("\n=== clocks: raw vs corrected ===")
    logs = {}
    for log in sorted(jobdir.glob("timer_events.*.log")):
        header, first = first_event_and_header(log)
        if header and first is not None:
            logs[header["rank"]] = (header, first)
    skewed = [h for h, _ in logs.values() if h.get("skew")]
    if skewed:
        h = skewed[0]
        raw_now = h["start_ns"]  # host-b's clock at start: raw·(1+ppm) + offset
        apart = raw_now - (raw_now - h["skew"]["offset_ns"]) / (1 + h["skew"]["drift_ppm"] * 1e-6)
        say(f"raw clocks: {h['host']} read {apart / 1e6:+.3f} ms against host-a when the job "
            f"started ({h['skew']['offset_ns'] / 1e6:.1f} ms offset + {h['skew']['drift_ppm']:g} "
            f"ppm of drift since boot, from the log headers' `skew`), and drifts "
            f"{h['skew']['drift_ppm']:g} µs further apart every second.")
        say(f"wall clocks (what viewers without skew correction align by): {h['host']} is "
            f"{h['skew']['offset_ns'] / 1e6:+.1f} ms off at the start and drifts "
            f"{h['skew']['drift_ppm']:g} µs/s — the viewer's View ▸ Raw clocks (no correction) shows that.")
    estimated = {}
    if stats_json and pathlib.Path(stats_json).exists():
        for w in json.loads(pathlib.Path(stats_json).read_text())["workers"]:
            estimated[w["rank"]] = w["clock"]
    if not estimated:
        say("corrected: no `syncline stats --json` output, so no estimates to compare")
        return
    # Offsets are "global − local at the worker's first event"; compare them relative to rank 0
    # so the comparison does not depend on where the global scale's zero is.
    r0 = min(logs)
    base_true = true_minus_local(*logs[r0])
    base_est = estimated[r0]["offset_ns"]
    say(f"{'rank':>4} {'host':<7} {'raw clock vs rank ' + str(r0):>22} "
        f"{'syncline estimate':>18} {'error':>10} {'bound':>10} {'drift est.':>11}  method")
    worst = max_truth = 0.0
    outside = []
    for rank in sorted(logs):
        header, first = logs[rank]
        truth = -(true_minus_local(header, first) - base_true)  # how far ahead this clock is
        est = -(estimated[rank]["offset_ns"] - base_est)
        err = est - truth
        worst = max(worst, abs(err))
        max_truth = max(max_truth, abs(truth))
        if abs(err) > estimated[rank]["bound_ns"] + estimated[r0]["bound_ns"]:
            outside.append(rank)
        c = estimated[rank]
        say(f"{rank:>4} {header['host']:<7} {truth / 1e6:>19.3f} ms {est / 1e6:>15.3f} ms "
            f"{err / 1e3:>7.1f} µs {c['bound_ns'] / 1e3:>7.1f} µs {c['drift_ppm']:>7.1f} ppm  "
            f"{c['method']}")
    say(f"raw: the hosts' monotonic clocks disagree by {max_truth / 1e6:.3f} ms; corrected: the largest "
        f"error left is {worst / 1e3:.1f} µs "
        f"({'every one within its bound' if not outside else f'ranks {outside} outside their bounds'}"
        f", bounds relative to rank {r0} add rank {r0}'s).")


def open_viewer(tools, jobdir, o, attached):
    if o.no_viewer:
        say("demo: no window: --no-viewer given")
        return
    if not os.environ.get("DISPLAY"):
        say(f"demo: no window: $DISPLAY is not set (a headless session), so the timeline was "
            f"written as a PNG instead. On a desktop: {tools.syncline} open {jobdir}")
        return
    if attached:
        say("demo: the live viewer stays open; close it to finish")
        attached.wait()
        return
    if not tools.has("open"):
        say("demo: this build has no viewer (`syncline open` missing): nothing to show")
        return
    say(f"demo: opening the viewer: {tools.syncline} open {jobdir} (close it to finish)")
    subprocess.run([str(tools.syncline), "open", str(jobdir)])


def main():
    o = parse_args()
    tools = Tools(o.build)
    out = pathlib.Path(o.out).resolve()
    jobdir = out / "job"
    if jobdir.exists():
        shutil.rmtree(jobdir)
    jobdir.mkdir(parents=True)
    shutil.copyfile(HERE / "timer_config.json", jobdir / "timer_config.json")
    attached = None
    if os.environ.get("DISPLAY") and not o.no_viewer:
        if tools.has("attach"):
            say(f"demo: opening the live viewer: {tools.syncline} attach {jobdir}")
            attached = subprocess.Popen([str(tools.syncline), "attach", str(jobdir)],
                                        stderr=subprocess.PIPE, text=True)
            try:  # a viewer that cannot open exits at once: then open the finished job instead
                rc = attached.wait(timeout=1.0)
                say(f"demo: `syncline attach` exited ({rc}): {attached.stderr.read().strip()}; "
                    f"the viewer opens when the job ends")
                attached = None
            except subprocess.TimeoutExpired:
                pass
        else:
            say("demo: this build has no `syncline attach` yet: the viewer opens when the job ends")
    started = time.monotonic()
    run_job(tools, o, jobdir)
    say(f"demo: job finished in {time.monotonic() - started:.1f} s; logs in {jobdir}")
    written = write_outputs(tools, jobdir, out, o)
    report_clocks(jobdir, written.get("stats JSON"))
    if "stats" in written:
        # `syncline stats` prints blank-line separated sections: clocks, events, stragglers.
        sections = written["stats"].read_text().split("\n\n")
        say("\n=== syncline stats: busiest events and stragglers ===")
        for section in sections[1:]:
            say("\n".join(section.strip().splitlines()[:9]))
    say("\n=== outputs ===")
    say(f"job directory  {jobdir}")
    for what, path in written.items():
        say(f"{what:<14} {path}")
    open_viewer(tools, jobdir, o, attached)


if __name__ == "__main__":
    main()
