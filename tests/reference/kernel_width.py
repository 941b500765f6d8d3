"""Brute-force RBF widths: the median heuristic over every pair of points."""

from __future__ import annotations

import numpy as np


def median_pair_distance(X: np.ndarray, *, distinct: bool = True) -> float:
    """The median of ``‖x_i − x_j‖`` over all pairs i < j, row by row from the differences;
    with ``distinct``, pairs of coincident points (distance exactly 0) are left out."""
    X = np.asarray(X, dtype=np.float64)
    d = np.concatenate([np.linalg.norm(X[i + 1 :] - X[i], axis=1) for i in range(len(X) - 1)])
    if distinct:
        d = d[d > 0]
    return float(np.median(d))
