#!/usr/bin/python3
"""The demo job (README's first command, via `make demo` → scripts/demo.sh).

A real PyTorch Distributed Elastic job: `torchrun` (torch.distributed.run, Debian's
python3-torch) starts 8 workers of torch_worker.py — DistributedDataParallel over gloo on a
small model with synthetic data, recorded with syncline.FileTimerClient — on two hosts whose
clocks disagree, host-a (ranks 0–3) and host-b (ranks 4–7). Rank 5 (host-b) is a straggler;
rank 3 crashes once, hard, mid-run (restart count 0): torchelastic (`--max_restarts 1`) stops
the group and restarts all 8 workers with TORCHELASTIC_RESTART_COUNT=1; they resume from rank
0's last checkpoint and write new logs (timer_events.<rank>.r1.log), so the timeline holds
restart 0 (rank 3's log ending without a close record) and restart 1.

Where the hosts are (--hosts; default auto: the testbed when it can run here, else emulated,
saying why in one line):
- testbed (as root, demo_testbed.py): each host its own network, UTS, mount and time namespaces
  (hostname, boot id, monotonic offset: host-b 1.23 s ahead), linked by delayed, asymmetric,
  jittery paths; one plain multi-node torchrun per host, c10d rendezvous on host-a across the
  emulated network, no time server named (the workers use rank 0's). Truth: the offsets set.
- emulated: one agent stands for both hosts; each worker picks its host from its LOCAL_RANK and
  host-b's clock gets +3.2 ms and +40 ppm through the recorder's test facility
  SYNCLINE_TEST_CLOCK_* (a clock domain of its own through SYNCLINE_HOST / SYNCLINE_BOOT_ID);
  the real time server (`syncline timeserver`) runs beside it. Truth: the headers' `skew`.

With $DISPLAY the viewer opens live (`syncline attach`) while the job runs. Always: writes the
timeline PNG, the events CSV, the stats and truth.json (the hosts and their true clocks), prints
their paths, and prints raw vs corrected clocks side by side (demo_clocks.py): per incarnation
the truth, the engine's estimate from `syncline stats --json`, the error and the bound, and per
host the achieved error.
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
sys.path.insert(0, str(HERE))
import demo_clocks  # noqa: E402
import demo_testbed  # noqa: E402

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
    p.add_argument("--hosts", choices=("auto", "testbed", "emulated"), default="auto",
                   help="where the two hosts run: the multi-host testbed (root), emulated "
                        "inside the recorder, or auto: the testbed when it can run here (auto)")
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


def worker_args(o, jobdir):
    """torch_worker.py and its arguments, the same on every host."""
    return [str(HERE / "torch_worker.py"),
            "--config", str(jobdir / "timer_config.json"),
            "--log", str(jobdir / "timer_events.{rank}.log"),
            "--steps", str(o.steps), "--straggler", str(STRAGGLER),
            "--crash-rank", str(CRASH_RANK), "--crash-step", str(o.crash_step),
            "--checkpoint", str(jobdir.parent / "checkpoint"),
            "--checkpoint-every", str(o.checkpoint_every)]


def torchrun_command(o, jobdir, run_id):
    """The emulated hosts' torchrun command line (printed, so a user can rerun it by hand)."""
    return ["/usr/bin/python3", "-m", "torch.distributed.run", *TORCHRUN_FIXES,
            "--nnodes", "1", "--nproc_per_node", str(NPROC), "--max_restarts", "1",
            "--monitor_interval", "0.5", "--role", "trainer",
            "--rdzv_backend", "c10d", "--rdzv_endpoint", f"127.0.0.1:{free_port()}",
            "--rdzv_id", run_id, "--log_dir", str(jobdir.parent / "torchrun-logs"),
            *worker_args(o, jobdir),
            "--hosts", ",".join(HOSTS), "--skew", f"{HOST_B_OFFSET_NS},{HOST_B_DRIFT_PPM:g}"]


def job_env(tools):
    """The agents' environment: nothing of an outer job, the built module on the path."""
    env = dict(os.environ)
    for key in list(env):
        if key.startswith(("SYNCLINE_", "TORCHELASTIC_")) or key in (
                "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
            del env[key]
    env["PYTHONPATH"] = os.pathsep.join([str(tools.pymodule), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep)
    return env


def print_worker_lines(output):
    """The workers' own lines ("rank N ...": torchrun's tee may run two together) and the
    agent's about the failure and the restart."""
    for line in output.splitlines():
        for part in re.split(r"(?<=\S)(?=rank \d+[ :])", line):
            if re.match(r"^(\[\w+\]:)?rank \d+|.*(failed \(exitcode|Sending process)", part):
                say("  " + part)


def fresh_checkpoint_dir(jobdir):
    ckpt = jobdir.parent / "checkpoint"
    shutil.rmtree(ckpt, ignore_errors=True)
    ckpt.mkdir(parents=True)


def announce(o, where):
    say(f"demo: {NPROC} workers on {' and '.join(HOSTS)} ({where}; ranks 0-3 and 4-7), rank "
        f"{STRAGGLER} is the straggler, rank {CRASH_RANK} crashes at step {o.crash_step} and "
        f"torchelastic restarts the group once:")


def run_emulated_job(tools, o, jobdir, run_id):
    """One agent for both hosts, the real time server beside it. Returns None: the truth is in
    the log headers (`skew`)."""
    server = TimeServer(tools)
    say(f"demo: time server: {server.banner}")
    env = job_env(tools)
    env["SYNCLINE_TIME_SERVER"] = server.address
    fresh_checkpoint_dir(jobdir)
    cmd = torchrun_command(o, jobdir, run_id)
    announce(o, "emulated inside the recorder")
    say("demo: " + " ".join(cmd))
    r = subprocess.run(cmd, cwd=str(jobdir), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=900)
    print_worker_lines(r.stdout)
    for line in server.stop():
        say(f"demo: {line}")
    if r.returncode != 0:
        say(r.stdout[-4000:])
        sys.exit(f"demo: torchrun failed (exit {r.returncode})")
    return None


def run_testbed_job(tools, o, jobdir, run_id):
    """One torchrun per testbed host, no time server named. Returns the testbed's truth."""
    fresh_checkpoint_dir(jobdir)
    announce(o, "testbed hosts: own network, hostname, boot id and monotonic clock each")
    truth, results = demo_testbed.run_job(tools.build, jobdir, run_id, TORCHRUN_FIXES,
                                          worker_args(o, jobdir), job_env(tools), say)
    for host, _, output in results:
        say(f"demo: {host}'s agent and workers:")
        print_worker_lines(output)
    for host, rc, output in results:
        if rc != 0:
            say(output[-4000:])
            sys.exit(f"demo: torchrun on {host} failed "
                     f"({'timed out' if rc is None else f'exit {rc}'})")
    return truth


def choose_hosts(tools, o):
    """"testbed" or "emulated"; falling back in auto mode, it says why in one line."""
    if o.hosts == "emulated":
        return "emulated"
    why = demo_testbed.unavailable(tools.build)
    if not why:
        return "testbed"
    if o.hosts == "testbed":
        sys.exit(f"demo: --hosts testbed: the multi-host testbed cannot run here: {why}")
    say(f"demo: hosts emulated inside the recorder: the multi-host testbed cannot run here "
        f"({why})")
    return "emulated"


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
    hosts = choose_hosts(tools, o)
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
    run_id = time.strftime("demo-%Y%m%d-%H%M%S")
    if hosts == "testbed":
        truth = run_testbed_job(tools, o, jobdir, run_id)
    else:
        truth = run_emulated_job(tools, o, jobdir, run_id)
    say(f"demo: job finished in {time.monotonic() - started:.1f} s; logs in {jobdir}")
    written = write_outputs(tools, jobdir, out, o)
    report_incarnations(written.get("stats JSON"))
    truth = truth or demo_clocks.truth_from_headers(demo_clocks.read_logs(jobdir))
    (out / "truth.json").write_text(json.dumps({"hosts": hosts, "truth": truth}, indent=1) + "\n")
    written["truth"] = out / "truth.json"
    demo_clocks.report_clocks(jobdir, written.get("stats JSON"), truth, hosts == "testbed", say)
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
    try:
        main()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM; the testbed, if any, is already removed
        sys.exit("demo: interrupted")
