"""A-optimal KLR: closed forms against dense inverses, scores against brute-force refits."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits

from rlscore.core.kernels.functions import graph_kernel, rbf_kernel
from rlscore.core.klr.classifier import KernelLogisticRegression
from rlscore.core.klr.link import probabilities
from rlscore.core.klr.newton import KLRConvergenceError
from rlscore.query import make_strategy
from rlscore.query.klr.aoptimal import (
    AOptimalKLR,
    MaxEntropyKLR,
    aoptimal_risk_terms,
    exact_mode_affordable,
)

LAM = 0.1


def _digits(n_per_class, classes, seed=0):
    d = load_digits()
    rng = np.random.default_rng(seed)
    idx = np.concatenate(
        [rng.choice(np.flatnonzero(d.target == c), n_per_class, replace=False) for c in classes]
    )
    return d.data[idx], d.target[idx]


# -- dense references ---------------------------------------------------------------------------
def _fisher(P):
    """Fisher blocks written out from the definition: ``p(1 − p)`` or ``diag(p) − ppᵀ``."""
    if P.shape[1] == 1:
        return (P * (1 - P))[:, :, None]
    return np.stack([np.diag(p) - np.outer(p, p) for p in P])


def _proba(beta):
    if beta.shape[1] == 1:
        return 1.0 / (1.0 + np.exp(-beta))
    e = np.exp(beta - beta.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _dense_hessian(K_inv, lam, F, rows):
    """``λ(I_h⊗K⁻¹) + Z_M`` by Kronecker products, class-major; Fisher blocks on ``rows``."""
    M = K_inv.shape[0]
    h = F.shape[-1]
    Z = np.zeros((h * M, h * M))
    for a in range(h):
        for b in range(h):
            Z[a * M + rows, b * M + rows] = F[:, a, b]
    return lam * np.kron(np.eye(h), K_inv) + Z


def _dense_risk(H_inv, P, U):
    """``Σ_{j∈U} Σ_c q_jcᵀ H⁻¹ q_jc`` with ``q_jc = s_j^c ⊗ e_j`` (rows of the Fisher block)."""
    M = P.shape[0]
    h = P.shape[1]
    F = _fisher(P)
    total = 0.0
    for j in U:
        idx = np.arange(h) * M + j
        block = H_inv[np.ix_(idx, idx)]
        for c in range(h):
            s = F[j, c]
            total += s @ block @ s
    return total


def _dense_state_risk(K, lam, beta, L):
    P = _proba(beta)
    U = np.setdiff1d(np.arange(K.shape[0]), L)
    H = _dense_hessian(np.linalg.inv(K), lam, _fisher(P[L]), np.asarray(L))
    return _dense_risk(np.linalg.inv(H), P, U)


def _teach(strategy, y, idx):
    for i in idx:
        strategy.teach(int(i), y[i].item())


def _first_of_each(y):
    return [int(np.flatnonzero(y == c)[0]) for c in np.unique(y)]


# -- the risk -----------------------------------------------------------------------------------
@pytest.mark.parametrize("h", [1, 3])
def test_smw_risk_equals_dense_inverse(h):
    X, _ = _digits(20, (1, 2, 3))
    K = graph_kernel(X).K
    M = K.shape[0]
    rng = np.random.default_rng(2)
    L = rng.permutation(M)[:9]
    U = np.setdiff1d(np.arange(M), L)
    P = _proba(rng.normal(scale=2.0, size=(M, h)))
    terms = aoptimal_risk_terms(K[np.ix_(L, L)], K[np.ix_(L, U)], np.diag(K)[U], P[L], P[U], LAM)
    H_inv = np.linalg.inv(_dense_hessian(np.linalg.inv(K), LAM, _fisher(P[L]), L))
    for t, j in zip(terms[:10], U[:10], strict=True):
        assert t == pytest.approx(_dense_risk(H_inv, P, [j]), rel=1e-9, abs=1e-14)
    assert terms.sum() == pytest.approx(_dense_risk(H_inv, P, U), rel=1e-9)


def test_binary_risk_is_yajimas_formula_with_one_over_lambda():
    # eq. 4.23–4.24 literally: (σ(1−σ))² (K_jj − k̄ᵀ(λZ̄⁻¹ + K_LL)⁻¹k̄) / λ
    X, _ = _digits(15, (1, 2))
    K = graph_kernel(X).K
    rng = np.random.default_rng(3)
    L, U = np.arange(6), np.arange(6, 30)
    p = probabilities(rng.normal(size=(30, 1)))[:, 0]
    z = p * (1 - p)
    K_bar = LAM * np.diag(1 / z[L]) + K[np.ix_(L, L)]
    k_bar = K[np.ix_(L, U)]
    hjj = (np.diag(K)[U] - np.sum(k_bar * np.linalg.solve(K_bar, k_bar), axis=0)) / LAM
    P = p[:, None]
    terms = aoptimal_risk_terms(K[np.ix_(L, L)], k_bar, np.diag(K)[U], P[L], P[U], LAM)
    np.testing.assert_allclose(terms, z[U] ** 2 * hjj, rtol=1e-10)


@pytest.mark.parametrize("classes", [(1, 2), (1, 2, 3)])
def test_estimated_risk_of_the_strategy_equals_dense(classes):
    X, y = _digits(12, classes)
    s = AOptimalKLR(lam=LAM).start(X, list(classes))
    _teach(s, y, [*_first_of_each(y), 5, 17])
    K = graph_kernel(X).K
    beta = s._beta
    assert s.estimated_risk() == pytest.approx(_dense_state_risk(K, LAM, beta, s.labeled_))


# -- exact mode = brute-force refits ------------------------------------------------------------
def _brute_force_scores(X, y_labels, labeled, classes, lam, candidates):
    """Expected risk per candidate: refit the estimator (sparse graph Newton) for every label."""
    K = graph_kernel(X).K
    M = X.shape[0]
    y_partial = np.full(M, np.nan)
    y_partial[labeled] = y_labels[labeled]
    base = KernelLogisticRegression(lam=lam, kernel="graph").fit(X, y_partial)
    P_now = base.predict_proba(X)
    out = {}
    for k in candidates:
        total = 0.0
        for c_pos, c in enumerate(classes):
            yk = y_partial.copy()
            yk[k] = c
            model = KernelLogisticRegression(lam=lam, kernel="graph", tol=1e-10).fit(X, yk)
            L2 = [*labeled, k]
            total += P_now[k, c_pos] * _dense_state_risk(K, lam, model.pool_decision_, L2)
        out[k] = total
    return out


@pytest.mark.parametrize("classes", [(1, 2), (3, 5, 8)])
def test_exact_scores_equal_brute_force_refits(classes):
    X, y = _digits(10, classes, seed=1)
    labeled = [*_first_of_each(y), 7]
    s = AOptimalKLR(lam=LAM, mode="exact").start(X, list(classes))
    _teach(s, y, labeled)
    scores = s.scores()
    assert np.isnan(scores[labeled]).all()
    U = np.setdiff1d(np.arange(X.shape[0]), labeled)
    cands = U[::3]
    ref = _brute_force_scores(X, y.astype(float), labeled, classes, LAM, cands)
    np.testing.assert_allclose([scores[k] for k in cands], [ref[k] for k in cands], rtol=1e-6)
    # the choice equals the brute-force choice over the same candidates
    assert cands[np.argmin([scores[k] for k in cands])] == min(ref, key=ref.get)


# -- fast mode = one explicit Newton step + the dense rank-h update ------------------------------
@pytest.mark.parametrize("classes", [(1, 2), (1, 2, 3), (0, 1, 2, 3, 4)])
def test_fast_mode_equals_one_dense_newton_step(classes):
    X, y = _digits(10, classes, seed=2)
    labeled = [*_first_of_each(y), 4]
    s = AOptimalKLR(lam=LAM, mode="fast").start(X, list(classes))
    _teach(s, y, labeled)
    K = graph_kernel(X).K
    K_inv = np.linalg.inv(K)
    M, h = s._beta.shape
    beta0 = s._beta
    P0 = _proba(beta0)
    codes = [list(classes).index(v) for v in s.labels_]
    U = np.setdiff1d(np.arange(M), labeled)
    cands = U[::4]
    fast = s.fast_label_risks(cands)
    for r, k in enumerate(cands):
        L2 = np.array([*labeled, k])
        H1 = _dense_hessian(K_inv, LAM, _fisher(P0[L2]), L2)
        for c in range(len(classes)):
            T = np.zeros((len(L2), h))
            for row, code in enumerate([*codes, c]):
                if h == 1:
                    T[row, 0] = float(code == 1)
                else:
                    T[row, code] = 1.0
            g = LAM * (K_inv @ beta0)
            g[L2] += P0[L2] - T
            step = np.linalg.solve(H1, g.T.ravel()).reshape(h, M).T
            beta1 = beta0 - step
            P1 = _proba(beta1)
            F_L = _fisher(P0[L2])
            F_L[-1] = _fisher(P1[k : k + 1])[0]
            H2 = _dense_hessian(K_inv, LAM, F_L, L2)
            ref = _dense_risk(np.linalg.inv(H2), P1, U[U != k])
            assert fast[r, c] == pytest.approx(ref, rel=1e-6)


# -- mode="auto": exact while its work (n²·T²·h) is that of 3 classes at 400 points ------------
@pytest.mark.parametrize(
    ("n_classes", "largest_exact_pool"),
    # two and three classes: the 400-point cap; more: n²·T³ ≤ 400²·27, n ≤ 400·(27/T³)^½
    [(2, 400), (3, 400), (4, 259), (5, 185), (10, 65)],
)
def test_auto_mode_is_exact_up_to_a_pool_size_that_shrinks_with_the_classes(
    n_classes, largest_exact_pool
):
    assert exact_mode_affordable(largest_exact_pool, n_classes)
    assert not exact_mode_affordable(largest_exact_pool + 1, n_classes)


@pytest.mark.parametrize(("n_per_class", "mode"), [(6, "exact"), (7, "fast")])
def test_auto_mode_at_the_boundary_scores_as_the_mode_it_chose(n_per_class, mode):
    """Ten classes: 60 points are scored exactly, 70 by the fast mode (the boundary is 65)."""
    X, y = _digits(n_per_class, range(10), seed=4)
    labeled = _first_of_each(y)
    auto = AOptimalKLR(kernel="rbf", sigma=30.0, lam=LAM, mode="auto").start(X, list(range(10)))
    chosen = AOptimalKLR(kernel="rbf", sigma=30.0, lam=LAM, mode=mode).start(X, list(range(10)))
    for s in (auto, chosen):
        _teach(s, y, labeled)
    assert auto.resolved_mode == mode
    np.testing.assert_array_equal(auto.scores(), chosen.scores())


# -- fast mode against an independent exact reference ------------------------------------------
# Written from docs/mathematics.md §6 with numpy only (shares no code with rlscore.query
# / rlscore.core.klr):
# KLR refitted to convergence by Newton in the representer coefficients for every candidate
# and label, then the risk by the formula of docs/mathematics.md §6
# qᵀH⁻¹q = (1/λ)(‖s‖²K_jj − (s⊗k̄_j)ᵀ(λI + Z̄(I⊗K_LL))⁻¹Z̄(s⊗k̄_j)), class-major ordering.
def _ref_targets(codes, T):
    codes = np.asarray(codes)
    if T == 2:
        return (codes == 1).astype(float)[:, None]
    return (codes[:, None] == np.arange(T)[None]).astype(float)


def _ref_fisher_rows(P):
    """(n, h, h): row c is ``s^c``, ``s^c_k = p_c(δ_ck − p_k)``; binary ``p(1 − p)``."""
    if P.shape[1] == 1:
        return (P * (1 - P))[:, :, None]
    return P[:, :, None] * (np.eye(P.shape[1])[None] - P[:, None, :])


def _ref_block_diag(S):
    """``Z̄`` (hl, hl), class-major, from per-point blocks S (l, h, h)."""
    l, h = S.shape[0], S.shape[1]
    Z = np.zeros((h * l, h * l))
    for c in range(h):
        for d in range(h):
            Z[c * l : (c + 1) * l, d * l : (d + 1) * l] = np.diag(S[:, c, d])
    return Z


def _ref_fit(K_LL, Y, lam, tol=1e-11):
    """α (l, h) with ``λα = y − p(K_LL α)``: damped Newton on the primal objective."""
    l, h = Y.shape
    a = np.zeros((l, h))
    KK = np.kron(np.eye(h), K_LL)

    def objective(a):
        F = K_LL @ a
        if h == 1:
            loss = np.logaddexp(0, F[:, 0]) - Y[:, 0] * F[:, 0]
        else:
            mx = F.max(1)
            loss = np.log(np.exp(F - mx[:, None]).sum(1)) + mx - (Y * F).sum(1)
        return 0.5 * lam * np.sum(a * F) + loss.sum()

    for _ in range(200):
        P = _proba(K_LL @ a)
        r = lam * a + P - Y
        if np.abs(r).max() <= tol:
            return a
        J = lam * np.eye(h * l) + _ref_block_diag(_ref_fisher_rows(P)) @ KK
        step = -np.linalg.solve(J, r.T.ravel()).reshape(h, l).T
        J0, t = objective(a), 1.0
        while objective(a + t * step) > J0 + 1e-12 * max(1.0, abs(J0)) and t > 1e-12:
            t /= 2
        a = a + t * step
    raise AssertionError("reference Newton did not converge")


def _ref_risk(K, L, a, lam, U):
    l, h = a.shape
    P = _proba(K[:, L] @ a)
    Z = _ref_block_diag(_ref_fisher_rows(P[L]))
    A = lam * np.eye(h * l) + Z @ np.kron(np.eye(h), K[np.ix_(L, L)])
    K_LU = K[np.ix_(L, U)]
    S_U = _ref_fisher_rows(P[U])
    total = 0.0
    for c in range(h):
        s = S_U[:, c, :]  # (u, h)
        V = (s.T[:, None, :] * K_LU[None]).reshape(h * l, -1)  # columns s ⊗ k̄_j
        quad = np.sum(V * np.linalg.solve(A, Z @ V), axis=0)
        total += np.sum((np.sum(s * s, axis=1) * np.diag(K)[U] - quad) / lam)
    return total


def _ref_expected_risks(K, L, codes, T, lam):
    """``Σ_c p̂(c|x_k) R(refit with (k, c))`` for every unlabeled k; NaN on L."""
    n = K.shape[0]
    a = _ref_fit(K[np.ix_(L, L)], _ref_targets(codes, T), lam)
    P = _proba(K[:, L] @ a)
    P = np.column_stack([1 - P[:, 0], P[:, 0]]) if T == 2 else P
    U = np.setdiff1d(np.arange(n), L)
    out = np.full(n, np.nan)
    for k in U:
        L2 = [*L, int(k)]
        out[k] = sum(
            P[k, c]
            * _ref_risk(
                K,
                L2,
                _ref_fit(K[np.ix_(L2, L2)], _ref_targets([*codes, c], T), lam),
                lam,
                U[U != k],
            )
            for c in range(T)
        )
    return out


#: 48 seeded states: 8 digits pools of 40–60 points (one label per class to start), then 6
#: queries each along the reference's own exact trajectory
FAST_POOLS = [
    ((1, 2, 3), 0),
    ((4, 7), 1),
    ((0, 6, 9), 2),
    ((3, 5), 3),
    ((2, 8), 4),
    ((1, 5, 7), 5),
    ((0, 8), 6),
    ((2, 4, 6), 7),
]
FAST_QUERIES = 6
#: a pick is "near" when its exact expected risk exceeds the minimum by at most this share of
#: the spread (median − minimum of the exact scores over the candidates)
NEAR_EXCESS = 0.1
#: measured 2026-11-23 on the 48 states (fast mode vs the independent reference above):
#:   λ = 1:    exact pick 48/48, near 48/48;  a seeded random pick: 0 and 1
#:   λ = 1e-2: exact pick 32/48, near 37/48;  random: 1 and 3
#:   λ = 1e-4: exact pick 12/48, near 18/48;  random: 2 and 4
#: (the library's own exact mode chose the reference's point on 47, 46 and 46 states: the
#: others are near-ties). Floors (same, near) sit a little below; the states are seeded, so
#: the run is deterministic, and every floor is far above what random picks reach.
FAST_FLOORS = {1.0: (46, 46), 1e-2: (29, 34), 1e-4: (10, 15)}


def _pick_stats(picks, S):
    """(same as the exact argmin, within NEAR_EXCESS of the spread) for one state."""
    scored = S[~np.isnan(S)]
    spread = np.median(scored) - scored.min()
    return picks == int(np.nanargmin(S)), (S[picks] - scored.min()) <= NEAR_EXCESS * spread


@pytest.mark.slow
@pytest.mark.parametrize("lam", list(FAST_FLOORS))
def test_fast_mode_picks_the_exact_choice_or_a_near_one(lam):
    same = near = rand_same = rand_near = impl_exact_same = n = 0
    rng = np.random.default_rng(0)
    for classes, seed in FAST_POOLS:
        X, y = _digits(20, classes, seed=seed)
        K = graph_kernel(X).K  # the input: both sides use the same kernel matrix
        cl = list(classes)
        L = _first_of_each(y)
        for _ in range(FAST_QUERIES):
            S = _ref_expected_risks(K, L, [cl.index(int(y[i])) for i in L], len(cl), lam)
            fast = AOptimalKLR(lam=lam, mode="fast").start(X, cl)
            exact = AOptimalKLR(lam=lam, mode="exact").start(X, cl)
            for s in (fast, exact):
                _teach(s, y, L)
            ok_same, ok_near = _pick_stats(fast.next_query()[0], S)
            same, near = same + ok_same, near + ok_near
            r_same, r_near = _pick_stats(int(rng.choice(np.flatnonzero(~np.isnan(S)))), S)
            rand_same, rand_near = rand_same + r_same, rand_near + r_near
            impl_exact_same += exact.next_query()[0] == int(np.nanargmin(S))
            n += 1
            L = [*L, int(np.nanargmin(S))]
    floor_same, floor_near = FAST_FLOORS[lam]
    assert n == 48
    assert same >= floor_same, f"λ={lam}: fast chose the exact pick on {same}/48 states"
    assert near >= floor_near, f"λ={lam}: fast chose a near pick on {near}/48 states"
    # the floors discriminate: random picks on the same states stay far below them
    assert rand_same < floor_same // 2 and rand_near < floor_near // 2
    # the library's exact mode is the reference's criterion (up to near-ties)
    assert impl_exact_same >= 45, f"λ={lam}: exact mode = reference on {impl_exact_same}/48"


# -- protocol -----------------------------------------------------------------------------------
def test_undo_forget_and_rebuild_equal_a_fresh_strategy():
    X, y = _digits(12, (1, 2, 3))
    order = [*_first_of_each(y), 3, 30, 20]
    s = AOptimalKLR(lam=LAM, mode="fast").start(X, [1, 2, 3])
    _teach(s, y, order)
    assert s.undo() == (20, y[20].item())
    s.forget(order[3])
    fresh = AOptimalKLR(lam=LAM, mode="fast").start(X, [1, 2, 3])
    _teach(fresh, y, [o for o in order if o not in (20, order[3])])
    np.testing.assert_allclose(s.decision_function(), fresh.decision_function(), atol=1e-9)
    np.testing.assert_allclose(s.scores(), fresh.scores(), rtol=1e-7)
    s.set_params(lam=0.5)
    s.rebuild()
    other = AOptimalKLR(lam=0.5, mode="fast").start(X, [1, 2, 3])
    _teach(other, y, s.labeled_)
    np.testing.assert_allclose(s.predict_proba(), other.predict_proba(), atol=1e-9)


def test_scores_queries_and_candidate_subsets():
    X, y = _digits(15, (1, 2, 3))
    s = AOptimalKLR(lam=LAM, mode="fast", candidates=6).start(X, ["a", "b", "c"])
    names = np.array(["a", "b", "c"])[y - 1]
    for i in _first_of_each(y):
        s.teach(i, names[i])
    scores = s.scores()
    scored = np.flatnonzero(~np.isnan(scores))
    assert scored.size == 6
    entropy = -np.sum(s.predict_proba() * np.log(s.predict_proba()), axis=1)
    entropy[s.labeled_] = -np.inf
    np.testing.assert_array_equal(np.sort(scored), np.sort(np.argsort(-entropy)[:6]))
    i, score = s.next_query()
    assert score == np.nanmin(scores) and i == np.nanargmin(scores)
    # a skipped point does not use up a candidate slot
    j, _ = s.next_query(exclude=[i])
    assert j != i and j not in s.labeled_
    # random subsets are reproducible per state and seed
    r1 = AOptimalKLR(lam=LAM, mode="fast", candidates=5, candidate_rule="random", seed=3)
    r2 = AOptimalKLR(lam=LAM, mode="fast", candidates=5, candidate_rule="random", seed=3)
    for r in (r1, r2):
        r.start(X, [1, 2, 3])
        _teach(r, y, _first_of_each(y))
    np.testing.assert_array_equal(r1.candidate_set(), r2.candidate_set())
    assert r1.candidate_set().size == 5


def test_predictions_and_probabilities_are_klr():
    X, y = _digits(12, (1, 2))
    s = AOptimalKLR(lam=LAM).start(X, [-1, 1])
    labels = np.where(y == 1, -1, 1)
    for i in _first_of_each(y):
        s.teach(i, int(labels[i]))
    yp = np.full(y.size, np.nan)
    yp[s.labeled_] = labels[s.labeled_]
    ref = KernelLogisticRegression(lam=LAM, kernel="graph").fit(X, yp)
    np.testing.assert_allclose(s.decision_function(), ref.decision_function(X), atol=1e-8)
    np.testing.assert_allclose(s.predict_proba(), ref.predict_proba(X), atol=1e-8)
    np.testing.assert_array_equal(s.predict(), ref.predict(X))


def test_rbf_kernel_risk_and_exact_scores():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + 3.0])
    y = np.repeat([0, 1], 15)
    s = AOptimalKLR(kernel="rbf", sigma=1.0, lam=LAM, mode="exact").start(X, [0, 1])
    _teach(s, y, [0, 15, 3])
    K = rbf_kernel(X, sigma=1.0)
    assert s.estimated_risk() == pytest.approx(
        _dense_state_risk(K + 1e-12 * np.eye(30), LAM, s._beta, s.labeled_), rel=1e-5
    )
    i, _ = s.next_query()
    assert i not in s.labeled_


def test_max_entropy_baseline():
    X, y = _digits(15, (1, 2, 3))
    s = MaxEntropyKLR(lam=LAM).start(X, [1, 2, 3])
    _teach(s, y, _first_of_each(y))
    P = s.predict_proba()
    ent = -np.sum(P * np.log(P), axis=1)
    np.testing.assert_allclose(s.scores()[~np.isnan(s.scores())], -np.delete(ent, s.labeled_))
    U = np.setdiff1d(np.arange(y.size), s.labeled_)
    assert s.next_query()[0] == U[np.argmax(ent[U])]
    assert s.estimated_risk() == pytest.approx(np.sum(1 - P[U].max(axis=1)))


def test_registry_and_bad_parameters():
    X, y = _digits(8, (1, 2))
    s = make_strategy("aopt-klr", lam=0.3, mode="fast", sigma=2.0)
    assert isinstance(s, AOptimalKLR) and s.lam == 0.3 and s.mode == "fast"
    for params, match in [
        ({"mode": "slow"}, "mode must be"),
        ({"candidates": 0}, "candidates must be"),
        ({"candidates": True}, "candidates must be"),
        ({"candidate_rule": "best"}, "candidate_rule must be"),
        ({"lam": 0.0}, "lam must be > 0"),
        ({"kernel": "laplace"}, "unknown kernel 'laplace'"),
    ]:
        with pytest.raises(ValueError, match=match):
            AOptimalKLR(**params).start(X, [1, 2])
    s = AOptimalKLR(lam=LAM).start(X, [1, 2])
    with pytest.raises(ValueError, match="not one of the classes"):
        s.teach(0, 7)
    s.teach(0, 1)
    with pytest.raises(ValueError, match="already labeled"):
        s.teach(0, 2)
    # no labels at all: scores and risk are still defined (uniform probabilities)
    fresh = AOptimalKLR(lam=LAM, mode="exact").start(X, [1, 2])
    assert np.isfinite(fresh.scores()).all()
    assert np.isfinite(fresh.estimated_risk())


def test_rbf_strategy_predicts_new_points_like_the_estimator():
    rng = np.random.default_rng(8)
    X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 2.5])
    y = np.repeat([0, 1], 20)
    s = AOptimalKLR(kernel="rbf", sigma=1.2, lam=LAM, mode="fast").start(X, [0, 1])
    Z = rng.normal(size=(6, 2)) + 1.0
    # before any label: the uniform model
    np.testing.assert_allclose(s.predict_proba_at(Z), 0.5)
    _teach(s, y, [0, 20, 5, 33])
    ref = KernelLogisticRegression(lam=LAM, kernel="rbf", sigma=1.2).fit(
        X[s.labeled_], y[s.labeled_]
    )
    np.testing.assert_allclose(s.decision_function_at(Z), ref.decision_function(Z), atol=1e-8)
    np.testing.assert_allclose(s.predict_proba_at(Z), ref.predict_proba(Z), atol=1e-8)
    np.testing.assert_array_equal(s.predict_at(Z), ref.predict(Z))
    g = AOptimalKLR(kernel="graph", lam=LAM).start(X, [0, 1])
    with pytest.raises(ValueError, match="pool only"):
        g.predict_at(Z)


def test_a_failed_fit_keeps_the_labels_and_the_model():
    # separable labels and a tiny λ: Newton gives up; the strategy must stay as it was
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    s = AOptimalKLR(kernel="linear", lam=1e-300).start(X, [-1, 1])
    s.teach(0, -1)
    before = s.decision_function()
    with pytest.raises(KLRConvergenceError, match="lam=1e-300 is too small .*Use lam >= 0.0001"):
        s.teach(5, 1)
    assert s.labeled_ == [0] and s.labels_ == [-1]
    np.testing.assert_array_equal(s.decision_function(), before)


def test_tiny_lam_fails_with_a_message_naming_lam_in_start_and_next_query():
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])  # separable, linear kernel
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="lam must be > 0"):
            AOptimalKLR(kernel="linear", lam=bad).start(X, [-1, 1])
    # λ = 1e-13 is accepted (it is > 0) and two labels fit; the exact scores refit with a
    # third label of the separable pool, where Newton fails: a ValueError naming lam
    s = AOptimalKLR(kernel="linear", lam=1e-13, mode="exact").start(X, [-1, 1])
    s.teach(0, -1)
    s.teach(5, 1)
    with pytest.raises(ValueError, match=r"lam=1e-13 is too small .*Use lam >= 0.0001") as info:
        s.next_query()
    assert isinstance(info.value, KLRConvergenceError)
    assert s.labeled_ == [0, 5]  # nothing changed
    # the stated bound works on the same state
    s.set_params(lam=1e-4)
    s.rebuild()
    i, _ = s.next_query()
    assert i not in (0, 5)


# -- large pools: graph kernel by conjugate-gradient columns, risk over a sample ---------------
@pytest.mark.parametrize("classes", [(1, 2), (1, 2, 3)])
def test_risk_points_sum_the_dense_risk_over_the_sample(classes):
    X, y = _digits(12, classes)
    s = AOptimalKLR(lam=LAM, risk_points=15, seed=4).start(X, list(classes))
    _teach(s, y, [*_first_of_each(y), 5, 17])
    K = graph_kernel(X).K
    P = _proba(s._beta)
    H_inv = np.linalg.inv(
        _dense_hessian(np.linalg.inv(K), LAM, _fisher(P[s.labeled_]), np.asarray(s.labeled_))
    )
    sample = np.setdiff1d(s._risk_sample, s.labeled_)
    assert s._risk_sample.size == 15
    assert s.estimated_risk() == pytest.approx(_dense_risk(H_inv, P, sample), rel=1e-9)


@pytest.mark.parametrize("mode", ["fast", "exact"])
def test_cg_graph_solver_equals_the_dense_kernel(mode):
    classes = (1, 2, 3)
    X, y = _digits(15, classes)
    kw = {"lam": LAM, "mode": mode, "risk_points": 25, "candidates": 12}
    cg = AOptimalKLR(graph_solver="cg", **kw).start(X, list(classes))
    dense = AOptimalKLR(**kw).start(X, list(classes))
    assert not cg.needs_pool_kernel() and dense.needs_pool_kernel()
    for s in (cg, dense):
        _teach(s, y, [*_first_of_each(y), 7, 31])
    np.testing.assert_allclose(cg.predict_proba(), dense.predict_proba(), atol=1e-8)
    np.testing.assert_allclose(cg.estimated_risk(), dense.estimated_risk(), rtol=1e-7)
    np.testing.assert_allclose(cg.scores(), dense.scores(), rtol=1e-6, equal_nan=True)
    with pytest.raises(ValueError, match="graph_solver='cg' needs a regularized graph"):
        AOptimalKLR(kernel="rbf", graph_solver="cg").start(X, list(classes))


def _three_blobs(n=90, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    y = np.arange(n) % 3
    return centres[y] + rng.normal(scale=1.0, size=(n, 2)), y


@pytest.mark.parametrize(
    "make",
    [
        lambda: AOptimalKLR(kernel="rbf", sigma=1.5, lam=0.1, mode="fast"),
        lambda: MaxEntropyKLR(kernel="rbf", sigma=1.5, lam=0.1, tune="loo"),
    ],
)
def test_teach_many_fits_once_and_equals_teaching_one_label_at_a_time(make):
    X, y = _three_blobs()
    L = [0, 1, 2, 10, 11, 25, 40, 41, 62, 80]
    one = make().start(X, [0, 1, 2])
    for i in L:
        one.teach(i, int(y[i]))
    many = make().start(X, [0, 1, 2])
    many.teach(L[0], int(y[L[0]]))
    fits = []
    refit = many._refit
    many._refit = lambda *a: (fits.append(len(a[0])), refit(*a))[1]
    many.teach_many(L[1:], y[L[1:]].tolist())
    assert fits == [len(L)]
    assert many.labeled_ == one.labeled_ and many.labels_ == one.labels_
    np.testing.assert_allclose(many.predict_proba(), one.predict_proba(), atol=1e-7)
    np.testing.assert_allclose(many.scores(), one.scores(), rtol=1e-5, equal_nan=True)


def test_a_rebuild_fits_once_and_equals_a_fresh_start():
    X, y = _three_blobs(seed=1)
    L = [3, 4, 5, 20, 33, 47, 58]
    s = AOptimalKLR(kernel="rbf", sigma=1.5, lam=0.1).start(X, [0, 1, 2])
    s.teach_many(L, y[L].tolist())
    s.set_params(lam=0.03)
    s.rebuild()
    fresh = AOptimalKLR(kernel="rbf", sigma=1.5, lam=0.03).start(X, [0, 1, 2])
    for i in L:
        fresh.teach(i, int(y[i]))
    np.testing.assert_allclose(s.predict_proba(), fresh.predict_proba(), atol=1e-7)
    np.testing.assert_allclose(s.scores(), fresh.scores(), rtol=1e-5, equal_nan=True)


def test_teach_many_is_all_or_nothing():
    X, y = _three_blobs(seed=2)
    s = AOptimalKLR(kernel="rbf", sigma=1.5, lam=0.1).start(X, [0, 1, 2])
    s.teach_many([0, 1, 2], y[[0, 1, 2]].tolist())
    before = s.predict_proba()
    with pytest.raises(ValueError, match="not one of the classes|unknown|class"):
        s.teach_many([5, 6], [int(y[5]), "no such class"])
    assert s.labeled_ == [0, 1, 2] and 5 not in s.labeled_
    np.testing.assert_array_equal(s.predict_proba(), before)

    def fail(*args):
        raise KLRConvergenceError("no convergence")

    s._refit = fail
    with pytest.raises(KLRConvergenceError):
        s.teach_many([5, 6], y[[5, 6]].tolist())
    assert s.labeled_ == [0, 1, 2]
    np.testing.assert_array_equal(s.predict_proba(), before)
