"""A small training-like worker for the real-torchrun tests (test_torchrun.py): records with
syncline.FileTimerClient (identity from torchelastic's environment), joins a gloo process group
and all-reduces once a step.

  --crash-rank R --crash-step S   rank R dies hard (os._exit(13), no close record) at step S of
                                  its first incarnation (TORCHELASTIC_RESTART_COUNT 0)
  --slow-rank R --slow-ms M       rank R's `compute` takes M ms longer every step (a straggler:
                                  the others wait for it in the all_reduce)
  --wait-world N                  while the world is smaller than N, keep stepping (no
                                  collectives) until torchelastic stops this worker to re-form
                                  the group (SIGTERM: the log is closed first); a world of N or
                                  more runs --steps steps and exits
Prints one line "worker rank=R restart=K world=W pid=P log=PATH" when the client is up.
"""
import argparse
import os
import signal
import sys
import time

import syncline



def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log", required=True)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--step-ms", type=float, default=20)
    p.add_argument("--crash-rank", type=int, default=-1)
    p.add_argument("--crash-step", type=int, default=-1)
    p.add_argument("--wait-world", type=int, default=0)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-ms", type=float, default=0.0)
    o = p.parse_args()
    client = syncline.FileTimerClient(log_path=o.log)
    restart = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    world = int(os.environ["WORLD_SIZE"])

    def on_sigterm(signum, frame):
        client.instant("stopped_by_agent")
        client.close()
        os._exit(143)

    signal.signal(signal.SIGTERM, on_sigterm)
    # One write per line (print writes the text and its "\n" separately): the workers share
    # torchrun's stdout, and two ranks' lines interleaved as "A", "B", "\n", "\n" on a loaded
    # machine, which glued them into one line the test could not parse.
    say(f"worker rank={client.rank} restart={restart} world={world} pid={os.getpid()} "
        f"log={client.log_path}")
    if world < o.wait_world:
        while True:  # until the agent re-forms the group with the new node
            with client.event("step", world=world):
                time.sleep(o.step_ms / 1000)
    import torch
    import torch.distributed as dist

    with client.event("init_process_group"):
        dist.init_process_group("gloo")
    for step in range(o.steps):
        if restart == 0 and client.rank == o.crash_rank and step == o.crash_step:
            say(f"worker rank={client.rank} crashing at step {step}")
            os._exit(13)
        with client.event("step", step=step):
            with client.event("compute"):
                slow = o.slow_ms if client.rank == o.slow_rank else 0.0
                time.sleep((o.step_ms + slow) / 1000)
            with client.event("all_reduce"):
                t = torch.ones(4)
                dist.all_reduce(t)
    dist.destroy_process_group()
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
