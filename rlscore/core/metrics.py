"""The validation error: one definition for the sessions, the simulations and the app.

*Validation error* is the fraction of wrong predictions on a **validation set**: a held-out
split when the data has one (the bundled samples), otherwise the pool points that are **not
labeled** (:func:`rlscore.core.missing_labels.unlabeled_mask`; a labeled point's answer is
known, so counting it would flatter the learner). The
*balanced* validation error averages the per-class error rates over the classes present in
the validation set (= 1 − scikit-learn's balanced accuracy).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.metrics import accuracy_score, balanced_accuracy_score


def validation_errors(y_true, y_pred) -> tuple[float | None, float | None]:
    """``(error, balanced error)`` of predictions against the truth; ``(None, None)`` if empty.

    Labels are compared as Python objects, so ``1`` and ``"1"`` differ (a project's classes
    are either numbers or strings, never both).
    """
    t = np.asarray(y_true, dtype=object)
    p = np.asarray(y_pred, dtype=object)
    if t.shape != p.shape:
        raise ValueError(f"{t.size} true labels but {p.size} predictions")
    if t.size == 0:
        return None, None
    # scikit-learn sorts labels: map both to positions of one shared list of classes
    classes = {v: k for k, v in enumerate(dict.fromkeys([*t.tolist(), *p.tolist()]))}
    ti = np.fromiter((classes[v] for v in t.tolist()), dtype=np.intp, count=t.size)
    pi = np.fromiter((classes[v] for v in p.tolist()), dtype=np.intp, count=p.size)
    error = 1.0 - accuracy_score(ti, pi)
    with warnings.catch_warnings():
        # a predicted class absent from the truth is expected early in labeling
        warnings.filterwarnings("ignore", "y_pred contains classes not in y_true")
        warnings.filterwarnings("ignore", "A single label was found in 'y_true' and 'y_pred'")
        balanced = 1.0 - balanced_accuracy_score(ti, pi)
    return float(error), float(balanced)
