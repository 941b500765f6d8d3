"""The brute-force RLS references of :mod:`reference.rls` checked against facts that do not
depend on them: the objective's gradient vanishes at the direct solve, leave-one-out values
match an explicit refit, the variance matches a conditional Gaussian.
"""

from __future__ import annotations

import numpy as np
from reference.rls import balanced, brute_loo, direct_solve, gp_variance, make_problem


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
