"""The (t, λ) rule of the KLR against brute-force refits, and the near-uniform regime."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits

from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.kernels.functions import graph_kernel, rbf_kernel
from rlscore.core.klr.classifier import KernelLogisticRegression
from rlscore.core.klr.tuning import (
    NEAR_UNIFORM_FRACTION,
    confidence_regime,
    loo_decision_values,
    loo_log_loss,
    tune_klr,
)
from rlscore.query import make_strategy
from rlscore.query.klr.aoptimal import AOptimalKLR
from rlscore.query.klr.pool import MaxEntropyKLR, klr_regime, tuned_prefix


def _digits(classes, n_per_class=40, seed=0):
    d = load_digits()
    rng = np.random.default_rng(seed)
    idx = np.concatenate(
        [rng.choice(np.flatnonzero(d.target == c), n_per_class, replace=False) for c in classes]
    )
    return d.data[idx], d.target[idx]


def _labeled(y, l, seed=1):
    """l stratified-then-random labeled indices (every class at least twice)."""
    rng = np.random.default_rng(seed)
    first = [i for c in np.unique(y) for i in rng.choice(np.flatnonzero(y == c), 2, False)]
    rest = rng.choice(np.setdiff1d(np.arange(y.size), first), l - len(first), replace=False)
    return np.array([*first, *rest])


def _brute_loo(K, L, y, lam):
    """Decision value at each labeled point of a KLR refitted from scratch without it."""
    out = []
    for i in range(len(L)):
        rest = np.delete(L, i)
        m = KernelLogisticRegression(lam=lam, kernel="precomputed", tol=1e-12)
        m.fit(K[np.ix_(rest, rest)], y[rest])
        out.append(K[np.ix_([L[i]], rest)] @ m.dual_coef_)
    return np.vstack(out)


@pytest.mark.parametrize("classes", [(3, 8), (3, 5, 8)])
@pytest.mark.parametrize("kernel", ["graph", "rbf"])
def test_exact_loo_equals_brute_force_refits(classes, kernel):
    X, y = _digits(classes)
    K = graph_kernel(X, t=3.0).K if kernel == "graph" else rbf_kernel(X, sigma=30.0)
    L = _labeled(y, 12)
    codes = np.searchsorted(classes, y[L])
    T = ova_targets(codes, len(classes), negative=0.0)
    for lam in (1e-3, 0.3):
        F = loo_decision_values(K[np.ix_(L, L)], T, lam, method="exact", tol=1e-12)
        np.testing.assert_allclose(F, _brute_loo(K, L, y, lam), atol=1e-8)


def _dense_one_step(K_LL, T, lam, alpha):
    """One Newton step of each leave-i-out problem on the labeled values β_L, from the full
    optimum: H = λ(I⊗K_LL⁻¹) + Z without point i, by explicit inverses (class-major)."""
    l, h = T.shape
    beta = K_LL @ alpha
    if h == 1:
        p = 1 / (1 + np.exp(-beta))
        F = (p * (1 - p))[:, :, None]
    else:
        e = np.exp(beta - beta.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        F = np.stack([np.diag(r) - np.outer(r, r) for r in p])
    g = p - T
    P_inv = lam * np.kron(np.eye(h), np.linalg.inv(K_LL))
    out = np.empty((l, h))
    for i in range(l):
        Z = np.zeros((h * l, h * l))
        for j in range(l):
            if j != i:
                idx = np.arange(h) * l + j
                Z[np.ix_(idx, idx)] = F[j]
        grad = np.zeros(h * l)
        grad[np.arange(h) * l + i] = -g[i]  # the full gradient is 0; minus point i's term
        step = -np.linalg.solve(P_inv + Z, grad)
        out[i] = beta[i] + step[np.arange(h) * l + i]
    return out


@pytest.mark.parametrize("classes", [(3, 8), (3, 5, 8)])
def test_one_step_loo_is_one_newton_step_and_near_exact(classes):
    X, y = _digits(classes)
    K = graph_kernel(X, t=3.0).K
    L = _labeled(y, 14)
    T = ova_targets(np.searchsorted(classes, y[L]), len(classes), negative=0.0)
    lam = 0.05
    K_LL = K[np.ix_(L, L)]
    m = KernelLogisticRegression(lam=lam, kernel="precomputed", tol=1e-12).fit(K_LL, y[L])
    F1 = loo_decision_values(K_LL, T, lam, alpha=m.dual_coef_, method="one_step")
    np.testing.assert_allclose(F1, _dense_one_step(K_LL, T, lam, m.dual_coef_), atol=1e-8)
    exact = loo_decision_values(K_LL, T, lam, method="exact")
    assert np.abs(F1 - exact).max() < 0.05 * np.abs(exact).max()


def test_tune_picks_the_brute_force_argmin_of_the_loo_log_loss():
    classes = (3, 5, 8)
    X, y = _digits(classes, n_per_class=30)
    L = _labeled(y, 10)
    kernels = {t: graph_kernel(X, t=t).K for t in (1.0, 10.0)}
    lams = (1e-3, 1e-1, 1.0)
    brute = {}
    for t, K in kernels.items():
        for lam in lams:
            F = _brute_loo(K, L, y, lam)
            e = np.exp(F - F.max(1, keepdims=True))
            p = e / e.sum(1, keepdims=True)
            brute[t, lam] = -np.mean(np.log(p[np.arange(len(L)), np.searchsorted(classes, y[L])]))
    res = tune_klr(
        lambda t: kernels[t][np.ix_(L, L)],
        np.searchsorted(classes, y[L]),
        3,
        t_grid=(1.0, 10.0),
        lam_grid=lams,
        method="exact",
    )
    assert (res.t, res.lam) == min(brute, key=brute.get)
    for key, v in brute.items():
        assert res.loss[key] == pytest.approx(v, rel=1e-6)
    assert res.n_scored == len(L)


def test_points_whose_class_has_no_other_label_are_not_scored():
    classes = (3, 5, 8)
    X, y = _digits(classes, n_per_class=20)
    K = graph_kernel(X).K
    one_each = [int(np.flatnonzero(y == c)[0]) for c in classes]
    codes = np.searchsorted(classes, y[one_each])
    assert np.isnan(loo_log_loss(K[np.ix_(one_each, one_each)], codes, 3, 0.1)[0])
    assert tune_klr(lambda t: K[np.ix_(one_each, one_each)], codes, 3) is None
    # a second label of class 3: only the two class-3 points are scored
    L = [*one_each, int(np.flatnonzero(y == 3)[1])]
    res = tune_klr(lambda t: K[np.ix_(L, L)], np.searchsorted(classes, y[L]), 3)
    assert res.n_scored == 2


def test_confidence_regime_threshold():
    uniform = np.full((10, 3), 1 / 3)
    r = confidence_regime(uniform)
    assert r.near_uniform and r.chance == pytest.approx(1 / 3)
    assert r.threshold == pytest.approx(1 / 3 + NEAR_UNIFORM_FRACTION * 2 / 3)
    confident = np.tile([0.9, 0.05, 0.05], (10, 1))
    assert not confidence_regime(confident).near_uniform
    binary = np.column_stack([np.full(4, 0.6), np.full(4, 0.4)])
    assert confidence_regime(binary).near_uniform  # 0.6 < 0.5 + 0.25 · 0.5


# -- the strategies -----------------------------------------------------------------------------
def _teach(s, y, idx):
    for i in idx:
        s.teach(int(i), int(y[i]))


@pytest.mark.parametrize("cls", [AOptimalKLR, MaxEntropyKLR])
def test_tuned_strategy_equals_a_fixed_one_at_the_chosen_setting(cls):
    classes = (3, 5, 8)
    X, y = _digits(classes, n_per_class=20)
    L = _labeled(y, 9)
    s = cls(tune="loo", lam=0.1).start(X, list(classes))
    assert not s.needs_pool_kernel()
    _teach(s, y, L)
    t, lam = s.graph_t_, s.lam_
    assert s.tuning_ is not None and (s.tuning_.t, s.tuning_.lam) == (t, lam)
    fixed = cls(lam=lam, graph_t=t).start(X, list(classes), K=graph_kernel(X, t=t).K)
    _teach(fixed, y, L)
    np.testing.assert_allclose(s.predict_proba(), fixed.predict_proba(), atol=1e-7)
    if cls is AOptimalKLR:
        np.testing.assert_allclose(s.scores(), fixed.scores(), rtol=1e-6, equal_nan=True)
    # undo re-tunes: the state equals a fresh strategy taught the remaining labels
    s.undo()
    fresh = cls(tune="loo", lam=0.1).start(X, list(classes))
    _teach(fresh, y, L[:-1])
    assert (s.graph_t_, s.lam_) == (fresh.graph_t_, fresh.lam_)
    np.testing.assert_allclose(s.predict_proba(), fresh.predict_proba(), atol=1e-7)


def test_until_a_class_has_two_labels_the_parameters_are_used():
    classes = (3, 5, 8)
    X, y = _digits(classes, n_per_class=20)
    s = AOptimalKLR(tune="loo", lam=0.5, graph_t=3.0).start(X, list(classes))
    _teach(s, y, [int(np.flatnonzero(y == c)[0]) for c in classes])
    assert (s.graph_t_, s.lam_, s.tuning_) == (3.0, 0.5, None)


def test_rbf_kernel_tunes_lambda_only():
    X, y = _digits((3, 8), n_per_class=25)
    s = AOptimalKLR(kernel="rbf", sigma=30.0, tune="loo").start(X, [3, 8])
    assert s.needs_pool_kernel()
    _teach(s, y, _labeled(y, 8))
    # no graph: no scale is tuned, and graph_t keeps its default (None)
    assert s.tuning_.t is None and s.graph_t_ is None


def test_near_uniform_note():
    classes = (3, 5, 8)
    X, y = _digits(classes, n_per_class=30)
    L = [int(np.flatnonzero(y == c)[0]) for c in classes]
    flat = AOptimalKLR(lam=10.0).start(X, list(classes))
    _teach(flat, y, L[:2])
    assert flat.regime_.near_uniform and klr_regime(flat) is None  # a class has no label yet
    _teach(flat, y, L[2:])
    assert flat.regime_.near_uniform
    note = klr_regime(flat)
    assert "graph-coverage rule" in note and f"{flat.regime_.mean_max_proba:.2f}" in note
    assert "Smaller λ" in note
    tuned = AOptimalKLR(lam=10.0, graph_t=1.0, tune="loo").start(X, list(classes))
    _teach(tuned, y, L)  # one label per class: the given λ and t are still in use
    assert "chosen from the labels" in klr_regime(tuned)
    sharp = AOptimalKLR(lam=1e-4, graph_t=30.0).start(X, list(classes))
    _teach(sharp, y, _labeled(y, 9))
    assert not sharp.regime_.near_uniform and klr_regime(sharp) is None
    muq = MaxEntropyKLR(lam=10.0).start(X, list(classes))
    _teach(muq, y, L)
    assert "graph distance" in klr_regime(muq)
    assert klr_regime(make_strategy("random")) is None
    assert klr_regime(AOptimalKLR()) is None  # not started


def test_bad_tune_value():
    X, _ = _digits((3, 8), n_per_class=10)
    with pytest.raises(ValueError, match="tune must be one of"):
        AOptimalKLR(tune="cv").start(X, [3, 8])


def test_the_choice_is_made_on_a_geometric_schedule_of_prefixes(monkeypatch):
    """With 11 labels (t, λ) are those chosen on the first 10 (the schedule's last count),
    and no choice is computed again until the next count of the schedule."""
    import rlscore.query.klr.pool as klr_pool

    assert tuned_prefix(11) == 10 and tuned_prefix(1) == 0 and tuned_prefix(500) == 100
    classes = (3, 5, 8)
    X, y = _digits(classes, n_per_class=20)
    L = _labeled(y, 12)
    ten = AOptimalKLR(tune="loo", lam=0.1).start(X, list(classes))
    _teach(ten, y, L[:10])
    calls = []
    real = klr_pool.tune_klr
    monkeypatch.setattr(klr_pool, "tune_klr", lambda *a, **k: calls.append(1) or real(*a, **k))
    s = AOptimalKLR(tune="loo", lam=0.1).start(X, list(classes))
    _teach(s, y, L[:10])
    n_ten = len(calls)
    _teach(s, y, L[10:11])
    assert len(calls) == n_ten  # 11 labels: the choice on the first 10 is kept
    assert (s.graph_t_, s.lam_) == (ten.graph_t_, ten.lam_)
    fixed = AOptimalKLR(lam=s.lam_, graph_t=s.graph_t_).start(
        X, list(classes), K=graph_kernel(X, t=s.graph_t_).K
    )
    _teach(fixed, y, L[:11])
    np.testing.assert_allclose(s.predict_proba(), fixed.predict_proba(), atol=1e-7)
    _teach(s, y, L[11:12])
    assert len(calls) == n_ten + 1  # 12 is on the schedule
