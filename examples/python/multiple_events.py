"""複数イベントの例 (multiple events) from the original request, with `syncline` in place of torch."""
import time

from _workdir import enter_workdir, print_timeline

enter_workdir()
from syncline import FileTimerClient  # noqa: E402

# timer_config.jsonとtimer_events.logファイルのパスを指定 (config and log paths)
timer_client = FileTimerClient(config_path="timer_config.json", log_path="timer_events.log")

# イベント1の開始 (start event 1)
timer_client.start_event("event1")

# 処理1 (work 1)
time.sleep(0.01)

# イベント1の終了 (end event 1)
timer_client.end_event("event1")

# イベント2の開始 (start event 2)
timer_client.start_event("event2")

# 処理2 (work 2)
time.sleep(0.02)

# イベント2の終了 (end event 2)
timer_client.end_event("event2")

# グローバルなタイムラインを取得 (get the global timeline)
timeline = timer_client.get_timeline()
print_timeline(timeline)
