"""Where syncline.torch.ProfilerRecorder puts the profiler's ops among the recorder's own events
of the same thread. Pure functions (no torch), so they are tested on their own.

The ops come in the profiler's clock, tied to the client's with a measured offset known only to
within ±bound (a few µs), and stamped to whole µs. The thread's own events (the module hooks'
``forward``, the collectives, …) are stamped in the client's clock exactly, and often begin a
few hundred ns before the first op of their body. Placed with the measured offset alone, an op
then sticks out of the event it ran in whenever the offset's error exceeds that gap, and the
loader reports misnesting. But both sides are call stacks of one thread: in true time they nest.
So:

1. ``refine_offset``: one constant correction δ, |δ| ≤ bound (the offset's error is a constant
   over a profile: the clocks' rates differ by ppm), chosen so that as few ops as possible
   straddle a boundary of the thread's events; of the δs that achieve it, the middle of the
   range nearest 0. The nesting is thereby a second measurement of the tie, inside its bound.
2. ``place``: each op nested under the thread's events and the other ops; an op that still
   sticks out by no more than ``slack`` (the profiler's µs rounding, at both ends) is clamped to
   the boundary; one that sticks out by more (an asynchronous op the profiler put on this
   thread, e.g. ``gloo:send``) goes to an ``async`` lane of its own instead of misnesting.
"""
import bisect
import json

INF = float("inf")


def own_intervals(log_path, offset, tid):
    """The (start, end) intervals (client ns) of the events the client wrote on thread ``tid``
    from byte ``offset`` of its log on: B/E pairs and X records. An E whose B came before
    ``offset`` starts at −inf, a B still open at the end ends at +inf. Unreadable: []."""
    out, stack = [], []
    key = f'"tid":{tid},'
    try:
        with open(log_path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError:
        return []
    for line in data.split(b"\n"):
        if not line.startswith(b'{"t":"') or key.encode() not in line:
            continue
        kind = line[6:7]
        if kind not in (b"B", b"E", b"X"):
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a torn last line: the writer is not done with it
        if rec.get("tid") != tid or not isinstance(rec.get("ts"), int):
            continue
        if kind == b"B":
            stack.append(rec["ts"])
        elif kind == b"E":
            out.append((stack.pop() if stack else -INF, rec["ts"]))
        elif isinstance(rec.get("dur"), int):
            out.append((rec["ts"], rec["ts"] + rec["dur"]))
    out.extend((s, INF) for s in stack)
    return out


def refine_offset(spans, fixed, window):
    """The δ in [−window, window] that leaves the fewest of ``spans`` (op intervals) straddling
    an interval of ``fixed`` (exactly one of its ends strictly inside the op), the middle of the
    range of such δs nearest 0. Linear in the ops times the fixed boundaries within ``window`` of
    an op's ends, plus a sort."""
    if window <= 0 or not spans or not fixed:
        return 0
    bounds = sorted((x, i) for i, (a, b) in enumerate(fixed) for x in (a, b) if abs(x) != INF)
    xs = [x for x, _ in bounds]
    los, his = [], []
    for s, t in spans:
        near = set()
        for edge in (s, t):
            lo = bisect.bisect_left(xs, edge - window)
            hi = bisect.bisect_right(xs, edge + window)
            near.update(bounds[k][1] for k in range(lo, hi))
        for i in near:
            a, b = fixed[i]
            # x strictly inside (s + δ, t + δ)  ⟺  x − t < δ < x − s
            cuts = sorted({c for x in (a, b) if abs(x) != INF for c in (x - t, x - s)
                           if -window < c < window})
            points = [-window] + cuts + [window]
            for p, q in zip(points, points[1:]):
                m = (p + q) / 2
                if (a > s + m and a < t + m) != (b > s + m and b < t + m):
                    # straddles on the open piece (p, q); at the window's ends it goes on
                    los.append(p if p > -window else -INF)
                    his.append(q if q < window else INF)
    if not los:
        return 0
    los.sort()
    his.sort()
    marks = sorted({x for x in los + his if abs(x) != INF} | {-window, window})
    positions = []
    for p, q in zip(marks, marks[1:]):
        positions += [p, (p + q) / 2]
    positions.append(marks[-1])

    def count(d):  # open pieces containing d
        return bisect.bisect_left(los, d) - bisect.bisect_right(his, d)

    counts = [count(d) for d in positions]
    best = min(counts)
    runs, start = [], None
    for k, c in enumerate(counts):
        if c == best and start is None:
            start = k
        if c != best and start is not None:
            runs.append((positions[start], positions[k - 1]))
            start = None
    if start is not None:
        runs.append((positions[start], positions[-1]))
    lo, hi = min(runs, key=lambda r: 0 if r[0] <= 0 <= r[1] else min(abs(r[0]), abs(r[1])))
    return int(round((lo + hi) / 2))


def place(spans, fixed, slack):
    """Nests ``spans`` [(start, end, name)] among themselves and under/around ``fixed``
    [(start, end)], which stay as they are. Where an op and another op or event overlap by no
    more than ``slack`` the op gives way (its end or start moves to the other's boundary; of
    two ops, the earlier one ends where the later begins); an op overlapping by more goes to
    an async lane. Returns [(start, end, name, lane)] in start order; lane 0 is the thread
    itself, lane k ≥ 1 the k-th async lane (its ops nest among themselves)."""
    ops = [[s, t, name, 0] for s, t, name in spans]
    items = [(s, -t, 1, k) for k, (s, t, _, _) in enumerate(ops)]
    items += [(a, -b, 0, k) for k, (a, b) in enumerate(fixed)]
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    stack = []  # open items, innermost last: (end of an event, or None for an op, is_op, index)
    moved = []

    def end_of(entry):
        return ops[entry[2]][1] if entry[1] else entry[0]

    def move(k):
        ops[k][3] = -1
        moved.append(k)

    for start, neg_end, is_op, k in items:
        while stack and end_of(stack[-1]) <= start:
            stack.pop()
        if not is_op:
            a, b = start, -neg_end
            inside = []  # ops that began just before this event: they become its children
            while stack and stack[-1][1] and end_of(stack[-1]) < b:
                entry = stack.pop()
                op = ops[entry[2]]
                if op[1] - a <= slack:
                    op[1] = a
                elif a - op[0] <= slack:
                    op[0] = a
                    inside.append(entry)
                else:
                    move(entry[2])
            stack.append((b, False, k))
            stack.extend(reversed(inside))
            continue
        op = ops[k]
        while stack and end_of(stack[-1]) < op[1]:
            top = stack[-1]
            if op[1] - end_of(top) <= slack:  # ends just after its parent: rounding
                op[1] = end_of(top)
                break
            if end_of(top) - op[0] > slack:  # a true overlap
                move(k)
                break
            if top[1]:  # begins just before the previous op ends: they are siblings
                ops[top[2]][1] = op[0]
            else:  # begins just before the event ends: after it
                op[0] = end_of(top)
            stack.pop()
            while stack and end_of(stack[-1]) <= op[0]:
                stack.pop()
        if op[3] == 0:
            stack.append((None, True, k))
    lanes = []  # per async lane: the ends of its open ops
    for k in sorted(moved, key=lambda j: (ops[j][0], -ops[j][1])):
        s, t = ops[k][0], ops[k][1]
        for n, lane in enumerate(lanes):
            while lane and lane[-1] <= s:
                lane.pop()
            if not lane or t <= lane[-1]:
                lane.append(t)
                ops[k][3] = n + 1
                break
        else:
            lanes.append([t])
            ops[k][3] = len(lanes)
    ops.sort(key=lambda o: (o[0], -o[1]))
    return [tuple(o) for o in ops]
