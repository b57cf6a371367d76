"""Memory counters: one ``client.counter`` sample per call, e.g. once per training step.

With CUDA: ``cuda_memory_allocated`` and ``cuda_memory_reserved`` (bytes, of ``device``, from
``torch.cuda.memory_allocated`` / ``memory_reserved``). Without CUDA (the CPU builds): the
process's resident set, ``cpu_rss_bytes`` (from ``/proc/self/statm``), so a CPU job still gets a
memory graph.
"""
import os

import torch

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss_bytes():
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[1]) * _PAGE


def record_memory(client, device=None):
    """Records the memory counters now; returns {counter name: value} of what was recorded."""
    values = {}
    if torch.cuda.is_available():
        values["cuda_memory_allocated"] = float(torch.cuda.memory_allocated(device))
        values["cuda_memory_reserved"] = float(torch.cuda.memory_reserved(device))
    else:
        try:
            values["cpu_rss_bytes"] = float(_rss_bytes())
        except OSError:
            return values
    for name, value in values.items():
        client.counter(name, value)
    return values
