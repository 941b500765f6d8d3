"""ARLS (docs/mathematics.md §5) against naive refits, from-scratch state, and Paskov's Spheres
result."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference.arls import (
    naive_fit,
    naive_proba,
    naive_risk,
    naive_scores,
    naive_V,
    spec_weights,
)

import rlscore.core.conventions.memory_budget
import rlscore.query.arls.thesis
from rlscore.core.kernels.functions import rbf_kernel
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.data.samples.bundled import load_sample
from rlscore.query import ARLS, make_strategy
from rlscore.query.rls_state.on_kernel import pool_risk

SIGMA, LAM = 1.3, 0.3


def pool(n=36, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.8
    y_bin = np.where(X[:, 0] + 0.5 * X[:, 1] > 0.4, 1, -1)
    y_multi = np.digitize(X[:, 0] - 0.3 * X[:, 1], [-1.0, 1.0])  # classes 0, 1, 2
    return X, y_bin, y_multi


def class_positions(q):
    return [q.class_index(v) for v in q.labels_]


def check_against_naive(q, K, T, class_weight, bias_corrected):
    """Every score, the chosen index and the estimated risk equal the naive refit's."""
    L, cls = list(q.labeled_), class_positions(q)
    w, risk_w = spec_weights(cls, q.classes_.tolist(), class_weight)
    corrected = class_weight is not None if bias_corrected is None else bias_corrected
    inv_w = 1.0 / risk_w if corrected else np.ones(T)
    f = naive_fit(K, L, cls, LAM, w, T)
    np.testing.assert_allclose(q.m_, f, atol=1e-10)
    assert q.estimated_risk() == pytest.approx(naive_risk(f, inv_w, q.clip, T), abs=1e-9)
    ref = naive_scores(K, L, cls, LAM, w, inv_w, q.clip, T)
    got = q.scores()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got, ref, atol=1e-9, equal_nan=True)
    i, score = q.next_query()
    best = np.nanmin(ref)
    second = np.partition(ref[~np.isnan(ref)], 1)[1]
    assert score == pytest.approx(best, abs=1e-9)
    if second - best > 1e-9:  # a clear winner: the same index
        assert i == int(np.nanargmin(ref))
    else:
        assert ref[i] == pytest.approx(best, abs=1e-9)
    return i


CASES = [
    pytest.param(2, None, None, True, id="binary"),
    pytest.param(2, None, None, False, id="binary-unclipped"),
    pytest.param(2, {-1: 1.0, 1: 4.0}, True, True, id="binary-weighted-bias-corrected"),
    pytest.param(2, {-1: 0.5, 1: 3.0}, False, True, id="binary-weighted-plain-risk"),
    pytest.param(2, "balanced", None, True, id="binary-balanced"),
    pytest.param(3, None, None, True, id="multiclass"),
    pytest.param(3, None, None, False, id="multiclass-unclipped"),
    pytest.param(3, {0: 1.0, 1: 2.5, 2: 0.7}, True, True, id="multiclass-weighted"),
    pytest.param(3, "balanced", True, True, id="multiclass-balanced"),
]


@pytest.mark.parametrize(("T", "class_weight", "bias_corrected", "clip"), CASES)
def test_scores_and_choices_equal_naive_refits(T, class_weight, bias_corrected, clip):
    X, y_bin, y_multi = pool()
    classes, y = ([-1, 1], y_bin) if T == 2 else ([0, 1, 2], y_multi)
    K = rbf_kernel(X, sigma=SIGMA)
    q = ARLS(
        sigma=SIGMA, lam=LAM, class_weight=class_weight, bias_corrected=bias_corrected, clip=clip
    ).start(X, classes)
    # seed labels covering every class, so balanced weights are active (not all 1)
    for c in classes:
        q.teach(int(np.flatnonzero(y == c)[0]), c)
    for _ in range(3):
        i = check_against_naive(q, K, T, class_weight, bias_corrected)
        q.teach(i, y[i].item())
    check_against_naive(q, K, T, class_weight, bias_corrected)
    if class_weight is not None:
        assert not np.allclose(q.loss_weights_, 1.0)


def test_scores_equal_naive_on_the_empty_start():
    X, y_bin, _ = pool(n=20, seed=3)
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    check_against_naive(q, rbf_kernel(X, sigma=SIGMA), 2, None, None)


def test_pool_risk_matches_the_definition_for_every_variant():
    rng = np.random.default_rng(5)
    for T in (2, 3, 4):
        for clip in (True, False):
            inv_w = rng.uniform(0.2, 3.0, T)
            F = rng.normal(scale=1.5, size=(4, 1 if T == 2 else T, 30))
            F[0, :, :5] = -2.0  # all-clipped points: uniform p̂
            F[1, :, 5:8] = 0.0  # ties
            want = [naive_risk(F[b].T, inv_w, clip, T) for b in range(4)]
            G = F[:, 0].copy() if T == 2 else F.copy()
            np.testing.assert_allclose(pool_risk(G, inv_w, clip=clip), want, atol=1e-12)


def test_binary_state_equals_weighted_rls_classifier():
    """An independent implementation (rlscore.core.rls.classifier) gives the same classifier."""
    X, y, _ = pool()
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight="balanced").start(X, [-1, 1])
    picked = [0, 1, 2, 5, 8, 13, 21, 30]
    for i in picked:
        q.teach(i, int(y[i]))
    ref = RLSClassifier(sigma=SIGMA, lam=LAM, class_weight="balanced").fit(X[picked], y[picked])
    np.testing.assert_allclose(q.decision_function(), ref.decision_function(X), atol=1e-9)
    np.testing.assert_allclose(
        q.decision_function_at(X[:7]), ref.decision_function(X[:7]), atol=1e-9
    )
    np.testing.assert_array_equal(q.predict_at(X), ref.predict(X))


def test_predict_proba_and_class_probabilities():
    X, _, y = pool()
    q = ARLS(sigma=SIGMA, lam=LAM, clip=False).start(X, [0, 1, 2])
    for i in range(6):
        q.teach(i, int(y[i]))
    P = q.predict_proba()
    np.testing.assert_allclose(P.sum(1), 1.0)
    np.testing.assert_allclose(q.class_probabilities(), naive_proba(q.m_, False, 3))
    np.testing.assert_array_equal(q.predict(), np.array([0, 1, 2])[np.argmax(q.m_, 1)])


def test_dual_coef_reproduces_the_pool_predictions():
    X, y, _ = pool()
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight={-1: 1.0, 1: 2.0}).start(X, [-1, 1])
    for i in (4, 9, 17, 23):
        q.teach(i, int(y[i]))
    K = rbf_kernel(X, sigma=SIGMA)
    np.testing.assert_allclose(K[:, q.labeled_] @ q.dual_coef(), q.m_, atol=1e-10)


# -- undo / forget ------------------------------------------------------------------------
def assert_state_from_scratch(q, K, T, class_weight=None):
    L, cls = list(q.labeled_), class_positions(q)
    W, _ = spec_weights(cls, q.classes_.tolist(), class_weight)
    np.testing.assert_allclose(q.m_, naive_fit(K, L, cls, LAM, W, T), atol=1e-8)
    V = naive_V(K, L, cls, LAM, W, T)  # one per column
    np.testing.assert_allclose(np.broadcast_to(q.V_, V.shape), V, atol=1e-8)
    D = q.covariance_
    assert np.array_equal(D, np.swapaxes(D, -1, -2)), "D must stay exactly symmetric"


N_SMALL = 14
X_SMALL = np.random.default_rng(11).normal(size=(N_SMALL, 2)) * 1.5
K_SMALL = rbf_kernel(X_SMALL, sigma=SIGMA)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    T=st.sampled_from([2, 3]),
    class_weight=st.sampled_from([None, "balanced", "dict"]),
)
def test_teach_undo_forget_sequences_equal_from_scratch(data, T, class_weight):
    classes = [-1, 1] if T == 2 else [0, 1, 2]
    if class_weight == "dict":
        class_weight = dict(zip(classes, [1.0, 3.0, 0.5][:T], strict=True))
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).start(X_SMALL, classes)
    ops = data.draw(st.lists(st.sampled_from(["teach", "teach", "undo", "forget"]), max_size=12))
    for op in ops:
        free = [i for i in range(N_SMALL) if i not in q.labeled_]
        if op == "teach" and free:
            q.teach(data.draw(st.sampled_from(free)), data.draw(st.sampled_from(classes)))
        elif op == "undo" and q.labeled_:
            q.undo()
        elif op == "forget" and q.labeled_:
            q.forget(data.draw(st.sampled_from(list(q.labeled_))))
        assert_state_from_scratch(q, K_SMALL, T, class_weight)


def test_undoing_everything_restores_the_never_labeled_state():
    X, y, _ = pool(n=50)
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    K = rbf_kernel(X, sigma=SIGMA)
    for _ in range(15):
        i, _ = q.next_query()
        q.teach(i, int(y[i]))
    while q.labeled_:
        q.undo()
    np.testing.assert_allclose(q.V_, 0.0, atol=1e-8)
    np.testing.assert_allclose(q.m_, 0.0, atol=1e-10)
    np.testing.assert_allclose(q.covariance_, K, atol=1e-8)


def test_relabel_is_forget_then_teach_and_changes_the_query():
    X, y, _ = pool()
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    for i in (0, 1, 2):
        q.teach(i, int(y[i]))
    with pytest.raises(ValueError, match="already labeled"):
        q.teach(1, int(-y[1]))
    q.forget(1)
    q.teach(1, int(-y[1]))
    ref = ARLS(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    for i, lab in ((0, y[0]), (2, y[2]), (1, -y[1])):
        ref.teach(i, int(lab))
    np.testing.assert_allclose(q.m_, ref.m_, atol=1e-10)
    np.testing.assert_allclose(q.scores(), ref.scores(), atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_rebuild_after_set_params_equals_a_fresh_session(class_weight):
    X, y, _ = pool()
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).start(X, [-1, 1])
    for i in (3, 8, 12):
        q.teach(i, int(y[i]))
    q.set_params(lam=0.05, sigma=0.9)
    q.rebuild()
    ref = ARLS(sigma=0.9, lam=0.05, class_weight=class_weight).start(X, [-1, 1])
    for i in (3, 8, 12):
        ref.teach(i, int(y[i]))
    np.testing.assert_allclose(q.m_, ref.m_, atol=1e-10)
    np.testing.assert_allclose(q.V_, ref.V_, atol=1e-10)


@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_teach_many_equals_one_by_one(class_weight):
    X, y, _ = pool()
    picks = [5, 1, 30, 12, 7, 22]
    one = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).start(X, [-1, 1])
    for i in picks:
        one.teach(i, int(y[i]))
    many = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).start(X, [-1, 1])
    many.teach_many(picks, [int(y[i]) for i in picks])
    assert many.labeled_ == picks
    np.testing.assert_allclose(many.m_, one.m_, atol=1e-10)
    np.testing.assert_allclose(many.V_, one.V_, atol=1e-10)
    np.testing.assert_allclose(many.scores(), one.scores(), atol=1e-9, equal_nan=True)


def test_teach_many_keeps_the_labels_before_a_refused_one():
    X, y, _ = pool()
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    with pytest.raises(ValueError, match="label 5 is not one of the classes"):
        q.teach_many([3, 4, 6], [int(y[3]), 5, int(y[6])])
    assert q.labeled_ == [3]
    K = rbf_kernel(X, sigma=SIGMA)
    assert_state_from_scratch(q, K, 2)


# -- input and memory ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"lam": 0.0}, "lam must be > 0"),
        ({"lam": -1}, "lam must be > 0"),
        ({"class_weight": "balance"}, "class_weight must be None, 'balanced' or a dict"),
        ({"class_weight": {7: 2.0}}, r"class_weight names \[7\], which are not among"),
        ({"class_weight": {1: -2.0}}, r"class_weight\[1\] must be > 0"),
        ({"sigma": 0.0}, "sigma must be > 0"),
        ({"sigma": 1e-300}, "sigma = 1e-300 is too small"),
    ],
)
def test_bad_parameters_are_named(params, match):
    X, _, _ = pool(n=10)
    with pytest.raises(ValueError, match=match):
        ARLS(**params).start(X, [-1, 1])


def test_a_pool_that_does_not_fit_in_memory_is_refused(monkeypatch):
    monkeypatch.setattr(
        rlscore.core.conventions.memory_budget, "available_memory_bytes", lambda: 10_000
    )
    X, _, _ = pool(n=40)
    with pytest.raises(MemoryError, match=r"ARLS on a pool of 40 points.*smaller pool"):
        ARLS().start(X, [-1, 1])


def test_balanced_multiclass_needs_one_covariance_per_class(monkeypatch):
    # 40 points: one matrix is 12 800 bytes; K + one D fit in 80 % of 40 000, K + 3 D do not
    monkeypatch.setattr(
        rlscore.core.conventions.memory_budget, "available_memory_bytes", lambda: 40_000
    )
    X, _, _ = pool(n=40)
    ARLS().start(X, [0, 1, 2])
    ARLS(class_weight={0: 2.0}).start(X, [0, 1, 2])
    ARLS(class_weight="balanced").start(X, [-1, 1])
    with pytest.raises(MemoryError, match=r"\(4 × 40 × 40 float64\)"):
        ARLS(class_weight="balanced").start(X, [0, 1, 2])


def test_covariances_are_shared_unless_balanced_multiclass():
    X, _, y = pool()
    seeds = [int(np.flatnonzero(y == c)[k]) for c in range(3) for k in range(c + 1)]
    for class_weight, count in ((None, 1), ({0: 2.0}, 1), ("balanced", 3)):
        q = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).start(X, [0, 1, 2])
        q.teach_many(seeds, [int(y[i]) for i in seeds])
        assert len(q._Ds) == count
        assert q.covariance_.shape == ((36, 36) if count == 1 else (3, 36, 36))


def test_graph_kernel_cannot_score_new_points():
    X, y, _ = pool()
    q = ARLS(kernel="graph").start(X, [-1, 1])
    q.teach(0, int(y[0]))
    assert np.isfinite(q.scores()[1:]).all()
    with pytest.raises(ValueError, match="graph kernel"):
        q.decision_function_at(X[:3])


def test_make_strategy_builds_the_weighted_variant():
    q = make_strategy("arls-weighted", sigma=1.0, lam=0.1, not_a_param=3)
    assert isinstance(q, ARLS)
    assert q.class_weight == "balanced" and q.bias_corrected is True


def test_scores_are_cached_until_the_state_changes(monkeypatch):
    """scores() computes the lookahead once per state (counted): a second call is served
    from the cache, as a copy; teach, forget and undo each invalidate it, and the scores
    computed then equal those of a strategy taught the same labels from scratch."""
    X, y, _ = pool()
    computed = []

    class CountingLookahead(rlscore.query.arls.thesis.Lookahead):
        def __init__(self, strategy):
            computed.append(strategy._version)
            super().__init__(strategy)

    monkeypatch.setattr(rlscore.query.arls.thesis, "Lookahead", CountingLookahead)
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
    s1, s2 = q.scores(), q.scores()
    s1[0] = s2[1] = 123.0  # the callers' copies: the cache is not affected
    assert 123.0 not in q.scores()[:2]
    assert len(computed) == 1  # the second and third calls were served from the cache
    for change in ("teach", "teach", "forget", "undo"):
        before = len(computed)
        if change == "teach":
            i = len(q.labeled_) * 7
            q.teach(i, int(y[i]))
        elif change == "forget":
            q.forget(q.labeled_[0])
        else:
            q.undo()
        fresh = ARLS(sigma=SIGMA, lam=LAM).start(X, [-1, 1])
        for i, label in zip(q.labeled_, q.labels_, strict=True):
            fresh.teach(i, label)
        expected = fresh.scores()
        first, again = q.scores(), q.scores()
        assert len(computed) == before + 2, change  # q once after the change, fresh once
        np.testing.assert_allclose(first, expected, rtol=1e-10, atol=1e-12, err_msg=change)
        np.testing.assert_array_equal(again, first)
        assert np.isnan(first[q.labeled_]).all()


# -- Paskov §4.3, fig. 4-7 -----------------------------------------------------------------
def test_spheres_need_exactly_one_query_per_sphere():
    """σ 1.7, λ 0.5: 100 % validation accuracy after exactly 60 queries, one per sphere."""
    pool_set, val = load_sample("spheres"), load_sample("spheres", "validation")
    sphere = np.arange(pool_set.y.size) // 20  # make_spheres: 20 consecutive points per disc
    q = ARLS(sigma=1.7, lam=0.5).start(pool_set.X, [-1, 1])
    accuracy = []
    for _ in range(60):
        i, _ = q.next_query()
        q.teach(i, int(pool_set.y[i]))
        accuracy.append(float((q.predict_at(val.X) == val.y).mean()))
    assert sorted(sphere[q.labeled_]) == list(range(60))
    assert accuracy[-1] == 1.0
    assert accuracy[-2] < 1.0
