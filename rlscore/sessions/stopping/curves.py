"""What a run records after each label for the accuracy estimate and the stopping rules.

The *learner* judged here is the RLS on the labeled points with the session's kernel, σ, λ
and class weights (:func:`rlscore.sessions.state.loo_refit.labeled_rls`, the same fit as the Label
page's leave-one-out error). After every label a run records, in :class:`StopCurves`:

* its exact leave-one-out (LOO) predictions on the labels: ``loo_correct`` of ``loo_n``;
* its predictions and mean soft confidence on a fixed **stop set** (:func:`stop_set`: a
  seeded uniform sample of the pool), for the stopping rules
  (:mod:`rlscore.sessions.stopping.stop_rule`);
* the strategy's estimated risk;
* for an **audit** label (a query drawn uniformly at random from the unlabeled pool): whether
  the model's prediction for the point, made *before* its label was known, was right;
* the agreement with the truth on the unlabeled points, when a truth column exists.

:mod:`rlscore.sessions.stopping.accuracy_estimate` turns them into the estimate shown to a
user, :mod:`rlscore.sessions.stopping.stop_rule` into "you can stop" or "keep going".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from rlscore.core.evaluation.calibration import fit_platt
from rlscore.core.evaluation.pool_accuracy import PoolAccuracy, pool_accuracy
from rlscore.core.evaluation.stopping_rules import cohen_kappa
from rlscore.core.rls.confidence import margin, predicted_index, soft_confidence
from rlscore.query import QueryStrategy
from rlscore.sessions.state.loo_refit import labeled_rls, loo_labels

#: labels between the two models whose stop-set predictions κ compares (the stabilizing
#: rule's ``lag``: rlscore adds one label at a time, the papers compared models 10 apart)
KAPPA_LAG = 10
#: the same between models 20 labels apart (``kappa_long``: the ``settled`` rule's curve)
KAPPA_LONG_LAG = 20
#: the stop set: at most this many pool points (Bloodgood & Vijay-Shanker used 2000)
STOP_SET_SIZE = 1000


def stop_set(n: int, size: int = STOP_SET_SIZE, seed: int = 0) -> np.ndarray:
    """Sorted indices of the stop set: ``min(n, size)`` pool points drawn uniformly without
    replacement with ``numpy.random.default_rng(seed)`` (fixed for a pool, so successive
    models are compared on the same points)."""
    if n <= size:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))


@dataclass
class LearnerState:
    """The labeled RLS after some labels: its LOO score, its view of the stop set and the
    accuracy estimate of the pool (:func:`~rlscore.core.evaluation.pool_accuracy.pool_accuracy`;
    None without a random check among the labels)."""

    loo_correct: int | None
    loo_n: int
    codes: np.ndarray | None  # predicted class positions on the stop set
    confidence: float | None  # mean soft confidence on the stop set
    model: object = None  # the fitted RLSClassifier (None: too few labels or classes)
    accuracy: PoolAccuracy | None = None
    expected_error_rate: float | None = None  # calibrated, over the unlabeled pool


def learner_state(
    engine: QueryStrategy,
    X: np.ndarray,
    labels: dict,
    lam: float | str,
    classes: Sequence,
    stop: np.ndarray,
    K: np.ndarray | None = None,
    checks: Collection[int] = (),
) -> LearnerState:
    """Fit the labeled RLS (:func:`rlscore.sessions.state.loo_refit.labeled_rls`) and read its
    exact LOO predictions, its predictions on the ``stop`` set (class positions in
    ``classes``) and the accuracy estimate, ``checks`` being the labeled points that were
    random checks (drawn uniformly at random from the unlabeled pool)."""
    clf = labeled_rls(engine, X, labels, lam, K)
    if clf is None:
        return LearnerState(None, len(labels), None, None)
    right = loo_labels(clf) == clf.y_fit_
    # a graph kernel exists on the pool only: the fit is on its labeled block (labeled_rls)
    on_pool = clf.kernel == "precomputed"
    F = clf.decision_function(K[np.ix_(stop, list(labels))] if on_pool else X[stop])
    position = {c: k for k, c in enumerate(classes)}
    predicted = clf.classes_[predicted_index(F)].tolist()
    codes = np.fromiter((position[v] for v in predicted), dtype=np.intp, count=len(predicted))
    # the calibrated chance of a right prediction: Platt on the LOO margins
    loo_margin = margin(clf.loo_decision_)
    calibration = fit_platt(loo_margin, right)
    unlabeled = ~np.isin(stop, np.fromiter(labels, dtype=np.intp, count=len(labels)))
    q_unlabeled = calibration.probability(margin(F)[unlabeled])
    accuracy = pool_accuracy(
        right,
        np.isin(np.fromiter(labels, dtype=np.intp, count=len(labels)), list(checks)),
        unlabeled_prob=q_unlabeled,
    )
    expected = float(1.0 - q_unlabeled.mean()) if q_unlabeled.size else None
    confidence = float(np.mean(soft_confidence(F)))
    return LearnerState(int(right.sum()), len(labels), codes, confidence, clf, accuracy, expected)


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
    accuracy: list[PoolAccuracy | None] = field(default_factory=list)  # the headline's
    expected_error_rate: list[float | None] = field(default_factory=list)
    classes_seen: list[int] = field(default_factory=list)
    # : κ between the stop-set predictions ``lag`` steps apart (the stabilizing rule's curve, : kept
    # as the steps come: :func:`~rlscore.core.evaluation.stopping_rules.kappa_curve` of ``codes``)
    kappa: list[float] = field(default_factory=list)
    #: the same with :data:`KAPPA_LONG_LAG`
    kappa_long: list[float] = field(default_factory=list)

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
        self.accuracy.append(state.accuracy)
        self.expected_error_rate.append(state.expected_error_rate)
        self.classes_seen.append(int(classes_seen))
        t = len(self.codes) - 1
        for lag, kappa in ((KAPPA_LAG, self.kappa), (KAPPA_LONG_LAG, self.kappa_long)):
            before = self.codes[t - lag] if t >= lag else None
            kappa.append(
                np.nan
                if before is None or state.codes is None
                else cohen_kappa(before, state.codes)
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


__all__ = [
    "KAPPA_LAG",
    "KAPPA_LONG_LAG",
    "STOP_SET_SIZE",
    "LearnerState",
    "StopCurves",
    "learner_state",
    "stop_set",
]
