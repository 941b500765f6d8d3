"""The naive ARLS references of :mod:`reference.arls` checked against facts that do not depend
on them, then ARLS with balanced multiclass weights (docs/mathematics.md §1: one weight vector per
one-vs-all
column) checked against them.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.arls import naive_fit, naive_risk, naive_scores, naive_V, spec_weights

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.query.arls.thesis import ARLS


def test_naive_fit_interpolates_with_tiny_lambda():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    K = rbf_kernel(X, sigma=1.0)
    f = naive_fit(K, [0, 3, 5], [0, 1, 1], 1e-9, np.ones(2), 2)
    np.testing.assert_allclose(f[[0, 3, 5], 0], [-1, 1, 1], atol=1e-6)


def test_naive_risk_of_the_zero_classifier_is_half_per_point():
    f = np.zeros((7, 1))
    assert naive_risk(f, np.ones(2), True, 2) == 3.5
    # multiclass: uniform p̂ = 1/3, the error is 2/3 per point
    assert np.isclose(naive_risk(np.zeros((6, 3)), np.ones(3), True, 3), 4.0)


def test_naive_fit_solves_each_column_with_its_own_weights():
    # a single label: f_t = K_{:i} y_t / (K_ii + λ/a_t(y)) in closed form
    rng = np.random.default_rng(1)
    K = rbf_kernel(rng.normal(size=(6, 2)), sigma=1.0)
    W = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.5, 0.25, 8.0]])
    f = naive_fit(K, [2], [1], 0.3, W, 3)
    for t, y in enumerate([-1.0, 1.0, -1.0]):
        np.testing.assert_allclose(f[:, t], K[:, 2] * y / (1.0 + 0.3 / W[t, 1]))


def test_spec_weights_by_hand():
    # l = 6 labels, counts 3, 2, 1 (T = 3)
    W, w = spec_weights([0, 0, 0, 1, 1, 2], [0, 1, 2], "balanced")
    np.testing.assert_allclose(W, [[1.0, 1.0, 1.0], [0.75, 1.5, 0.75], [0.6, 0.6, 3.0]])
    np.testing.assert_allclose(w, [2 / 3, 1.0, 2.0])
    W, w = spec_weights([1, 0, 0, 0], ["a", "b"], "balanced")  # l = 4: 3 "a", 1 "b"
    np.testing.assert_allclose(W, [[2 / 3, 2.0]])
    np.testing.assert_allclose(w, [2 / 3, 2.0])
    W, w = spec_weights([0, 0, 1], [0, 1, 2], "balanced")  # class 2 unlabeled: all 1
    np.testing.assert_array_equal(W, np.ones((3, 3)))
    W, w = spec_weights([0], [-1, 1], {1: 4.0})
    np.testing.assert_allclose(W, [[1.0, 4.0]])
    np.testing.assert_allclose(w, [1.0, 4.0])


# -- ARLS with balanced multiclass weights against naive refits -------------------------------
def _arls_pool(n=30, seed=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.6
    y = np.digitize(X[:, 0] + 0.4 * X[:, 1], [-1.2, 0.3])  # classes 0, 1, 2, unequal sizes
    return X, y


@pytest.mark.parametrize("bias_corrected", [True, False])
def test_multiclass_balanced_arls_equals_naive_refits(bias_corrected):
    X, y = _arls_pool()
    sigma, lam, classes = 1.1, 0.25, [0, 1, 2]
    K = rbf_kernel(X, sigma=sigma)
    q = ARLS(sigma=sigma, lam=lam, class_weight="balanced", bias_corrected=bias_corrected)
    q.start(X, classes)
    # unequal class counts, so every OvA column has its own weights
    seeds = [np.flatnonzero(y == c)[:k] for c, k in ((0, 3), (1, 1), (2, 2))]
    for i in np.concatenate(seeds):
        q.teach(int(i), int(y[i]))
    for _ in range(3):
        L, cls = list(q.labeled_), [q.class_index(v) for v in q.labels_]
        W, w = spec_weights(cls, classes, "balanced")
        inv_w = 1.0 / w if bias_corrected else np.ones(3)
        f = naive_fit(K, L, cls, lam, W, 3)
        np.testing.assert_allclose(q.m_, f, atol=1e-10)
        np.testing.assert_allclose(q.V_, naive_V(K, L, cls, lam, W, 3), atol=1e-10)
        assert q.estimated_risk() == pytest.approx(naive_risk(f, inv_w, True, 3), abs=1e-9)
        ref = naive_scores(K, L, cls, lam, W, inv_w, True, 3)
        got = q.scores()
        np.testing.assert_allclose(got, ref, atol=1e-9, equal_nan=True)
        i, score = q.next_query()
        order = np.sort(ref[~np.isnan(ref)])
        assert order[1] - order[0] > 1e-9  # a clear winner on this pool
        assert i == int(np.nanargmin(ref)) and score == pytest.approx(order[0], abs=1e-9)
        q.teach(i, int(y[i]))
    # undo back to the seed labels, and the state equals the never-taught one
    for _ in range(3):
        q.undo()
    L, cls = list(q.labeled_), [q.class_index(v) for v in q.labels_]
    W, _ = spec_weights(cls, classes, "balanced")
    np.testing.assert_allclose(q.m_, naive_fit(K, L, cls, lam, W, 3), atol=1e-10)
    np.testing.assert_allclose(q.V_, naive_V(K, L, cls, lam, W, 3), atol=1e-9)
