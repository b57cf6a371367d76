"""A small DDP training worker for the multi-host testbed tests (test_testbed.py): a real
torch.nn.parallel.DistributedDataParallel model (gloo, CPU) whose gradients are all-reduced
across the testbed's hosts, recorded with syncline.FileTimerClient (identity and time server from
torchrun's environment: nothing about sync is configured).

  --log PATH            the log path (placeholders as FileTimerClient's log_path)
  --steps N             training steps (default 6)
  --step-ms M           extra compute per step, ms (default 20)
  --crash-rank R --crash-step S   rank R dies hard (os._exit(13), no close record) at step S of
                        its first incarnation
  --wait-world N        while the world is smaller than N, step without collectives until
                        torchelastic stops this worker to re-form the group (SIGTERM: the log
                        is closed first)
Prints "worker rank=R restart=K world=W pid=P host=H log=PATH" when the client is up.
"""
import argparse
import os
import signal
import socket
import sys
import time

import syncline


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log", required=True)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--step-ms", type=float, default=20)
    p.add_argument("--crash-rank", type=int, default=-1)
    p.add_argument("--crash-step", type=int, default=-1)
    p.add_argument("--wait-world", type=int, default=0)
    o = p.parse_args()
    client = syncline.FileTimerClient(log_path=o.log)
    restart = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    world = int(os.environ["WORLD_SIZE"])
    say(f"worker rank={client.rank} restart={restart} world={world} pid={os.getpid()} "
        f"host={socket.gethostname()} log={client.log_path}")

    def on_sigterm(signum, frame):
        client.instant("stopped_by_agent")
        client.close()
        os._exit(143)

    signal.signal(signal.SIGTERM, on_sigterm)
    while world < o.wait_world:  # until the agent re-forms the group with the new hosts
        with client.event("step", world=world):
            time.sleep(o.step_ms / 1000)
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(0)
    torch.set_num_threads(1)
    with client.event("init_process_group"):
        dist.init_process_group("gloo")
    model = DDP(torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                    torch.nn.Linear(32, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(8, 16), torch.randn(8, 1)
    for step in range(o.steps):
        if restart == 0 and client.rank == o.crash_rank and step == o.crash_step:
            say(f"worker rank={client.rank} crashing at step {step}")
            os._exit(13)
        with client.event("step", step=step):
            with client.event("compute"):
                time.sleep(o.step_ms / 1000)
            with client.event("forward"):
                loss = torch.nn.functional.mse_loss(model(x), y)
            with client.event("backward"):  # DDP all-reduces the gradients here
                opt.zero_grad()
                loss.backward()
            with client.event("optimizer"):
                opt.step()
    with client.event("barrier"):
        dist.barrier()
    dist.destroy_process_group()
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
