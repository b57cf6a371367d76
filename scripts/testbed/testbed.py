"""A multi-host testbed on one Linux machine, for syncline's integration tests and demo.

Each emulated host is a process tree in its own network, UTS, mount and time namespaces: its own
hostname, its own boot id (a file bind-mounted over /proc/sys/kernel/random/boot_id, the file the
recorder and the time server read), its own CLOCK_MONOTONIC/_RAW/BOOTTIME offset (a time
namespace), its own /etc/hosts naming every testbed host. Hosts are linked to a router namespace
by veth pairs (host k: 10.201.k.2/24, router 10.201.k.1); in the router, iptables sends each
direction of each link to its own NFQUEUE and `delayline` (delayline.c beside this file) holds
every packet for that direction's delay plus a uniform jitter, in order. A packet from host a to
host b waits up(a) + down(b). Truth: the offsets and delays set here (`Testbed.truth()`), and
the one-way delays achieved, measured with `probe()` (exact, since all namespaces read the same
physical clock and the offsets are known).

Nothing outside the namespaces created here is touched: the veths are created inside the router
namespace, the iptables rules live in it, the bind mounts in the hosts' private mount namespaces.
`close()` (also on an exception, SIGINT or SIGTERM in the `with` block) kills every process in
those namespaces, which removes the namespaces, veths, rules and mounts with them.
`python3 testbed.py cleanup` does the same for testbeds left behind by a killed driver.

Needs root, util-linux's unshare/nsenter with time namespaces, iproute2, iptables with NFQUEUE,
and the delayline binary (built by CMake into <build>/bin when libnetfilter-queue-dev is
installed; scripts/setup.sh installs it). `unavailable(delayline)` says what is missing.

Threads: none; a Testbed is used from one thread.
"""
import ctypes
import dataclasses
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

HERE = pathlib.Path(__file__).resolve().parent
ANCHOR_TAG = "syncline-testbed-anchor"
MARK_VAR = "SYNCLINE_TESTBED_PROCESS"
CLONE_NEWTIME, CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWNET = 0x80, 0x20000, 0x04000000, 0x40000000
MS_REC, MS_PRIVATE, MS_BIND = 0x4000, 0x40000, 0x1000
BOOT_ID_FILE = "/proc/sys/kernel/random/boot_id"


@dataclasses.dataclass
class Host:
    """One emulated host. Delays in ns: up = host -> router, down = router -> host; each
    packet gets delay + uniform [0, jitter]. offset_ns is added to the host's monotonic and
    boottime clocks (must keep them positive: the kernel refuses a negative clock)."""
    name: str
    offset_ns: int = 0
    up_ns: int = 0
    down_ns: int = 0
    up_jitter_ns: int = 0
    down_jitter_ns: int = 0
    boot_id: str = ""
    index: int = -1

    @property
    def ip(self):
        return f"10.201.{self.index}.2"


def unavailable(delayline):
    """Why the testbed cannot run here ("" when it can): root, kernel features, tools."""
    if os.geteuid() != 0:
        return "needs root (namespaces, veths, iptables)"
    for tool in ("unshare", "nsenter", "ip", "iptables"):
        if not shutil.which(tool):
            return f"needs `{tool}` (util-linux, iproute2, iptables; scripts/setup.sh)"
    if not os.path.exists("/proc/self/timens_offsets"):
        return "the kernel has no time namespaces (Linux 5.6+, CONFIG_TIME_NS)"
    if not delayline or not pathlib.Path(delayline).exists():
        return (f"the delay line is not built ({delayline}; needs libnetfilter-queue-dev, "
                "installed by scripts/setup.sh, then a CMake build)")
    probe = subprocess.run(
        ["unshare", "--net", "--uts", "--mount", "--time", "--fork", "sh", "-c",
         "iptables -t mangle -A PREROUTING -p udp -j NFQUEUE --queue-num 1 && "
         "ip link add name tbp0 type veth peer name tbp1 && "
         f"mount --bind /dev/null {BOOT_ID_FILE} && {delayline} --check 1:0:0"],
        capture_output=True, text=True, timeout=30, env=_plain_env())
    if probe.returncode != 0:
        return ("the kernel lacks a needed feature (network/time/mount namespaces, veth, "
                "NFQUEUE and its netlink queue, bind mount over procfs): " + probe.stderr.strip()[-300:])
    return ""


def _plain_env():
    """The environment without a sanitizer runtime preloaded (the suite under ASan preloads it
    into every child; the testbed's own tools are not what is tested)."""
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def build_delayline(out_dir):
    """Compiles delayline.c into out_dir; returns (path, "") or (None, why not)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None, "no C compiler"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libnetfilter_queue"],
                           capture_output=True, text=True)
    if flags.returncode != 0:
        return None, ("libnetfilter-queue-dev is not installed (scripts/setup.sh installs it): "
                      + flags.stderr.strip())
    out = pathlib.Path(out_dir) / "delayline"
    r = subprocess.run([cc, "-O2", "-Wall", "-o", str(out), str(HERE / "delayline.c")]
                       + flags.stdout.split(), capture_output=True, text=True, env=_plain_env())
    if r.returncode != 0:
        return None, "delayline.c did not compile: " + r.stderr.strip()[-500:]
    return out, ""


def netem_available():
    """Whether this kernel has sch_netem (the testbed never needs it: see delayline.c)."""
    r = subprocess.run(["unshare", "--net", "sh", "-c", "ip link set lo up && "
                        "tc qdisc add dev lo root netem delay 1ms"],
                       capture_output=True, text=True, timeout=30, env=_plain_env())
    return r.returncode == 0


def _anchor(argv):
    """Runs as a child of the driver (python3 testbed.py _anchor ...): creates the namespaces,
    sets them up, forks the process that holds them (inside the time namespace too) and reports
    its pid. Exits when the driver closes its stdin or dies."""
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("--kind", choices=("host", "router"), required=True)
    p.add_argument("--hostname", default="")
    p.add_argument("--offset-ns", type=int, default=0)
    p.add_argument("--boot-id-file", default="")
    p.add_argument("--hosts-file", default="")
    o = p.parse_args(argv)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: never outlive the driver
    flags = CLONE_NEWNET | CLONE_NEWUTS
    if o.kind == "host":
        flags |= CLONE_NEWNS | CLONE_NEWTIME
    if libc.unshare(flags) != 0:
        sys.exit(f"unshare: {os.strerror(ctypes.get_errno())}")
    if o.kind == "host":
        sec, nsec = divmod(o.offset_ns, 1_000_000_000)
        for clock in ("monotonic", "boottime"):
            fd = os.open("/proc/self/timens_offsets", os.O_WRONLY)
            try:
                os.write(fd, f"{clock} {sec} {nsec}\n".encode())  # one write, as the kernel wants
            finally:
                os.close(fd)
        if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            sys.exit(f"mount --make-rprivate /: {os.strerror(ctypes.get_errno())}")
        for src, dst in ((o.boot_id_file, BOOT_ID_FILE), (o.hosts_file, "/etc/hosts")):
            if libc.mount(src.encode(), dst.encode(), None, MS_BIND, None) != 0:
                sys.exit(f"bind {src} over {dst}: {os.strerror(ctypes.get_errno())}")
    name = (o.hostname or "tb-router").encode()
    if libc.sethostname(name, len(name)) != 0:
        sys.exit(f"sethostname: {os.strerror(ctypes.get_errno())}")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the holder: in every namespace (the time namespace applies to children)
        os.close(w)
        libc.prctl(1, signal.SIGKILL)
        os.read(r, 1)  # until the anchor goes
        os._exit(0)
    os.close(r)
    sys.stdout.write(f"{pid}\n")
    sys.stdout.flush()
    sys.stdin.read()  # until the driver closes our stdin (or dies)
    os._exit(0)


def _ns_inode(pid, ns="net"):
    try:
        return os.stat(f"/proc/{pid}/ns/{ns}").st_ino
    except OSError:
        return None


def _pids_in_netns(inodes):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            if _ns_inode(entry) in inodes:
                out.append(int(entry))
    return out


def _kill_all(inodes):
    """SIGKILLs every process in the network namespaces `inodes` until none is left."""
    for _ in range(100):
        pids = _pids_in_netns(inodes)
        if not pids:
            return True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    return not _pids_in_netns(inodes)


class Testbed:
    def __init__(self, hosts, delayline, workdir=None, seed=1, realtime=True):
        self.hosts = list(hosts)
        for i, h in enumerate(self.hosts):
            h.index = i
            if not h.boot_id:
                h.boot_id = str(uuid.UUID(int=(seed << 64) + i + 1, version=4))
        self.delayline = str(delayline)
        self.seed = seed
        self.realtime = realtime
        self._own_workdir = workdir is None
        self.workdir = pathlib.Path(workdir or tempfile.mkdtemp(prefix="syncline-testbed-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._anchors = []   # Popen of each anchor (router first)
        self._holders = {}   # name -> holder pid ("router" and each host)
        self._inodes = set()
        self._procs = []
        self._delay_proc = None
        self.delayline_stats = None
        self._old_handlers = {}

    # ---- lifecycle
    def __enter__(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @staticmethod
    def _on_signal(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    def _start_anchor(self, *args):
        p = subprocess.Popen([sys.executable, str(HERE / "testbed.py"), "_anchor", *args,
                              "--", ANCHOR_TAG], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, start_new_session=True)
        self._anchors.append(p)
        line = p.stdout.readline()
        if not line.strip().isdigit():
            p.wait(timeout=10)
            raise RuntimeError(f"testbed: namespace setup failed ({' '.join(args)}), exit {p.returncode}")
        pid = int(line)
        self._inodes.add(_ns_inode(pid))
        return pid

    def start(self):
        hosts_file = self.workdir / "hosts"
        hosts_file.write_text("127.0.0.1 localhost\n::1 localhost\n" + "".join(
            f"{h.ip} {h.name}\n" for h in self.hosts))
        self._holders["router"] = self._start_anchor("--kind", "router")
        for h in self.hosts:
            boot = self.workdir / f"boot_id.{h.name}"
            boot.write_text(h.boot_id + "\n")
            self._holders[h.name] = self._start_anchor(
                "--kind", "host", "--hostname", h.name, "--offset-ns", str(h.offset_ns),
                "--boot-id-file", str(boot), "--hosts-file", str(hosts_file))
        router = self._holders["router"]
        # /proc/sys/net is the opener's network namespace's: this turns on forwarding in the router only.
        script = ["set -e", "ip link set lo up", "echo 1 > /proc/sys/net/ipv4/ip_forward"]
        queues = []
        for h in self.hosts:
            k = h.index
            script += [
                f"ip link add name tb{k} type veth peer name eth0 netns {self._holders[h.name]}",
                f"ip addr add 10.201.{k}.1/24 dev tb{k}", f"ip link set tb{k} up",
                f"iptables -t mangle -A PREROUTING -i tb{k} -j NFQUEUE --queue-num {2 * k}",
                f"iptables -t mangle -A POSTROUTING -o tb{k} -j NFQUEUE --queue-num {2 * k + 1}"]
            queues += [f"{2 * k}:{h.up_ns}:{h.up_jitter_ns}",
                       f"{2 * k + 1}:{h.down_ns}:{h.down_jitter_ns}"]
        # The delay line first: a packet queued to an NFQUEUE nobody listens on is dropped.
        self._delay_proc = self.popen_ns(
            router, [self.delayline, "--seed", str(self.seed)] + (["--rt"] if self.realtime else [])
            + queues, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_plain_env())
        if self._delay_proc.stdout.readline().strip() != "ready":
            raise RuntimeError("testbed: delayline did not start: " + self._delay_proc.stderr.read())
        self._sh(router, "\n".join(script))
        for h in self.hosts:
            self._sh(self._holders[h.name], "\n".join([
                "set -e", "ip link set lo up", f"ip addr add {h.ip}/24 dev eth0",
                "ip link set eth0 up", f"ip route add default via 10.201.{h.index}.1"]))

    def close(self):
        """Stops everything in the testbed's namespaces (they, their veths, iptables rules and
        mounts go with the last process). Idempotent; safe after a failed start."""
        if self._delay_proc and self._delay_proc.poll() is None:
            self._delay_proc.terminate()
            try:
                out, _ = self._delay_proc.communicate(timeout=10)
                line = out.strip().splitlines()[-1] if out.strip() else ""
                self.delayline_stats = json.loads(line) if line.startswith("{") else None
            except subprocess.TimeoutExpired:
                pass
        for p in self._procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        inodes = {i for i in self._inodes if i is not None}
        ok = _kill_all(inodes)
        for p in self._anchors:
            if p.poll() is None:
                p.kill()
            p.wait()
            for f in (p.stdin, p.stdout):
                if f:
                    f.close()
        for p in self._procs + ([self._delay_proc] if self._delay_proc else []):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self._anchors, self._procs, self._inodes = [], [], set()
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old)
        self._old_handlers = {}
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        if not ok:
            raise RuntimeError("testbed: processes in its namespaces survived SIGKILL")

    # ---- running things
    def popen_ns(self, holder, argv, **kw):
        """A process in the namespaces of holder pid (its own session: killed by close())."""
        kw.setdefault("start_new_session", True)
        # Entering a mount namespace resets the working directory: nsenter --wd sets it after.
        wd = pathlib.Path(kw.pop("cwd", None) or os.getcwd()).resolve()
        # A mark `cleanup` finds in /proc/PID/environ should the driver die without cleaning up.
        kw["env"] = dict(kw.get("env") or os.environ, **{MARK_VAR: "1"})
        p = subprocess.Popen(["nsenter", "-t", str(holder), "--net", "--uts", "--mount",
                              "--time", f"--wd={wd}", "--"] + [str(a) for a in argv], **kw)
        self._procs.append(p)
        return p

    def _sh(self, holder, script):
        p = self.popen_ns(holder, ["sh", "-c", script], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=_plain_env())
        out, _ = p.communicate(timeout=60)
        if p.returncode != 0:
            raise RuntimeError(f"testbed: setup failed: {out.strip()}\n--- script:\n{script}")

    def host(self, name):
        return next(h for h in self.hosts if h.name == name)

    def popen(self, host, argv, **kw):
        """Starts argv on `host` (a name): its network, hostname, mounts and clocks."""
        return self.popen_ns(self._holders[host], argv, **kw)

    def run(self, host, argv, timeout=120, **kw):
        kw.setdefault("stdout", subprocess.PIPE)
        kw.setdefault("stderr", subprocess.PIPE)
        kw.setdefault("text", True)
        p = self.popen(host, argv, **kw)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            raise
        return subprocess.CompletedProcess(p.args, p.returncode, out, err)

    # ---- truth
    def truth(self):
        """{host: {offset_ns, boot_id, ip, up_ns, down_ns, up_jitter_ns, down_jitter_ns}}."""
        return {h.name: {k: getattr(h, k) for k in (
            "offset_ns", "boot_id", "ip", "up_ns", "down_ns", "up_jitter_ns", "down_jitter_ns")}
            for h in self.hosts}

    def configured_one_way_ns(self, src, dst):
        """The configured minimum one-way delay src -> dst (jitter excluded)."""
        return self.host(src).up_ns + self.host(dst).down_ns

    def probe(self, client, server, count=200, interval_s=0.002, port=47001):
        """Measures the one-way delays client -> server and back with UDP ping-pongs stamped by
        each host's CLOCK_MONOTONIC_RAW and corrected by the known offsets (exact: the hosts
        share one physical clock). Returns {"forward_min_ns", "back_min_ns", "forward_p50_ns",
        "back_p50_ns", "rtt_min_ns", "count"}."""
        probe = HERE / "owd_probe.py"
        srv = self.popen(server, [sys.executable, probe, "serve", port, count],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=_plain_env())
        if srv.stdout.readline().strip() != "ready":
            raise RuntimeError("owd_probe serve: " + srv.stderr.read())
        cli = self.run(client, [sys.executable, probe, "ping", self.host(server).ip, port, count,
                                interval_s], timeout=60 + count * interval_s * 4,
                       env=_plain_env())
        srv.wait(timeout=30)
        if cli.returncode != 0:
            raise RuntimeError("owd_probe ping: " + cli.stderr)
        d = self.host(server).offset_ns - self.host(client).offset_ns  # server clock - client clock
        fwd, back, rtt = [], [], []
        for line in cli.stdout.splitlines():
            t1, t2, t3, t4 = map(int, line.split())
            fwd.append(t2 - t1 - d)
            back.append(t4 - t3 + d)
            rtt.append((t4 - t1) - (t3 - t2))
        if not fwd:
            raise RuntimeError("owd_probe: no exchange completed")
        fwd.sort()
        back.sort()
        return {"forward_min_ns": fwd[0], "back_min_ns": back[0],
                "forward_p50_ns": fwd[len(fwd) // 2], "back_p50_ns": back[len(back) // 2],
                "rtt_min_ns": min(rtt), "count": len(fwd)}


def cleanup():
    """Kills what testbeds whose driver died (SIGKILL) left behind: their anchors and every
    process started in their namespaces (marked in its environment), outside this namespace."""
    own = _ns_inode("self")
    inodes = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or _ns_inode(entry) in (own, None):
            continue
        try:
            cmd = pathlib.Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            env = pathlib.Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if ANCHOR_TAG.encode() in cmd or f"{MARK_VAR}=1".encode() in env:
            inodes.add(_ns_inode(entry))
    inodes.discard(None)
    _kill_all(inodes)
    print(f"testbed cleanup: {len(inodes)} namespace(s) emptied")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_anchor":
        argv = sys.argv[2:]
        if "--" in argv:
            argv = argv[:argv.index("--")]
        _anchor(argv)
    elif len(sys.argv) > 1 and sys.argv[1] == "cleanup":
        cleanup()
    else:
        sys.exit("usage: testbed.py cleanup   (the testbed is used as a library: see its docstring"
                 " and tests/python/test_testbed.py)")
