"""RLS refitted on a session's labeled points: exact leave-one-out errors and the LOO λ.

The RLS is the engine's own model: its kernel, σ, degree, class weights and, for a strategy
that fits one (focused ARLS's ``fit_intercept``), the offset with the engine's prior
(``offset_precision``).

One rule for the automatic λ and for the stopping indicator's LOO errors: the RLS uses the
engine's own kernel, σ, degree and **class weights** (the strategy's effective
``class_weight``, its default included), so a weighted session is tuned and judged with the
weights it learns with, as the Tune page's ``RLSClassifier(class_weight=…)`` is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.evaluation.validation_error import validation_errors
from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.query import QueryStrategy
from rlscore.query.rls_state.weighted import WeightedRLSStrategy
from rlscore.sessions.state.engine import class_weight_of
from rlscore.sessions.state.settings import LAM_LOG_RANGE

if TYPE_CHECKING:
    from rlscore.core.rls.classifier import RLSClassifier

#: an RLS with exact LOO needs a few points of at least two classes
MIN_LABELS = 3


def labeled_rls(
    engine: QueryStrategy,
    X: np.ndarray,
    labels: dict,
    lam: float | str,
    K: np.ndarray | None = None,
    classes=None,
) -> RLSClassifier | None:
    """RLS fitted on the labeled points with the engine's kernel and class weights.

    Parameters
    ----------
    engine
        The session's strategy (its parameters give kernel, σ, degree, class weights).
    X
        The pool.
    labels
        Point index -> label.
    lam
        λ, or ``"auto"`` (the largest λ minimising the LOO classification error, within
        :data:`~rlscore.sessions.state.settings.LAM_LOG_RANGE`).
    K
        The pool kernel; needed for graph kernels, which exist on the pool only (the RLS
        then uses its labeled block).
    classes
        The project's classes, for an engine not started (it has none of its own): with an
        offset the engine's model fits one only once every class has a label
        (:func:`labeled_rls_params`).

    Returns
    -------
    RLSClassifier or None
        None with fewer than :data:`MIN_LABELS` labels or classes, a graph kernel
        without ``K``, or a pool without feature columns here (on a cluster).
    """
    idx = list(labels)
    y = np.asarray([labels[i] for i in idx])
    present = set(y.tolist())
    if len(idx) < MIN_LABELS or len(present) < 2 or X.shape[1] == 0:
        return None  # X without columns: a pool on a cluster, no features on this server
    # imported here: the estimator loads scikit-learn (1 s of import), which a page with
    # fewer than MIN_LABELS labels never needs
    from rlscore.core.rls.classifier import RLSClassifier

    model = {**labeled_rls_params(engine, present, classes), "lam": lam}
    if lam == "auto":  # the app's λ range: below it the model's values at new points are noise
        model["lam_bounds"] = tuple(10.0**end for end in LAM_LOG_RANGE)
    if is_graph_kernel(model["kernel"]):
        if K is None:
            return None
        clf = RLSClassifier(**{**model, "kernel": "precomputed"})
        return clf.fit(K[np.ix_(idx, idx)], y)
    return RLSClassifier(**model).fit(X[idx], y)


def labeled_rls_params(engine: QueryStrategy, present: set, classes=None) -> dict:
    """The RLS parameters of the engine's model on labels of the classes ``present``:
    ``kernel`` (a graph kernel by name: the caller fits on its pool kernel), ``sigma``,
    ``degree``, ``class_weight``, ``offset`` and its prior's ``offset_precision`` (see
    :func:`labeled_rls`); ``classes``: the
    project's, for an engine not started (default: the engine's, else ``present``)."""
    params = engine.get_params()
    weight = class_weight_of(engine)
    if isinstance(weight, dict):  # weights of classes not labeled yet play no part
        weight = {c: w for c, w in weight.items() if c in present}
    return {
        "kernel": params.get("kernel", "rbf"),
        "sigma": params.get("sigma", 1.0),
        "degree": params.get("degree", 2),
        "class_weight": weight,
        "offset": _offset(engine, params, present, classes),
        "offset_precision": float(params.get("offset_precision", 0.0)),
    }


def _offset(engine: QueryStrategy, params: dict, present: set, classes=None) -> bool:
    """Whether the engine's model has an offset now: ``fit_intercept`` (focused ARLS), once
    every class has a label (as the engine fits it), so the labeled RLS is the model the
    session predicts with."""
    if not params.get("fit_intercept"):
        return False
    if classes is None:  # an engine not started: the labels' classes
        classes = getattr(engine, "classes_", None)
    return classes is None or len(present) == len(classes)


def loo_lam(
    engine: QueryStrategy,
    X: np.ndarray,
    labels: dict,
    K: np.ndarray | None = None,
    classes=None,
) -> float | None:
    """The λ chosen by the exact LOO classification error on the labeled points, or None
    (``classes``: the project's, for an engine not started, as :func:`labeled_rls`)."""
    clf = labeled_rls(engine, X, labels, "auto", K, classes)
    return None if clf is None else float(clf.lam_)


def loo_errors(
    engine: QueryStrategy, X: np.ndarray, labels: dict, lam: float, K: np.ndarray | None = None
) -> dict:
    """``loo_error`` and ``loo_balanced_error`` of the labeled RLS at ``lam`` (None values
    when :func:`labeled_rls` cannot fit)."""
    clf = labeled_rls(engine, X, labels, lam, K)
    if clf is None:
        return {"loo_error": None, "loo_balanced_error": None}
    error, balanced = validation_errors(clf.y_fit_, loo_labels(clf))
    return {"loo_error": error, "loo_balanced_error": balanced}


def judges_a_stand_in(engine: QueryStrategy) -> bool:
    """Whether the labeled RLS that the accuracy figures judge stands in for ``engine``'s own
    model (a kernel logistic regression, label propagation) rather than being it (the RLS
    strategies): the pool plot then shows predictions the figures do not judge."""
    return not isinstance(engine, WeightedRLSStrategy)


def loo_labels(clf: RLSClassifier) -> np.ndarray:
    """Class predicted for each training point by its leave-one-out classifier."""
    f = np.asarray(clf.loo_decision_)
    classes = np.asarray(clf.classes_)
    if f.ndim == 1:
        return classes[(f > 0).astype(int)]
    return classes[np.argmax(f, axis=1)]


__all__ = [
    "MIN_LABELS",
    "judges_a_stand_in",
    "labeled_rls",
    "labeled_rls_params",
    "loo_errors",
    "loo_labels",
    "loo_lam",
]
