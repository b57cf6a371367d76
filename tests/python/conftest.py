"""Shared helpers for the Python tests (run by ctest as `python3 -m pytest -q tests/python`,
with PYTHONPATH=<build>/python and SYNCLINE_BIN=<build>/bin)."""
import contextlib
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]

# Tests chdir into temp dirs and start subprocesses there: make the paths they inherit absolute.
for _var in ("PYTHONPATH", "SYNCLINE_BIN"):
    if os.environ.get(_var):
        os.environ[_var] = os.pathsep.join(str(pathlib.Path(p).resolve())
                                           for p in os.environ[_var].split(os.pathsep) if p)


def read_log(path, torn_tail_ok=False):
    """Every record of a syncline log as dicts (fails on a line that is not JSON).

    torn_tail_ok: the log's process died hard (os._exit, SIGKILL), so its last line may be cut
    where the kernel stopped the writer's write() at a page boundary; that line is dropped, as
    the loader drops it. Any other torn line still fails."""
    records = []
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for n, line in enumerate(lines, 1):
        if torn_tail_ok and n == len(lines) and not line.endswith("\n"):
            break
        assert line.endswith("\n"), f"{path}:{n}: torn line {line!r}"
        records.append(json.loads(line))
    return records


def events_of(records, types=("B", "E", "I", "X")):
    return [r for r in records if r["t"] in types]


def assert_valid_log(path):
    """The log parses, starts with a header, ends with close, and B/E nest per thread."""
    records = read_log(path)
    assert records[0]["t"] == "header"
    assert records[-1]["t"] == "close", records[-1]
    stacks = {}
    for r in records:
        if r["t"] == "B":
            stacks.setdefault(r["tid"], []).append(r["name"])
        elif r["t"] == "E":
            stack = stacks.get(r["tid"])
            assert stack and stack[-1] == r["name"], f"misnested E {r}"
            stack.pop()
    assert records[-1]["open"] == sum(len(s) for s in stacks.values())
    return records


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "SYNCLINE_TIME_SERVER", "SYNCLINE_HOST",
                "SYNCLINE_BOOT_ID", "SYNCLINE_TEST_CLOCK_OFFSET_NS",
                "SYNCLINE_TEST_CLOCK_DRIFT_PPM", "SYNCLINE_TEST_WALL_OFFSET_NS"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


@pytest.fixture(scope="session", autouse=True)
def session_tmpdir(tmp_path_factory):
    """TMPDIR for every process the tests start, inside pytest's own temporary folder: torchrun's
    agents make a `torchelastic_*` folder there on every start and leave it behind, which would
    otherwise pile up in /tmp (pytest keeps its last few folders and removes older ones)."""
    d = tmp_path_factory.mktemp("tmpdir")
    old = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(d)
    yield d
    if old is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = old


@pytest.fixture(scope="session")
def bin_dir():
    d = os.environ.get("SYNCLINE_BIN")
    assert d, "SYNCLINE_BIN must name the build's bin/ directory (set by tests/python/CMakeLists.txt)"
    d = pathlib.Path(d)
    assert (d / "syncline").exists(), f"{d}/syncline is not built"
    return d


def python_env(**extra):
    env = dict(os.environ)
    for var in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "SYNCLINE_TIME_SERVER", "SYNCLINE_HOST",
                "SYNCLINE_BOOT_ID", "SYNCLINE_TEST_CLOCK_OFFSET_NS",
                "SYNCLINE_TEST_CLOCK_DRIFT_PPM", "SYNCLINE_TEST_WALL_OFFSET_NS"):
        env.pop(var, None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def without_leak_check(env):
    """`env` for a process that imports PyTorch, with LeakSanitizer off when the ASan runtime is
    preloaded (`make sanitize`). LSan's exit-time check stops every thread with ptrace; in an
    interpreter holding torch's thread pools its tracer now and then dies of SIGSEGV ("Tracer
    caught signal 11 ... LeakSanitizer has encountered a fatal error") and the process exits 1
    although nothing leaked. ASan's memory checks stay on; syncline's own code is leak-checked in
    every process that does not load torch. Without the runtime, `env` is returned unchanged."""
    env = dict(env)
    if "libasan" in env.get("LD_PRELOAD", ""):
        opts = [o for o in env.get("ASAN_OPTIONS", "").split(":")
                if o and not o.startswith("detect_leaks=")]
        env["ASAN_OPTIONS"] = ":".join(opts + ["detect_leaks=0"])
    return env


def needs_distributed():
    """dask.distributed, imported; the calling test is skipped where it cannot run: not installed,
    or under ASan (distributed's worker processes are not run instrumented; the split's C++ is
    tested in process there, by the test_*split* tests)."""
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("under ASan: distributed's worker processes are not run instrumented")
    return pytest.importorskip("distributed", reason="dask.distributed is not installed "
                               "(Debian: python3-distributed python3-dask)")


@contextlib.contextmanager
def two_dask_workers(tmp_path):
    """A LocalCluster of 2 worker processes of one thread and 1 GiB (its files under tmp_path)
    and a Client of it: (cluster, client, the 2 workers' addresses). Skips as
    needs_distributed() does."""
    distributed = needs_distributed()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, memory_limit="1GiB",
                                  local_directory=str(tmp_path / "dask")) as cluster, \
            distributed.Client(cluster) as client:
        workers = set(client.scheduler_info()["workers"])
        assert len(workers) == 2
        yield cluster, client, workers


def syncline_cli(bin_dir, *args, ok=(0,)):
    """`syncline ARGS... -q`, its status one of `ok` (else the test fails with its stderr)."""
    r = subprocess.run([str(bin_dir / "syncline"), *args, "-q"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode in ok, r.stderr
    return r


def dask_tasks_ran_on(ts, fn):
    """{worker address: how many tasks of `fn` ran there} from a distributed task stream (the
    syncline.dask tasks' keys start with their function's name)."""
    ran = {}
    for t in ts.data:
        if t["key"].startswith(fn + "-"):
            ran[t["worker"]] = ran.get(t["worker"], 0) + 1
    return ran


def torch_available():
    """Whether PyTorch is installed, found without importing it into this process (importing
    it here would put its threads under this process's own exit-time leak check)."""
    import importlib.util
    return importlib.util.find_spec("torch") is not None


def run_python(args, cwd, timeout=60, imports_torch=False, **env):
    child_env = python_env(**env)
    if imports_torch:
        child_env = without_leak_check(child_env)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=child_env,
                          capture_output=True, text=True, timeout=timeout)


class TimeServer:
    """A real `syncline timeserver` on an ephemeral UDP port."""

    def __init__(self, bin_dir):
        self.proc = subprocess.Popen([str(bin_dir / "syncline"), "timeserver", "--port", "0",
                                      "--bind", "127.0.0.1"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"port (\d+)", line)
        assert m, f"timeserver did not start: {line!r} {self.proc.stderr.read() if not line else ''}"
        self.port = int(m.group(1))
        self.address = f"127.0.0.1:{self.port}"

    def stop(self):
        self.proc.terminate()
        self.proc.communicate(timeout=10)


@pytest.fixture(scope="session")
def delayline(tmp_path_factory):
    """The multi-host testbed's delay line (scripts/testbed/): the build's <bin>/delayline, else
    compiled here (sanitizers never reach it: the testbed's tools are not what is tested).
    Skips, saying why, where the testbed cannot run: without root, a kernel feature, a tool."""
    if os.geteuid() != 0:
        pytest.skip("the testbed needs root (namespaces, veths, iptables)")
    testbed = import_testbed()
    path = pathlib.Path(os.environ.get("SYNCLINE_BIN", "")) / "delayline"
    if not path.is_file():
        path, why = testbed.build_delayline(tmp_path_factory.mktemp("delayline"))
        if not path:
            pytest.skip("testbed: " + why)
    why = testbed.unavailable(path)
    if why:
        pytest.skip("testbed: " + why)
    return path


def import_testbed():
    """scripts/testbed/testbed.py as a module."""
    sys.path.insert(0, str(SOURCE_DIR / "scripts" / "testbed"))
    try:
        import testbed
    finally:
        sys.path.pop(0)
    return testbed


@pytest.fixture
def timeserver(bin_dir):
    server = TimeServer(bin_dir)
    yield server
    server.stop()
