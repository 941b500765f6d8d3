"""rlscore.experiments.tuning.report: the Tune page's candidate, against independent computations.

The automatic λ is checked against brute-force leave-one-out refits over the grid
(tests/reference/tuning.py); the session-to-model rule against a table written here; the
certificate and the one-vs-rest column against the same classifier fitted here.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.rls import balanced, brute_loo, ova
from reference.tuning import brute_auto_lam, loo_classification_error, rbf

from rlscore.core.classifiers.rls_certificate import rls_certificate, rls_offset_interval
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.experiments.tuning.report import (
    CURVE_POINTS,
    TuningModel,
    can_tune,
    curve_lams,
    tuning_report,
)


def pool(seed: int, T: int = 2, n: int = 40, labeled: int = 16):
    """A pool of ``n`` points of ``T`` shifted Gaussian classes and the labels of the first
    ``labeled`` (every class present), as a session's ``{index: label}``."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(T), rng.integers(0, T, n - T)])
    X = rng.normal(size=(n, 2)) + y[:, None] * 0.9
    names = np.array(["a", "b", "c", "d"])[:T]
    return X, {i: str(names[y[i]]) for i in range(labeled)}


# -- which RLS stands for a session ------------------------------------------------------------
@pytest.mark.parametrize(
    ("strategy", "kernel", "class_weight", "expected"),
    [
        ("arls", "rbf", None, ("rbf", None)),
        ("arls-weighted", "rbf", None, ("rbf", "balanced")),  # the strategy's own weights
        ("arls-weighted", "linear", None, ("linear", "balanced")),
        ("arls-focused", "polynomial", "balanced", ("polynomial", "balanced")),
        ("uncertainty", "rbf", None, ("rbf", None)),
        ("random", "diffusion", None, ("rbf", None)),  # a graph kernel: RBF candidates
        ("aopt-klr", "regularized", None, ("rbf", None)),  # no class weights at all
        ("lgc", "rbf", "balanced", ("rbf", "balanced")),  # the session's weights win
    ],
)
def test_the_model_follows_the_session(strategy, kernel, class_weight, expected):
    model = TuningModel.for_settings(strategy, kernel, class_weight)
    assert (model.kernel, model.class_weight) == expected
    assert model.session_kernel == kernel
    assert model.replaces_graph_kernel == (kernel != expected[0])
    assert model.has_width == (expected[0] == "rbf")


def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="unknown strategy"):
        TuningModel.for_settings("no-such-strategy", "rbf")


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({}, False),
        ({0: 1, 1: -1}, False),  # two points
        ({0: 1, 1: 1, 2: 1}, False),  # one class
        ({0: 1, 1: -1, 2: 1}, True),
        ({0: "x", 5: "y", 9: "y", 3: "y"}, True),
    ],
)
def test_can_tune_wants_three_labels_of_two_classes(labels, expected):
    assert can_tune(labels) is expected


# -- the automatic λ and the curve ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("seed", "T", "strategy", "sigma"),
    [(0, 2, "arls", 0.7), (1, 2, "arls", 1.3), (2, 2, "arls-weighted", 0.8), (3, 3, "arls", 0.9)],
)
def test_automatic_lam_is_the_brute_force_loo_choice(seed, T, strategy, sigma):
    X, labels = pool(seed, T)
    model = TuningModel.for_settings(strategy, "rbf")
    report = tuning_report(X, labels, sigma=sigma, lam=0.1, model=model)
    idx = list(labels)
    expected = brute_auto_lam(
        X[idx], list(labels.values()), sigma, balanced_weights=model.class_weight == "balanced"
    )
    assert report.lam_auto == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize(
    ("seed", "T", "sigma", "lam_range"),
    [
        # the unbounded choice is 1.6e-7, on a grid from 3e-8 up: the page's own range
        (3, 3, 4.0, (-4.0, 3.0)),
        (0, 2, 0.7, (-3.0, 0.0)),  # the unbounded choice, 4.0, is above the range
        (3, 3, 0.9, (-1.0, 0.5)),  # the unbounded choice, 0.82, is inside it
    ],
)
def test_automatic_lam_stays_in_the_range(seed, T, sigma, lam_range):
    # a tester's Tune page applied λ = 1.8e-12 (σ = 100): below the λ slider, and at that λ
    # the model's values at new points were rounding noise
    X, labels = pool(seed, T)
    model = TuningModel.for_settings("arls", "rbf")
    report = tuning_report(X, labels, sigma=sigma, lam=0.1, model=model, lam_range=lam_range)
    idx = list(labels)
    expected = brute_auto_lam(X[idx], list(labels.values()), sigma, lam_range=lam_range)
    assert 10 ** lam_range[0] <= report.lam_auto <= 10 ** lam_range[1]
    assert report.lam_auto == pytest.approx(expected, rel=1e-6)


def test_the_curve_spans_the_range_the_data_grid_and_the_marked_values():
    X, labels = pool(4)
    model = TuningModel.for_settings("arls", "rbf")
    report = tuning_report(
        X, labels, sigma=0.8, lam=0.0123, model=model, lam_range=(-3.0, 2.0), marked=[7.7]
    )
    lams = report.curve["lam"].to_numpy()
    assert np.all(np.diff(lams) > 0)
    for wanted in (np.logspace(-3, 2, CURVE_POINTS), report.classifier.default_lams(), [0.0123]):
        assert np.isin(wanted, lams).all()
    assert 7.7 in lams and lams.size <= CURVE_POINTS + 50 + 2
    # the candidate itself is fitted at λ, and its LOO error at λ is a brute-force refit's
    idx = list(labels)
    _, y_index = np.unique(list(labels.values()), return_inverse=True)
    K = rbf(X[idx], 0.8)
    row = report.curve[report.curve["lam"] == 0.0123].iloc[0]
    brute = loo_classification_error(K, y_index, 2, 0.0123)
    assert row["loo_classification_error"] == pytest.approx(brute, abs=1e-12)
    assert report.classifier.lam_ == 0.0123
    assert report.classifier.loo_classification_error_ == pytest.approx(brute, abs=1e-12)


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_loo_wrong_counts_the_labeled_points_whatever_the_weights(T, class_weight):
    X, labels = pool(11, T, labeled=24)
    model = TuningModel("rbf", class_weight, "rbf")
    report = tuning_report(X, labels, sigma=0.6, lam=0.05, model=model)
    assert report.class_weighted == (class_weight is not None)
    # each point's LOO values by refitting without it, one column per one-vs-all classifier
    idx = list(labels)
    _, y_index = np.unique(list(labels.values()), return_inverse=True)
    Y = ova(y_index, T)
    A = balanced(y_index, T) if class_weight else np.ones_like(Y)
    K = rbf(X[idx], 0.6)
    loo = np.column_stack([brute_loo(K, Y[:, t], A[:, t], 0.05, False) for t in range(Y.shape[1])])
    predicted = (loo[:, 0] > 0).astype(int) if T == 2 else np.argmax(loo, axis=1)
    assert report.loo_wrong == int(np.sum(predicted != y_index)) > 0


def test_curve_lams_merges_and_sorts():
    lams = curve_lams((0.0, 1.0), np.array([0.5, 3.0]), [20.0, 3.0])
    assert lams.tolist() == sorted({*np.logspace(0, 1, CURVE_POINTS).tolist(), 0.5, 3.0, 20.0})


def test_a_candidate_that_cannot_be_fitted_raises():
    X, labels = pool(5)
    with pytest.raises(ValueError):
        tuning_report(X, labels, sigma=0.8, lam=-1.0, model=TuningModel("rbf", None, "rbf"))


# -- certificate and one vs rest ----------------------------------------------------------------
def fitted_here(X, labels, sigma, lam, class_weight=None):
    idx = list(labels)
    return RLSClassifier(kernel="rbf", sigma=sigma, lam=lam, class_weight=class_weight).fit(
        X[idx], np.asarray(list(labels.values()))
    )


def test_binary_certificate_is_the_second_class_against_the_first():
    X, labels = pool(6)
    report = tuning_report(X, labels, sigma=0.9, lam=0.2, model=TuningModel("rbf", None, "rbf"))
    clf = fitted_here(X, labels, 0.9, 0.2)
    assert report.binary and report.classes == ["a", "b"]
    assert report.positive_class() == "b"
    for moments in ("chebyshev", "gaussian"):
        mine = report.certificate(moments)
        ref = rls_certificate(clf, moments=moments, positive="b")
        assert (mine.false_negative, mine.false_positive, mine.b) == pytest.approx(
            (ref.false_negative, ref.false_positive, ref.b)
        )
        got = report.offset_interval((0.4, 0.4), moments)
        want = rls_offset_interval(clf, (0.4, 0.4), moments=moments, positive="b")
        assert (got.feasible, got.low, got.high) == pytest.approx(
            (want.feasible, want.low, want.high)
        )


def test_one_vs_rest_uses_the_chosen_class_column():
    X, labels = pool(7, T=3, labeled=24)
    report = tuning_report(X, labels, sigma=1.0, lam=0.1, model=TuningModel("rbf", None, "rbf"))
    clf = fitted_here(X, labels, 1.0, 0.1)
    assert not report.binary and report.classes == ["a", "b", "c"]
    with pytest.raises(ValueError, match="needs the class"):
        report.certificate()
    with pytest.raises(ValueError, match="not one of"):
        report.column("z")
    for k, c in enumerate(["a", "b", "c"]):  # sorted classes: column k is class k
        assert report.column(c) == k
        cert = report.certificate("chebyshev", c)
        ref = rls_certificate(clf, positive=c)
        assert cert.false_negative == pytest.approx(ref.false_negative)
    # the grid narrowed to a class is that class's own decision values
    xs, ys = np.linspace(-1, 2, 4), np.linspace(-1, 3, 5)
    gx, gy = np.meshgrid(xs, ys)
    points = np.c_[gx.ravel(), gy.ravel()]
    F = clf.decision_function(points).reshape(5, 4, 3)
    narrowed = report.class_decision_grid((xs, ys, F), "c")
    np.testing.assert_array_equal(narrowed[2], F[..., 2])
    binary = tuning_report(*pool(8), sigma=1.0, lam=0.1, model=TuningModel("rbf", None, "rbf"))
    grid = (xs, ys, np.zeros((5, 4)))
    assert binary.class_decision_grid(grid, None) is grid


def test_certifiable_wants_two_labels_of_each_class():
    X, _ = pool(9)
    labels = {0: "a", 1: "a", 2: "b", 3: "b", 4: "b"}
    report = tuning_report(X, labels, sigma=1.0, lam=0.1, model=TuningModel("rbf", None, "rbf"))
    assert report.certifiable
    report = tuning_report(
        X, {**labels, 1: "b"}, sigma=1.0, lam=0.1, model=TuningModel("rbf", None, "rbf")
    )
    assert not report.certifiable  # one "a" left


def test_confidence_and_reliability_are_the_candidates():
    X, labels = pool(10)
    report = tuning_report(X, labels, sigma=1.0, lam=0.3, model=TuningModel("rbf", None, "rbf"))
    clf = fitted_here(X, labels, 1.0, 0.3)
    np.testing.assert_allclose(report.confidence(X, "gap"), clf.confidence(X, "gap"))
    table = report.reliability("soft", bins=5)
    assert int(table["count"].sum()) == len(labels)
