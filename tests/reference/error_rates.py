"""The specified-error-rate certificate (Saketha Nath ch. 2) from explicit features: numpy means
and covariances instead of the kernel expressions of
:mod:`rlscore.core.classifiers.error_bounds`.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.stats import norm


def brute_certificate(Phi, y, w, b, ridge, moments):
    """Worst-case rates from explicit features: numpy means and (1/m) covariances + ρI."""
    S = [np.cov(Phi[y == c], rowvar=False, bias=True) for c in (1, -1)]
    rho = ridge * (np.trace(S[0]) + np.trace(S[1])) / 2
    out = []
    for c, Si, sign in zip((1, -1), S, (1, -1), strict=True):
        mu = Phi[y == c].mean(axis=0)
        r = sign * (w @ mu - b) / np.sqrt(w @ (Si + rho * np.eye(len(w))) @ w)
        out.append(norm.sf(r) if moments == "gaussian" else (1 / (1 + r * r) if r > 0 else 1.0))
    return np.array(out)


def poly2_features(X):
    """Explicit feature map of ``(1 + x·z)²``: [1, √2 x_i, x_i², √2 x_i x_j (i < j)]."""
    n, d = X.shape
    pairs = list(itertools.combinations(range(d), 2))
    cross = [np.sqrt(2) * X[:, i] * X[:, j] for i, j in pairs]
    return np.column_stack([np.ones(n), np.sqrt(2) * X, X**2, *cross])
