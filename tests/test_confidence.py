"""Confidence estimates (SPEC §4) against direct formulas, Monte Carlo and refits."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm
from test_rls_reference import (
    balanced,
    brute_loo,
    brute_loo_variance,
    direct_solve,
    gp_variance,
    make_problem,
    ova,
)

from rlscore.core.confidence import (
    bayes_confidence,
    bayes_probabilities,
    confidence_scores,
    gap_confidence,
    loo_confidence,
    loo_reliability,
    reliability_table,
    soft_confidence,
    soft_probabilities,
    soft_scores,
)
from rlscore.core.kernels import rbf_kernel
from rlscore.core.rls import RLSClassifier


def test_soft_and_gap_follow_paskov_definitions():
    F = np.array([[0.8, -0.2, 1.7], [-1.5, -1.2, -3.0], [0.1, 0.3, 0.2]])
    p = [[0.9, 0.4, 1.0], [0.0, 0.0, 0.0], [0.55, 0.65, 0.6]]
    np.testing.assert_allclose(soft_scores(F), p)
    np.testing.assert_allclose(soft_confidence(F), [1.0, 0.0, 0.65])
    np.testing.assert_allclose(gap_confidence(F), [0.1, 0.0, 0.05])
    P = soft_probabilities(F)
    np.testing.assert_allclose(P[0], np.array(p[0]) / 2.3)
    np.testing.assert_allclose(P[1], [1 / 3] * 3)  # nobody claims it: uniform
    # binary: p̂ = clip((f+1)/2), gap = min(|f|, 1)
    f = np.array([-2.0, -0.4, 0.0, 0.6, 3.0])
    np.testing.assert_allclose(soft_probabilities(f)[:, 1], [0.0, 0.3, 0.5, 0.8, 1.0])
    np.testing.assert_allclose(soft_confidence(f), [1.0, 0.7, 0.5, 0.8, 1.0])
    np.testing.assert_allclose(gap_confidence(f), [1.0, 0.4, 0.0, 0.6, 1.0])


@pytest.mark.parametrize("offset", [False, True])
def test_binary_bayes_confidence_equals_direct_gp_formula(offset):
    X, y, K = make_problem(30, n=25, T=2, sigma=1.2)
    clf = RLSClassifier(sigma=1.2, lam=0.3, class_weight="balanced", offset=offset).fit(X, y)
    a = balanced(y, 2)[:, 0]
    Xt = np.random.default_rng(0).normal(size=(8, 2)) * 2
    kx = rbf_kernel(Xt, X, sigma=1.2)
    c, b = direct_solve(K, ova(y, 2)[:, 0], a, 0.3, offset)
    mu = kx @ c + b
    var = gp_variance(K, kx, np.ones(8), a, 0.3, offset)
    np.testing.assert_allclose(clf.predictive_variance(Xt), var, rtol=1e-9)
    p = norm.cdf(mu / np.sqrt(var))
    np.testing.assert_allclose(clf.confidence(Xt, "bayes"), np.maximum(p, 1 - p), rtol=1e-9)
    np.testing.assert_allclose(bayes_probabilities(mu, var)[:, 1], p, rtol=1e-12)


def test_multiclass_variances_use_each_classifiers_weights():
    X, y, K = make_problem(31, n=24, T=3)
    clf = RLSClassifier(lam=0.5, class_weight="balanced").fit(X, y)
    A = balanced(y, 3)
    Xt = np.random.default_rng(1).normal(size=(5, 2))
    kx = rbf_kernel(Xt, X)
    for t in range(3):
        ref = gp_variance(K, kx, np.ones(5), A[:, t], 0.5, False)
        np.testing.assert_allclose(clf.predictive_variance(Xt)[:, t], ref, rtol=1e-9)


def test_polynomial_and_linear_kernel_diagonals_in_the_variance():
    X, y, K = make_problem(32, n=20, T=2)
    Xt = np.random.default_rng(2).normal(size=(4, 2))
    for kernel, kdiag in [
        ("linear", (Xt**2).sum(1)),
        ("polynomial", (1 + (Xt**2).sum(1)) ** 3),
    ]:
        clf = RLSClassifier(kernel=kernel, degree=3, lam=0.7).fit(X, y)
        Kf = (X @ X.T) if kernel == "linear" else (1 + X @ X.T) ** 3
        kx = (Xt @ X.T) if kernel == "linear" else (1 + Xt @ X.T) ** 3
        ref = gp_variance(Kf, kx, kdiag, np.ones(20), 0.7, False)
        np.testing.assert_allclose(clf.predictive_variance(Xt), ref, rtol=1e-7)


@pytest.mark.parametrize(
    ("mu", "sd"),
    [
        ([0.3, -0.1, 0.2], [0.5, 0.5, 0.5]),  # unweighted OvA: equal variances
        ([0.9, -0.6, 0.1, 0.0], [0.6, 0.8, 0.7, 0.9]),
        ([1.0, 0.8, -1.0], [0.3, 0.6, 0.45]),
        ([1.0, 0.8, -1.0], [0.6, 0.05, 0.45]),  # a 12× smaller σ: a step in the integrand
        ([0.0, 0.1, 0.05, -0.1, 0.02], [1e-3, 2.0, 1.0, 0.3, 0.1]),
    ],
)
def test_multiclass_bayes_integral_against_monte_carlo(mu, sd):
    mu, sd = np.array([mu]), np.array([sd])
    got = bayes_probabilities(mu, sd**2)[0]
    rng = np.random.default_rng(7)
    draws = mu + sd * rng.standard_normal((400_000, mu.shape[1]))
    mc = np.bincount(np.argmax(draws, axis=1), minlength=mu.shape[1]) / draws.shape[0]
    # 4 standard errors of the Monte Carlo estimate
    assert np.all(np.abs(got - mc) < 4 * np.sqrt(mc * (1 - mc) / draws.shape[0]) + 1e-4)


@pytest.mark.parametrize(
    ("mu", "sd"),
    [([0.4, -0.3, 0.1], [0.5, 0.7, 0.6]), ([1.0, 0.8, -1.0], [0.02, 0.6, 0.45])],
)
def test_multiclass_bayes_integral_against_adaptive_quadrature(mu, sd):
    from scipy.integrate import quad

    mu, sd = np.array(mu), np.array(sd)

    def p_wins(i):
        others = [j for j in range(3) if j != i]

        def integrand(u):
            val = norm.pdf(u, mu[i], sd[i])
            for j in others:
                val *= norm.cdf((u - mu[j]) / sd[j])
            return val

        # break the range at every class's mean so the adaptive rule sees the steps
        pts = sorted(mu)
        edges = [mu.min() - 12 * sd.max(), *pts, mu.max() + 12 * sd.max()]
        return sum(
            quad(integrand, lo, hi, epsabs=1e-14, limit=200)[0]
            for lo, hi in zip(edges[:-1], edges[1:], strict=True)
        )

    ref = np.array([p_wins(i) for i in range(3)])
    got = bayes_probabilities(mu[None, :], (sd**2)[None, :])[0]
    np.testing.assert_allclose(got, ref, atol=1e-8)
    assert abs(ref.sum() - 1) < 1e-8


def test_bayes_confidence_is_probability_of_predicted_class():
    mu = np.array([[0.2, 0.5, -0.3], [1.0, -1.0, 0.0]])
    var = np.array([[0.2, 0.3, 0.1], [0.5, 0.5, 0.5]])
    P = bayes_probabilities(mu, var)
    np.testing.assert_allclose(bayes_confidence(mu, var), [P[0, 1], P[1, 0]])
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="needs the predictive variances"):
        confidence_scores(mu, "bayes")
    with pytest.raises(ValueError, match="variances must be finite and > 0"):
        bayes_probabilities(mu, -var)


def test_reliability_table_counts_by_hand():
    conf = np.array([0.05, 0.15, 0.18, 0.55, 0.95, 1.0, 0.999])
    ok = np.array([True, False, True, True, True, False, True])
    tab = reliability_table(conf, ok, bins=5)
    assert tab["count"].tolist() == [3, 0, 1, 0, 3]
    assert tab["n_correct"].tolist() == [2, 0, 1, 0, 2]
    np.testing.assert_allclose(tab["accuracy"], [2 / 3, np.nan, 1.0, np.nan, 2 / 3])
    np.testing.assert_allclose(tab["bin_left"], [0, 0.2, 0.4, 0.6, 0.8])
    np.testing.assert_allclose(tab["mean_confidence"][0], (0.05 + 0.15 + 0.18) / 3)
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        reliability_table([1.2], [True])
    with pytest.raises(ValueError, match="has 2 values but correct has 1"):
        reliability_table([0.1, 0.2], [True])


@pytest.mark.parametrize("method", ["soft", "gap", "bayes"])
def test_loo_reliability_uses_brute_force_loo_predictions(method):
    X, y, K = make_problem(33, n=20, T=3)
    clf = RLSClassifier(lam=0.4, offset=True).fit(X, y)
    Y = ova(y, 3)
    L = np.column_stack([brute_loo(K, Y[:, t], np.ones(20), 0.4, True) for t in range(3)])
    conf, ok = loo_confidence(clf, y, method)
    np.testing.assert_array_equal(ok, np.argmax(L, axis=1) == y)
    if method == "bayes":
        var = brute_loo_variance(K, np.ones(20), 0.4, True)
        expected = bayes_confidence(L, np.repeat(var[:, None], 3, axis=1))
    else:
        expected = confidence_scores(L, method)
    np.testing.assert_allclose(conf, expected, atol=1e-8)
    tab = loo_reliability(clf, method=method, bins=4)
    assert tab["count"].sum() == 20 and tab["n_correct"].sum() == ok.sum()


def test_confidence_method_on_the_estimator_matches_functions():
    X, y, K = make_problem(34, n=30, T=3)
    clf = RLSClassifier(lam=0.3).fit(X, y)
    F = clf.decision_function(X)
    # Paskov 3.36–3.37: clipped soft score of the winner, and winner minus runner-up
    top = np.clip((np.sort(F, axis=1)[:, -2:] + 1) / 2, 0, 1)
    np.testing.assert_allclose(clf.confidence(X, "soft"), top[:, 1])
    np.testing.assert_allclose(clf.confidence(X, "gap"), top[:, 1] - top[:, 0])
    np.testing.assert_allclose(
        clf.confidence(X, "bayes"), bayes_confidence(F, clf.predictive_variance(X))
    )
    assert np.all((clf.confidence(X, "bayes") >= 1 / 3) & (clf.confidence(X, "bayes") <= 1))


def test_loo_confidence_reads_only_the_documented_attributes():
    # no RLSClassifier needed: any object with the four attributes will do
    from types import SimpleNamespace

    fitted = SimpleNamespace(
        classes_=np.array(["a", "b"]),
        y_fit_=np.array(["a", "b", "b"]),
        loo_decision_=np.array([-0.4, 0.2, -2.0]),
        loo_variance_=np.array([1.0, 1.0, 1.0]),
    )
    conf, ok = loo_confidence(fitted)
    np.testing.assert_allclose(conf, [0.7, 0.6, 1.0])  # clip((|f| + 1)/2, 0, 1)
    np.testing.assert_array_equal(ok, [True, True, False])
