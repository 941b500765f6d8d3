"""Batch queries (``next_queries``) against an independent brute-force believer loop.

The reference deep-copies the whole strategy, asks it for ``next_query``, teaches the copy the
believed label (argmax of the copy's class probabilities at that point) and repeats; it shares
nothing with :mod:`rlscore.query.protocol.batch` but the public protocol. The engine must come back
bit for bit: every array of its state is compared exactly before and after.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from reference.batch import brute_force

from rlscore.query import (
    ARLS,
    AOptimalKLR,
    EntropyQuery,
    LowRankARLS,
    NoCandidatesError,
    RandomQuery,
    UncertaintyQuery,
)
from rlscore.query.protocol.batch import lookahead_copy

STRATEGIES = {
    "arls": lambda: ARLS(sigma=1.3, lam=0.3),
    "arls-weighted": lambda: ARLS(sigma=1.3, lam=0.3, class_weight="balanced"),
    "aopt-graph": lambda: AOptimalKLR(kernel="graph", lam=0.1, mode="exact"),
    "aopt-rbf": lambda: AOptimalKLR(kernel="rbf", sigma=1.3, lam=0.1, mode="exact"),
    "aopt-subset": lambda: AOptimalKLR(kernel="graph", lam=0.1, mode="exact", candidates=12),
    "lowrank-arls": lambda: LowRankARLS(sigma=1.3, lam=0.3, n_landmarks=25),
    "lowrank-subset": lambda: LowRankARLS(
        sigma=1.3, lam=0.3, n_landmarks=25, candidates=16, risk_sample=30
    ),
    "uncertainty": lambda: UncertaintyQuery(sigma=1.3, lam=0.3),
    "entropy": lambda: EntropyQuery(sigma=1.3, lam=0.3),
    "random": lambda: RandomQuery(seed=3),
}


def pool(n: int = 60, T: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """2-D points; binary labels by a line, or 3 classes by bands."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.8
    if T == 2:
        return X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0.4, 1, -1)
    return X, np.digitize(X[:, 0] - 0.3 * X[:, 1], [-1.0, 1.0])


def started(name: str, T: int = 2, n: int = 60, labels: int = 4):
    """The strategy on a pool with ``labels`` points taught (every class once, then more)."""
    X, y = pool(n, T)
    q = STRATEGIES[name]().start(X, sorted(set(y.tolist())))
    first = [int(np.flatnonzero(y == c)[0]) for c in sorted(set(y.tolist()))]
    rest = [i for i in np.random.default_rng(1).permutation(n).tolist() if i not in first]
    for i in (first + rest)[:labels]:
        q.teach(i, y[i].item())
    return q


def assert_same_state(before, after, path: str = "state") -> None:
    """Exact equality of two states: arrays bit for bit (NaN equal NaN), recursively."""
    if isinstance(before, np.ndarray):
        assert isinstance(after, np.ndarray), path
        assert before.dtype == after.dtype and before.shape == after.shape, path
        assert np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"), path
    elif isinstance(before, dict):
        assert before.keys() == after.keys(), path
        for key in before:
            assert_same_state(before[key], after[key], f"{path}.{key}")
    elif isinstance(before, list | tuple):
        assert type(before) is type(after) and len(before) == len(after), path
        for j, (a, b) in enumerate(zip(before, after, strict=True)):
            assert_same_state(a, b, f"{path}[{j}]")
    elif hasattr(before, "__dict__") and not isinstance(before, type):
        assert type(before) is type(after), path
        assert_same_state(vars(before), vars(after), path)
    else:
        assert before == after, path


def state_of(q) -> dict:
    """Every attribute, the score caches included."""
    return dict(vars(q))


# -- greedy = the believer loop ------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("T", [2, 3])
def test_greedy_equals_the_brute_force_believer_loop(name, T):
    q = started(name, T)
    assert q.next_queries(6) == brute_force(q, 6)
    assert q.next_queries(4, exclude={7, 8, 9}) == brute_force(q, 4, exclude={7, 8, 9})


def test_greedy_believed_labels_may_switch_balanced_weights_on():
    # one class labeled only: balanced weights start when a believed label brings the other
    X, y = pool(60)
    q = ARLS(sigma=1.3, lam=0.3, class_weight="balanced").start(X, [-1, 1])
    neg = np.flatnonzero(y == -1)[:3].tolist()
    for i in neg:
        q.teach(i, -1)
    assert q.next_queries(5) == brute_force(q, 5)


def test_greedy_from_no_label_at_all():
    X, _ = pool(40)
    for make in (STRATEGIES["arls"], STRATEGIES["aopt-graph"]):
        q = make().start(X, [-1, 1])
        assert q.next_queries(3) == brute_force(q, 3)


def test_random_greedy_and_top_agree_with_its_order():
    # its scores are a fixed random order: no label moves them
    q = started("random")
    s = q.scores()
    order = [i for i in np.argsort(s, kind="stable").tolist() if not np.isnan(s[i])]
    expected = [(i, float(s[i])) for i in order[:5]]
    assert q.next_queries(5) == q.next_queries(5, rule="top") == expected


def test_uncertainty_greedy_follows_the_refit_not_the_current_margins():
    # the believed label refits the RLS predictor, so the batch differs from the top-k
    q = started("uncertainty", labels=6)
    assert q.next_queries(6) != q.next_queries(6, rule="top")


# -- top = the k best current scores -------------------------------------------------------------
@pytest.mark.parametrize("name", ["arls", "arls-weighted", "uncertainty", "entropy", "aopt-rbf"])
def test_top_is_the_k_best_scores_of_the_current_state(name):
    q = started(name, T=3)
    exclude = {2, 11}
    s = q.scores()
    s[list(exclude)] = np.nan
    order = np.argsort(np.where(np.isnan(s), np.inf, s), kind="stable")[:5]
    assert q.next_queries(5, exclude=exclude, rule="top") == [(int(i), s[i]) for i in order]


def test_greedy_spreads_over_exact_duplicates_top_does_not():
    # every point twice: labeling one copy tells everything about the other
    X, y = pool(30)
    X2 = np.vstack([X, X])
    q = ARLS(sigma=1.3, lam=0.3).start(X2, [-1, 1])
    for i in (int(np.flatnonzero(y == -1)[0]), int(np.flatnonzero(y == 1)[0])):
        q.teach(i, y[i].item())
    twins = {frozenset((i % 30, i % 30 + 30)) for i in range(60)}

    def has_twins(batch):
        chosen = {i for i, _ in batch}
        return any(t <= chosen for t in twins)

    assert has_twins(q.next_queries(4, rule="top"))
    assert not has_twins(q.next_queries(4))


# -- the engine is left bit for bit --------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("rule", ["greedy", "top"])
def test_the_engine_state_is_unchanged(name, rule):
    T = 3 if name.startswith("arls") else 2  # balanced multiclass ARLS: one D per column
    q = started(name, T)
    first = q.next_query(exclude=[5])  # the caches as the batch's first pick leaves them
    before = copy.deepcopy(state_of(q))
    arrays = {k: v for k, v in vars(q).items() if isinstance(v, np.ndarray)}
    batch = q.next_queries(5, exclude=[5], rule=rule)
    assert len(batch) == 5
    assert_same_state(before, state_of(q))
    assert all(vars(q)[k] is v for k, v in arrays.items())  # no array replaced either
    assert q.next_query(exclude=[5]) == first
    # and the next label goes on from the same state as a copy that never saw a batch
    twin = copy.deepcopy(q)
    i = first[0]
    q.teach(i, q.classes_[0].item())
    twin.teach(i, twin.classes_[0].item())
    assert_same_state(state_of(twin), state_of(q))
    assert q.next_query() == twin.next_query()


def test_lookahead_copy_shares_only_the_read_only_arrays():
    q = started("arls")
    c = lookahead_copy(q)
    assert c.X_ is q.X_ and c._K is q._K and c._kernel.K is q._K
    assert c._Ds[0] is not q._Ds[0] and c._m is not q._m and c.labeled_ is not q.labeled_
    c.teach(int(np.setdiff1d(np.arange(q.n_pool_), q.labeled_)[0]), 1)
    assert len(c.labeled_) == len(q.labeled_) + 1
    lr = started("lowrank-arls")
    c = lookahead_copy(lr)
    assert c.features_ is lr.features_ and c._Cs[0] is not lr._Cs[0]
    view = lookahead_copy(q, deep=False)  # for "top": queries only
    assert view._Ds[0] is q._Ds[0] and view.__dict__ is not q.__dict__


# -- the contract ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_batch_of_one_is_next_query(name):
    q = started(name)
    for rule in ("greedy", "top"):
        assert q.next_queries(1, rule=rule) == [q.next_query()]
        assert q.next_queries(1, exclude=[0, 3], rule=rule) == [q.next_query(exclude=[0, 3])]


@pytest.mark.parametrize("name", ["arls", "aopt-graph", "aopt-subset", "lowrank-subset", "random"])
@pytest.mark.parametrize("rule", ["greedy", "top"])
def test_k_larger_than_the_candidates_returns_them_all(name, rule):
    q = started(name, n=14, labels=3)
    exclude = {0, 13}
    left = set(range(14)) - set(q.labeled_) - exclude
    batch = q.next_queries(50, exclude=iter(exclude), rule=rule)  # any iterable, read once
    assert sorted(i for i, _ in batch) == sorted(left)
    with pytest.raises(NoCandidatesError, match="no candidate left"):
        q.next_queries(3, exclude=left | exclude, rule=rule)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("rule", ["greedy", "top"])
def test_picks_are_distinct_unlabeled_and_not_excluded(name, rule):
    q = started(name, T=3, labels=5)
    exclude = set(range(0, 60, 4))
    batch = q.next_queries(8, exclude=exclude, rule=rule)
    chosen = [i for i, _ in batch]
    assert len(batch) == 8 and len(set(chosen)) == 8
    assert not set(chosen) & (exclude | set(q.labeled_))
    assert all(isinstance(i, int) and isinstance(s, float) for i, s in batch)


@pytest.mark.parametrize("k", [0, -2, 2.0, True, "3", None])
def test_k_must_be_a_positive_integer(k):
    q = started("arls")
    with pytest.raises(ValueError, match=r"k must be an integer ≥ 1 .*got"):
        q.next_queries(k)


def test_unknown_rule_and_unstarted_strategy():
    q = started("arls")
    with pytest.raises(ValueError, match=r"unknown batch rule 'best': choose one of \['greedy'"):
        q.next_queries(2, rule="best")
    with pytest.raises(RuntimeError, match="not started"):
        ARLS().next_queries(2)


def test_the_benchmark_runs_a_short_curve():
    # benchmarks/batch_queries.py (a script, not a package): one small run of each kind
    import importlib.util
    import sys
    from pathlib import Path

    bench_dir = Path(__file__).resolve().parents[1] / "benchmarks"
    if str(bench_dir) not in sys.path:  # the script imports its harness as a sibling
        sys.path.insert(0, str(bench_dir))
    spec = importlib.util.spec_from_file_location("bench_batch", bench_dir / "batch_queries.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    X, y = pool(50)
    make = STRATEGIES["arls"]
    curve = bench.learning_curve(make, X, y, "greedy", 4, seed=0, budget=12)
    assert sorted(curve.accuracy) == list(range(2, 13)) and len(curve.batch_seconds) == 3
    assert 0.5 < curve.auc() <= 1.0
    passive = bench.learning_curve(make, X, y, "random", 1, seed=0, budget=12)
    assert sorted(passive.accuracy) == list(range(2, 13)) and not passive.batch_seconds
