#!/usr/bin/python3
"""A Python training worker for the demo job, recording with syncline.FileTimerClient — the same
fake training loop as the C++ examples/cpp/example_worker, written the way a PyTorch user would:

  step ─ data_wait ─ forward ─ layer0..L-1 ─ attention, mlp   (a data-loader thread fills a queue
       ─ loss      ─ backward ─ layerL-1_grad..layer0_grad      with load_batch events)
       ─ all_reduce ─ optimizer [─ checkpoint_save + instant "checkpoint" every --checkpoint-every]

The all_reduce is a blocking collective. Under the demo launcher it is a real cross-process
barrier (demobarrier.py; env SYNCLINE_DEMO_BARRIER=host:port names the launcher's server): the
event lasts from entering the barrier until the server releases every rank at once, so every
rank waits for the slowest one and all ranks' all_reduce ends coincide in true time. After
--barrier-timeout-ms without a release the rank goes on and records an instant
"barrier_timeout"; a lost connection records "barrier_lost" and falls back to the period.
Without SYNCLINE_DEMO_BARRIER the all_reduce of step k ends at epoch + (k+1)·period on the
machine's true CLOCK_MONOTONIC_RAW (shared by all processes here, whatever synthetic skew the
recorder applies), as example_worker's standalone mode does.
Rank --straggler computes 30 % slower. Rank --hang-rank, after its last step, leaves the barrier
(it takes part in no further collective) and hangs in the final checkpoint_save, never returning
(the launcher kills it): an event that stays open, overdue.

Identity (RANK, WORLD_SIZE, ...) and the emulated host/clock come from the environment set by
run_demo.py.
"""
import argparse
import os
import queue
import sys
import threading
import time

import syncline

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import demobarrier  # noqa: E402  (beside this file)


def true_now_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="timer_config.json")
    p.add_argument("--log", default="timer_events.{rank}.log")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--period-ms", type=float, default=50.0)
    p.add_argument("--straggler", type=int, default=-1)
    p.add_argument("--hang-rank", type=int, default=-1)
    p.add_argument("--checkpoint-every", type=int, default=50)
    p.add_argument("--barrier-timeout-ms", type=float, default=10000,
                   help="longest wait for the other ranks in an all_reduce (10000)")
    p.add_argument("--wait-go", action="store_true",
                   help="print 'ready' once the client is up, then wait for 'go EPOCH_NS' on "
                        "stdin (default epoch: the next period boundary)")
    return p.parse_args()


def data_loader(client, batches, steps):
    client.set_thread_name("data_loader")
    for b in range(steps):
        with client.event("load_batch", batch=b, source="disk"):
            time.sleep(0.003 + (b % 3) * 0.0015)
        batches.put(b)


def all_reduce(client, barrier, period_end_ns):
    """The step's all_reduce: the demo barrier when there is one (returned, or None once it is
    lost), else a wait until period_end_ns on the true clock."""
    with client.event("all_reduce", bytes=64 << 20):
        if barrier is not None:
            instance = barrier.instances_entered
            result = barrier.arrive()
            if result == demobarrier.RELEASED:
                return barrier
            if result == demobarrier.TIMED_OUT:
                client.instant("barrier_timeout", instance=instance,
                               timeout_ms=int(barrier.timeout_s * 1000))
                return barrier
            print(f"rank {client.rank}: demo barrier at {barrier.address} lost ({barrier.error}); "
                  f"all_reduce falls back to the period", file=sys.stderr, flush=True)
            client.instant("barrier_lost", instance=instance, error=barrier.error)
            barrier = None
        time.sleep(max(0, period_end_ns - true_now_ns()) / 1e9)
    return barrier


def main():
    o = parse_args()
    client = syncline.FileTimerClient(config_path=o.config, log_path=o.log)
    client.set_thread_name("trainer")
    rank = client.rank
    period = int(o.period_ms * 1e6)
    epoch = (true_now_ns() // period + 1) * period
    if o.wait_go:  # a start barrier with the launcher, so that every rank starts in one period
        print("ready", flush=True)
        epoch = int(sys.stdin.readline().split()[1])
    slow = 1.3 if rank == o.straggler else 1.0
    barrier = None
    if os.environ.get(demobarrier.ENV):
        barrier = demobarrier.BarrierClient(os.environ[demobarrier.ENV], rank,
                                            o.barrier_timeout_ms / 1000)
    batches = queue.Queue(maxsize=2)
    loader = threading.Thread(target=data_loader, args=(client, batches, o.steps), daemon=True)
    loader.start()

    @client.timed("loss")
    def loss(step):
        time.sleep(0.0005 * slow)
        return 2.5 / (1.0 + step)

    for step in range(o.steps):
        with client.event("step", step=step):
            with client.event("data_wait"):
                batch = batches.get()
            with client.event("forward", batch=batch):
                for layer in range(o.layers):
                    with client.event(f"layer{layer}", **{"pass": "fwd"}):
                        with client.event("attention"):
                            time.sleep(0.0007 * slow)
                        with client.event("mlp"):
                            time.sleep(0.0008 * slow)
            value = loss(step)
            with client.event("backward", loss=value):
                for layer in reversed(range(o.layers)):
                    client.start_event(f"layer{layer}_grad", **{"pass": "bwd"})
                    time.sleep(0.003 * slow)
                    client.end_event(f"layer{layer}_grad")
            barrier = all_reduce(client, barrier, epoch + (step + 1) * period)
            with client.event("optimizer", lr=0.001, clipped=step % 4 == 0):
                time.sleep(0.001 * slow)
            if step % o.checkpoint_every == o.checkpoint_every - 1:
                with client.event("checkpoint_save", step=step):
                    time.sleep(0.008)
                client.instant("checkpoint", step=step)
    if barrier is not None:
        barrier.leave()  # no further collectives: the hang below must not block the others
    if rank == o.hang_rank:
        client.start_event("checkpoint_save", step=o.steps, final=True)
        print(f"rank {rank}: hanging in the final checkpoint_save (on purpose)", flush=True)
        while True:  # a stuck file system: the launcher kills this process
            time.sleep(1)
    client.close()
    s = client.stats
    print(f"rank {rank}: {s['written']} events, {s['dropped']} dropped -> {client.log_path}",
          flush=True)


if __name__ == "__main__":
    main()
