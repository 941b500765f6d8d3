"""Confidence estimates (docs/mathematics.md §4) against direct formulas, Monte Carlo and refits."""

from __future__ import annotations

import numpy as np
import pytest
from reference.rls import (
    balanced,
    brute_loo,
    brute_loo_variance,
    direct_solve,
    gp_variance,
    make_problem,
    ova,
)
from scipy.integrate import trapezoid
from scipy.stats import norm

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.core.rls.confidence import (
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
    top_probability,
)


# -- from-scratch references (numpy/scipy only; none of rlscore.core.rls.confidence) --------------
def bayes_by_grid(mu, sd, points=20001):
    """``P(i wins) = ∫ N(u; μ_i, σ_i²) Π_{j≠i} Φ((u − μ_j)/σ_j) du`` (docs/mathematics.md §4) per
    row, by the
    trapezoid rule on a uniform grid spanning every class's μ ± 12σ (the integrand is smooth
    and its tails are below 1e-30 there, so the rule converges far beyond 1e-9)."""
    mu, sd = np.atleast_2d(mu), np.atleast_2d(sd)
    out = np.empty(mu.shape)
    for r in range(mu.shape[0]):
        u = np.linspace((mu[r] - 12 * sd[r]).min(), (mu[r] + 12 * sd[r]).max(), points)
        cdf = norm.cdf((u[None, :] - mu[r][:, None]) / sd[r][:, None])  # (T, points)
        for i in range(mu.shape[1]):
            rest = np.prod(np.delete(cdf, i, axis=0), axis=0)
            out[r, i] = trapezoid(norm.pdf(u, mu[r, i], sd[r, i]) * rest, u)
    return out


def confidence_by_hand(F, var, method):
    """Confidence in the predicted class (argmax of F; sign for one column),
    docs/mathematics.md §4."""
    F = np.asarray(F, dtype=float)
    if F.ndim == 1:  # binary: p̂(+1) and p̂(−1) = 1 − p̂(+1)
        p = np.clip((F + 1) / 2, 0, 1) if method != "bayes" else norm.cdf(F / np.sqrt(var))
        if method == "gap":
            return np.abs(2 * p - 1)
        return np.where(F > 0, p, 1 - p)
    if method == "bayes":
        P = bayes_by_grid(F, np.sqrt(var))
        return P[np.arange(F.shape[0]), np.argmax(F, axis=1)]
    top = np.sort(np.clip((F + 1) / 2, 0, 1), axis=1)
    return top[:, -1] if method == "soft" else top[:, -1] - top[:, -2]


def test_grid_reference_against_monte_carlo():
    # the reference itself: a 3-class case with unequal σ against 400 000 draws
    mu, sd = np.array([[1.0, 0.8, -1.0]]), np.array([[0.3, 0.6, 0.45]])
    draws = mu + sd * np.random.default_rng(3).standard_normal((400_000, 3))
    mc = np.bincount(np.argmax(draws, axis=1), minlength=3) / draws.shape[0]
    got = bayes_by_grid(mu, sd)[0]
    assert abs(got.sum() - 1) < 1e-9
    assert np.all(np.abs(got - mc) < 4 * np.sqrt(mc * (1 - mc) / draws.shape[0]) + 1e-4)


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
    # expected confidences from the refitted LOO values by the formulas of docs/mathematics.md §4,
    # not the helpers
    var = np.repeat(brute_loo_variance(K, np.ones(20), 0.4, True)[:, None], 3, axis=1)
    expected = confidence_by_hand(L, var, method)
    np.testing.assert_allclose(conf, expected, atol=1e-8)
    tab = loo_reliability(clf, method=method, bins=4)
    assert tab["count"].sum() == 20 and tab["n_correct"].sum() == ok.sum()


@pytest.mark.parametrize(
    ("T", "weighting", "offset"),
    [(3, None, False), (3, "balanced", True), (4, "balanced", False), (2, "balanced", True)],
)
def test_confidence_and_probabilities_of_the_estimator_from_direct_solves(T, weighting, offset):
    # μ from the KKT solve, σ² from the direct GP formula with each column's own weights
    # (docs/mathematics.md §1),
    # probabilities by the formulas of docs/mathematics.md §4 (grid quadrature for the multiclass
    # integral)
    X, y, K = make_problem(34 + T, n=30, T=T)
    clf = RLSClassifier(lam=0.3, class_weight=weighting, offset=offset).fit(X, y)
    Y = ova(y, T)
    A = balanced(y, T) if weighting else np.ones(Y.shape)
    Xt = np.vstack([X[:6], np.random.default_rng(5).normal(size=(6, 2)) * 2])
    kx = rbf_kernel(Xt, X)
    mu, var = np.empty((12, Y.shape[1])), np.empty((12, Y.shape[1]))
    for t in range(Y.shape[1]):
        c, b = direct_solve(K, Y[:, t], A[:, t], 0.3, offset)
        mu[:, t] = kx @ c + b
        var[:, t] = gp_variance(K, kx, np.ones(12), A[:, t], 0.3, offset)
    if T == 2:
        mu, var = mu[:, 0], var[:, 0]
    for method in ("soft", "gap", "bayes"):
        np.testing.assert_allclose(
            clf.confidence(Xt, method), confidence_by_hand(mu, var, method), atol=1e-8
        )
    # predict_proba: clip((f + 1)/2, 0, 1) per column, binary [1 − p̂, p̂], rows normalised
    raw = np.clip((mu + 1) / 2, 0, 1)
    if T == 2:
        expected = np.column_stack([1 - raw, raw])
    else:
        assert np.all(raw.sum(axis=1) > 0)  # no all-clipped row here: plain normalisation
        expected = raw / raw.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(clf.predict_proba(Xt), expected, atol=1e-10)
    bayes = clf.confidence(Xt, "bayes")
    assert np.all((bayes > 0) & (bayes <= 1))
    if weighting is None:  # equal variances: the largest μ has the largest winning chance
        assert np.all(bayes >= 1 / T - 1e-12)


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


@pytest.mark.parametrize("T", [1, 2, 3, 7, 8, 12])
def test_top_probability_is_each_rows_largest_value(T):
    rng = np.random.default_rng(T)
    P = rng.random((500, T))
    P[::5, -1] = P[::5, 0]  # ties
    P[3, 0] = np.nan  # a NaN row stays NaN, as with numpy's reduction
    expected = np.array([max(row) if not np.isnan(row).any() else np.nan for row in P.tolist()])
    np.testing.assert_array_equal(top_probability(P), expected)
    with pytest.raises(ValueError, match="2-D"):
        top_probability(P[:, 0])
