"""When to stop a multi-label project: the agreement of successive models' predicted sets
(docs/multilabel.md §6).

The rule, ``set-agreement``: the micro-F1 of the label sets that the model of 20 labels
before predicts on the stop set (:func:`~rlscore.sessions.stopping.curves.stop_set`), measured
against the sets the current model predicts there, is at least 0.98 on average over 4 such
comparisons 20 labels apart (Bloodgood & Vijay-Shanker's stabilizing predictions, with the
micro-F1 of sets for their κ of single labels). It never fires before
:data:`~rlscore.sessions.stopping.stop_rule.MIN_STOP_LABELS` labels nor before every class is
in some label set. It was chosen and tested as issue 33 item 4's fallback (the best rule,
none meeting that target): written before its runs, confirmed on fresh seeds of two groups
of multi-label tasks (docs/benchmarks/multilabel.md, "Stopping"), where it stopped within 1
point of the 300-label micro-F1 in 90–100 % of the runs but saved 0–7 % of the labels.

The model judged is the session's multi-label RLS on the labels so far (the one behind the
headline, :mod:`rlscore.sessions.stopping.set_accuracy`); its predicted sets are recorded
after every label, kept per session and extended label by label; an undo or a relabel
recomputes from the first label that changed. A long history recorded at once (a reload) is
fitted on a sparse grid of label counts except its last :data:`DENSE_TAIL`, as the
single-label curves are (:mod:`rlscore.sessions.stopping.stopping_view`).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

import numpy as np

from rlscore.core.conventions.counted_words import counted
from rlscore.core.evaluation.multilabel_metrics import micro_f1
from rlscore.core.evaluation.stopping_rules import stabilizing_predictions, steps_to_stabilize
from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.sessions.stopping.curves import stop_set
from rlscore.sessions.stopping.set_accuracy import model_inputs
from rlscore.sessions.stopping.stop_rule import MIN_STOP_LABELS, StopDecision, fired_decision
from rlscore.sessions.views.session_view import SessionView

#: the multi-label stop rule's name and parameters (the module docstring)
SET_STOP_RULE = "set-agreement"
SET_STOP_PARAMS = {"lag": 20, "window": 4, "threshold": 0.98}
#: what the rule checks, in words
SET_RULE_WORDS = (
    "Set agreement: the label sets that the model of {lag} labels before predicts on a fixed "
    "sample of the pool agree with the current model's sets with a micro-F1 averaging at "
    "least {threshold} over the last {window} such comparisons."
)
#: the most fits one rebuild of the curves makes before its dense tail
MAX_REBUILD_FITS = 100
#: the last label counts always fitted: every comparison the rule makes at the last step
DENSE_TAIL = SET_STOP_PARAMS["window"] * SET_STOP_PARAMS["lag"] + 1


def set_agreement(before: np.ndarray, now: np.ndarray) -> float:
    """The micro-F1 of the sets ``before`` measured against the sets ``now`` (two boolean
    points × classes matrices of memberships); 0 when neither holds any class."""
    return micro_f1(now, before)


@dataclass
class SetStopCurves:
    """What a multi-label run records after each label for its stop rule (entry ``t``: after
    step ``t``)."""

    n_labels: list[int] = field(default_factory=list)
    all_classes: list[bool] = field(default_factory=list)  # every class in some label set
    members: list[np.ndarray | None] = field(default_factory=list)  # None: not fitted
    agreement: list[float] = field(default_factory=list)  # with the entry ``lag`` before

    def append(self, n_labels: int, all_classes: bool, members: np.ndarray | None) -> None:
        """Record the state after the next step."""
        lag = SET_STOP_PARAMS["lag"]
        t = len(self.members)
        before = self.members[t - lag] if t >= lag else None
        self.n_labels.append(int(n_labels))
        self.all_classes.append(bool(all_classes))
        self.members.append(members)
        defined = before is not None and members is not None
        self.agreement.append(set_agreement(before, members) if defined else np.nan)

    def truncate(self, length: int) -> None:
        """Keep the first ``length`` entries (an undo walked back)."""
        for values in vars(self).values():
            del values[length:]

    def __len__(self) -> int:
        return len(self.n_labels)


def first_set_stop(curves: SetStopCurves) -> int | None:
    """The first step at which ``set-agreement`` fires on the recorded curves (None: not
    yet): never before :data:`MIN_STOP_LABELS` labels and every class in some label set."""
    ready = next(
        (
            t
            for t, (n, every) in enumerate(zip(curves.n_labels, curves.all_classes, strict=True))
            if n >= MIN_STOP_LABELS and every
        ),
        None,
    )
    if ready is None:
        return None
    return stabilizing_predictions(curves.agreement, min_step=ready, **SET_STOP_PARAMS)


def set_stop_decision(
    curves: SetStopCurves, n_classes: int, n_missing: int | None = None
) -> StopDecision:
    """ "You can stop" or "keep going" from ``set-agreement`` on the recorded curves, in words
    (a :class:`~rlscore.sessions.stopping.stop_rule.StopDecision`, as the single-label rules
    give); ``n_missing``: how many classes are in no label set yet
    (:func:`classes_in_no_set`), counted in the words when given."""
    rule, params = SET_STOP_RULE, SET_STOP_PARAMS
    n = curves.n_labels[-1] if len(curves) else 0
    recent = [None if np.isnan(v) else float(v) for v in curves.agreement[-4 * params["lag"] :]]
    evidence = {"rule": rule, "params": dict(params), "recent": recent, "n_labels": n}
    fired = first_set_stop(curves)
    if fired is not None:
        return fired_decision(rule, curves.n_labels[fired], "the predicted sets", evidence)
    if not (len(curves) and curves.all_classes[-1]):
        if n_missing:  # counted, as the single-label advice counts its unlabeled classes
            verb = "is" if n_missing == 1 else "are"
            message = (
                f"keep going: {counted(n_missing, 'class', 'classes')} {verb} in no label set yet"
            )
        else:
            message = "keep going: some class is in no label set yet"
        return StopDecision(rule, False, None, None, message, evidence)
    if n < MIN_STOP_LABELS:
        message = f"keep going: no rule fires before {MIN_STOP_LABELS} labels"
        return StopDecision(rule, False, None, MIN_STOP_LABELS - n, message, evidence)
    value = float(curves.agreement[-1])
    if np.isnan(value):
        now = f"no two models {params['lag']} labels apart to compare yet"
    else:
        now = (
            f"set agreement {value:.3f} between the models {params['lag']} labels apart; the "
            f"rule needs {params['threshold']} on average over {params['window']} such "
            "comparisons"
        )
    more = steps_to_stabilize(curves.agreement, **params)
    if more is None:
        message = f"keep going: the predicted sets still change ({now})"
        return StopDecision(rule, False, None, None, message, evidence)
    more = max(more, 1)  # it has not fired at this label
    message = (
        f"keep going: about {counted(more, 'more label')} if the predicted sets change as "
        f"little as they do now ({now})"
    )
    return StopDecision(rule, False, None, more, message, evidence)


def set_evidence_lines(decision: StopDecision) -> list[str]:
    """The evidence behind a ``set-agreement`` decision, one paragraph a line (as
    :func:`~rlscore.sessions.stopping.stop_rule.evidence_lines` for single labels)."""
    params = SET_STOP_PARAMS
    lines = [
        SET_RULE_WORDS.format(**params),
        f"It does not fire before {MIN_STOP_LABELS} labels, nor before every class is in some "
        "label set.",
        "In its benchmark (fresh runs of five multi-label tasks up to 300 labels) it stopped "
        "within 1 point of the micro-F1 of 300 labels in 90–100 % of the runs, saving 0–7 % "
        "of the labels: it is cautious, and says keep going while the sets still change.",
    ]
    picked = decision.evidence["recent"][::-1][:: params["lag"]][: params["window"]]
    if picked:
        last = ", ".join("–" if v is None else f"{v:.4f}" for v in picked)
        lines.append(
            f"Latest set agreement between models {params['lag']} labels apart (newest "
            f"first): {last}."
        )
    if decision.more_labels and decision.evidence["n_labels"] >= MIN_STOP_LABELS:
        lines.append(
            f"About {counted(decision.more_labels, 'more label')} before the rule fires, if the "
            "predicted sets keep changing as little as they do now (recomputed after every "
            "label)."
        )
    return lines


class _Tracker:
    """The recorded curves of one session, and the label prefix each entry was fitted on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.setting: tuple | None = None
        self.prefix: list[tuple[int, object]] = []
        self.curves = SetStopCurves()


_TRACKERS: weakref.WeakKeyDictionary[SessionView, _Tracker] = weakref.WeakKeyDictionary()
_TRACKERS_LOCK = threading.Lock()


def classes_in_no_set(session: SessionView) -> int:
    """How many of a multi-label ``session``'s classes no label set holds yet."""
    present = set().union(*session.labels.values()) if session.labels else set()
    return sum(c not in present for c in session.project.classes)


def set_stop_curves(session: SessionView) -> SetStopCurves:
    """The ``set-agreement`` curves of a multi-label ``session`` now, extended from the last
    call's (call it under the session's lock, as the UI does with its other views)."""
    with _TRACKERS_LOCK:
        tracker = _TRACKERS.setdefault(session, _Tracker())
    engine = session.engine
    order = list(session.labels.items())
    K = session.pool_kernel_ if is_graph_kernel(engine.get_params().get("kernel")) else None
    with tracker.lock:
        setting = (repr(sorted(engine.get_params().items())), float(session.lam_))
        if setting != tracker.setting:  # another learner: every entry is refitted
            tracker.setting, tracker.prefix, tracker.curves = setting, [], SetStopCurves()
        same = 0
        while same < min(len(order), len(tracker.prefix)) and order[same] == tracker.prefix[same]:
            same += 1
        keep = min(same + 1, len(tracker.curves))  # entry n needs the first n labels
        tracker.curves.truncate(keep)
        del tracker.prefix[same:]
        tracker.prefix.extend(order[same:])
        _extend(tracker.curves, session, order, K)
        return tracker.curves


def _extend(curves: SetStopCurves, session: SessionView, order: list, K) -> None:
    """Append the entries from ``len(curves)`` to ``len(order)`` (a long stretch on a sparse
    grid but for its dense tail)."""
    project = session.project
    stop = stop_set(project.n)
    start, end = len(curves), len(order) + 1
    dense_from = max(start, end - DENSE_TAIL)
    stride = max(1, -(-(dense_from - start) // MAX_REBUILD_FITS))
    seen: set = set()
    for _, label in order[: max(start - 1, 0)]:
        seen.update(label)
    for n in range(start, end):
        if n:
            seen.update(order[n - 1][1])
        fitted = n >= dense_from or (n - start) % stride == 0
        members = _members(session, dict(order[:n]), stop, K) if fitted else None
        curves.append(n, len(seen) == len(project.classes), members)


def _members(session: SessionView, labels: dict, stop: np.ndarray, K) -> np.ndarray | None:
    """The memberships the session's multi-label RLS on ``labels`` predicts on ``stop``
    (points × classes); None with fewer than 2 labels or a graph kernel without ``K``."""
    idx = list(labels)
    if len(idx) < 2:
        return None
    fit = model_inputs(session.project, session.engine, idx, session.lam_, K)
    if fit is None:
        return None
    model, X, kernel = fit
    model.fit(X, list(labels.values()), classes=session.project.classes)
    rows = K[np.ix_(stop, idx)] if kernel == "precomputed" else session.project.X[stop]
    return model.decision_function(rows) > 0


def set_stop_fired(session: SessionView) -> bool:
    """Whether ``set-agreement`` has fired on a multi-label ``session``'s labels (its budget
    "until the stop rule fires" is reached)."""
    return first_set_stop(set_stop_curves(session)) is not None


__all__ = [
    "SET_STOP_PARAMS",
    "SET_STOP_RULE",
    "SetStopCurves",
    "classes_in_no_set",
    "first_set_stop",
    "set_agreement",
    "set_evidence_lines",
    "set_stop_curves",
    "set_stop_decision",
    "set_stop_fired",
]
