"""Nyström features and landmark rules (docs/mathematics.md §7) against references written here with
numpy.

The references never call rlscore: kernels are written out (``_rbf``), pseudo-inverses are
``numpy.linalg.pinv``, Frobenius norms are ``numpy.linalg.norm`` of the full matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.core.kernels.landmarks import LANDMARK_RULES
from rlscore.core.kernels.lowrank import LowRankKernel, relative_frobenius_error

SIGMA = 1.3


def _rbf(A, B, sigma=SIGMA):
    d = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-d / (2 * sigma**2))


def _poly(A, B, degree=3):
    return (1.0 + A @ B.T) ** degree


@pytest.fixture(scope="module")
def pool():
    rng = np.random.default_rng(0)
    # two clusters and a few outliers: the rules choose visibly different landmarks
    return np.vstack(
        [rng.normal(0, 1, (120, 4)), rng.normal(3, 0.5, (60, 4)), rng.normal(0, 6, (20, 4))]
    )


def _nystrom_reference(X, Z, groups, weights, kernel=_rbf):
    """Σ_r μ_r K_{n,Z_r} pinv(K_{Z_r Z_r}) K_{Z_r,n}, straight from the definition."""
    K = np.zeros((X.shape[0], X.shape[0]))
    for g, mu in zip(groups, weights, strict=True):
        E = kernel(X, Z[g])
        K += mu * E @ np.linalg.pinv(kernel(Z[g], Z[g]), rcond=1e-10, hermitian=True) @ E.T
    return K


@pytest.mark.parametrize("rule", ["uniform", "kmeans", "ic"])
def test_all_points_as_landmarks_reproduce_the_kernel(pool, rule):
    X = pool[:80]
    lr = LowRankKernel(sigma=SIGMA, n_landmarks=80, landmarks=rule).fit(X)
    F = lr.features_
    np.testing.assert_allclose(F @ F.T, _rbf(X, X), atol=1e-8)


@pytest.mark.parametrize("rule", LANDMARK_RULES)
def test_features_equal_the_nystrom_formula_with_pinv(pool, rule):
    lr = LowRankKernel(sigma=SIGMA, n_landmarks=12, landmarks=rule, n_subsets=3).fit(pool)
    Z = lr.landmarks_
    expect = _nystrom_reference(pool, Z, lr.groups_, lr.weights_)
    np.testing.assert_allclose(lr.features_ @ lr.features_.T, expect, atol=1e-8)
    # the landmarks are pool rows where the rule says so, and new points use the same map
    if lr.landmark_indices_ is not None:
        np.testing.assert_array_equal(pool[lr.landmark_indices_], Z)
    np.testing.assert_allclose(lr.transform(pool[:7]), lr.features_[:7], atol=1e-12)
    assert np.isclose(lr.weights_.sum(), 1.0) and np.all(lr.weights_ > 0)


def test_polynomial_kernel_features_equal_the_nystrom_formula(pool):
    X = pool[:100] / 3
    for rule in ("uniform", "ic", "ensemble"):
        lr = LowRankKernel(kernel="polynomial", degree=3, n_landmarks=10, landmarks=rule).fit(X)
        expect = _nystrom_reference(X, lr.landmarks_, lr.groups_, lr.weights_, kernel=_poly)
        np.testing.assert_allclose(lr.features_ @ lr.features_.T, expect, rtol=1e-7, atol=1e-7)


def test_new_points_get_the_nystrom_cross_kernel(pool):
    rng = np.random.default_rng(1)
    new = rng.normal(size=(5, 4))
    for rule in ("ensemble", "kmeans"):
        lr = LowRankKernel(sigma=SIGMA, n_landmarks=10, landmarks=rule, n_subsets=2).fit(pool)
        expect = np.zeros((5, pool.shape[0]))
        for g, mu in zip(lr.groups_, lr.weights_, strict=True):
            Z = lr.landmarks_[g]
            W = np.linalg.pinv(_rbf(Z, Z), rcond=1e-10, hermitian=True)
            expect += mu * _rbf(new, Z) @ W @ _rbf(Z, pool)
        np.testing.assert_allclose(lr.transform(new) @ lr.features_.T, expect, atol=1e-8)
        dense = lr.normalization_ if isinstance(lr.normalization_, np.ndarray) else None
        if dense is None:  # the sparse block-diagonal normalisation gives the same features
            np.testing.assert_allclose(
                _rbf(new, lr.landmarks_) @ lr.normalization_, lr.transform(new), atol=1e-12
            )


def test_incomplete_cholesky_residual_trace(pool):
    K = _rbf(pool, pool)
    traces = []
    for m in (1, 3, 8, 20, 40):
        lr = LowRankKernel(sigma=SIGMA, n_landmarks=m, landmarks="ic").fit(pool)
        F = lr.features_
        residual = np.trace(K - F @ F.T)
        assert lr.residual_traces_[-1] == pytest.approx(residual, rel=1e-8, abs=1e-9)
        traces.append(residual)
        # the residual path is non-increasing and starts at tr K
        assert lr.residual_traces_[0] == pytest.approx(np.trace(K))
        assert np.all(np.diff(lr.residual_traces_) <= 1e-12)
    assert all(a >= b - 1e-12 for a, b in zip(traces[:-1], traces[1:], strict=True))
    # the first pivot is the largest diagonal (all equal for RBF: index 0), the second the point
    # farthest from it in kernel distance, i.e. the smallest k(x_0, x) (a wide σ: no ties)
    lr = LowRankKernel(sigma=8.0, n_landmarks=2, landmarks="ic").fit(pool)
    assert lr.landmark_indices_[0] == 0
    assert lr.landmark_indices_[1] == np.argmin(_rbf(pool[:1], pool, sigma=8.0)[0])


def test_incomplete_cholesky_stops_at_the_rank(pool):
    # the linear kernel on 4-dimensional points has rank 4: no fifth pivot
    lr = LowRankKernel(kernel="linear", n_landmarks=10, landmarks="ic").fit(pool)
    assert lr.landmarks_.shape[0] == 4
    np.testing.assert_allclose(lr.features_ @ lr.features_.T, pool @ pool.T, atol=1e-8)


def test_ensemble_weights_follow_the_validation_errors(pool):
    uni = LowRankKernel(sigma=SIGMA, n_landmarks=10, landmarks="ensemble", n_subsets=4).fit(pool)
    assert uni.landmarks_.shape[0] == 40 and np.allclose(uni.weights_, 0.25)
    assert np.unique(uni.landmark_indices_).size == 40  # disjoint subsets
    lr = LowRankKernel(
        sigma=SIGMA, n_landmarks=10, landmarks="ensemble", n_subsets=4, mixture="exponential"
    ).fit(pool)
    V = lr.validation_indices_
    assert not set(V) & set(lr.landmark_indices_)
    K_nV = _rbf(pool, pool[V])
    errors = []
    for g in lr.groups_:
        Z = lr.landmarks_[g]
        E = _rbf(pool, Z)
        approx = E @ np.linalg.pinv(_rbf(Z, Z), rcond=1e-10, hermitian=True) @ _rbf(Z, pool[V])
        errors.append(np.linalg.norm(K_nV - approx) / np.linalg.norm(K_nV))
    np.testing.assert_allclose(lr.validation_errors_, errors, rtol=1e-8)
    mu = np.exp(-100.0 * np.array(errors))
    np.testing.assert_allclose(lr.weights_, mu / mu.sum(), rtol=1e-8)


def test_boost_nystrom_structure(pool):
    m, p = 10, 4
    lr = LowRankKernel(
        sigma=SIGMA, n_landmarks=m, landmarks="boost", n_subsets=p, block_size=5, random_state=3
    ).fit(pool)
    idx = lr.landmark_indices_
    assert [g.size for g in lr.groups_] == [m] * p
    assert np.unique(idx).size == m * p  # S_t never repeats a chosen column
    assert not set(idx) & set(lr.validation_indices_)  # nor the validation columns
    mu = np.exp(-100.0 * lr.validation_errors_)
    np.testing.assert_allclose(lr.weights_, mu / mu.sum(), rtol=1e-8)
    again = LowRankKernel(
        sigma=SIGMA, n_landmarks=m, landmarks="boost", n_subsets=p, block_size=5, random_state=3
    ).fit(pool)
    np.testing.assert_array_equal(again.landmark_indices_, idx)


def test_boost_first_subset_is_the_best_blocks_of_the_first_draw(pool):
    # block size = m: the first subset is the single block with the lowest validation error
    # among the p blocks of the first uniform draw (replayed here with the same random stream)
    m, p = 8, 3
    lr = LowRankKernel(
        sigma=SIGMA, n_landmarks=m, landmarks="boost", n_subsets=p, block_size=m, random_state=5
    ).fit(pool)
    rng = np.random.RandomState(5)
    V = np.sort(rng.choice(pool.shape[0], size=m, replace=False))
    prob = np.ones(pool.shape[0])
    prob[V] = 0
    cols = rng.choice(pool.shape[0], size=m * p, replace=False, p=prob / prob.sum())
    K_nV = _rbf(pool, pool[V])
    best, best_err = None, np.inf
    for b in cols.reshape(p, m):
        Z = pool[b]
        approx = _rbf(pool, Z) @ np.linalg.pinv(_rbf(Z, Z), hermitian=True) @ _rbf(Z, pool[V])
        err = np.linalg.norm(K_nV - approx) / np.linalg.norm(K_nV)
        if err < best_err:
            best, best_err = np.sort(b), err
    np.testing.assert_array_equal(V, lr.validation_indices_)
    np.testing.assert_array_equal(lr.landmark_indices_[lr.groups_[0]], best)


def test_boost_needs_room_for_validation_columns():
    X = np.random.default_rng(0).normal(size=(50, 2))
    lr = LowRankKernel(n_landmarks=40, landmarks="boost", n_subsets=4).fit(X)
    assert lr.landmarks_.shape[0] == 4 * (50 // 5)  # m capped at n // (p + 1)


def test_exact_frobenius_error_matches_numpy(pool):
    K = _rbf(pool, pool)
    for rule in ("uniform", "ensemble"):
        lr = LowRankKernel(sigma=SIGMA, n_landmarks=15, landmarks=rule).fit(pool)
        F = lr.features_
        est, se = relative_frobenius_error(pool, F, sigma=SIGMA)
        assert se == 0.0
        assert est == pytest.approx(np.linalg.norm(K - F @ F.T) / np.linalg.norm(K), rel=1e-10)
    # features of another kernel are far off: the error is not a constant of the features
    wrong, _ = relative_frobenius_error(pool, np.ones((pool.shape[0], 1)), sigma=SIGMA)
    assert wrong == pytest.approx(np.linalg.norm(K - 1) / np.linalg.norm(K), rel=1e-10)


def test_sampled_frobenius_error_is_within_three_standard_errors():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(0, 1, (2000, 3)), rng.normal(2.5, 0.7, (1000, 3))])
    lr = LowRankKernel(sigma=0.8, n_landmarks=40).fit(X)
    exact, se0 = relative_frobenius_error(X, lr.features_, sigma=0.8)
    assert se0 == 0
    est, se = relative_frobenius_error(
        X, lr.features_, sigma=0.8, exact_max=1000, n_pairs=100_000, random_state=7
    )
    assert 0 < se < 0.1 * exact
    assert abs(est - exact) < 3 * se


def test_parameters_are_checked(pool):
    with pytest.raises(ValueError, match="unknown landmarks"):
        LowRankKernel(landmarks="random").fit(pool)
    with pytest.raises(ValueError, match="mixture"):
        LowRankKernel(landmarks="ensemble", mixture="softmax").fit(pool)
    with pytest.raises(ValueError, match="n_subsets"):
        LowRankKernel(landmarks="boost", n_subsets=0).fit(pool)
    with pytest.raises(ValueError, match="rows"):
        relative_frobenius_error(pool, np.ones((3, 2)))
