"""syncline.dask — a job's statistics computed on a dask.distributed cluster (docs/python.md,
docs/scale.md "Beyond one machine").

``stats(paths, client=None, ...)`` gives exactly what ``syncline stats --json`` prints for the
same job on one machine, as a dict (``stats_json`` gives the text itself, byte for byte). The work
is split in three, every step in C++ (``syncline._core``'s ``_split_*`` entry points over
JobLoader and StatsParts); this module only places the tasks:

1. the clock plan: one task loads the job keeping only what the clock correction reads (sync
   samples, message records, the events that can be collectives: LoadOptions::clockOnly), runs
   the correction once and returns every worker's clocks as bytes (its clock segments: about
   19 KB per worker of a 42 s job, docs/scale.md);
2. one task per log: the log loaded alone with the plan's clocks (LoadOptions::clockPlan), its
   worker's entry and every counted duration per (name, rank), sorted (StatsParts: exact
   percentiles need every duration; varint deltas, about 1–3 bytes a duration on the wire);
3. a tree of merges (``fanin`` parts at a time) on the workers, then the document.

The plan task reads every log (its events are dropped as each file is parsed), so the logs must
be readable where it runs: a shared file system, or a cluster of one machine. ``import syncline``
never imports this module or dask.

Command line: ``python3 -m syncline.dask stats JOB... [--scheduler tcp://HOST:8786]
[--workers N] [--memory-limit 2GiB] [--ranks 0-63,512] [--align-on P] [--no-align] [--raw]``
prints the JSON document (a LocalCluster of N worker processes without --scheduler).
"""
import json
import os
import sys

try:
    import distributed
except ImportError as _e:  # pragma: no cover - said once, clearly
    raise ImportError(
        "syncline.dask needs dask.distributed (Debian: apt-get install python3-distributed "
        "python3-dask)") from _e

from . import _core

__all__ = ["stats", "stats_json", "local_client"]


def _clock_plan(paths, align_on, align, ranks):
    return _core._split_clock_plan(paths, align_on, align, ranks)


def _stats_part(log, plan, rank, clock):
    return _core._split_stats_part(log, plan, rank, clock)


def _stats_merge(*parts):
    return _core._split_stats_merge(list(parts))


def _stats_document(part):
    return _core._split_stats_json(part)


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


def stats_json(paths, client=None, *, align_on="", align=True, clock="corrected", ranks=None,
               fanin=16, n_workers=2, memory_limit="auto"):
    """The ``syncline stats --json`` text of the job at ``paths`` (job directories, logs,
    timer_config.json), computed on ``client`` (a LocalCluster of ``n_workers`` processes, closed
    afterwards, when None). ``ranks``: only those workers ("0-63,512" or a list of ints)."""
    if clock not in ("corrected", "raw"):
        raise ValueError('clock must be "corrected" or "raw", got %r' % (clock,))
    if int(fanin) < 2:
        raise ValueError("fanin must be at least 2")
    if ranks is not None and not isinstance(ranks, str):
        ranks = [int(r) for r in ranks]
    paths = _paths(paths)
    own = client is None
    if own:
        client = local_client(n_workers, memory_limit)
    try:
        plan_f = client.submit(_clock_plan, paths, align_on, align, ranks, pure=False)
        plan, logs, _problems = plan_f.result()
        del plan_f
        [plan_on_workers] = client.scatter([plan], broadcast=True)
        parts = [client.submit(_stats_part, log, plan_on_workers, rank, clock, pure=False)
                 for log, rank in logs]
        while len(parts) > 1:
            parts = [client.submit(_stats_merge, *parts[i:i + fanin], pure=False)
                     for i in range(0, len(parts), fanin)]
        return client.submit(_stats_document, parts[0], pure=False).result()
    finally:
        if own:
            cluster = client.cluster
            client.close()
            cluster.close()


def stats(paths, client=None, **options):
    """``syncline stats --json`` of the job as a dict (``stats_json``'s text, parsed)."""
    return json.loads(stats_json(paths, client, **options))


def _main(argv):
    import argparse

    parser = argparse.ArgumentParser(
        prog="python3 -m syncline.dask",
        description="syncline on a dask.distributed cluster: `stats` prints what "
                    "`syncline stats --json` prints for the job.")
    sub = parser.add_subparsers(dest="verb", required=True)
    s = sub.add_parser("stats", help="per-name duration statistics (JSON)")
    s.add_argument("paths", nargs="+", metavar="PATH")
    s.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running scheduler (tcp://HOST:8786); else a LocalCluster")
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
    client = distributed.Client(a.scheduler) if a.scheduler else None
    try:
        text = stats_json(a.paths, client, align_on=a.align_on, align=not a.no_align,
                          clock="raw" if a.raw else "corrected", ranks=a.ranks,
                          n_workers=a.workers, memory_limit=a.memory_limit)
    except (_core.LoadError, ValueError) as e:
        print("syncline.dask stats: %s" % e, file=sys.stderr)
        return 1
    finally:
        if client is not None:
            client.close()
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
