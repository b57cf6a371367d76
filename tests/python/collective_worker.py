"""A worker that records collectives: `python3 collective_worker.py STEPS` (RANK, WORLD_SIZE set,
run in one directory). Per step: "step" > compute (3 ms longer on rank 2), an "all_reduce" keyed
by process group ("group"="dp", "seq"=its number in the group) that really waits for every rank
(a file per rank and step; it returns when all exist), and a "barrier" without metadata (paired
by occurrence)."""
import os
import sys
import time

import syncline

steps = int(sys.argv[1])
rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])


def meet(i):
    open(f"arrive.{i}.{rank}", "w").close()
    deadline = time.monotonic() + 30
    while not all(os.path.exists(f"arrive.{i}.{r}") for r in range(world)):
        if time.monotonic() > deadline:
            sys.exit(f"rank {rank}: step {i}: the other ranks never arrived")
        time.sleep(0.0002)


client = syncline.FileTimerClient()
for i in range(steps):
    with client.event("step", i=i):
        with client.event("compute"):
            time.sleep(0.004 if rank == 2 else 0.001)
        with client.event("all_reduce", group="dp", seq=i):
            meet(i)
        with client.event("barrier"):
            time.sleep(0.0005)
client.close()
