"""ARLS on low-rank features (docs/mathematics.md §7) against independent references.

* dense :class:`~rlscore.query.arls.thesis.ARLS` on the precomputed kernel ``K = ΦΦᵀ`` of the same
  features: same scores (1e-8) and picks, binary and 3 classes, with and without weights;
* RLS predictions and ``P`` from direct solves written here (the weights too);
* undo / forget: the state computed without that label;
* the subsampled lookahead: exactly k candidates, the pick among them, the risk estimate of a
  sample within 3 standard errors of the full-pool one, and the standard error itself against
  the spread of the estimate over many samples;
* memory: a pool of 20 000 points never allocates anything near an n × n matrix;
* ``refine``: the pick and the exact scores of the low-rank shortlist against dense ARLS on the
  exact kernel (whole pool) and a per-point risk written here (risk sample), the exact side in
  step through undo, forget, relabel, rebuild and ``set_params``, its memory budget.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from reference.arls_lowrank import exact_reference_scores

import rlscore.core.conventions.memory_budget
from rlscore.query import ARLS, STRATEGIES, LowRankARLS, NoCandidatesError, make_strategy
from rlscore.query.arls import thesis
from rlscore.sessions.state.engine import KernelCache, check_pool_size

SIGMA, LAM = 1.0, 0.3
GiB = 2**30


def pool(n: int, T: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    g = X[:, 0] + 0.5 * np.sin(2.0 * X[:, 1])
    y = np.digitize(g, [-0.4, 0.4]) if T == 3 else (g > 0.3).astype(int)
    return X, y


def targets(codes, T: int) -> np.ndarray:
    codes = np.asarray(codes)
    if T == 2:
        return np.where(codes == 1, 1.0, -1.0)[:, None]
    return np.where(codes[:, None] == np.arange(T), 1.0, -1.0)


def loss_weights(codes, T: int, class_weight, t: int) -> np.ndarray:
    """Weights ``a`` of the labeled points in one-vs-all column t (docs/mathematics.md §1), written
    here."""
    codes = np.asarray(codes)
    if class_weight is None:
        return np.ones(codes.size)
    if isinstance(class_weight, dict):
        return np.array([class_weight.get(c, 1.0) for c in codes.tolist()])
    counts = np.bincount(codes, minlength=T).astype(float)
    if (counts == 0).any():
        return np.ones(codes.size)  # balanced weights start once every class has a label
    n = codes.size
    if T == 2:
        return n / (2.0 * counts[codes])
    return np.where(codes == t, n / (2.0 * counts[t]), n / (2.0 * (n - counts[t])))


def rls_reference(phi, L, codes, T, class_weight) -> tuple[np.ndarray, list[np.ndarray]]:
    """``m = K_{:L}(K_LL + λ diag(1/a))⁻¹ Y_L`` and ``P = Φ_Lᵀ(K_LL + λ diag(1/a))⁻¹Φ_L`` per
    column, by direct solves with ``K = ΦΦᵀ``."""
    Y = targets(codes, T)
    phi_L = phi[L]
    m = np.empty((phi.shape[0], Y.shape[1]))
    Ps = []
    for t in range(Y.shape[1]):
        G = phi_L @ phi_L.T + LAM * np.diag(1.0 / loss_weights(codes, T, class_weight, t))
        m[:, t] = phi @ (phi_L.T @ np.linalg.solve(G, Y[:, t]))
        Ps.append(phi_L.T @ np.linalg.solve(G, phi_L))
    return m, Ps


CASES = [(2, None), (2, "balanced"), (3, None), (3, "balanced")]


@pytest.mark.parametrize(("T", "class_weight"), CASES)
def test_scores_and_picks_equal_dense_arls_on_the_feature_kernel(T, class_weight):
    X, y = pool(160, T)
    low = LowRankARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=25)
    low.start(X, list(range(T)))
    phi = low.features_
    assert phi.shape == (160, 25)
    dense = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight)
    dense.start(X, list(range(T)), K=phi @ phi.T)
    for i in (3, 50, 77):  # seed labels, then the queries of both
        low.teach(i, int(y[i]))
        dense.teach(i, int(y[i]))
    for _ in range(7):
        a, b = low.scores(), dense.scores()
        assert np.array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-8)
        (i, score), (j, ref) = low.next_query(), dense.next_query()
        assert i == j and abs(score - ref) < 1e-8
        low.teach(i, int(y[i]))
        dense.teach(j, int(y[j]))
    np.testing.assert_allclose(low.decision_function(), dense.decision_function(), atol=1e-10)
    assert low.estimated_risk() == pytest.approx(dense.estimated_risk(), abs=1e-8)
    assert low.risk_standard_error_ == 0.0


@pytest.mark.parametrize("path", ["numpy", "compiled"])
@pytest.mark.parametrize(("T", "class_weight"), CASES)
def test_sampled_scores_match_float64_arls_on_the_feature_kernel(
    T, class_weight, path, monkeypatch
):
    # the sampled lookahead's covariance rows are single precision (SAMPLED_ROWS_DTYPE): its
    # scores against dense ARLS on K̃ = ΦΦᵀ in float64, scored on the same risk points
    monkeypatch.setattr(thesis, "NUMPY_LOOKAHEAD", 1 << 62 if path == "numpy" else 1 << 10)
    X, y = pool(1500, T, seed=21)
    classes = list(range(T))
    low = LowRankARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=60,
                      candidates=80, risk_sample=600).start(X, classes)  # fmt: skip
    dense = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight)
    dense.start(X, classes, K=low.features_ @ low.features_.T)
    labeled = [int(np.flatnonzero(y == c)[k]) for c in range(T) for k in range(2)]
    for s in (low, dense):
        s.teach_many(labeled, y[labeled].tolist())
    assert low.features_.dtype == np.float64
    clear = 0
    for _ in range(4):
        i, score = low.next_query()
        cand, S = low.candidate_indices(), low.risk_points()
        ref = exact_reference_scores(dense, cand, S)
        np.testing.assert_allclose(low.scores()[cand], ref, rtol=1e-6)
        order = np.sort(ref)
        if order[1] - order[0] > 1e-5 * order[0]:  # the float64 winner is clear: the same pick
            clear += 1
            assert i == cand[np.argmin(ref)]
        for s in (low, dense):
            s.teach(i, int(y[i]))
    assert clear >= 2


@pytest.mark.parametrize("landmarks", ["uniform", "kmeans", "ic"])
def test_every_point_a_landmark_gives_exact_arls(landmarks):
    # K̃ = K when the landmarks span the pool: the low-rank path then adds nothing to the
    # approximation (no subsampling, no numerical drift), so it scores and picks as dense ARLS
    # on the exact kernel (built by the dense strategy from X) along the whole trajectory
    X, y = pool(120, 2, seed=3)
    low = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=120, landmarks=landmarks)
    exact = ARLS(sigma=SIGMA, lam=LAM)
    for q in (low.start(X, [0, 1]), exact.start(X, [0, 1])):
        q.teach_many([3, 50, 77], y[[3, 50, 77]].tolist())
    for _ in range(8):
        np.testing.assert_allclose(low.scores(), exact.scores(), rtol=1e-6)
        (i, _), (j, _) = low.next_query(), exact.next_query()
        assert i == j
        low.teach(j, int(y[j]))
        exact.teach(j, int(y[j]))


def test_the_default_landmarks_are_kmeans_centres():
    # k-means centres agree with exact ARLS more often than uniform landmarks at the same m
    # (benchmarks/large_pools.py --fidelity), hence the default: each landmark is the mean of
    # the pool points nearest to it (Lloyd's fixed point), and none needs to be a pool point
    X, _ = pool(400, 2)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=12).start(X, [0, 1])
    Z = q.lowrank_.landmarks_
    assert q.landmarks == "kmeans" and Z.shape == (12, 2)
    nearest = np.argmin(((X[:, None, :] - Z[None]) ** 2).sum(axis=2), axis=1)
    means = np.array([X[nearest == k].mean(axis=0) for k in range(12)])
    np.testing.assert_allclose(Z, means, atol=0.02)
    assert not (X[:, None, :] == Z[None]).all(axis=2).any()


@pytest.mark.parametrize(("T", "class_weight"), [*CASES, (3, {0: 2.0, 2: 0.5})])
def test_predictions_and_P_equal_direct_solves(T, class_weight):
    X, y = pool(120, T, seed=1)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=20)
    q.start(X, list(range(T)))
    L = [5, 17, 2, 90, 41, 66, 8, 111]
    for i in L:  # one rank-one update per label (and builds when balanced weights change)
        q.teach(i, int(y[i]))
    m, Ps = rls_reference(q.features_, L, y[L], T, class_weight)
    np.testing.assert_allclose(q.m_, m, atol=1e-10)
    P = q.P_
    for t, ref in enumerate(Ps):
        np.testing.assert_allclose(P if P.ndim == 2 else P[t], ref, atol=1e-10)
    # decision values at pool points through the feature map equal the pool's predictions
    at = q.decision_function_at(X[[1, 5, 60]])
    np.testing.assert_allclose(at, q.decision_function()[[1, 5, 60]], atol=1e-10)


def test_linear_kernel_uses_the_pool_as_features():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 3))
    y = (X @ [1.0, -1.0, 0.5] > 0).astype(int)
    q = LowRankARLS(kernel="linear", lam=LAM).start(X, [0, 1])
    assert q.features_ is q.X_ and q.lowrank_ is None
    L = [1, 2, 3, 10, 20]
    for i in L:
        q.teach(i, int(y[i]))
    K = X @ X.T
    c = np.linalg.solve(K[np.ix_(L, L)] + LAM * np.eye(5), targets(y[L], 2)[:, 0])
    np.testing.assert_allclose(q.decision_function(), K[:, L] @ c, atol=1e-10)
    Z = rng.normal(size=(4, 3))
    np.testing.assert_allclose(q.decision_function_at(Z), Z @ X[L].T @ c, atol=1e-10)
    np.testing.assert_array_equal(q.predict_at(Z), np.where(Z @ X[L].T @ c > 0, 1, 0))


@pytest.mark.parametrize(("T", "class_weight"), CASES)
def test_undo_and_forget_return_to_the_state_without_the_label(T, class_weight):
    X, y = pool(100, T, seed=3)
    classes = list(range(T))
    L = [4, 9, 30, 55, 71, 12]
    q = LowRankARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=15)
    q.start(X, classes)
    for i in L:
        q.teach(i, int(y[i]))
    q.forget(30)
    q.undo()
    rest = [4, 9, 55, 71]
    built = LowRankARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=15)
    built.start(X, classes).teach_many(rest, y[rest].tolist())
    # the same build from the remaining labels: bit for bit
    np.testing.assert_array_equal(q.m_, built.m_)
    np.testing.assert_array_equal(q.P_, built.P_)
    np.testing.assert_array_equal(q.scores(), built.scores())
    # and the incremental state taught only those labels, to rounding
    taught = LowRankARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=15)
    taught.start(X, classes)
    for i in rest:
        taught.teach(i, int(y[i]))
    np.testing.assert_allclose(q.m_, taught.m_, atol=1e-10)
    np.testing.assert_allclose(q.P_, taught.P_, atol=1e-10)
    for _ in rest:
        q.undo()
    fresh = LowRankARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=15)
    fresh.start(X, classes)
    np.testing.assert_array_equal(q.m_, fresh.m_)
    np.testing.assert_array_equal(q.P_, np.zeros_like(q.P_))
    np.testing.assert_array_equal(q.scores(), fresh.scores())


def test_a_rebuild_with_a_new_lambda_equals_a_fresh_start():
    X, y = pool(90, 2, seed=4)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=15).start(X, [0, 1])
    for i in (1, 2, 40, 50):
        q.teach(i, int(y[i]))
    features = q.features_
    q.set_params(lam=2.0)
    q.rebuild()
    assert q.features_ is features  # the features are kept: only λ changed
    fresh = LowRankARLS(sigma=SIGMA, lam=2.0, n_landmarks=15).start(X, [0, 1])
    fresh.teach_many([1, 2, 40, 50], y[[1, 2, 40, 50]].tolist())
    np.testing.assert_array_equal(q.m_, fresh.m_)
    q.set_params(sigma=2.0)
    q.rebuild()
    assert q.features_ is not features


def test_candidate_subsampling_scores_exactly_k_points():
    X, y = pool(400, 2, seed=5)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=30, candidates=21).start(X, [0, 1])
    for i in (0, 1, 2, 3, 250):
        q.teach(i, int(y[i]))
    s = q.scores()
    scored = np.flatnonzero(~np.isnan(s))
    assert scored.size == 21 and not set(scored) & set(q.labeled_)
    np.testing.assert_array_equal(scored, q.candidate_indices())
    # ⌊21/2⌋ = 10 of them are the most uncertain unlabeled points by |m|
    free = np.setdiff1d(np.arange(400), q.labeled_)
    margin = np.abs(q.decision_function()[free])
    assert set(free[np.argsort(margin)[:10]]) <= set(scored)
    i, score = q.next_query()
    assert i in scored and score == np.nanmin(s)
    # the same state draws the same candidates (a replayed session queries the same point)
    assert q.next_query() == (i, score)
    # the draw avoids excluded points instead of leaving nothing to score
    j, score_j = q.next_query(exclude=scored)
    assert j not in scored and j not in q.labeled_
    assert q.scores()[j] == score_j  # the score of the last query can be looked up
    # the scores of the scored points equal those of the full lookahead
    full = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=30).start(X, [0, 1])
    full.teach_many(q.labeled_, q.labels_)
    np.testing.assert_allclose(s[scored], full.scores()[scored], rtol=1e-10)


def test_an_exclusion_masks_the_full_lookahead():
    X, y = pool(120, 2, seed=9)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=15).start(X, [0, 1])
    q.teach_many([0, 1, 2], y[:3].tolist())
    s = q.scores()
    best = np.argsort(s)[:3]  # NaNs (labeled) sort last
    i, score = q.next_query(exclude=best[:2])
    assert i == best[2] and score == s[best[2]]
    np.testing.assert_array_equal(q.scores(), s)


def test_no_candidate_left_is_an_error():
    X, y = pool(6, 2)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, candidates=2).start(X, [0, 1])
    q.teach_many(range(4), y[:4].tolist())
    with pytest.raises(NoCandidatesError):
        q.next_query(exclude=[4, 5])


def test_a_sampled_risk_is_within_three_standard_errors_of_the_full_pool_risk():
    X, y = pool(3000, 3, seed=6)
    params = dict(sigma=SIGMA, lam=LAM, n_landmarks=40, candidates=30, random_state=3)
    sampled = LowRankARLS(**params, risk_sample=400).start(X, [0, 1, 2])
    full = LowRankARLS(**params).start(X, [0, 1, 2])
    L = np.random.default_rng(6).choice(3000, 12, replace=False).tolist()
    sampled.teach_many(L, y[L].tolist())
    full.teach_many(L, y[L].tolist())
    i, estimate = sampled.next_query()
    se = sampled.risk_standard_error_
    exact = full.scores()[i]
    assert 0.0 < se < 0.2 * exact
    assert abs(estimate - exact) <= 3.0 * se
    # the same candidates, scored on the sample vs on the whole pool
    s, e, f = sampled.scores(), sampled.standard_errors(), full.scores()
    scored = ~np.isnan(s)
    np.testing.assert_array_equal(scored, ~np.isnan(f))
    assert np.all(np.abs(s - f)[scored] <= 3.0 * e[scored])
    assert np.all(full.standard_errors()[scored] == 0.0)


def test_the_standard_error_matches_the_spread_over_risk_samples():
    X, y = pool(2000, 2, seed=7)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=30, risk_sample=150, random_state=None)
    q.start(X, [0, 1]).teach_many([1, 2, 3, 4, 5, 6], y[1:7].tolist())
    cand = np.array([10, 500, 1500])
    rng = np.random.default_rng(0)
    estimates, errors = [], []
    for _ in range(300):  # the estimator over independent risk samples, as _scored draws them
        S = np.sort(rng.choice(2000, 150, replace=False))
        total, squares = q._lookahead(cand, S)
        estimates.append(total * 2000 / 150)
        var = (squares - total**2 / 150) / 149
        errors.append(2000 * np.sqrt(var / 150 * (1 - 150 / 2000)))
    spread = np.std(estimates, axis=0, ddof=1)
    np.testing.assert_allclose(np.mean(errors, axis=0), spread, rtol=0.15)
    full = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=30).start(X, [0, 1])
    full.teach_many([1, 2, 3, 4, 5, 6], y[1:7].tolist())
    # unbiased: the mean over samples is the full-pool score (4 standard errors of the mean)
    bias = np.abs(np.mean(estimates, axis=0) - full.scores()[cand])
    assert np.all(bias <= 4.0 * spread / np.sqrt(300))


def test_a_pool_of_20000_points_never_allocates_an_n_by_n_matrix():
    n = 20_000
    rng = np.random.default_rng(8)
    X = rng.normal(size=(n, 10))  # 10 dimensions: the 100 landmarks give 100 features
    y = (X[:, 0] > 0).astype(int)
    q = LowRankARLS(sigma=3.0, lam=LAM, n_landmarks=100, candidates=64)
    tracemalloc.start()
    try:
        q.start(X, [0, 1])
        for i in (0, 1, 2, 3):
            q.teach(i, int(y[i]))
        i, _ = q.next_query()
        q.teach(i, int(y[i]))
        q.forget(1)
        q.estimated_risk()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert q.features_.shape == (n, 100)
    assert peak < 0.05 * 8 * n * n, f"peak {peak / 1e6:.0f} MB"  # 160 MB vs 3.2 GB for n × n
    assert peak <= q.memory_bytes(n), (peak, q.memory_bytes(n))


def test_registry_session_and_memory_hooks(monkeypatch):
    assert STRATEGIES["arls-lowrank"][0] == "rlscore.query.arls.lowrank:LowRankARLS"
    q = make_strategy("arls-lowrank", sigma=1.0, lam=0.5, candidates=10, graph_k=4)
    assert isinstance(q, LowRankARLS) and q.candidates == 10
    assert not q.needs_pool_kernel()
    X, _ = pool(50, 2)
    assert KernelCache().get(q, X) is None  # the session never builds the n × n kernel
    assert q.memory_bytes(10**6) < 5 * GiB  # Φ of 500 features: 4 GB, no n × n term
    assert q.memory_bytes(10**6, 5) < 5 * GiB
    monkeypatch.setattr(
        rlscore.core.conventions.memory_budget, "available_memory_bytes", lambda: 16 * GiB
    )
    check_pool_size(q, 10**6, "arls-lowrank")
    graph = make_strategy("arls-lowrank", kernel="graph")
    assert graph.memory_bytes(100) > 2**60  # never proposed for a graph kernel
    with pytest.raises(ValueError, match="vector kernel"):
        graph.start(X, [0, 1])


@pytest.mark.parametrize(
    ("param", "value"),
    [("candidates", 0), ("risk_sample", 2.5), ("n_landmarks", 0), ("random_state", "a")],
)
def test_bad_parameters_are_refused_before_any_work(param, value):
    X, _ = pool(30, 2)
    with pytest.raises(ValueError, match=param):
        LowRankARLS(**{param: value}).start(X, [0, 1])


# -- refine: exact re-scoring of the low-rank shortlist -----------------------------------------
def shortlist(scores: np.ndarray, k: int) -> np.ndarray:
    """The k candidates of lowest score (NaN never), sorted by index."""
    scored = np.flatnonzero(~np.isnan(scores))
    return np.sort(scored[np.argsort(scores[scored], kind="stable")[:k]])


@pytest.mark.parametrize("risk_sample", [None, 70])
@pytest.mark.parametrize(("T", "class_weight"), CASES)
def test_refine_picks_exact_arls_best_among_the_low_rank_shortlist(T, class_weight, risk_sample):
    # 10 landmarks on 150 points: K̃ is far from K, so the low-rank and exact orders differ
    X, y = pool(150, T, seed=11)
    classes = list(range(T))
    params = dict(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=10)
    k = 6
    q = LowRankARLS(**params, risk_sample=risk_sample, refine=k).start(X, classes)
    plain = LowRankARLS(**params, risk_sample=risk_sample).start(X, classes)
    dense = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).start(X, classes)
    for s in (q, plain, dense):
        s.teach_many([3, 50, 77, 120], y[[3, 50, 77, 120]].tolist())
    if risk_sample is None:  # the reference itself against dense ARLS on the whole pool
        some = np.array([0, 1, 40, 99])
        ref = exact_reference_scores(dense, some, None)
        np.testing.assert_allclose(ref, dense.scores()[some], rtol=1e-10)
    differs = 0
    for _ in range(4):
        short = shortlist(plain.scores(), k)
        S = plain.risk_points()
        assert (S is None) == (risk_sample is None)
        np.testing.assert_array_equal(q.risk_points(), S)
        if S is None:
            ref = dense.scores()[short]
        else:
            ref = exact_reference_scores(dense, short, S)
        i, score = q.next_query()
        refined = q.refined_scores()
        np.testing.assert_array_equal(np.flatnonzero(~np.isnan(refined)), short)
        np.testing.assert_allclose(refined[short], ref, rtol=1e-8, atol=1e-8)
        assert i == short[np.argmin(ref)] and score == pytest.approx(ref.min(), rel=1e-8)
        # the low-rank scores, predictions and risk are those of refine=None
        np.testing.assert_array_equal(q.scores(), plain.scores())
        np.testing.assert_array_equal(q.decision_function(), plain.decision_function())
        differs += i != plain.next_query()[0]
        for s in (q, plain, dense):
            s.teach(i, int(y[i]))
    assert differs >= 1  # the refinement changed at least one pick: the test can tell


def test_refined_standard_error_is_that_of_the_exact_sampled_score():
    X, y = pool(400, 2, seed=12)
    params = dict(sigma=SIGMA, lam=LAM, n_landmarks=12, risk_sample=90)
    q = LowRankARLS(**params, refine=5).start(X, [0, 1])
    L = [1, 2, 3, 4, 300]
    q.teach_many(L, y[L].tolist())
    dense = ARLS(sigma=SIGMA, lam=LAM).start(X, [0, 1])
    dense.teach_many(L, y[L].tolist())
    i, _ = q.next_query()
    S = q.risk_points()
    # the exact expected per-point risk g(z) of the pick on the sample, written here
    per_point = np.array([exact_reference_scores(dense, [i], [z])[0] / 400 for z in S])
    se = 400 * per_point.std(ddof=1) / np.sqrt(90) * np.sqrt(1 - 90 / 400)
    assert q.risk_standard_error_ == pytest.approx(se, rel=1e-8)


@pytest.mark.parametrize(("T", "class_weight"), [(2, None), (3, "balanced")])
def test_undo_forget_and_set_params_keep_the_exact_side_in_step(T, class_weight):
    X, y = pool(140, T, seed=13)
    classes = list(range(T))
    params = dict(sigma=SIGMA, lam=LAM, class_weight=class_weight, n_landmarks=10, refine=4)

    def fresh(labeled, labels, **changes):
        s = LowRankARLS(**{**params, **changes}).start(X, classes)
        s.teach_many(labeled, labels)
        return s

    def assert_same(a, b):
        np.testing.assert_allclose(a.refined_scores(), b.refined_scores(), rtol=1e-10)
        assert a.next_query()[0] == b.next_query()[0]

    q = fresh([], [])
    for i in (4, 9, 30, 55, 71, 12, 100):
        q.teach(i, int(y[i]))
        q.next_query()  # the exact side follows every label
    q.forget(30)
    q.undo()
    q.forget(9)
    q.teach(9, (int(y[9]) + 1) % T)  # a relabel
    assert_same(q, fresh(q.labeled_, q.labels_))
    assert q.next_queries(3)[0] == q.next_query()  # a greedy batch leaves the engine as it was
    assert_same(q, fresh(q.labeled_, q.labels_))
    q.set_params(lam=0.1)
    q.rebuild()
    assert_same(q, fresh(q.labeled_, q.labels_, lam=0.1))
    q.set_params(clip=False, refine=2)  # read at the next query, no rebuild needed
    other = fresh(q.labeled_, q.labels_, lam=0.1, clip=False, refine=2)
    refined = q.refined_scores()
    short = np.flatnonzero(~np.isnan(refined))
    assert short.size == 2
    assert_same(q, other)
    dense = ARLS(sigma=SIGMA, lam=0.1, class_weight=class_weight, clip=False)
    dense.start(X, classes).teach_many(q.labeled_, q.labels_)
    np.testing.assert_allclose(refined[short], dense.scores()[short], rtol=1e-8)
    for _ in range(len(q.labeled_)):
        q.undo()
    assert_same(q, fresh([], [], lam=0.1, clip=False, refine=2))


def test_refine_none_refines_nothing_and_bad_values_are_refused():
    X, y = pool(120, 2, seed=14)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=10).start(X, [0, 1])
    q.teach_many([0, 1, 2], y[:3].tolist())
    s = q.scores()
    assert np.isnan(q.refined_scores()).all()
    assert q.next_query() == (int(np.nanargmin(s)), float(np.nanmin(s)))
    assert q.next_query(exclude=[int(np.nanargmin(s))])[0] != int(np.nanargmin(s))
    assert q._exact.scorer_ is None  # no exact state without refine
    for value in (0, -3, 2.5, True, "5"):
        with pytest.raises(ValueError, match="refine"):
            LowRankARLS(refine=value).start(X, [0, 1])


def test_refine_respects_exclusions_and_the_candidate_draw():
    X, y = pool(300, 2, seed=15)
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=12, candidates=30, refine=4)
    q.start(X, [0, 1]).teach_many([5, 6, 7, 8], y[5:9].tolist())
    i, score = q.next_query()
    cand = q.candidate_indices()
    assert i in cand and set(np.flatnonzero(~np.isnan(q.refined_scores()))) <= set(cand)
    j, score_j = q.next_query(exclude=[i])
    assert j != i and q.refined_scores()[j] == score_j  # the last query's scores
    refined = q.refined_scores()
    assert np.isnan(refined[i]) and np.count_nonzero(~np.isnan(refined)) == 4


def test_refine_memory_stays_within_its_budget_on_20000_points():
    n = 20_000
    rng = np.random.default_rng(16)
    X = rng.normal(size=(n, 10))
    y = (X[:, 0] > 0).astype(int)
    q = LowRankARLS(sigma=3.0, lam=LAM, n_landmarks=100, candidates=64, refine=8)
    plain = LowRankARLS(sigma=3.0, lam=LAM, n_landmarks=100, candidates=64)
    # the exact side adds one kernel column per label to the budget, nothing of size n²
    assert q.memory_bytes(n, n_labels=10) - q.memory_bytes(n, n_labels=9) == 8 * n
    extra = [q.memory_bytes(size) - plain.memory_bytes(size) for size in (n, 2 * n)]
    assert 0 < extra[1] <= 2 * extra[0]
    tracemalloc.start()
    try:
        q.start(X, [0, 1])
        for i in (0, 1, 2, 3):
            q.teach(i, int(y[i]))
        i, _ = q.next_query()
        q.teach(i, int(y[i]))
        q.next_query()
        q.forget(1)
        q.next_query()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= q.memory_bytes(n, n_labels=5), (peak, q.memory_bytes(n, n_labels=5))
