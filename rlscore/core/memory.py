"""Memory budgeting for n × n pool matrices: refuse a pool that will not fit, early and clearly."""

from __future__ import annotations

import os


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


def require_memory(n_bytes: int, what: str, *, headroom: float = 0.8) -> None:
    """Raise ``MemoryError`` naming ``what`` when ``n_bytes`` exceeds ``headroom`` × free memory."""
    free = available_memory_bytes()
    if n_bytes > headroom * free:
        raise MemoryError(
            f"{what} needs about {n_bytes / 2**30:.1f} GiB but only {free / 2**30:.1f} GiB is "
            "free: use a smaller pool (subsample it) or a strategy with lower memory needs"
        )


def square_matrices_bytes(n: int, count: float, itemsize: int = 8) -> int:
    """Bytes taken by ``count`` dense n × n matrices."""
    return int(count * n * n * itemsize)
