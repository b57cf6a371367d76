"""syncline: nested event recording for distributed training, and the corrected global timeline
of a job.

This package re-exports the extension module ``syncline._core`` (the C++ recorder and timeline
layer, docs/python.md): ``syncline.FileTimerClient``, ``syncline.load_timeline``, the exceptions,
... are the extension's own objects. The submodules need more than the core and are imported only
on request:

- ``syncline.torch`` — hooks for PyTorch training scripts (docs/pytorch.md); needs torch.
- ``syncline.torchrun`` — ``python3 -m syncline.torchrun ...``: torchrun with values for
  ``--redirects``/``--tee`` that Debian's torchrun on Python 3.11 accepts.
"""
from . import _core

__doc__ = _core.__doc__ or __doc__
__version__ = _core.__version__
__all__ = [name for name in dir(_core) if not name.startswith("_")]
for _name in __all__:
    _obj = getattr(_core, _name)
    globals()[_name] = _obj
    # Classes and functions say they belong to `syncline` (repr, help(), pickling by name), as
    # they did when the extension was the top-level module.
    if getattr(_obj, "__module__", None) == _core.__name__:
        try:
            _obj.__module__ = __name__
        except (AttributeError, TypeError):
            pass
del _name, _obj


def _frame(columns, categories):
    """A pandas DataFrame of a columns dict: each `*_id` column listed in `categories` (id column
    → (new column, labels key)) becomes a categorical of its labels; the label lists and other
    non-array entries are left out."""
    import numpy
    import pandas

    data = {}
    for key, value in columns.items():
        if not isinstance(value, numpy.ndarray):
            continue
        if key in categories:
            new, labels = categories[key]
            data[new] = pandas.Categorical.from_codes(value.astype(numpy.int64, copy=False),
                                                      categories=list(columns[labels]))
            continue
        data[key] = value
    return pandas.DataFrame(data, copy=False)


def _to_pandas(self, fields=None):
    """The events as a pandas DataFrame (Timeline.columns(); `name` and `status` categorical).
    Needs pandas (Debian: python3-pandas); `import syncline` does not."""
    if fields is not None:  # "name" is the categorical made of name_id
        fields = ["name_id" if f == "name" else f for f in fields]
    cols = self.columns(fields)
    cats = {}
    if "name_id" in cols:
        cats["name_id"] = ("name", "names")
    if "status" in cols:
        cats["status"] = ("status", "status_names")
    frame = _frame(cols, cats)
    return frame


def _counters_to_pandas(self):
    """The counter samples as a pandas DataFrame (Timeline.counter_columns(); `name` categorical)."""
    return _frame(self.counter_columns(), {"name_id": ("name", "names")})


def _links_to_pandas(self):
    """The links as a pandas DataFrame (Timeline.link_columns(); `kind` categorical)."""
    return _frame(self.link_columns(), {"kind": ("kind", "kind_names")})


def _collectives_to_pandas(self):
    """The collective instances' rows as a pandas DataFrame (Timeline.collective_columns();
    `name` categorical)."""
    return _frame(self.collective_columns(), {"name_id": ("name", "names")})


_core.Timeline.to_pandas = _to_pandas
_core.Timeline.collectives_to_pandas = _collectives_to_pandas
_core.Timeline.counters_to_pandas = _counters_to_pandas
_core.Timeline.links_to_pandas = _links_to_pandas


def _query(self, sql, params=()):
    """Runs one SQL statement (SQLite) over this timeline: the tables of `syncline export
    --sqlite` (docs/cli.md "SQLite schema"). The database is written once per Timeline, to a
    temporary file removed when the Timeline goes. Returns a pandas DataFrame when pandas is
    importable, else a dict of column name -> numpy array (a list without numpy)."""
    import sqlite3

    db = _sqlite_cache.get(id(self))
    if db is None:
        import os
        import tempfile
        import weakref

        fd, db = tempfile.mkstemp(prefix="syncline-", suffix=".db")
        os.close(fd)
        self.to_sqlite(db)
        _sqlite_cache[id(self)] = db

        def _drop(path=db, key=id(self)):
            _sqlite_cache.pop(key, None)
            try:
                os.remove(path)
            except OSError:
                pass
        weakref.finalize(self, _drop)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        cur = con.execute(sql, params)
        names = [d[0] for d in cur.description or ()]
        rows = cur.fetchall()
    finally:
        con.close()
    try:
        import pandas
        return pandas.DataFrame.from_records(rows, columns=names)
    except ImportError:
        pass
    columns = {n: [r[i] for r in rows] for i, n in enumerate(names)}
    try:
        import numpy
        return {n: numpy.asarray(v) for n, v in columns.items()}
    except ImportError:
        return columns


_sqlite_cache = {}
_core.Timeline.query = _query


class StatsRows(list):
    """What Timeline.stats() returns: a list of dicts (name, rank — None over all ranks — count,
    total_ns, mean_ns, p50_ns, p95_ns, p99_ns, max_ns), shown in a notebook as a table of the
    names with the most total time over all ranks."""

    def _repr_html_(self, limit=20):
        import html

        every = [r for r in self if r["rank"] is None]
        every.sort(key=lambda r: -r["total_ns"])
        ranks = {r["rank"] for r in self if r["rank"] is not None}
        head = ("<b>syncline stats</b>: %d names over all ranks%s, by total time (ms)"
                % (len(every), ", %d ranks" % len(ranks) if ranks else ""))
        cols = ("count", "total_ns", "mean_ns", "p50_ns", "p95_ns", "p99_ns", "max_ns")
        out = ["<div>", head, '<table><thead><tr><th style="text-align:left">name</th>']
        out += ["<th>%s</th>" % c.replace("_ns", "") for c in cols]
        out.append("</tr></thead><tbody>")
        for r in every[:limit]:
            cells = [str(r["count"])] + ["%.3f" % (r[c] / 1e6) for c in cols[1:]]
            out.append('<tr><td style="text-align:left">%s</td>%s</tr>' % (
                html.escape(r["name"]), "".join('<td style="text-align:right">%s</td>' % c
                                                for c in cells)))
        out.append("</tbody></table>")
        if len(every) > limit:
            out.append("<p>%d more names</p>" % (len(every) - limit))
        out.append("</div>")
        return "".join(out)


_core_stats = _core.Timeline.stats


def _stats(self, per_rank=True):
    return StatsRows(_core_stats(self, per_rank))


_stats.__doc__ = _core_stats.__doc__
_core.Timeline.stats = _stats


class Comparison(dict):
    """What Timeline.compare() and syncline.compare() return: the dict `syncline compare --json`
    prints (docs/cli.md#compare), shown in a notebook as the step-time summary, the gate's verdict
    (with fail_if) and a table of the names with the largest impact (Δ mean × the calls both runs
    made; per step when a step name was found)."""

    def _repr_html_(self, limit=15):
        import html

        def ms(ns, signed=False):
            return "-" if ns is None else (("%+.3f" if signed else "%.3f") % (ns / 1e6))

        s = self["summary"]
        out = ['<div style="font-family:sans-serif;font-size:13px">',
               "<b>syncline compare</b>: A %s vs B %s" % (
                   html.escape(", ".join(self["a"]["paths"]) or "(timeline)"),
                   html.escape(", ".join(self["b"]["paths"]) or "(timeline)"))]
        steps = None
        if s["step"] is not None:
            ratio = "" if s["ratio_mean"] is None else " (&times;%.3f)" % s["ratio_mean"]
            out.append("<p>step <code>%s</code>: mean %s ms (A) vs %s ms (B), %s ms%s; "
                       % (html.escape(s["step"]), ms(s["a_mean_ns"]), ms(s["b_mean_ns"]),
                          ms(s["delta_mean_ns"], True), ratio))
            for row in self["deltas"]:
                if row["name"] == s["step"] and row["rank"] is None and row["in"] == "both":
                    steps = min(row["a"]["count"], row["b"]["count"]) or None
        else:
            out.append("<p>no step name found; ")
        out.append("span %.3f s vs %.3f s</p>" % (s["a_span_ns"] / 1e9, s["b_span_ns"] / 1e9))
        gate = self.get("gate")
        if gate is not None:
            out.append('<p>gate: <b style="color:%s">%s</b> %s</p>' % (
                "#b00" if gate["failed"] else "#070", "FAILED" if gate["failed"] else "passed",
                "; ".join("%s%s" % (html.escape(c["spec"]), " holds" if c["holds"] else "")
                          for c in gate["conditions"])))
        rows = [r for r in self["deltas"] if r["rank"] is None]
        rows.sort(key=lambda r: -abs(r["impact_ns"]))
        head = ["name", "A mean (ms)", "B mean (ms)", "&Delta; mean (ms)", "B/A",
                "impact (ms)"] + (["per step (ms)"] if steps else [])
        out.append('<table style="border-collapse:collapse"><thead><tr>%s</tr></thead><tbody>'
                   % "".join('<th style="text-align:%s;padding:1px 6px">%s</th>'
                             % ("left" if i == 0 else "right", h) for i, h in enumerate(head)))
        for r in rows[:limit]:
            a, b = r["a"], r["b"]
            cells = [ms(a["mean_ns"]) if a else "-", ms(b["mean_ns"]) if b else "-",
                     ms(r["delta"]["mean_ns"], True),
                     "-" if r["ratio"]["mean"] is None else "%.3f" % r["ratio"]["mean"],
                     ms(r["impact_ns"], True)]
            if steps:
                cells.append(ms(r["impact_ns"] / steps, True))
            only = {"a": " (A only)", "b": " (B only)"}.get(r["in"], "")
            out.append('<tr><td style="text-align:left;padding:1px 6px">%s%s</td>%s</tr>' % (
                html.escape(r["name"]), only,
                "".join('<td style="text-align:right;padding:1px 6px">%s</td>' % c
                        for c in cells)))
        out.append("</tbody></table>")
        if len(rows) > limit:
            out.append("<p>%d more names</p>" % (len(rows) - limit))
        out.append("</div>")
        return "".join(out)


_core_compare = _core.Timeline.compare


def _timeline_compare(self, other, *, anchor="start", fail_if=()):
    return Comparison(_core_compare(self, other, anchor=anchor, fail_if=list(fail_if)))


_timeline_compare.__doc__ = _core_compare.__doc__
_core.Timeline.compare = _timeline_compare


def compare(a, b, *, anchor="start", fail_if=(), **load_options):
    """Run A against run B: the dict of `syncline compare A B --json` (a Comparison, with a
    notebook table). A and B are Timelines, or paths (a job directory, a log, a trace; a list of
    them for one run) loaded with load_timeline(**load_options)."""
    def run(x):
        if isinstance(x, _core.Timeline):
            return x
        if isinstance(x, (list, tuple)):
            return load_timeline(*x, **load_options)
        return load_timeline(x, **load_options)
    return run(a).compare(run(b), anchor=anchor, fail_if=fail_if)


__all__ += ["Comparison", "compare"]
