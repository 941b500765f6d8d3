"""What the two cluster benchmarks share (``cluster_pool.py``, ``cluster_session.py``): the
``LocalCluster`` they start on this machine and the memory figures they read of a process.

Import it after :func:`harness.pin_blas` (the workers inherit the pinned environment).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


def peak_rss_gb() -> float:
    """This process's own peak RSS in GB (``VmHWM``). Not ``ru_maxrss``: a child started by
    ``subprocess`` inherits its parent's high-water mark through exec (a parent that wrote the
    pool would hide the child's own growth)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 2**20  # kB
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def rss_gb() -> float:
    """This process's resident memory now, in GB (also run on the workers by ``client.run``)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**30


@contextmanager
def local_cluster(workers: int = 2, memory_limit: str = "4GiB") -> Iterator[object]:
    """A ``distributed.LocalCluster`` of ``workers`` worker processes (one thread each) on the
    loopback interface, no dashboard, closed on exit."""
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, memory_limit=memory_limit,
    )  # fmt: skip
    try:
        yield cluster
    finally:
        cluster.close()
