"""ProfilerRecorder — runs ``torch.profiler`` and writes its CPU op events into the worker's
syncline log, in the client's clock, so they land on the corrected global timeline (nested in
the ``forward``/``backward`` events of the same thread).

    with ProfilerRecorder(client) as prof:       # keyword arguments go to torch.profiler.profile
        train_some_steps()
    print(prof.tie)                              # how the profiler's clock was tied to the client's

Time zero. torch's profiler stamps events with its own clock, as µs relative to the profiler's
start (Debian's build without Kineto; the pip builds too, in ``events()``). The tie to the
client's clock is measured, NTP-style: at the start and at the end, ``ties`` times, the client
clock is read (a), a ``record_function`` marker is run, the client clock is read again (b). The
marker's profiler interval [s, e] lies inside [a, b], so offset = client − profiler is within
[a − s, b − e] (widened by the profiler's 1 µs resolution); the intersection over the markers is
the tie, its half-width the bound. When the start's and the end's intervals overlap, one constant
offset fits both (their intersection); when they do not, the clocks ran at different rates (the
profiler's clock need not be the recorder's: CLOCK_MONOTONIC and _RAW differ by NTP's slew) and
the map is the line through the two midpoints, its bound the wider half-width. The result is written into the log as an instant ``profiler_clock_tie`` (args
``offset_ns``, ``bound_ns``, ``drift_ppm``, ``ties``) and kept in ``.tie``.

Nesting. On the thread that entered the profiler, the ops ran inside the recorder's own events
(the hooks' ``forward``, the collectives): at exit those events are read back from the log and
the tie is refined inside its bound so that the ops nest in them (``syncline._profilerplacement``;
the shift is the instant's ``nesting_shift_ns``); what the profiler's µs rounding leaves is
clamped, and an op that truly overlaps (asynchronous) goes to a ``profiler async`` track.

Which events. Every CPU event of ``events()`` (``aten::*`` ops, ``record_function`` ranges), as an
``X`` record with its profiler name, except the tie markers. Events of the thread that entered the
profiler are written on that thread's track; those of each other thread on a track named
``profiler thread <id>`` (``record_interval_on``). Writing happens at exit, in chunks, with ``flush()`` between them, so a
long profile does not overflow the recorder's buffer.
"""
import os
import threading
import time

import torch

from .._profilerplacement import own_intervals, place, refine_offset

_TIE_NAME = "syncline.profiler_tie"
_CHUNK = 8192
_RESOLUTION_SLACK_NS = 2000  # the profiler's µs rounding, at both ends


class ClockTie:
    """client_ns = offset_ns + profiler_ns + drift·(profiler_ns − p0): the measured tie."""

    def __init__(self, offset_ns, bound_ns, drift, p0_ns, ties):
        self.offset_ns = offset_ns
        self.bound_ns = bound_ns
        self.drift = drift
        self.p0_ns = p0_ns
        self.ties = ties
        self.nesting_shift_ns = 0  # the refinement by the thread's own events (in offset_ns)

    def to_client(self, profiler_ns):
        return int(round(self.offset_ns + profiler_ns + self.drift * (profiler_ns - self.p0_ns)))

    @staticmethod
    def interval(samples):
        """The offset interval [lo, hi] (ns) implied by marker samples (a, b, s, e): the
        intersection of [a − s − 1 µs, b − e + 1 µs]; when empty (a clock stepped), the
        tightest single sample's."""
        lo, hi = -float("inf"), float("inf")
        for a, b, s, e in samples:
            lo = max(lo, a - s - 1000)
            hi = min(hi, b - e + 1000)
        if lo <= hi:
            return lo, hi
        a, b, s, e = min(samples, key=lambda x: (x[1] - x[0]) - (x[3] - x[2]))
        return a - s - 1000, b - e + 1000

    @classmethod
    def fit(cls, start_samples, end_samples):
        """A constant offset when the start and end intervals agree (the usual case over a
        profile of seconds: the clocks' rates differ by ppm), else the line through their
        midpoints (the rate between the clocks is then measured)."""
        lo0, hi0 = cls.interval(start_samples)
        p0 = min(s[2] for s in start_samples)
        ties = len(start_samples) + len(end_samples)
        if not end_samples:
            return cls((lo0 + hi0) / 2, int((hi0 - lo0) / 2 + 0.5), 0.0, p0, ties)
        lo1, hi1 = cls.interval(end_samples)
        lo, hi = max(lo0, lo1), min(hi0, hi1)
        if lo <= hi:
            return cls((lo + hi) / 2, int((hi - lo) / 2 + 0.5), 0.0, p0, ties)
        p1 = max(s[3] for s in end_samples)
        c0, c1 = (lo0 + hi0) / 2, (lo1 + hi1) / 2
        drift = (c1 - c0) / (p1 - p0) if p1 > p0 else 0.0
        return cls(c0, int(max(hi0 - lo0, hi1 - lo1) / 2 + 0.5), drift, p0, ties)

    def __repr__(self):
        return (f"ClockTie(offset_ns={self.offset_ns:.0f}, bound_ns={self.bound_ns}, "
                f"drift_ppm={self.drift * 1e6:.3f}, ties={self.ties}, "
                f"nesting_shift_ns={self.nesting_shift_ns})")


class ProfilerRecorder:
    def __init__(self, client, ties=5, **profile_kwargs):
        self.client = client
        self.ties = ties
        profile_kwargs.setdefault("activities", [torch.profiler.ProfilerActivity.CPU])
        self.profile_kwargs = profile_kwargs
        self.profiler = None
        self.tie = None
        self.written = 0
        self.write_ns = 0  # time spent converting and writing the ops at exit (not torch's own)
        self._marks = []  # (phase, k, a, b)
        self._home_tid = None  # the OS thread id that entered (the recorder's "tid")
        self._log_offset = None  # the log's size when the profile began

    def _mark(self, phase):
        now = self.client.now_ns
        for k in range(self.ties):
            a = now()
            with torch.autograd.profiler.record_function(f"{_TIE_NAME}.{phase}{k}"):
                pass
            b = now()
            self._marks.append((f"{_TIE_NAME}.{phase}{k}", a, b))

    def __enter__(self):
        self._home_tid = threading.get_native_id()
        try:
            self.client.flush()
            self._log_offset = os.path.getsize(self.client.log_path)
        except (AttributeError, OSError, TypeError):
            self._log_offset = None  # no readable log: the ops are placed by the tie alone
        self.profiler = torch.profiler.profile(**self.profile_kwargs)
        self.profiler.__enter__()
        self._marks.clear()
        self._mark("start")
        return self

    def __exit__(self, *exc):
        self._mark("end")
        self.profiler.__exit__(*exc)
        self._write()
        return False

    def step(self):
        """Forwards to the profiler's step() (for a profiler with a schedule)."""
        self.profiler.step()

    def _write(self):
        events = list(self.profiler.events())
        t0 = time.perf_counter_ns()
        by_name = {e.name: e for e in events if e.name.startswith(_TIE_NAME)}
        start, end, home = [], [], None
        for name, a, b in self._marks:
            e = by_name.get(name)
            if e is None:
                continue
            home = e.thread
            sample = (a, b, e.time_range.start * 1000, e.time_range.end * 1000)
            (start if ".start" in name else end).append(sample)
        if not start:
            raise RuntimeError("syncline.torch.ProfilerRecorder: the profiler recorded none of "
                               "its clock-tie markers; nothing can be placed on the timeline")
        self.tie = tie = ClockTie.fit(start, end)
        client = self.client
        threads = {}
        for e in events:
            if e.name.startswith(_TIE_NAME):
                continue
            if getattr(e, "device_type", None) is not None and \
                    e.device_type != torch.autograd.DeviceType.CPU:
                continue
            threads.setdefault(e.thread, []).append(e)
        # The recorder's own events on the thread that entered: the ops ran inside them.
        fixed = []
        if self._log_offset is not None and home in threads:
            client.flush()
            fixed = own_intervals(client.log_path, self._log_offset, self._home_tid)
            shift = refine_offset([s[:2] for s in self._spans(threads[home])], fixed,
                                  tie.bound_ns)
            tie.offset_ns += shift
            tie.nesting_shift_ns = shift
        client.instant("profiler_clock_tie", offset_ns=int(tie.offset_ns),
                       bound_ns=tie.bound_ns, drift_ppm=tie.drift * 1e6, ties=tie.ties,
                       nesting_shift_ns=tie.nesting_shift_ns)
        for tid, evs in threads.items():
            if tid == home:
                self._write_events(evs, None, fixed)
            else:
                self._write_events(evs, f"profiler thread {tid}", [])
        self.write_ns = time.perf_counter_ns() - t0

    def _spans(self, events):
        tie = self.tie
        spans = []
        for e in events:
            s = tie.to_client(e.time_range.start * 1000)
            spans.append((s, max(s, tie.to_client(e.time_range.end * 1000)), e.name))
        return spans

    def _write_events(self, events, track, fixed):
        """Writes one thread's events, nested among themselves and in ``fixed`` (the recorder's
        own events of that thread; ``_profilerplacement.place``). An op that sticks out of its
        parent by more than the profiler's rounding goes to the track ``profiler async``
        (``profiler async 2``, ... when it overlaps one there too; ``<track> async`` for another
        thread's) instead of misnesting."""
        client = self.client
        base = "profiler async" if track is None else f"{track} async"
        n = 0
        for s, t, name, lane in place(self._spans(events), fixed, _RESOLUTION_SLACK_NS):
            on = track if lane == 0 else base if lane == 1 else f"{base} {lane}"
            if on is None:
                client.record_interval(name, s, t)
            else:
                client.record_interval_on(on, name, s, t)
            n += 1
            if n % _CHUNK == 0:
                client.flush()  # the writer drains this thread's buffer before it fills
        self.written += n
