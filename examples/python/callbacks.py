"""コールバック関数の例 (callbacks) from the original request, with `syncline` in place of torch."""
import time

from _workdir import enter_workdir

enter_workdir()
from syncline import FileTimerClient  # noqa: E402


def on_event_start(event_name):
    print(f"イベント {event_name} が開始されました")  # "event ... started"


def on_event_end(event_name):
    print(f"イベント {event_name} が終了しました")  # "event ... ended"


# timer_config.jsonとtimer_events.logファイルのパスを指定 (config and log paths)
timer_client = FileTimerClient(config_path="timer_config.json", log_path="timer_events.log",
                               on_event_start=on_event_start, on_event_end=on_event_end)

# イベントの開始 (start the event)
timer_client.start_event("my_event")

# 処理 (work)
time.sleep(0.01)

# イベントの終了 (end the event)
timer_client.end_event("my_event")
