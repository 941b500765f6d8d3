"""When to stop: the stopping rule read on a run's recorded curves, and its verdict in words.

The rules themselves are pure functions of a curve
(:mod:`rlscore.core.evaluation.stopping_rules`); this module says which curve of
:class:`~rlscore.sessions.stopping.curves.StopCurves` each reads, with which parameters, and
turns the first step at which one fires into "you can stop" or "keep going"
(docs/mathematics.md §"Knowing when to stop").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlscore.core.evaluation.stopping_rules import (
    confidence_drop,
    plateau,
    stabilizing_predictions,
    steps_to_confidence_drop,
    steps_to_plateau,
    steps_to_stabilize,
)
from rlscore.sessions.stopping.curves import KAPPA_LAG, StopCurves

#: the rule a session and ``simulate`` use unless told otherwise: the winner of the
#: pre-registered comparison of confidence-drop, stabilizing and loo-plateau on the text tasks
#: (benchmarks/stopping_rules_text.py, 10 seeds; docs/benchmarks/stopping.md "When to stop"),
#: after confidence-drop, the first pick, stopped ringnorm 20-27 points short
DEFAULT_STOP_RULE = "stabilizing"
#: the rules' parameters (docs/mathematics.md §"Knowing when to stop": the papers' values,
#: with successive models ``lag`` labels apart since rlscore adds one label at a time)
STOP_RULE_PARAMS: dict[str, dict] = {
    "stabilizing": {"lag": KAPPA_LAG, "window": 3, "threshold": 0.99},
    "confidence-drop": {"lag": 10, "patience": 3},
    "risk-plateau": {"window": 20, "epsilon": 0.05, "relative": True},
    "loo-plateau": {"window": 20, "epsilon": 0.02, "relative": False},
}
#: no rule fires with fewer labels than this (nor before every class has one)
MIN_STOP_LABELS = 10


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


def steps_if_unchanged(curves: StopCurves, rule: str) -> int | None:
    """Labels before ``rule`` fires if its curve stays at its current value (None: it never
    would, or the curve has no current value): the forecast behind "about N more labels",
    recomputed from the recorded curve after every label
    (:func:`~rlscore.core.evaluation.stopping_rules.steps_to_stabilize` and its siblings)."""
    curve, params = rule_curve(curves, rule), STOP_RULE_PARAMS[rule]
    if rule == "stabilizing":
        return steps_to_stabilize(curve, **params)
    if rule == "confidence-drop":
        return steps_to_confidence_drop(curve, **params)
    return steps_to_plateau(curve, **params)


@dataclass(frozen=True)
class StopDecision:
    """Whether the rule has fired, where, and the evidence."""

    rule: str
    stop: bool
    fired_at_labels: int | None
    #: labels before the rule fires if its curve stays as it is now (:func:`steps_if_unchanged`;
    #: before :data:`MIN_STOP_LABELS` labels, the labels still missing); None: not in sight
    more_labels: int | None
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
    if fired is not None:
        at = curves.n_labels[fired]
        message = (
            f"you can stop: the {rule} rule fired at {at} labels; more labels are unlikely "
            "to change the model much"
        )
        return StopDecision(rule, True, at, 0, message, evidence)
    missing = n_classes - (curves.classes_seen[-1] if len(curves) else 0)
    if missing > 0:
        return StopDecision(
            rule, False, None, None, f"keep going: {missing} class(es) have no label yet", evidence
        )
    if n < MIN_STOP_LABELS:
        message = f"keep going: no rule fires before {MIN_STOP_LABELS} labels"
        return StopDecision(rule, False, None, MIN_STOP_LABELS - n, message, evidence)
    more = steps_if_unchanged(curves, rule)
    if more is not None:
        more = max(more, 1)  # it has not fired at this label
        message = (
            f"keep going: about {more} more labels if the model changes as little as it "
            f"does now ({_now(rule, curve, params)})"
        )
    else:
        message = f"keep going: the model is still changing ({_now(rule, curve, params)})"
    return StopDecision(rule, False, None, more, message, evidence)


def _now(rule: str, curve: np.ndarray, params: dict) -> str:
    """The current value of the rule's curve against what the rule needs, in words."""
    value = float(curve[-1]) if curve.size else float("nan")
    if np.isnan(value):
        return "no comparison yet"
    if rule == "stabilizing":
        return (
            f"κ = {value:.3f} between the models {params['lag']} labels apart; the rule needs "
            f"{params['threshold']} on average over {params['window']} such comparisons"
        )
    if rule == "confidence-drop":
        return f"mean confidence {value:.3f}; the rule needs it to fall {params['patience']} times"
    return f"{rule.split('-')[0]} {value:.4g}; the rule needs it flat for {params['window']} labels"


__all__ = [
    "DEFAULT_STOP_RULE",
    "MIN_STOP_LABELS",
    "STOP_RULE_PARAMS",
    "StopDecision",
    "first_stop",
    "rule_curve",
    "steps_if_unchanged",
    "stop_decision",
]
