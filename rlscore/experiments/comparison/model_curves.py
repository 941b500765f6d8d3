"""Learning curves of another classifier trained on the labels each strategy gathered.

A query strategy picks points for its own learner (RLS, KLR); a user may deploy a different model on
the labels. :func:`model_errors` refits such a model after every query of a simulated run and
measures it where the run measures its own learner (held-out points, or the pool points not labeled
yet: :mod:`rlscore.core.evaluation.validation_error`' definition), so the Compare page can answer
"which strategy's labels serve BDLDA best?"::

    from rlscore.experiments.comparison.compare import compare_strategies
    table = compare_strategies(X, y, ["arls", "random"], queries=30, model="bdlda")
    table.groupby(["strategy", "n_labels"]).model_error.mean()

The models are scikit-learn classifiers: :class:`rlscore.core.classifiers.bdlda.BDLDA` (Sheng ch. 2,
for high-dimensional data with few labels; two classes, so one-vs-rest beyond two) with and without
treelets, and scikit-learn's shrinkage LDA (Ledoit–Wolf) as its established peer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.multiclass import OneVsRestClassifier

from rlscore.core.classifiers.bdlda import BDLDA
from rlscore.core.conventions.missing_labels import unlabeled_mask
from rlscore.core.evaluation.validation_error import validation_errors

#: name -> (what the page calls it, a factory of the unfitted two-class-or-more classifier)
EVALUATION_MODELS: dict[str, tuple[str, Callable[[], ClassifierMixin]]] = {
    "bdlda": ("BDLDA (Sheng ch. 2)", BDLDA),
    "t-bdlda": ("T-BDLDA: BDLDA on 5 treelet levels", lambda: BDLDA(treelet_level=5)),
    "shrinkage-lda": (
        "Shrinkage LDA (scikit-learn, Ledoit–Wolf)",
        lambda: LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto"),
    ),
}
#: a model is fitted once the labels hold this many points of each of two classes or more
MIN_PER_CLASS = 2


def evaluation_model(name: str, n_classes: int) -> ClassifierMixin:
    """An unfitted classifier of :data:`EVALUATION_MODELS` for ``n_classes`` classes.

    BDLDA is derived for two classes (Sheng §2.1): with more, each class is separated from the
    rest (scikit-learn's ``OneVsRestClassifier``).
    """
    if name not in EVALUATION_MODELS:
        raise ValueError(f"unknown model {name!r}: choose one of {sorted(EVALUATION_MODELS)}")
    model = EVALUATION_MODELS[name][1]()
    if isinstance(model, BDLDA) and n_classes > 2:
        return OneVsRestClassifier(model)
    return model


def can_fit(y_labeled: np.ndarray) -> bool:
    """Whether the labels are enough to fit a model: two classes or more, and
    :data:`MIN_PER_CLASS` points of each class present (a class mean and a spread)."""
    _, counts = np.unique(np.asarray(y_labeled), return_counts=True)
    return counts.size >= 2 and bool(np.all(counts >= MIN_PER_CLASS))


def model_errors(
    name: str,
    X: np.ndarray,
    y: np.ndarray,
    labeled: Sequence[int],
    checkpoints: Sequence[int],
    validation: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[tuple[float | None, float | None]]:
    """Errors of model ``name`` fitted on the first ``k`` labeled points, for each ``k``.

    Parameters
    ----------
    name
        A key of :data:`EVALUATION_MODELS`.
    X, y
        The pool and its true labels (the oracle's answers).
    labeled
        Pool indices in the order they were labeled (a run's initial labels, then its queries).
    checkpoints
        Numbers of labels ``k`` to fit on (``labeled[:k]``).
    validation
        ``(X_val, y_val)``, or None to measure on the pool points not among ``labeled[:k]``.

    Returns
    -------
    list of (error, balanced error)
        One pair per checkpoint; ``(nan, nan)`` while :func:`can_fit` is false, ``(None, None)``
        when no point is left to measure on (as :mod:`rlscore.core.evaluation.validation_error`).
    """
    X = np.asarray(X, dtype=np.float64)
    # class codes: scikit-learn refuses object arrays of labels (a project's truth column)
    y, y_val = _codes(np.asarray(y), None if validation is None else np.asarray(validation[1]))
    labeled = np.asarray(labeled, dtype=int)
    out = []
    for k in checkpoints:
        idx = labeled[: int(k)]
        if not can_fit(y[idx]):
            out.append((float("nan"), float("nan")))
            continue
        model = evaluation_model(name, np.unique(y[idx]).size).fit(X[idx], y[idx])
        if validation is None:
            rest = unlabeled_mask(y.size, idx)
            out.append(validation_errors(y[rest], model.predict(X[rest])))
        else:
            out.append(validation_errors(y_val, model.predict(validation[0])))
    return out


def _codes(y: np.ndarray, y_val: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Labels as integer codes over the classes of both (the same code for the same label)."""
    values = y.tolist() + ([] if y_val is None else y_val.tolist())
    code = {v: k for k, v in enumerate(dict.fromkeys(values))}

    def encode(a: np.ndarray) -> np.ndarray:
        return np.fromiter((code[v] for v in a.tolist()), dtype=np.intp, count=a.size)

    return encode(y), None if y_val is None else encode(y_val)
