"""One-vs-all (OvA) encoding of class positions: the one encoder of the package.

Class labels are turned into positions ``0 … T−1`` in the sorted ``classes_`` list; a position
becomes one target column for two classes (the second class positive, docs/mathematics.md §1) and
one column
per class otherwise. RLS and ARLS use ±1 targets; kernel logistic regression uses 0/1
(``negative=0``, the softmax one-hot coding of Yajima §5).
"""

from __future__ import annotations

import numpy as np


def ova_targets(codes, n_classes: int, *, negative: float = -1.0) -> np.ndarray:
    """Targets of class positions ``codes``: (l, 1) for two classes, (l, T) otherwise.

    Parameters
    ----------
    codes
        Class positions, integers in ``[0, n_classes)``.
    n_classes
        Number of classes T ≥ 2.
    negative
        Value for "not this class": −1 for RLS (±1 targets), 0 for KLR (one-hot).

    Examples
    --------
    >>> ova_targets([0, 1], 2)
    array([[-1.],
           [ 1.]])
    >>> ova_targets([2], 3, negative=0.0)
    array([[0., 0., 1.]])
    """
    codes = np.asarray(codes, dtype=np.intp).reshape(-1)
    if n_classes < 2:
        raise ValueError(f"one-vs-all encoding needs at least 2 classes, got {n_classes}")
    if codes.size and (codes.min() < 0 or codes.max() >= n_classes):
        raise ValueError(f"class positions must lie in [0, {n_classes}), got {codes.tolist()}")
    if n_classes == 2:
        return np.where(codes == 1, 1.0, negative)[:, None]
    Y = np.full((codes.size, n_classes), float(negative))
    Y[np.arange(codes.size), codes] = 1.0
    return Y
