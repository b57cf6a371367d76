"""record_collectives(client) — records the ``torch.distributed`` collectives and point-to-point
calls that user code makes, by replacing these functions in ``torch.distributed`` (and
``torch.distributed.distributed_c10d``, where they live) until ``remove()``:

``all_reduce broadcast barrier all_gather reduce_scatter reduce gather scatter all_to_all``
  one event named like the function, args ``group`` (``world``, or ``group<N>`` for the N-th
  group created by ``new_group``) and ``seq`` — the number of recorded collectives this rank
  called on that group before (from 0). Every rank of a group calls its collectives in the same
  order, so the k-th ``seq`` of a group is the same collective on every rank. Blocking calls are
  ``B``/``E`` events on the calling thread; ``async_op=True`` calls are an ``X`` interval from
  the launch until the work's future completes, on the track ``async <group>``.
``send recv isend irecv``
  one event with args ``peer`` (the other global rank), ``group``, ``tag`` and ``seq`` (the
  messages between these two ranks with this tag and group before it), plus a ``msg`` record on
  each side — ``send`` stamped before the send starts, ``recv`` when the receive has completed —
  with the id ``<group>:<src>><dst>:<tag>:<seq>``, so the clock correction can use the pair as a
  causality constraint (a message is received after it was sent).

A call that raised, or whose work's future failed (a peer crashed, the group was aborted), is
recorded with the args ``failed`` (``true``) and ``error`` (the message): the clock correction
and the diagnosis leave such an instance out. The log is flushed before the error goes on: a
process whose collective failed is usually about to end abruptly (PyTorch's gloo aborts it,
torchrun stops it), and what the writer had not yet written would be lost with it.

Only calls made through the module attributes are seen: ``from torch.distributed import
all_reduce`` executed before record_collectives() keeps the original function. DDP's own
gradient all-reduces do not go through these functions (see DdpCommHook).
"""
import inspect
import threading

import torch.distributed as dist
from torch.distributed import distributed_c10d as c10d

COLLECTIVES = ("all_reduce", "broadcast", "barrier", "all_gather", "reduce_scatter", "reduce",
               "gather", "scatter", "all_to_all")
P2P = ("send", "recv", "isend", "irecv")
_ACTIVE = {}  # function name -> the CollectiveRecorder whose wrapper is installed


def _group_name(group):
    if group is None or group is dist.group.WORLD or group is c10d.GroupMember.WORLD:
        return "world"
    name = c10d._pg_names.get(group) if hasattr(c10d, "_pg_names") else None
    return f"group{name}" if name is not None else f"group@{id(group):x}"


class _Param:
    """Where a parameter is found in a call: its position, its name, its default."""

    def __init__(self, func, name):
        params = list(inspect.signature(func).parameters.values())
        names = [p.name for p in params]
        self.index = names.index(name) if name in names else None
        self.name = name
        self.default = params[self.index].default if self.index is not None else None
        if self.default is inspect.Parameter.empty:
            self.default = None

    def get(self, args, kwargs):
        if self.index is not None and self.index < len(args):
            return args[self.index]
        return kwargs.get(self.name, self.default)


class CollectiveRecorder:
    def __init__(self, client, names=COLLECTIVES + P2P):
        self.client = client
        self.names = tuple(names)
        self._originals = {}
        self._seq = {}
        self._p2p = {}
        self._lock = threading.Lock()

    # -- bookkeeping ---------------------------------------------------------------------
    def _next(self, table, key):
        with self._lock:
            n = table.get(key, 0)
            table[key] = n + 1
        return n

    def sequence(self, group=None):
        """How many collectives this rank recorded on `group` (default: the world) so far."""
        return self._seq.get(_group_name(group), 0)

    # -- wrappers ------------------------------------------------------------------------
    def _collective(self, name, orig):
        group_p, async_p = _Param(orig, "group"), _Param(orig, "async_op")
        client = self.client

        def wrapper(*args, **kwargs):
            group = group_p.get(args, kwargs)
            if c10d._rank_not_in_group(group):
                return orig(*args, **kwargs)
            gname = _group_name(group)
            seq = self._next(self._seq, gname)
            if async_p.get(args, kwargs):
                start = client.now_ns()
                work = orig(*args, **kwargs)
                self._complete_later(work, name, start, {"group": gname, "seq": seq}, gname)
                return work
            client.start_event(name, group=gname, seq=seq)
            try:
                result = orig(*args, **kwargs)
            except BaseException as e:
                self._end(name, flush=True, failed=True, error=str(e)[:200])
                raise
            self._end(name)
            return result

        return wrapper

    def _p2p_wrapper(self, name, orig):
        sending = name in ("send", "isend")
        peer_p = _Param(orig, "dst" if sending else "src")
        group_p, tag_p = _Param(orig, "group"), _Param(orig, "tag")
        client = self.client
        blocking = not name.startswith("i")

        def wrapper(*args, **kwargs):
            group = group_p.get(args, kwargs)
            if c10d._rank_not_in_group(group):
                return orig(*args, **kwargs)
            gname, tag, peer = _group_name(group), tag_p.get(args, kwargs) or 0, peer_p.get(args, kwargs)
            me = dist.get_rank()
            if sending:
                seq = self._next(self._p2p, (gname, me, peer, tag))
                client.message("send", peer, f"{gname}:{me}>{peer}:{tag}:{seq}")
                a = {"peer": peer, "group": gname, "tag": tag, "seq": seq}
                if blocking:
                    client.start_event(name, **a)
                    try:
                        return orig(*args, **kwargs)
                    finally:
                        self._end(name)
                start = client.now_ns()
                work = orig(*args, **kwargs)
                self._complete_later(work, name, start, a, gname)
                return work
            if blocking:
                client.start_event(name, group=gname, tag=tag)
                ok = False
                try:
                    src = orig(*args, **kwargs)
                    ok = True
                    return src
                finally:
                    if ok:
                        src = peer if peer is not None else src
                        seq = self._next(self._p2p, (gname, src, me, tag))
                        client.message("recv", src, f"{gname}:{src}>{me}:{tag}:{seq}")
                        self._end(name, peer=src, seq=seq)
                    else:
                        self._end(name)
            start = client.now_ns()
            work = orig(*args, **kwargs)

            def received(_):
                src = peer if peer is not None else work._source_rank()
                seq = self._next(self._p2p, (gname, src, me, tag))
                client.message("recv", src, f"{gname}:{src}>{me}:{tag}:{seq}")
                return {"peer": src, "group": gname, "tag": tag, "seq": seq}

            self._complete_later(work, name, start, received, gname)
            return work

        return wrapper

    def _end(self, name, flush=False, **args):
        try:
            self.client.end_event(name, **args)
            if flush:
                self.client.flush()  # written before this process may die (module docstring)
        except Exception:  # noqa: BLE001 - user code left an event open inside the call
            pass

    def _complete_later(self, work, name, start, args, gname):
        client = self.client
        if work is None:
            return

        def done(fut):
            end = client.now_ns()
            try:
                fut.value()
                error = None
            except Exception as e:  # noqa: BLE001 - the caller's wait() raises it
                error = e
            try:
                if error is None:
                    a = args(fut) if callable(args) else args
                else:
                    a = dict(args if not callable(args) else {}, failed=True,
                             error=str(error)[:200])
                client.record_interval_on(f"async {gname}", name, start, end, **a)
                if error is not None:
                    client.flush()  # written before this process may die (module docstring)
            except Exception:  # noqa: BLE001 - recording must never fail the collective
                pass

        try:
            work.get_future().then(done)
        except RuntimeError:  # a backend whose work has no future: the launch only
            client.instant(name + ".launch", **(args if not callable(args) else {}))

    # -- install / remove ----------------------------------------------------------------
    def install(self):
        for name in self.names:
            if name not in COLLECTIVES + P2P:
                raise ValueError(f"record_collectives(): unknown function {name!r} "
                                 f"(expected some of {', '.join(COLLECTIVES + P2P)})")
            owner = _ACTIVE.get(name)
            if owner is self:
                continue
            if owner is not None:
                raise RuntimeError(f"record_collectives(): torch.distributed.{name} is already "
                                   "recorded by another recorder; remove() it first")
            orig = getattr(c10d, name)
            wrap = (self._p2p_wrapper if name in P2P else self._collective)(name, orig)
            wrap.__name__, wrap.__doc__, wrap.__wrapped__ = orig.__name__, orig.__doc__, orig
            self._originals[name] = (orig, getattr(dist, name, None))
            setattr(c10d, name, wrap)
            setattr(dist, name, wrap)
            _ACTIVE[name] = self
        return self

    def remove(self):
        for name, (orig, public) in self._originals.items():
            setattr(c10d, name, orig)
            if public is not None:
                setattr(dist, name, public)
            _ACTIVE.pop(name, None)
        self._originals.clear()

    def __enter__(self):
        return self.install()

    def __exit__(self, *exc):
        self.remove()
        return False


def record_collectives(client, names=COLLECTIVES + P2P):
    """Starts recording the torch.distributed calls `names` (default: all those listed above)
    with `client`; returns the CollectiveRecorder (also a context manager; ``remove()`` stops).
    Calling it again with the same client returns the recorder in force (no double events)."""
    owners = {_ACTIVE.get(n) for n in names} - {None}
    if len(owners) == 1:
        (owner,) = owners
        if owner.client is client:
            return owner.install() if set(names) - set(owner.names) == set() else owner
    return CollectiveRecorder(client, names).install()
