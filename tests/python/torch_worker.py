"""A real DDP training worker for tests/python/test_torch_hooks.py, run by torchrun
(``python3 -m syncline.torchrun --standalone --nproc_per_node N torch_worker.py OUT ...``).

Every rank trains the same small MLP under DistributedDataParallel (gloo) on synthetic data
seeded by its rank, and each step also calls user collectives (all_reduce of the loss, a barrier
every 5 steps, a broadcast and an all_gather) and passes a tensor around the ring with send/recv.
It writes its loss sequence (float.hex, so equality is bit for bit) to OUT/results/losses.<rank>.json
(with its torchelastic identity and pid).

--crash-rank R --crash-step S: rank R dies hard (os._exit) before the backward of step S, so
the other ranks' DDP all-reduces of that backward fail.

--plain: no syncline at all. --with-plain: beside the instrumented model, each rank also trains
an identical model under its own DDP with no hook at all, on the same batches, and writes its
losses too (the reference for "hooks do not change training", without a second job).
Otherwise: a FileTimerClient writing OUT/timer_events.log (rank inserted by the recorder), with
instrument(depth), instrument_optimizer, register_ddp_hook, record_collectives, timed_loader, and
a ProfilerRecorder around steps [--profile-from, --profile-from + 3). --host-b-from R emulates a
second host for ranks >= R (SYNCLINE_HOST/BOOT_ID and a clock offset, set before the client is
created, as the demo does).
"""
import argparse
import json
import os
import pathlib
import sys

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--with-plain", action="store_true")
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--profile-from", type=int, default=6)
    ap.add_argument("--host-b-from", type=int, default=-1)
    ap.add_argument("--offset-ns", type=int, default=0)
    ap.add_argument("--config", default="")
    ap.add_argument("--crash-rank", type=int, default=-1)
    ap.add_argument("--crash-step", type=int, default=-1)
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    if a.host_b_from >= 0 and rank >= a.host_b_from:
        os.environ["SYNCLINE_HOST"] = "host-b"
        os.environ["SYNCLINE_BOOT_ID"] = "host-b-boot"
        os.environ["SYNCLINE_TEST_CLOCK_OFFSET_NS"] = str(a.offset_ns)
    elif a.host_b_from >= 0:
        os.environ["SYNCLINE_HOST"] = "host-a"
        os.environ["SYNCLINE_BOOT_ID"] = "host-a-boot"

    torch.manual_seed(1234)  # the same initial weights on every rank (DDP checks it too)
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    # 2.2 MB of parameters: after the first step DDP splits them into several buckets (its
    # first bucket holds 1 MB, the others bucket_cap_mb).
    def make():
        torch.manual_seed(1234)
        model = torch.nn.Sequential(
            torch.nn.Linear(16, 512), torch.nn.ReLU(),
            torch.nn.Linear(512, 512), torch.nn.ReLU(),
            torch.nn.Linear(512, 512), torch.nn.ReLU(),
            torch.nn.Linear(512, 1))
        ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.25)
        return ddp, torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)

    ddp, opt = make()
    plain_ddp, plain_opt = make() if a.with_plain else (None, None)
    gen = torch.Generator().manual_seed(100 + rank)
    xs = torch.randn(a.steps * 8, 16, generator=gen)
    ys = xs.sum(dim=1, keepdim=True).sin()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=8)

    client = prof = None
    if not a.plain:
        import syncline
        import syncline.torch as st
        client = syncline.FileTimerClient(a.config or str(out / "timer_config.json"),
                                          str(out / "timer_events.log"))
        inst = st.instrument(ddp, client, depth=a.depth)
        again = st.instrument(ddp, client, depth=a.depth)  # a second call adds nothing
        assert again is inst
        st.instrument_optimizer(opt, client)
        st.register_ddp_hook(ddp, client)
        st.record_collectives(client)
        loader = st.timed_loader(loader, client)

    losses, plain_losses = [], []
    nxt, prv = (rank + 1) % world, (rank - 1) % world
    for step, (x, y) in enumerate(loader):
        if client is not None:
            client.start_event("step", step=step)
            if step == a.profile_from:
                prof = st.ProfilerRecorder(client).__enter__()
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        if rank == a.crash_rank and step == a.crash_step:
            print(f"worker rank={rank} crashing before backward at step {step}", flush=True)
            os._exit(13)  # the peers' bucket all-reduces of this backward fail
        loss.backward()
        opt.step()
        losses.append(float(loss.item()).hex())
        if plain_ddp is not None:
            if client is not None:
                client.start_event("plain_step")  # the reference model's step, not instrumented
            plain_opt.zero_grad()
            plain_loss = torch.nn.functional.mse_loss(plain_ddp(x), y)
            plain_loss.backward()
            plain_opt.step()
            plain_losses.append(float(plain_loss.item()).hex())
            if client is not None:
                client.end_event("plain_step")
        # user collectives (their results do not feed back into training)
        t = loss.detach().clone()
        dist.all_reduce(t)
        if step % 5 == 0:
            dist.barrier()
        b = torch.tensor([float(step)])
        dist.broadcast(b, src=0)
        gathered = [torch.zeros(1) for _ in range(world)]
        dist.all_gather(gathered, t.reshape(1))
        token = torch.tensor([float(rank * 1000 + step)])
        if rank % 2 == 0:
            dist.send(token, nxt)
            dist.recv(token, prv)
        else:
            got = torch.zeros(1)
            dist.recv(got, prv)
            dist.send(token, nxt)
        if client is not None:
            if prof is not None and step == a.profile_from + 2:
                prof.__exit__(None, None, None)
                print(f"rank {rank}: profiler tie {prof.tie}, {prof.written} ops", flush=True)
                prof = None
            client.end_event("step")
    (out / "results").mkdir(exist_ok=True)
    (out / "results" / f"losses.{rank}.json").write_text(json.dumps({
        "losses": losses, "plain_losses": plain_losses, "run_id": os.environ.get("TORCHELASTIC_RUN_ID", ""),
        "restart": int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")),
        "pid": os.getpid(), "log": client.log_path if client is not None else None}))
    dist.barrier()
    if client is not None:
        client.close()
    dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
