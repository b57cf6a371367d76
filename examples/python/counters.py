"""Counters: a training-like loop that records, besides its step/forward/backward events, the
loss and the learning rate each step (client.counter) and, when PyTorch is installed, the
memory (syncline.torch.record_memory: CUDA allocated/reserved, or the process RSS on a CPU
build). Open the job in the viewer: each counter is a graph under the worker's tracks.

    SYNCLINE_WORKDIR=/tmp/counters python3 examples/python/counters.py [STEPS]
    build/bin/syncline /tmp/counters
"""
import math
import os
import random
import sys
import time

from _workdir import enter_workdir, print_timeline

enter_workdir()
from syncline import FileTimerClient  # noqa: E402

try:
    import syncline.torch as st  # noqa: E402
except ImportError:  # no PyTorch here: loss and learning rate only
    st = None

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
rank = int(os.environ.get("RANK", "0"))
client = FileTimerClient(config_path="timer_config.json", log_path="timer_events.log")
rng = random.Random(rank)
buffers = []
for step in range(steps):
    with client.event("step", step=step):
        lr = 0.1 * 0.5 * (1 + math.cos(math.pi * step / steps))   # cosine schedule
        client.counter("learning_rate", lr)
        with client.event("forward"):
            buffers.append(bytearray(256 * 1024))                 # activations kept ...
            time.sleep(0.004 + 0.002 * rng.random())
        with client.event("backward"):
            time.sleep(0.006 + 0.003 * rng.random())
            if len(buffers) > 8:
                del buffers[:4]                                    # ... and freed
        loss = 2.5 * math.exp(-step / 12) + 0.1 * rng.random()
        client.counter("loss", loss)
        if st is not None:
            st.record_memory(client)
client.close()
if os.environ.get("SYNCLINE_PRINT", "1") == "1":
    timeline = client.get_timeline()
    for w in timeline.workers:
        for c in w.counters:
            print(f"rank {w.rank}  counter {c['label']:<16} {len(c['values'])} samples  "
                  f"last {c['values'][-1]:.6g}")
