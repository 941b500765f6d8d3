"""One class-weighting rule (docs/mathematics.md §1) for RLSClassifier and ARLS, with hand-computed
numbers.

Label vector used throughout: ``y = [0, 0, 0, 1, 1, 2]`` (n = 6, counts 3, 2, 1). Balanced:

* column 0: class 0 gets 6/(2·3) = 1, the rest 6/(2·3) = 1;
* column 1: class 1 gets 6/(2·2) = 1.5, the rest 6/(2·4) = 0.75;
* column 2: class 2 gets 6/(2·1) = 3, the rest 6/(2·5) = 0.6;
* error weights n/(T·n_c): 6/9 = 2/3, 6/6 = 1, 6/3 = 2.

Binary ``[0, 0, 0, 1]`` (n = 4): 4/(2·3) = 2/3 and 4/(2·1) = 2, loss and error weights alike.
"""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.core.rls.class_weights import class_weight_table, column_groups, resolve_class_weight
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.query.arls.thesis import ARLS

Y3 = np.array([0, 0, 0, 1, 1, 2])
W3 = np.array([[1.0, 1.0, 1.0], [0.75, 1.5, 0.75], [0.6, 0.6, 3.0]])  # [column, class]
E3 = np.array([2 / 3, 1.0, 2.0])
Y2 = np.array([0, 0, 0, 1])
W2 = np.array([[2 / 3, 2.0]])


def test_balanced_table_by_hand():
    W, e = class_weight_table([3, 2, 1], "balanced")
    np.testing.assert_allclose(W, W3)
    np.testing.assert_allclose(e, E3)
    W, e = class_weight_table([3, 1], "balanced")
    np.testing.assert_allclose(W, W2)
    np.testing.assert_allclose(e, W2[0])


def test_unweighted_and_per_class_tables():
    W, e = class_weight_table([3, 2, 1], None)
    np.testing.assert_array_equal(W, np.ones((3, 3)))
    np.testing.assert_array_equal(e, np.ones(3))
    W, e = class_weight_table([3, 2, 1], np.array([0.5, 2.0, 4.0]))
    np.testing.assert_array_equal(W, [[0.5, 2.0, 4.0]] * 3)  # as given, in every column
    np.testing.assert_array_equal(e, [0.5, 2.0, 4.0])
    W, e = class_weight_table([5, 5], np.array([1.0, 3.0]))
    np.testing.assert_array_equal(W, [[1.0, 3.0]])


def test_resolve_class_weight():
    np.testing.assert_array_equal(resolve_class_weight({"b": 2.5}, ["a", "b", "c"]), [1, 2.5, 1])
    assert resolve_class_weight(None, [0, 1]) is None
    assert resolve_class_weight("balanced", [0, 1]) == "balanced"
    with pytest.raises(ValueError, match=r"names \[7\], which are not among the classes \[0, 1\]"):
        resolve_class_weight({7: 1.0, 0: 2.0}, [0, 1])
    with pytest.raises(ValueError, match=r"class_weight\[1\] must be > 0"):
        resolve_class_weight({1: 0.0}, [0, 1])
    with pytest.raises(ValueError, match="class_weight must be None, 'balanced' or a dict"):
        resolve_class_weight("even", [0, 1])
    with pytest.raises(ValueError, match="class_weight must be None, 'balanced' or a dict"):
        resolve_class_weight([1.0, 2.0], [0, 1])
    with pytest.raises(ValueError, match="every class present"):
        class_weight_table([3, 0, 1], "balanced")


def test_column_groups_collect_identical_rows():
    groups = column_groups(np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]]))
    assert [g.tolist() for g in groups] == [[0, 2], [1]]
    assert [g.tolist() for g in column_groups(W3)] == [[0], [1], [2]]


def test_rls_classifier_uses_the_rule():
    X = np.random.default_rng(0).normal(size=(6, 2))
    clf = RLSClassifier(class_weight="balanced").fit(X, Y3)
    np.testing.assert_allclose(clf.sample_weights_, W3[:, Y3].T)  # point i, column t
    clf = RLSClassifier(class_weight="balanced").fit(X[:4], Y2)
    np.testing.assert_allclose(clf.sample_weights_[:, 0], [2 / 3, 2 / 3, 2 / 3, 2.0])
    clf = RLSClassifier(class_weight={1: 5.0}).fit(X[:4], Y2)
    np.testing.assert_allclose(clf.sample_weights_[:, 0], [1, 1, 1, 5])


def test_arls_uses_the_rule_from_its_labels():
    X = np.random.default_rng(0).normal(size=(10, 2))
    q = ARLS(class_weight="balanced").start(X, [0, 1, 2])
    for i, c in enumerate(Y3[:5]):  # classes 0, 0, 0, 1, 1: class 2 unlabeled, all 1
        q.teach(i, int(c))
    np.testing.assert_array_equal(q.loss_weights_, np.ones((3, 3)))
    q.teach(5, 2)
    np.testing.assert_allclose(q.loss_weights_, W3)
    np.testing.assert_allclose(q.weights_, E3)
    q.undo()
    np.testing.assert_array_equal(q.loss_weights_, np.ones((3, 3)))


# -- the same classifier from RLSClassifier, ARLS and a numpy solve -------------------------------
def _pool(T, n=40, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.5
    y = np.digitize(X[:, 0] - 0.5 * X[:, 1], [-1.0, 0.8] if T == 3 else [0.9])
    return X, y


def _weighted_rls_by_hand(K, L, y_L, lam, T):
    """Pool predictions of balanced OvA RLS on the labeled points, from numpy solves.

    Column t weighs class t by l/(2l_t) and the rest by l/(2(l − l_t)) (binary: one column,
    class 1 positive, class c weighted l/(2l_c)); ``(K_LL + λA_t⁻¹) c_t = y_t``.
    """
    l_total = len(L)
    counts = np.bincount(y_L, minlength=T)
    cols = [1] if T == 2 else range(T)
    F = np.empty((K.shape[0], len(cols)))
    for j, t in enumerate(cols):
        y_t = np.where(y_L == t, 1.0, -1.0)
        if T == 2:
            a = l_total / (2.0 * counts[y_L])
        else:
            a = np.where(y_L == t, l_total / (2 * counts[t]), l_total / (2 * (l_total - counts[t])))
        c = np.linalg.solve(K[np.ix_(L, L)] + lam * np.diag(1.0 / a), y_t)
        F[:, j] = K[:, L] @ c
    return F[:, 0] if T == 2 else F


@pytest.mark.parametrize("T", [2, 3])
def test_balanced_rls_classifier_and_arls_agree_on_the_pool(T):
    X, y = _pool(T)
    sigma, lam = 1.2, 0.3
    labeled = [0, 1, 2, 3, 5, 8, 13, 21, 30, 34]
    assert np.unique(y[labeled]).size == T
    assert np.bincount(y[labeled]).std() > 0  # unequal counts: the weights matter
    q = ARLS(sigma=sigma, lam=lam, class_weight="balanced").start(X, list(range(T)))
    for i in labeled:
        q.teach(i, int(y[i]))
    clf = RLSClassifier(sigma=sigma, lam=lam, class_weight="balanced").fit(X[labeled], y[labeled])
    by_hand = _weighted_rls_by_hand(rbf_kernel(X, sigma=sigma), labeled, y[labeled], lam, T)
    np.testing.assert_allclose(q.decision_function(), by_hand, atol=1e-10)
    np.testing.assert_allclose(clf.decision_function(X), by_hand, atol=1e-10)
    np.testing.assert_allclose(q.decision_function_at(X[:7]), by_hand[:7], atol=1e-10)
    np.testing.assert_array_equal(q.predict(), clf.predict(X))
