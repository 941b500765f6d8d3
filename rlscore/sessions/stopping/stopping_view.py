"""What the Label page's stopping panel shows: the accuracy estimate along the labels, the
strategy's risk beside it, and the stop rule's verdict
(:mod:`~rlscore.sessions.stopping.accuracy_estimate`).

The curves are recorded along the session's label order, one entry per number of labels (as
the session's histories are): entry ``n`` is the labeled RLS of the first ``n`` labels. They
are kept per session and extended label by label; an undo or a relabel recomputes from the
first label that changed, so the cost of a label is one RLS fit on the labels so far.

A label marked as a random check in the log (``params["audit"]``, given to a point the
hand-out drew uniformly at random: :mod:`rlscore.sessions.team.handout`) also records whether the
model of the labels before it predicted its label: the audit accuracy, unbiased for the
pool (:func:`~rlscore.sessions.stopping.accuracy_estimate.accuracy_estimate`).

A long history recorded at once (a reload after hundreds of labels) is fitted on a sparse
grid of label counts (at most :data:`MAX_REBUILD_FITS` fits) except its last
:data:`DENSE_TAIL` counts, which the rules read: a stop that happened in the sparse part is
then reported where the rule holds again, later than it first did.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.sessions.state.loo_refit import labeled_rls
from rlscore.sessions.stopping.accuracy_estimate import (
    AccuracyEstimate,
    accuracy_estimate,
)
from rlscore.sessions.stopping.curves import (
    LearnerState,
    StopCurves,
    learner_state,
    stop_set,
)
from rlscore.sessions.stopping.set_stop import set_stop_fired
from rlscore.sessions.stopping.stop_rule import (
    DEFAULT_STOP_RULE,
    STOP_RULE_PARAMS,
    StopDecision,
    stop_decision,
)
from rlscore.sessions.views.session_view import SessionView

#: the most RLS fits one rebuild of the curves makes before its dense tail
MAX_REBUILD_FITS = 100
#: the last label counts always fitted: every comparison the rules make at the last step
DENSE_TAIL = 4 * max(p.get("lag", 1) for p in STOP_RULE_PARAMS.values()) + 1


@dataclass(frozen=True)
class StoppingView:
    """The panel's state at ``n_labels`` labels (``seen``: the log version it reflects).

    ``labels``, ``accuracy``, ``accuracy_low``, ``accuracy_high`` (the headline estimate and its
    95 % interval), ``expected_error_rate``, ``loo``, ``loo_low``, ``loo_high``, ``truth`` and
    ``risk`` are curves over the number of labels (NaN where not defined); ``estimate`` and
    ``decision`` are at the last.
    ``reason`` says why there is no estimate (None when there is one).
    """

    seen: int
    n_labels: int
    labels: np.ndarray
    loo: np.ndarray
    loo_low: np.ndarray
    loo_high: np.ndarray
    truth: np.ndarray
    risk: np.ndarray
    accuracy: np.ndarray
    accuracy_low: np.ndarray
    accuracy_high: np.ndarray
    expected_error_rate: np.ndarray
    estimate: AccuracyEstimate | None
    decision: StopDecision | None
    rule: str
    reason: str | None


class _Tracker:
    """The recorded curves of one session, and the label prefix each entry was fitted on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.setting: tuple | None = None
        self.prefix: list[tuple[int, object]] = []
        self.curves = StopCurves()
        self.last_fit: tuple[int, object] | None = None  # (labels, model) fitted last


_TRACKERS: weakref.WeakKeyDictionary[SessionView, _Tracker] = weakref.WeakKeyDictionary()
_TRACKERS_LOCK = threading.Lock()


def _tracker(session: SessionView) -> _Tracker:
    with _TRACKERS_LOCK:
        tracker = _TRACKERS.get(session)
        if tracker is None:
            tracker = _TRACKERS[session] = _Tracker()
        return tracker


def stopping_view(session: SessionView, rule: str = DEFAULT_STOP_RULE) -> StoppingView:
    """The stopping panel's state of ``session`` now (call it under the session's lock, as
    the UI does with its other views).

    Raises
    ------
    ValueError
        For a multi-label project: its stop advice reads the predicted sets
        (:func:`~rlscore.sessions.stopping.set_stop.set_stop_curves`, docs/multilabel.md §6).
    """
    if session.project.multi_label:
        raise ValueError(
            "this panel is single-label: a multi-label project's stop advice is the "
            "set-agreement rule's (rlscore.sessions.stopping.set_stop, docs/multilabel.md §6)"
        )
    project = session.project
    labels = session.labels
    order = list(labels.items())
    risk_history = session.risk_history
    truth_history = session.validation_history
    seen = session.last_event_id
    engine = session.engine
    # a graph kernel exists on the pool only: every fit is on its labeled block
    K = session.pool_kernel_ if is_graph_kernel(engine.get_params().get("kernel")) else None
    tracker = _tracker(session)
    with tracker.lock:
        setting = (repr(sorted(engine.get_params().items())), float(session.lam_))
        if setting != tracker.setting:  # another learner: every entry is refitted
            tracker.setting, tracker.prefix, tracker.curves = setting, [], StopCurves()
            tracker.last_fit = None
        same = 0
        while same < min(len(order), len(tracker.prefix)) and _equal(
            order[same], tracker.prefix[same]
        ):
            same += 1
        keep = min(same + 1, len(tracker.curves))  # entry n needs the first n labels
        tracker.curves.truncate(keep)
        del tracker.prefix[same:]
        if tracker.last_fit is not None and tracker.last_fit[0] > same:
            tracker.last_fit = None  # fitted on labels since undone or changed
        tracker.prefix.extend(order[same:])
        stop = stop_set(project.n)
        classes = list(project.classes)
        label_events = session._state.log.label_events
        checks = session._state.log.checks
        start, end = len(tracker.curves), len(order) + 1
        dense_from = max(start, end - DENSE_TAIL)
        stride = max(1, -(-(dense_from - start) // MAX_REBUILD_FITS))
        for n in range(start, end):
            prefix = dict(order[:n])
            if n < dense_from and (n - start) % stride:
                state = LearnerState(None, n, None, None)  # off the sparse grid: not fitted
            else:
                state = learner_state(
                    engine, project.X, prefix, session.lam_, classes, stop, K, checks
                )
            audit_correct = None
            if n and label_events[order[n - 1][0]].params.get("audit"):
                before = _model_before(tracker, engine, project.X, K, order, n, session.lam_)
                audit_correct = _predicted_right(before, project.X, K, order, n)
            if state.model is not None:
                tracker.last_fit = (n, state.model)
            truth = truth_history[n] if n < len(truth_history) else None
            tracker.curves.append(
                state,
                risk=risk_history[n] if n < len(risk_history) else None,
                classes_seen=len(set(prefix.values())),
                audit_correct=audit_correct,
                truth_accuracy=None if truth is None else 1.0 - truth,
            )
        return _view(tracker.curves, seen, len(order), len(classes), rule)


def stop_rule_fired(session: SessionView, rule: str = DEFAULT_STOP_RULE) -> bool:
    """Whether ``rule`` has fired on ``session``'s labels (the budget "until the stop rule
    fires" is reached); the same curves as :func:`stopping_view`, kept between the calls.

    For a multi-label project ``rule`` is not read: its rule is ``set-agreement``
    (:func:`~rlscore.sessions.stopping.set_stop.set_stop_fired`)."""
    if session.project.multi_label:
        return set_stop_fired(session)
    decision = stopping_view(session, rule).decision
    return decision is not None and decision.stop


def _view(curves: StopCurves, seen: int, n_labels: int, n_classes: int, rule: str):
    """The :class:`StoppingView` of the recorded ``curves``."""
    loo = curves.loo_accuracy()
    low, high = np.full(loo.shape, np.nan), np.full(loo.shape, np.nan)
    for t in range(len(curves)):
        interval = accuracy_estimate(curves, t).loo_interval
        if interval is not None:
            low[t], high[t] = interval
    headline = np.full((3, len(curves)), np.nan)  # estimate, low, high
    for t, a in enumerate(curves.accuracy):
        if a is not None:
            headline[:, t] = a.estimate, a.low, a.high
    return StoppingView(
        accuracy=headline[0],
        accuracy_low=headline[1],
        accuracy_high=headline[2],
        expected_error_rate=_floats(curves.expected_error_rate),
        seen=seen,
        n_labels=n_labels,
        labels=np.asarray(curves.n_labels),
        loo=loo,
        loo_low=low,
        loo_high=high,
        truth=_floats(curves.truth_accuracy),
        risk=_floats(curves.risk),
        estimate=accuracy_estimate(curves),
        decision=stop_decision(curves, n_classes, rule),
        rule=rule,
        reason=None if not np.isnan(loo[-1]) else "label a few points of two classes first",
    )


def _model_before(
    tracker: _Tracker, engine, X: np.ndarray, K: np.ndarray | None, order: list, n: int, lam: float
):
    """The labeled RLS of the first ``n − 1`` labels (the last fit when it is that one); None
    with too few labels or classes."""
    if tracker.last_fit is not None and tracker.last_fit[0] == n - 1:
        return tracker.last_fit[1]
    return labeled_rls(engine, X, dict(order[: n - 1]), lam, K)


def _predicted_right(
    model, X: np.ndarray, K: np.ndarray | None, order: list, n: int
) -> bool | None:
    """Whether ``model`` (fitted on the first ``n − 1`` labels of ``order``) predicts the
    label ``n`` as it was before that label; None without a model (fewer than two classes
    labeled before it)."""
    if model is None:
        return None
    point, label = order[n - 1]
    if K is None:
        row = X[[point]]
    else:  # a kernel on the pool: the point's kernel values with the points fitted on
        row = K[np.ix_([point], [i for i, _ in order[: n - 1]])]
    return bool(model.predict(row)[0] == label)


def _equal(a: tuple[int, object], b: tuple[int, object]) -> bool:
    return a[0] == b[0] and a[1] == b[1]


def _floats(values) -> np.ndarray:
    return np.asarray([np.nan if v is None else float(v) for v in values], dtype=np.float64)


__all__ = ["StoppingView", "stop_rule_fired", "stopping_view"]
