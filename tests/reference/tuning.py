"""Brute-force reference of the Tune page's automatic λ (docs/mathematics.md §3).

The automatic λ is the largest λ of the data's own grid (:func:`reference.rls.default_grid`:
geometric from the smallest to the largest eigenvalue of ``M = A^{1/2} K A^{1/2}``) whose
leave-one-out classification error is least, within the λ slider's range (``lam_range``). Here
every LOO value comes from refitting RLS on the other points (:func:`reference.rls.brute_loo`),
the kernel from its formula; nothing of :mod:`rlscore.core.rls.classifier` or its
eigendecomposition is used.
"""

from __future__ import annotations

import numpy as np

from reference.rls import balanced, brute_loo, default_grid, ova


def rbf(X: np.ndarray, sigma: float) -> np.ndarray:
    """``exp(−‖x − z‖² / (2σ²))`` for every pair of rows, written out."""
    diff = X[:, None, :] - X[None, :, :]
    return np.exp(-np.sum(diff * diff, axis=-1) / (2.0 * sigma * sigma))


def loo_classification_error(K, y_index, T, lam, weights=None) -> float:
    """Weighted fraction of points whose LOO prediction is wrong (sign for two classes, the
    largest one-vs-all value beyond), every LOO value a refit without the point."""
    Y = ova(y_index, T)
    A = np.ones_like(Y) if weights is None else weights
    loo = np.column_stack(
        [brute_loo(K, Y[:, t], A[:, t], lam, offset=False) for t in range(Y.shape[1])]
    )
    if Y.shape[1] == 1:
        wrong = (loo[:, 0] > 0) != (y_index == 1)
    else:
        wrong = np.argmax(loo, axis=1) != y_index
    # error weights: a point's own loss weight (two classes), else 1
    e = A[:, 0] if Y.shape[1] == 1 else np.ones(y_index.size)
    return float(e @ wrong / e.sum())


def brute_auto_lam(
    X, y, sigma: float, balanced_weights: bool = False, num: int = 50, lam_range=None
) -> float:
    """The largest λ of the default grid with the least brute-force LOO classification error.

    Balanced weights are written out for two classes only (one weighted kernel, one grid).
    With ``lam_range`` (log₁₀ ends), a grid value below the range counts as its lower end and
    one above as its upper end: the choice never leaves the range.
    """
    classes, y_index = np.unique(y, return_inverse=True)
    T = classes.size
    K = rbf(np.asarray(X, dtype=float), sigma)
    weights = None
    if balanced_weights:
        assert T == 2, "the reference weights two classes only"
        weights = balanced(y_index, T)
    a = np.ones(y_index.size) if weights is None else weights[:, 0]
    grid = default_grid(K, a, num)
    if lam_range is not None:
        low, high = 10.0 ** lam_range[0], 10.0 ** lam_range[1]
        grid = np.array(sorted({min(max(lam, low), high) for lam in grid}))
    errors = np.array([loo_classification_error(K, y_index, T, lam, weights) for lam in grid])
    return float(grid[errors <= errors.min() + 1e-12].max())
