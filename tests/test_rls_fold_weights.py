"""Leave-one-out with balanced class weights recomputed per fold, against RLSClassifier refits.

The LOO model of point i is what a user means by leaving i out: ``RLSClassifier(**same)
.fit(X[rest], y[rest])``, whose balanced weights are counted without i (docs/mathematics.md
§3, "Exact leave-one-out with balanced weights"). Fixed weights (None, a dict) have nothing to
recount.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.core.rls.class_weights import class_weight_table
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.core.rls.fold_weights import fold_class_weights


def _problem(T, n=32, seed=0):
    """An imbalanced pool (the first class holds about half the points) with some overlap."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(T), np.zeros(n // 2 - T, int), rng.integers(1, T, n - n // 2)])
    rng.shuffle(y)
    X = rng.normal(size=(n, 2)) + 0.8 * y[:, None]
    return X, y


def _refits(params, X, y, sw=None):
    """The decision values and predictive variances of the refits without each point."""
    F, V = [], []
    for i in range(y.size):
        rest = np.arange(y.size) != i
        clf = RLSClassifier(**params).fit(
            X[rest], y[rest], sample_weight=None if sw is None else sw[rest]
        )
        F.append(clf.decision_function(X[[i]])[0])
        V.append(clf.predictive_variance(X[[i]])[0])
    return np.array(F), np.array(V)


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("offset", [True, False])
@pytest.mark.parametrize("lam", [0.1, 1000.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_balanced_loo_values_equal_refits(T, offset, lam, weighted):
    X, y = _problem(T)
    sw = None
    if weighted:
        sw = np.random.default_rng(1).uniform(0.3, 3.0, y.size)
        sw[5] = 0.0  # still counted by the balanced weights, in the full fit as in the refits
    params = {"sigma": 1.0, "lam": lam, "class_weight": "balanced", "offset": offset}
    clf = RLSClassifier(**params).fit(X, y, sample_weight=sw)
    F, V = _refits(params, X, y, sw)
    np.testing.assert_allclose(clf.loo_decision_, F, rtol=0, atol=1e-8)
    np.testing.assert_allclose(clf.loo_variance_, V, rtol=1e-8)
    # the LOO errors are those of the refits (error weights n/(T·n_c) × sample weights)
    e = y.size / (T * np.bincount(y)[y]) * (1.0 if sw is None else sw)
    wrong = (F > 0) != (y == 1) if T == 2 else np.argmax(F, axis=1) != y
    assert clf.loo_classification_error_ == pytest.approx(e @ wrong / e.sum(), abs=1e-12)


@pytest.mark.parametrize("class_weight", [None, {0: 0.4, 1: 2.5}])
@pytest.mark.parametrize("T", [2, 3])
def test_fixed_weights_loo_values_equal_refits(class_weight, T):
    X, y = _problem(T, seed=2)
    params = {"sigma": 1.0, "lam": 0.3, "class_weight": class_weight, "offset": True}
    clf = RLSClassifier(**params).fit(X, y)
    F, V = _refits(params, X, y)
    np.testing.assert_allclose(clf.loo_decision_, F, rtol=0, atol=1e-8)
    np.testing.assert_allclose(clf.loo_variance_, V, rtol=1e-8)
    assert type(clf._path).__name__ == "RLSPath"  # no extra decompositions


def test_the_model_is_the_full_data_fit():
    # binary balanced weights are the dict {class: n/(2 n_c)}: the same model, whose LOO values
    # differ only in the recounted weights
    X, y = _problem(2, seed=3)
    counts = np.bincount(y)
    as_dict = {c: y.size / (2 * counts[c]) for c in (0, 1)}
    bal = RLSClassifier(lam=10.0, class_weight="balanced", offset=True).fit(X, y)
    fixed = RLSClassifier(lam=10.0, class_weight=as_dict, offset=True).fit(X, y)
    Z = np.random.default_rng(4).normal(size=(7, 2))
    np.testing.assert_allclose(bal.dual_coef_, fixed.dual_coef_, atol=1e-12)
    np.testing.assert_allclose(bal.decision_function(Z), fixed.decision_function(Z), atol=1e-12)
    np.testing.assert_allclose(bal.predictive_variance(Z), fixed.predictive_variance(Z))
    np.testing.assert_allclose(bal.default_lams(), fixed.default_lams())
    assert bal.gacv_ == pytest.approx(fixed.gacv_) and bal.loo_bound_ == fixed.loo_bound_
    assert np.max(np.abs(bal.loo_decision_ - fixed.loo_decision_)) > 1e-3


@pytest.mark.parametrize(("T", "offset"), [(2, True), (3, True)])
def test_auto_lambda_minimises_the_refits_loo_error(T, offset):
    X, y = _problem(T, n=26, seed=5)
    y[:3] = (y[:3] + 1) % T  # label noise: λ matters
    params = {"sigma": 1.0, "class_weight": "balanced", "offset": offset}
    clf = RLSClassifier(lam="auto", **params).fit(X, y)
    grid = clf.default_lams()
    e = y.size / (T * np.bincount(y, minlength=T)[y])
    wrong = np.zeros((grid.size, y.size), bool)
    for i in range(y.size):
        rest = np.arange(y.size) != i
        refit = RLSClassifier(lam=1.0, **params)
        for k, lam in enumerate(grid):  # one decomposition per left-out point, reused per λ
            f = refit.set_params(lam=lam).fit(X[rest], y[rest]).decision_function(X[[i]])[0]
            wrong[k, i] = (f > 0) != (y[i] == 1) if T == 2 else np.argmax(f) != y[i]
    errs = wrong @ e / e.sum()
    gap = errs - errs.min()
    assert np.all((gap < 1e-13) | (gap > 1e-8)), "a near-tie: the choice would be arbitrary"
    assert errs.max() > errs.min()
    assert clf.lam_ == pytest.approx(grid[gap < 1e-13].max(), rel=1e-12)
    curve = clf.loo_curve(grid)["loo_classification_error"]
    np.testing.assert_allclose(curve, errs, rtol=0, atol=1e-12)


def test_fold_class_weights_recount_one_side():
    W, _ = class_weight_table([3, 2, 4], "balanced")
    W_pos, W_neg = fold_class_weights([3, 2, 4])
    for t in range(3):
        fewer = np.array([3, 2, 4])
        fewer[t] -= 1  # one positive of column t left out
        np.testing.assert_allclose(W_pos[t], class_weight_table(fewer, "balanced")[0][t])
        # one negative left out: n − 1 points, n_t unchanged
        n1, nt = 8, [3, 2, 4][t]
        expected = np.full(3, n1 / (2 * (n1 - nt)))
        expected[t] = n1 / (2 * nt)
        np.testing.assert_allclose(W_neg[t], expected)
    # binary: the positive class is the second
    W_pos, W_neg = fold_class_weights([3, 2])
    np.testing.assert_allclose(W_pos, class_weight_table([3, 1], "balanced")[0])
    np.testing.assert_allclose(W_neg, class_weight_table([2, 2], "balanced")[0])


def test_a_side_of_one_point_keeps_the_full_data_weights():
    # without the only positive the column has one side: no refit of the same classes
    W, _ = class_weight_table([4, 1], "balanced")
    W_pos, W_neg = fold_class_weights([4, 1])
    np.testing.assert_array_equal(W_pos, W)
    np.testing.assert_allclose(W_neg, class_weight_table([3, 1], "balanced")[0])
    W, _ = class_weight_table([5, 1, 3], "balanced")
    W_pos, _ = fold_class_weights([5, 1, 3])
    np.testing.assert_array_equal(W_pos[1], W[1])
    # a side of two points of two classes is recounted: 3 points, 2 positives, 1 negative
    _, W_neg = fold_class_weights([2, 1, 1])
    np.testing.assert_allclose(W_neg[0], [3 / 4, 3 / 2, 3 / 2])
    # the classifier fits such a pool, its singleton's LOO value from the full-data weights
    X, y = _problem(3, seed=6)
    y[y == 1] = 2
    y[0] = 1
    clf = RLSClassifier(lam=0.5, class_weight="balanced", offset=True).fit(X, y)
    assert np.all(np.isfinite(clf.loo_decision_))


@pytest.mark.parametrize("offset_precision", [0.0, 2.0])
def test_the_linear_primal_path_recounts_too(offset_precision):
    # the linear kernel with fewer features than points takes the primal path (features)
    X, y = _problem(3, n=28, seed=7)
    params = {
        "kernel": "linear",
        "lam": 0.5,
        "class_weight": "balanced",
        "offset": True,
        "offset_precision": offset_precision,
    }
    clf = RLSClassifier(**params).fit(X, y)
    F, _ = _refits(params, X, y)
    np.testing.assert_allclose(clf.loo_decision_, F, rtol=0, atol=1e-8)
    # the variances as the (dual) path of the same kernel's (checked against refits above);
    # the refits' predictive_variance of a primal path with a flat offset is not compared
    dual = RLSClassifier(**{**params, "kernel": "precomputed"}).fit(X @ X.T, y)
    np.testing.assert_allclose(clf.loo_decision_, dual.loo_decision_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(clf.loo_variance_, dual.loo_variance_, rtol=1e-8)
