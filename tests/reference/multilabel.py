"""Naive references for the multi-label RLS and multi-label ARLS (docs/multilabel.md): a
from-scratch solve per label and per hypothetical label, written out from the formulas."""

from __future__ import annotations

import numpy as np


def targets(sets, classes) -> np.ndarray:
    """±1 targets (m, L), written out."""
    return np.array([[1.0 if c in s else -1.0 for c in classes] for s in sets]).reshape(
        len(sets), len(classes)
    )


def balanced_weights(sets, classes) -> np.ndarray:
    """The balanced loss weight (m, L) of each labeled point in each class, written out: over
    the m labels a member of a class with c members weighs m/(2c), a non-member m/(2(m − c));
    1 in a class whose labels are all members or all non-members."""
    m = len(sets)
    out = np.ones((m, len(classes)))
    for col, c in enumerate(classes):
        members = sum(c in s for s in sets)
        if 0 < members < m:
            for row, s in enumerate(sets):
                out[row, col] = m / (2 * members) if c in s else m / (2 * (m - members))
    return out


def naive_predictions(K, labeled, sets, classes, lam, weights=None) -> np.ndarray:
    """``m`` on the pool: one ``np.linalg.solve`` per label column, of
    ``(K_LL + λ diag(1/a_k)) c = y_k`` (``weights``: the (m, L) loss weights a; None: 1)."""
    n = K.shape[0]
    out = np.zeros((n, len(classes)))
    if not labeled:
        return out
    L = list(labeled)
    Y = targets(sets, classes)
    A = np.ones(Y.shape) if weights is None else weights
    for col in range(len(classes)):
        coef = np.linalg.solve(K[np.ix_(L, L)] + lam * np.diag(1.0 / A[:, col]), Y[:, col])
        out[:, col] = K[:, L] @ coef
    return out


def naive_binary_risk(f) -> float:
    """The thesis' clipped binary risk ``Σ_z min(p̂(+), p̂(−))`` of one decision vector."""
    p = np.clip((np.asarray(f) + 1.0) / 2.0, 0.0, 1.0)
    return float(np.minimum(p, 1.0 - p).sum())


def naive_summed_risk(F) -> float:
    """The binary risk of each label's column, summed."""
    return sum(naive_binary_risk(F[:, col]) for col in range(F.shape[1]))


def naive_scores(K, labeled, sets, classes, lam, weights=None) -> np.ndarray:
    """Multi-label ARLS's expected risk of every unlabeled point: for each label l and
    each y = ±1, refit label l from scratch with (i, y) added. ``weights``: the labeled
    points' (m, L) loss weights, the new point weighing what a labeled member (y = +1) or
    non-member (y = −1) of the class weighs (1 if the class has none)."""
    n = K.shape[0]
    A = np.ones((len(labeled), len(classes))) if weights is None else weights
    m = naive_predictions(K, labeled, sets, classes, lam, A)
    out = np.full(n, np.nan)
    Y = targets(sets, classes)
    for i in range(n):
        if i in labeled:
            continue
        L = [*labeled, i]
        total = 0.0
        for col in range(len(classes)):
            p_pos = float(np.clip((m[i, col] + 1.0) / 2.0, 0.0, 1.0))
            for y, p in ((1.0, p_pos), (-1.0, 1.0 - p_pos)):
                same = [A[r, col] for r in range(len(labeled)) if Y[r, col] == y]
                a = np.append(A[:, col], same[0] if same else 1.0)
                G = K[np.ix_(L, L)] + lam * np.diag(1.0 / a)
                f = K[:, L] @ np.linalg.solve(G, np.append(Y[:, col], y))
                total += p * naive_binary_risk(f)
        out[i] = total
    return out
