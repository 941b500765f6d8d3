"""The multi-label RLS (docs/multilabel.md §1) against brute-force refits: its exact LOO per
label against a solve without the point, and a problem of independent labels against one
binary RLSClassifier per label."""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.core.rls.multilabel import MultiLabelRLS, label_weights

SIGMA, LAM = 1.1, 0.3


def data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    Y = np.column_stack(
        [X[:, 0] > 0, X[:, 1] + X[:, 2] > 0.5, X[:, 0] - X[:, 2] > 1.4]  # the last one rare
    ).astype(int)
    return X, Y


def brute_fit(K, y, a, lam, offset, train):
    """Weighted RLS on the points ``train`` by one dense solve: ``(K + λA⁻¹)c + b1 = y``, with
    ``1ᵀc = 0`` when there is an offset (else b = 0)."""
    t = np.asarray(train)
    G = K[np.ix_(t, t)] + lam * np.diag(1.0 / a[t])
    if not offset:
        return np.linalg.solve(G, y[t]), 0.0
    border = np.block([[G, np.ones((t.size, 1))], [np.ones((1, t.size)), np.zeros((1, 1))]])
    sol = np.linalg.solve(border, np.append(y[t], 0.0))
    return sol[:-1], sol[-1]


@pytest.mark.parametrize("offset", [False, True])
@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_loo_decision_values_equal_refits_without_the_point(offset, class_weight):
    X, Y = data()
    model = MultiLabelRLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, offset=offset)
    model.fit(X, Y)
    K = rbf_kernel(X, sigma=SIGMA)
    A = model.sample_weights_
    n = X.shape[0]
    for k in range(Y.shape[1]):
        y = 2.0 * Y[:, k] - 1.0
        c, b = brute_fit(K, y, A[:, k], LAM, offset, range(n))
        np.testing.assert_allclose(model.dual_coef_[:, k], c, atol=1e-9)
        np.testing.assert_allclose(model.decision_function(X)[:, k], K @ c + b, atol=1e-9)
        for i in range(n):
            rest = [j for j in range(n) if j != i]
            # the refit's own weights: balanced ones recounted on the labels without i
            a = np.ones(n)
            a[rest] = label_weights(Y[rest].astype(float), class_weight)[:, k]
            c, b = brute_fit(K, y, a, LAM, offset, rest)
            assert model.loo_decision_[i, k] == pytest.approx(K[i, rest] @ c + b, abs=1e-8)
    hamming = np.mean((model.loo_decision_ > 0) != (Y > 0))
    assert model.loo_hamming_loss_ == pytest.approx(hamming)


def test_balanced_weights_balance_each_label_on_its_own():
    _, Y = data()
    A = label_weights(Y.astype(float), "balanced")
    n = Y.shape[0]
    for k in range(Y.shape[1]):
        pos = Y[:, k] == 1
        # each side of each label carries half of the total weight n
        assert A[pos, k].sum() == pytest.approx(n / 2)
        assert A[~pos, k].sum() == pytest.approx(n / 2)
    assert label_weights(np.ones((4, 1)), "balanced").tolist() == [[1.0]] * 4


@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_independent_labels_equal_one_binary_rls_per_label(class_weight):
    X, Y = data(n=50, seed=1)
    Y = Y[:, :2]
    model = MultiLabelRLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).fit(X, Y)
    Z = np.random.default_rng(9).normal(size=(12, 3))
    for k in range(2):
        binary = RLSClassifier(sigma=SIGMA, lam=LAM, class_weight=class_weight).fit(X, Y[:, k])
        np.testing.assert_allclose(
            model.decision_function(Z)[:, k], binary.decision_function(Z), atol=1e-9
        )
        # balanced: both recount the weights without the left-out point (docs/mathematics.md §3)
        np.testing.assert_allclose(model.loo_decision_[:, k], binary.loo_decision_, atol=1e-9)


def test_label_sets_and_a_multi_hot_matrix_give_the_same_model():
    X, Y = data()
    classes = ["news", "science", "sports"]
    sets = [tuple(c for c, h in zip(classes, row, strict=True) if h) for row in Y]
    a = MultiLabelRLS(sigma=SIGMA, lam=LAM).fit(X, Y)
    b = MultiLabelRLS(sigma=SIGMA, lam=LAM).fit(X, sets, classes=classes)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert b.classes_.tolist() == classes
    got = b.predict_sets(X)
    assert got == [tuple(c for c, h in zip(classes, row, strict=True) if h) for row in b.predict(X)]


def test_auto_lambda_minimises_the_summed_loo_squared_error():
    X, Y = data()
    model = MultiLabelRLS(sigma=SIGMA, lam="auto").fit(X, Y)
    errors = []
    for lam in [model.lam_ * 0.2, model.lam_, model.lam_ * 5.0]:
        loo = MultiLabelRLS(sigma=SIGMA, lam=lam).fit(X, Y).loo_decision_
        errors.append(np.sum((2.0 * Y - 1.0 - loo) ** 2))
    assert errors[1] <= min(errors[0], errors[2]) + 1e-9


def test_bad_targets_are_refused_with_a_clear_message():
    X, Y = data()
    with pytest.raises(ValueError, match="only 0 and 1"):
        MultiLabelRLS().fit(X, Y * 2)
    with pytest.raises(ValueError, match="need the classes"):
        MultiLabelRLS().fit(X, [("a",)] * X.shape[0])
    with pytest.raises(ValueError, match="unknown class"):
        MultiLabelRLS().fit(X, [("z",)] * X.shape[0], classes=["a", "b"])
    with pytest.raises(ValueError, match="rows"):
        MultiLabelRLS().fit(X, Y[:-1])
    with pytest.raises(ValueError, match="class_weight"):
        MultiLabelRLS(class_weight="rare").fit(X, Y)
