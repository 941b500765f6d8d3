"""Memory budgeting for pool-sized arrays: refuse a pool that will not fit, early and clearly."""

from __future__ import annotations

import os

#: share of the available memory a pool may take (the rest is for the app and the OS)
HEADROOM = 0.8


def available_memory_bytes() -> int:
    """Memory the process can still use: ``MemAvailable`` from /proc/meminfo, else total RAM."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def memory_shortfall(n_bytes: int, what: str, *, headroom: float = HEADROOM) -> str | None:
    """None when ``n_bytes`` fits in ``headroom`` × the free memory, else why not.

    Parameters
    ----------
    n_bytes
        Bytes needed.
    what
        What needs them, e.g. ``"ARLS on a pool of 5000 points"``.
    headroom
        Share of the available memory that may be used.

    Returns
    -------
    str or None
        ``"<what> needs about X GiB but only Y GiB is free"`` when it does not fit.
    """
    free = available_memory_bytes()
    if n_bytes <= headroom * free:
        return None
    return f"{what} needs about {n_bytes / 2**30:.1f} GiB but only {free / 2**30:.1f} GiB is free"


def require_memory(n_bytes: int, what: str, *, headroom: float = HEADROOM) -> None:
    """Raise ``MemoryError`` naming ``what`` when ``n_bytes`` exceeds ``headroom`` × free memory."""
    problem = memory_shortfall(n_bytes, what, headroom=headroom)
    if problem is not None:
        raise MemoryError(
            f"{problem}: use a smaller pool (subsample it) or a strategy with lower memory needs"
        )


def square_matrices_bytes(n: int, count: float, itemsize: int = 8) -> int:
    """Bytes taken by ``count`` dense n × n matrices."""
    return int(count * n * n * itemsize)


def vectors_bytes(n: int, count: float, itemsize: int = 8) -> int:
    """Bytes taken by ``count`` vectors of length n (the low-memory strategies' O(n) state)."""
    return int(count * n * itemsize)
