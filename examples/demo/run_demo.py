#!/usr/bin/python3
"""The demo job (README's first command, via `make demo` → scripts/demo.sh).

A real PyTorch Distributed Elastic job: `torchrun` (torch.distributed.run, Debian's
python3-torch) starts 8 workers of torch_worker.py — DistributedDataParallel over gloo on a
small model with synthetic data, recorded with syncline.FileTimerClient — on two emulated hosts
whose clocks disagree (host-b: +3.2 ms and +40 ppm, through the recorder's documented test
facility SYNCLINE_TEST_CLOCK_*; each host its own clock domain through SYNCLINE_HOST /
SYNCLINE_BOOT_ID). One agent stands for both hosts: the worker picks its emulated host from
its LOCAL_RANK (ranks 0–3 host-a, 4–7 host-b) before the recorder starts. The real time server
(`syncline timeserver`) runs beside it. Rank 5 (host-b) is a straggler; rank 3 crashes once,
hard, mid-run (restart count 0): torchelastic (`--max_restarts 1`) stops the group and restarts
all 8 workers with TORCHELASTIC_RESTART_COUNT=1; they resume from rank 0's last checkpoint and
write new logs (timer_events.<rank>.r1.log), so the timeline holds restart 0 (rank 3's log
ending without a close record) and restart 1.

With $DISPLAY the viewer opens live (`syncline attach`) while the job runs. Always: writes the
timeline PNG, the events CSV and the stats, prints their paths, and prints raw vs corrected
clocks side by side: the truth from each log header's `skew`, the engine's estimate from
`syncline stats --json`, the error and the bound.
"""
import argparse
import csv
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NPROC, HOSTS = 8, ("host-a", "host-b")
STRAGGLER, CRASH_RANK = 5, 3
HOST_B_OFFSET_NS, HOST_B_DRIFT_PPM = 3_200_000, 40.0
# Debian's torchrun (Python 3.11) crashes at start with its default --redirects/--tee 0
# (docs/pytorch.md); any non-zero value works.
TORCHRUN_FIXES = ["--redirects", "2", "--tee", "2"]


def say(msg=""):
    print(msg, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=str(ROOT / "build"), help="build directory (default build)")
    p.add_argument("--out", default=str(ROOT / "demo-output"),
                   help="output directory (default demo-output); the job's logs go to OUT/job")
    p.add_argument("--steps", type=int, default=120, help="training steps (120)")
    p.add_argument("--crash-step", type=int, default=50,
                   help=f"step at which rank {CRASH_RANK} crashes in restart 0 (50; -1: never)")
    p.add_argument("--checkpoint-every", type=int, default=10,
                   help="rank 0 checkpoints every N steps; restart 1 resumes from the last (10)")
    p.add_argument("--no-viewer", action="store_true", help="never open a window")
    return p.parse_args()


class Tools:
    """The build's programs, and which `syncline` verbs this build has."""

    def __init__(self, build):
        self.build = pathlib.Path(build).resolve()
        self.syncline = self.build / "bin" / "syncline"
        self.pymodule = self.build / "python"
        if not self.syncline.exists():
            sys.exit(f"demo: {self.syncline} not found: build first (make, or cmake --build "
                     f"{self.build})")
        if not list(self.pymodule.glob("syncline/_core*.so")):
            sys.exit(f"demo: the Python module is not built in {self.pymodule} "
                     f"(cmake --build {self.build} --target syncline_python)")
        r = subprocess.run(["/usr/bin/python3", "-c", "import torch.distributed.run"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("demo: PyTorch is not installed for /usr/bin/python3 (Debian: apt-get install "
                     "python3-torch; scripts/setup.sh does it): " + r.stderr.strip()[-200:])

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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun_command(o, jobdir, run_id):
    """The torchrun command line (printed, so a user can rerun it by hand)."""
    return ["/usr/bin/python3", "-m", "torch.distributed.run", *TORCHRUN_FIXES,
            "--nnodes", "1", "--nproc_per_node", str(NPROC), "--max_restarts", "1",
            "--monitor_interval", "0.5", "--role", "trainer",
            "--rdzv_backend", "c10d", "--rdzv_endpoint", f"127.0.0.1:{free_port()}",
            "--rdzv_id", run_id, "--log_dir", str(jobdir.parent / "torchrun-logs"),
            str(HERE / "torch_worker.py"),
            "--config", str(jobdir / "timer_config.json"),
            "--log", str(jobdir / "timer_events.{rank}.log"),
            "--steps", str(o.steps), "--straggler", str(STRAGGLER),
            "--crash-rank", str(CRASH_RANK), "--crash-step", str(o.crash_step),
            "--checkpoint", str(jobdir.parent / "checkpoint"),
            "--checkpoint-every", str(o.checkpoint_every),
            "--hosts", ",".join(HOSTS), "--skew", f"{HOST_B_OFFSET_NS},{HOST_B_DRIFT_PPM:g}"]


def run_job(tools, o, jobdir):
    server = TimeServer(tools)
    say(f"demo: time server: {server.banner}")
    run_id = time.strftime("demo-%Y%m%d-%H%M%S")
    env = dict(os.environ)
    for key in list(env):
        if key.startswith("SYNCLINE_") or key in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
            del env[key]
    env["SYNCLINE_TIME_SERVER"] = server.address
    env["PYTHONPATH"] = os.pathsep.join([str(tools.pymodule), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep)
    ckpt = jobdir.parent / "checkpoint"
    shutil.rmtree(ckpt, ignore_errors=True)
    ckpt.mkdir(parents=True)
    cmd = torchrun_command(o, jobdir, run_id)
    say(f"demo: {NPROC} workers on {' and '.join(HOSTS)} (ranks 0-3 and 4-7), rank {STRAGGLER} is "
        f"the straggler, rank {CRASH_RANK} crashes at step {o.crash_step} and torchelastic "
        f"restarts the group once:")
    say("demo: " + " ".join(cmd))
    r = subprocess.run(cmd, cwd=str(jobdir), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=900)
    for line in r.stdout.splitlines():
        # The workers' own lines ("rank N ...": torchrun's tee may run two together) and the
        # agent's about the failure and the restart.
        for part in re.split(r"(?<=\S)(?=rank \d+[ :])", line):
            if re.match(r"^(\[\w+\]:)?rank \d+|.*(failed \(exitcode|Sending process)", part):
                say("  " + part)
    for line in server.stop():
        say(f"demo: {line}")
    if r.returncode != 0:
        say(r.stdout[-4000:])
        sys.exit(f"demo: torchrun failed (exit {r.returncode})")
    return run_id


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


def five_steps_range(events_csv):
    """--range for five steps of restart 0 before the crash: rank 0's step events in the CSV (the
    step length depends on the straggler and the machine); None without them."""
    starts = []
    if events_csv:
        with open(events_csv, newline="", encoding="utf-8") as f:
            starts = sorted(int(r["start_ns"]) for r in csv.DictReader(f)
                            if r["rank"] == "0" and r["restart"] == "0" and r["name"] == "step")
    if len(starts) < 6:
        return None
    first = len(starts) // 2 - 3
    return f"{starts[first]}:{starts[first + 5]}"


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
        steps = five_steps_range(written.get("events CSV"))
        if steps and run_tool(tools, ["export", str(jobdir), "--png",
                                      str(out / "timeline-steps.png"), "--range", steps],
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
    if tools.has("diagnose") and run_tool(tools, ["diagnose", "-q", str(jobdir)], "diagnose",
                                          stdout_path=out / "diagnose.txt"):
        written["diagnosis"] = out / "diagnose.txt"
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


def incarnation_key(d):
    """A worker incarnation: (rank, restart, pid) — from a log header or a stats JSON worker."""
    return d["rank"], d["restart"], d["pid"]


def report_incarnations(stats_json):
    """One line per restart count: its workers, and which ended without a close record."""
    if not stats_json or not pathlib.Path(stats_json).exists():
        return
    workers = json.loads(pathlib.Path(stats_json).read_text())["workers"]
    say("\n=== incarnations (torchelastic restarts) ===")
    for restart in sorted({w["restart"] for w in workers}):
        these = [w for w in workers if w["restart"] == restart]
        crashed = [w["rank"] for w in these if not w["closed"]]
        say(f"restart {restart}: {len(these)} workers (ranks {', '.join(str(w['rank']) for w in these)}), "
            f"world size {sorted({w['world_size'] for w in these})}; "
            + (f"ended without a close record: rank {', '.join(map(str, crashed))}" if crashed
               else "every log closed"))


def report_clocks(jobdir, stats_json):
    say("\n=== clocks: raw vs corrected ===")
    logs = {}
    for log in sorted(jobdir.glob("timer_events.*.log")):
        header, first = first_event_and_header(log)
        if header and first is not None:
            logs[incarnation_key(header)] = (header, first)
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
            estimated[incarnation_key(w)] = w["clock"]
    if not estimated:
        say("corrected: no `syncline stats --json` output, so no estimates to compare")
        return
    # Offsets are "global − local at the worker's first event"; compare them relative to rank 0
    # so the comparison does not depend on where the global scale's zero is.
    r0 = min(logs)
    base_true = true_minus_local(*logs[r0])
    base_est = estimated[r0]["offset_ns"]
    say(f"{'rank':>4} {'restart':>7} {'host':<7} {'raw clock vs rank ' + str(r0[0]):>22} "
        f"{'syncline estimate':>18} {'error':>10} {'bound':>10} {'drift est.':>11}  method")
    worst = max_truth = 0.0
    outside = []
    for key in sorted(logs):
        header, first = logs[key]
        truth = -(true_minus_local(header, first) - base_true)  # how far ahead this clock is
        est = -(estimated[key]["offset_ns"] - base_est)
        err = est - truth
        worst = max(worst, abs(err))
        max_truth = max(max_truth, abs(truth))
        if abs(err) > estimated[key]["bound_ns"] + estimated[r0]["bound_ns"]:
            outside.append(key[:2])
        c = estimated[key]
        say(f"{key[0]:>4} {key[1]:>7} {header['host']:<7} {truth / 1e6:>19.3f} ms {est / 1e6:>15.3f} ms "
            f"{err / 1e3:>7.1f} µs {c['bound_ns'] / 1e3:>7.1f} µs {c['drift_ppm']:>7.1f} ppm  "
            f"{c['method']}")
    say(f"raw: the hosts' monotonic clocks disagree by {max_truth / 1e6:.3f} ms; corrected: the largest "
        f"error left is {worst / 1e3:.1f} µs "
        f"({'every one within its bound' if not outside else f'(rank, restart) {outside} outside their bounds'}"
        f", bounds relative to rank {r0[0]} add rank {r0[0]}'s).")


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
            # --ended-after: the emulated hosts have boot ids of their own, so the viewer takes
            # the workers for remote ones and cannot ask the kernel whether the crashed one is
            # gone; 3 s of silence without a close record marks it "ended without close".
            say(f"demo: opening the live viewer: {tools.syncline} attach {jobdir} --ended-after 3")
            attached = subprocess.Popen([str(tools.syncline), "attach", str(jobdir),
                                         "--ended-after", "3"],
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
    report_incarnations(written.get("stats JSON"))
    report_clocks(jobdir, written.get("stats JSON"))
    if "stats" in written:
        # `syncline stats` prints blank-line separated sections: clocks, events, stragglers.
        sections = written["stats"].read_text().split("\n\n")
        say("\n=== syncline stats: busiest events and stragglers ===")
        for section in sections[1:]:
            say("\n".join(section.strip().splitlines()[:9]))
    if "diagnosis" in written:  # who holds the job back (docs/straggler.md)
        say("\n=== syncline diagnose: who holds the job back ===")
        say(written["diagnosis"].read_text().rstrip())
    say("\n=== outputs ===")
    say(f"job directory  {jobdir}")
    for what, path in written.items():
        say(f"{what:<14} {path}")
    open_viewer(tools, jobdir, o, attached)


if __name__ == "__main__":
    main()
