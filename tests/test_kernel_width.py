"""The data-adaptive RBF width (rlscore.core.kernels.rbf_width) and the estimators that default to
it."""

from __future__ import annotations

import numpy as np
import pytest
from reference.kernel_width import median_pair_distance
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.svm import SVC

from rlscore.core.classifiers.specified_error import SpecifiedErrorClassifier
from rlscore.core.graph.ocl import GraphOCL
from rlscore.core.kernels.functions import rbf_kernel
from rlscore.core.kernels.lowrank import LowRankKernel
from rlscore.core.kernels.rbf_width import (
    EXACT_MAX_POINTS,
    median_sigma,
    resolve_sigma,
    scale_sigma,
)
from rlscore.core.klr.classifier import KernelLogisticRegression
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.core.rls.reduced import ReducedRLSClassifier
from rlscore.data.projects.project import Project
from rlscore.data.samples.bundled import project_from_sample
from rlscore.sessions import LabelingSession, project_settings
from rlscore.storage import open_store


def _points(n, d=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) * rng.uniform(0.5, 4.0, size=d) + rng.normal(size=d) * 10


# -- the rules against independent references --------------------------------------------------
def test_median_rule_is_the_median_pairwise_distance():
    X = _points(300)
    assert median_sigma(X) == pytest.approx(median_pair_distance(X), rel=1e-12)
    # coincident points are left out: duplicates do not shrink the width
    Xd = np.vstack([X, X[:200]])
    assert median_sigma(Xd) == pytest.approx(median_pair_distance(Xd), rel=1e-12)
    assert median_pair_distance(Xd) > median_pair_distance(Xd, distinct=False)
    assert median_sigma(np.ones((5, 3))) == 1.0


def test_median_rule_subsamples_pairs_on_large_pools(monkeypatch):
    n = EXACT_MAX_POINTS + 500
    X = _points(n, seed=1)
    exact = median_pair_distance(X)

    def no_full_matrix(*args, **kwargs):
        raise AssertionError("the median of a large pool must not compute every pair")

    monkeypatch.setattr("scipy.spatial.distance.pdist", no_full_matrix)
    est = median_sigma(X)
    assert est == pytest.approx(exact, rel=0.02)
    assert median_sigma(X) == est  # seeded: the width of a pool never changes
    assert median_sigma(X, random_state=1) != est


def test_scale_rule_is_scikit_learns_gamma_scale():
    X = _points(120, d=4, seed=2)
    y = (X[:, 0] + X[:, 1] > np.median(X[:, 0] + X[:, 1])).astype(int)
    ref = SVC(kernel="rbf", gamma="scale").fit(X, y)
    ours = SVC(kernel="precomputed").fit(rbf_kernel(X, sigma=scale_sigma(X)), y)
    Z = _points(30, d=4, seed=3)
    np.testing.assert_allclose(
        ours.decision_function(rbf_kernel(Z, X, sigma=scale_sigma(X))),
        ref.decision_function(Z),
        atol=1e-8,
    )


@pytest.mark.parametrize("rule", ["median", "scale"])
def test_rules_scale_with_the_data(rule):
    X = _points(200, seed=4)
    assert resolve_sigma(rule, 7.0 * X) == pytest.approx(7.0 * resolve_sigma(rule, X))


@pytest.mark.parametrize("bad", ["mean", True, -1.0, 0, None, [1.0], float("nan")])
def test_bad_sigma_is_refused_with_the_choices(bad):
    with pytest.raises(ValueError, match="sigma"):
        resolve_sigma(bad, _points(10))


# -- Graph-OCL: the trap of a constant default --------------------------------------------------
def _digits_3_vs_8(seed, labeled=50):
    d = load_digits()
    keep = np.isin(d.target, (3, 8))
    X, is3 = d.data[keep], d.target[keep] == 3
    mask = np.zeros(is3.size, dtype=bool)
    mask[np.random.default_rng(seed).choice(np.flatnonzero(is3), labeled, replace=False)] = True
    return X, is3, mask


@pytest.mark.parametrize("seed", range(5))
def test_graph_ocl_default_width_labels_digits_3_vs_8(seed):
    # measured: 96.9–99.7 % right at the median width for these draws, 62.7–65.3 % at σ = 1
    X, is3, mask = _digits_3_vs_8(seed)
    model = GraphOCL(random_state=0).fit(X, mask)
    assert model.sigma_ == pytest.approx(median_pair_distance(X))
    assert (model.transduction_ == is3).mean() >= 0.95
    trap = GraphOCL(sigma=1.0, random_state=0).fit(X, mask)
    assert (trap.transduction_ == is3).mean() < 0.75


def test_graph_ocl_with_a_number_fits_the_rls_it_always_did():
    X, _, mask = _digits_3_vs_8(0)
    model = GraphOCL(sigma=25.0, random_state=0).fit(X, mask)
    assert model.sigma_ == 25.0 and model.get_params()["sigma"] == 25.0
    train = np.concatenate([model.positives_, model.reliable_negatives_])
    y = np.concatenate([np.ones(model.positives_.size), -np.ones(model.reliable_negatives_.size)])
    ref = RLSClassifier(kernel="rbf", sigma=25.0, lam=1.0, class_weight="balanced", offset=True)
    ref.fit(X[train], y)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=1e-10)
    # the default is the median rule, and the rule stays a parameter (clone keeps it)
    default = GraphOCL(random_state=0)
    assert clone(default).get_params()["sigma"] == "median"
    same = GraphOCL(sigma=median_sigma(X), random_state=0).fit(X, mask)
    np.testing.assert_allclose(
        default.fit(X, mask).decision_function(X), same.decision_function(X), atol=1e-12
    )


# -- the other RBF estimators -------------------------------------------------------------------
def _blobs(seed=5):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(40, 3)), rng.normal(size=(40, 3)) + 2.0]) * 30.0
    return X, np.repeat([-1, 1], 40)


def test_klr_default_width_is_the_median_of_the_rows_passed_to_fit():
    X, y = _blobs()
    y_part = y.astype(float)
    y_part[::3] = np.nan  # unlabeled rows count for the width
    model = KernelLogisticRegression(lam=0.5).fit(X, y_part)
    assert model.sigma_ == pytest.approx(median_pair_distance(X))
    L = np.flatnonzero(~np.isnan(y_part))
    K = rbf_kernel(X, sigma=model.sigma_)
    ref = KernelLogisticRegression(lam=0.5, kernel="precomputed").fit(K[np.ix_(L, L)], y[L])
    np.testing.assert_allclose(
        model.decision_function(X), ref.decision_function(K[:, L]), atol=1e-8
    )
    fixed = KernelLogisticRegression(lam=0.5, sigma=3.0).fit(X, y_part)
    assert fixed.sigma_ == 3.0
    Kf = rbf_kernel(X, sigma=3.0)
    ref = KernelLogisticRegression(lam=0.5, kernel="precomputed").fit(Kf[np.ix_(L, L)], y[L])
    np.testing.assert_allclose(
        fixed.decision_function(X), ref.decision_function(Kf[:, L]), atol=1e-8
    )
    assert KernelLogisticRegression(kernel="linear").fit(X, y).sigma_ is None


@pytest.mark.parametrize("sigma", ["median", "scale", 40.0])
def test_specified_error_classifier_width(sigma):
    X, y = _blobs(seed=6)
    model = SpecifiedErrorClassifier(eta=0.2, kernel="rbf", sigma=sigma).fit(X, y)
    expected = resolve_sigma(sigma, X)
    assert model.sigma_ == pytest.approx(expected)
    ref = SpecifiedErrorClassifier(eta=0.2, kernel="precomputed").fit(
        rbf_kernel(X, sigma=expected), y
    )
    np.testing.assert_allclose(
        model.decision_function(X[:10]),
        ref.decision_function(rbf_kernel(X[:10], X, sigma=expected)),
        atol=1e-6,
    )


def test_the_rls_family_takes_the_rules():
    X, y = _blobs(seed=8)
    width = median_pair_distance(X)
    # RLSClassifier keeps σ = 1 by default (its sample weights' equivalences), takes the rules
    assert RLSClassifier(lam=0.5).fit(X, y).sigma_ == 1.0
    rule = RLSClassifier(lam=0.5, sigma="median").fit(X, y)
    fixed = RLSClassifier(lam=0.5, sigma=width).fit(X, y)
    assert rule.sigma_ == pytest.approx(width)
    np.testing.assert_allclose(rule.decision_function(X), fixed.decision_function(X), atol=1e-9)
    np.testing.assert_allclose(rule.loo_decision_, fixed.loo_decision_, atol=1e-9)
    # its low-rank forms default to the median rule
    assert LowRankKernel(n_landmarks=20).fit(X).sigma_ == pytest.approx(width)
    reduced = ReducedRLSClassifier(method="nystrom", n_landmarks=20, lam=0.5).fit(X, y)
    ref = ReducedRLSClassifier(method="nystrom", n_landmarks=20, lam=0.5, sigma=width).fit(X, y)
    assert reduced.sigma_ == pytest.approx(width)
    np.testing.assert_allclose(reduced.decision_function(X), ref.decision_function(X), atol=1e-9)
    with pytest.raises(ValueError, match="sigma must be > 0"):
        RLSClassifier(sigma=-1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"one of \['median', 'scale'\]"):
        RLSClassifier(sigma="auto").fit(X, y)


# -- the app's new-project defaults --------------------------------------------------------------
def _project(name, meta):
    X = _points(150, seed=7) * 12.0
    return Project(
        name=name,
        X=X,
        feature_names=[f"f{j}" for j in range(X.shape[1])],
        ids=[str(i) for i in range(X.shape[0])],
        truth=np.where(X[:, 0] > np.median(X[:, 0]), 1, -1),
        classes=[-1, 1],
        meta=meta,
    )


def test_a_new_project_defaults_to_the_median_width_and_samples_keep_theirs(tmp_path):
    store = open_store(tmp_path / "labels.sqlite3")
    store.create_project(_project("new", {"description": "an upload"}))
    store.create_project(_project("tuned", {"sigma": 3.5}))
    store.create_project(project_from_sample("digits123"))
    X = store.load_project("new").X
    assert project_settings(store, "new")["sigma"] == pytest.approx(median_pair_distance(X))
    assert project_settings(store, "tuned")["sigma"] == 3.5
    assert project_settings(store, "digits123")["sigma"] == 20.0  # the sample's tuned σ
    # a session with no σ given uses the same default as the settings the app reads
    s = LabelingSession(store, "new", "uncertainty", snapshots=False)
    assert s.params["sigma"] == pytest.approx(median_pair_distance(X))
    # a project deleted and created again under the name is measured again
    store.delete_project("new")
    store.create_project(_shrunk("new"))
    X2 = store.load_project("new").X
    assert project_settings(store, "new")["sigma"] == pytest.approx(median_pair_distance(X2))


def _shrunk(name):
    """The project of :func:`_project` with its features a tenth as large."""
    p = _project(name, {})
    p.X = p.X / 10.0
    return p
