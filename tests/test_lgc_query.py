"""LGCQuery: the LGC strategy against an independently fitted LGCClassifier (Sheng eq. 3.5)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from reference.lgc import reference_margin, reference_proba

import rlscore.query
import rlscore.query.baselines.lgc_uncertainty
from rlscore.core.graph.lgc import _cg_iterations
from rlscore.query import STRATEGIES, LGCQuery, NoCandidatesError, make_strategy
from rlscore.sessions.state.engine import KernelCache, memory_need


def pool(n: int = 80, T: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """2-D points; binary labels by a line, or 3 classes by bands."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.8
    if T == 2:
        return X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0.4, 1, -1)
    return X, np.digitize(X[:, 0] - 0.3 * X[:, 1], [-1.0, 1.0])


def labels_to_teach(y: np.ndarray, count: int, seed: int = 1) -> list[int]:
    """Every class once first, then random points."""
    classes = sorted(set(y.tolist()))
    first = [int(np.flatnonzero(y == c)[0]) for c in classes]
    rest = [i for i in np.random.default_rng(seed).permutation(y.size).tolist() if i not in first]
    return (first + rest)[:count]


def taught(X, y, idx, **params) -> LGCQuery:
    q = LGCQuery(**params).start(X, sorted(set(y.tolist())))
    for i in idx:
        q.teach(i, y[i].item())
    return q


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize(
    ("graph_k", "alpha", "normalization"),
    [(6, 0.99, "random_walk"), (4, 0.5, "symmetric"), (8, 0.2, "random_walk")],
)
def test_probabilities_and_scores_equal_an_independent_lgc_fit(T, graph_k, alpha, normalization):
    X, y = pool(90, T)
    idx = labels_to_teach(y, 7)
    params = {"graph_k": graph_k, "alpha": alpha, "normalization": normalization}
    q = taught(X, y, idx, **params)
    P = reference_proba(X, y, idx, **params)
    np.testing.assert_allclose(q.predict_proba(), P, rtol=0, atol=1e-8)
    np.testing.assert_allclose(q.scores(), reference_margin(P, idx), rtol=0, atol=1e-8)
    unl = np.setdiff1d(np.arange(X.shape[0]), idx)
    assert q.estimated_risk() == pytest.approx(float(np.sum(1 - P[unl].max(1))), abs=1e-7)
    # decision values: sign (2 classes) or argmax (T classes) gives the predicted class
    f = q.decision_function()
    assert f.shape == ((90,) if T == 2 else (90, T))
    np.testing.assert_array_equal(q.predict(), q.classes_[np.argmax(P, axis=1)])


def test_undo_forget_and_rebuild_equal_teaching_the_rest_from_scratch():
    X, y = pool(70, 3)
    idx = labels_to_teach(y, 8)
    q = taught(X, y, idx)
    assert q.undo() == (idx[-1], y[idx[-1]].item())
    q.forget(idx[3])
    rest = [i for i in idx[:-1] if i != idx[3]]
    ref = taught(X, y, rest)
    for a, b in [(q.predict_proba(), ref.predict_proba()), (q.scores(), ref.scores())]:
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    assert q.labeled_ == rest
    q.set_params(alpha=0.5)
    q.rebuild()
    np.testing.assert_allclose(
        q.predict_proba(), taught(X, y, rest, alpha=0.5).predict_proba(), rtol=0, atol=1e-12
    )


def test_before_labels_and_in_unlabeled_components_the_distribution_is_uniform():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 100.0])
    q = LGCQuery(graph_k=3).start(X, ["a", "b"])
    np.testing.assert_array_equal(q.predict_proba(), 0.5)
    assert q.estimated_risk() == pytest.approx(20.0)
    q.teach(0, "a")
    q.teach(1, "b")
    assert q.unreached_.sum() == 20 and not q.unreached_[:20].any()
    np.testing.assert_array_equal(q.predict_proba()[20:], 0.5)
    assert q.next_query()[0] == 20  # margin 0, lowest index


def test_next_query_skips_labeled_and_excluded_points():
    X, y = pool(60, 2)
    q = taught(X, y, labels_to_teach(y, 4))
    s = q.scores()
    order = np.argsort(np.nan_to_num(s, nan=np.inf), kind="stable")
    i, score = q.next_query()
    assert i == order[0] and score == pytest.approx(s[order[0]])
    assert q.next_query(exclude=[order[0], order[1]])[0] == order[2]
    with pytest.raises(NoCandidatesError):
        q.next_query(exclude=range(60))


def test_registry_session_parameters_and_memory():
    assert STRATEGIES["lgc"][0] == "rlscore.query.baselines.lgc_uncertainty:LGCQuery"
    assert rlscore.query.LGCQuery is LGCQuery
    q = make_strategy("lgc", kernel="rbf", sigma=2.0, lam=0.1, class_weight=None, graph_k=5)
    assert isinstance(q, LGCQuery) and q.get_params()["graph_k"] == 5
    assert not q.needs_pool_kernel()
    X, _ = pool(30, 2)
    assert KernelCache().get(q, X) is None  # the session never builds an n × n kernel
    assert memory_need(q, 10**6) < 2 * 2**30  # O(n k), not the 7 TiB of an n × n matrix


@pytest.mark.parametrize(
    ("param", "value"), [("alpha", 1.0), ("alpha", 0), ("graph_k", 0), ("normalization", "x")]
)
def test_bad_parameters_are_refused(param, value):
    X, _ = pool(30, 2)
    with pytest.raises(ValueError, match=param):
        LGCQuery(**{param: value}).start(X, [-1, 1])


def test_twenty_thousand_points_with_one_graph_one_solve_per_label_and_no_n_by_n_matrix(
    monkeypatch,
):
    """The work is counted, not timed: one kNN graph for the pool, one conjugate-gradient
    solve per label, each within the iteration bound that does not grow with n, each
    iteration one product with the sparse graph (O(nk) entries); and the memory peak is far
    below one n × n matrix."""
    n = 20_000
    X, y = pool(n, 3, seed=4)
    graphs, solves = [], []
    knn_graph, block_cg = (
        rlscore.query.baselines.lgc_uncertainty.knn_graph,
        rlscore.query.baselines.lgc_uncertainty._block_cg,
    )

    def counting_graph(*args, **kwargs):
        graphs.append(knn_graph(*args, **kwargs))
        return graphs[-1]

    def counting_cg(matvec, B, tol, max_iter):
        products = []

        def counted(P):
            products.append(P.shape[1])
            return matvec(P)

        Z, iterations = block_cg(counted, B, tol, max_iter)
        solves.append((B.shape[1], iterations, len(products), max_iter))
        return Z, iterations

    monkeypatch.setattr(rlscore.query.baselines.lgc_uncertainty, "knn_graph", counting_graph)
    monkeypatch.setattr(rlscore.query.baselines.lgc_uncertainty, "_block_cg", counting_cg)
    tracemalloc.start()
    q = LGCQuery().start(X, [0, 1, 2])
    idx = labels_to_teach(y, 6)
    for i in idx:
        q.teach(i, y[i].item())
    i, _ = q.next_query()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(graphs) == 1 and graphs[0].nnz <= 2 * 6 * n  # k = 6 neighbours each
    assert len(solves) == len(idx)  # u = 1/(1 − α) needs no solve for S = D⁻¹W
    bound = _cg_iterations(
        0.99, rlscore.query.baselines.lgc_uncertainty.CG_TOL
    )  # depends on α only, not on n
    for columns, iterations, products, max_iter in solves:
        assert columns == 1 and max_iter == bound and products == iterations <= bound
    assert peak < 100e6, f"peak {peak / 1e6:.0f} MB"  # an n × n float64 matrix is 3.2 GB
    assert i not in q.labeled_
    P = reference_proba(X, y, idx)
    np.testing.assert_allclose(q.predict_proba(), P, rtol=0, atol=1e-8)
