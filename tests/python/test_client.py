"""FileTimerClient: every API item and every error, checked against the log it writes."""
import json
import threading

import pytest

import syncline
from conftest import assert_valid_log, events_of, read_log


def test_defaults_write_timer_events_log_in_cwd(workdir):
    client = syncline.FileTimerClient()
    assert client.log_path == "timer_events.log"
    assert client.config_path == "timer_config.json"
    client.start_event("my_event")
    client.end_event("my_event")
    client.close()
    records = assert_valid_log(workdir / "timer_events.log")
    assert records[0]["format"] == "syncline" and records[0]["config"] is None
    assert any(r["t"] == "note" and "no config file at timer_config.json" in r["msg"]
               for r in records)
    ev = events_of(records)
    assert [(r["t"], r["name"]) for r in ev] == [("B", "my_event"), ("E", "my_event")]
    assert ev[0]["ts"] <= ev[1]["ts"]


def test_keywords_config_and_log_path(workdir):
    (workdir / "cfg.json").write_text('{"flush_interval_ms": 5}')
    client = syncline.FileTimerClient(config_path="cfg.json", log_path="sub/x.log")
    client.close()
    header = read_log(workdir / "sub" / "x.log")[0]
    assert header["config"] == str(workdir / "cfg.json")
    assert header["flush_interval_ms"] == 5


def test_nesting_and_args_of_every_type(workdir):
    with syncline.FileTimerClient() as c:
        c.start_event("outer", step=3, lr=0.5, phase="train", ok=True, big=2**62)
        c.start_event("inner")
        c.end_event("inner", loss=1.25)
        c.end_event("outer")
    ev = events_of(assert_valid_log("timer_events.log"))
    assert [(r["t"], r["name"]) for r in ev] == [("B", "outer"), ("B", "inner"),
                                                  ("E", "inner"), ("E", "outer")]
    assert ev[0]["args"] == {"step": 3, "lr": 0.5, "phase": "train", "ok": True, "big": 2**62}
    assert isinstance(ev[0]["args"]["ok"], bool)
    assert ev[2]["args"] == {"loss": 1.25}
    assert "args" not in ev[1]


def test_bad_args_raise_and_write_nothing(workdir):
    with syncline.FileTimerClient() as c:
        with pytest.raises(TypeError, match="'blob'.*expected str, int, float or bool.*list"):
            c.start_event("x", blob=[1, 2])
        with pytest.raises(OverflowError, match="'n'.*int64"):
            c.start_event("x", n=2**64)
        with pytest.raises(TypeError, match="exactly one positional argument \\(0 given\\)"):
            c.start_event()
        with pytest.raises(TypeError, match="exactly one positional argument \\(2 given\\)"):
            c.start_event("a", "b")
        with pytest.raises(TypeError, match="name must be str, not int"):
            c.end_event(5)
    assert events_of(assert_valid_log("timer_events.log")) == []


def test_end_event_not_open_raises_and_log_stays_valid(workdir):
    c = syncline.FileTimerClient()
    with pytest.raises(syncline.TimerError, match='endEvent\\("nothing"\\): no event is open'):
        c.end_event("nothing")
    c.start_event("a")
    c.start_event("b")
    with pytest.raises(syncline.TimerError, match='innermost open event of this thread is "b"'):
        c.end_event("a")
    c.end_event("b")  # the failed end changed nothing: b is still the innermost
    c.end_event("a")
    with pytest.raises(syncline.TimerError, match="empty event name"):
        c.start_event("")
    assert issubclass(syncline.TimerError, syncline.Error)
    assert issubclass(syncline.Error, RuntimeError)
    c.close()
    records = assert_valid_log("timer_events.log")
    assert [(r["t"], r["name"]) for r in events_of(records)] == [
        ("B", "a"), ("B", "b"), ("E", "b"), ("E", "a")]
    assert records[-1]["open"] == 0


def test_config_error_names_the_key(workdir):
    (workdir / "timer_config.json").write_text('{"flush_ms": 5}')
    with pytest.raises(syncline.ConfigError, match="timer_config.json: flush_ms: unknown key"):
        syncline.FileTimerClient()
    (workdir / "timer_config.json").write_text('{"event_kinds": [{"name": "a", "expected_max_ms": -1}]}')
    with pytest.raises(syncline.ConfigError, match=r"event_kinds\[0\]\.expected_max_ms"):
        syncline.FileTimerClient()


def test_callbacks_run_around_the_recorded_event(workdir):
    calls = []
    c = syncline.FileTimerClient(on_event_start=lambda n: calls.append(("start", n, c.now_ns())),
                                 on_event_end=lambda n: calls.append(("end", n, c.now_ns())))
    c.start_event("my_event")
    c.end_event("my_event")
    c.close()
    assert [x[:2] for x in calls] == [("start", "my_event"), ("end", "my_event")]
    b, e = events_of(read_log("timer_events.log"))
    assert calls[0][2] <= b["ts"], "on_event_start runs before the B is stamped"
    assert e["ts"] <= calls[1][2], "on_event_end runs after the E is stamped"


class Boom(Exception):
    pass


def test_raising_start_callback_propagates_and_event_is_not_started(workdir):
    def bad(name):
        raise Boom(name)

    c = syncline.FileTimerClient(on_event_start=bad)
    with pytest.raises(Boom, match="x"):
        c.start_event("x")
    with pytest.raises(syncline.TimerError, match="no event is open"):
        c.end_event("x")
    c.close()
    assert events_of(assert_valid_log("timer_events.log")) == []


def test_raising_end_callback_propagates_after_the_event_ended(workdir):
    def bad(name):
        raise Boom(name)

    c = syncline.FileTimerClient(on_event_end=bad)
    c.start_event("outer")
    c.start_event("x")
    with pytest.raises(Boom):
        c.end_event("x")
    with pytest.raises(Boom):
        c.end_event("outer")  # x really ended: outer is the innermost now
    c.close()
    records = assert_valid_log("timer_events.log")
    assert [(r["t"], r["name"]) for r in events_of(records)] == [
        ("B", "outer"), ("B", "x"), ("E", "x"), ("E", "outer")]
    assert records[-1]["open"] == 0


def test_non_callable_callback_is_a_type_error(workdir):
    with pytest.raises(TypeError, match="on_event_end must be callable or None, got int"):
        syncline.FileTimerClient(on_event_end=3)


def test_event_context_manager(workdir):
    c = syncline.FileTimerClient()
    with c.event("block", step=1) as scope:
        assert scope.name == "block"
        with c.event("inner"):
            pass
    with pytest.raises(Boom):
        with c.event("failing"):
            raise Boom()
    with pytest.raises(syncline.TimerError, match="innermost open event of this thread is \"left\""):
        with c.event("leaky"):
            c.start_event("left")
    c.end_event("left")
    c.end_event("leaky")
    c.close()
    ev = events_of(assert_valid_log("timer_events.log"))
    assert [(r["t"], r["name"]) for r in ev] == [
        ("B", "block"), ("B", "inner"), ("E", "inner"), ("E", "block"),
        ("B", "failing"), ("E", "failing"),
        ("B", "leaky"), ("B", "left"), ("E", "left"), ("E", "leaky")]
    assert ev[0]["args"] == {"step": 1}


def test_timed_decorator_forms(workdir):
    c = syncline.FileTimerClient()

    @c.timed
    def bare(x):
        """doc of bare"""
        return x + 1

    @c.timed()
    def empty_parens():
        return "p"

    @c.timed("custom")
    def named(*args, **kwargs):
        return args, kwargs

    class Model:
        @c.timed
        def forward(self, v):
            return v * 2

    @c.timed("fails")
    def fails():
        raise Boom("inside")

    assert bare(1) == 2 and bare.__name__ == "bare" and bare.__doc__ == "doc of bare"
    assert bare.__wrapped__.__name__ == "bare"
    assert empty_parens() == "p"
    assert named(1, k=2) == ((1,), {"k": 2})
    assert Model().forward(4) == 8
    with pytest.raises(Boom, match="inside"):
        fails()
    with pytest.raises(TypeError, match="expected a callable"):
        c.timed("x")(42)
    c.close()
    names = [r["name"] for r in events_of(assert_valid_log("timer_events.log")) if r["t"] == "B"]
    local = "test_timed_decorator_forms.<locals>."
    assert names == [local + "bare", local + "empty_parens", "custom", local + "Model.forward",
                     "fails"]


def test_instant_and_record_interval(workdir):
    c = syncline.FileTimerClient()
    c.instant("checkpoint_saved", bytes=1024)
    t0 = c.now_ns()
    c.record_interval("cuda_kernel", t0, t0 + 5000, stream=7)
    with pytest.raises(syncline.TimerError, match='recordInterval\\("bad"\\): end 1 is before start 2'):
        c.record_interval("bad", 2, 1)
    with pytest.raises(syncline.TimerError, match="empty event name"):
        c.instant("")
    c.close()
    ev = events_of(assert_valid_log("timer_events.log"))
    assert ev[0]["t"] == "I" and ev[0]["name"] == "checkpoint_saved" and ev[0]["args"] == {"bytes": 1024}
    assert ev[1] == {"t": "X", "ts": t0, "dur": 5000, "tid": ev[1]["tid"], "name": "cuda_kernel",
                     "args": {"stream": 7}}


def test_clocks_without_time_server(workdir):
    c = syncline.FileTimerClient()
    a = c.now_ns()
    g, bound = c.global_time_ns(with_bound=True)
    b = c.now_ns()
    assert a <= g <= b, "without sync samples global time is the local clock"
    assert bound == -1
    assert isinstance(c.global_time_ns(), int)
    c.close()


def test_close_is_idempotent_and_later_calls_are_ignored(workdir):
    c = syncline.FileTimerClient()
    assert not c.closed and c.ok and c.last_error == ""
    c.start_event("a")
    c.end_event("a")
    c.close()
    c.close()
    assert c.closed
    c.start_event("after")
    c.end_event("after")  # ignored, not an error: the recorder is closed
    c.instant("after")
    records = read_log("timer_events.log")
    assert records[-1]["t"] == "close" and sum(r["t"] == "close" for r in records) == 1
    assert "after" not in {r.get("name") for r in records}
    assert c.stats["events"] >= 2 and c.stats["dropped"] == 0 and not c.stats["io_error"]
    assert "closed" in repr(c)


def test_context_manager_closes(workdir):
    with syncline.FileTimerClient() as c:
        c.instant("x")
    assert c.closed
    assert read_log("timer_events.log")[-1]["t"] == "close"


def test_threads_nest_separately(workdir):
    c = syncline.FileTimerClient()
    barrier = threading.Barrier(2)

    def work(tag):
        c.set_thread_name(f"worker-{tag}")
        c.start_event(f"outer-{tag}")
        barrier.wait()  # both threads hold an open event at once
        c.start_event("inner")
        c.end_event("inner")
        barrier.wait()
        c.end_event(f"outer-{tag}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    c.close()
    records = assert_valid_log("timer_events.log")
    names = {r["tid"]: r["name"] for r in records if r["t"] == "thread"}
    assert sorted(names.values()) == ["worker-0", "worker-1"]
    tl = syncline.load_timeline("timer_events.log")
    inner = [e for e in tl if e.name == "inner"]
    assert len(inner) == 2 and {e.depth for e in inner} == {1}
    assert {e.thread for e in inner} == {"worker-0", "worker-1"}


def test_uninitialised_subclass_is_a_clear_error(workdir):
    class Sub(syncline.FileTimerClient):
        def __init__(self):
            pass

    with pytest.raises(TypeError, match=r"__init__\(\) must be called"):
        Sub().start_event("x")
