"""Class weighting: the one rule shared by :class:`~rlscore.core.rls.classifier.RLSClassifier` and
the RLS query strategies (docs/mathematics.md §1, Paskov 3.14–3.15 up to scale).

Weights are given per one-vs-all (OvA) column and per class: ``W[t, c]`` is the loss weight
``a_i`` of a point of class ``c`` in OvA classifier ``t`` (one column, the second class
positive, for two classes). With ``n_c`` points of class ``c`` among ``n`` and T classes:

* ``None`` — every weight is 1;
* ``"balanced"`` — binary: ``n/(2n₋)``, ``n/(2n₊)``; multiclass: OvA column ``t`` gives its
  positive class ``n/(2n_t)`` and every other class ``n/(2(n − n_t))``, so each column
  equalises its two sides and the columns have different weight vectors;
* per-class weights (a dict resolved by :func:`resolve_class_weight`) — used as given in
  every column (scikit-learn's convention).

The *error* (risk) weight of a class, used to count leave-one-out errors and to correct the
ARLS risk for bias (Paskov eqs. 3.49–3.50), is ``n/(T·n_c)`` for ``"balanced"`` (mean 1 over
the points, classes equalised), the given weight for per-class weights, and 1 otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rlscore.core.conventions.input_validation import check_positive


def resolve_class_weight(class_weight, classes: Sequence) -> None | str | np.ndarray:
    """Validate ``class_weight`` against ``classes``; a dict becomes per-class weights.

    Parameters
    ----------
    class_weight
        None, ``"balanced"`` or a dict class → weight > 0 (missing classes weigh 1).
    classes
        The T class labels, in the order of the class positions.

    Returns
    -------
    None, ``"balanced"`` or ndarray (T,)
        The per-class weights in ``classes`` order for a dict.
    """
    if class_weight is None:
        return None
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(
                f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}"
            )
        return class_weight
    if not isinstance(class_weight, Mapping):
        raise ValueError(f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
    names = np.asarray(classes).tolist()
    unknown = [k for k in class_weight if k not in names]
    if unknown:
        raise ValueError(f"class_weight names {unknown}, which are not among the classes {names}")
    w = np.ones(len(names))
    for k, v in class_weight.items():
        w[names.index(k)] = check_positive(v, f"class_weight[{k!r}]")
    return w


def class_weight_table(
    counts, class_weight: None | str | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Loss weights per OvA column and class, and the error weight of each class.

    Parameters
    ----------
    counts
        (T,) number of points of each class, T ≥ 2; every count must be > 0 for
        ``"balanced"``.
    class_weight
        None, ``"balanced"`` or (T,) per-class weights (see :func:`resolve_class_weight`).

    Returns
    -------
    (W, e)
        ``W`` (T', T) with ``W[t, c]`` the loss weight of a point of class c in OvA column t
        (T' = 1 for two classes, else T); ``e`` (T,) the error weight of each class.

    Examples
    --------
    >>> W, e = class_weight_table([3, 1], "balanced")
    >>> W
    array([[0.66666667, 2.        ]])
    """
    counts = np.asarray(counts, dtype=np.float64)
    T = counts.size
    if T < 2:
        raise ValueError(f"class weights need at least 2 classes, got {T}")
    cols = 1 if T == 2 else T
    if class_weight is None:
        return np.ones((cols, T)), np.ones(T)
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(
                f"class_weight must be None, 'balanced' or per-class weights, got {class_weight!r}"
            )
        if np.any(counts <= 0):
            raise ValueError(f"balanced weights need every class present, got counts {counts}")
        n = counts.sum()
        e = n / (T * counts)
        if T == 2:
            return e[None, :].copy(), e
        W = np.repeat((n / (2.0 * (n - counts)))[:, None], T, axis=1)
        W[np.diag_indices(T)] = n / (2.0 * counts)
        return W, e
    w = np.asarray(class_weight, dtype=np.float64)
    if w.shape != (T,):
        raise ValueError(f"per-class weights have shape {w.shape}; expected ({T},)")
    return np.repeat(w[None, :], cols, axis=0), w.copy()


def column_groups(W: np.ndarray) -> list[np.ndarray]:
    """Group the OvA columns (rows of ``W``) that have identical weights, in first-seen order.

    Columns of one group share the weighted kernel ``WKW`` and so one factorisation: one group
    without weights, with per-class weights and for two classes; one per class for balanced
    multiclass weights.
    """
    groups: list[list[int]] = []
    for t in range(W.shape[0]):
        for g in groups:
            if np.array_equal(W[g[0]], W[t]):
                g.append(t)
                break
        else:
            groups.append([t])
    return [np.asarray(g, dtype=np.intp) for g in groups]
