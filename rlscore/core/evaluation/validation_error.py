"""The validation error: one definition for the sessions, the simulations and the app.

*Validation error* is the fraction of wrong predictions on a **validation set**: a held-out split
when the data has one (the bundled samples), otherwise the pool points that are **not labeled**
(:func:`rlscore.core.conventions.missing_labels.unlabeled_mask`; a labeled point's answer is known,
so counting it would flatter the learner). The *balanced* validation error averages the per-class
error rates over the classes present in the validation set (= 1 − scikit-learn's balanced accuracy).
"""

from __future__ import annotations

import numpy as np

#: at most this many labels are coded in Python (:func:`label_codes`): a class list, not a pool
SMALL_LABELS = 64
#: labels of these dtype kinds (bool, integers, floats, strings) are coded by sorting up to
#: this many, by pandas' hashed pass beyond (sorting costs O(n log n), pandas' import 0.4 s)
SORTABLE_KINDS = "biufU"
SORTED_LABELS = 100_000
#: what a pool's labels held as Python objects can be stored as without changing which of them
#: are equal (pandas' inference of an object array's values; anything else stays objects)
_TYPED = {"integer": np.int64, "boolean": bool}


def label_codes(labels: np.ndarray) -> tuple[np.ndarray, list]:
    """Codes of ``labels`` and the distinct labels they index, labels compared as Python
    compares them (``1 == 1.0 == np.int64(1)``, ``1 != "1"``), in one hashed pass: a session
    codes its whole pool after every label, one dict lookup per point would be O(n) Python.

    Parameters
    ----------
    labels : ndarray (n,)

    Returns
    -------
    codes : ndarray (n,) of int
        ``distinct[codes[i]]`` equals ``labels[i]``.
    distinct : list
        The distinct labels as Python objects, in order of first appearance.
    """
    labels = np.asarray(labels).ravel()
    if labels.size <= SMALL_LABELS:
        return _small_label_codes(labels)
    if labels.size <= SORTED_LABELS:
        typed = _plain_typed(labels) if labels.dtype == object else labels
        if typed.dtype.kind in SORTABLE_KINDS:
            return _sorted_label_codes(typed)
    # here: pandas' import (0.4 s) is paid by the first large pool coded, not by every page
    import pandas as pd

    if labels.dtype == object:  # hashing typed values is several times faster than objects
        target = _TYPED.get(pd.api.types.infer_dtype(labels, skipna=False))
        if target is not None:
            try:
                labels = labels.astype(target)
            except (OverflowError, ValueError):  # an integer beyond 64 bits
                pass
    codes, distinct = pd.factorize(labels, use_na_sentinel=False)
    return codes, np.asarray(distinct, dtype=object).tolist()


def _plain_typed(labels: np.ndarray) -> np.ndarray:
    """An object array of integers (not booleans) as int64, of booleans as bool; else as is
    (what pandas' ``infer_dtype`` gives :data:`_TYPED`, for the sorted path)."""
    kinds = {type(v) for v in labels.tolist()}
    if kinds <= {bool, np.bool_}:
        return labels.astype(bool)
    if all(issubclass(k, (int, np.integer)) and not issubclass(k, (bool, np.bool_)) for k in kinds):
        try:
            return labels.astype(np.int64)
        except OverflowError:  # an integer beyond 64 bits
            pass
    return labels


def _sorted_label_codes(labels: np.ndarray) -> tuple[np.ndarray, list]:
    """:func:`label_codes` of typed labels by sorting (``np.unique``; NaNs are one label)."""
    values, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the distinct labels by first appearance
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return rank[inverse.ravel()], values[order].tolist()


def _small_label_codes(labels: np.ndarray) -> tuple[np.ndarray, list]:
    """:func:`label_codes` of a few labels, one dict lookup each (NaNs are one label, as in
    pandas' factorize)."""
    nan = object()
    first: dict = {}
    codes = np.empty(labels.size, dtype=np.intp)
    distinct = []
    for k, value in enumerate(labels.tolist()):
        key = nan if isinstance(value, float) and value != value else value
        code = first.get(key)
        if code is None:
            code = first[key] = len(distinct)
            distinct.append(value)
        codes[k] = code
    return codes, distinct


def _shared_codes(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the true and predicted labels in one shared list of classes (scikit-learn
    sorts labels, so ``1`` and ``"1"`` must be told apart before it sees them)."""
    t, p = np.asarray(y_true), np.asarray(y_pred)
    if t.shape != p.shape:
        raise ValueError(f"{t.size} true labels but {p.size} predictions")
    (ct, dt), (cp, dp) = label_codes(t), label_codes(p)
    # the few distinct labels of both sides merged as Python objects: 1 and "1" stay apart
    shared = {v: k for k, v in enumerate(dict.fromkeys([*dt, *dp]))}
    positions = [np.array([shared[v] for v in d], dtype=np.intp) for d in (dt, dp)]
    return positions[0][ct], positions[1][cp]


def validation_errors(y_true, y_pred) -> tuple[float | None, float | None]:
    """``(error, balanced error)`` of predictions against the truth; ``(None, None)`` if empty.

    Labels are compared as Python objects, so ``1`` and ``"1"`` differ (a project's classes
    are either numbers or strings, never both).
    """
    ti, pi = _shared_codes(y_true, y_pred)
    if ti.size == 0:
        return None, None
    wrong = ti != pi
    error = wrong.mean()
    # balanced accuracy = the mean recall of the classes present in the truth (scikit-learn's
    # balanced_accuracy_score; counted here: the app records it after every label)
    n_true = np.bincount(ti)
    present = n_true > 0
    recall = 1.0 - np.bincount(ti, weights=wrong, minlength=n_true.size)[present] / n_true[present]
    return float(error), float(1.0 - recall.mean())
