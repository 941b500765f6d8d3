"""RLS with a Gaussian prior on its offset (``offset_precision``, docs/mathematics.md §3)
against its KKT system and brute-force refits: the classifier fits it as RLS without offset on
the kernel ``k + 1/P``; the references solve ``[[K + λA⁻¹, 1], [1ᵀ, −P]] [c; b] = [y; 0]``."""

from __future__ import annotations

import numpy as np
import pytest
from reference.rls import (
    balanced,
    brute_loo,
    brute_loo_per_fold,
    direct_solve,
    fold_balanced,
    gp_variance,
    make_problem,
    ova,
)

from rlscore.core.kernels.functions import linear_kernel, rbf_kernel
from rlscore.core.rls.classifier import RLSClassifier

TOL = 1e-8


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("precision", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("weighting", [None, "balanced"])
def test_fit_and_loo_equal_the_kkt_system_and_refits(T, precision, weighting):
    X, y, K = make_problem(20 + T, n=21, T=T, sigma=1.1)
    A = np.ones((21, 1 if T == 2 else T)) if weighting is None else balanced(y, T)
    lam = 0.4
    clf = RLSClassifier(
        sigma=1.1, lam=lam, class_weight=weighting, offset=True, offset_precision=precision
    ).fit(X, y)
    Y = ova(y, T)
    coef = clf.dual_coef_.reshape(21, -1)
    loo = clf.loo_decision_.reshape(21, -1)
    Z = np.random.default_rng(3).normal(size=(6, 2))
    f_new = clf.decision_function(Z).reshape(6, -1)
    Kz = rbf_kernel(Z, X, sigma=1.1)
    for t in range(Y.shape[1]):
        c, b = direct_solve(K, Y[:, t], A[:, t], lam, True, precision)
        np.testing.assert_allclose(coef[:, t], c, rtol=0, atol=TOL)
        assert abs(clf.intercept_[t] - b) < TOL
        np.testing.assert_allclose(f_new[:, t], Kz @ c + b, rtol=0, atol=TOL)
    # balanced weights are recomputed for each refit (docs/mathematics.md §3)
    weights_of = (lambda i: fold_balanced(y, T, i)) if weighting else (lambda i: A)
    ref = brute_loo_per_fold(K, Y, weights_of, lam, True, precision)[0]
    np.testing.assert_allclose(loo, ref, rtol=0, atol=TOL)


def test_the_prior_shrinks_the_offset_between_none_and_the_unpenalised_one():
    X, y, K = make_problem(4, n=18, sigma=0.8)
    y = np.where(np.arange(18) < 13, 1, 0)  # 13 : 5, so the unpenalised offset is far from 0
    b = {
        p: RLSClassifier(sigma=0.8, lam=0.5, offset=True, offset_precision=p).fit(X, y).intercept_
        for p in (0.0, 1e-6, 0.5, 5.0, 1e9)
    }
    assert abs(b[1e-6][0] - b[0.0][0]) < 1e-4  # P → 0: the unpenalised offset
    assert abs(b[1e9][0]) < 1e-6  # P → ∞: no offset
    assert 0 < b[5.0][0] < b[0.5][0] < b[0.0][0]  # the majority's sign, shrunk as P grows


def test_the_primal_path_of_a_linear_kernel_equals_the_kkt_system():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=30) > 0.4).astype(int)
    clf = RLSClassifier(kernel="linear", lam=0.7, offset=True, offset_precision=2.0).fit(X, y)
    K = linear_kernel(X)
    Yt = ova(y, 2)[:, 0]
    a = np.ones(30)
    c, b = direct_solve(K, Yt, a, 0.7, True, 2.0)
    np.testing.assert_allclose(clf.decision_function(X), K @ c + b, rtol=0, atol=TOL)
    ref = brute_loo(K, Yt, a, 0.7, True, 2.0)
    np.testing.assert_allclose(clf.loo_decision_, ref, rtol=0, atol=TOL)


@pytest.mark.parametrize("precision", [0.5, 3.0])
def test_predictive_variance_is_the_gp_variance_with_the_offsets_prior(precision):
    X, y, K = make_problem(9, n=16, sigma=1.0)
    clf = RLSClassifier(sigma=1.0, lam=0.3, offset=True, offset_precision=precision).fit(X, y)
    Z = np.random.default_rng(2).normal(size=(5, 2)) * 2
    ref = gp_variance(K, rbf_kernel(Z, X, sigma=1.0), np.ones(5), np.ones(16), 0.3, True, precision)
    np.testing.assert_allclose(clf.predictive_variance(Z), ref, rtol=1e-9, atol=1e-10)


def test_a_negative_precision_is_refused_by_name():
    X, y, _ = make_problem(1, n=10)
    with pytest.raises(ValueError, match="offset_precision"):
        RLSClassifier(offset=True, offset_precision=-1.0).fit(X, y)
