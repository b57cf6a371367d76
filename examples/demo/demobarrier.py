"""The demo's cross-process barrier: a stand-in for a blocking collective (an all-reduce).

Example code, not part of syncline. The launcher (run_demo.py, ../launch_job.py) hosts a
BarrierServer on loopback and gives its address to every worker in env SYNCLINE_DEMO_BARRIER
(host:port); each worker enters instance k = 0, 1, 2, ... through a BarrierClient (Python,
py_worker.py) or DemoBarrier (C++, ../cpp/demobarrier.h) and blocks until the server has heard
every live rank for k, then the server releases them all at once. So every rank waits for the
slowest one, and the release ends the wait on every rank within one loopback message (a few
hundred µs of true time even on a loaded machine) — what a real blocking all-reduce looks like,
and what `syncline ... --align-on all_reduce` relies on.

Protocol (TCP, one connection per rank, ASCII lines ending in '\\n'):
  client -> server  "hello RANK"  once, after connecting
                    "arrive K"    entering instance K (counted by the client from 0)
                    "leave"       this rank takes part in no further instance
  server -> client  "release K"   every live rank has arrived at K
A rank is live from the start (whether or not it has connected yet) until it says "leave", its
connection closes or the launcher reports its process gone (BarrierServer.watch); instance K is
released when every live rank has arrived at it. A hung rank
therefore leaves first (py_worker.py does, before hanging) or blocks the others until their
timeout: a client never waits longer than its timeout for a release, then goes on (its caller
records an instant "barrier_timeout"); later releases of instances it gave up on are skipped.
Lines the server cannot parse close that connection (the rank is then gone), with a message.
"""
import selectors
import socket
import sys
import threading
import time

ENV = "SYNCLINE_DEMO_BARRIER"
RELEASED, TIMED_OUT, LOST = "released", "timed_out", "lost"


class BarrierServer:
    """Rendezvous for `world` ranks on host:port (port 0 = any free port), served by a daemon
    thread. Counters: released (instances), departed (ranks gone), rejected (bad lines);
    waiting() = ranks now blocked in an instance."""

    def __init__(self, world, host="127.0.0.1", port=0, log=sys.stderr):
        if world < 1:
            raise ValueError(f"BarrierServer: world must be >= 1, got {world}")
        self.world = world
        self.released = 0
        self.rejected = 0
        self._log = log
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, port))
        self._listener.listen(max(world, 16))
        self._listener.setblocking(False)
        self.address = "%s:%d" % self._listener.getsockname()[:2]
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._listener, selectors.EVENT_READ)
        self._wake_r, self._wake_w = socket.socketpair()
        self._sel.register(self._wake_r, selectors.EVENT_READ)
        self._conns = {}       # socket -> {"rank": int | None, "buf": bytes}
        self._departed = set()
        self._arrived = {}     # instance -> {rank: socket}
        self._stopping = False
        self._lock = threading.Lock()  # the state above, between the thread and waiting()
        self._thread = threading.Thread(target=self._serve, name="demo-barrier", daemon=True)
        self._thread.start()

    @property
    def departed(self):
        return len(self._departed)

    def waiting(self):
        with self._lock:
            return sum(len(ranks) for ranks in self._arrived.values())

    def depart(self, rank):
        """Rank `rank` takes part in no further instance (as if it had said "leave")."""
        with self._lock:
            self._depart(rank)

    def watch(self, procs, interval_s=0.1):
        """Departs each rank of {rank: subprocess.Popen} whose process has exited — also one
        that died before it connected, which the server cannot see — from a daemon thread."""
        def run():
            alive = dict(procs)
            while alive and not self._stopping:
                for rank, proc in list(alive.items()):
                    if proc.poll() is not None:
                        del alive[rank]
                        self.depart(rank)
                time.sleep(interval_s)
        threading.Thread(target=run, name="demo-barrier-watch", daemon=True).start()

    def stop(self):
        self._stopping = True
        self._wake_w.send(b"x")
        self._thread.join(timeout=10)
        for s in list(self._conns) + [self._listener, self._wake_r, self._wake_w]:
            s.close()
        self._sel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- the server thread -------------------------------------------------------------------
    def _serve(self):
        while not self._stopping:
            for key, _ in self._sel.select():
                if key.fileobj is self._listener:
                    self._accept()
                elif key.fileobj is self._wake_r:
                    return
                else:
                    with self._lock:
                        self._read(key.fileobj)

    def _accept(self):
        try:
            conn, _ = self._listener.accept()
        except BlockingIOError:
            return
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.setblocking(True)  # replies are a few bytes: sends never block for long
        with self._lock:
            self._conns[conn] = {"rank": None, "buf": b""}
        self._sel.register(conn, selectors.EVENT_READ)

    def _read(self, conn):
        state = self._conns[conn]
        try:
            data = conn.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._drop(conn)
            return
        state["buf"] += data
        while b"\n" in state["buf"] and conn in self._conns:
            line, state["buf"] = state["buf"].split(b"\n", 1)
            self._handle(conn, state, line.decode("ascii", "replace").strip())

    def _handle(self, conn, state, line):
        word, _, arg = line.partition(" ")
        rank = state["rank"]
        if word == "hello" and rank is None and arg.isdigit() and int(arg) < self.world:
            state["rank"] = int(arg)  # a rank that has left stays gone (no elastic restarts)
        elif word == "arrive" and rank is not None and arg.isdigit():
            self._arrived.setdefault(int(arg), {})[rank] = conn
            self._release_ready()
        elif word == "leave" and rank is not None:
            self._depart(rank)
        else:
            self.rejected += 1
            print(f"demo barrier: closing a connection that sent {line!r}", file=self._log)
            self._drop(conn)

    def _drop(self, conn):
        rank = self._conns.pop(conn)["rank"]
        self._sel.unregister(conn)
        conn.close()
        if rank is not None:
            self._depart(rank)

    def _depart(self, rank):
        self._departed.add(rank)
        for waiting in self._arrived.values():
            waiting.pop(rank, None)
        self._release_ready()

    def _release_ready(self):
        live = self.world - len(self._departed)
        for k in sorted(self._arrived):
            waiting = self._arrived[k]
            if len(waiting) < live:
                continue
            del self._arrived[k]
            self.released += 1
            message = b"release %d\n" % k
            for conn in waiting.values():  # one send each, back to back: ends within µs
                try:
                    conn.sendall(message)
                except OSError:
                    pass  # its read side sees the close and drops it


class BarrierClient:
    """One rank's connection to a BarrierServer. arrive() enters the next instance and returns
    RELEASED, TIMED_OUT (after timeout_s) or LOST (connection failed; so is every later call).
    The constructor raises OSError naming the address when no server answers within timeout_s."""

    def __init__(self, address, rank, timeout_s=10.0):
        host, sep, port = address.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"demo barrier address {address!r} is not host:port")
        self.address = address
        self.timeout_s = timeout_s
        self.instances_entered = 0
        self.error = ""
        self._buf = b""
        self._left = False
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self._sock = socket.create_connection((host, int(port)), timeout=timeout_s)
                break
            except ConnectionRefusedError as e:  # the launcher may still be starting it
                if time.monotonic() >= deadline:
                    raise OSError(f"demo barrier at {address}: cannot connect: {e}") from None
                time.sleep(0.05)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock.sendall(b"hello %d\n" % rank)

    def arrive(self):
        if self._sock is None:
            return LOST
        k = self.instances_entered
        self.instances_entered += 1
        wanted = b"release %d" % k
        deadline = time.monotonic() + self.timeout_s
        try:
            self._sock.sendall(b"arrive %d\n" % k)
            while True:
                while b"\n" in self._buf:
                    line, self._buf = self._buf.split(b"\n", 1)
                    if line == wanted:
                        return RELEASED
                    # else: the release of an instance this rank gave up on
                left = deadline - time.monotonic()
                if left <= 0:
                    return TIMED_OUT
                self._sock.settimeout(left)
                try:
                    data = self._sock.recv(256)
                except socket.timeout:
                    return TIMED_OUT
                if not data:
                    raise ConnectionError("the server closed the connection")
                self._buf += data
        except OSError as e:
            self.error = str(e) or type(e).__name__
            self.close()
            return LOST

    def leave(self):
        """This rank takes part in no further instance (idempotent)."""
        if self._sock is not None and not self._left:
            self._left = True
            try:
                self._sock.sendall(b"leave\n")
            except OSError:
                pass

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None
