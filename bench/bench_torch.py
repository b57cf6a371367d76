"""bench_torch.py — what syncline.torch costs a training step (docs/pytorch.md#cost).

One process, one model, one run: an MLP (6 Linear layers of 512, ReLUs between; batch 64,
SGD with momentum, a DataLoader over synthetic data, torch on 1 thread) trained in rounds that
interleave the configurations, so that machine noise falls on all of them alike:

  baseline      no syncline
  depth 1       instrument(model, depth=1) + instrument_optimizer + timed_loader: per step
                the model's forward/backward, each of its 11 children's, optimizer.step,
                dataloader_wait (26 events)
  depth 1+prof  the same inside a ProfilerRecorder (torch.profiler on; the profiler's own cost
                is part of this figure; writing its ops into the log at exit is reported apart)

The step-time ratio against the baseline is the median over rounds of (config / baseline) of the
rounds' median step times, in wall-clock time and in the main thread's CPU time (torch runs on
that one thread: its CPU time is the step's work, without the time a loaded machine's other
processes took the CPU away). Then µs per hook call: the same forward/backward through a chain of
64 tiny modules (Linear(4, 4)) with and without instrument(depth=1): (instrumented − plain) / 64
per step (CPU time) = the cost of one module's forward event + backward interval.

  PYTHONPATH=build/python /usr/bin/python3 bench/bench_torch.py [--rounds 24] [--steps 8]
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

try:
    import torch
except ImportError:
    print("bench_torch: PyTorch is not installed (Debian: python3-torch); skipped")
    sys.exit(0)

import syncline
import syncline.torch as st


def make_model(width, layers):
    torch.manual_seed(0)
    mods = []
    for i in range(layers):
        mods.append(torch.nn.Linear(width, width))
        if i + 1 < layers:
            mods.append(torch.nn.ReLU())
    return torch.nn.Sequential(*mods)


def run_steps(model, opt, loader, steps, client=None):
    """Median step time (ns) over `steps` steps: (wall clock, this thread's CPU time). With torch
    on one thread the step's work is this thread's, and its CPU time does not count the time
    other processes of a loaded machine took the CPU from it."""
    wall, cpu = [], []
    it = iter(loader)
    for _ in range(steps):
        t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
        x, y = next(it)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        cpu.append(time.thread_time_ns() - c0)
        wall.append(time.perf_counter_ns() - t0)
    return statistics.median(wall), statistics.median(cpu)


def endless(loader):
    while True:
        yield from loader


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=24)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--layers", type=int, default=6)
    a = ap.parse_args()
    torch.set_num_threads(1)
    tmp = tempfile.mkdtemp(prefix="bench_torch.")
    client = syncline.FileTimerClient("", os.path.join(tmp, "timer_events.log"))

    model = make_model(a.width, a.layers)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    gen = torch.Generator().manual_seed(1)
    xs = torch.randn(64 * 16, a.width, generator=gen)
    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, xs.sin()), batch_size=64)

    st.instrument_optimizer(opt, client)  # toggled below by swapping .step
    hooked_step, plain_step = opt.step, type(opt).step.__get__(opt)
    plain_loader, timed = endless(data), st.timed_loader(endless(data), client)
    timed_iter = iter(timed)

    def baseline():
        opt.step = plain_step
        return run_steps(model, opt, plain_loader, a.steps)

    def depth1():
        inst = st.instrument(model, client, depth=1)
        opt.step = hooked_step
        try:
            return run_steps(model, opt, timed_iter, a.steps)
        finally:
            inst.remove()

    write_ns, exit_ns, ops = [], [], []

    def depth1_prof():
        inst = st.instrument(model, client, depth=1)
        opt.step = hooked_step
        try:
            prof = st.ProfilerRecorder(client)
            prof.__enter__()
            t = run_steps(model, opt, timed_iter, a.steps)
            t0 = time.perf_counter_ns()
            prof.__exit__(None, None, None)
            exit_ns.append(time.perf_counter_ns() - t0)
            write_ns.append(prof.write_ns)
            ops.append(prof.written)
            return t
        finally:
            inst.remove()

    configs = [("baseline", baseline), ("depth 1", depth1), ("depth 1+prof", depth1_prof)]
    for _, f in configs:  # warm-up
        f()
    per = {n: [] for n, _ in configs}
    for r in range(a.rounds):
        order = configs if r % 2 == 0 else configs[::-1]
        for n, f in order:
            per[n].append(f())
    client.flush()

    print(f"bench_torch: MLP {a.layers}x Linear({a.width}) batch 64, SGD, 1 thread; "
          f"{a.rounds} rounds x {a.steps} steps, interleaved")
    print(f"{'config':<14}{'wall ms':>10}{'ratio':>9}{'CPU ms':>10}{'ratio':>9}   (medians)")
    base = per["baseline"]
    for n, _ in configs:
        cols = []
        for k in (0, 1):
            ratio = statistics.median(x[k] / b[k] for x, b in zip(per[n], base))
            cols.append(f"{statistics.median(x[k] for x in per[n]) / 1e6:>10.3f}{ratio:>9.4f}")
        print(f"{n:<14}{''.join(cols)}")
    print(f"profiler ops written at exit: {statistics.median(ops):.0f} per {a.steps} steps; "
          f"syncline's conversion and writing {statistics.median(w / o for w, o in zip(write_ns, ops)) / 1e3:.2f} "
          f"µs per op, the whole exit (torch's stop and parse included) "
          f"{statistics.median(w / o for w, o in zip(exit_ns, ops)) / 1e3:.2f} µs per op")

    # µs per hook call: a chain of tiny modules, where the hooks are most of the work.
    chain = torch.nn.Sequential(*[torch.nn.Linear(4, 4) for _ in range(64)])
    x = torch.randn(2, 4)

    def chain_step():
        t0 = time.thread_time_ns()
        chain(x).sum().backward()
        return time.thread_time_ns() - t0

    def median_of(n):
        return statistics.median(chain_step() for _ in range(n))

    plain, hooked = [], []
    for r in range(a.rounds):
        plain.append(median_of(50))
        inst = st.instrument(chain, client, depth=1)
        hooked.append(median_of(50))
        inst.remove()
        chain.zero_grad()
    per_hook = (statistics.median(hooked) - statistics.median(plain)) / 64
    print(f"per instrumented module and step (forward event + backward interval, CPU time): "
          f"{per_hook / 1e3:.2f} µs  (chain of 64 Linear(4,4): {statistics.median(plain) / 1e3:.0f} "
          f"µs plain, {statistics.median(hooked) / 1e3:.0f} µs instrumented)")
    client.close()
    print(f"load average during the run: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
    print(f"log: {client.log_path} ({client.stats['written']} records, "
          f"{client.stats['dropped']} dropped)")


if __name__ == "__main__":
    sys.exit(main())
