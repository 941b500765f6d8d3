"""The label checker's LOO values and λ: one Cholesky factor against brute-force refits, the
sketched λ search against the full eigendecomposition path."""

from __future__ import annotations

import numpy as np
import pytest

import rlscore
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.rls.cholesky_loo import EXACT_SEARCH_MAX, checker_loo, cholesky_loo
from rlscore.core.rls.eigen_loo import EigenLOO
from rlscore.core.rls.path import RLSPath
from rlscore.core.rls.sketched_lam import _orthonormal_basis, kernel_sketch, sketched_loo_lam


def _rbf(X: np.ndarray, sigma: float) -> np.ndarray:
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-sq / (2.0 * sigma**2))


def _brute_force_loo(K: np.ndarray, Y: np.ndarray, lam: float) -> np.ndarray:
    """(n, T) the value at each point of RLS refitted without it: (K + λI)c = Y from scratch."""
    F = np.empty_like(Y)
    for i in range(Y.shape[0]):
        rest = np.delete(np.arange(Y.shape[0]), i)
        c = np.linalg.solve(K[np.ix_(rest, rest)] + lam * np.eye(rest.size), Y[rest])
        F[i] = K[i, rest] @ c
    return F


def _noisy_blobs(n: int, n_classes: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Overlapping Gaussian classes with 10 % of the labels moved to the next class."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=1.5, size=(n_classes, d))
    y = rng.integers(0, n_classes, size=n)
    X = centres[y] + rng.normal(size=(n, d))
    flipped = rng.choice(n, n // 10, replace=False)
    y[flipped] = (y[flipped] + 1) % n_classes
    return X, y


@pytest.mark.parametrize("n_classes", [2, 4])
def test_cholesky_loo_equals_brute_force_refits(n_classes):
    X, y = _noisy_blobs(60, n_classes, 3, seed=n_classes)
    K, Y = _rbf(X, 1.5), ova_targets(y, n_classes)
    np.testing.assert_allclose(cholesky_loo(K, Y, 0.3), _brute_force_loo(K, Y, 0.3), atol=1e-9)


def test_a_singular_system_falls_back_to_the_eigendecomposition():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    K = X @ X.T  # rank 2: K + λI is singular in floating point for a λ far below rounding
    Y = ova_targets(rng.integers(0, 2, size=30), 2)
    assert cholesky_loo(K, Y, 1e-30) is None
    loo, lam = checker_loo(K, Y, 1e-30)
    np.testing.assert_array_equal(loo, RLSPath(K, Y).loo(1e-30))
    assert lam == 1e-30


def test_the_sketched_search_gives_exact_loo_values_at_its_lambda():
    X, y = _noisy_blobs(90, 3, 4, seed=5)
    K, Y = _rbf(X, 2.0), ova_targets(y, 3)
    loo, lam = checker_loo(K, Y, exact_search_max=0)  # the sketch, on a pool this small
    assert lam == sketched_loo_lam(K, Y)
    np.testing.assert_allclose(loo, _brute_force_loo(K, Y, lam), atol=1e-8)


def test_label_issues_on_a_larger_pool_is_exact_loo_at_its_lambda():
    X, y = _noisy_blobs(EXACT_SEARCH_MAX + 30, 3, 5, seed=6)
    table = rlscore.label_issues(X, y)  # past EXACT_SEARCH_MAX: the sketched λ search
    K = _rbf(X, table.attrs["sigma"])
    F = _brute_force_loo(K, ova_targets(y, 3), table.attrs["lam"])
    got = table.set_index("index").sort_index()
    rows = np.arange(y.size)
    others = F.copy()
    others[rows, y] = -np.inf
    np.testing.assert_allclose(got["label_margin"], others.max(axis=1) - F[rows, y], atol=1e-8)
    np.testing.assert_array_equal(got["suggested"], np.argmax(F, axis=1))


@pytest.mark.parametrize(
    ("n", "n_classes", "d", "sigma"),
    [(600, 2, 20, 6.0), (500, 3, 2, 0.7), (600, 5, 10, 4.0)],
)
def test_the_sketched_lambda_is_near_the_full_search(n, n_classes, d, sigma):
    """The exact LOO classification error at the sketched λ is within 1 % of the points of
    the full search's minimum (RLSPath on the whole eigendecomposition, the same 50-λ
    rule on its own grid)."""
    X, y = _noisy_blobs(n, n_classes, d, seed=n + d)
    K, Y = _rbf(X, sigma), ova_targets(y, n_classes)
    path = RLSPath(K, Y)
    full = path.best_loo_lam()
    sketched = sketched_loo_lam(K, Y)
    errors = path.curve([full, sketched])["loo_classification_error"].to_numpy()
    assert errors[1] <= errors[0] + 0.01


def test_the_sketch_is_the_kernel_when_its_rank_covers_it():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 3))
    K = X @ X.T  # rank 3: a rank-10 sketch holds all of it
    U, evals = kernel_sketch(K, 10)
    np.testing.assert_allclose(U.T @ U, np.eye(10), atol=1e-12)
    np.testing.assert_allclose((U * evals) @ U.T, K, atol=1e-10)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_the_eigenpair_loo_values_equal_brute_force_refits(n_classes):
    X, y = _noisy_blobs(50, n_classes, 3, seed=10 + n_classes)
    K, Y = _rbf(X, 1.5), ova_targets(y, n_classes)
    lams = np.array([1e-3, 0.3, 5.0])
    got = EigenLOO.of_kernel(K, Y).loo(lams)
    for j, lam in enumerate(lams):
        np.testing.assert_allclose(got[:, j], _brute_force_loo(K, Y, lam), atol=1e-8)


def test_thin_eigenpair_loo_values_equal_brute_force_refits_on_their_kernel():
    rng = np.random.default_rng(9)
    U = np.linalg.qr(rng.normal(size=(40, 6)))[0]
    evals = np.sort(rng.uniform(0.1, 5.0, size=6))
    Y = ova_targets(rng.integers(0, 3, size=40), 3)
    lams = np.array([1e-2, 0.7])
    got = EigenLOO(U, evals, Y).loo(lams)
    K = (U * evals) @ U.T
    for j, lam in enumerate(lams):
        np.testing.assert_allclose(got[:, j], _brute_force_loo(K, Y, lam), atol=1e-8)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_eigenpair_search_picks_the_brute_force_minimiser(n_classes):
    """The largest λ of least LOO classification error over the path's grid, the errors
    counted from refits without each point."""
    X, y = _noisy_blobs(36, n_classes, 2, seed=20 + n_classes)
    K, Y = _rbf(X, 1.0), ova_targets(y, n_classes)
    search = EigenLOO.of_kernel(K, Y)
    lams = search.default_lams(12)
    np.testing.assert_allclose(lams, RLSPath(K, Y).default_lams(12))
    errors = []
    for lam in lams:
        F = _brute_force_loo(K, Y, lam)
        wrong = (F[:, 0] > 0) != (y == 1) if n_classes == 2 else np.argmax(F, axis=1) != y
        errors.append(wrong.mean())
    errors = np.array(errors)
    assert search.best_lam(lams) == lams[errors <= errors.min() + 1e-12].max()


@pytest.mark.parametrize(("n", "n_classes", "sigma"), [(120, 2, 1.0), (150, 3, 0.5), (90, 6, 2.0)])
def test_the_small_pool_lambda_is_the_full_paths(n, n_classes, sigma):
    """On pools up to EXACT_SEARCH_MAX the checker keeps the λ of RLSPath's exact search."""
    X, y = _noisy_blobs(n, n_classes, 3, seed=n)
    K, Y = _rbf(X, sigma), ova_targets(y, n_classes)
    path = RLSPath(K, Y)
    loo, lam = checker_loo(K, Y)
    assert lam == path.best_loo_lam()
    np.testing.assert_allclose(loo, path.loo(lam), atol=1e-10)


@pytest.mark.parametrize("ill_conditioned", [False, True])
def test_the_sketch_basis_is_orthonormal_and_spans_the_block(ill_conditioned):
    """The sketch's basis (a Cholesky QR of the block's LU factor, or a Householder QR where
    that factor is ill conditioned) against numpy's QR of the block: orthonormal columns,
    the same projector. The unit lower triangular block with −1 below the diagonal is its
    own LU factor, with condition number near 2^r."""
    n, r = 80, 40
    if ill_conditioned:
        Z = np.eye(n, r) - np.tril(np.ones((n, r)), -1)
        Z[r:] = 0.0
    else:
        Z = np.random.default_rng(3).normal(size=(n, r))
    Q = _orthonormal_basis(Z.copy())
    reference = np.linalg.qr(Z)[0]
    np.testing.assert_allclose(Q.T @ Q, np.eye(r), atol=1e-10)
    np.testing.assert_allclose(Q @ Q.T, reference @ reference.T, atol=1e-8)
