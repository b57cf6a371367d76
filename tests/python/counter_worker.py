"""A training-like worker process for test_counters.py: STEPS steps, each a `step` event with a
`loss` counter sample (the loss halves every step; step 2's is NaN, as a diverging step's would
be), a `tokens` counter, and syncline.torch.record_memory() (the RSS on a CPU build) when WITH_TORCH."""
import math
import sys

import syncline

steps, with_torch = int(sys.argv[1]), sys.argv[2] == "1"
client = syncline.FileTimerClient(config_path="", log_path="timer_events.log")
if with_torch:
    import syncline.torch as st
loss = 8.0
for step in range(steps):
    with client.event("step", step=step):
        client.counter("loss", math.nan if step == 2 else loss)
        client.counter("tokens", 1024 * (step + 1))
        if with_torch:
            recorded = st.record_memory(client)
            assert recorded and all(v > 0 for v in recorded.values()), recorded
    loss /= 2
client.close()
print("ok", flush=True)
