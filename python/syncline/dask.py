"""syncline.dask — a job's statistics, two runs' comparison, the events CSV and the diagnosis
computed on a dask.distributed cluster (docs/python.md, docs/scale.md "Beyond one machine").

Each verb gives exactly what the CLI prints or writes for the same job on one machine:
``stats`` / ``stats_json`` what ``syncline stats --json`` prints (a dict / the text, byte for
byte), ``compare`` / ``compare_json`` what ``syncline compare A B --json`` prints, ``export``
/ ``export_csv`` what ``syncline export PATH... --csv FILE [--range START:END]`` writes,
``diagnose`` / ``diagnose_json`` what ``syncline diagnose --json`` prints. Every step is C++
(``syncline._core``'s ``_split_*`` entry points over JobLoader, StatsParts, CompareRunPart,
CsvExporter, DiagnosisPart and Diagnoser); this module only places the tasks. For each job:

1. the inputs: the paths resolved into the job's logs (and its timer_config.json, sent on as
   bytes), where the paths are readable;
2. one task per log, where the log is: the log parsed (or decoded from its event store), keeping
   only what the clock correction reads — its header, sync samples, wall-clock pairs, message
   records and the events that can be collectives — as bytes (about 7 % of the log,
   docs/scale.md);
3. once every log's bytes are there, one task runs the correction once over them (the same
   merge, pairing and engine as a load on one machine), fetching them itself a few logs at a
   time and letting go of each once decoded (when every log has sync samples, only the events
   it aligns on are decoded), and gives each worker's clocks as bytes of their own;
4. one task per log, where the log is, loads the log alone with its worker's clocks (and only
   those) and gives the verb's part:
   - stats: its worker's entry and every counted duration per (name, rank), sorted (StatsParts:
     exact percentiles need every duration; varint deltas, about 1–3 bytes a duration);
   - compare (both runs at once): the same, with the log's event count, the extent of its events
     and the anchor's starts per rank (CompareRunPart);
   - export: first the log's earliest event (the CSV's times count from the job's earliest),
     then its CSV rows (only those overlapping ``range``);
   - diagnose: what the diagnosis reads of its worker (DiagnosisPart: the step candidates and
     their children, the collectives with their args and siblings, the ancestors of those; the
     log's names in its order; its clocks);
5. stats and compare: a tree of merges (``fanin`` parts at a time) on the workers, then the
   document; export: the rows written here, log after log in the timeline's order; diagnose:
   one task puts every part together in the timeline's order and writes the document (when
   the job's step is a name some logs hold only below other events, their parts are made again
   with that name first).

Each log is read only by its own tasks (2 and 4). Without ``workers=``, those may run on any
worker (a shared file system, or a cluster of one machine); with ``workers={path: address}``
each path's tasks (1, 2 and 4) run only on the worker(s) given for it, so a job whose logs lie on
node-local disks is read where each part lies. ``import syncline`` never imports this module or
dask.

Command line: ``python3 -m syncline.dask stats JOB...``, ``compare A B [--anchor NAME[:K]]
[--fail-if COND]... [--csv FILE]``, ``export JOB... --csv FILE [--range START:END]`` and
``diagnose JOB... [--json] [--range START:END] [--step NAME]``, each with
``[--scheduler tcp://HOST:8786] [--on PATH=ADDRESS]... [--workers N] [--memory-limit 2GiB]
[--ranks 0-63,512] [--align-on P] [--no-align] [--raw]``: stdout, files and exit status as the
CLI's verb (a LocalCluster of N worker processes without --scheduler).
"""
import json
import operator
import os
import sys
import uuid

_NEEDS = ("syncline.dask needs dask.distributed (Debian: apt-get install python3-distributed "
          "python3-dask)")
try:
    import distributed
except ImportError as _e:  # said once, clearly (from a shell: one line and status 3)
    if __name__ == "__main__":
        print("syncline.dask: %s: %s" % (_NEEDS, _e), file=sys.stderr)
        sys.exit(3)
    raise ImportError(_NEEDS) from _e

from . import _core

__all__ = ["stats", "stats_json", "compare", "compare_json", "export", "export_csv",
           "diagnose", "diagnose_json", "local_client"]


def _inputs(paths, ranks):
    return _core._split_inputs(paths, ranks)


def _clock_inputs(log, config_path, config, align_on):
    return _core._split_clock_inputs(log, config_path, config, align_on)


def _fetched(client, keys, batch=8):
    """Each key's bytes, in order, fetched from wherever they lie a few at a time: no more than
    ``batch`` logs' clock inputs are held here at once (the correction decodes each, then lets
    it go)."""
    for i in range(0, len(keys), batch):
        got = client.gather([distributed.Future(k, client) for k in keys[i:i + batch]])
        got.reverse()
        while got:
            yield got.pop()


def _synced(part):
    return _core._split_clock_inputs_synced(part)


def _clocks(config_path, config, align_on, align, ranks, synced, keys):
    """The correction over the clock inputs of ``keys`` (the clock-input tasks' keys, all
    finished): they are not this task's arguments, which Dask would gather and hold here all
    at once, but fetched one batch at a time as the correction decodes them. ``synced``: every
    log has sync samples (the decoded inputs then keep only what the correction aligns on)."""
    with distributed.worker_client() as client:
        return _core._split_clocks(_fetched(client, keys), config_path, config, align_on, align,
                                   ranks, synced)


def _logs_of(clocks):
    return [log for log, _rank, _bytes in clocks]


def _stats_part(entry, clock):
    log, rank, clocks = entry
    return _core._split_stats_part(log, clocks, rank, clock)


def _stats_merge(*parts):
    return _core._split_stats_merge(list(parts))


def _stats_document(part):
    return _core._split_stats_json(part)


def _compare_part(entry, clock, anchor, config_path, config):
    log, rank, clocks = entry
    return _core._split_compare_part(log, clocks, rank, clock, anchor, config_path, config)


def _compare_merge(*parts):
    return _core._split_compare_merge(list(parts))


def _compare_document(a, b, paths_a, paths_b, clock, anchor, fail_if):
    return _core._split_compare(a, b, paths_a, paths_b, clock, anchor, fail_if)


def _earliest(entry, clock, config_path, config):
    log, rank, clocks = entry
    return _core._split_earliest(log, clocks, rank, clock, config_path, config)


def _csv_part(entry, clock, config_path, config, origin, range_ns):
    log, rank, clocks = entry
    return _core._split_csv_part(log, clocks, rank, clock, config_path, config, origin,
                                 range_ns)


def _diagnose_part(entry, config_path, config, align_on, step):
    log, rank, clocks = entry
    return _core._split_diagnose_part(log, clocks, rank, config_path, config, align_on, step)


def _diagnose_document(config_path, config, align_on, clock, step, range_ns, as_json, *parts):
    return _core._split_diagnose(list(parts), config_path, config, align_on, clock, step,
                                 range_ns, as_json)


def local_client(n_workers=2, memory_limit="auto"):
    """A Client on a new LocalCluster of ``n_workers`` worker processes, one thread each (the
    C++ tasks release the GIL; one thread a process keeps a worker's memory to one log's)."""
    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                       memory_limit=memory_limit, dashboard_address=None)
    return distributed.Client(cluster)


def _paths(paths):
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = [os.path.abspath(os.fspath(p)) for p in paths]
    if not out:
        raise ValueError("syncline.dask: no path given")
    return out


def _groups(paths, workers):
    """[(paths, placement)]: the paths resolved together and where their tasks may run (None:
    anywhere). With ``workers``, one group per path, its tasks only on that path's workers."""
    if workers is None:
        return [(paths, None)]
    placed = {os.path.abspath(os.fspath(k)): ([v] if isinstance(v, str) else list(v))
              for k, v in dict(workers).items()}
    groups = []
    for p in paths:
        if p not in placed or not placed[p]:
            raise ValueError("syncline.dask: workers= names no worker for %s" % p)
        groups.append(([p], placed[p]))
    return groups


def _submit(client, placement, fn, *args, log=None):
    """``fn(*args)`` as a task, on ``placement``'s workers only (None: any); a log's task is
    named after it and its directory (``_stats_part-job/timer_events.3.log-<id>``), so a task
    stream shows where each log was read."""
    key = None if log is None else "%s-%s-%s" % (
        fn.__name__, os.path.join(os.path.basename(os.path.dirname(log)),
                                  os.path.basename(log)), uuid.uuid4().hex)
    if placement is None:
        return client.submit(fn, *args, key=key, pure=False)
    return client.submit(fn, *args, key=key, workers=placement, allow_other_workers=False,
                         pure=False)


def _clock(clock):
    if clock not in ("corrected", "raw"):
        raise ValueError('clock must be "corrected" or "raw", got %r' % (clock,))
    return clock


def _ranks(ranks):
    return ranks if ranks is None or isinstance(ranks, str) else [int(r) for r in ranks]


class _Job:
    """One job on the cluster: its logs resolved where they lie and their clock inputs
    computed where each log is (submitted, not waited for: two jobs' logs are read at once);
    correct() then runs the one correction task over them, and entries() gives, per log in the
    timeline's order, (log, where its tasks run, a future of (log, rank, its worker's
    clocks))."""

    def __init__(self, client, paths, align_on, align, ranks, workers):
        self.client = client
        paths = _paths(paths)
        groups = _groups(paths, workers)
        resolved = client.gather([_submit(client, where, _inputs, group, ranks)
                                  for group, where in groups])
        # The job's logs in the load's order (a log named twice once), and its first config.
        logs, self.place, self.config_path, self.config = [], {}, "", b""
        for (group_logs, group_config_path, group_config, _why), (_group, where) in zip(
                resolved, groups):
            for log in group_logs:
                if log not in self.place:
                    self.place[log] = where
                    logs.append(log)
            if group_config_path and not self.config_path:
                self.config_path, self.config = group_config_path, group_config
        if not logs:  # no path holds a log of the ranks asked for
            raise _core.LoadError(resolved[0][3])
        self.logs = logs
        self.inputs = [_submit(client, self.place[log], _clock_inputs, log, self.config_path,
                               self.config, align_on, log=log) for log in logs]
        self.correction = (align_on, align, ranks)
        self.clocks = None

    def correct(self):
        """The correction task, once every log's clock inputs are there (its first failure
        raised here); it fetches them itself (_clocks), so they are held here until it ends."""
        if self.clocks is None:
            distributed.wait(self.inputs)
            for f in self.inputs:
                if f.status != "finished":
                    f.result()  # raises the task's own error
            # Whether every log is synced, asked where each log's bytes are (a bool comes back).
            synced = all(self.client.gather([
                _submit(self.client, self.place[log], _synced, f, log=log)
                for log, f in zip(self.logs, self.inputs)]))
            self.clocks = self.client.submit(_clocks, self.config_path, self.config,
                                             *self.correction, synced,
                                             [f.key for f in self.inputs], pure=False)
        return self.clocks

    def entries(self):
        kept = self.client.submit(_logs_of, self.correct(), pure=False).result()
        self.inputs = None  # the correction has read them
        out = [(log, self.place[log],
                self.client.submit(operator.getitem, self.clocks, i, pure=False))
               for i, log in enumerate(kept)]
        self.clocks = None  # each log's task holds its own slice
        return out

    def per_log(self, fn, *args):
        """fn(entry, *args) for every log, on that log's workers, in the timeline's order."""
        return [_submit(self.client, where, fn, entry, *args, log=log)
                for log, where, entry in self.entries()]


def _merged(client, parts, merge, fanin):
    while len(parts) > 1:
        parts = [client.submit(merge, *parts[i:i + fanin], pure=False)
                 for i in range(0, len(parts), fanin)]
    return parts[0]


def _run(client, n_workers, memory_limit, fn):
    """fn(client) on ``client``, or on a new LocalCluster closed afterwards when None."""
    own = client is None
    if own:
        client = local_client(n_workers, memory_limit)
    try:
        return fn(client)
    finally:
        if own:
            cluster = client.cluster
            client.close()
            cluster.close()


def stats_json(paths, client=None, *, align_on="", align=True, clock="corrected", ranks=None,
               fanin=16, n_workers=2, memory_limit="auto", workers=None):
    """The ``syncline stats --json`` text of the job at ``paths`` (job directories, logs,
    timer_config.json), computed on ``client`` (a LocalCluster of ``n_workers`` processes, closed
    afterwards, when None). ``ranks``: only those workers ("0-63,512" or a list of ints).
    ``workers``: ``{path: address or [addresses]}`` for every path, to read each path only on
    those workers (node-local disks); None: any worker reads any log."""
    clock = _clock(clock)
    if int(fanin) < 2:
        raise ValueError("fanin must be at least 2")
    ranks = _ranks(ranks)

    def run(client):
        job = _Job(client, paths, align_on, align, ranks, workers)
        part = _merged(client, job.per_log(_stats_part, clock), _stats_merge, fanin)
        return client.submit(_stats_document, part, pure=False).result()

    return _run(client, n_workers, memory_limit, run)


def stats(paths, client=None, **options):
    """``syncline stats --json`` of the job as a dict (``stats_json``'s text, parsed)."""
    return json.loads(stats_json(paths, client, **options))


def _run_paths(run):
    """A run of ``compare``: one path (a job directory, timer_config.json or a log) or a list;
    the JSON names them as given."""
    if isinstance(run, (str, bytes, os.PathLike)):
        run = [run]
    return [os.fsdecode(p) for p in run]


def _compare(a, b, client, anchor, fail_if, align_on, align, clock, ranks, fanin, n_workers,
             memory_limit, workers):
    clock = _clock(clock)
    if int(fanin) < 2:
        raise ValueError("fanin must be at least 2")
    ranks = _ranks(ranks)
    fail_if = [str(c) for c in ([fail_if] if isinstance(fail_if, str) else fail_if)]
    anchor = _core._split_compare_options(anchor, fail_if)  # malformed: before any work
    paths_a, paths_b = _run_paths(a), _run_paths(b)

    def run(client):
        jobs = [_Job(client, paths, align_on, align, ranks, workers)
                for paths in (paths_a, paths_b)]
        parts = [_merged(client, job.per_log(_compare_part, clock, anchor, job.config_path or
                                             None, job.config), _compare_merge, fanin)
                 for job in jobs]
        return client.submit(_compare_document, parts[0], parts[1], paths_a, paths_b, clock,
                             anchor, fail_if, pure=False).result()

    return _run(client, n_workers, memory_limit, run)


def compare_json(a, b, client=None, *, anchor="start", fail_if=(), align_on="", align=True,
                 clock="corrected", ranks=None, fanin=16, n_workers=2, memory_limit="auto",
                 workers=None):
    """The ``syncline compare A B --json`` text of runs ``a`` and ``b`` (each a path or a list
    of paths), computed on ``client`` as ``stats_json`` computes one job. ``anchor``: "start",
    "NAME" or "NAME:K" (``--anchor``); ``fail_if``: conditions as ``--fail-if`` takes them
    (the document then has its "gate"). Other options as ``stats_json``'s; ``workers`` may name
    the paths of both runs."""
    return _compare(a, b, client, anchor, fail_if, align_on, align, clock, ranks, fanin,
                    n_workers, memory_limit, workers)[0]


def compare(a, b, client=None, **options):
    """``syncline compare A B --json`` as a dict (``compare_json``'s text, parsed)."""
    return json.loads(compare_json(a, b, client, **options))


def _range_ns(range):
    if range is None:
        return None
    if isinstance(range, str):
        return _core._split_parse_range(range)
    begin, end = (int(t) for t in range)
    if end < begin:
        raise ValueError("range: the end %d is before the start %d" % (end, begin))
    return begin, end


def export(paths, csv, client=None, *, range=None, align_on="", align=True, clock="corrected",
           ranks=None, n_workers=2, memory_limit="auto", workers=None):
    """Writes the events CSV of ``syncline export PATH... --csv FILE`` to the file ``csv`` (or
    to a binary file object), computed on ``client``: each log's rows written by a task where
    the log is, the parts written here in the timeline's order. ``range``: "START:END" as
    ``--range`` takes it ("0:2.5s") or (start, end) in ns from the job's earliest event; only
    the events overlapping it. Returns the number of bytes written."""
    clock = _clock(clock)
    ranks = _ranks(ranks)
    range_ns = _range_ns(range)

    def run(client):
        job = _Job(client, paths, align_on, align, ranks, workers)
        config_path = job.config_path or None
        entries = job.entries()
        # The job's origin (its earliest event): every log's rows are relative to it.
        earliest = [_submit(client, where, _earliest, entry, clock, config_path, job.config,
                            log=log) for log, where, entry in entries]
        origin = _core._split_origin(client.gather(earliest))
        del earliest
        parts = [_submit(client, where, _csv_part, entry, clock, config_path, job.config,
                         origin, range_ns, log=log) for log, where, entry in entries]
        del entries
        out = csv if hasattr(csv, "write") else open(csv, "wb")
        try:
            written = out.write(_core._split_csv_header().encode())
            parts.reverse()
            while parts:  # in order; each part released on its worker once written
                written += out.write(parts.pop().result())
        finally:
            if out is not csv:
                out.close()
        return written

    return _run(client, n_workers, memory_limit, run)


def export_csv(paths, client=None, **options):
    """The events CSV text of ``export`` (for jobs that fit in memory)."""
    import io
    buf = io.BytesIO()
    export(paths, buf, client, **options)
    return buf.getvalue().decode()


def _diagnose(paths, client, as_json, step, range, align_on, align, clock, ranks, n_workers,
              memory_limit, workers):
    clock = _clock(clock)
    ranks = _ranks(ranks)
    range_ns = _range_ns(range)
    if step is not None and not str(step):
        raise ValueError("--step: expected a name")
    step = "" if step is None else str(step)

    def run(client):
        job = _Job(client, paths, align_on, align, ranks, workers)
        config_path = job.config_path or None
        entries = job.entries()
        parts = [_submit(client, where, _diagnose_part, entry, config_path, job.config, align_on,
                         step, log=log) for log, where, entry in entries]
        for _round in (1, 2):  # ``range`` is the option here
            text, lacking, key = client.submit(_diagnose_document, config_path, job.config,
                                               align_on, clock, step, range_ns, as_json, *parts,
                                               pure=False).result()
            if text is not None:
                return text
            # The job's step is a name these logs hold only below other events: their parts
            # again, keeping it whole.
            for i in lacking:
                log, where, entry = entries[i]
                parts[i] = _submit(client, where, _diagnose_part, entry, config_path, job.config,
                                   align_on, key, log=log)
        raise ValueError("the step %r is still missing from parts made with it" % key)

    return _run(client, n_workers, memory_limit, run)


def diagnose_json(paths, client=None, *, step=None, range=None, align_on="", align=True,
                  clock="corrected", ranks=None, n_workers=2, memory_limit="auto", workers=None):
    """The ``syncline diagnose --json`` text of the job at ``paths``, computed on ``client`` as
    ``stats_json`` computes one job: each log's diagnose part (what the diagnosis reads of its
    worker) made where the log is, the document made from all of them by one task. ``step``: the
    step event's name (``--step``; None: detected); ``range``: "START:END" as ``--range`` takes
    it, or (start, end) in ns from the job's earliest event: only the steps and collectives that
    begin in it. Other options as ``stats_json``'s."""
    return _diagnose(paths, client, True, step, range, align_on, align, clock, ranks, n_workers,
                     memory_limit, workers)


def diagnose(paths, client=None, **options):
    """``syncline diagnose --json`` of the job as a dict (``diagnose_json``'s text, parsed)."""
    return json.loads(diagnose_json(paths, client, **options))


def _main(argv):
    import argparse

    parser = argparse.ArgumentParser(
        prog="python3 -m syncline.dask",
        description="syncline on a dask.distributed cluster: each verb prints or writes what "
                    "the syncline CLI's does for the job (stats --json, compare --json, "
                    "export --csv, diagnose [--json]).")
    sub = parser.add_subparsers(dest="verb", required=True)
    verbs = {
        "stats": sub.add_parser("stats", help="per-name duration statistics (syncline stats "
                                "--json)"),
        "compare": sub.add_parser("compare", help="two runs compared (syncline compare A B "
                                  "--json)"),
        "export": sub.add_parser("export", help="the events CSV (syncline export --csv FILE)"),
        "diagnose": sub.add_parser("diagnose", help="which rank holds the job back (syncline "
                                   "diagnose [--json])"),
    }
    for verb, s in verbs.items():
        if verb == "compare":
            s.add_argument("paths", nargs=2, metavar="RUN", help="run A, run B")
            s.add_argument("--anchor", default="start", metavar="NAME[:K]")
            s.add_argument("--fail-if", action="append", default=[], metavar="COND")
            s.add_argument("--csv", metavar="FILE", help="also write the rows as CSV")
        else:
            s.add_argument("paths", nargs="+", metavar="PATH")
        if verb == "export":
            s.add_argument("--csv", required=True, metavar="FILE")
            s.add_argument("--range", metavar="START:END")
        if verb == "diagnose":
            s.add_argument("--json", action="store_true", help="the JSON document (else text)")
            s.add_argument("--range", metavar="START:END")
            s.add_argument("--step", metavar="NAME")
        s.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running scheduler (tcp://HOST:8786); else a LocalCluster")
        s.add_argument("--on", action="append", default=[], metavar="PATH=ADDRESS",
                       help="read PATH only on the worker at ADDRESS (node-local disks; repeat "
                            "for every PATH and for more workers of one PATH)")
        s.add_argument("--workers", type=int, default=2, metavar="N",
                       help="LocalCluster worker processes (default 2)")
        s.add_argument("--memory-limit", default="auto", metavar="BYTES",
                       help="LocalCluster memory limit per worker (e.g. 2GiB; default auto)")
        s.add_argument("--ranks", metavar="RANKS", help="only these ranks (e.g. 0-63,512)")
        s.add_argument("--align-on", default="", metavar="PATTERN")
        s.add_argument("--no-align", action="store_true")
        s.add_argument("--raw", action="store_true")
    a = parser.parse_args(argv)
    if a.no_align and a.align_on:
        parser.error("--align-on and --no-align contradict each other")
    if a.verb == "diagnose":  # the CLI's usage errors, before any work
        if a.step is not None and not a.step:
            parser.error("--step: expected a name")
        if a.range is not None:
            try:
                a.range = _core._split_parse_range(a.range)
            except ValueError as e:
                parser.error(str(e))
    placement = None
    for on in a.on:
        path, sep, address = on.partition("=")
        if not sep or not path or not address:
            parser.error("--on wants PATH=ADDRESS, got %r" % on)
        placement = placement or {}
        placement.setdefault(os.path.abspath(path), []).append(address)
    common = dict(align_on=a.align_on, align=not a.no_align,
                  clock="raw" if a.raw else "corrected", ranks=a.ranks, n_workers=a.workers,
                  memory_limit=a.memory_limit, workers=placement)
    client = distributed.Client(a.scheduler) if a.scheduler else None
    status = 0
    try:
        if a.verb == "stats":
            text = stats_json(a.paths, client, **common)
        elif a.verb == "compare":
            text, csv, failed = _compare(a.paths[0], a.paths[1], client, a.anchor, a.fail_if,
                                         fanin=16, **common)
            if a.csv:
                with open(a.csv, "w", encoding="utf-8", newline="") as f:
                    f.write(csv)
            status = 3 if failed else 0
        elif a.verb == "diagnose":
            text = _diagnose(a.paths, client, a.json, a.step, a.range, **common)
        else:
            export(a.paths, a.csv, client, range=a.range, **common)
            text = ""
    except (_core.LoadError, ValueError, OSError) as e:
        print("syncline.dask %s: %s" % (a.verb, e), file=sys.stderr)
        return 1
    finally:
        if client is not None:
            client.close()
    sys.stdout.write(text)
    return status


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
