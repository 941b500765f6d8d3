"""Focused ARLS's candidates and covariance rows as they were before issue 25, kept as a
reference: a full stable argsort of the margins and the covariance rows from kernel columns
recomputed from scratch (``tests/test_focused_speedpath.py`` checks the fast path against it).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from reference.arls_focused import naive_margins

#: points scored for the first query when no label ranks them (as the engine)
COLD_START_CANDIDATES = 1000


def old_candidates(n: int, labeled: list[int], f: np.ndarray, focus: int, exclude=()) -> np.ndarray:
    """The ``focus`` free points with the smallest margin, ties to the lowest index (argsort)."""
    free = np.ones(n, dtype=bool)
    free[labeled] = False
    free[[e for e in exclude if 0 <= e < n]] = False
    idx = np.flatnonzero(free)
    if not labeled:
        if idx.size <= COLD_START_CANDIDATES:
            return idx
        return np.sort(np.random.default_rng(0).choice(idx, COLD_START_CANDIDATES, False))
    f = f[:, None] if f.ndim == 1 else f
    order = np.argsort(naive_margins(f)[idx], kind="stable")
    return idx[order[:focus]]


def dense_covariance_rows(
    K: np.ndarray, labeled, G: np.ndarray, idx, offset: bool, precision: float = 0.0
) -> np.ndarray:
    """``D_{C:} = K_{C:} − K_{CL} G⁻¹ K_{L:}`` (+ the offset's ``r_C rᵀ/(1ᵀG⁻¹1 + P)``, P the
    precision of its prior) densely."""
    L = np.asarray(labeled)
    D = K[idx] - K[np.ix_(idx, L)] @ scipy.linalg.solve(G, K[L])
    if offset:
        g = scipy.linalg.solve(G, np.ones(L.size))
        r = 1.0 - K[:, L] @ g
        D = D + np.outer(r[idx], r / (g.sum() + precision))
    return D
