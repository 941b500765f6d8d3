"""Independent brute-force references for RLS (imported by the other RLS/confidence tests).

Nothing here uses an eigendecomposition or the ``W = A^{1/2}`` substitution of
:mod:`rlscore.core.rls`: weighted (offset) RLS is solved from its KKT system
``[[K + λA⁻¹, 1], [1ᵀ, 0]] [c; b] = [y; 0]`` (without offset: ``(K + λA⁻¹)c = y``), and
leave-one-out values come from refitting on the n − 1 other points with their weights
unchanged (SPEC §1). The tests at the bottom check the reference itself against the
objective's gradient, so the other tests compare against something known to be right.
"""

from __future__ import annotations

import numpy as np

from rlscore.core.kernels import rbf_kernel


def direct_solve(K, y, a, lam, offset):
    """Minimiser of ``(y − Kc − b1)ᵀA(y − Kc − b1) + λcᵀKc`` from the KKT system; a > 0."""
    n = K.shape[0]
    S = K + lam * np.diag(1.0 / a)
    if not offset:
        return np.linalg.solve(S, y), 0.0
    B = np.zeros((n + 1, n + 1))
    B[:n, :n] = S
    B[:n, n] = B[n, :n] = 1.0
    sol = np.linalg.solve(B, np.append(y, 0.0))
    return sol[:n], sol[n]


def brute_loo(K, y, a, lam, offset):
    """``f_{S∖i}(x_i)`` for every i by refitting on the other n − 1 points."""
    n = K.shape[0]
    out = np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        c, b = direct_solve(K[np.ix_(keep, keep)], y[keep], a[keep], lam, offset)
        out[i] = K[i, keep] @ c + b
    return out


def gp_variance(K_train, k_x, k_xx, a, lam, offset):
    """Direct Gaussian-process variance ``k(x,x) + λ − kᵀ(K + λA⁻¹)⁻¹k`` (+ offset term).

    The offset term is the flat-prior basis-function correction of Rasmussen & Williams §2.7:
    ``(1 − 1ᵀΣ⁻¹k)² / (1ᵀΣ⁻¹1)``.
    """
    S_inv = np.linalg.inv(K_train + lam * np.diag(1.0 / a))
    var = k_xx + lam - np.einsum("ij,jk,ik->i", k_x, S_inv, k_x)
    if offset:
        one = np.ones(K_train.shape[0])
        var = var + (1.0 - k_x @ S_inv @ one) ** 2 / (one @ S_inv @ one)
    return var


def brute_loo_variance(K, a, lam, offset):
    """GP variance at ``x_i`` of the model trained on the other n − 1 points."""
    n = K.shape[0]
    out = np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        out[i] = gp_variance(
            K[np.ix_(keep, keep)], K[i, keep][None, :], np.array([K[i, i]]), a[keep], lam, offset
        )[0]
    return out


def hat_matrix(K, a, lam, offset):
    """``H`` with ``f = H y``, column by column from direct solves (f is linear in y)."""
    n = K.shape[0]
    H = np.empty((n, n))
    for j in range(n):
        c, b = direct_solve(K, np.eye(n)[j], a, lam, offset)
        H[:, j] = K @ c + b
    return H


def eigen_range(K, a):
    """Smallest and largest eigenvalue of ``M = diag(√a) K diag(√a)`` (``eigvalsh``).

    The test problems are well conditioned: every eigenvalue exceeds 1e-9 of the largest
    (asserted), so "the smallest positive eigenvalue" of Paskov §2.5 is simply the smallest
    one and no rounding threshold is involved.
    """
    w = np.sqrt(a)
    ev = np.linalg.eigvalsh(w[:, None] * K * w[None, :])
    assert ev[0] > 1e-9 * ev[-1], "ill-conditioned test problem: the grid's lower end is unclear"
    return ev[0], ev[-1]


def default_grid(K, a, num=50):
    """Paskov §2.5 grid: geometric from the smallest to the largest eigenvalue of M."""
    lo, hi = eigen_range(K, a)
    return np.geomspace(lo, hi, num)


def ova(y_index, T):
    """±1 one-vs-all targets: (n, 1) for T = 2 (class 1 positive), else (n, T)."""
    if T == 2:
        return np.where(y_index == 1, 1.0, -1.0)[:, None]
    Y = -np.ones((y_index.size, T))
    Y[np.arange(y_index.size), y_index] = 1.0
    return Y


def balanced(y_index, T):
    """SPEC §1 balanced OvA weights, written out from the formulas."""
    n = y_index.size
    counts = np.bincount(y_index, minlength=T)
    if T == 2:
        return np.array([n / (2 * counts[k]) for k in y_index])[:, None]
    A = np.empty((n, T))
    for t in range(T):
        for i in range(n):
            A[i, t] = n / (2 * counts[t]) if y_index[i] == t else n / (2 * (n - counts[t]))
    return A


def make_problem(seed, n=24, d=2, T=2, sigma=1.0):
    """A small random pool with every class present, its RBF kernel and labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.concatenate([np.arange(T), rng.integers(0, T, n - T)])
    rng.shuffle(y)
    X += y[:, None] * 0.7  # some signal
    return X, y, rbf_kernel(X, sigma=sigma)


# -- the reference is right: gradient of the objective vanishes at its solution ----------------
def _objective_gradient(K, y, a, lam, c, b):
    r = y - K @ c - b
    gc = -2 * K @ (a * r) + 2 * lam * K @ c
    gb = -2 * np.sum(a * r)
    return gc, gb


def test_direct_solve_is_a_minimiser():
    rng = np.random.default_rng(0)
    X, y, K = make_problem(1, n=15)
    yy = np.where(y == 1, 1.0, -1.0)
    a = rng.uniform(0.2, 3.0, 15)
    for offset in (False, True):
        c, b = direct_solve(K, yy, a, 0.3, offset)
        gc, gb = _objective_gradient(K, yy, a, 0.3, c, b)
        assert np.max(np.abs(gc)) < 1e-10
        assert abs(gb) < 1e-10 or not offset


def test_brute_loo_matches_explicit_refit_objective():
    # the LOO model of point 3 minimises the objective without point 3
    X, y, K = make_problem(2, n=12)
    yy = np.where(y == 1, 1.0, -1.0)
    a = np.linspace(0.5, 2.0, 12)
    keep = np.arange(12) != 3
    c, b = direct_solve(K[np.ix_(keep, keep)], yy[keep], a[keep], 0.5, True)
    gc, gb = _objective_gradient(K[np.ix_(keep, keep)], yy[keep], a[keep], 0.5, c, b)
    assert np.max(np.abs(gc)) < 1e-10 and abs(gb) < 1e-10
    assert brute_loo(K, yy, a, 0.5, True)[3] == K[3, keep] @ c + b


def test_gp_variance_matches_conditional_gaussian():
    # no offset: the conditional variance of a joint Gaussian, computed from the joint covariance
    X, y, K = make_problem(3, n=10)
    a = np.linspace(0.5, 2.0, 9)
    lam = 0.4
    S = K.copy()
    S[:9, :9] += lam * np.diag(1.0 / a)
    S[9, 9] += lam
    cond = S[9, 9] - S[9, :9] @ np.linalg.solve(S[:9, :9], S[:9, 9])
    got = gp_variance(K[:9, :9], K[9, :9][None, :], np.array([K[9, 9]]), a, lam, False)[0]
    assert abs(got - cond) < 1e-12
    # offset: limit of a constant kernel term β·11ᵀ with huge β (flat prior on b)
    beta = 1e7
    Kb = K + beta
    Sb = Kb.copy()
    Sb[:9, :9] += lam * np.diag(1.0 / a)
    Sb[9, 9] += lam
    cond_b = Sb[9, 9] - Sb[9, :9] @ np.linalg.solve(Sb[:9, :9], Sb[:9, 9])
    got_b = gp_variance(K[:9, :9], K[9, :9][None, :], np.array([K[9, 9]]), a, lam, True)[0]
    assert abs(got_b - cond_b) < 1e-5 * cond_b


def test_balanced_weights_equalise_classes():
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 2, 2])
    A = balanced(y, 3)
    for t in range(3):
        pos = y == t
        assert np.isclose(A[pos, t].sum(), A[~pos, t].sum())
