"""The stop advice moves with the evidence (issue 33 item 4): "about N more labels" is
recomputed after every label from the recorded curve, and N is the first step at which the rule
would fire if its curve stayed at its current value — checked against the rule itself on the
curve extended by brute force."""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.sessions.stopping.curves import KAPPA_LAG, LearnerState, StopCurves
from rlscore.sessions.stopping.stop_rule import (
    DEFAULT_STOP_RULE,
    MIN_STOP_LABELS,
    STOP_RULE_PARAMS,
    first_stop,
    rule_curve,
    stop_decision,
)
from tests.reference.stopping import first_flat, first_stable

#: steps beyond the last label the brute force extends a curve by (more than any window)
HORIZON = 300


def _settling_run(seed: int, labels: int = 120, points: int = 300) -> list[LearnerState]:
    """Learner states of a run whose stop-set predictions settle: each label flips a share
    of the predictions that decays with the labels, with bursts of change (new evidence)."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2, points)
    states = []
    for n in range(1, labels + 1):
        share = 0.2 * np.exp(-n / 12) + (0.05 if n in (35, 36, 60) else 0.0)
        flips = rng.random(points) < share
        codes = np.where(flips, 1 - codes, codes)
        states.append(LearnerState(n - 1, n, None if n < 3 else codes.copy(), 0.6))
    return states


def _brute(curves: StopCurves, rule: str) -> int | None:
    """Labels until ``rule`` fires if its curve kept its current value: the curve extended with
    that value, and the first firing at or after the current step asked of the reference."""
    curve = list(rule_curve(curves, rule))
    t, p = len(curve) - 1, STOP_RULE_PARAMS[rule]
    extended = curve + [curve[-1]] * HORIZON
    if rule == "stabilizing":
        fired = first_stable(extended, p["lag"], p["window"], p["threshold"], t)
    else:
        fired = first_flat(extended, p["window"], p["epsilon"], p["relative"], t)
    return None if fired is None else max(fired - t, 1)


@pytest.mark.parametrize("seed", range(4))
def test_the_count_is_recomputed_after_every_label_and_is_right(seed):
    rule = DEFAULT_STOP_RULE
    curves, counts, messages = StopCurves(), [], []
    for state in _settling_run(seed):
        curves.append(state, risk=1.0, classes_seen=2)
        decision = stop_decision(curves, n_classes=2, rule=rule)
        if decision.stop:
            break
        if state.loo_n < MIN_STOP_LABELS:
            assert decision.more_labels == MIN_STOP_LABELS - state.loo_n
            continue
        assert decision.more_labels == _brute(curves, rule), state.loo_n
        if decision.more_labels is not None:
            assert f"about {decision.more_labels} more labels" in decision.message
        if not np.isnan(curves.kappa[-1]):
            counts.append(decision.more_labels)
            messages.append(decision.message)
    assert decision.stop, "the predictions settle: the rule fires within the run"
    # the evidence changes with every label, and so does the advice: the run showed
    # the same words from label 13 to label 30 (here: at most two repeats of a message in the
    # first 18 labels with a comparison; κ to three decimals may repeat by chance)
    assert len(messages) >= 18 and len(set(messages[:18])) >= 16
    shown = [c for c in counts if c is not None]
    assert len(set(shown)) >= 3, counts


def test_the_count_comes_true_when_the_curve_stays():
    """A run whose κ stays at its current value from some label on stops exactly where the
    count said."""
    rule, lag = "stabilizing", KAPPA_LAG
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 2, 200)
    curves = StopCurves()
    for n in range(1, 26):  # changing predictions: κ well below 0.99
        codes = np.where(rng.random(200) < 0.1, 1 - codes, codes)
        curves.append(LearnerState(n - 1, n, codes.copy(), 0.6), risk=1.0, classes_seen=2)
    decision = stop_decision(curves, 2, rule)
    assert not decision.stop and decision.more_labels is None
    for n in range(26, 26 + lag):  # then the model no longer changes: κ = 1 from n = 35
        curves.append(LearnerState(n - 1, n, codes.copy(), 0.6), risk=1.0, classes_seen=2)
    decision = stop_decision(curves, 2, rule)
    assert curves.kappa[-1] == 1.0 and decision.more_labels is not None
    promised, now = decision.more_labels, len(curves) - 1
    for n in range(26 + lag, 26 + lag + promised):
        curves.append(LearnerState(n - 1, n, codes.copy(), 0.6), risk=1.0, classes_seen=2)
    assert first_stop(curves, rule, 2) == now + promised
