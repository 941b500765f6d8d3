"""RLS and its exact leave-one-out against brute-force refits (docs/mathematics.md §1, §3)."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from reference.rls import (
    balanced,
    brute_force_auto_lam,
    brute_loo,
    brute_loo_per_fold,
    default_grid,
    direct_solve,
    eigen_range,
    fold_balanced,
    hat_matrix,
    make_problem,
    ova,
)
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge

from rlscore.core.kernels.functions import linear_kernel, rbf_kernel
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.core.rls.path import CURVE_COLUMNS, RLSPath

TOL = 1e-8


def _weights(kind, y, T, seed=0):
    """Loss weights per OvA column for the classifier's class_weight and the reference."""
    n = y.size
    cols = 1 if T == 2 else T
    if kind is None:
        return None, np.ones((n, cols))
    if kind == "balanced":
        return "balanced", balanced(y, T)
    per_class = {k: 0.5 + k for k in range(T)}
    A = np.array([per_class[k] for k in y], dtype=float)
    return per_class, np.repeat(A[:, None], cols, axis=1)


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("offset", [False, True])
@pytest.mark.parametrize("weighting", [None, "dict", "balanced"])
def test_loo_values_equal_brute_force_refits(T, offset, weighting):
    X, y, K = make_problem(10 + T, n=22, T=T, sigma=1.3)
    cw, A = _weights(weighting, y, T)
    lam = 0.37
    clf = RLSClassifier(sigma=1.3, lam=lam, class_weight=cw, offset=offset).fit(X, y)
    Y = ova(y, T)
    loo = clf.loo_decision_.reshape(22, -1)
    coef = clf.dual_coef_.reshape(22, -1)
    # balanced weights are recomputed for each refit (docs/mathematics.md §3); others are fixed
    weights_of = (lambda i: fold_balanced(y, T, i)) if weighting == "balanced" else (lambda i: A)
    ref = brute_loo_per_fold(K, Y, weights_of, lam, offset)[0]
    np.testing.assert_allclose(loo, ref, rtol=0, atol=TOL)
    for t in range(Y.shape[1]):
        c, b = direct_solve(K, Y[:, t], A[:, t], lam, offset)
        np.testing.assert_allclose(coef[:, t], c, rtol=0, atol=TOL)
        assert abs(clf.intercept_[t] - b) < TOL
    np.testing.assert_allclose(clf.sample_weights_, A)


@pytest.mark.parametrize("offset", [False, True])
def test_loo_errors_equal_brute_force(offset):
    X, y, K = make_problem(5, n=20, T=3)
    A = balanced(y, 3)
    lam = 0.2
    clf = RLSClassifier(lam=lam, class_weight="balanced", offset=offset).fit(X, y)
    Y = ova(y, 3)
    L = brute_loo_per_fold(K, Y, lambda i: fold_balanced(y, 3, i), lam, offset)[0]
    sq = np.sum(A * (Y - L) ** 2) / (20 * 3)  # weighted by the full-data weights
    e = 20 / (3 * np.bincount(y)[y])  # docs/mathematics.md §1 balanced point weights
    wrong = np.argmax(L, axis=1) != y
    assert abs(clf.loo_squared_error_ - sq) < TOL
    assert abs(clf.loo_classification_error_ - e @ wrong / e.sum()) < 1e-12


def test_binary_loo_error_is_sign_rule_and_unweighted_fraction():
    X, y, K = make_problem(6, n=25, T=2)
    clf = RLSClassifier(lam=0.05).fit(X, y)
    yy = np.where(y == 1, 1.0, -1.0)
    L = brute_loo(K, yy, np.ones(25), 0.05, False)
    assert clf.loo_classification_error_ == np.mean((L > 0) != (yy > 0))
    pred = clf.classes_[(clf.loo_decision_ > 0).astype(int)]
    assert clf.loo_classification_error_ == np.mean(pred != y)


@pytest.mark.parametrize("offset", [False, True])
def test_lambda_path_equals_direct_solves_at_every_lambda(offset):
    X, y, K = make_problem(7, n=18, T=2)
    yy = np.where(y == 1, 1.0, -1.0)
    a = np.random.default_rng(0).uniform(0.3, 3.0, 18)
    path = RLSPath(K, yy, a, offset=offset)
    lams = path.default_lams(12)
    np.testing.assert_allclose(lams, default_grid(K, a, 12), rtol=1e-9)
    for lam in lams[3:]:  # the smallest λ are ~1e-12: the brute-force solve is ill-conditioned
        sol = path.solve(lam)
        c, b = direct_solve(K, yy, a, lam, offset)
        scale = max(1.0, np.abs(c).max())
        np.testing.assert_allclose(sol.coef[:, 0], c, rtol=0, atol=1e-7 * scale)
        np.testing.assert_allclose(sol.fitted[:, 0], K @ c + b, rtol=0, atol=1e-7)
        np.testing.assert_allclose(
            sol.loo[:, 0], brute_loo(K, yy, a, lam, offset), rtol=0, atol=1e-6
        )


@pytest.mark.parametrize(
    ("T", "weighting", "error", "offset"),
    [
        (2, None, "classification", False),
        (2, None, "squared", False),
        (2, "balanced", "classification", False),
        (2, "balanced", "squared", False),
        (2, None, "classification", True),
        (2, "dict", "squared", True),
        (3, None, "classification", False),
        (3, None, "squared", False),
        (3, "balanced", "classification", False),
        (3, "balanced", "squared", False),
        (3, "dict", "classification", False),
        (3, "balanced", "classification", True),
        (4, None, "squared", True),
    ],
)
def test_auto_lambda_is_largest_minimiser_of_brute_force_scan(T, weighting, error, offset):
    n = 20
    X, y, K = make_problem(8, n=n, T=T, sigma=0.8)
    y[:3] = (y[:3] + 1) % T  # label noise: the minimum is not at the smallest λ
    cw, A = _weights(weighting, y, T)
    # docs/mathematics.md §1 error weights: n/(T·n_{y_i}) when balanced, the class's weight for a
    # dict, else 1
    if weighting == "balanced":
        e = n / (T * np.bincount(y, minlength=T)[y])
    elif weighting == "dict":
        e = np.array([cw[k] for k in y], dtype=float)
    else:
        e = np.ones(n)
    # Paskov §2.5 grid spanning the eigenvalues of every column's weighted kernel
    ranges = [eigen_range(K, A[:, t]) for t in range(A.shape[1])]
    grid = np.geomspace(min(r[0] for r in ranges), max(r[1] for r in ranges), 50)
    clf = RLSClassifier(sigma=0.8, lam="auto", class_weight=cw, loo_error=error, offset=offset).fit(
        X, y
    )
    np.testing.assert_allclose(clf.default_lams(), grid, rtol=1e-9)
    weights_of = (lambda i: fold_balanced(y, T, i)) if weighting == "balanced" else None
    expected, errs = brute_force_auto_lam(K, ova(y, T), A, e, grid, error, offset, weights_of)
    assert clf.lam_ == pytest.approx(expected, rel=1e-9)
    assert getattr(clf, f"loo_{error}_error_") == pytest.approx(errs.min(), rel=1e-6, abs=1e-12)
    assert errs.max() > errs.min()  # λ matters on this problem: the choice is not arbitrary
    curve = clf.loo_curve()[f"loo_{error}_error"]  # the whole curve, not only its minimum
    np.testing.assert_allclose(curve, errs, rtol=1e-6, atol=1e-12)
    # and the fitted model is the refit at that λ
    Y = ova(y, T)
    coef = clf.dual_coef_.reshape(n, -1)
    for t in range(Y.shape[1]):
        c, b = direct_solve(K, Y[:, t], A[:, t], expected, offset)
        np.testing.assert_allclose(coef[:, t], c, rtol=1e-6, atol=1e-6 * np.abs(c).max())


def test_loo_curve_columns_gacv_and_bound_against_references():
    X, y, K = make_problem(9, n=16, T=2)
    yy = np.where(y == 1, 1.0, -1.0)
    a = np.linspace(0.5, 2.0, 16)
    lams = [0.05, 0.5, 3.0]
    for offset in (False, True):
        path = RLSPath(K, yy, a, offset=offset)
        curve = path.curve(lams)
        assert list(curve.columns) == list(CURVE_COLUMNS)
        for row, lam in zip(curve.itertuples(), lams, strict=True):
            H = hat_matrix(K, a, lam, offset)
            c, b = direct_solve(K, yy, a, lam, offset)
            f = K @ c + b
            # exact LOO residual is (y − f)/(1 − H_ii); GACV swaps H_ii for tr(H)/n
            L = brute_loo(K, yy, a, lam, offset)
            np.testing.assert_allclose(yy - L, (yy - f) / (1 - np.diag(H)), atol=1e-8)
            gacv = np.sum(a * ((yy - f) / (1 - np.trace(H) / 16)) ** 2) / 16
            assert row.gacv == pytest.approx(gacv, rel=1e-8)
            # Rifkin §7.7 in our λ, weighted: i counts when y_i f(x_i) ≤ a_i K_ii/(a_i K_ii + λ).
            # No margin here lies within 1e-6 of its threshold (asserted), so the count does
            # not depend on how a tie would be broken.
            threshold = a * np.diag(K) / (a * np.diag(K) + lam)
            assert np.min(np.abs(yy * f - threshold)) > 1e-6
            flagged = yy * f <= threshold
            assert row.loo_bound == pytest.approx(a @ flagged / a.sum(), abs=1e-12)
            brute_error = a @ ((L > 0) != (yy > 0)) / a.sum()
            assert row.loo_classification_error == pytest.approx(brute_error, abs=1e-12)
            if not offset:  # Rifkin §7.7 (weighted form): a proven bound without offset
                assert row.loo_bound >= brute_error


@pytest.mark.parametrize("offset", [False, True])
def test_multiclass_weighted_loo_bound_from_the_explicit_formula(offset):
    # OvA, balanced weights: point i counts when some column t has
    # Y_it f_t(x_i) ≤ a_it K_ii / (a_it K_ii + λ); weighted by e_i = n/(T·n_{y_i}).
    n, T = 24, 3
    X, y, K = make_problem(21, n=n, T=T, sigma=0.9)
    A = balanced(y, T)
    Y = ova(y, T)
    e = n / (T * np.bincount(y, minlength=T)[y])
    lams = [0.02, 0.3, 4.0]
    clf = RLSClassifier(sigma=0.9, lam=1.0, class_weight="balanced", offset=offset).fit(X, y)
    curve = clf.loo_curve(lams)
    for row, lam in zip(curve.itertuples(), lams, strict=True):
        F = np.empty((n, T))
        L = np.empty((n, T))  # fixed-weight LOO values: the bound's
        for t in range(T):
            c, b = direct_solve(K, Y[:, t], A[:, t], lam, offset)
            F[:, t] = K @ c + b
            L[:, t] = brute_loo(K, Y[:, t], A[:, t], lam, offset)
        aK = A * np.diag(K)[:, None]
        threshold = aK / (aK + lam)
        assert np.min(np.abs(Y * F - threshold)) > 1e-6  # no margin at a threshold: no tie rule
        flagged = np.any(Y * F <= threshold, axis=1)
        assert row.loo_bound == pytest.approx(e @ flagged / e.sum(), abs=1e-12)
        if not offset:  # a proven bound of the fixed-weight LOO error, also for the argmax
            assert e @ flagged / e.sum() >= e @ (np.argmax(L, axis=1) != y) / e.sum()
        # the LOO error is that of the refits with the balanced weights recomputed
        L_fold = brute_loo_per_fold(K, Y, lambda i: fold_balanced(y, T, i), lam, offset)[0]
        brute_error = e @ (np.argmax(L_fold, axis=1) != y) / e.sum()
        assert row.loo_classification_error == pytest.approx(brute_error, abs=1e-12)


def test_loo_variance_equals_brute_force_gp_refits():
    X, y, K = make_problem(11, n=14, T=3)
    for offset in (False, True):
        clf = RLSClassifier(lam=0.3, class_weight="balanced", offset=offset).fit(X, y)
        # the variance of the refit without i, its balanced weights recomputed
        ref = brute_loo_per_fold(K, ova(y, 3), lambda i: fold_balanced(y, 3, i), 0.3, offset)[1]
        np.testing.assert_allclose(clf.loo_variance_, ref, rtol=1e-8)


def test_zero_sample_weight_equals_removing_the_point():
    X, y, K = make_problem(12, n=20, T=3)
    sw = np.ones(20)
    sw[[2, 7]] = 0.0
    keep = sw > 0
    for offset in (False, True):
        full = RLSClassifier(lam=0.4, offset=offset).fit(X, y, sample_weight=sw)
        part = RLSClassifier(lam=0.4, offset=offset).fit(X[keep], y[keep])
        Xt = np.random.default_rng(1).normal(size=(6, 2))
        np.testing.assert_allclose(full.decision_function(Xt), part.decision_function(Xt))
        np.testing.assert_allclose(
            full.predictive_variance(Xt), part.predictive_variance(Xt), rtol=1e-9
        )
        # the removed points' LOO model is the model without them
        np.testing.assert_allclose(
            full.loo_decision_[~keep], part.decision_function(X[~keep]), atol=1e-10
        )
        np.testing.assert_allclose(
            full.loo_variance_[~keep], part.predictive_variance(X[~keep]), rtol=1e-9
        )
        np.testing.assert_allclose(full.loo_decision_[keep], part.loo_decision_, atol=1e-10)


def test_integer_sample_weight_equals_duplicating_points():
    X, y, K = make_problem(13, n=15, T=2)
    sw = np.ones(15)
    sw[[1, 4]] = 2.0
    dup = np.concatenate([np.arange(15), [1, 4]])
    a = RLSClassifier(lam=0.3, offset=True).fit(X, y, sample_weight=sw)
    b = RLSClassifier(lam=0.3, offset=True).fit(X[dup], y[dup])
    Xt = np.random.default_rng(2).normal(size=(5, 2))
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(Xt), atol=1e-10)


@pytest.mark.parametrize("T", [2, 3])
def test_linear_kernel_equals_sklearn_ridge(T):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 5))
    y = rng.integers(0, T, 40)
    y[:T] = np.arange(T)
    sw = rng.uniform(0.5, 2.0, 40)
    for lam in (0.01, 1.0, 30.0):
        clf = RLSClassifier(kernel="linear", lam=lam).fit(X, y, sample_weight=sw)
        targets = ova(y, T)
        ridge = Ridge(alpha=lam, fit_intercept=False).fit(X, targets, sample_weight=sw)
        Xt = rng.normal(size=(7, 5))
        ref = ridge.predict(Xt).reshape(7, -1)
        ref = ref[:, 0] if T == 2 else ref
        np.testing.assert_allclose(clf.decision_function(Xt), ref, atol=1e-9)


def test_rbf_equals_sklearn_kernel_ridge():
    X, y, K = make_problem(14, n=30, T=2, sigma=0.7)
    clf = RLSClassifier(sigma=0.7, lam=0.2).fit(X, y)
    kr = KernelRidge(alpha=0.2, kernel="rbf", gamma=1 / (2 * 0.7**2)).fit(X, ova(y, 2)[:, 0])
    Xt = np.random.default_rng(4).normal(size=(9, 2))
    np.testing.assert_allclose(clf.decision_function(Xt), kr.predict(Xt), atol=1e-10)


def test_precomputed_kernel_matches_vector_kernel():
    X, y, K = make_problem(15, n=25, T=3, sigma=1.1)
    Xt = np.random.default_rng(5).normal(size=(4, 2))
    a = RLSClassifier(sigma=1.1, lam="auto", offset=True).fit(X, y)
    b = RLSClassifier(kernel="precomputed", lam="auto", offset=True).fit(K, y)
    Kt = rbf_kernel(Xt, X, sigma=1.1)
    assert a.lam_ == b.lam_
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(Kt))
    np.testing.assert_allclose(a.loo_decision_, b.loo_decision_)
    np.testing.assert_allclose(
        a.confidence(Xt, "bayes"), b.confidence(Kt, "bayes", kernel_diag=np.ones(4))
    )
    with pytest.raises(ValueError, match="kernel_diag"):
        b.predictive_variance(Kt)
    with pytest.raises(ValueError, match="square"):
        RLSClassifier(kernel="precomputed").fit(K[:, :10], y)


def test_refit_with_new_lambda_reuses_the_decomposition():
    X, y, K = make_problem(16, n=30, T=3)
    clf = RLSClassifier(lam=1.0, class_weight="balanced").fit(X, y)
    path = clf._path
    clf.set_params(lam=0.1).fit(X, y)
    assert clf._path is path
    direct = RLSClassifier(lam=0.1, class_weight="balanced").fit(X, y)
    np.testing.assert_allclose(clf.dual_coef_, direct.dual_coef_)
    np.testing.assert_allclose(clf.loo_decision_, direct.loo_decision_)
    clf.loo_curve()
    assert clf._path is path
    clf.set_params(sigma=2.0).fit(X, y)  # a new kernel needs a new decomposition
    assert clf._path is not path
    X2 = X.copy()
    X2[0, 0] += 1e-9
    path2 = clf._path
    clf.fit(X2, y)
    assert clf._path is not path2


@pytest.mark.parametrize("offset", [False, True])
def test_lambda_search_reads_the_loo_errors_of_the_whole_curve(offset):
    """The search of lam="auto" (LOO values only) picks the λ of the full curve, also on a
    thin path (features) and with zero-weight points, where the LOO values take other
    branches."""
    X, y, K = make_problem(18, n=30, d=3, T=3)
    Y = ova(y, 3)
    a = np.ones(30)
    a[[2, 7]] = 0.0
    paths = (
        RLSPath(K, Y, a, offset=offset),
        RLSPath.from_features(X, Y, a, offset=offset),
        RLSPath(K, Y, balanced(y, 3), offset=offset),
    )
    for path in paths:
        lams = path.default_lams(80)
        for error in ("classification", "squared"):
            expected = RLSPath.best_lam(path.curve(lams), error)
            assert path.best_loo_lam(error, lams) == expected
    with pytest.raises(ValueError, match="hinge"):
        paths[0].best_loo_lam("hinge")


def test_balanced_multiclass_uses_one_decomposition_per_class_unweighted_one():
    X, y, K = make_problem(17, n=20, T=4)
    assert len(RLSClassifier(class_weight="balanced").fit(X, y)._path.decompositions) == 4
    assert len(RLSClassifier().fit(X, y)._path.decompositions) == 1
    assert len(RLSClassifier(class_weight={0: 3.0}).fit(X, y)._path.decompositions) == 1


def test_pickle_drops_the_cache_and_rebuilds_it():
    X, y, K = make_problem(18, n=60, T=3)
    clf = RLSClassifier(lam=0.5, class_weight="balanced", offset=True).fit(X, y)
    curve = clf.loo_curve([0.1, 0.5])
    blob = pickle.dumps(clf)
    assert len(blob) < 60 * 60 * 8  # no n × n matrix inside
    back = pickle.loads(blob)
    pd.testing.assert_frame_equal(back.loo_curve([0.1, 0.5]), curve)
    np.testing.assert_allclose(back.predictive_variance(X[:3]), clf.predictive_variance(X[:3]))


def test_default_grid_spans_eigenvalues_of_all_decompositions():
    X, y, K = make_problem(19, n=18, T=3)
    clf = RLSClassifier(class_weight="balanced").fit(X, y)
    grid = clf.default_lams()
    assert grid.size == 50
    A = balanced(y, 3)
    lo = min(default_grid(K, A[:, t])[0] for t in range(3))
    hi = max(default_grid(K, A[:, t])[-1] for t in range(3))
    assert grid[0] == pytest.approx(lo, rel=1e-9) and grid[-1] == pytest.approx(hi, rel=1e-9)
    assert np.allclose(np.diff(np.log(grid)), np.log(grid[1] / grid[0]))


def test_string_labels_and_binary_shapes():
    X, y, K = make_problem(20, n=20, T=2)
    labels = np.array(["cat", "dog"])[y]
    clf = RLSClassifier(lam=0.5).fit(X, labels)
    assert list(clf.classes_) == ["cat", "dog"]
    assert clf.decision_function(X).shape == (20,) == clf.loo_decision_.shape
    assert clf.dual_coef_.shape == (20,) and clf.intercept_.shape == (1,)
    assert set(clf.predict(X)) <= {"cat", "dog"}
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)


def test_linear_kernel_loo_with_more_points_than_features():
    # K is singular (rank 2): the LOO formula must still match refits
    rng = np.random.default_rng(6)
    X = rng.normal(size=(15, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=15) > 0).astype(int)
    for offset in (False, True):
        clf = RLSClassifier(kernel="linear", lam=0.1, offset=offset).fit(X, y)
        ref = brute_loo(linear_kernel(X), np.where(y == 1, 1.0, -1.0), np.ones(15), 0.1, offset)
        np.testing.assert_allclose(clf.loo_decision_, ref, atol=TOL)


@pytest.mark.parametrize("class_weight", [None, "balanced"])
@pytest.mark.parametrize("T", [2, 3])
def test_linear_kernel_offset_variance_with_more_points_than_features(T, class_weight):
    # the primal path's decomposition is thin: the offset's term missed the part of the
    # weight vector outside it and came out 14 times too large (7.5 against 0.54)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=30), [-0.5, 0.5][: T - 1])
    clf = RLSClassifier(kernel="linear", lam=0.5, offset=True, class_weight=class_weight)
    clf.fit(X, y)
    Z = rng.normal(size=(6, 3))
    K, Kz = X @ X.T, Z @ X.T
    A = clf.sample_weights_  # each OvA column's loss weights
    got = clf.predictive_variance(Z).reshape(6, -1)
    for t in range(A.shape[1]):
        # Rasmussen & Williams §2.7, flat prior on the offset, on the dense weighted kernel
        M = K + 0.5 * np.diag(1.0 / A[:, t])
        u, one = np.linalg.solve(M, Kz.T), np.linalg.solve(M, np.ones(30))
        kxx = np.einsum("ij,ij->i", Z, Z)
        ref = kxx + 0.5 - np.einsum("ij,ji->i", Kz, u) + (1 - one @ Kz.T) ** 2 / one.sum()
        np.testing.assert_allclose(got[:, t], ref, rtol=1e-9)


# -- validation messages -------------------------------------------------------------------
X_OK = np.random.default_rng(0).normal(size=(6, 2))
Y_OK = np.array([0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize(
    ("params", "X", "y", "message"),
    [
        ({}, X_OK, np.zeros(6), "only one class"),
        ({"sigma": 0}, X_OK, Y_OK, "sigma must be > 0"),
        ({"sigma": -1.0}, X_OK, Y_OK, "sigma must be > 0"),
        ({"sigma": 1e-300}, X_OK, Y_OK, r"sigma = 1e-300 is too small: σ² underflows, use σ ≥"),
        ({"lam": 0.0}, X_OK, Y_OK, "lam must be > 0"),
        ({"lam": -2}, X_OK, Y_OK, "lam must be > 0"),
        ({"lam": "best"}, X_OK, Y_OK, "lam must be a number > 0 or 'auto'"),
        ({"kernel": "sigmoid"}, X_OK, Y_OK, "unknown kernel 'sigmoid'"),
        ({"degree": 0}, X_OK, Y_OK, "degree must be a positive integer"),
        ({"loo_error": "hinge"}, X_OK, Y_OK, "unknown loo_error 'hinge'"),
        ({"class_weight": "even"}, X_OK, Y_OK, "class_weight must be None, 'balanced'"),
        ({"class_weight": {7: 1.0}}, X_OK, Y_OK, r"names \[7\], which are not among the"),
        ({"class_weight": {1: -1.0}}, X_OK, Y_OK, r"class_weight\[1\] must be > 0"),
        ({}, np.where(X_OK > 1, np.nan, X_OK), Y_OK, "NaN"),
        ({}, np.where(X_OK > 1, np.inf, X_OK), Y_OK, "infinity"),
        ({}, X_OK, Y_OK[:5], "inconsistent numbers of samples"),
        ({}, X_OK[:, 0], Y_OK, "Expected 2D array, got 1D array"),
        ({}, X_OK, np.linspace(0, 1, 6), "Unknown label type"),
    ],
)
def test_invalid_input_messages(params, X, y, message):
    with pytest.raises(ValueError, match=message):
        RLSClassifier(**params).fit(X, y)


def test_invalid_predict_and_curve_inputs():
    clf = RLSClassifier().fit(X_OK, Y_OK)
    with pytest.raises(ValueError, match="X has 3 features, but RLSClassifier is expecting 2"):
        clf.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="every λ must be finite and > 0"):
        clf.loo_curve([0.1, -1.0])
    with pytest.raises(ValueError, match="unknown confidence method 'vote'"):
        clf.confidence(X_OK, "vote")
    with pytest.raises(ValueError, match="sample_weight leaves only one class"):
        RLSClassifier().fit(X_OK, Y_OK, sample_weight=[1, 0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"sample_weight must be ≥ 0, got \[-1.0\]"):
        RLSClassifier().fit(X_OK, Y_OK, sample_weight=[1, -1, 1, 1, 1, 1])
    with pytest.raises(ValueError, match=r"sample_weight has shape \(5,\); expected \(6,\)"):
        RLSClassifier().fit(X_OK, Y_OK, sample_weight=np.ones(5))
    with pytest.raises(ValueError, match="sample_weight contains NaN"):
        RLSClassifier().fit(X_OK, Y_OK, sample_weight=[1, np.nan, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="the kernel matrix must be square"):
        RLSPath(np.ones((3, 2)), [1, -1, 1])
    with pytest.raises(ValueError, match="the kernel matrix is not symmetric"):
        RLSClassifier(kernel="precomputed").fit(np.triu(np.ones((6, 6))), Y_OK)
    with pytest.raises(ValueError, match="weights must be finite and ≥ 0"):
        RLSPath(np.eye(3), [1, -1, 1], weights=[1, -1, 1])
    with pytest.raises(ValueError, match="unknown loo_error"):
        RLSPath.best_lam(clf.loo_curve(), "hinge")


def test_unfitted_estimator_says_so():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        RLSClassifier().loo_curve()
    with pytest.raises(NotFittedError):
        RLSClassifier().predict(X_OK)


@pytest.mark.parametrize(("bounds", "where"), [((1e-3, 1.0), "above"), ((0.3, 0.3), "one")])
def test_auto_lambda_within_bounds_is_the_brute_force_choice_on_the_moved_grid(bounds, where):
    n, T = 20, 2
    X, y, K = make_problem(8, n=n, T=T, sigma=0.8)
    y[:3] = (y[:3] + 1) % T
    grid = default_grid(K, np.ones(n))
    moved = np.array(sorted({min(max(lam, bounds[0]), bounds[1]) for lam in grid}))
    expected, _ = brute_force_auto_lam(K, ova(y, T), np.ones((n, 1)), np.ones(n), moved,
                                       "classification", False)  # fmt: skip
    clf = RLSClassifier(sigma=0.8, lam="auto", lam_bounds=bounds).fit(X, y)
    assert bounds[0] <= clf.lam_ <= bounds[1]
    assert clf.lam_ == pytest.approx(expected, rel=1e-9)
    unbounded = RLSClassifier(sigma=0.8, lam="auto").fit(X, y)
    assert where == "one" or unbounded.lam_ < bounds[0] or unbounded.lam_ > bounds[1]


@pytest.mark.parametrize(
    ("bounds", "message"),
    [((1.0,), "a pair"), ("ab", "a pair"), ((0.0, 1.0), "> 0"), ((2.0, 1.0), "low <= high")],
)
def test_bad_lam_bounds_are_refused_with_the_reason(bounds, message):
    X, y, _ = make_problem(8, n=10, T=2, sigma=0.8)
    with pytest.raises(ValueError, match=message):
        RLSClassifier(lam="auto", lam_bounds=bounds).fit(X, y)
