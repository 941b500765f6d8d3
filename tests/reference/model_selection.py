"""Grid search over stratified folds, and kernel approximation errors, written out as loops.

References for the benchmark scripts (benchmarks/rls_vs_svm.py, benchmarks/reproduce_lowrank.py):
no ``GridSearchCV``, no :func:`rlscore.core.kernels.lowrank.relative_frobenius_error`.
"""

from __future__ import annotations

import itertools

import numpy as np
from sklearn.base import clone


def grid_search_accuracy(model, grid: dict, folds, X, y, X_test, y_test) -> tuple[float, dict]:
    """Test accuracy of ``model`` refitted on all of ``X`` with the parameters of the best
    mean fold accuracy (the first best in the order of sorted parameter names, as
    scikit-learn's ``ParameterGrid``), and those parameters."""
    names = sorted(grid)
    best, best_score = None, -np.inf
    for values in itertools.product(*(grid[k] for k in names)):
        params = dict(zip(names, values, strict=True))
        scores = []
        for train, test in folds:
            fitted = clone(model).set_params(**params).fit(X[train], y[train])
            scores.append(np.mean(fitted.predict(X[test]) == y[test]))
        if np.mean(scores) > best_score:
            best, best_score = params, np.mean(scores)
    final = clone(model).set_params(**best).fit(X, y)
    return float(np.mean(final.predict(X_test) == y_test)), best


def rbf_gram(X: np.ndarray, sigma: float) -> np.ndarray:
    """``exp(−‖x − z‖² / (2σ²))`` for every pair, from explicit differences."""
    diff = X[:, None, :] - X[None, :, :]
    return np.exp(-(diff**2).sum(-1) / (2.0 * sigma**2))


def percent_frobenius_error(K: np.ndarray, features: np.ndarray) -> float:
    """``100 ‖K − ΦΦᵀ‖_F / ‖K‖_F`` (Sheng eq. 4.19)."""
    return float(100 * np.linalg.norm(K - features @ features.T) / np.linalg.norm(K))
