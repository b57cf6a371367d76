"""CudaIntervals — GPU intervals from ``torch.cuda.Event`` pairs, written into the log later,
without synchronising the stream.

    cuda = CudaIntervals(client)          # one synchronisation, here: the anchor
    with cuda.interval("forward_gpu", step=i):
        out = model(batch)                # kernels queued on the current stream
    ...
    cuda.resolve()                        # writes the pairs whose end has completed (query())
    cuda.close()                          # at the end: waits for the rest, writes them

Conversion. CUDA events only give elapsed times between events, in ms (about 0.5 µs
resolution). At construction (and at ``reanchor()``) the device is synchronised, the client
clock read (a), an anchor event recorded and waited for, the clock read again (b): the anchor
happened on the GPU at (a+b)/2 ± (b−a)/2 in the client's clock. An interval [s, e] is then
``anchor + elapsed(anchor, s)`` .. ``anchor + elapsed(anchor, e)``; its error is the anchor's
bound plus the drift of the GPU clock against the host since the anchor (``reanchor()`` now and
then in long runs). Intervals are ``X`` records on a track named ``cuda`` (``track=``), with the
args given and ``gpu=True`` (``record_interval_on``, so they never interleave with the CPU
events of the thread that launched them).

On a machine without CUDA the constructor raises RuntimeError saying so. ``HostEvent`` has the
interface of ``torch.cuda.Event`` with stamps from a host clock: ``CudaIntervals(client,
event_factory=lambda: HostEvent(client.now_ns))`` runs the same conversion on the CPU (tests).
"""
from contextlib import contextmanager

import torch


class HostEvent:
    """torch.cuda.Event's interface (record, query, synchronize, elapsed_time) stamped with a
    host clock (ns). `complete` can be set False to stand for an event the GPU has not reached."""

    def __init__(self, clock):
        self.clock = clock
        self.stamp = None
        self.complete = True

    def record(self, stream=None):
        self.stamp = self.clock()

    def query(self):
        return self.stamp is not None and self.complete

    def synchronize(self):
        self.complete = True

    def elapsed_time(self, end):
        return (end.stamp - self.stamp) / 1e6


class CudaIntervals:
    def __init__(self, client, event_factory=None, track="cuda"):
        if event_factory is None:
            if not torch.cuda.is_available():
                raise RuntimeError(
                    "syncline.torch.CudaIntervals: CUDA is not available here "
                    "(torch.cuda.is_available() is False: a CPU-only torch build, such as "
                    "Debian's python3-torch, or no GPU). Record host-side intervals with "
                    "client.record_interval(), or pass event_factory=lambda: "
                    "HostEvent(client.now_ns) to run the conversion with host stamps.")
            event_factory = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
            self._device_sync = torch.cuda.synchronize
        else:
            self._device_sync = lambda: None
        self.client = client
        self.event_factory = event_factory
        self.track = track
        self.pending = []  # (name, start_event, end_event, args), in launch order
        self.written = 0
        self.reanchor()

    def reanchor(self):
        """Ties the GPU clock to the client's again (synchronises the device once)."""
        self._device_sync()
        ev = self.event_factory()
        a = self.client.now_ns()
        ev.record()
        ev.synchronize()
        b = self.client.now_ns()
        if self.pending:  # intervals measured against the old anchor are resolved with it
            self.resolve(wait=True)
        self.anchor_event = ev
        self.anchor_ns = (a + b) // 2
        self.anchor_bound_ns = (b - a + 1) // 2

    def begin(self, name, **args):
        ev = self.event_factory()
        ev.record()
        return (name, ev, args)

    def end(self, token):
        name, start, args = token
        ev = self.event_factory()
        ev.record()
        self.pending.append((name, start, ev, args))

    @contextmanager
    def interval(self, name, **args):
        token = self.begin(name, **args)
        try:
            yield
        finally:
            self.end(token)

    def to_client_ns(self, event):
        """The client-clock time (ns) of a completed event."""
        return self.anchor_ns + int(round(self.anchor_event.elapsed_time(event) * 1e6))

    def resolve(self, wait=False):
        """Writes the pending intervals whose end event has completed (all of them, waiting,
        with wait=True); returns how many were written. Never synchronises unless wait."""
        done, rest = [], []
        for item in self.pending:
            if wait:
                item[2].synchronize()
            (done if item[2].query() else rest).append(item)
        self.pending = rest
        for name, s, e, args in done:
            start = self.to_client_ns(s)
            self.client.record_interval_on(self.track, name, start,
                                           max(start, self.to_client_ns(e)), gpu=True, **args)
        self.written += len(done)
        return len(done)

    def close(self):
        """Waits for the pending intervals and writes them."""
        self.resolve(wait=True)
