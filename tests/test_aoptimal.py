"""A-optimal KLR: closed forms against dense inverses, scores against brute-force refits."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits

from rlscore.core.kernels import graph_kernel, rbf_kernel
from rlscore.core.klr import KernelLogisticRegression, KLRConvergenceError, probabilities
from rlscore.query import make_strategy
from rlscore.query.aoptimal import AOptimalKLR, MaxEntropyKLR, aoptimal_risk_terms

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
@pytest.mark.parametrize("classes", [(1, 2), (1, 2, 3)])
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


#: measured 2026-11-23 on the 24 states below (4 digits pools of 40–60 points, 6 exact
#: queries each): fast mode chose the exact pick on 24, 15 and 5 states at λ = 1, 1e-2, 1e-4,
#: and a point among the exact scores' best 5 % on 24, 20 and 11 (a random candidate: 1, 1, 3).
#: The floors sit a little below (the states are seeded: the run is deterministic).
FAST_FLOORS = {1.0: (22, 22), 1e-2: (12, 18), 1e-4: (3, 8)}


@pytest.mark.parametrize("lam", list(FAST_FLOORS))
def test_fast_mode_picks_the_exact_choice_or_a_near_one(lam):
    same = near = n = 0
    for classes, seed in [((1, 2, 3), 0), ((4, 7), 1), ((0, 6, 9), 2), ((3, 5), 3)]:
        X, y = _digits(20, classes, seed=seed)
        exact = AOptimalKLR(lam=lam, mode="exact").start(X, list(classes))
        _teach(exact, y, _first_of_each(y))
        for _ in range(6):
            s_exact = exact.scores()  # = brute-force refits (test_exact_scores_equal_…)
            i_exact = int(np.nanargmin(s_exact))
            fast = AOptimalKLR(lam=lam, mode="fast").start(X, list(classes))
            _teach(fast, y, exact.labeled_)
            i_fast = fast.next_query()[0]
            scored = s_exact[~np.isnan(s_exact)]
            same += i_fast == i_exact
            near += np.mean(scored < s_exact[i_fast]) <= 0.05
            n += 1
            exact.teach(i_exact, y[i_exact].item())
    floor_same, floor_near = FAST_FLOORS[lam]
    assert n == 24
    assert same >= floor_same, f"λ={lam}: fast chose the exact pick on {same}/24 states"
    assert near >= floor_near, f"λ={lam}: fast chose a best-5 % point on {near}/24 states"


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
    with pytest.raises(KLRConvergenceError, match="lam=1e-300 .*Use lam >= 0.0001"):
        s.teach(5, 1)
    assert s.labeled_ == [0] and s.labels_ == [-1]
    np.testing.assert_array_equal(s.decision_function(), before)
