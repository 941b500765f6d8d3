"""Rifkin's subset / rectangle / Nyström RLS (docs/mathematics.md §7) against direct numpy solves
written here."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from rlscore.core.rls.reduced import (
    ReducedRLSClassifier,
    nystrom_rls,
    rectangle_rls,
    subset_rls,
)

SIGMA = 1.5


def _rbf(A, B, sigma=SIGMA):
    d = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-d / (2 * sigma**2))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=150) > 0, 1.0, -1.0)
    return X, y


def test_rectangle_solves_its_normal_equations(data):
    X, y = data
    idx = np.arange(0, 150, 6)  # 25 landmarks
    K_nm, K_mm = _rbf(X, X[idx]), _rbf(X[idx], X[idx])
    lam = 0.5
    c = rectangle_rls(K_nm, K_mm, y, lam)
    # (K_mn K_nm + λ K_mm) c = K_mn y, in our λ (no 1/ℓ)
    direct = np.linalg.solve(K_nm.T @ K_nm + lam * K_mm, K_nm.T @ y)
    f, f_direct = K_nm @ c, K_nm @ direct
    np.testing.assert_allclose(f, f_direct, atol=1e-7)

    def objective(v):
        r = y - K_nm @ v
        return r @ r + lam * v @ K_mm @ v

    # and it is the minimiser: the objective is no lower anywhere a generic optimiser looks
    best = minimize(objective, np.zeros(idx.size), method="BFGS", options={"gtol": 1e-10})
    assert objective(c) <= best.fun + 1e-8
    # a different λ gives a different solution (the check can fail)
    assert np.abs(K_nm @ rectangle_rls(K_nm, K_mm, y, 5.0) - f).max() > 1e-3


def test_rectangle_with_all_points_is_full_rls(data):
    X, y = data
    K = _rbf(X, X)
    lam = 0.3
    c = rectangle_rls(K, K, y, lam)
    # with every point a landmark the objective is full RLS: (K + λI) c = y
    np.testing.assert_allclose(K @ c, K @ np.linalg.solve(K + lam * np.eye(150), y), atol=1e-6)


def test_subset_is_rls_on_the_landmarks(data):
    X, y = data
    idx = np.arange(0, 150, 5)
    lam = 0.2
    c = subset_rls(_rbf(X[idx], X[idx]), y[idx], lam)
    np.testing.assert_allclose(
        c, np.linalg.solve(_rbf(X[idx], X[idx]) + lam * np.eye(idx.size), y[idx]), rtol=1e-9
    )
    clf = ReducedRLSClassifier(method="subset", sigma=SIGMA, lam=lam, n_landmarks=30).fit(X, y)
    L = clf.landmark_indices_
    ref = np.linalg.solve(_rbf(X[L], X[L]) + lam * np.eye(30), y[L])
    Xt = np.random.default_rng(1).normal(size=(20, 3))
    np.testing.assert_allclose(clf.decision_function(Xt), _rbf(Xt, X[L]) @ ref, atol=1e-9)


def test_nystrom_rls_uses_the_approximate_kernel_then_the_exact_one(data):
    X, y = data
    lam = 0.4
    clf = ReducedRLSClassifier(method="nystrom", sigma=SIGMA, lam=lam, n_landmarks=20).fit(X, y)
    L = clf.landmark_indices_
    E = _rbf(X, X[L])
    K_tilde = E @ np.linalg.pinv(_rbf(X[L], X[L]), hermitian=True) @ E.T
    c = np.linalg.solve(K_tilde + lam * np.eye(150), y)
    Xt = np.random.default_rng(2).normal(size=(15, 3))
    np.testing.assert_allclose(clf.decision_function(Xt), _rbf(Xt, X) @ c, atol=1e-7)
    Phi = np.linalg.cholesky(K_tilde + 1e-12 * np.eye(150))
    np.testing.assert_allclose(nystrom_rls(Phi, y, lam), c, atol=1e-5)


def test_rectangle_classifier_matches_the_normal_equations_on_new_points(data):
    X, y = data
    lam = 0.7
    for rule in ("uniform", "ic", "kmeans"):
        clf = ReducedRLSClassifier(sigma=SIGMA, lam=lam, n_landmarks=15, landmarks=rule)
        clf.fit(X, y)
        Z = clf.basis_
        K_nm = _rbf(X, Z)
        c = np.linalg.solve(K_nm.T @ K_nm + lam * _rbf(Z, Z), K_nm.T @ y)
        Xt = np.random.default_rng(3).normal(size=(10, 3))
        np.testing.assert_allclose(clf.decision_function(Xt), _rbf(Xt, Z) @ c, atol=1e-6)
        assert set(clf.predict(Xt)) <= {-1.0, 1.0}


def test_multiclass_one_vs_all_and_labels(data):
    X, _ = data
    y = np.array(["a", "b", "c"])[np.argmax(X, axis=1)]
    clf = ReducedRLSClassifier(sigma=SIGMA, lam=0.1, n_landmarks=40).fit(X, y)
    assert clf.decision_function(X).shape == (150, 3)
    assert (clf.predict(X) == y).mean() > 0.85
    Z = clf.basis_
    K_nm = _rbf(X, Z)
    Y = np.where(y[:, None] == np.array(["a", "b", "c"]), 1.0, -1.0)
    c = np.linalg.solve(K_nm.T @ K_nm + 0.1 * _rbf(Z, Z), K_nm.T @ Y)
    np.testing.assert_allclose(clf.decision_function(X[:5]), K_nm[:5] @ c, atol=1e-6)


def test_parameters_are_checked(data):
    X, y = data
    with pytest.raises(ValueError, match="method"):
        ReducedRLSClassifier(method="square").fit(X, y)
    with pytest.raises(ValueError, match="k-means"):
        ReducedRLSClassifier(method="subset", landmarks="kmeans").fit(X, y)
    with pytest.raises(ValueError, match="single class"):
        ReducedRLSClassifier().fit(X, np.ones(150))
    with pytest.raises(ValueError, match="lam"):
        subset_rls(np.eye(2), np.ones(2), 0.0)
