"""Independent brute-force references for RLS (imported by the RLS and confidence tests).

Nothing here uses an eigendecomposition or the ``W = A^{1/2}`` substitution of
:mod:`rlscore.core.rls.classifier`: weighted (offset) RLS is solved from its KKT system
``[[K + λA⁻¹, 1], [1ᵀ, 0]] [c; b] = [y; 0]`` (without offset: ``(K + λA⁻¹)c = y``), and
leave-one-out values come from refitting on the n − 1 other points with their weights
unchanged (docs/mathematics.md §1), or for balanced class weights with the weights recomputed
for them (:func:`fold_balanced`, docs/mathematics.md §3). ``tests/test_rls_reference.py``
checks these references against the objective's gradient, so the other tests compare against
something known to be right.
"""

from __future__ import annotations

import numpy as np

from rlscore.core.kernels.functions import rbf_kernel


def direct_solve(K, y, a, lam, offset, precision=0.0):
    """Minimiser of ``(y − Kc − b1)ᵀA(y − Kc − b1) + λcᵀKc + λPb²`` from the KKT system
    ``[[K + λA⁻¹, 1], [1ᵀ, −P]] [c; b] = [y; 0]``; a > 0, P = ``precision`` (0: unpenalised)."""
    n = K.shape[0]
    S = K + lam * np.diag(1.0 / a)
    if not offset:
        return np.linalg.solve(S, y), 0.0
    B = np.zeros((n + 1, n + 1))
    B[:n, :n] = S
    B[:n, n] = B[n, :n] = 1.0
    B[n, n] = -precision
    sol = np.linalg.solve(B, np.append(y, 0.0))
    return sol[:n], sol[n]


def brute_loo(K, y, a, lam, offset, precision=0.0):
    """``f_{S∖i}(x_i)`` for every i by refitting on the other n − 1 points."""
    n = K.shape[0]
    out = np.empty(n)
    for i in range(n):
        keep = np.arange(n) != i
        c, b = direct_solve(K[np.ix_(keep, keep)], y[keep], a[keep], lam, offset, precision)
        out[i] = K[i, keep] @ c + b
    return out


def gp_variance(K_train, k_x, k_xx, a, lam, offset, precision=0.0):
    """Direct Gaussian-process variance ``k(x,x) + λ − kᵀ(K + λA⁻¹)⁻¹k`` (+ offset term).

    The offset term is the basis-function correction of Rasmussen & Williams §2.7 (eq. 2.42
    with one basis function and prior precision P, 0 for the flat prior):
    ``(1 − 1ᵀΣ⁻¹k)² / (1ᵀΣ⁻¹1 + P)``.
    """
    S_inv = np.linalg.inv(K_train + lam * np.diag(1.0 / a))
    var = k_xx + lam - np.einsum("ij,jk,ik->i", k_x, S_inv, k_x)
    if offset:
        one = np.ones(K_train.shape[0])
        var = var + (1.0 - k_x @ S_inv @ one) ** 2 / (one @ S_inv @ one + precision)
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


def fold_balanced(y_index, T, i):
    """(n, T') balanced weights of the refit without point i, written out (docs/mathematics.md
    §3, "Exact leave-one-out with balanced weights"): each OvA column's two sides recounted
    without i, positives ``m/(2 m₊)``, negatives ``m/(2 m₋)`` with ``m = n − 1``; a column that
    would keep one side only keeps its full-data weights. Row i is irrelevant (i is left out).
    """
    n = y_index.size
    A = balanced(y_index, T)
    Y = ova(y_index, T)
    keep = np.arange(n) != i
    for t in range(Y.shape[1]):
        pos = Y[keep, t] > 0
        m_pos, m_neg = int(pos.sum()), int((~pos).sum())
        if m_pos and m_neg:
            A[:, t] = np.where(Y[:, t] > 0, (n - 1) / (2 * m_pos), (n - 1) / (2 * m_neg))
    return A


def brute_loo_per_fold(K, Y, weights_of, lam, offset, precision=0.0):
    """(n, T') LOO values and (n, T') GP variances: point i's from the refit on the other
    n − 1 points with the (n, T') loss weights ``weights_of(i)`` (fixed weights:
    ``lambda i: A``; balanced weights recomputed per fold: :func:`fold_balanced`)."""
    n, cols = Y.shape
    loo, var = np.empty((n, cols)), np.empty((n, cols))
    for i in range(n):
        keep = np.arange(n) != i
        A = weights_of(i)
        Kk = K[np.ix_(keep, keep)]
        for t in range(cols):
            c, b = direct_solve(Kk, Y[keep, t], A[keep, t], lam, offset, precision)
            loo[i, t] = K[i, keep] @ c + b
            var[i, t] = gp_variance(
                Kk, K[i, keep][None, :], np.array([K[i, i]]), A[keep, t], lam, offset, precision
            )[0]
    return loo, var


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
    """docs/mathematics.md §1 balanced OvA weights, written out from the formulas."""
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


def brute_force_auto_lam(K, Y, A, e, grid, error, offset=False, weights_of=None):
    """The largest λ of ``grid`` minimising the LOO error, every LOO value from a refit.

    ``Y`` (n, T') ±1 targets, ``A`` (n, T') loss weights, ``e`` (n,) error weights. Squared
    error ``Σ A (Y − L)² / (n T')``; classification error ``Σ e_i [wrong_i] / Σ e_i`` (sign for
    one column, argmax otherwise). n refits per λ and per column, nothing from the engine;
    ``weights_of(i)`` gives the weights of the refit without i (default ``A``: fixed weights).

    Ties: the caller checks that every error is either within 1e-13 of the minimum (an exact
    tie, computed in another order) or more than 1e-8 above it, so the set of minimisers does
    not depend on a tolerance.
    """
    n, cols = Y.shape
    errs = []
    for lam in grid:
        if weights_of is None:
            L = np.column_stack([brute_loo(K, Y[:, t], A[:, t], lam, offset) for t in range(cols)])
        else:
            L = brute_loo_per_fold(K, Y, weights_of, lam, offset)[0]
        if error == "squared":
            errs.append(np.sum(A * (Y - L) ** 2) / (n * cols))
        else:
            if cols == 1:
                wrong = (L[:, 0] > 0) != (Y[:, 0] > 0)
            else:
                wrong = np.argmax(L, axis=1) != np.argmax(Y, axis=1)
            errs.append(e @ wrong / e.sum())
    errs = np.array(errs)
    gap = errs - errs.min()
    assert np.all((gap < 1e-13) | (gap > 1e-8)), "a near-tie: the choice would be arbitrary"
    return grid[gap < 1e-13].max(), errs
