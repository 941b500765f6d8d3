"""The Label page's headline, "Model accuracy ≈ X % (95 % interval a–b, from N checks)", in a
simulated labeling loop with the default strategy: it is the exact LOO accuracy of the random
checks among the labels (brute-force refits), it is close to the model's accuracy on held-out
points where the LOO accuracy on all labels is not, and its interval contains that accuracy.
Replacing the headline's estimator by the plain LOO on the labels fails this file."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_moons

from rlscore.core.rls.classifier import RLSClassifier
from rlscore.experiments.simulation.simulate import simulate

SEEDS = (0, 1, 2, 3)
PARAMS = {"sigma": 0.5, "lam": 0.1}


@pytest.fixture(scope="module")
def runs():
    X, y = make_moons(500, noise=0.3, random_state=0)
    X_test, y_test = make_moons(3000, noise=0.3, random_state=1)
    result = simulate(X, y, "arls-focused", queries=100, seeds=SEEDS, params=PARAMS, init=4,
                      validation=(X_test, y_test))  # fmt: skip
    return X, y, X_test, y_test, result.runs


def _labels(run) -> tuple[np.ndarray, np.ndarray]:
    """The labeled points in order, and which are random checks."""
    points = list(run.init) + [s.index for s in run.steps[1:]]
    checks = [True] * len(run.init) + [s.check for s in run.steps[1:]]  # init: uniform draws
    return np.asarray(points), np.asarray(checks)


def test_the_headline_is_the_loo_accuracy_of_the_checks(runs):
    X, y, *_, all_runs = runs
    run = all_runs[0]
    points, checks = _labels(run)
    assert 4 < checks.sum() < len(points)  # explore draws and the uniform initial labels
    right = []
    for j in np.flatnonzero(checks):  # brute force: refit without the check, predict it
        rest = np.delete(points, j)
        clf = RLSClassifier(**PARAMS, offset=True).fit(X[rest], y[rest])
        right.append(clf.predict(X[[points[j]]])[0] == y[points[j]])
    assert run.steps[-1].accuracy_estimate == pytest.approx(np.mean(right))


def test_the_headline_holds_on_held_out_points_where_the_loo_on_all_labels_does_not(runs):
    X, y, X_test, y_test, all_runs = runs
    headline, loo, truth, inside = [], [], [], 0
    for run in all_runs:
        last = run.steps[-1]
        points, _ = _labels(run)
        clf = RLSClassifier(**PARAMS, offset=True).fit(X[points], y[points])
        true = float(np.mean(clf.predict(X_test) == y_test))
        low, high = last.accuracy_interval
        inside += low <= true <= high
        headline.append(last.accuracy_estimate)
        loo.append(np.mean((clf.loo_decision_ > 0).astype(int) == y[points]))
        truth.append(true)
    headline_bias = np.mean(np.subtract(headline, truth))
    loo_bias = np.mean(np.subtract(loo, truth))
    assert abs(headline_bias) < 0.04, (headline, truth)
    assert loo_bias < -0.06, (loo, truth)  # the chosen labels are hard: LOO is pessimistic
    assert inside >= len(all_runs) - 1
