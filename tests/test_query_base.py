"""The query protocol's bookkeeping, checked on a small strategy written here for the purpose."""

import numpy as np
import pytest

import rlscore.query
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.query import (
    STRATEGIES,
    NoCandidatesError,
    QueryStrategy,
    make_strategy,
    strategy_class,
)


class KernelVote(QueryStrategy):
    """f = Σ_labeled k(x, x_j) y_j kept incrementally; scores = |f| (least decided first)."""

    def __init__(self, kernel="rbf", sigma=1.0):
        self.kernel = kernel
        self.sigma = sigma

    def _start(self, X, K):
        self.K_ = self.pool_kernel(X) if K is None else K
        self.f_ = np.zeros((X.shape[0], 1 if self.classes_.size == 2 else self.classes_.size))
        self.kernel_builds_ = getattr(self, "kernel_builds_", 0) + (K is None)

    def _add(self, i, c):
        self.f_ += np.outer(self.K_[:, i], ova_targets([c], self.classes_.size)[0])

    def _remove(self, pos):
        c = self.class_index(self.labels_[pos])
        self.f_ -= np.outer(self.K_[:, self.labeled_[pos]], ova_targets([c], self.classes_.size)[0])

    def decision_function(self):
        return self.f_[:, 0] if self.f_.shape[1] == 1 else self.f_

    def scores(self):
        s = np.abs(self.f_).sum(1)
        s[self.labeled_] = np.nan
        return s

    def estimated_risk(self):
        return float(np.nansum(self.scores()))


def from_scratch(X, classes, pairs, **params):
    q = KernelVote(**params).start(X, classes)
    for i, y in pairs:
        q.teach(i, y)
    return q


@pytest.fixture
def X():
    return np.random.default_rng(1).normal(size=(25, 2))


def test_teach_undo_forget_equal_a_from_scratch_build(X):
    q = KernelVote().start(X, [-1, 1])
    for i, y in [(3, 1), (7, -1), (11, 1), (2, -1)]:
        q.teach(i, y)
    assert q.undo() == (2, -1)
    q.forget(7)
    ref = from_scratch(X, [-1, 1], [(3, 1), (11, 1)])
    np.testing.assert_allclose(q.decision_function(), ref.decision_function(), atol=1e-12)
    assert q.labeled_ == [3, 11] and q.labels_ == [1, 1]


def test_next_query_skips_labeled_and_excluded_points(X):
    q = from_scratch(X, [-1, 1], [(0, 1), (1, -1)])
    s = q.scores()
    order = np.argsort(np.nan_to_num(s, nan=np.inf))
    i, score = q.next_query()
    assert i == order[0] and score == pytest.approx(s[order[0]])
    assert q.next_query(exclude=[order[0]])[0] == order[1]
    with pytest.raises(NoCandidatesError, match="no candidate left"):
        q.next_query(exclude=range(25))


def test_multiclass_targets_and_probabilities(X):
    q = from_scratch(X, ["a", "b", "c"], [(0, "a"), (5, "c")])
    p = q.predict_proba()
    assert p.shape == (25, 3)
    np.testing.assert_allclose(p.sum(1), 1.0)
    assert q.predict()[0] == "a" and q.predict()[5] == "c"
    f = q.decision_function()
    raw = np.clip((f + 1) / 2, 0, 1)
    np.testing.assert_allclose(p[0], raw[0] / raw[0].sum())


def test_binary_probabilities_are_clipped_soft_scores(X):
    q = from_scratch(X, [-1, 1], [(0, 1), (1, -1)])
    f = q.decision_function()
    np.testing.assert_allclose(q.predict_proba()[:, 1], np.clip((f + 1) / 2, 0, 1))
    np.testing.assert_array_equal(q.predict(), np.where(f > 0, 1, -1))


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda q: q.teach(0, 1), "already labeled as 1"),
        (lambda q: q.teach(30, 1), "outside the pool"),
        (lambda q: q.teach(2, 5), "label 5 is not one of the classes"),
        (lambda q: q.teach(2, "1"), "label '1' is not one of the classes"),
        (lambda q: q.teach(2, True), "not one of the classes"),
        (lambda q: q.teach(1.5, 1), "must be an integer"),
        (lambda q: q.forget(4), "point 4 is not labeled"),
    ],
)
def test_bad_calls_name_the_problem(X, action, message):
    q = from_scratch(X, [-1, 1], [(0, 1)])
    with pytest.raises(ValueError, match=message):
        action(q)


def test_start_validation(X):
    with pytest.raises(ValueError, match="at least 2 classes"):
        KernelVote().start(X, [1])
    with pytest.raises(ValueError, match="distinct"):
        KernelVote().start(X, [1, 1])
    with pytest.raises(ValueError, match="25 × 25 pool kernel"):
        KernelVote().start(X, [-1, 1], K=np.eye(3))
    with pytest.raises(RuntimeError, match="not started"):
        KernelVote().next_query()
    with pytest.raises(ValueError, match="nothing to undo"):
        KernelVote().start(X, [-1, 1]).undo()


def test_rebuild_replays_labels_and_reuses_a_given_kernel_only_if_unchanged(X):
    K = KernelVote().pool_kernel(X)
    q = KernelVote().start(X, [-1, 1], K=K)
    q.teach(4, 1)
    q.teach(9, -1)
    q.rebuild()
    assert q.K_ is K
    q.set_params(sigma=0.5)
    q.rebuild()
    ref = from_scratch(X, [-1, 1], [(4, 1), (9, -1)], sigma=0.5)
    np.testing.assert_allclose(q.decision_function(), ref.decision_function())
    assert q.labeled_ == [4, 9]


def test_registry_names_resolve_lazily():
    assert set(STRATEGIES) >= {"arls", "arls-weighted", "aopt-klr", "random", "entropy"}
    with pytest.raises(ValueError, match="unknown strategy 'nope'"):
        make_strategy("nope")
    with pytest.raises(ValueError, match="unknown strategy"):
        strategy_class("nope")


def test_a_refused_rebuild_keeps_every_label(X):
    q = from_scratch(X, [-1, 1], [(4, 1), (9, -1)])
    before = q.decision_function().copy()
    q.set_params(sigma=-1.0)
    with pytest.raises(ValueError, match="sigma must be > 0"):
        q.rebuild()
    assert q.labeled_ == [4, 9] and q.labels_ == [1, -1]
    np.testing.assert_array_equal(q.decision_function(), before)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_registered_strategy_runs_the_protocol(name, X):
    q = make_strategy(name, sigma=1.0, lam=0.5, kernel="rbf").start(X, [-1, 1])
    i, _ = q.next_query()
    q.teach(i, 1)
    j, _ = q.next_query()
    assert j != i
    q.teach(j, -1)
    assert q.predict_proba().shape == (25, 2)
    assert np.isnan(q.scores()[[i, j]]).all()
    assert q.undo() == (j, -1)


def test_the_package_exports_every_strategy_and_the_registry():
    names = [
        "ARLS",
        "AOptimalKLR",
        "MaxEntropyKLR",
        "RandomQuery",
        "UncertaintyQuery",
        "EntropyQuery",
        "QueryStrategy",
        "NoCandidatesError",
        "STRATEGIES",
        "make_strategy",
        "strategy_class",
        "RLSPoolStrategy",
    ]
    for name in names:
        assert hasattr(rlscore.query, name), name
    for name in STRATEGIES:
        cls = strategy_class(name)
        assert getattr(rlscore.query, cls.__name__) is cls


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("given_kernel", [False, True])
def test_every_strategy_refuses_an_underflowing_sigma(name, given_kernel, X):
    # 2σ² underflows to 0 below ~1e-162: a named ValueError, not a ZeroDivisionError
    q = make_strategy(name, sigma=1e-300, lam=0.5, kernel="rbf")
    if "sigma" not in q.get_params():
        pytest.skip(f"{name} has no σ (LGC builds its own kNN graph)")
    K = np.eye(25) if given_kernel else None
    with pytest.raises(ValueError, match=r"sigma = 1e-300 is too small: σ² underflows, use σ ≥"):
        q.start(X, [-1, 1], K=K)
