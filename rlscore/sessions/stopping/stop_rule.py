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

from rlscore.core.conventions.counted_words import counted
from rlscore.core.evaluation.stopping_rules import (
    confidence_drop,
    plateau,
    stabilizing_predictions,
    steps_to_confidence_drop,
    steps_to_plateau,
    steps_to_stabilize,
)
from rlscore.sessions.stopping.curves import KAPPA_LAG, KAPPA_LONG_LAG, StopCurves

#: the rule a session and ``simulate`` use unless told otherwise: the winner of issue 33's
#: pre-registered comparison on the strategy suite's development half (benchmarks/
#: stop_rule_candidates.py; docs/benchmarks/stopping.md), ``stabilizing`` before
DEFAULT_STOP_RULE = "settled"
#: the rules' parameters (docs/mathematics.md §"Knowing when to stop": the papers' values,
#: with successive models ``lag`` labels apart since rlscore adds one label at a time);
#: a rule with ``parts`` fires once each of its parts has fired
STOP_RULE_PARAMS: dict[str, dict] = {
    "stabilizing": {"lag": KAPPA_LAG, "window": 3, "threshold": 0.99},
    "confidence-drop": {"lag": 10, "patience": 3},
    "risk-plateau": {"window": 20, "epsilon": 0.05, "relative": True},
    "loo-plateau": {"window": 20, "epsilon": 0.02, "relative": False},
    "stabilizing-long": {"lag": KAPPA_LONG_LAG, "window": 4, "threshold": 0.99},
    "confidence-plateau": {"window": 20, "epsilon": 0.01, "relative": False},
    "settled": {"parts": ("stabilizing-long", "confidence-plateau")},
}
#: no rule fires with fewer labels than this (nor before every class has one)
MIN_STOP_LABELS = 10
#: what each single rule checks, in words (docs/mathematics.md §"Knowing when to stop")
RULE_WORDS = {
    "stabilizing": (
        "Stabilizing predictions (Bloodgood & Vijay-Shanker 2009): the model's predictions on "
        "a fixed sample of the pool agree with those of the model {lag} labels earlier with "
        "Cohen's κ averaging at least {threshold} over the last {window} comparisons."
    ),
    "confidence-drop": (
        "Confidence drop (Vlachos 2008): the model's mean confidence on a fixed sample of the "
        "pool fell at each of the last {patience} checks, {lag} labels apart."
    ),
    "risk-plateau": (
        "Risk plateau: the strategy's estimated risk moved by at most {epsilon:.0%} of its "
        "value over the last {window} labels."
    ),
    "loo-plateau": (
        "Leave-one-out plateau: the leave-one-out error moved by at most {epsilon:.0%} over "
        "the last {window} labels."
    ),
    "confidence-plateau": (
        "Confidence plateau: the model's mean confidence on a fixed sample of the pool (a "
        "share between 0 and 1) moved by at most {epsilon} over the last {window} labels."
    ),
}
RULE_WORDS["stabilizing-long"] = RULE_WORDS["stabilizing"]
#: what a single rule's recorded curve is, in words (the evidence's "Latest …" line)
CURVE_WORDS = {
    "stabilizing": "κ between models {lag} labels apart",
    "confidence-drop": "mean confidence on the stop sample, every {lag} labels",
}


def describe_rule(rule: str) -> str:
    """What ``rule`` checks, in words, with its parameters (a rule with parts: each part)."""
    params = STOP_RULE_PARAMS[rule]
    if "parts" in params:
        parts = " ".join(describe_rule(part) for part in params["parts"])
        return f"The {rule} rule fires once each of these has held: {parts}"
    return RULE_WORDS[rule].format(**params)


def rule_curve(curves: StopCurves, rule: str) -> np.ndarray:
    """The curve ``rule`` reads (its ``lag`` from :data:`STOP_RULE_PARAMS`); a rule with
    ``parts`` reads that of its first part."""
    if rule in STOP_RULE_PARAMS and "parts" in STOP_RULE_PARAMS[rule]:
        return rule_curve(curves, STOP_RULE_PARAMS[rule]["parts"][0])
    if rule == "stabilizing":
        return np.asarray(curves.kappa, dtype=np.float64)
    if rule == "stabilizing-long":
        return np.asarray(curves.kappa_long, dtype=np.float64)
    if rule in ("confidence-drop", "confidence-plateau"):
        return np.asarray([np.nan if c is None else c for c in curves.confidence], np.float64)
    if rule == "risk-plateau":
        return np.asarray([np.nan if r is None else r for r in curves.risk], np.float64)
    if rule == "loo-plateau":
        return 1.0 - curves.loo_accuracy()
    raise ValueError(f"stop rule {rule!r} is unknown: choose one of {list(STOP_RULE_PARAMS)}")


def first_stop(curves: StopCurves, rule: str, n_classes: int, from_step: int = 0) -> int | None:
    """The first step (from ``from_step`` on) at which ``rule`` fires on the recorded curves,
    never before :data:`MIN_STOP_LABELS` labels and a label of each of the ``n_classes``
    classes. A run that checks after each step passes its last step as ``from_step``.

    A rule with ``parts`` fires at the latest of its parts' first stops (each from the first
    step the rules may fire): from then on every part has fired."""
    rule_curve(curves, rule)  # an unknown rule is refused before anything is read
    params = STOP_RULE_PARAMS[rule]
    if "parts" in params:
        stops = [first_stop(curves, part, n_classes) for part in params["parts"]]
        if None in stops:
            return None
        fired = max(stops)
        return max(fired, from_step) if from_step < len(curves) else None
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
    curve = rule_curve(curves, rule)
    if rule.startswith("stabilizing"):
        return stabilizing_predictions(curve, min_step=ready, **params)
    if rule == "confidence-drop":
        return confidence_drop(curve, min_step=ready, **params)
    return plateau(curve, min_step=ready, **params)


def steps_if_unchanged(curves: StopCurves, rule: str, n_classes: int) -> int | None:
    """Labels before ``rule`` fires if its curve stays at its current value (None: it never
    would, or the curve has no current value): the forecast behind "about N more labels",
    recomputed from the recorded curve after every label
    (:func:`~rlscore.core.evaluation.stopping_rules.steps_to_stabilize` and its siblings).
    A rule with ``parts``: the most any part that has not fired yet needs."""
    params = STOP_RULE_PARAMS[rule]
    if "parts" in params:
        counts = [
            0 if first_stop(curves, part, n_classes) is not None
            else steps_if_unchanged(curves, part, n_classes)
            for part in params["parts"]
        ]  # fmt: skip
        return None if None in counts else max(counts)
    curve = rule_curve(curves, rule)
    if rule.startswith("stabilizing"):
        return steps_to_stabilize(curve, **params)
    if rule == "confidence-drop":
        return steps_to_confidence_drop(curve, **params)
    return steps_to_plateau(curve, **params)


def holds_now(curves: StopCurves, rule: str, n_classes: int, fired: int) -> bool:
    """Whether ``rule``, which first fired at step ``fired``, still holds at the newest step.

    Labeling can go on after the rule fired (a "Keep labeling anyway"), and the labels since
    may change the model again. It holds at the step it fired; after that, every part that
    held there (:func:`first_stop` from that step) must hold at the newest step too. A part
    that had fired before and no longer held when the last part fired (a rule with parts fires
    once each part has fired, not when all hold at once) is not asked again: what it said
    was known when the rule fired."""
    last = len(curves) - 1
    if fired >= last:
        return True
    parts = STOP_RULE_PARAMS[rule].get("parts", (rule,))
    held = [p for p in parts if first_stop(curves, p, n_classes, from_step=fired) == fired]
    return all(first_stop(curves, p, n_classes, from_step=last) == last for p in held)


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
    """ "You can stop" or "keep going" from ``rule`` on the recorded curves, in words: "you
    can stop" from the step the rule first fired (where ``simulate`` stops) while it still
    holds (:func:`holds_now`), "keep going" with the step it fired at once the labels since
    changed the model more than it allows."""
    fired = first_stop(curves, rule, n_classes)
    params = STOP_RULE_PARAMS[rule]
    shown = params["parts"][0] if "parts" in params else rule  # whose curve the evidence is
    curve, lag = rule_curve(curves, shown), STOP_RULE_PARAMS[shown].get("lag", 5)
    n = curves.n_labels[-1] if len(curves) else 0
    recent = [None if np.isnan(v) else float(v) for v in curve[-4 * lag :]]
    evidence = {"rule": rule, "params": dict(params), "recent": recent, "n_labels": n}
    if fired is not None and holds_now(curves, rule, n_classes, fired):
        return fired_decision(rule, curves.n_labels[fired], "the model", evidence)
    if fired is not None:
        # labeling went on after the rule fired, and the labels since changed the model more
        # than the rule allows: the advice of then no longer holds (its curves say why)
        now = "; ".join(_now(curves, part) for part in params.get("parts", (rule,)))
        message = (
            f"keep going: the {rule} rule fired at {curves.n_labels[fired]} labels, but the "
            f"labels since have changed the model more than it allows ({now})"
        )
        return StopDecision(rule, False, curves.n_labels[fired], None, message, evidence)
    missing = n_classes - (curves.classes_seen[-1] if len(curves) else 0)
    if missing > 0:
        have = "has" if missing == 1 else "have"
        message = f"keep going: {counted(missing, 'class', 'classes')} {have} no label yet"
        return StopDecision(rule, False, None, None, message, evidence)
    if n < MIN_STOP_LABELS:
        message = f"keep going: no rule fires before {MIN_STOP_LABELS} labels"
        return StopDecision(rule, False, None, MIN_STOP_LABELS - n, message, evidence)
    waiting = [
        part for part in params.get("parts", (rule,))
        if part == rule or first_stop(curves, part, n_classes) is None
    ]  # fmt: skip
    now = "; ".join(_now(curves, part) for part in waiting)
    more = steps_if_unchanged(curves, rule, n_classes)
    if more is not None:
        more = max(more, 1)  # it has not fired at this label
        message = (
            f"keep going: about {counted(more, 'more label')} if the model changes as little "
            f"as it does now ({now})"
        )
    else:
        message = f"keep going: the model is still changing ({now})"
    return StopDecision(rule, False, None, more, message, evidence)


def fired_decision(rule: str, at: int, what: str, evidence: dict) -> StopDecision:
    """The decision of ``rule`` that fired at ``at`` labels: more labels are unlikely to
    change ``what`` (the model, the predicted sets) much."""
    message = (
        f"you can stop: the {rule} rule fired at {at} labels; more labels are unlikely to "
        f"change {what} much"
    )
    return StopDecision(rule, True, at, 0, message, evidence)


def _now(curves: StopCurves, rule: str) -> str:
    """The current value of the (single) rule's curve against what it needs, in words."""
    curve, params = rule_curve(curves, rule), STOP_RULE_PARAMS[rule]
    value = float(curve[-1]) if curve.size else float("nan")
    if rule.startswith("stabilizing"):
        if np.isnan(value):
            return f"no two models {params['lag']} labels apart to compare yet"
        return (
            f"κ = {value:.3f} between the models {params['lag']} labels apart; the rule needs "
            f"{params['threshold']} on average over {params['window']} such comparisons"
        )
    if np.isnan(value):
        return "no value yet"
    if rule == "confidence-drop":
        return f"mean confidence {value:.3f}; the rule needs it to fall {params['patience']} times"
    window = params["window"]
    recent = curve[-window - 1 :]
    defined = ~np.isnan(recent)
    first = int(np.argmax(defined))  # the oldest value in the rule's window
    # the labels the figure is over: fewer than the rule's window while the curve is younger
    span = int(curves.n_labels[-1] - curves.n_labels[len(curve) - len(recent) + first])
    full = first == 0 and len(recent) == window + 1
    name = {"confidence-plateau": "mean confidence", "loo-plateau": "LOO error"}.get(
        rule, "estimated risk"
    )
    bound = params["epsilon"] * (abs(value) if params["relative"] else 1.0)
    over = "" if full else f" over {window} labels"
    if span == 0:
        return (
            f"{name} {value:.3f} (its first value); the rule needs it to move by at most "
            f"{bound:.3g}{over}"
        )
    moved = float(np.nanmax(recent) - np.nanmin(recent))
    return (
        f"{name} {value:.3f}, moved by {moved:.3f} over the last {counted(span, 'label')}; "
        f"the rule needs at most {bound:.3g}{over}"
    )


def evidence_lines(decision: StopDecision) -> list[str]:
    """The evidence behind ``decision``, one paragraph a line: what the rule checks, when no
    rule fires, the latest values of the curve of a single rule that compares models, and the
    forecast (:attr:`StopDecision.more_labels`) once a rule can fire: before
    :data:`MIN_STOP_LABELS` labels that count is the labels still missing, no forecast."""
    params = STOP_RULE_PARAMS[decision.rule]
    lines = [
        describe_rule(decision.rule),
        f"No rule fires before {MIN_STOP_LABELS} labels, nor before every class has a label.",
    ]
    recent = decision.evidence["recent"]
    if decision.rule in CURVE_WORDS and recent:
        lag = params["lag"]
        count = params.get("window", params.get("patience", 3) + 1)
        picked = recent[::-1][::lag][:count]
        last = ", ".join("–" if v is None else f"{v:.4f}" for v in picked)
        lines.append(f"Latest {CURVE_WORDS[decision.rule].format(lag=lag)} (newest first): {last}.")
    if decision.more_labels and decision.evidence["n_labels"] >= MIN_STOP_LABELS:
        lines.append(
            f"About {counted(decision.more_labels, 'more label')} before the rule fires, if the "
            "model keeps changing as little as it does now (recomputed after every label)."
        )
    return lines


__all__ = [
    "CURVE_WORDS",
    "DEFAULT_STOP_RULE",
    "MIN_STOP_LABELS",
    "STOP_RULE_PARAMS",
    "RULE_WORDS",
    "StopDecision",
    "describe_rule",
    "evidence_lines",
    "fired_decision",
    "first_stop",
    "holds_now",
    "rule_curve",
    "steps_if_unchanged",
    "stop_decision",
]
