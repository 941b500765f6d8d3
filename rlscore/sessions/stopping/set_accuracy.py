"""The accuracy headline of a multi-label project: the micro-F1 of its predicted sets over the
pool, estimated from the random checks (docs/multilabel.md §5).

Each random check — a label drawn uniformly from the unlabeled pool (``audit_every``, focused
ARLS's exploration share) — is predicted by the model fitted on all the other labels: the
exact leave-one-out sets of :class:`~rlscore.core.rls.multilabel.MultiLabelRLS` at the
session's kernel and λ (the RLS without offset that the multi-label strategies hold, so the
leave-one-out model is the session's own without that label; with balanced class weights per
label, their weights recounted without it, as a refit would).
:func:`~rlscore.core.evaluation.set_accuracy.micro_f1_estimate` turns the checks into the
estimate and its interval. The stop advice of a multi-label project is
:mod:`rlscore.sessions.stopping.set_stop`'s (docs/multilabel.md §6).
"""

from __future__ import annotations

import numpy as np

from rlscore.core.conventions.label_sets import multi_hot
from rlscore.core.evaluation.set_accuracy import MIN_CHECKS, micro_f1_estimate
from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.data.projects.project import Project
from rlscore.query import MULTILABEL_STRATEGIES, QueryStrategy, make_strategy


def check_sets(
    project: Project,
    engine: QueryStrategy,
    labels: dict,
    checks,
    lam: float,
    K: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The random checks' true sets and the sets the model without each check predicts: what
    :func:`~rlscore.core.evaluation.set_accuracy.micro_f1_estimate` turns into the headline.

    Parameters
    ----------
    project
        The multi-label project (its pool and classes).
    engine
        The session's strategy (kernel, σ, degree).
    labels
        Point -> label set, the session's final labels.
    checks
        Points labeled as random checks (those among ``labels`` count).
    lam
        The λ in effect.
    K
        The pool kernel; needed for a graph kernel, which exists on the pool only.

    Returns
    -------
    (true, held) or None
        Two (checks × classes) boolean matrices, rows in the order of ``labels``; None with
        fewer than :data:`~rlscore.core.evaluation.set_accuracy.MIN_CHECKS` checks or fewer
        than 2 labels, or a graph kernel without ``K``.
    """
    idx = list(labels)
    rows = [k for k, i in enumerate(idx) if i in checks]
    if len(rows) < MIN_CHECKS or len(idx) < 2:
        return None
    every = labeled_sets(project, engine, labels, lam, K)
    return None if every is None else (every[0][rows], every[1][rows])


#: the columns of a multi-label project's headline in its exports (:func:`export_set_estimate`)
SET_ESTIMATE_COLUMNS = (
    "micro_f1_estimate",
    "micro_f1_low",
    "micro_f1_high",
    "micro_f1_checks",
    "micro_f1_labels",
)


def export_set_estimate(project: Project, labels: dict, params: dict, checks) -> dict:
    """A multi-label project's headline at export time, as its Label page shows it: the
    micro-F1 of the random checks' leave-one-out sets and its interval (:func:`check_sets`),
    fitted with the learner settings ``params`` (``strategy``, ``kernel``, ``sigma``,
    ``degree``, ``lam``, ``class_weight``: the page's,
    :func:`~rlscore.sessions.actions.session_params.headline_settings`), under
    :data:`SET_ESTIMATE_COLUMNS` (None values when it cannot be made: too few checks, unknown
    settings, a graph kernel, which exists on the pool only)."""
    out = dict.fromkeys(SET_ESTIMATE_COLUMNS)
    out["micro_f1_labels"], out["micro_f1_checks"] = len(labels), 0
    name, lam = params.get("strategy"), params.get("lam")
    if name not in MULTILABEL_STRATEGIES or not isinstance(lam, int | float):
        return out
    given = {k: params[k] for k in ("kernel", "sigma", "degree", "class_weight") if k in params}
    engine = make_strategy(name, multi_label=True, **given, lam=float(lam))
    sets = check_sets(project, engine, labels, checks, float(lam))
    estimate = None if sets is None else micro_f1_estimate(*sets)
    if estimate is not None:
        out.update(
            micro_f1_estimate=estimate.estimate,
            micro_f1_low=estimate.low,
            micro_f1_high=estimate.high,
            micro_f1_checks=estimate.n_checks,
        )
    return out


def labeled_sets(
    project: Project,
    engine: QueryStrategy,
    labels: dict,
    lam: float,
    K: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Every labeled point's true sets and the sets the model without it predicts, for
    :func:`~rlscore.core.evaluation.set_accuracy.pool_micro_f1_estimate`.

    The exact leave-one-out sets of one fit (balanced class weights recounted without each
    label: :class:`~rlscore.core.rls.multilabel.MultiLabelRLS`).

    Parameters are :func:`check_sets`'; returns two (labels × classes) boolean matrices, rows
    in the order of ``labels``, or None with fewer than 2 labels or a graph kernel without
    ``K``.
    """
    idx = list(labels)
    if len(idx) < 2:
        return None
    fit = model_inputs(project, engine, idx, lam, K)
    if fit is None:
        return None
    model, X, _ = fit
    sets = [labels[i] for i in idx]
    model.fit(X, sets, classes=project.classes)
    return multi_hot(sets, project.classes) > 0.5, model.loo_decision_ > 0


def model_inputs(project: Project, engine: QueryStrategy, idx: list, lam: float, K):
    """The session's multi-label RLS (unfitted), the labeled rows it fits and their kernel
    name; None for a graph kernel without the pool kernel ``K``."""
    # imported here: it brings scikit-learn, which the Label page's first run goes without
    # (tests/test_lazy_imports.py)
    from rlscore.core.rls.multilabel import MultiLabelRLS

    params = engine.get_params()
    kernel = params.get("kernel", "rbf")
    if is_graph_kernel(kernel):
        if K is None:
            return None
        X, kernel = K[np.ix_(idx, idx)], "precomputed"
    else:
        X = project.X[np.asarray(idx, dtype=np.intp)]
    model = MultiLabelRLS(
        kernel,
        sigma=params.get("sigma", 1.0),
        degree=params.get("degree", 2),
        lam=float(lam),
        class_weight=params.get("class_weight"),
    )
    return model, X, kernel


__all__ = [
    "SET_ESTIMATE_COLUMNS",
    "check_sets",
    "export_set_estimate",
    "labeled_sets",
    "model_inputs",
]
