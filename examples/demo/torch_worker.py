#!/usr/bin/python3
"""The demo job's training script, run by torchrun: a small model trained with
DistributedDataParallel over gloo on synthetic data, recorded with syncline.FileTimerClient.

  step ─ data_wait ─ forward ─ layer0..L-1 (nested)   a data-loader thread makes the batches
       ─ loss                                         (load_batch events)
       ─ backward        DDP's gradient all-reduce runs inside it: a rank that is ahead
                         waits here for the slowest one (each bucket's all-reduce is also
                         recorded, as `ddp_allreduce` on a track per bucket: syncline.torch's
                         DDP hook)
       ─ all_reduce      an explicit dist.all_reduce of the loss (category "collective" in
                         timer_config.json): blocking, its ends coincide across ranks
       ─ optimizer
       [─ checkpoint_save, rank 0, every --checkpoint-every steps; instant "checkpoint"]

Identity comes from torchelastic (RANK, WORLD_SIZE, LOCAL_RANK, GROUP_RANK, ROLE_NAME,
TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_RUN_ID): the recorder reads it; nothing here sets it.

On real hosts (or the multi-host testbed: run_demo.py --hosts testbed) nothing else is needed:
the recorder reads the host's name, boot id and clock. Emulated hosts (--hosts): the local ranks are split evenly over the named hosts; each host is its
own clock domain (SYNCLINE_HOST / SYNCLINE_BOOT_ID) and every host after the first gets the
recorder's documented test clock transform (--skew OFFSET_NS,PPM: SYNCLINE_TEST_CLOCK_OFFSET_NS
and _DRIFT_PPM). They are set in this process's environment before the client is created, so
one torchrun agent stands for several hosts. Without --hosts nothing is emulated.

Failure (--crash-rank R --crash-step S): in the first incarnation (restart count 0) rank R dies
at step S with os._exit(13) — a hard crash (no clean-up: its log ends without a close record).
torchrun --max_restarts >= 1 then stops the other workers (SIGTERM: they close their logs; a
worker whose collective fails first because its peer is gone records "training_failed" and
closes its log too) and
restarts the whole group with TORCHELASTIC_RESTART_COUNT=1; the new incarnations resume from the
last checkpoint (--checkpoint DIR) and write new files (timer_events.<rank>.r1.log).
Rank --straggler computes --straggler-ms longer in every forward.
"""
import argparse
import os
import queue
import signal
import socket
import sys
import threading
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="timer_config.json")
    p.add_argument("--log", default="timer_events.{rank}.log")
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--width", type=int, default=64, help="hidden width of the model (64)")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--load-ms", type=float, default=4.0,
                   help="time the data loader takes per batch (emulated I/O; 4 ms)")
    p.add_argument("--straggler", type=int, default=-1)
    p.add_argument("--straggler-ms", type=float, default=12.0)
    p.add_argument("--crash-rank", type=int, default=-1)
    p.add_argument("--crash-step", type=int, default=-1)
    p.add_argument("--checkpoint", default="", help="directory for checkpoint.pt (rank 0 writes)")
    p.add_argument("--checkpoint-every", type=int, default=10)
    p.add_argument("--hosts", default="", help="emulated hosts, e.g. host-a,host-b")
    p.add_argument("--skew", default="3200000,40",
                   help="clock transform of every host after the first: OFFSET_NS,PPM")
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def emulate_host(o):
    """Picks this worker's emulated host from LOCAL_RANK (before the client reads the env)."""
    if not o.hosts:
        return None
    hosts = o.hosts.split(",")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    per_host = max(1, -(-local_world // len(hosts)))
    k = min(len(hosts) - 1, local_rank // per_host)
    os.environ["SYNCLINE_HOST"] = hosts[k]
    os.environ["SYNCLINE_BOOT_ID"] = f"demo-boot-{hosts[k]}"
    for key in ("SYNCLINE_TEST_CLOCK_OFFSET_NS", "SYNCLINE_TEST_CLOCK_DRIFT_PPM"):
        os.environ.pop(key, None)
    if k > 0:
        offset, ppm = o.skew.split(",")
        os.environ["SYNCLINE_TEST_CLOCK_OFFSET_NS"] = str(int(offset) * k)
        os.environ["SYNCLINE_TEST_CLOCK_DRIFT_PPM"] = str(float(ppm) * k)
    return hosts[k]


def data_loader(client, torch, o, batches, first_step, stop):
    """Synthetic batches (a fixed random teacher's labels), made on a thread like a DataLoader
    worker; --load-ms of emulated I/O each."""
    client.set_thread_name("data_loader")
    g = torch.Generator().manual_seed(o.seed * 1000 + int(os.environ.get("RANK", "0")))
    for step in range(first_step, o.steps):
        if stop.is_set():
            return
        with client.event("load_batch", step=step):
            x = torch.randn(o.batch, o.width, generator=g)
            y = (x[:, : o.width // 2].sum(dim=1) > 0).long()
            time.sleep(o.load_ms / 1000)
        batches.put((step, x, y))


def compute_for(cpu_s):
    """Keeps this thread busy for cpu_s seconds of its own CPU time: the straggler's extra work.
    CPU time, not wall time: on a machine with fewer cores than workers every rank's work stretches
    alike and the straggler stays the last to arrive (a sleep would yield its core to the others
    and vanish in the contention)."""
    end = time.thread_time() + cpu_s
    while time.thread_time() < end:
        pass


def make_model(torch, o):
    nn = torch.nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.ModuleList(nn.Linear(o.width, o.width) for _ in range(o.layers))
            self.head = nn.Linear(o.width, 2)

        def forward(self, x, client=None, slow_s=0.0):
            for i, layer in enumerate(self.body):
                if client is not None:
                    client.start_event(f"layer{i}")
                x = torch.relu(layer(x))
                if i == 0 and slow_s:
                    compute_for(slow_s)  # the straggler: a slower rank (a weaker node, say)
                if client is not None:
                    client.end_event(f"layer{i}")
            return self.head(x)

    return Net()


def main():
    # torchelastic stops the group with SIGTERM, often while the main thread waits inside a gloo
    # collective (C++: a Python handler would not run until it returns). So SIGTERM is blocked in
    # every thread — set first, before torch or the recorder start any: threads inherit the
    # mask — and one thread waits for it, closes the log and exits (stop_on_sigterm below).
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    o = parse_args()
    host = emulate_host(o)
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import syncline

    torch.set_num_threads(1)
    client = syncline.FileTimerClient(config_path=o.config, log_path=o.log)
    client.set_thread_name("trainer")
    rank, restart = client.rank, int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))

    # Whoever ends the process first (the agent's SIGTERM, or a failed collective) closes the
    # log and exits; the other waits on the lock forever, so it never exits half way through a
    # close.
    ending = threading.Lock()

    def close_and_exit(code, name, **args):
        ending.acquire()
        client.instant(name, **args)
        client.close()
        os._exit(code)

    def stop_on_sigterm():
        signum = signal.sigwait({signal.SIGTERM})
        close_and_exit(143, "stopped_by_agent", signal=signum)

    threading.Thread(target=stop_on_sigterm, daemon=True).start()
    try:
        mean_loss = train(o, client, rank, restart, host, torch, dist, DDP)
    except RuntimeError as e:  # a peer died (gloo: connection closed): leave a complete log
        print(f"rank {rank}: restart {restart} failed: {str(e)[:120]}", flush=True)
        # At once (os._exit): the interpreter's teardown can wait on gloo's threads, with
        # SIGTERM blocked (the agent would wait 30 s before its SIGKILL).
        close_and_exit(1, "training_failed", error=str(e)[:200])
    with ending:  # not while the SIGTERM thread is closing
        client.close()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    s = client.stats
    print(f"rank {rank}: restart {restart} done, mean loss {mean_loss:.4f}, {s['written']} events, "
          f"{s['dropped']} dropped -> {client.log_path}", flush=True)
    return 0


def train(o, client, rank, restart, host, torch, dist, DDP):
    with client.event("init_process_group", backend="gloo"):
        dist.init_process_group("gloo")
    torch.manual_seed(o.seed)  # the same initial weights on every rank (DDP broadcasts anyway)
    model = DDP(make_model(torch, o))
    # Each gradient bucket's all-reduce as a `ddp_allreduce` interval (launch to completion):
    # the wait inside backward becomes visible, and `syncline diagnose` sees who arrived last.
    from syncline.torch import register_ddp_hook
    register_ddp_hook(model, client)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    first_step = 0
    ckpt = os.path.join(o.checkpoint, "checkpoint.pt") if o.checkpoint else ""
    if ckpt and restart > 0 and os.path.exists(ckpt):
        with client.event("checkpoint_load"):
            state = torch.load(ckpt)
            model.module.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            first_step = state["step"] + 1
    print(f"rank {rank} ({host or socket.gethostname()}): restart {restart}, world "
          f"{dist.get_world_size()}, steps {first_step}..{o.steps - 1}, pid {os.getpid()}",
          flush=True)

    batches, stop = queue.Queue(maxsize=2), threading.Event()
    loader = threading.Thread(target=data_loader, args=(client, torch, o, batches, first_step,
                                                        stop), daemon=True)
    loader.start()
    slow_s = o.straggler_ms / 1000 if rank == o.straggler else 0.0
    loss_fn = torch.nn.CrossEntropyLoss()
    mean_loss = float("nan")
    for step in range(first_step, o.steps):
        if restart == 0 and rank == o.crash_rank and step == o.crash_step:
            print(f"rank {rank}: crashing at step {step} (on purpose; restart {restart})",
                  flush=True)
            os._exit(13)
        with client.event("step", step=step):
            with client.event("data_wait"):
                _, x, y = batches.get()
            with client.event("forward", batch=o.batch):
                out = model(x, client, slow_s)
            with client.event("loss"):
                loss = loss_fn(out, y)
            with client.event("backward"):  # DDP all-reduces the gradients in here
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
            with client.event("all_reduce", what="loss", step=step):
                total = loss.detach().clone()
                dist.all_reduce(total)
            mean_loss = total.item() / dist.get_world_size()
            with client.event("optimizer", lr=0.05):
                optimizer.step()
            if ckpt and rank == 0 and step % o.checkpoint_every == o.checkpoint_every - 1:
                with client.event("checkpoint_save", step=step):
                    torch.save({"model": model.module.state_dict(),
                                "optimizer": optimizer.state_dict(), "step": step}, ckpt + ".tmp")
                    os.replace(ckpt + ".tmp", ckpt)
                client.instant("checkpoint", step=step)
    stop.set()
    with client.event("barrier"):
        dist.barrier()
    dist.destroy_process_group()
    return mean_loss


if __name__ == "__main__":
    sys.exit(main())
