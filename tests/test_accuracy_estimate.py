"""The accuracy estimate and its interval (rlscore.sessions.stopping.accuracy_estimate,
rlscore.core.evaluation.accuracy_interval): brute-force refits, coverage by simulation, the audit
draw."""

from __future__ import annotations

import numpy as np
import pytest
from reference.stopping import (
    clopper_pearson_by_root,
    first_drop,
    first_stable,
    wilson_by_root,
)
from scipy.stats import chisquare

from rlscore.core.evaluation.accuracy_interval import (
    accuracy_interval,
    clopper_pearson_interval,
    wilson_interval,
)
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.experiments.simulation.simulate import simulate
from rlscore.query import make_strategy
from rlscore.sessions.stopping.accuracy_estimate import (
    accuracy_estimate,
    audit_draw,
    audit_due,
)
from rlscore.sessions.stopping.curves import (
    LearnerState,
    StopCurves,
    learner_state,
    stop_set,
)
from rlscore.sessions.stopping.stop_rule import (
    MIN_STOP_LABELS,
    first_stop,
    stop_decision,
)

SIGMA, LAM = 1.2, 0.3


def _pool(seed: int = 0, n: int = 60, classes: int = 3):
    rng = np.random.default_rng(seed)
    centres = 2.0 * rng.normal(size=(classes, 2))
    y = np.arange(n) % classes
    return centres[y] + rng.normal(size=(n, 2)), y


@pytest.mark.parametrize("weight", [None, "balanced"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loo_estimate_matches_brute_force_refits(weight, seed):
    X, y = _pool(seed)
    rng = np.random.default_rng(seed)
    labeled = rng.choice(X.shape[0], size=18, replace=False).tolist()
    labels = {i: y[i] for i in labeled}
    engine = make_strategy("arls-focused", sigma=SIGMA, lam=LAM, class_weight=weight)
    stop = stop_set(X.shape[0])
    state = learner_state(engine, X, labels, LAM, [0, 1, 2], stop)
    correct = 0
    for i in labeled:  # refit without point i (weight 0: the same class weights), predict it
        keep = np.asarray([j != i for j in labeled], dtype=np.float64)
        # focused ARLS fits an offset: the labeled RLS is its model (loo_refit)
        clf = RLSClassifier(sigma=SIGMA, lam=LAM, class_weight=weight, offset=True)
        if weight is None:
            others = [j for j in labeled if j != i]
            clf.fit(X[others], y[others])
        else:
            clf.fit(X[labeled], y[labeled], sample_weight=keep)
        correct += int(clf.predict(X[[i]])[0] == y[i])
    assert state.loo_correct == correct
    assert state.loo_n == len(labeled)
    full = RLSClassifier(sigma=SIGMA, lam=LAM, class_weight=weight, offset=True)
    full.fit(X[labeled], y[labeled])
    np.testing.assert_array_equal(state.codes, full.predict(X[stop]))


def test_too_few_labels_give_no_estimate():
    X, y = _pool()
    engine = make_strategy("arls-focused", sigma=SIGMA, lam=LAM)
    state = learner_state(engine, X, {0: y[0], 3: y[3]}, LAM, [0, 1, 2], stop_set(60))
    assert state.loo_correct is None and state.codes is None
    curves = StopCurves()
    curves.append(state, risk=1.0, classes_seen=1)
    estimate = accuracy_estimate(curves)
    assert estimate.loo is None and estimate.loo_interval is None and estimate.audit is None


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (47, 50), (1, 1), (180, 200)])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_intervals_invert_their_tests(k, n, level):
    np.testing.assert_allclose(wilson_interval(k, n, level), wilson_by_root(k, n, level), atol=1e-8)
    np.testing.assert_allclose(
        clopper_pearson_interval(k, n, level), clopper_pearson_by_root(k, n, level), atol=1e-8
    )
    assert accuracy_interval(k, n, level, "clopper-pearson") == clopper_pearson_interval(
        k, n, level
    )


def test_interval_arguments_are_checked():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="k must"):
        wilson_interval(5, 3)
    with pytest.raises(ValueError, match="level"):
        clopper_pearson_interval(1, 3, 1.5)
    with pytest.raises(ValueError, match="unknown"):
        accuracy_interval(1, 3, method="wald")


@pytest.mark.parametrize("n", [20, 60, 150])
@pytest.mark.parametrize("p", [0.5, 0.8, 0.9, 0.97])
def test_interval_coverage_by_simulation(n, p):
    draws = np.random.default_rng([n, int(100 * p)]).binomial(n, p, size=3000)
    ks, counts = np.unique(draws, return_counts=True)  # each distinct k's interval once

    def coverage(interval) -> float:
        hits = [lo <= p <= hi for lo, hi in (interval(int(k), n) for k in ks)]
        return float(np.dot(hits, counts) / draws.size)

    wilson, exact = coverage(wilson_interval), coverage(clopper_pearson_interval)
    se = np.sqrt(0.95 * 0.05 / draws.size)
    assert exact >= 0.95 - 3 * se  # Clopper–Pearson: at least nominal for every p
    assert wilson >= 0.92  # Wilson: near nominal (Brown, Cai & DasGupta's figures dip to ~0.93)


def test_audit_draw_is_uniform():
    rng = np.random.default_rng(7)
    unlabeled = np.arange(3, 43)  # 40 points
    counts = np.bincount([audit_draw(unlabeled, rng) for _ in range(20_000)], minlength=43)[3:]
    assert chisquare(counts).pvalue > 1e-3
    with pytest.raises(ValueError, match="no unlabeled"):
        audit_draw([], rng)


def test_audit_schedule():
    assert [t for t in range(1, 31) if audit_due(t, 10)] == [10, 20, 30]
    assert not any(audit_due(t, 0) for t in range(1, 31))


def test_simulate_audit_labels_are_scored_before_they_are_labeled():
    X, y = _pool(3, n=80, classes=2)
    y = np.where(np.random.default_rng(0).random(80) < 0.3, 1 - y, y)  # noisy: a model that
    lam = 0.01  # had seen the audit label (leakage) would mostly reproduce it
    result = simulate(
        X, y, "arls-focused", queries=15, seeds=[4], init=4,
        params={"sigma": SIGMA, "lam": lam}, stop_rule="stabilizing", audit_every=3,
    )  # fmt: skip
    run = result.runs[0]
    audit_steps = [s.step for s in run.steps if s.audit]
    assert audit_steps == [3, 6, 9, 12, 15]
    order = run.init + [s.index for s in run.steps[1:]]
    correct = 0
    for t in audit_steps:  # the labeled RLS of the labels before step t, on the audit point
        before = order[: len(run.init) + t - 1]
        clf = RLSClassifier(sigma=SIGMA, lam=lam).fit(X[before], y[before])
        i = order[len(run.init) + t - 1]
        correct += int(clf.predict(X[[i]])[0] == y[i])
    assert 0 < correct < 5  # the check can tell a leaked prediction from an honest one
    estimate = run.stop["stabilizing"]["estimate"]
    assert run.stop["stabilizing"]["step"] is None  # too few labels to stop: the last step
    assert estimate["audit_labels"] == 5
    assert estimate["audit_accuracy"] == pytest.approx(correct / 5)
    assert estimate["audit_interval"] == pytest.approx(list(wilson_interval(correct, 5)))
    assert estimate["truth_accuracy"] == pytest.approx(1 - run.steps[-1].validation_error)


def test_until_stop_ends_the_run_where_the_rule_fires():
    X, y = _pool(5, n=100, classes=2)
    common = dict(queries=70, seeds=[1], init=4, params={"sigma": SIGMA, "lam": LAM})
    full = simulate(X, y, "uncertainty", stop_rule=["stabilizing", "loo-plateau"], **common)
    cut = simulate(X, y, "uncertainty", stop_rule="stabilizing", until_stop=True, **common)
    step = full.runs[0].stop["stabilizing"]["step"]
    assert step is not None and step < 70
    assert len(cut.runs[0].steps) == step + 1
    assert cut.runs[0].stop["stabilizing"]["step"] == step
    assert [s.index for s in cut.runs[0].steps] == [s.index for s in full.runs[0].steps[: step + 1]]
    with pytest.raises(ValueError, match="until_stop needs"):
        simulate(X, y, "uncertainty", until_stop=True, **common)
    with pytest.raises(ValueError, match="unknown"):
        simulate(X, y, "uncertainty", stop_rule="never", **common)


def _state(correct, n, codes):
    return LearnerState(correct, n, None if codes is None else np.asarray(codes), 0.5)


def test_stop_decision_words():
    curves = StopCurves()
    for n in range(1, 8):
        curves.append(_state(None, n, None), risk=1.0, classes_seen=1)
    decision = stop_decision(curves, n_classes=2, rule="stabilizing")
    assert not decision.stop and "class" in decision.message
    for n in range(8, 25):
        codes = [0, 1, 0, 1] if n % 3 == 0 else [1, 0, 0, 1]  # κ 10 labels apart: 0 or 1
        curves.append(_state(n - 1, n, codes), risk=1.0, classes_seen=2)
    decision = stop_decision(curves, n_classes=2, rule="stabilizing")
    # the newest comparison disagrees: if the model keeps changing so, the rule never fires
    assert not decision.stop and decision.more_labels is None
    assert decision.message.startswith("keep going: the model is still changing (κ = 0.000")
    for n in range(25, 60):
        curves.append(_state(n - 1, n, [0, 1, 1, 0]), risk=1.0, classes_seen=2)
    decision = stop_decision(curves, n_classes=2, rule="stabilizing")
    assert decision.stop and decision.message.startswith("you can stop")
    # κ = 1 needs both models in the constant phase (n ≥ 25): three comparisons, 10 apart
    assert decision.fired_at_labels == 25 + 30
    estimate = accuracy_estimate(curves)
    assert estimate.loo == pytest.approx(58 / 59)
    assert estimate.loo_interval == wilson_interval(58, 59)


def test_no_rule_fires_before_every_class_has_a_label():
    curves = StopCurves()
    for n in range(1, 36):  # a constant model (κ = 1, a flat risk) that has seen one class
        curves.append(_state(n - 1, n, [0, 0, 0, 0]), risk=1.0, classes_seen=1)
    ready = MIN_STOP_LABELS - 1  # the first step with enough labels (n = step + 1)
    # with one class in the project the rules fire (the reference: stabilizing from
    # tests/reference/stopping.py; the risk plateau after its window of 20 steps)
    assert first_stop(curves, "stabilizing", 1) == first_stable(curves.kappa, 10, 3, 0.99, ready)
    assert first_stop(curves, "risk-plateau", 1) == 20
    for rule in ("stabilizing", "risk-plateau"):
        assert first_stop(curves, rule, n_classes=2) is None
        decision = stop_decision(curves, 2, rule)
        assert not decision.stop and decision.message == "keep going: 1 class has no label yet"
    for n in range(36, 40):  # the second class labeled at step 35: the rules fire from there
        curves.append(_state(n - 1, n, [0, 0, 0, 0]), risk=1.0, classes_seen=2)
    assert first_stop(curves, "stabilizing", 2) == first_stop(curves, "risk-plateau", 2) == 35


def test_before_the_minimum_the_missing_labels_are_counted():
    curves = StopCurves()
    for n in range(1, 7):
        curves.append(_state(n - 1, n, [0, 1, 0, 1]), risk=1.0, classes_seen=2)
    for rule in ("stabilizing", "risk-plateau"):
        decision = stop_decision(curves, 2, rule)
        assert not decision.stop
        assert decision.more_labels == MIN_STOP_LABELS - 6  # six labels so far
        assert decision.message == f"keep going: no rule fires before {MIN_STOP_LABELS} labels"


def test_stop_decision_of_the_confidence_drop_rule_counts_the_drops_still_needed():
    curves = StopCurves()
    for n in range(1, 41):
        state = LearnerState(n - 1, n, np.zeros(4, int), 0.5 + 0.01 * n)  # rising confidence
        curves.append(state, risk=1.0, classes_seen=2)
    decision = stop_decision(curves, n_classes=2, rule="confidence-drop")
    assert decision.rule == "confidence-drop" and not decision.stop
    # rising: a confidence that stays where it is now is no drop from any before it
    assert decision.more_labels is None
    for n in range(41, 51):
        state = LearnerState(n - 1, n, np.zeros(4, int), 0.9 - 0.01 * (n - 40))
        curves.append(state, risk=1.0, classes_seen=2)
    decision = stop_decision(curves, n_classes=2, rule="confidence-drop")
    # falling for 10 labels: the chain of three drops would still reach back into the rising
    # part while the value stays at 0.80 (brute force: the curve extended with it)
    t = len(curves) - 1
    assert first_drop(curves.confidence + [curves.confidence[-1]] * 40, 10, 3, t) is None
    assert decision.more_labels is None and "still changing" in decision.message
    for n in range(51, 71):
        state = LearnerState(n - 1, n, np.zeros(4, int), 0.8 - 0.01 * (n - 50))
        curves.append(state, risk=1.0, classes_seen=2)
    decision = stop_decision(curves, n_classes=2, rule="confidence-drop")
    fired = first_drop(curves.confidence, 10, 3, MIN_STOP_LABELS - 1)
    assert decision.stop and decision.fired_at_labels == curves.n_labels[fired]
