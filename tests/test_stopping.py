"""Stopping rules (rlscore.core.evaluation.stopping_rules) against direct implementations on
recorded curves."""

from __future__ import annotations

import numpy as np
import pytest
from reference.stopping import first_drop, first_flat, first_stable, kappa
from sklearn.metrics import cohen_kappa_score

from rlscore.core.evaluation.stopping_rules import (
    cohen_kappa,
    confidence_drop,
    kappa_curve,
    plateau,
    stabilizing_predictions,
    steps_to_confidence_drop,
    steps_to_plateau,
    steps_to_stabilize,
)


def _curves(seed: int, length: int = 120) -> dict:
    """Recorded-looking curves: predictions that settle, a noisy rising-then-falling
    confidence and a decaying risk, with undefined early entries."""
    rng = np.random.default_rng(seed)
    codes, current = [], rng.integers(0, 3, 200)
    for t in range(length):
        flips = rng.random(200) < 0.3 * np.exp(-t / 15)
        current = np.where(flips, rng.integers(0, 3, 200), current)
        codes.append(None if t < 3 else current.copy())
    confidence = [np.nan] * 3 + list(
        np.sin(np.linspace(0, 3, length - 3)) + rng.normal(0, 0.05, length - 3)
    )
    risk = [np.nan] * 3 + list(np.exp(-np.arange(length - 3) / 20) + rng.normal(0, 1e-3, 117))
    return {"codes": codes, "confidence": confidence, "risk": risk}


def test_kappa_matches_scikit_learn_and_the_reference():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
        b[:30] = a[:30]
        assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
        assert cohen_kappa(a, b) == pytest.approx(kappa(list(a), list(b)), abs=1e-12)


def test_kappa_of_constant_labelings():
    # scikit-learn returns NaN here (0/0): both one-class and equal is perfect agreement
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) == 1.0 == kappa([1, 1, 1], [1, 1, 1])
    assert cohen_kappa([1, 1, 1], [2, 2, 2]) == kappa([1, 1, 1], [2, 2, 2])
    with pytest.raises(ValueError, match="same points"):
        cohen_kappa([1, 2], [1])


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("lag, window, threshold", [(10, 3, 0.99), (5, 2, 0.9), (1, 1, 0.95)])
def test_stabilizing_matches_the_reference(seed, lag, window, threshold):
    codes = _curves(seed)["codes"]
    k = kappa_curve(codes, lag)
    expected = [np.nan if t < lag or codes[t - lag] is None else kappa(
        list(codes[t - lag]), list(codes[t])) for t in range(len(codes))]  # fmt: skip
    np.testing.assert_allclose(k, expected, atol=1e-12)
    for min_step in (0, 40):
        got = stabilizing_predictions(
            k, lag=lag, window=window, threshold=threshold, min_step=min_step
        )
        assert got == first_stable(list(k), lag, window, threshold, min_step)
    assert stabilizing_predictions(k, lag=lag, window=window, threshold=threshold) is not None


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("lag, patience", [(10, 3), (3, 2), (1, 4)])
def test_confidence_drop_matches_the_reference(seed, lag, patience):
    c = _curves(seed)["confidence"]
    for min_step in (0, 50):
        got = confidence_drop(c, lag=lag, patience=patience, min_step=min_step)
        assert got == first_drop(c, lag, patience, min_step)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    "window, epsilon, relative", [(20, 0.05, True), (10, 0.02, False), (5, 0.0, False)]
)
def test_plateau_matches_the_reference(seed, window, epsilon, relative):
    r = _curves(seed)["risk"]
    for min_step in (0, 30):
        got = plateau(r, window=window, epsilon=epsilon, relative=relative, min_step=min_step)
        assert got == first_flat(r, window, epsilon, relative, min_step)


def test_too_few_steps_never_fire():
    short = [np.nan, 1.0, 1.0]
    assert stabilizing_predictions(short, lag=1, window=3) is None
    assert confidence_drop([0.9, 0.8, 0.7], lag=1, patience=3) is None
    assert plateau([0.5] * 5, window=5) is None
    assert steps_to_stabilize([]) is None
    assert steps_to_stabilize([np.nan, np.nan]) is None


def test_constant_curves():
    flat = [0.3] * 30
    assert plateau(flat, window=10, epsilon=0.0) == 10 == first_flat(flat, 10, 0.0, True)
    assert plateau([0.0] * 30, window=10, epsilon=0.01) == 10  # zero risk: a plateau too
    assert confidence_drop(flat, lag=2, patience=3) is None  # no drop at all
    same = [np.zeros(8, int)] * 40  # a model predicting one class, unchanged
    k = kappa_curve(same, 10)
    assert stabilizing_predictions(k, lag=10, window=3) == 30
    assert stabilizing_predictions(k, lag=10, window=3, min_step=33) == 33


def test_stabilizing_fires_at_the_threshold_as_soon_as_its_comparisons_exist():
    """A κ curve defined from step 0 (the rule's contract; a kappa_curve is NaN before ``lag``,
    which hides its first window): the first window ends at step (window − 1)·lag, and a mean
    equal to the threshold is enough ("at least")."""
    k = [0.5] * 12  # every mean exactly 0.5
    assert stabilizing_predictions(k, lag=2, window=3, threshold=0.5) == 4
    assert first_stable(k, 2, 3, 0.5) == 4
    assert stabilizing_predictions(k, lag=2, window=3, threshold=0.5 + 1e-9) is None
    rng = np.random.default_rng(3)
    for lag, window, threshold in [(1, 1, 0.9), (2, 3, 0.9), (5, 2, 0.85)]:
        for _ in range(20):
            k = list(rng.uniform(0.7, 1.0, 25))
            got = stabilizing_predictions(k, lag=lag, window=window, threshold=threshold)
            assert got == first_stable(k, lag, window, threshold)


def test_steps_to_stabilize_waits_for_the_known_comparisons_to_leave_the_window():
    k = np.full(41, np.nan)
    k[10:] = 0.5  # every comparison so far poor, and so is the current one: never
    assert steps_to_stabilize(k, lag=10, window=3, threshold=0.99) is None
    k[40] = 1.0  # now agreeing: the poor comparisons 10 and 20 back must leave the window
    assert steps_to_stabilize(k, lag=10, window=3, threshold=0.99) == 20
    k[30] = 1.0  # one fewer poor comparison to wait for
    assert steps_to_stabilize(k, lag=10, window=3, threshold=0.99) == 10
    k[20] = 1.0
    assert steps_to_stabilize(k, lag=10, window=3, threshold=0.99) == 0
    assert stabilizing_predictions(k, lag=10, window=3, threshold=0.99) == 40


#: steps beyond the last recorded one that the brute force looks at (more than any window)
HORIZON = 200


def _if_unchanged(curve: list, first, t: int) -> int | None:
    """Brute force: extend the curve with its last value and ask the rule itself (through the
    tests' reference implementation ``first``) where it first fires from step ``t`` on."""
    fired = first(curve + [curve[-1]] * HORIZON, t)
    return None if fired is None else fired - t


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("length", [15, 40, 70])
def test_steps_to_stabilize_is_the_first_stop_if_kappa_stays(seed, length):
    lag, window, threshold = 5, 3, 0.95
    k = list(kappa_curve(_curves(seed)["codes"][:length], lag))
    t = len(k) - 1
    want = _if_unchanged(k, lambda c, m: first_stable(c, lag, window, threshold, m), t)
    assert steps_to_stabilize(k, lag=lag, window=window, threshold=threshold) == want


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("length", [15, 40, 70, 100])
def test_steps_to_confidence_drop_is_the_first_stop_if_the_confidence_stays(seed, length):
    lag, patience = 5, 3
    c = list(_curves(seed)["confidence"][:length])
    t = len(c) - 1
    want = _if_unchanged(c, lambda v, m: first_drop(v, lag, patience, m), t)
    assert steps_to_confidence_drop(c, lag=lag, patience=patience) == want


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("length", [4, 15, 40, 70])
@pytest.mark.parametrize("relative", [True, False])
def test_steps_to_plateau_is_the_first_stop_if_the_curve_stays(seed, length, relative):
    window, epsilon = 10, 0.05
    r = list(_curves(seed)["risk"][:length])
    t = len(r) - 1
    want = _if_unchanged(r, lambda v, m: first_flat(v, window, epsilon, relative, m), t)
    assert steps_to_plateau(r, window=window, epsilon=epsilon, relative=relative) == want


def test_no_count_from_an_undefined_current_value():
    assert steps_to_plateau([0.1, np.nan]) is None
    assert steps_to_confidence_drop([0.9, np.nan]) is None
    assert steps_to_stabilize([1.0, np.nan], lag=1, window=1) is None


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="lag"):
        kappa_curve([], 0)
    with pytest.raises(ValueError, match="window"):
        plateau([1.0], window=0)
    with pytest.raises(ValueError, match="epsilon"):
        plateau([1.0], epsilon=-1)
