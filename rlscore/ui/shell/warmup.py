"""Warm-up, once per server process, of what the first query needs but the page's imports do
not: the compiled lookahead of the ARLS family (numba, :mod:`rlscore.query.arls.fused_lookahead`).

Loading numba and the kernels' disk cache costs about half a second of CPU, mostly in Python.
Done by the first query, it is added to the cold first load; started in a background thread
at the very beginning of the first page run, it overlaps the page's own work (the imports of
the pages, the pool kernel's numpy products, which release the GIL) and the first query finds
the kernels loaded. The thread only imports and calls the kernels on a tiny problem: a page
never waits for it (a query that comes first compiles or loads the kernels itself, as
before).

It is **off unless** ``RLSCORE_WARMUP=1``: its gain was not measurable on the 2-core
machine (benchmarks/app_latency.py ``--compare-warmup``), and with it on, a fresh server's
first page intermittently never finished in the browser tests (three times in two full runs,
never without it) — suspected: the thread compiling under numba's compiler lock while the
page's thread imports modules that take the same lock.
"""

from __future__ import annotations

import logging
import os
import threading

import streamlit as st

#: environment variable: "1" turns the warm-up on
WARMUP_ENV = "RLSCORE_WARMUP"

_log = logging.getLogger(__name__)


def warm_lookahead() -> None:
    """Load the compiled lookahead kernels by one ARLS query, binary and three-class (the two
    specialisations the app's strategies run), on the smallest pool whose lookahead is
    compiled (smaller ones run in numpy: ``rlscore.query.arls.thesis.NUMPY_LOOKAHEAD``). A real
    query, not a call with arguments built here: the kernels are compiled per argument type
    (layout, read-only flags, the number of columns), and only the query's own path gives the
    query's types."""
    import math

    import numpy as np

    # imported here: loading numba is what the warm-up is for
    from rlscore.query.arls.thesis import ARLS, NUMPY_LOOKAHEAD

    n = math.isqrt(NUMPY_LOOKAHEAD) + 2  # ARLS's candidates × points exceed the limit
    X = np.random.default_rng(0).normal(size=(n, 2))
    for classes in ([0, 1], [0, 1, 2]):
        q = ARLS(sigma=1.0, lam=0.5).start(X, classes)
        q.teach_many(list(range(len(classes))), classes)
        q.next_query()


def _warm() -> None:
    try:
        warm_lookahead()
    except Exception:  # a warm-up never breaks the app: the first query loads them itself
        _log.exception("warm-up of the compiled lookahead failed")


@st.cache_resource(show_spinner=False)
def _warmup_thread() -> threading.Thread | None:
    if os.environ.get(WARMUP_ENV, "0") != "1":
        return None
    thread = threading.Thread(target=_warm, name="rlscore-warmup", daemon=True)
    thread.start()
    return thread


def start_warmup() -> None:
    """Start the warm-up thread if ``RLSCORE_WARMUP=1`` (once per server process; returns
    at once)."""
    _warmup_thread()


__all__ = ["WARMUP_ENV", "start_warmup", "warm_lookahead"]
