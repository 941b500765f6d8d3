"""The missing-label convention: one definition for the estimators, sessions and experiments.

A label vector ``y`` over a pool marks the points nobody has labeled yet with a **marker**:

* ``unlabeled=None`` (the default of every estimator): NaN in a float ``y``; None or NaN in
  an object ``y``; an integer, boolean or string ``y`` then has no unlabeled point;
* any other value, e.g. ``-1`` (scikit-learn's semi-supervised convention, when −1 is not a
  class), ``"?"``, or NaN itself (which never equals itself, so it is matched as NaN, not by
  ``==``).

rlscore's binary labels are ±1 (docs/mathematics.md §1), which is why ``-1`` is not the
default marker. The sessions and experiments know the labeled points as an index set instead:
:func:`unlabeled_mask` turns that set into the same mask.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Real

import numpy as np

__all__ = ["is_missing", "is_unlabeled", "labeled_indices", "unlabeled_mask"]


def is_missing(value) -> bool:
    """Whether one label value is missing under the default convention (None or NaN)."""
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


def is_unlabeled(y, unlabeled: object = None) -> np.ndarray:
    """(n,) booleans: True where ``y`` carries the marker of a missing label.

    Parameters
    ----------
    y
        (n,) labels.
    unlabeled
        The marker (see the module's docstring); None and NaN both mean "NaN, or None in an
        object ``y``".

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {y.shape}")
    if unlabeled is None or is_missing(unlabeled):
        if y.dtype.kind == "f":
            return np.isnan(y)
        if y.dtype.kind == "O":
            return np.fromiter((is_missing(v) for v in y), dtype=bool, count=y.size)
        return np.zeros(y.shape[0], dtype=bool)
    if y.dtype.kind in "biuf" and isinstance(unlabeled, Real) and not isinstance(unlabeled, bool):
        return np.asarray(y == unlabeled, dtype=bool)
    return np.fromiter((bool(v == unlabeled) for v in y.tolist()), dtype=bool, count=y.size)


def labeled_indices(y, unlabeled: object = None) -> np.ndarray:
    """Positions of the labeled entries of ``y`` (the complement of :func:`is_unlabeled`)."""
    return np.flatnonzero(~is_unlabeled(y, unlabeled))


def unlabeled_mask(n: int, labeled: Iterable[int]) -> np.ndarray:
    """(n,) booleans: True for the pool points whose index is not in ``labeled``.

    Raises
    ------
    IndexError
        An index outside ``0 … n-1``.
    """
    mask = np.ones(int(n), dtype=bool)
    idx = np.fromiter((int(i) for i in labeled), dtype=np.intp)
    bad = idx[(idx < 0) | (idx >= mask.size)]
    if bad.size:
        raise IndexError(f"labeled indices must lie in 0 … {mask.size - 1}, got {bad[:5].tolist()}")
    mask[idx] = False
    return mask
