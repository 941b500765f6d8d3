"""The compiled fast mode of low-rank A-optimal KLR (issue 25.5) against the scoring it
replaced (tests/reference/aoptimal_fast.py): same risks, scores and picks to 1e-8."""

from __future__ import annotations

import numpy as np
import pytest
from reference.aoptimal_fast import FeaturePosteriorReference, fast_label_risks_reference
from sklearn.datasets import make_blobs

from rlscore.core.klr.posterior import FeaturePosterior
from rlscore.query.klr.aoptimal_compiled import _exp_nonpositive
from rlscore.query.klr.aoptimal_lowrank import LowRankAOptimalKLR


def _pool(n=160, T=3, seed=0):
    X, blob = make_blobs(
        n_samples=n, centers=2 * T, n_features=4, cluster_std=2.0, random_state=seed
    )
    return X, blob % T


def _reference_scores(s: LowRankAOptimalKLR) -> np.ndarray:
    """The old fast-mode scores of the strategy's current state, NaN off the candidates."""
    cands = s.candidate_set()
    U, _ = s._risk_positions(cands)
    post = FeaturePosteriorReference(s.features_, s._L, U, s._P[s._L], s._lam)
    risks = fast_label_risks_reference(post, s._P, s._beta, U, cands, s.classes_.size)
    out = np.full(s.n_pool_, np.nan)
    out[cands] = np.sum(s.predict_proba()[cands] * risks, axis=1)
    return out


def _strategy(X, y, T, n_labels, m=12, **kw):
    s = LowRankAOptimalKLR(sigma=3.0, lam=0.05, n_landmarks=m, mode="fast", **kw)
    s.start(X, list(range(T)))
    first = [int(np.flatnonzero(y == c)[0]) for c in range(T)]
    rest = [i for i in range(10, 10 + 3 * n_labels) if i not in first][: n_labels - T]
    s.teach_many(first + rest, y[first + rest].tolist())
    return s


def _assert_same(s: LowRankAOptimalKLR) -> None:
    want = _reference_scores(s)
    got = s.scores()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=0)
    assert s.next_query()[0] == int(np.nanargmin(want))


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("risk_points", [None, 60])
@pytest.mark.parametrize("n_labels", [8, 30])  # l < m (labels' Woodbury) and l ≥ m (features)
def test_scores_and_pick_equal_the_old_fast_mode(T, risk_points, n_labels):
    X, y = _pool(T=T)
    s = _strategy(X, y, T, n_labels, candidates=None, risk_points=risk_points)
    assert (len(s._L) >= s.features_.shape[1]) == (n_labels == 30)
    _assert_same(s)


@pytest.mark.parametrize("T", [2, 3])
def test_after_undo_and_with_few_candidates(T):
    X, y = _pool(T=T, seed=3)
    s = _strategy(X, y, T, 30, candidates=25, risk_points=80)
    s.scores()
    s.teach(int(s.next_query()[0]), 0)
    _assert_same(s)
    s.undo()
    s.undo()  # back below the last state's labels: the posterior cache must not be reused
    _assert_same(s)


def test_more_candidates_than_one_pass_of_the_kernel(monkeypatch):
    """Candidates in several passes, risk points in several blocks."""
    X, y = _pool(n=200, T=3, seed=5)
    monkeypatch.setattr(LowRankAOptimalKLR, "PAIR_CANDIDATES", 7)
    monkeypatch.setattr(FeaturePosterior, "PAIR_BLOCK_ELEMENTS", 300)
    s = _strategy(X, y, 3, 30, candidates=None, risk_points=150)
    _assert_same(s)


@pytest.mark.parametrize("T", [2, 3])
def test_reduced_posterior_gives_the_full_blocks(T):
    """S_kk and the diagonal from the basis off 1 equal those of the full (h·m)² covariance."""
    X, y = _pool(T=T, seed=1)
    s = _strategy(X, y, T, 30)
    U = s._risk_set()
    new = FeaturePosterior(s.features_, s._L, U, s._P[s._L], s._lam)
    old = FeaturePosteriorReference(s.features_, s._L, U, s._P[s._L], s._lam)
    np.testing.assert_allclose(new.diagonal(), old.diagonal(), rtol=1e-9, atol=1e-12)
    C = U[:9]
    np.testing.assert_allclose(new.reduced_at(C)[0], old.at(C)[0], rtol=1e-9, atol=1e-12)


def test_compiled_exp_matches_numpy():
    x = -np.concatenate([np.geomspace(1e-300, 700, 5000), np.linspace(0, 50, 5001), [0.0]])
    got = x.copy()
    _exp_nonpositive(got, np.empty_like(got))
    np.testing.assert_allclose(got, np.exp(x), rtol=4e-16, atol=0)
