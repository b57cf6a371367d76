"""シンプルな例 (simple example) from the original request, with `syncline` in place of torch."""
import time

from _workdir import enter_workdir, print_timeline

enter_workdir()
from syncline import FileTimerClient  # noqa: E402

# timer_config.jsonとtimer_events.logファイルのパスを指定 (config and log paths)
timer_client = FileTimerClient(config_path="timer_config.json", log_path="timer_events.log")

# イベントの開始 (start the event)
timer_client.start_event("my_event")

# 処理 (work)
time.sleep(0.01)

# イベントの終了 (end the event)
timer_client.end_event("my_event")

# グローバルなタイムラインを取得 (get the global timeline)
timeline = timer_client.get_timeline()
print_timeline(timeline)
