"""Quality of predicted label sets: micro-F1, macro-F1 and the Hamming loss (docs/multilabel.md §4).

Predicted and true sets are given as (m, L) 0/1 matrices (scikit-learn's multi-label
convention) or as lists of label sets with their classes
(:mod:`rlscore.core.conventions.label_sets`). With ``TP_k``, ``FP_k``, ``FN_k`` the counts of
class k over the points:

* micro-F1 ``= 2 ΣTP / (2 ΣTP + ΣFP + ΣFN)`` — every membership weighs the same;
* macro-F1 ``= mean_k 2 TP_k / (2 TP_k + FP_k + FN_k)`` — every class weighs the same, so a rare
  class counts as much as a common one; a class never true and never predicted has F1 = 0
  (scikit-learn's ``zero_division=0``);
* Hamming loss ``= mean(P ≠ Y)`` — the share of wrong memberships.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rlscore.core.conventions.label_sets import multi_hot

__all__ = ["hamming_loss", "macro_f1", "micro_f1", "set_matrices"]


def set_matrices(y_true, y_pred, classes: Sequence | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Both arguments as (m, L) boolean matrices.

    Parameters
    ----------
    y_true, y_pred
        (m, L) 0/1 matrices, or lists of m label sets (then ``classes`` is required).
    classes
        The L classes of label sets.

    Raises
    ------
    ValueError
        The two differ in shape, a matrix holds a value other than 0 and 1, or label sets
        come without their classes.
    """
    out = []
    for name, value in (("y_true", y_true), ("y_pred", y_pred)):
        if isinstance(value, list | tuple):
            if classes is None:
                raise ValueError(f"{name} holds label sets: pass their classes")
            M = multi_hot(value, list(classes))
        else:
            M = np.asarray(value)
        if M.ndim != 2:
            raise ValueError(f"{name} must be an (m, L) 0/1 matrix, got shape {M.shape}")
        if M.dtype == object or not np.isin(M, (0, 1)).all():
            raise ValueError(f"{name} holds values other than 0 and 1")
        out.append(M.astype(bool))
    if out[0].shape != out[1].shape:
        raise ValueError(f"y_true has shape {out[0].shape} but y_pred {out[1].shape}")
    return out[0], out[1]


def _counts(y_true, y_pred, classes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-class ``TP``, ``FP``, ``FN``, each (L,)."""
    Y, P = set_matrices(y_true, y_pred, classes)
    return (Y & P).sum(axis=0), (~Y & P).sum(axis=0), (Y & ~P).sum(axis=0)


def micro_f1(y_true, y_pred, classes: Sequence | None = None) -> float:
    """Micro-averaged F1 of predicted label sets (module docstring); 0 when no class is true
    nor predicted anywhere."""
    tp, fp, fn = (c.sum() for c in _counts(y_true, y_pred, classes))
    denominator = 2 * tp + fp + fn
    return float(2 * tp / denominator) if denominator else 0.0


def macro_f1(y_true, y_pred, classes: Sequence | None = None) -> float:
    """Macro-averaged F1 of predicted label sets: the mean of the classes' F1 (module
    docstring)."""
    tp, fp, fn = _counts(y_true, y_pred, classes)
    denominator = 2 * tp + fp + fn
    f1 = np.divide(2.0 * tp, denominator, out=np.zeros(tp.shape), where=denominator > 0)
    return float(f1.mean()) if f1.size else 0.0


def hamming_loss(y_true, y_pred, classes: Sequence | None = None) -> float:
    """The share of wrong memberships, ``mean(P ≠ Y)`` over points and classes."""
    Y, P = set_matrices(y_true, y_pred, classes)
    return float(np.mean(Y != P)) if Y.size else 0.0
