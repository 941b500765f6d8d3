"""KernelLogisticRegression against scikit-learn and against its optimality conditions."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression

from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.kernels.functions import graph_kernel, rbf_kernel
from rlscore.core.klr.classifier import KernelLogisticRegression
from rlscore.core.klr.link import probabilities
from rlscore.core.klr.newton import KLRConvergenceError, newton_representer


def _blobs(n=90, d=4, classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    scores = X[:, :classes] + 0.8 * rng.normal(size=(n, classes))
    y = np.argmax(scores, axis=1) if classes > 2 else np.where(scores[:, 0] > 0, 1, -1)
    return X, y


def _digits(n_per_class=40, seed=0, classes=(1, 2, 3)):
    d = load_digits()
    rng = np.random.default_rng(seed)
    idx = np.concatenate(
        [rng.choice(np.flatnonzero(d.target == c), n_per_class, replace=False) for c in classes]
    )
    return d.data[idx], d.target[idx]


@pytest.mark.parametrize("classes", [2, 3])
def test_linear_kernel_equals_sklearn_logistic_regression(classes):
    X, y = _blobs(classes=classes)
    lam = 0.7
    ours = KernelLogisticRegression(lam=lam, kernel="linear").fit(X, y)
    ref = LogisticRegression(C=1.0 / lam, fit_intercept=False, tol=1e-12, max_iter=10_000)
    ref.fit(X, y)
    # primal weights w = Xᵀα, one column per softmax class (binary: the positive class)
    W = X[ours.labeled_].T @ ours.dual_coef_
    np.testing.assert_allclose(W.T, ref.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-7)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    assert (ours.predict(X) == ref.predict(X)).all()


def _dense_gradient(K_inv, labeled, T, lam, beta):
    g = lam * (K_inv @ beta)
    g[labeled] += probabilities(beta[labeled]) - T
    return g


@pytest.mark.parametrize("classes", [(1, 2), (1, 2, 3)])
@pytest.mark.parametrize("lam", [1.0, 0.01])
def test_graph_klr_satisfies_optimality_conditions(classes, lam):
    X, y = _digits(classes=classes)
    rng = np.random.default_rng(1)
    y_partial = y.astype(float)
    hidden = rng.permutation(y.size)[: y.size - 3 * len(classes)]
    y_partial[hidden] = np.nan
    model = KernelLogisticRegression(lam=lam, kernel="graph").fit(X, y_partial)
    gk = graph_kernel(X, kind="normalized_regularized", k=6)
    labeled = np.flatnonzero(~np.isnan(y_partial))
    np.testing.assert_array_equal(model.labeled_, labeled)
    codes = np.searchsorted(model.classes_, y_partial[labeled])
    T = ova_targets(codes, len(classes), negative=0.0)
    g = _dense_gradient(gk.K_inv.toarray(), labeled, T, lam, model.pool_decision_)
    assert np.abs(g).max() < 1e-7
    # the same optimum through the representer form with the dense kernel
    rep = KernelLogisticRegression(lam=lam, kernel="graph", solver="representer")
    rep.fit(X, y_partial)
    np.testing.assert_allclose(rep.pool_decision_, model.pool_decision_, atol=1e-8)
    assert model.transduction_.shape == y.shape
    assert (model.transduction_ == y).mean() > 0.8
    np.testing.assert_array_equal(model.predict(X), model.transduction_)


def test_rbf_optimality_and_prediction_on_new_points():
    X, y = _blobs(n=70, classes=3, seed=3)
    lam, sigma = 0.3, 1.5
    model = KernelLogisticRegression(lam=lam, kernel="rbf", sigma=sigma).fit(X, y)
    K = rbf_kernel(X, sigma=sigma)
    P = probabilities(K @ model.dual_coef_)
    T = ova_targets(np.searchsorted(model.classes_, y), 3, negative=0.0)
    # stationarity of the representer problem: λα = t − p
    np.testing.assert_allclose(lam * model.dual_coef_, T - P, atol=1e-8)
    X_new = np.random.default_rng(4).normal(size=(5, 4))
    np.testing.assert_allclose(
        model.decision_function(X_new), rbf_kernel(X_new, X, sigma=sigma) @ model.dual_coef_
    )
    proba = model.predict_proba(X_new)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # precomputed kernel: same model
    pre = KernelLogisticRegression(lam=lam, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(pre.dual_coef_, model.dual_coef_, atol=1e-10)
    np.testing.assert_allclose(
        pre.predict_proba(rbf_kernel(X_new, X, sigma=sigma)), proba, atol=1e-10
    )


def test_unlabeled_markers_and_vector_kernels_ignore_unlabeled_rows():
    X, y = _blobs(n=60, classes=3, seed=5)
    keep = np.arange(60) % 3 != 0
    sub = KernelLogisticRegression(lam=0.5, sigma=2.0).fit(X[keep], y[keep])
    y_nan = y.astype(float)
    y_nan[~keep] = np.nan
    y_none = y.astype(object)
    y_none[~keep] = None
    y_minus = y.copy()
    y_minus[~keep] = -1
    for yy, marker in [(y_nan, None), (y_none, None), (y_minus, -1)]:
        m = KernelLogisticRegression(lam=0.5, sigma=2.0, unlabeled=marker).fit(X, yy)
        np.testing.assert_allclose(m.decision_function(X), sub.decision_function(X))
        assert list(m.classes_) == [0, 1, 2]


def test_string_labels_and_clone():
    X, y = _blobs(seed=6)
    labels = np.where(y > 0, "spam", "ham")
    model = KernelLogisticRegression(lam=0.2, sigma=2.0).fit(X, labels)
    assert set(model.predict(X)) <= {"spam", "ham"}
    assert list(model.classes_) == ["ham", "spam"]
    # positive class is classes_[1]: decision > 0 ⇔ "spam"
    np.testing.assert_array_equal(model.predict(X) == "spam", model.decision_function(X) > 0)
    c = clone(model)
    assert c.get_params() == model.get_params()
    assert model.score(X, labels) > 0.7


def test_batched_newton_equals_single_problems():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(12, 3))
    K = rbf_kernel(X, sigma=1.0)
    stacks, singles = [], []
    for _ in range(4):
        codes = rng.integers(0, 3, size=12)
        T = ova_targets(codes, 3, negative=0.0)
        stacks.append(T)
        singles.append(newton_representer(K, T, 0.1)[0])
    batch, _ = newton_representer(np.stack([K] * 4), np.stack(stacks), 0.1)
    np.testing.assert_allclose(batch, np.stack(singles), atol=1e-10)


@pytest.mark.parametrize("classes", [2, 3, 4])
def test_newton_on_features_equals_newton_on_the_labels(classes):
    """K_LL = φφᵀ with fewer features than labels: the Woodbury-on-features steps reach the
    optimum of the (lh)² LU steps, λα = t − p (issue 36)."""
    rng = np.random.default_rng(classes)
    phi = rng.normal(size=(40, 7))
    T = ova_targets(rng.integers(0, classes, size=40), classes, negative=0.0)
    K = phi @ phi.T
    on_labels, n_labels = newton_representer(K, T, 0.05)
    on_features, n_features = newton_representer(K, T, 0.05, features=phi)
    np.testing.assert_allclose(on_features, on_labels, atol=1e-9)
    assert n_features == n_labels
    np.testing.assert_allclose(0.05 * on_features, T - probabilities(K @ on_features), atol=1e-8)


@pytest.mark.parametrize(
    ("params", "fit_args", "match"),
    [
        ({"lam": 0}, None, "lam must be > 0"),
        ({"lam": -1}, None, "lam must be > 0"),
        ({"kernel": "gaussian"}, None, "unknown kernel 'gaussian'"),
        ({"solver": "cg"}, None, "solver must be"),
        ({}, "nan", "X contains NaN"),
        ({}, "short_y", "y has shape"),
        ({}, "one_class", "only one class"),
        ({}, "no_labels", "no labeled points"),
        ({"kernel": "precomputed"}, "rect", "square"),
        ({"kernel": "diffusion", "solver": "sparse"}, None, "lacks"),
    ],
)
def test_bad_input_messages(params, fit_args, match):
    X, y = _digits(n_per_class=10, classes=(1, 2))
    y = y.astype(float)
    if fit_args == "nan":
        X = X.copy()
        X[3, 2] = np.nan
    elif fit_args == "short_y":
        y = y[:-1]
    elif fit_args == "one_class":
        y = np.full(y.shape, 1.0)
    elif fit_args == "no_labels":
        y = np.full(y.shape, np.nan)
    elif fit_args == "rect":
        X = X[:, :5]
    with pytest.raises(ValueError, match=match):
        KernelLogisticRegression(**params).fit(X, y)


def test_transductive_model_refuses_other_points():
    X, y = _digits(n_per_class=10, classes=(1, 2))
    model = KernelLogisticRegression(kernel="graph").fit(X, y)
    with pytest.raises(ValueError, match="transductive"):
        model.predict(X[:5])


def test_newton_failure_has_a_clear_message():
    # separable labels with a tiny λ: the optimum runs off to huge decision values
    X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    y = np.array([-1, -1, 1, 1])
    with pytest.raises(ValueError, match=r"lam=1e-12 is too small .*Use lam >= 0.0001"):
        KernelLogisticRegression(lam=1e-12, kernel="linear", max_iter=3).fit(X, y)
    with pytest.raises(KLRConvergenceError, match="did not converge"):
        KernelLogisticRegression(lam=1e-12, kernel="graph", graph_k=1, max_iter=2).fit(
            np.vstack([X, X + 0.1]), np.concatenate([y, [np.nan] * 4])
        )
    # a sensible λ converges on the same data
    KernelLogisticRegression(lam=1e-3, kernel="linear").fit(X, y)


#: a separable pool: three points near 0, three near 5 (1-D, linear kernel, no offset)
SEPARABLE_X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
SEPARABLE_Y = np.array([-1, -1, -1, 1, 1, 1])


def test_tiny_lam_on_a_separable_pool_names_lam_and_its_range():
    # λ = 1e-13 on separable labels: Newton (default tol, max_iter) cannot reach the optimum,
    # whose decision values grow like log(1/λ); the error is a ValueError naming lam
    with pytest.raises(ValueError, match=r"lam=1e-13 is too small") as info:
        KernelLogisticRegression(lam=1e-13, kernel="linear").fit(SEPARABLE_X, SEPARABLE_Y)
    assert isinstance(info.value, KLRConvergenceError)
    assert isinstance(info.value, RuntimeError)  # what it was before
    message = str(info.value)
    assert "Newton did not converge in" in message
    assert "Use lam >= 0.0001 (typical 0.0001 to 10)" in message
    # the stated bound works on the same pool (f = w·x: larger x, more positive)
    model = KernelLogisticRegression(lam=1e-4, kernel="linear").fit(SEPARABLE_X, SEPARABLE_Y)
    assert model.n_iter_ < model.max_iter
    assert np.all(np.diff(model.decision_function(SEPARABLE_X)) > 0)


@pytest.mark.parametrize("lam", [0.0, -1e-3, float("nan"), float("inf"), "0.1", None])
def test_lam_is_validated_before_any_work(lam):
    with pytest.raises(ValueError, match="lam must be"):
        KernelLogisticRegression(lam=lam, kernel="linear").fit(SEPARABLE_X, SEPARABLE_Y)


def test_predict_before_fit_is_an_error():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        KernelLogisticRegression().predict(np.zeros((2, 2)))


def test_singular_linear_kernel_converges_where_the_objective_is_flat():
    # review defect 10: on 2-D data a linear kernel among 12 labels has rank 2, so part of α
    # lies in its null space where the objective is flat; Newton stalled there with
    # KLRConvergenceError at λ = 1e-4 (the app's slider minimum). The fit must converge and
    # equal scikit-learn's primal logistic regression (C = 1/λ, no intercept).
    from sklearn.linear_model import LogisticRegression

    from rlscore.data.samples.bundled import load_sample
    from rlscore.query import AOptimalKLR

    d = load_sample("two_moons")
    lam = 1e-4
    strategy = AOptimalKLR(kernel="linear", lam=lam).start(d.X, [-1, 1])
    for _ in range(12):  # the A-optimal queries that led Newton into the flat directions
        i, _ = strategy.next_query()
        strategy.teach(i, d.y[i])
    idx = np.array(strategy.labeled_)
    model = KernelLogisticRegression(lam=lam, kernel="linear").fit(d.X[idx], d.y[idx])
    ref = LogisticRegression(C=1 / lam, fit_intercept=False, tol=1e-12, max_iter=100_000)
    ref.fit(d.X[idx], d.y[idx])
    scale = np.abs(ref.decision_function(d.X)).max()
    np.testing.assert_allclose(
        model.decision_function(d.X).ravel(), ref.decision_function(d.X), atol=1e-5 * scale
    )
