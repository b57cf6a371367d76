"""syncline.dask — a job's statistics computed on a dask.distributed cluster (docs/python.md,
docs/scale.md "Beyond one machine").

``stats(paths, client=None, ...)`` gives exactly what ``syncline stats --json`` prints for the
same job on one machine, as a dict (``stats_json`` gives the text itself, byte for byte). Every
step is C++ (``syncline._core``'s ``_split_*`` entry points over JobLoader and StatsParts); this
module only places the tasks:

1. the inputs: the paths resolved into the job's logs (and its timer_config.json, sent on as
   bytes), where the paths are readable;
2. one task per log, where the log is: the log parsed (or decoded from its event store), keeping
   only what the clock correction reads — its header, sync samples, wall-clock pairs, message
   records and the events that can be collectives — as bytes (about 7 % of the log,
   docs/scale.md);
3. one task runs the correction once over every log's bytes (the same merge, pairing and engine
   as a load on one machine) and gives each worker's clocks as bytes of their own;
4. one task per log, where the log is: the log loaded alone with its worker's clocks (and only
   those), its worker's entry and every counted duration per (name, rank), sorted (StatsParts:
   exact percentiles need every duration; varint deltas, about 1–3 bytes a duration);
5. a tree of merges (``fanin`` parts at a time) on the workers, then the document.

Each log is read only by its own tasks (2 and 4). Without ``workers=``, those may run on any
worker (a shared file system, or a cluster of one machine); with ``workers={path: address}``
each path's tasks (1, 2 and 4) run only on the worker(s) given for it, so a job whose logs lie on
node-local disks is read where each part lies. ``import syncline`` never imports this module or
dask.

Command line: ``python3 -m syncline.dask stats JOB... [--scheduler tcp://HOST:8786]
[--on PATH=ADDRESS]... [--workers N] [--memory-limit 2GiB] [--ranks 0-63,512] [--align-on P] [--no-align] [--raw]``
prints the JSON document (a LocalCluster of N worker processes without --scheduler).
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

__all__ = ["stats", "stats_json", "local_client"]


def _inputs(paths, ranks):
    return _core._split_inputs(paths, ranks)


def _clock_inputs(log, config_path, config, align_on):
    return _core._split_clock_inputs(log, config_path, config, align_on)


def _clocks(config_path, config, align_on, align, ranks, *parts):
    return _core._split_clocks(list(parts), config_path, config, align_on, align, ranks)


def _logs_of(clocks):
    return [log for log, _rank, _bytes in clocks]


def _stats_part(entry, clock):
    log, rank, clocks = entry
    return _core._split_stats_part(log, clocks, rank, clock)


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


def stats_json(paths, client=None, *, align_on="", align=True, clock="corrected", ranks=None,
               fanin=16, n_workers=2, memory_limit="auto", workers=None):
    """The ``syncline stats --json`` text of the job at ``paths`` (job directories, logs,
    timer_config.json), computed on ``client`` (a LocalCluster of ``n_workers`` processes, closed
    afterwards, when None). ``ranks``: only those workers ("0-63,512" or a list of ints).
    ``workers``: ``{path: address or [addresses]}`` for every path, to read each path only on
    those workers (node-local disks); None: any worker reads any log."""
    if clock not in ("corrected", "raw"):
        raise ValueError('clock must be "corrected" or "raw", got %r' % (clock,))
    if int(fanin) < 2:
        raise ValueError("fanin must be at least 2")
    if ranks is not None and not isinstance(ranks, str):
        ranks = [int(r) for r in ranks]
    paths = _paths(paths)
    groups = _groups(paths, workers)
    own = client is None
    if own:
        client = local_client(n_workers, memory_limit)
    try:
        resolved = client.gather([_submit(client, where, _inputs, group, ranks)
                                  for group, where in groups])
        # The job's logs in the load's order (a log named twice once), and its first config.
        logs, place, config_path, config = [], {}, "", b""
        for (group_logs, group_config_path, group_config, _why), (_group, where) in zip(
                resolved, groups):
            for log in group_logs:
                if log not in place:
                    place[log] = where
                    logs.append(log)
            if group_config_path and not config_path:
                config_path, config = group_config_path, group_config
        if not logs:  # no path holds a log of the ranks asked for
            raise _core.LoadError(resolved[0][3])
        inputs = [_submit(client, place[log], _clock_inputs, log, config_path, config, align_on,
                          log=log) for log in logs]
        clocks = client.submit(_clocks, config_path, config, align_on, align, ranks, *inputs,
                               pure=False)
        del inputs
        kept = client.submit(_logs_of, clocks, pure=False).result()
        parts = [_submit(client, place[log], _stats_part,
                         client.submit(operator.getitem, clocks, i, pure=False), clock, log=log)
                 for i, log in enumerate(kept)]
        del clocks
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
    placement = None
    for on in a.on:
        path, sep, address = on.partition("=")
        if not sep or not path or not address:
            parser.error("--on wants PATH=ADDRESS, got %r" % on)
        placement = placement or {}
        placement.setdefault(os.path.abspath(path), []).append(address)
    client = distributed.Client(a.scheduler) if a.scheduler else None
    try:
        text = stats_json(a.paths, client, align_on=a.align_on, align=not a.no_align,
                          clock="raw" if a.raw else "corrected", ranks=a.ranks,
                          n_workers=a.workers, memory_limit=a.memory_limit,
                          workers=placement)
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
