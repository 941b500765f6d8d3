"""What every benchmark in this folder shares: BLAS threads pinned, medians of repeats, the
machine's load printed beside the figures.

Usage in a script::

    from harness import pin_blas, timed, report_machine

    pin_blas(1)                 # before numpy does any work
    report_machine()            # cores, BLAS threads, load average
    seconds = timed(lambda: fit(X), repeats=5)   # median of 5 runs (after one warm-up)
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable

_pinned: int | None = None


def pin_blas(threads: int = 1) -> None:
    """Limit BLAS/OpenMP threads for the rest of the process (figures comparable run to run).

    Sets the usual environment variables (effective if numpy is not loaded yet) and applies
    threadpoolctl's limit to the libraries already loaded.
    """
    global _pinned
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads)
    _pinned = threads


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, e.g. ``"0.12 0.30 0.25"``."""
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def report_machine() -> str:
    """Print (and return) one line about the machine the figures come from."""
    line = (
        f"# machine: {platform.machine()}, {os.cpu_count()} cores, python "
        f"{platform.python_version()}, BLAS threads {_pinned or 'not pinned'}, "
        f"load average {load_average()}"
    )
    print(line, flush=True)
    return line


def timed(
    fn: Callable[[], object],
    repeats: int = 5,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median seconds of ``repeats`` calls of ``fn`` after ``warmup`` calls, by ``clock``
    (wall clock; ``time.process_time`` for the process's CPU)."""
    if repeats < 1:
        raise ValueError(f"repeats must be ≥ 1, got {repeats}")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def fresh_interpreter_medians(code: str, runs: int = 3, cwd=None) -> list[float]:
    """Run ``code`` (which prints numbers on one line) in ``runs`` fresh interpreters; the
    median of each printed number."""
    import subprocess
    import sys

    outs = [
        [float(v) for v in subprocess.run([sys.executable, "-c", code], capture_output=True,
                                          text=True, check=True, cwd=cwd).stdout.split()]
        for _ in range(runs)
    ]  # fmt: skip
    return [statistics.median(column) for column in zip(*outs, strict=True)]
