"""Multi-label strategies (docs/multilabel.md): the fast updates against from-scratch solves
after teach, undo and forget; multi-label ARLS's scores against naive refits; balanced class
weights per label against weighted from-scratch solves and refits; the registry."""

from __future__ import annotations

import numpy as np
import pytest
from reference.multilabel import (
    balanced_weights,
    naive_predictions,
    naive_scores,
    naive_summed_risk,
)

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.query import (
    DEFAULT_MULTILABEL_STRATEGY,
    MULTILABEL_STRATEGIES,
    MultiLabelStrategy,
    make_strategy,
    predicted_sets,
)
from rlscore.query.protocol.strategy import NoCandidatesError

SIGMA, LAM = 1.2, 0.4
CLASSES = ["news", "science", "sports"]


def pool(n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.5
    truth = []
    for x in X:
        hits = [x[0] > 0, x[1] > 0.3, x[0] + x[1] < -1.0]
        truth.append(tuple(c for c, h in zip(CLASSES, hits, strict=True) if h))
    return X, truth


def started(name, X, **params):
    return make_strategy(name, multi_label=True, sigma=SIGMA, lam=LAM, **params).start(X, CLASSES)


def check_state(q, K):
    """Predictions, risk and predicted sets equal a from-scratch solve of the labels."""
    ref = naive_predictions(K, q.labeled_, q.labels_, CLASSES, LAM)
    np.testing.assert_allclose(q.decision_function(), ref, atol=1e-10)
    assert q.estimated_risk() == pytest.approx(naive_summed_risk(ref), abs=1e-9)
    expected = [tuple(c for c, v in zip(CLASSES, row, strict=True) if v > 0) for row in ref]
    assert predicted_sets(q) == expected


RLS_STRATEGIES = ["arls", "arls-focused", "uncertainty", "random"]


@pytest.mark.parametrize("name", RLS_STRATEGIES)
def test_teach_undo_forget_equal_from_scratch_solves(name):
    X, truth = pool()
    K = rbf_kernel(X, sigma=SIGMA)
    q = started(name, X)
    for i in [3, 17, 0, 25, 8, 11, 29, 4]:
        q.teach(i, truth[i])
        check_state(q, K)
    assert all(isinstance(s, tuple) for s in q.labels_)
    assert q.undo() == (4, truth[4])
    check_state(q, K)
    q.forget(17)
    check_state(q, K)
    q.forget(3)
    q.teach(3, ())  # "none of these" is a label
    check_state(q, K)
    assert q.labels_[-1] == ()


@pytest.mark.parametrize("name", ["arls", "arls-focused"])
def test_covariance_after_updates_equals_from_scratch(name):
    X, truth = pool(seed=1)
    K = rbf_kernel(X, sigma=SIGMA)
    q = started(name, X)
    for i in [5, 9, 1, 22, 14]:
        q.teach(i, truth[i])
    q.forget(9)
    q.undo()
    L = q.labeled_
    D = K - K[:, L] @ np.linalg.solve(K[np.ix_(L, L)] + LAM * np.eye(len(L)), K[L])
    np.testing.assert_allclose(q._Ds[0], D, atol=1e-10)


def test_arls_scores_equal_naive_refits():
    X, truth = pool(n=24, seed=2)
    K = rbf_kernel(X, sigma=SIGMA)
    q = started("arls", X)
    ref = naive_scores(K, [], [], CLASSES, LAM)
    np.testing.assert_allclose(q.scores(), ref, atol=1e-9)
    for i in [2, 13, 7, 20]:
        q.teach(i, truth[i])
    q.forget(13)
    ref = naive_scores(K, q.labeled_, q.labels_, CLASSES, LAM)
    got = q.scores()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got, ref, atol=1e-9, equal_nan=True)
    i, score = q.next_query()
    assert score == pytest.approx(np.nanmin(ref), abs=1e-9)


def test_focused_arls_scores_the_smallest_margins_exactly():
    X, truth = pool(n=26, seed=3)
    K = rbf_kernel(X, sigma=SIGMA)
    q = started("arls-focused", X, focus=4)
    for i in [1, 6, 19]:
        q.teach(i, truth[i])
    ref = naive_scores(K, q.labeled_, q.labels_, CLASSES, LAM)
    margins = np.abs(naive_predictions(K, q.labeled_, q.labels_, CLASSES, LAM)).min(axis=1)
    margins[q.labeled_] = np.inf
    candidates = np.sort(np.argsort(margins, kind="stable")[:4])
    got = q.scores()
    assert np.flatnonzero(~np.isnan(got)).tolist() == candidates.tolist()
    np.testing.assert_allclose(got[candidates], ref[candidates], atol=1e-9)
    # an exclusion never empties the draw: the candidates come from the others
    i, _ = q.next_query(exclude=candidates.tolist())
    assert i not in candidates and i not in q.labeled_


def test_uncertainty_queries_the_smallest_per_label_margin():
    X, truth = pool(seed=4)
    K = rbf_kernel(X, sigma=SIGMA)
    q = started("uncertainty", X)
    for i in [0, 10, 20]:
        q.teach(i, truth[i])
    margins = np.abs(naive_predictions(K, q.labeled_, q.labels_, CLASSES, LAM)).min(axis=1)
    margins[q.labeled_] = np.inf
    assert q.next_query()[0] == int(np.argmin(margins))


def test_random_order_is_fixed_by_seed_and_is_a_uniform_draw():
    X, truth = pool()
    a, b = started("random", X, seed=7), started("random", X, seed=7)
    order = []
    for _ in range(5):
        i, _ = a.next_query()
        order.append(i)
        a.teach(i, truth[i])
    for i in order:
        assert b.uniform_draw() == i
        b.teach(i, truth[i])


def test_decision_function_on_new_points_matches_the_pool():
    X, truth = pool(seed=5)
    q = started("arls", X)
    for i in [2, 4, 6, 8, 10]:
        q.teach(i, truth[i])
    np.testing.assert_allclose(q.decision_function(X[:7]), q.decision_function()[:7], atol=1e-10)
    assert predicted_sets(q, X[:7]) == predicted_sets(q)[:7]
    assert q.predict_at(X[:7]) == q.predict()[:7]
    np.testing.assert_array_equal(q.decision_function_at(X[:3]), q.decision_function(X[:3]))


def test_every_point_labeled_then_no_candidate():
    X, truth = pool(n=6)
    q = started("arls", X)
    for i in range(6):
        q.teach(i, truth[i])
    with pytest.raises(NoCandidatesError):
        q.next_query()


def test_bad_labels_are_refused_with_a_clear_message():
    X, truth = pool()
    q = started("arls", X)
    with pytest.raises(ValueError, match="unknown class"):
        q.teach(0, ("politics",))
    with pytest.raises(ValueError, match="list of classes"):
        q.teach(0, "news")
    with pytest.raises(ValueError, match="twice"):
        q.teach(0, ["news", "news"])
    q.teach(0, ["sports", "news"])
    assert q.labels_ == [("news", "sports")]
    with pytest.raises(ValueError, match="already labeled"):
        q.teach(0, ())


def test_registry_builds_multilabel_variants_and_refuses_unknown_names():
    assert set(MULTILABEL_STRATEGIES) == {*RLS_STRATEGIES, "aopt-klr"}
    assert DEFAULT_MULTILABEL_STRATEGY in MULTILABEL_STRATEGIES
    for name in MULTILABEL_STRATEGIES:
        # parameters a strategy does not take are dropped, as for single-label ones
        q = make_strategy(name, multi_label=True, lam=0.5, explore=0.3, focus=3)
        assert isinstance(q, MultiLabelStrategy)
        assert q.lam == 0.5
    with pytest.raises(ValueError, match="multi-label strategy 'muq-klr'.*arls-focused"):
        make_strategy("muq-klr", multi_label=True)
    single = make_strategy("arls")
    assert not isinstance(single, MultiLabelStrategy)
    with pytest.raises(ValueError, match="focus"):
        make_strategy("arls-focused", multi_label=True, focus=0).start(pool()[0], CLASSES)


def test_batch_queries_believe_the_predicted_set_and_leave_the_state():
    X, truth = pool(seed=6)
    q = started("arls", X)
    for i in [1, 2, 3]:
        q.teach(i, truth[i])
    before = q.decision_function()
    picks = q.next_queries(3)
    assert len({i for i, _ in picks}) == 3
    assert picks[0] == q.next_query()
    np.testing.assert_array_equal(q.decision_function(), before)
    assert q.labeled_ == [1, 2, 3]


def test_memory_need_counts_the_kernel_and_the_covariance():
    X, _ = pool()
    assert started("arls", X).memory_bytes(1000) == 2 * 8 * 1000 * 1000
    assert started("uncertainty", X).memory_bytes(1000) == 8 * 1000 * 1000


def test_aopt_klr_is_one_binary_aopt_klr_per_class_after_teach_undo_forget():
    from rlscore.query.klr.aoptimal import AOptimalKLR

    X, truth = pool(n=24, seed=7)
    q = started("aopt-klr", X)
    for i in [0, 5, 9, 14, 20]:
        q.teach(i, truth[i])
    q.undo()
    q.forget(5)
    q.teach(5, ())
    members = []
    for c in CLASSES:
        binary = AOptimalKLR(kernel="rbf", sigma=SIGMA, lam=LAM).start(X, [-1, 1])
        for i, s in zip(q.labeled_, q.labels_, strict=True):
            binary.teach(i, 1 if c in s else -1)
        members.append(binary)
    F = np.column_stack([b.decision_function() for b in members])
    np.testing.assert_allclose(q.decision_function(), F, atol=1e-9)
    expected = np.sum([b.scores() for b in members], axis=0)
    np.testing.assert_allclose(q.scores(), expected, atol=1e-9, equal_nan=True)
    assert q.estimated_risk() == pytest.approx(sum(b.estimated_risk() for b in members))
    assert predicted_sets(q) == [
        tuple(c for c, v in zip(CLASSES, row, strict=True) if v > 0) for row in F
    ]


@pytest.mark.parametrize("name", RLS_STRATEGIES)
def test_rebuild_after_new_parameters_equals_from_scratch(name):
    X, truth = pool(seed=8)
    q = started(name, X)
    for i in [4, 12, 21, 7]:
        q.teach(i, truth[i])
    q.set_params(lam=0.9, sigma=0.8)
    q.rebuild()
    K = rbf_kernel(X, sigma=0.8)
    ref = naive_predictions(K, q.labeled_, q.labels_, CLASSES, 0.9)
    np.testing.assert_allclose(q.decision_function(), ref, atol=1e-10)
    assert q.labels_ == [truth[i] for i in [4, 12, 21, 7]]


# -- balanced class weights per label ------------------------------------------------------


def check_weighted_state(q, K):
    """Predictions and ARLS's covariances equal weighted from-scratch solves of the labels."""
    A = balanced_weights(q.labels_, CLASSES)
    ref = naive_predictions(K, q.labeled_, q.labels_, CLASSES, LAM, A)
    np.testing.assert_allclose(q.decision_function(), ref, atol=1e-9)
    L = q.labeled_
    for col in range(len(CLASSES)):
        if not q._Ds:
            break
        G = K[np.ix_(L, L)] + LAM * np.diag(1.0 / A[:, col])
        D = K - K[:, L] @ np.linalg.solve(G, K[L])
        np.testing.assert_allclose(q._Ds[q._group_of[col]], D, atol=1e-9)


@pytest.mark.parametrize("name", RLS_STRATEGIES)
def test_balanced_weights_equal_weighted_solves_after_teach_undo_forget(name):
    X, truth = pool(seed=5)
    K = rbf_kernel(X, sigma=SIGMA)
    q = started(name, X, class_weight="balanced")
    assert q.get_params()["class_weight"] == "balanced"
    for i in [3, 17, 0, 25, 8, 11]:
        q.teach(i, truth[i])
        check_weighted_state(q, K)
    # the weights matter: the unweighted fit of the same labels differs
    plain = naive_predictions(K, q.labeled_, q.labels_, CLASSES, LAM)
    assert np.abs(q.decision_function() - plain).max() > 1e-3
    q.undo()
    check_weighted_state(q, K)
    q.forget(17)
    check_weighted_state(q, K)
    replayed = started(name, X, class_weight="balanced")
    replayed.teach_many(q.labeled_, q.labels_)
    check_weighted_state(replayed, K)


def test_balanced_weights_on_new_points_equal_multilabel_rls():
    from rlscore.core.rls.multilabel import MultiLabelRLS

    X, truth = pool(seed=6)
    q = started("arls", X, class_weight="balanced")
    for i in [1, 4, 9, 16, 22, 27, 12]:
        q.teach(i, truth[i])
    Z = np.random.default_rng(1).normal(size=(7, 2))
    model = MultiLabelRLS(sigma=SIGMA, lam=LAM, class_weight="balanced")
    model.fit(X[q.labeled_], list(q.labels_), classes=CLASSES)
    np.testing.assert_allclose(q.decision_function(Z), model.decision_function(Z), atol=1e-9)
    np.testing.assert_allclose(
        q.decision_function()[q.labeled_], model.decision_function(X[q.labeled_]), atol=1e-9
    )


def test_weighted_arls_scores_equal_weighted_naive_refits():
    X, truth = pool(n=24, seed=7)
    K = rbf_kernel(X, sigma=SIGMA)
    q = started("arls", X, class_weight="balanced")
    for i in [2, 13, 7, 20, 5]:
        q.teach(i, truth[i])
    A = balanced_weights(q.labels_, CLASSES)
    ref = naive_scores(K, q.labeled_, q.labels_, CLASSES, LAM, A)
    got = q.scores()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got, ref, atol=1e-9, equal_nan=True)
    assert not np.allclose(
        got, naive_scores(K, q.labeled_, q.labels_, CLASSES, LAM), equal_nan=True
    )


def test_class_weights_a_multilabel_strategy_does_not_take_are_refused():
    X, _ = pool()
    for bad in ({"news": 2.0}, "inverse"):
        with pytest.raises(ValueError, match="class_weight of a multi-label project"):
            started("arls", X, class_weight=bad)
    q = make_strategy("arls", multi_label=True, class_weight="balanced")
    assert q.memory_bytes(100) == 8 * 100 * 100 * 3  # the kernel and one D per class (2)
