"""How accurate the labels so far make the model, with an interval.

:func:`accuracy_estimate` reads a run's recorded curves
(:class:`~rlscore.sessions.stopping.curves.StopCurves`). Why two accuracies: the LOO on
actively chosen labels is tight but biased (the strategy picked hard points, so it is
usually pessimistic; a narrow focus can make it optimistic), the audit accuracy (random
checks: :func:`audit_due`, :func:`audit_draw`) is unbiased for the pool but wide
(docs/mathematics.md §"Knowing when to stop").
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from rlscore.core.conventions.json_values import class_keys
from rlscore.core.evaluation.accuracy_interval import accuracy_interval
from rlscore.core.evaluation.pool_accuracy import PoolAccuracy, pool_accuracy
from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.query import STRATEGIES, make_strategy
from rlscore.sessions.state.loo_refit import labeled_rls, loo_labels
from rlscore.sessions.stopping.curves import StopCurves

#: default share of audit queries: every k-th query is drawn uniformly at random (0: none)
AUDIT_EVERY = 10
#: labels from which the calibrated expected error rate is shown: its benchmark measured it
#: from 40 labels on (docs/benchmarks/trust.md, "The calibrated risk"); with a few labels
#: Platt's fit on as many leave-one-out values says little (a tester saw 61 % after 3 labels
#: on a task the model then got 94 % right)
RISK_MIN_LABELS = 40


def audit_due(query_number: int, every: int) -> bool:
    """Whether query ``query_number`` (1, 2, …) is an audit query: every ``every``-th one
    (``every`` 0: never)."""
    return every > 0 and query_number > 0 and query_number % every == 0


def audit_draw(unlabeled: Sequence[int] | np.ndarray, rng: np.random.Generator) -> int:
    """One point drawn uniformly at random from ``unlabeled`` (the audit query)."""
    unlabeled = np.asarray(unlabeled, dtype=np.intp)
    if unlabeled.size == 0:
        raise ValueError("no unlabeled point is left to audit")
    return int(unlabeled[rng.integers(unlabeled.size)])


@dataclass(frozen=True)
class AccuracyEstimate:
    """The estimates after a recorded step (accuracies in [0, 1]; None: not known).

    ``headline``: the model's accuracy over the pool with its 95 % interval, from the random
    checks among the labels and the calibrated model
    (:func:`~rlscore.core.evaluation.pool_accuracy.pool_accuracy`; None before the first
    check): the figure shown to a user. ``expected_error_rate``: the calibrated chance of a
    wrong prediction averaged over the unlabeled pool. The rest is what it is built from or
    checked against: ``loo``, the LOO accuracy on all labels, with its interval (biased: the
    labels were chosen); ``audit``, the accuracy on the random checks, each predicted before
    it was labeled (unbiased, but over the models of the run so far, so it lags);
    ``truth``, agreement with the truth column on the unlabeled points.
    """

    n_labels: int
    loo: float | None
    loo_interval: tuple[float, float] | None
    audit: float | None
    audit_n: int
    audit_interval: tuple[float, float] | None
    truth: float | None
    level: float
    headline: PoolAccuracy | None = None
    expected_error_rate: float | None = None

    def as_dict(self) -> dict:
        """Plain values, for an export or a JSON report."""
        h = self.headline
        return {
            "n_labels": self.n_labels,
            "accuracy_estimate": None if h is None else h.estimate,
            "accuracy_interval": None if h is None else [h.low, h.high],
            "accuracy_checks": 0 if h is None else h.n_checks,
            "expected_error_rate": self.expected_error_rate,
            "loo_accuracy": self.loo,
            "loo_interval": None if self.loo_interval is None else list(self.loo_interval),
            "audit_accuracy": self.audit,
            "audit_labels": self.audit_n,
            "audit_interval": None if self.audit_interval is None else list(self.audit_interval),
            "truth_accuracy": self.truth,
            "level": self.level,
        }


def accuracy_estimate(
    curves: StopCurves, step: int | None = None, *, level: float = 0.95, method: str = "wilson"
) -> AccuracyEstimate:
    """The estimates at ``step`` (default the last one) from the recorded ``curves``
    (``level`` and ``method``: the LOO and audit intervals'; the headline's is 95 %)."""
    if len(curves) == 0:
        raise ValueError("nothing recorded yet: no estimate")
    t = len(curves) - 1 if step is None else int(step)
    k, n = curves.loo_correct[t], curves.n_labels[t]
    audits = [a for a in curves.audit_correct[: t + 1] if a is not None]
    a_k = int(sum(audits))
    return AccuracyEstimate(
        n_labels=n,
        loo=None if k is None else k / n,
        loo_interval=None if k is None else accuracy_interval(k, n, level, method),
        audit=a_k / len(audits) if audits else None,
        audit_n=len(audits),
        audit_interval=accuracy_interval(a_k, len(audits), level, method) if audits else None,
        truth=curves.truth_accuracy[t],
        level=level,
        headline=curves.accuracy[t],
        expected_error_rate=curves.expected_error_rate[t],
    )


#: the columns an export adds with ``estimate=True`` (:func:`export_estimate`)
ESTIMATE_COLUMNS = (
    "accuracy_estimate",
    "accuracy_low",
    "accuracy_high",
    "accuracy_checks",
    "accuracy_labels",
)


def export_estimate(
    X: np.ndarray,
    labels: dict,
    params: dict,
    checks: Collection = (),
    level: float = 0.95,
    classes: Sequence | None = None,
) -> dict:
    """The Label page's headline at export time, from the labels, the random checks among
    them (``checks``: their keys in ``labels``) and the learner settings (``params``:
    ``strategy``, ``kernel``, ``sigma``, ``lam``, and ``class_weight`` where the project sets
    one; the page's, :func:`~rlscore.sessions.actions.session_params.headline_settings`):
    the exact LOO accuracy of the checks and its exact (Clopper–Pearson) interval
    (:func:`~rlscore.core.evaluation.pool_accuracy.pool_accuracy`), under
    :data:`ESTIMATE_COLUMNS` (None values when it cannot be made: no check, too few labels
    or classes, a graph kernel, unknown settings). ``classes``: the project's, as the session's
    started engine has them (with an offset, its model fits one only once every class has a
    label: :func:`~rlscore.sessions.state.loo_refit.labeled_rls`)."""
    out = dict.fromkeys(ESTIMATE_COLUMNS)
    out["accuracy_labels"], out["accuracy_checks"] = len(labels), 0
    name, lam = params.get("strategy"), params.get("lam")
    if name not in STRATEGIES or not isinstance(lam, int | float):
        return out
    given = {k: params[k] for k in ("kernel", "sigma") if params.get(k) is not None}
    # written with a label only when the project sets weights (else the strategy's default,
    # as the session's engine)
    if params.get("class_weight") is not None:
        given["class_weight"] = _stored_class_weight(params["class_weight"], labels.values())
    engine = make_strategy(name, **given, lam=float(lam))
    if is_graph_kernel(engine.get_params().get("kernel", "rbf")):
        return out
    clf = labeled_rls(engine, X, labels, float(lam), classes=classes)
    if clf is None:
        return out
    is_check = np.isin(np.asarray(list(labels)), np.asarray(list(checks)))
    headline = pool_accuracy(loo_labels(clf) == clf.y_fit_, is_check, level=level)
    if headline is not None:
        out.update(
            accuracy_estimate=headline.estimate,
            accuracy_low=headline.low,
            accuracy_high=headline.high,
            accuracy_checks=headline.n_checks,
        )
    return out


def _stored_class_weight(weight, labels: Iterable):
    """A ``class_weight`` as a label event stores it, for the classes of ``labels``: a dict's
    keys come back from JSON as the classes' ``str()``, so they are matched to the labels'
    values by :func:`~rlscore.core.conventions.json_values.class_keys`; weights of classes with no
    label play no part (as in the session's labeled RLS)."""
    if not isinstance(weight, dict):
        return weight
    return class_keys(weight, list(set(labels)))[0]


__all__ = [
    "AUDIT_EVERY",
    "ESTIMATE_COLUMNS",
    "RISK_MIN_LABELS",
    "AccuracyEstimate",
    "accuracy_estimate",
    "audit_draw",
    "audit_due",
    "export_estimate",
]
