"""Naive references for the multi-label RLS and multi-label ARLS (docs/multilabel.md): a
from-scratch solve per label and per hypothetical label, written out from the formulas."""

from __future__ import annotations

import numpy as np


def targets(sets, classes) -> np.ndarray:
    """±1 targets (m, L), written out."""
    return np.array([[1.0 if c in s else -1.0 for c in classes] for s in sets]).reshape(
        len(sets), len(classes)
    )


def naive_predictions(K, labeled, sets, classes, lam) -> np.ndarray:
    """``m`` on the pool: one ``np.linalg.solve`` per label column."""
    n = K.shape[0]
    out = np.zeros((n, len(classes)))
    if not labeled:
        return out
    L = list(labeled)
    Y = targets(sets, classes)
    for col in range(len(classes)):
        coef = np.linalg.solve(K[np.ix_(L, L)] + lam * np.eye(len(L)), Y[:, col])
        out[:, col] = K[:, L] @ coef
    return out


def naive_binary_risk(f) -> float:
    """The thesis' clipped binary risk ``Σ_z min(p̂(+), p̂(−))`` of one decision vector."""
    p = np.clip((np.asarray(f) + 1.0) / 2.0, 0.0, 1.0)
    return float(np.minimum(p, 1.0 - p).sum())


def naive_summed_risk(F) -> float:
    """The binary risk of each label's column, summed."""
    return sum(naive_binary_risk(F[:, col]) for col in range(F.shape[1]))


def naive_scores(K, labeled, sets, classes, lam) -> np.ndarray:
    """Multi-label ARLS's expected risk of every unlabeled point: for each label l and
    each y = ±1, refit label l from scratch with (i, y) added."""
    n = K.shape[0]
    m = naive_predictions(K, labeled, sets, classes, lam)
    out = np.full(n, np.nan)
    Y = targets(sets, classes)
    for i in range(n):
        if i in labeled:
            continue
        L = [*labeled, i]
        G = K[np.ix_(L, L)] + lam * np.eye(len(L))
        total = 0.0
        for col in range(len(classes)):
            p_pos = float(np.clip((m[i, col] + 1.0) / 2.0, 0.0, 1.0))
            for y, p in ((1.0, p_pos), (-1.0, 1.0 - p_pos)):
                f = K[:, L] @ np.linalg.solve(G, np.append(Y[:, col], y))
                total += p * naive_binary_risk(f)
        out[i] = total
    return out
