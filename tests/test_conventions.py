"""One module per convention: missing labels (rlscore.core.conventions.missing_labels) for every
estimator,
class display text (Project.class_text) for the figures too, a count in words
(rlscore.core.conventions.counted_words)."""

from __future__ import annotations

import html

import numpy as np
import pytest

from rlscore.core.conventions.counted_words import counted
from rlscore.core.conventions.missing_labels import is_unlabeled, labeled_indices, unlabeled_mask
from rlscore.core.graph.lgc_classifier import LGCClassifier
from rlscore.core.kernels.functions import graph_kernel
from rlscore.core.klr.classifier import KernelLogisticRegression
from rlscore.data.projects.project import Project
from rlscore.viz.figures.user_text import class_text


def _pool(n=60, seed=3):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n // 2, 2)), rng.normal(size=(n - n // 2, 2)) + 2.5])
    y = np.repeat([-1, 1], [n // 2, n - n // 2])
    keep = np.zeros(n, dtype=bool)
    keep[rng.choice(n, 12, replace=False)] = True
    keep[[0, n - 1]] = True  # both classes labeled
    y_nan = np.where(keep, y, np.nan)
    return X, y, y_nan, keep


def test_klr_nan_marker_equals_the_default_marker_and_a_fit_on_the_labeled_rows():
    X, y, y_nan, keep = _pool()
    # the reference: a supervised fit on the labeled rows only
    sub = KernelLogisticRegression(lam=0.5, sigma=1.5).fit(X[keep], y[keep])
    default = KernelLogisticRegression(lam=0.5, sigma=1.5).fit(X, y_nan)
    nan = KernelLogisticRegression(lam=0.5, sigma=1.5, unlabeled=float("nan")).fit(X, y_nan)
    np_nan = KernelLogisticRegression(lam=0.5, sigma=1.5, unlabeled=np.nan).fit(X, y_nan)
    for m in (default, nan, np_nan):
        assert list(m.classes_) == [-1.0, 1.0]
        np.testing.assert_array_equal(m.labeled_, np.flatnonzero(keep))
        np.testing.assert_allclose(m.decision_function(X), sub.decision_function(X), atol=1e-10)


def test_klr_graph_kernel_nan_marker_keeps_the_unlabeled_points_in_the_graph():
    X, y, y_nan, keep = _pool(seed=4)
    kw = {"lam": 0.3, "kernel": "regularized", "graph_k": 5}
    nan = KernelLogisticRegression(**kw, unlabeled=float("nan")).fit(X, y_nan)
    default = KernelLogisticRegression(**kw).fit(X, y_nan)
    # the reference: the graph kernel of the whole pool, fit on the labeled rows only
    K = graph_kernel(X, kind="regularized", k=5).K
    L = np.flatnonzero(keep)
    pre = KernelLogisticRegression(lam=0.3, kernel="precomputed").fit(K[np.ix_(L, L)], y[L])
    expected = pre.decision_function(K[:, L])
    np.testing.assert_allclose(nan.decision_function(X), expected, atol=1e-7)
    np.testing.assert_allclose(default.decision_function(X), expected, atol=1e-7)


@pytest.mark.parametrize("marker", [None, float("nan"), np.float64("nan")])
def test_lgc_and_klr_read_the_same_unlabeled_points(marker):
    X, _, y_nan, keep = _pool(seed=5)
    y_obj = np.array([None if np.isnan(v) else int(v) for v in y_nan], dtype=object)
    for yy in (y_nan, y_obj):
        lgc = LGCClassifier(n_neighbors=5, unlabeled=marker).fit(X, yy)
        klr = KernelLogisticRegression(unlabeled=marker, sigma=1.0).fit(X, yy)
        np.testing.assert_array_equal(klr.labeled_, np.flatnonzero(keep))
        assert lgc.transduction_.shape == (X.shape[0],)


def test_is_unlabeled_markers():
    y_float = np.array([1.0, np.nan, -1.0, np.nan])
    np.testing.assert_array_equal(is_unlabeled(y_float), [False, True, False, True])
    np.testing.assert_array_equal(is_unlabeled(y_float, np.nan), [False, True, False, True])
    np.testing.assert_array_equal(is_unlabeled(y_float, -1), [False, False, True, False])
    y_obj = np.array(["a", None, float("nan"), "b"], dtype=object)
    np.testing.assert_array_equal(is_unlabeled(y_obj), [False, True, True, False])
    np.testing.assert_array_equal(is_unlabeled(y_obj, "b"), [False, False, False, True])
    np.testing.assert_array_equal(is_unlabeled(np.array([0, 1, 2])), [False, False, False])
    np.testing.assert_array_equal(is_unlabeled(np.array(["?", "x"]), "?"), [True, False])
    # a marker of another type than y matches nothing
    np.testing.assert_array_equal(is_unlabeled(np.array([1, 2]), "?"), [False, False])
    np.testing.assert_array_equal(labeled_indices(y_float), [0, 2])


def test_unlabeled_mask_from_the_labeled_index_set():
    np.testing.assert_array_equal(unlabeled_mask(5, [0, 3]), [False, True, True, False, True])
    np.testing.assert_array_equal(unlabeled_mask(3, []), [True, True, True])
    np.testing.assert_array_equal(unlabeled_mask(3, iter({2})), [True, True, False])
    with pytest.raises(IndexError, match="0 … 2"):
        unlabeled_mask(3, [3])


# -- class names: Project.class_text is the rule, the figures follow it -------------------------
@pytest.mark.parametrize(
    ("c", "names", "text"),
    [
        (np.int64(1), {"1": "one"}, "one"),
        (np.float64(1.0), {"1": "one"}, "one"),
        (1.0, {"1": "one"}, "one"),
        (np.float64(2.5), {"1": "one"}, "2.5"),
        ("b", {"b": "<bee>"}, "<bee>"),
        (np.int64(-1), None, "-1"),
    ],
)
def test_class_text_of_the_project_and_of_the_figures_agree(c, names, text):
    project = Project(
        name="p",
        X=np.zeros((2, 1)),
        feature_names=["f"],
        ids=["0", "1"],
        truth=None,
        classes=[c, "other"],
        meta={"class_names": names} if names is not None else {},
    )
    assert project.class_text(c) == text
    # the figures escape for plotly; the name is the same
    assert class_text(c, project.class_names) == html.escape(text, quote=False)


@pytest.mark.parametrize(
    ("n", "noun", "plural", "text"),
    [
        (1, "label", None, "1 label"),
        (0, "label", None, "0 labels"),
        (2, "more label", None, "2 more labels"),
        (1, "class", "classes", "1 class"),
        (3, "class", "classes", "3 classes"),
        (np.int64(1), "point", None, "1 point"),
    ],
)
def test_a_count_takes_its_noun_in_the_singular_only_for_one(n, noun, plural, text):
    assert counted(n, noun, plural) == text
