"""Graph-OCL (Sheng §3.5) by brute force, sharing no code with :mod:`rlscore.core.graph.ocl`.

A kNN graph from sorted distances, ``S = D⁻¹W`` and the propagation
``F(t+1) = αSF(t) + (1 − α)Y`` of Sheng eq. 3.2 run to convergence in 100-digit decimal
arithmetic, then §3.5.2's selection of reliable negatives word for word.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np


def brute_knn(X, k):
    """Symmetric kNN graph: an edge when either point is among the other's k nearest."""
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    W = np.zeros_like(d2)
    nearest = np.argsort(d2, axis=1)[:, :k]
    W[np.repeat(np.arange(len(X)), k), nearest.ravel()] = 1.0
    return np.maximum(W, W.T)


def brute_cosine(X):
    """Sheng eq. 3.42/3.46 for the linear kernel: cosine similarity, self-similarity dropped."""
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    W = np.maximum(U @ U.T, 0.0)
    np.fill_diagonal(W, 0.0)
    return W


def decimal_F2(W, labeled, alpha, digits=100):
    """Second column of F* by the iteration of Sheng eq. 3.2 in ``digits``-digit decimals."""
    n = W.shape[0]
    with localcontext() as ctx:
        ctx.prec = digits
        a = Decimal(repr(alpha))
        rows = []
        for i in range(n):
            js = np.flatnonzero(W[i])
            w = [Decimal(repr(float(W[i, j]))) for j in js]
            deg = sum(w)
            rows.append([(int(j), wj / deg) for j, wj in zip(js, w, strict=True)])
        half = Decimal(1) / 2
        Y = [Decimal(0) if i in labeled else half for i in range(n)]
        F = list(Y)
        # the error after t steps is below α^t (‖αS‖∞ = α, |F| ≤ 1)
        steps = math.ceil(digits * math.log(10) / -math.log(alpha)) + 2
        for _ in range(steps):
            F = [a * sum(s * F[j] for j, s in row) + (1 - a) * Y[i] for i, row in enumerate(rows)]
    return F


def brute_negatives(W, positives, spies, alpha):
    labeled = set(np.setdiff1d(positives, spies).tolist())
    F2 = decimal_F2(W, labeled, alpha)
    unlabeled = np.setdiff1d(np.arange(W.shape[0]), positives)
    top_spy = max(F2[s] for s in spies)
    above = [int(i) for i in unlabeled if F2[i] > top_spy]
    kept = sorted(above, key=lambda i: -F2[i])[: positives.size]  # stable: ties by index
    return np.array(kept), len(above), F2
