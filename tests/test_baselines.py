"""Baseline strategies choose what their definitions say (checked against naive refits)."""

from __future__ import annotations

import numpy as np
import pytest
from reference.arls import naive_fit, naive_proba
from reference.fisher_yates import fisher_yates

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.query import make_strategy
from rlscore.query.baselines.strategies import EntropyQuery, RandomQuery, UncertaintyQuery

SIGMA, LAM = 1.2, 0.4


@pytest.fixture
def data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 2)) * 2.0
    y_bin = np.where(X[:, 1] > 0.2 * X[:, 0], 1, -1)
    y_multi = np.digitize(X[:, 0], [-1.0, 1.0])
    return X, y_bin, y_multi


def run_and_check(q, X, y, classes, expected_choice, steps=6):
    """Teach the strategy's own queries; each must be ``expected_choice(f, labeled)``."""
    K = rbf_kernel(X, sigma=SIGMA)
    T = len(classes)
    for c in classes:  # one label per class first
        q.teach(int(np.flatnonzero(y == c)[0]), c)
    for _ in range(steps):
        cls = [q.class_index(v) for v in q.labels_]
        f = naive_fit(K, q.labeled_, cls, LAM, np.ones(T), T)
        want = expected_choice(f, list(q.labeled_), T)
        i, _ = q.next_query()
        assert i == want
        q.teach(i, y[i].item())


def smallest_margin(f, labeled, T):
    if T == 2:
        margin = np.abs(f[:, 0])
    else:
        top = np.sort(f, axis=1)
        margin = top[:, -1] - top[:, -2]
    margin[labeled] = np.inf
    return int(np.argmin(margin))


def largest_entropy(f, labeled, T):
    P = naive_proba(f, True, T)
    H = np.array([-sum(p * np.log(p) for p in row if p > 0) for row in P])
    H[labeled] = -np.inf
    return int(np.argmax(H))


@pytest.mark.parametrize("multiclass", [False, True])
def test_uncertainty_queries_the_smallest_margin(data, multiclass):
    X, y_bin, y_multi = data
    classes, y = ([0, 1, 2], y_multi) if multiclass else ([-1, 1], y_bin)
    q = UncertaintyQuery(sigma=SIGMA, lam=LAM).start(X, classes)
    run_and_check(q, X, y, classes, smallest_margin)


@pytest.mark.parametrize("multiclass", [False, True])
def test_entropy_queries_the_largest_entropy(data, multiclass):
    X, y_bin, y_multi = data
    classes, y = ([0, 1, 2], y_multi) if multiclass else ([-1, 1], y_bin)
    q = EntropyQuery(sigma=SIGMA, lam=LAM).start(X, classes)
    run_and_check(q, X, y, classes, largest_entropy)


def test_binary_uncertainty_and_entropy_agree(data):
    """For two classes both rank by |f| (entropy is decreasing in |f| for |f| < 1)."""
    X, y, _ = data
    a = UncertaintyQuery(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    b = EntropyQuery(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    for i in (0, 1, 2, 3):
        a.teach(i, int(y[i]))
        b.teach(i, int(y[i]))
    assert a.next_query()[0] == b.next_query()[0]


def test_random_follows_a_seeded_permutation(data):
    X, y, _ = data
    order = fisher_yates(np.random.default_rng(7), len(X))
    q = RandomQuery(seed=7, sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    q.teach(int(order[2]), int(y[order[2]]))  # a clicked point is skipped in the order
    got = []
    for _ in range(5):
        i, _ = q.next_query()
        got.append(i)
        q.teach(i, int(y[i]))
    assert got == [int(order[k]) for k in (0, 1, 3, 4, 5)]
    q.undo()
    assert q.next_query()[0] == int(order[5])
    other = RandomQuery(seed=8).start(X, [-1, 1])
    assert other.next_query()[0] == int(fisher_yates(np.random.default_rng(8), len(X))[0])


def test_baselines_share_the_rls_state_with_arls(data):
    """Same labels, same classifier and estimated risk whatever chose the points."""
    X, y, _ = data
    picks = [3, 9, 14, 20, 33]
    states = []
    for name in ("arls", "random", "uncertainty", "entropy"):
        q = make_strategy(name, sigma=SIGMA, lam=LAM, class_weight="balanced").start(X, [-1, 1])
        for i in picks:
            q.teach(i, int(y[i]))
        states.append((q.decision_function(), q.estimated_risk()))
    for f, r in states[1:]:
        np.testing.assert_allclose(f, states[0][0], atol=1e-10)
        assert r == pytest.approx(states[0][1])


def test_scores_are_nan_on_labeled_points(data):
    X, y, _ = data
    for cls in (RandomQuery, UncertaintyQuery, EntropyQuery):
        q = cls(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
        q.teach(5, int(y[5]))
        s = q.scores()
        assert np.isnan(s[5]) and np.isfinite(np.delete(s, 5)).all()


def test_baselines_hold_only_the_kernel(data):
    """No lookahead, no covariance: one n × n matrix instead of ARLS's two."""
    X, y, _ = data
    q = UncertaintyQuery(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    q.teach(0, int(y[0]))
    with pytest.raises(AttributeError, match="does not keep the covariance"):
        _ = q.covariance_
