"""Every query strategy with an RBF kernel takes a data-adaptive width (``sigma="median"`` or
``"scale"``, rlscore.core.kernels.rbf_width): the same picks and scores as the number the rule
gives, that number measured by brute force over every pair of pool points."""

from __future__ import annotations

import numpy as np
import pytest
from reference.kernel_width import median_pair_distance

from rlscore.query import STRATEGIES, make_strategy

WITH_WIDTH = sorted(n for n in STRATEGIES if "sigma" in make_strategy(n).get_params())


def _start(q, X):
    K = q.pool_kernel(X) if q.needs_pool_kernel() else None
    return q.start(X, classes=[-1, 1], K=K)


@pytest.mark.parametrize("name", WITH_WIDTH)
def test_the_median_rule_equals_the_brute_force_median_width(name):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3)) * [40.0, 5.0, 1.0]  # unscaled: σ = 1 would be a poor width
    y = np.where(X[:, 0] + 8 * X[:, 1] > 0, 1, -1)
    sigma = median_pair_distance(X)
    a = _start(make_strategy(name, kernel="rbf", sigma="median"), X)
    b = _start(make_strategy(name, kernel="rbf", sigma=sigma), X)
    assert a.sigma_ == pytest.approx(sigma, rel=1e-12)
    for i in (0, int(np.argmax(y != y[0])), 7, 40):
        a.teach(i, y[i])
        b.teach(i, y[i])
    np.testing.assert_allclose(a.scores(), b.scores(), rtol=1e-9, atol=1e-12)
    assert a.next_query()[0] == b.next_query()[0]


def test_a_width_rule_is_checked_and_other_kernels_have_none():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="median"):
        _start(make_strategy("arls", sigma="widest"), X)
    assert _start(make_strategy("arls", kernel="linear", sigma="median"), X).sigma_ is None
