"""Exact ARLS's expected risk on a shortlist, written from docs/mathematics.md §5 one candidate
and one label at a time: the reference of low-rank ARLS's exact re-score (``refine``) in
``tests/test_arls_lowrank.py``."""

from __future__ import annotations

import numpy as np

from reference.arls import targets


def soft_probabilities_here(F: np.ndarray) -> np.ndarray:
    """``p̂(c|z)`` of decision values F (n, T'), written from docs/mathematics.md §1/§5: binary
    ``p̂(+) = clip((f + 1)/2, 0, 1)``; one-vs-all clipped soft scores normalised per row,
    uniform where all are clipped to 0."""
    if F.shape[1] == 1:
        p = np.clip((F[:, 0] + 1.0) / 2.0, 0.0, 1.0)
        return np.column_stack([1.0 - p, p])
    P = np.clip((F + 1.0) / 2.0, 0.0, 1.0)
    total = P.sum(axis=1, keepdims=True)
    uniform = np.full_like(P, 1.0 / P.shape[1])
    return np.divide(P, total, out=uniform, where=total > 0.0)


def point_risks_here(F: np.ndarray, inv_w: np.ndarray) -> np.ndarray:
    """Per-point risk ``Σ_{l ≠ ĉ_z} p̂(l|z)/w_l`` (eq. 3.49), ĉ the sign or the argmax of F."""
    P = soft_probabilities_here(F)
    winner = (F[:, 0] > 0).astype(int) if F.shape[1] == 1 else np.argmax(F, axis=1)
    weighted = P * inv_w
    return weighted.sum(axis=1) - weighted[np.arange(F.shape[0]), winner]


def exact_reference_scores(dense, cand, S) -> np.ndarray:
    """Exact ARLS's expected risk of each candidate summed over the risk points ``S`` (None:
    the pool) × n/|S|, from dense ARLS's m, D = K − V and weights by the hypothetical
    classifier of docs/mathematics.md §5, ``f' = m + D_{:i}(y − m_i)/(D_ii + λ/a(y))``, one
    candidate and
    label at a time."""
    n = dense.n_pool_
    m, D, W = dense.m_, dense.covariance_, dense.loss_weights_
    D = np.broadcast_to(D, (m.shape[1], n, n)) if D.ndim == 2 else D
    T = dense.classes_.size
    inv_w = 1.0 / dense.weights_ if dense.class_weight is not None else np.ones(T)
    points = np.arange(n) if S is None else np.asarray(S)
    expectation = soft_probabilities_here(m) * inv_w
    out = []
    for i in cand:
        score = 0.0
        for y in range(T):
            target = targets([y], T)[0]
            F = np.empty((points.size, m.shape[1]))
            for t in range(m.shape[1]):
                step = (target[t] - m[i, t]) / (D[t, i, i] + dense.lam / W[t, y])
                F[:, t] = m[points, t] + D[t, points, i] * step
            score += expectation[i, y] * point_risks_here(F, inv_w).sum()
        out.append(score * n / points.size)
    return np.array(out)
