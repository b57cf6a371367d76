"""DdpCommHook — a DistributedDataParallel communication hook that records each gradient
bucket's all-reduce, from its launch until its future completes, as one ``X`` interval
(default name ``ddp_allreduce``) with args ``bucket`` (the bucket's index), ``iteration`` (the
backward pass, from 0) and ``seq`` (the all-reduces this hook launched before it, from 0).

DDP launches the buckets in the same order on every rank, so the k-th ``ddp_allreduce`` of
every rank is the same all-reduce: give the name the category ``"collective"`` in
timer_config.json and, without sync samples, the clock correction aligns the ranks on their ends
(or pass ``--align-on ddp_allreduce``).

The all-reduce itself is what DDP does without a hook: the bucket multiplied by 1/world size
(DDP's own pre-division, so results are bit for bit those of an unhooked DDP), summed with
``all_reduce(..., async_op=True)``. ``inner=`` wraps another hook instead (e.g. a compression
hook from ``torch.distributed.algorithms.ddp_comm_hooks``): then its future is timed.

An all-reduce whose future failed (a peer crashed or the group was aborted during it) is
recorded with the args ``failed`` (``true``) and ``error`` (the message): its end is not the
operation's end, and the clock correction and the diagnosis leave it out. The log is flushed
before the error goes on: a process whose collective failed is usually about to end abruptly
(PyTorch's gloo aborts it, torchrun stops it), and what the writer had not yet written (up to
``flush_interval_ms``) would be lost with it.

The end is stamped by a callback on the all-reduce's future, on the thread that completes it,
when that thread gets the GIL (a few µs after completion while backward runs in C++). The
buckets' all-reduces overlap (DDP launches the next while the previous runs), so each bucket
index has a track of its own, ``ddp_allreduce bucket <i>`` (``record_interval_on``).
"""
import torch
import torch.distributed as dist
from torch.distributed import distributed_c10d as c10d


class DdpCommHook:
    def __init__(self, client, process_group=None, name="ddp_allreduce", inner=None,
                 inner_state=None):
        self.client = client
        self.process_group = process_group
        self.name = name
        self.inner = inner
        self.inner_state = inner_state
        self.iteration = 0
        self.seq = 0

    def _group(self):
        return self.process_group if self.process_group is not None else dist.group.WORLD

    def _allreduce(self, bucket):
        group = self._group()
        tensor = bucket.buffer()
        tensor.mul_(1.0 / group.size())
        # The function itself, not record_collectives()'s wrapper (this is not user code).
        all_reduce = getattr(c10d.all_reduce, "__wrapped__", c10d.all_reduce)
        return all_reduce(tensor, group=group, async_op=True).get_future()

    def __call__(self, bucket):
        client = self.client
        start = client.now_ns()
        index = int(bucket.index())
        track = f"{self.name} bucket {index}"
        args = {"bucket": index, "iteration": self.iteration, "seq": self.seq}
        self.seq += 1
        if bucket.is_last():
            self.iteration += 1
        if self.inner is not None:
            fut = self.inner(self.inner_state, bucket)
            unwrap = False
        else:
            fut = self._allreduce(bucket)
            unwrap = True

        def done(f):
            end = client.now_ns()
            try:
                value = f.value()
                error = None
            except Exception as e:  # noqa: BLE001 - re-raised below, after recording
                value, error = None, e
            try:
                a = args if error is None else dict(args, failed=True, error=str(error)[:200])
                client.record_interval_on(track, self.name, start, end, **a)
                if error is not None:
                    client.flush()  # written before this process may die (module docstring)
            except Exception:  # noqa: BLE001 - recording must never fail the all-reduce
                pass
            if error is not None:
                raise error
            return value[0] if unwrap else value

        return fut.then(done)


def _hook(state, bucket):
    return state(bucket)


def register_ddp_hook(ddp_model, client, process_group=None, name="ddp_allreduce", inner=None,
                      inner_state=None):
    """Registers a DdpCommHook on `ddp_model` (a DistributedDataParallel) and returns it. DDP
    accepts one communication hook per model, registered before the first backward."""
    if not isinstance(ddp_model, torch.nn.parallel.DistributedDataParallel):
        raise TypeError("register_ddp_hook(): expected a torch.nn.parallel."
                        f"DistributedDataParallel, not {type(ddp_model).__name__}")
    hook = DdpCommHook(client, process_group, name, inner, inner_state)
    ddp_model.register_comm_hook(hook, _hook)
    return hook
