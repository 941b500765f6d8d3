"""How accurate the labels so far make the model, with an interval, and whether to stop.

The *learner* judged here is the RLS on the labeled points with the session's kernel, σ, λ
and class weights (:func:`rlscore.sessions.state.loo_refit.labeled_rls`, the same fit as the Label
page's leave-one-out error). After every label a run records, in :class:`StopCurves`:

* its exact leave-one-out (LOO) predictions on the labels: ``loo_correct`` of ``loo_n``;
* its predictions and mean soft confidence on a fixed **stop set** (:func:`stop_set`: a
  seeded uniform sample of the pool), for the stopping rules of
  :mod:`rlscore.core.evaluation.stopping_rules`;
* the strategy's estimated risk;
* for an **audit** label (a query drawn uniformly at random from the unlabeled pool,
  :func:`audit_due`, :func:`audit_draw`): whether the model's prediction for the point,
  made *before* its label was known, was right;
* the agreement with the truth on the unlabeled points, when a truth column exists.

:func:`accuracy_estimate` turns them into the estimate shown to a user, and
:func:`stop_decision` into "you can stop" or "keep going". Why two accuracies: the LOO on
actively chosen labels is tight but biased (the strategy picked hard points, so it is
usually pessimistic; a narrow focus can make it optimistic), the audit accuracy is unbiased
for the pool but wide (docs/mathematics.md §"Knowing when to stop").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from rlscore.core.evaluation.accuracy_interval import accuracy_interval
from rlscore.core.evaluation.stopping_rules import (
    cohen_kappa,
    confidence_drop,
    plateau,
    stabilizing_predictions,
    steps_to_confidence_drop,
    steps_to_stabilize,
)
from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.core.rls.confidence import predicted_index, soft_confidence
from rlscore.query import STRATEGIES, QueryStrategy, make_strategy
from rlscore.sessions.state.loo_refit import labeled_rls, loo_labels

#: the rule a session and ``simulate`` use unless told otherwise: the winner of the
#: pre-registered comparison of confidence-drop, stabilizing and loo-plateau on the text tasks
#: (benchmarks/stopping_rules_text.py, 10 seeds; docs/benchmarks/stopping.md "When to stop"),
#: after confidence-drop, the first pick, stopped ringnorm 20-27 points short
DEFAULT_STOP_RULE = "stabilizing"
#: the rules' parameters (docs/mathematics.md §"Knowing when to stop": the papers' values,
#: with successive models ``lag`` labels apart since rlscore adds one label at a time)
STOP_RULE_PARAMS: dict[str, dict] = {
    "stabilizing": {"lag": 10, "window": 3, "threshold": 0.99},
    "confidence-drop": {"lag": 10, "patience": 3},
    "risk-plateau": {"window": 20, "epsilon": 0.05, "relative": True},
    "loo-plateau": {"window": 20, "epsilon": 0.02, "relative": False},
}
#: no rule fires with fewer labels than this (nor before every class has one)
MIN_STOP_LABELS = 10
#: the stop set: at most this many pool points (Bloodgood & Vijay-Shanker used 2000)
STOP_SET_SIZE = 1000
#: default share of audit queries: every k-th query is drawn uniformly at random (0: none)
AUDIT_EVERY = 10


def stop_set(n: int, size: int = STOP_SET_SIZE, seed: int = 0) -> np.ndarray:
    """Sorted indices of the stop set: ``min(n, size)`` pool points drawn uniformly without
    replacement with ``numpy.random.default_rng(seed)`` (fixed for a pool, so successive
    models are compared on the same points)."""
    if n <= size:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))


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


@dataclass
class LearnerState:
    """The labeled RLS after some labels: its LOO score and its view of the stop set."""

    loo_correct: int | None
    loo_n: int
    codes: np.ndarray | None  # predicted class positions on the stop set
    confidence: float | None  # mean soft confidence on the stop set
    model: object = None  # the fitted RLSClassifier (None: too few labels or classes)


def learner_state(
    engine: QueryStrategy,
    X: np.ndarray,
    labels: dict,
    lam: float | str,
    classes: Sequence,
    stop: np.ndarray,
    K: np.ndarray | None = None,
) -> LearnerState:
    """Fit the labeled RLS (:func:`rlscore.sessions.state.loo_refit.labeled_rls`) and read its exact
    LOO
    predictions and its predictions on the ``stop`` set (class positions in ``classes``)."""
    clf = labeled_rls(engine, X, labels, lam, K)
    if clf is None:
        return LearnerState(None, len(labels), None, None)
    correct = int(np.sum(loo_labels(clf) == clf.y_fit_))
    # a graph kernel exists on the pool only: the fit is on its labeled block (labeled_rls)
    on_pool = clf.kernel == "precomputed"
    F = clf.decision_function(K[np.ix_(stop, list(labels))] if on_pool else X[stop])
    position = {c: k for k, c in enumerate(classes)}
    predicted = clf.classes_[predicted_index(F)].tolist()
    codes = np.fromiter((position[v] for v in predicted), dtype=np.intp, count=len(predicted))
    return LearnerState(correct, len(labels), codes, float(np.mean(soft_confidence(F))), clf)


@dataclass
class StopCurves:
    """What a run records after each label for the estimate and the stopping rules (entry
    ``t``: after step ``t``; see the module's docstring)."""

    n_labels: list[int] = field(default_factory=list)
    loo_correct: list[int | None] = field(default_factory=list)
    codes: list[np.ndarray | None] = field(default_factory=list)
    confidence: list[float | None] = field(default_factory=list)
    risk: list[float | None] = field(default_factory=list)
    audit_correct: list[bool | None] = field(default_factory=list)  # None: not an audit
    truth_accuracy: list[float | None] = field(default_factory=list)
    classes_seen: list[int] = field(default_factory=list)
    # : κ between the stop-set predictions ``lag`` steps apart (the stabilizing rule's curve, : kept
    # as the steps come: :func:`~rlscore.core.evaluation.stopping_rules.kappa_curve` of ``codes``)
    kappa: list[float] = field(default_factory=list)

    def append(
        self,
        state: LearnerState,
        *,
        risk: float | None,
        classes_seen: int,
        audit_correct: bool | None = None,
        truth_accuracy: float | None = None,
    ) -> None:
        """Record the state after the next step."""
        self.n_labels.append(state.loo_n)
        self.loo_correct.append(state.loo_correct)
        self.codes.append(state.codes)
        self.confidence.append(state.confidence)
        self.risk.append(None if risk is None else float(risk))
        self.audit_correct.append(audit_correct)
        self.truth_accuracy.append(truth_accuracy)
        self.classes_seen.append(int(classes_seen))
        lag, t = STOP_RULE_PARAMS["stabilizing"]["lag"], len(self.codes) - 1
        before = self.codes[t - lag] if t >= lag else None
        self.kappa.append(
            np.nan if before is None or state.codes is None else cohen_kappa(before, state.codes)
        )

    def truncate(self, length: int) -> None:
        """Keep the first ``length`` entries (an undo walked back)."""
        for values in vars(self).values():
            del values[length:]

    def __len__(self) -> int:
        return len(self.n_labels)

    def loo_accuracy(self) -> np.ndarray:
        """LOO accuracy at each step (NaN without a fit)."""
        return np.asarray(
            [
                np.nan if k is None else k / n
                for k, n in zip(self.loo_correct, self.n_labels, strict=True)
            ],
            dtype=np.float64,
        )


def rule_curve(curves: StopCurves, rule: str) -> np.ndarray:
    """The curve ``rule`` reads (its ``lag`` from :data:`STOP_RULE_PARAMS`)."""
    if rule == "stabilizing":
        return np.asarray(curves.kappa, dtype=np.float64)
    if rule == "confidence-drop":
        return np.asarray([np.nan if c is None else c for c in curves.confidence], np.float64)
    if rule == "risk-plateau":
        return np.asarray([np.nan if r is None else r for r in curves.risk], np.float64)
    if rule == "loo-plateau":
        return 1.0 - curves.loo_accuracy()
    raise ValueError(f"stop rule {rule!r} is unknown: choose one of {list(STOP_RULE_PARAMS)}")


def first_stop(curves: StopCurves, rule: str, n_classes: int, from_step: int = 0) -> int | None:
    """The first step (from ``from_step`` on) at which ``rule`` fires on the recorded curves,
    never before :data:`MIN_STOP_LABELS` labels and a label of each of the ``n_classes``
    classes. A run that checks after each step passes its last step as ``from_step``."""
    ready = next(
        (
            t
            for t in range(from_step, len(curves))
            if curves.n_labels[t] >= MIN_STOP_LABELS and curves.classes_seen[t] >= n_classes
        ),
        None,
    )
    if ready is None:
        return None
    curve, params = rule_curve(curves, rule), STOP_RULE_PARAMS[rule]
    if rule == "stabilizing":
        return stabilizing_predictions(curve, min_step=ready, **params)
    if rule == "confidence-drop":
        return confidence_drop(curve, min_step=ready, **params)
    return plateau(curve, min_step=ready, **params)


@dataclass(frozen=True)
class AccuracyEstimate:
    """The estimate after the last recorded step (accuracies in [0, 1]; None: not known).

    ``loo``: the LOO accuracy on all labels, with its interval (biased: the labels were
    chosen). ``audit``: the accuracy on the audit labels, each predicted before it was
    labeled, with its interval (unbiased for the pool, but over the models of the run so
    far, so it lags a learner that improves). ``truth``: agreement with the truth column on
    the unlabeled points.
    """

    n_labels: int
    loo: float | None
    loo_interval: tuple[float, float] | None
    audit: float | None
    audit_n: int
    audit_interval: tuple[float, float] | None
    truth: float | None
    level: float

    def as_dict(self) -> dict:
        """Plain values, for an export or a JSON report."""
        return {
            "n_labels": self.n_labels,
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
    """The estimate at ``step`` (default the last one) from the recorded ``curves``."""
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
    )


@dataclass(frozen=True)
class StopDecision:
    """Whether the rule has fired, where, and the evidence."""

    rule: str
    stop: bool
    fired_at_labels: int | None
    more_labels: int | None  # labels before the rule can fire (a lower bound), if known
    message: str
    evidence: dict


def stop_decision(
    curves: StopCurves, n_classes: int, rule: str = DEFAULT_STOP_RULE
) -> StopDecision:
    """ "You can stop" or "keep going" from ``rule`` on the recorded curves, in words."""
    fired = first_stop(curves, rule, n_classes)
    curve = rule_curve(curves, rule)
    params = STOP_RULE_PARAMS[rule]
    n = curves.n_labels[-1] if len(curves) else 0
    recent = [None if np.isnan(v) else float(v) for v in curve[-4 * params.get("lag", 5) :]]
    evidence = {"rule": rule, "params": dict(params), "recent": recent, "n_labels": n}
    more = None
    if fired is not None:
        at = curves.n_labels[fired]
        message = (
            f"you can stop: the {rule} rule fired at {at} labels; more labels are unlikely "
            "to change the model much"
        )
        return StopDecision(rule, True, at, 0, message, evidence)
    missing = n_classes - (curves.classes_seen[-1] if len(curves) else 0)
    if missing > 0:
        message = f"keep going: {missing} class(es) have no label yet"
    elif n < MIN_STOP_LABELS:
        more = MIN_STOP_LABELS - n
        message = f"keep going: no rule fires before {MIN_STOP_LABELS} labels"
    elif rule in ("stabilizing", "confidence-drop"):
        more = (steps_to_stabilize if rule == "stabilizing" else steps_to_confidence_drop)(
            curve, **params
        )
        more = (
            params["lag"] * params.get("window", params.get("patience"))
            if more is None
            else max(more, 1)
        )
        message = f"keep going: about {more} more labels expected to help"
    else:
        message = "keep going: the rule has not fired yet"
    return StopDecision(rule, False, None, more, message, evidence)


#: the columns an export adds with ``estimate=True`` (:func:`export_estimate`)
ESTIMATE_COLUMNS = ("accuracy_estimate", "accuracy_low", "accuracy_high", "accuracy_labels")


def export_estimate(X: np.ndarray, labels: dict, params: dict, level: float = 0.95) -> dict:
    """The accuracy estimate at export time, from the labels and the settings in effect
    (``params``: the newest label's ``strategy``, ``kernel``, ``sigma`` and ``lam``; the
    strategy's own default class weights): the exact LOO accuracy of the labeled RLS and its
    Wilson interval, under :data:`ESTIMATE_COLUMNS` (None values when it cannot be made: too
    few labels or classes, a graph kernel, unknown settings)."""
    out = dict.fromkeys(ESTIMATE_COLUMNS)
    out["accuracy_labels"] = len(labels)
    name, lam = params.get("strategy"), params.get("lam")
    if name not in STRATEGIES or not isinstance(lam, int | float):
        return out
    given = {k: params[k] for k in ("kernel", "sigma") if params.get(k) is not None}
    engine = make_strategy(name, **given, lam=float(lam))
    if is_graph_kernel(engine.get_params().get("kernel", "rbf")):
        return out
    clf = labeled_rls(engine, X, labels, float(lam))
    if clf is None:
        return out
    k = int(np.sum(loo_labels(clf) == clf.y_fit_))
    low, high = accuracy_interval(k, len(labels), level)
    out.update(accuracy_estimate=k / len(labels), accuracy_low=low, accuracy_high=high)
    return out


__all__ = [
    "AUDIT_EVERY",
    "ESTIMATE_COLUMNS",
    "DEFAULT_STOP_RULE",
    "MIN_STOP_LABELS",
    "STOP_RULE_PARAMS",
    "STOP_SET_SIZE",
    "AccuracyEstimate",
    "LearnerState",
    "StopCurves",
    "StopDecision",
    "accuracy_estimate",
    "audit_draw",
    "export_estimate",
    "audit_due",
    "first_stop",
    "learner_state",
    "rule_curve",
    "stop_decision",
    "stop_set",
]
