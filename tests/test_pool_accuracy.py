"""The headline's estimate (rlscore.core.evaluation.pool_accuracy) and the calibration behind
the expected error rate (rlscore.core.evaluation.calibration), against independent references:
brute-force leave-one-out refits, scipy's exact (Clopper–Pearson) interval, a generic optimiser."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import binomtest
from sklearn.datasets import make_moons

from rlscore.core.evaluation.calibration import fit_platt
from rlscore.core.evaluation.pool_accuracy import pool_accuracy
from rlscore.core.rls.classifier import RLSClassifier


def _brute_loo_right(X, y, idx, **params) -> np.ndarray:
    """Whether each point of ``idx`` is predicted right by an RLS refitted without it."""
    out = []
    for j in range(len(idx)):
        rest = np.delete(idx, j)
        clf = RLSClassifier(**params).fit(X[rest], y[rest])
        out.append(clf.predict(X[[idx[j]]])[0] == y[idx[j]])
    return np.asarray(out)


@pytest.mark.parametrize("offset", [False, True])
def test_the_headline_is_the_loo_share_of_the_checks_with_the_exact_interval(offset):
    X, y = make_moons(300, noise=0.3, random_state=0)
    idx = np.random.default_rng(1).choice(300, 40, replace=False)
    params = dict(sigma=0.5, lam=0.1, offset=offset)
    clf = RLSClassifier(**params).fit(X[idx], y[idx])
    right = (clf.loo_decision_ > 0).astype(int) == y[idx]
    checks = np.zeros(40, bool)
    checks[::3] = True  # 14 of the 40 labels are checks
    got = pool_accuracy(right, checks)
    brute = _brute_loo_right(X, y, idx, **params)[checks]
    k, m = int(brute.sum()), int(checks.sum())
    assert got.n_checks == m and got.estimate == pytest.approx(k / m)
    ci = binomtest(k, m).proportion_ci(confidence_level=0.95, method="exact")
    assert (got.low, got.high) == pytest.approx((ci.low, ci.high), abs=1e-9)


def test_no_check_no_estimate_and_bad_input_is_named():
    assert pool_accuracy(np.ones(5, bool), np.zeros(5, bool)) is None
    with pytest.raises(ValueError, match="differ"):
        pool_accuracy(np.ones(5, bool), np.ones(4, bool))
    with pytest.raises(ValueError, match="method"):
        pool_accuracy(np.ones(5, bool), np.ones(5, bool), method="loo")
    with pytest.raises(ValueError, match="needs labeled_prob"):
        pool_accuracy(np.ones(5, bool), np.ones(5, bool), method="model-assisted")


def test_the_model_assisted_estimate_is_the_difference_estimator():
    rng = np.random.default_rng(3)
    right = rng.random(60) < 0.8
    checks = rng.random(60) < 0.5
    q_lab, q_unl = rng.uniform(0.5, 1.0, 60), rng.uniform(0.6, 1.0, 500)
    got = pool_accuracy(
        right, checks, labeled_prob=q_lab, unlabeled_prob=q_unl, method="model-assisted"
    )
    by_hand = q_unl.mean() + np.mean(right[checks].astype(float) - q_lab[checks])
    plain = right[checks].mean()
    assert got.estimate in (pytest.approx(by_hand), pytest.approx(plain))
    assert got.expected_error_rate == pytest.approx(1.0 - q_unl.mean())
    # an informative q (right exactly when q is high) narrows the interval below the checks'
    q = np.where(right, 0.97, 0.03)
    informed = pool_accuracy(right, checks, labeled_prob=q, unlabeled_prob=q_unl,
                             method="model-assisted")  # fmt: skip
    assert informed.effective_checks > informed.n_checks
    assert (
        informed.high - informed.low
        < pool_accuracy(right, checks).high - pool_accuracy(right, checks).low
    )


def _smoothed_nll(params, m, r):
    a, b = params
    n_right = r.sum()
    t = np.where(r, (n_right + 1) / (n_right + 2), 1 / (r.size - n_right + 2))
    z = a * m + b
    return np.sum(np.logaddexp(0, z) - t * z)  # cross-entropy of the sigmoid on targets t


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_platt_fit_is_the_smoothed_maximum_likelihood(seed):
    rng = np.random.default_rng(seed)
    m = rng.exponential(1.0, 80)
    r = rng.random(80) < 1 / (1 + np.exp(-(2.0 * m - 0.5)))
    fit = fit_platt(m, r)
    best = minimize(_smoothed_nll, x0=[0.0, 0.0], args=(m, r), method="Nelder-Mead",
                    options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000})  # fmt: skip
    assert (fit.slope, fit.intercept) == pytest.approx(tuple(best.x), abs=1e-4)
    p = fit.probability(np.array([0.0, 5.0]))
    assert 0.0 < p[0] < p[1] < 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_platt_fit_on_nearly_separated_margins_is_the_bounded_optimum(seed):
    # LOO margins as a well-fitted model gives them: most right ones near 1, two wrong ones
    # below; a full Newton step from the flat start ran off to a slope of 1.7e10 (chances
    # of 0 and 1, a Review page score of 100 % on a right label), its loss 13 times the optimum
    rng = np.random.default_rng(seed)
    m = np.abs(np.concatenate([rng.normal(1.0, 0.05, 75), [0.34, 0.63, 0.69, 0.10, 0.52]]))
    r = np.r_[np.ones(78, bool), False, False]
    fit = fit_platt(m, r)
    best = minimize(_smoothed_nll, x0=[1.0, 0.0], args=(m, r), method="L-BFGS-B",
                    bounds=[(0.0, None), (None, None)],
                    options={"ftol": 1e-15, "gtol": 1e-12})  # fmt: skip
    assert _smoothed_nll([fit.slope, fit.intercept], m, r) <= best.fun + 1e-9
    assert (fit.slope, fit.intercept) == pytest.approx(tuple(best.x), abs=1e-4)
    assert 0.0 < fit.probability(np.array([0.10]))[0] < 0.5 < fit.probability(np.ones(1))[0] < 1


def test_platt_stays_finite_when_every_prediction_is_right():
    fit = fit_platt(np.linspace(0.1, 2.0, 12), np.ones(12, bool))
    assert np.isfinite([fit.slope, fit.intercept]).all()
    p = fit.probability(np.array([0.0, 10.0]))
    assert p[1] <= 13 / 14 + 1e-9  # never above Platt's smoothed target (N₊ + 1)/(N₊ + 2)
    with pytest.raises(ValueError, match="margins"):
        fit_platt(np.array([-1.0]), np.array([True]))
