"""The primal λ path (``RLSPath.from_features``, docs/mathematics.md §7) against the dense path on
the same
kernel ``ΦΦᵀ`` and against brute-force refits without each point."""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.core.rls.path import RLSPath

FIELDS = ("coef", "intercept", "fitted", "loo", "loo_variance", "gacv")


def close(a: np.ndarray, b: np.ndarray, rtol: float = 1e-8) -> bool:
    """Equal up to ``rtol`` of the larger array's magnitude (coefficients grow as 1/λ)."""
    scale = max(1.0, float(np.abs(a).max()), float(np.abs(b).max()))
    return float(np.abs(a - b).max()) <= rtol * scale


def weights(kind: str, rng, n: int, T: int):
    if kind == "none":
        return None
    if kind == "shared":
        return rng.uniform(0.2, 3.0, size=n)
    a = rng.uniform(0.2, 3.0, size=(n, T))
    a[rng.uniform(size=(n, T)) < 0.1] = 0.0  # zero weights: points that do not count
    return a


@pytest.mark.parametrize("offset", [False, True])
@pytest.mark.parametrize("kind", ["none", "shared", "per_column"])
@pytest.mark.parametrize("m", [5, 45])  # fewer features than points, and more
def test_primal_path_equals_the_dense_path_on_the_same_kernel(offset, kind, m):
    rng = np.random.default_rng(m + 7 * offset)
    n, T = 40, 3
    Phi = rng.normal(size=(n, m))
    Y = np.sign(rng.normal(size=(n, T)))
    A = weights(kind, rng, n, T)
    dense = RLSPath(Phi @ Phi.T, Y, A, offset=offset)
    primal = RLSPath.from_features(Phi, Y, A, offset=offset)
    for lam in (1e-3, 0.1, 10.0):
        a, b = dense.solve(lam), primal.solve(lam)
        for field in FIELDS:
            assert close(getattr(a, field), getattr(b, field)), (field, lam)
    lams = dense.default_lams()
    assert close(lams, primal.default_lams(), 1e-10)
    ca, cb = dense.curve(lams), primal.curve(lams)
    assert close(ca.to_numpy(), cb.to_numpy())


def refit_without(Phi, y, a, lam, i, offset):
    """Weighted ridge on every point but ``i`` solved directly (normal equations with an
    unpenalised offset column): the prediction at point ``i``."""
    keep = np.arange(len(y)) != i
    F = np.hstack([Phi, np.ones((len(y), 1))]) if offset else Phi
    P = lam * np.eye(F.shape[1])
    if offset:
        P[-1, -1] = 0.0
    Fa = F[keep] * a[keep, None]
    theta = np.linalg.solve(F[keep].T @ Fa + P, Fa.T @ y[keep])
    return F[i] @ theta


@pytest.mark.parametrize("offset", [False, True])
def test_primal_loo_matches_refits_without_each_point(offset):
    rng = np.random.default_rng(3)
    n, m = 30, 4
    Phi = rng.normal(size=(n, m))
    y = np.sign(Phi[:, 0] + 0.5 * rng.normal(size=n))
    a = rng.uniform(0.5, 2.0, size=n)
    path = RLSPath.from_features(Phi, y, a, offset=offset)
    for lam in (0.01, 1.0):
        sol = path.solve(lam)
        refits = [refit_without(Phi, y, a, lam, i, offset) for i in range(n)]
        np.testing.assert_allclose(sol.loo[:, 0], refits, rtol=1e-9, atol=1e-9)


def test_twenty_thousand_points_never_form_the_kernel():
    # n = 20 000 points and 10 features: the dense path would need 3.2 GB per n × n matrix
    rng = np.random.default_rng(5)
    X = rng.normal(size=(20_000, 10))
    y = np.sign(X @ rng.normal(size=10) + 0.3 * rng.normal(size=20_000))
    path = RLSPath.from_features(X, y, offset=True)
    curve = path.curve()
    assert len(curve) == 50 and curve["loo_classification_error"].min() < 0.2
    best = path.solve(RLSPath.best_lam(curve))
    i = 123
    assert abs(best.loo[i, 0] - refit_without(X, y, np.ones(len(y)), best.lam, i, True)) < 1e-8


def test_bad_features_are_named():
    with pytest.raises(ValueError, match="2-D"):
        RLSPath.from_features(np.ones(5), np.ones(5))
    with pytest.raises(ValueError, match="NaN"):
        RLSPath.from_features(np.full((4, 2), np.nan), np.ones(4))
    with pytest.raises(ValueError, match="zero"):
        RLSPath.from_features(np.zeros((4, 2)), np.ones(4)).default_lams()
