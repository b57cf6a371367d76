"""A recording worker for test_event_store.py: `python3 store_worker.py STEPS`, rank and world
size from RANK / WORLD_SIZE. Records STEPS × (step > forward, allreduce with a message to the
next rank and one from the previous), with args, into timer_events.<rank>.log, and closes: with
the config's event_store on, the close writes the log's index and event store. Rank 1 also
records a counter (its log then holds a recorder note); rank 2 changes its working directory
before it closes (its log was named relative to the old one)."""
import os
import sys

import syncline

steps = int(sys.argv[1])
client = syncline.FileTimerClient(config_path="timer_config.json",
                                  log_path="timer_events.{rank}.log")
rank, world = client.rank, int(os.environ["WORLD_SIZE"])
for i in range(steps):
    with client.event("step", i=i, phase="train"):
        with client.event("forward"):
            pass
        if rank == 1:
            client.counter("loss", i * 0.5)
        with client.event("allreduce", bytes=4096):
            client.message("send", (rank + 1) % world, "m%d-%d" % (rank, i))
            client.message("recv", (rank - 1) % world, "m%d-%d" % ((rank - 1) % world, i))
if rank == 2:
    os.chdir("/")
client.close()
