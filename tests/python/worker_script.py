"""A tiny worker for the multi-process tests: `python3 worker_script.py STEPS SLEEP_S [HANG]`.
Records STEPS × (step > forward > layer, then an instant), sleeping SLEEP_S inside the layer;
with HANG it leaves an event "hang" open and exits without closing (os._exit)."""
import os
import sys
import time

import syncline

steps, sleep_s = int(sys.argv[1]), float(sys.argv[2])
client = syncline.FileTimerClient(config_path="timer_config.json", log_path="timer_events.log")
for i in range(steps):
    with client.event("step", i=i):
        with client.event("forward"):
            with client.event("layer"):
                time.sleep(sleep_s)
    client.instant("tick", i=i)
if len(sys.argv) > 3:
    client.start_event("hang")
    client.flush()
    os._exit(0)
client.close()
