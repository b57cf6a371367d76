"""syncline._profilerplacement: how the profiler's ops are placed among the recorder's own events
of the same thread (pure functions; no torch needed). The property test builds true call stacks,
observes them as the profiler does (µs rounding, a constant tie error within the bound) and
requires every op to come back nested."""
import random

import pytest

from syncline._profilerplacement import INF, own_intervals, place, refine_offset


def straddles(x, y):
    """Whether two intervals overlap without one containing the other."""
    (s, t), (a, b) = x, y
    return s < a < t < b or a < s < b < t


def test_refine_moves_an_op_into_the_event_it_ran_in():
    # the op was seen 300 ns before the hook began; any δ in [300, 2000] nests it: the middle
    assert refine_offset([(1_000, 5_000)], [(1_300, 9_000)], 2_000) == 1_150
    # the same the other way round (the op ended 400 ns after its event)
    assert refine_offset([(2_000, 9_400)], [(1_000, 9_000)], 2_000) == -700
    # nothing near: unchanged
    assert refine_offset([(1_000, 5_000)], [(100_000, 200_000)], 2_000) == 0
    assert refine_offset([(1_000, 5_000)], [], 2_000) == 0
    assert refine_offset([(1_000, 5_000)], [(1_300, 9_000)], 0) == 0


def test_refine_keeps_ops_that_enclose_an_event():
    # an op that encloses a whole event (autograd's node around a backward hook) is nested too
    assert refine_offset([(1_000, 9_000)], [(1_100, 8_800)], 2_000) == -50


def test_refine_takes_the_fewest_straddles_then_the_range_nearest_zero():
    # two ops asking for opposite shifts beyond each other's reach: one straddle is unavoidable;
    # the δs achieving one are [-2000, -500] and [+500, +2000]; nearest 0 ties: either middle
    d = refine_offset([(1_000, 5_000), (20_500, 30_000)], [(1_500, 9_000), (10_000, 20_000)],
                      2_000)
    assert d in (1_250, -1_250)
    # unbounded events (begun before the profile, still open after it) count by their one end
    assert refine_offset([(1_000, 5_000)], [(1_300, INF)], 2_000) == 1_150
    assert refine_offset([(1_000, 5_000)], [(-INF, 4_800)], 2_000) == -1_100


def test_place_clamps_rounding_and_moves_true_overlaps():
    fixed = [(1_000, 10_000)]
    out = place([(500, 1_700, "late"), (9_500, 10_800, "early"), (2_000, 3_000, "in"),
                 (4_000, 16_000, "async"), (0, 20_000, "outer")], fixed, 2_000)
    by = {o[2]: o for o in out}
    assert by["outer"] == (0, 20_000, "outer", 0)            # encloses the event
    assert by["late"] == (500, 1_000, "late", 0)             # ended 700 ns in: clamped
    assert by["early"] == (9_500, 10_000, "early", 0)        # ended 800 ns after: clamped
    assert by["in"] == (2_000, 3_000, "in", 0)
    assert by["async"] == (4_000, 16_000, "async", 1)        # 6 µs past its event: async lane
    assert [o[0] for o in out] == sorted(o[0] for o in out)


def test_place_async_lanes_nest_among_themselves():
    out = place([(0, 100, "p"), (50, 300, "a"), (60, 400, "b"), (70, 80, "c")], [], 10)
    by = {o[2]: o[3] for o in out}
    assert by == {"p": 0, "a": 1, "b": 2, "c": 0}


def test_own_intervals_reads_the_thread_from_the_offset(tmp_path):
    log = tmp_path / "timer_events.0.log"
    head = '{"t":"B","ts":5,"tid":7,"name":"before"}\n'
    body = ('{"t":"E","ts":100,"tid":7,"name":"before"}\n'
            '{"t":"B","ts":200,"tid":7,"name":"a"}\n'
            '{"t":"B","ts":210,"tid":8,"name":"other thread"}\n'
            '{"t":"E","ts":300,"tid":7,"name":"a"}\n'
            '{"t":"X","ts":400,"dur":50,"tid":7,"name":"x"}\n'
            '{"t":"i","ts":420,"tid":7,"name":"instant"}\n'
            '{"t":"B","ts":500,"tid":7,"name":"open"}\n'
            '{"t":"E","ts":6')  # torn
    log.write_text(head + body)
    got = own_intervals(str(log), len(head), 7)
    assert sorted(got) == [(-INF, 100), (200, 300), (400, 450), (500, INF)]
    assert own_intervals(str(tmp_path / "missing.log"), 0, 7) == []


def _call_stack(rng, start, end, depth, out, kinds):
    """Random nested intervals inside [start, end] (true time, ns), each a hook or an op."""
    t = start + rng.randint(150, 3_000)
    while depth < 5 and t + 2_000 < end:
        d = rng.randint(500, max(600, min(60_000, end - t - 500)))
        kind = rng.choice(kinds)
        out.append((t, t + d, kind))
        _call_stack(rng, t, t + d, depth + 1, out, kinds)
        t += d + rng.randint(150, 5_000)


@pytest.mark.parametrize("seed", range(12))
def test_true_call_stacks_come_back_nested(seed):
    rng = random.Random(seed)
    truth = []
    _call_stack(rng, 0, 2_000_000, 0, truth, ["hook", "op", "op"])
    hooks = [(s, t) for s, t, k in truth if k == "hook"]
    bound = rng.choice([1_500, 2_500, 5_000])
    err = rng.randint(-bound, bound)  # the tie's error: constant over the profile
    ops = []
    for s, t, k in truth:
        if k == "op":  # the profiler's µs stamps, mapped with the erring tie
            ops.append(((s // 1000) * 1000 + err, -(-t // 1000) * 1000 + err, k))
    shift = refine_offset([o[:2] for o in ops], hooks, bound)
    assert abs(err + shift) <= bound + 1_000
    placed = place([(s + shift, t + shift, n) for s, t, n in ops], hooks, 2_000)
    on_thread = [(s, t) for s, t, _, lane in placed if lane == 0]
    assert len(on_thread) == len(ops)  # no op of one call stack is taken for asynchronous
    for op in on_thread:
        assert not any(straddles(op, h) for h in hooks), (op, err, shift)
    for x in on_thread:
        for y in on_thread:
            assert not straddles(x, y), (x, y)
