"""Low-rank A-optimal KLR against the dense engine on K̃ = ΦΦᵀ."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from rlscore.core.kernels.blocks import FeatureKernel
from rlscore.core.kernels.lowrank import LowRankKernel
from rlscore.core.klr.posterior import FeaturePosterior, LabeledPosterior
from rlscore.query.klr.aoptimal import AOptimalKLR
from rlscore.query.klr.aoptimal_lowrank import LowRankAOptimalKLR


def _pool(n=120, T=3, seed=0):
    X, blob = make_blobs(
        n_samples=n, centers=2 * T, n_features=4, cluster_std=2.0, random_state=seed
    )
    return X, blob % T


def _teach(s, y, idx):
    for i in idx:
        s.teach(int(i), int(y[i]))


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("mode", ["fast", "exact"])
def test_equals_the_dense_engine_on_the_nystrom_kernel(T, mode):
    X, y = _pool(T=T)
    lam, sigma = 0.05, 3.0
    low = LowRankAOptimalKLR(sigma=sigma, lam=lam, n_landmarks=25, mode=mode, candidates=None)
    low.start(X, list(range(T)))
    phi = LowRankKernel(sigma=sigma, n_landmarks=25, random_state=0).fit(X).features_
    np.testing.assert_array_equal(low.features_, phi)
    dense = AOptimalKLR(kernel="rbf", sigma=sigma, lam=lam, mode=mode)
    dense.start(X, list(range(T)), K=phi @ phi.T)
    L = [int(np.flatnonzero(y == c)[0]) for c in range(T)] + [5, 17, 40]
    _teach(low, y, L)
    _teach(dense, y, L)
    np.testing.assert_allclose(low.predict_proba(), dense.predict_proba(), atol=1e-10)
    np.testing.assert_allclose(low.estimated_risk(), dense.estimated_risk(), rtol=1e-8)
    np.testing.assert_allclose(low.scores(), dense.scores(), rtol=1e-8, equal_nan=True)
    assert low.next_query() == pytest.approx(dense.next_query(), rel=1e-8)


def test_all_landmarks_give_the_exact_rbf_strategy_and_predictions_at_new_points():
    X, y = _pool(n=60, T=2)
    low = LowRankAOptimalKLR(sigma=3.0, lam=0.1, n_landmarks=60, candidates=None).start(X, [0, 1])
    exact = AOptimalKLR(kernel="rbf", sigma=3.0, lam=0.1).start(X, [0, 1])
    L = [0, 1, 2, 3, 9]
    _teach(low, y, L)
    _teach(exact, y, L)
    Z = X[:7] + 0.25
    np.testing.assert_allclose(
        low.decision_function_at(Z), exact.decision_function_at(Z), atol=1e-7
    )
    np.testing.assert_allclose(low.scores(), exact.scores(), rtol=1e-6, equal_nan=True)


def test_no_pool_kernel_and_bad_kernel():
    X, _ = _pool(n=40, T=2)
    s = LowRankAOptimalKLR(n_landmarks=10)
    assert not s.needs_pool_kernel()
    with pytest.raises(ValueError, match="needs a vector kernel"):
        LowRankAOptimalKLR(kernel="graph").start(X, [0, 1])


def test_linear_kernel_uses_the_pool_as_features():
    X, y = _pool(n=50, T=2)
    s = LowRankAOptimalKLR(kernel="linear", lam=1.0, candidates=None).start(X, [0, 1])
    assert s.lowrank_ is None and s.features_ is not None
    d = AOptimalKLR(kernel="linear", lam=1.0).start(X, [0, 1])
    _teach(s, y, [0, 1, 2])
    _teach(d, y, [0, 1, 2])
    np.testing.assert_allclose(s.scores(), d.scores(), rtol=1e-8, equal_nan=True)


@pytest.mark.parametrize("T", [2, 3, 4])
def test_feature_posterior_equals_the_w_space_inverse_and_the_labeled_woodbury(T):
    """Σ over the pool three ways: the (hm × hm) inverse written here with numpy, Woodbury on
    the labeled points of K = ΦΦᵀ, and FeaturePosterior (its diagonal and its products)."""
    rng = np.random.default_rng(3)
    n, m, lam = 70, 6, 0.2
    h = 1 if T == 2 else T
    phi = rng.normal(size=(n, m))
    L = [1, 4, 9, 11, 30, 31, 50, 52, 60, 61]  # more labels than features (m = 6)
    P = rng.dirichlet(np.ones(T), size=n)[:, 1:] if h == 1 else rng.dirichlet(np.ones(T), n)
    U = np.setdiff1d(np.arange(n), L)
    # w-space precision λI + Σ_i F_i ⊗ φ_iφ_iᵀ, F_i = diag(p) − ppᵀ (binary p(1 − p))
    M = lam * np.eye(h * m)
    for i in L:
        p = P[i]
        F = np.diag(p) - np.outer(p, p) if h > 1 else np.array([[p[0] * (1 - p[0])]])
        M += np.kron(F, np.outer(phi[i], phi[i]))
    S = np.linalg.inv(M)
    Sigma = np.einsum("jm,ambn,kn->jakb", phi, S.reshape(h, m, h, m), phi)  # (n, h, n, h)
    feature = FeaturePosterior(phi, L, U, P[L], lam)
    labeled = LabeledPosterior(FeatureKernel(phi), L, U, P[L], lam)
    want_diag = Sigma[U, :, U, :]
    np.testing.assert_allclose(feature.diagonal(), want_diag, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(labeled.diagonal(), want_diag, rtol=1e-9, atol=1e-12)
    C = U[[0, 5, 7]]
    X = rng.normal(size=(C.size, h, 2))
    want = np.einsum("jakb,kbr->arkj", Sigma[U][:, :, C], X)  # (h, r, c, u)
    for posterior in (feature, labeled):
        S_kk, times = posterior.at(C)
        np.testing.assert_allclose(S_kk, Sigma[C, :, C, :], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(times(X), want, rtol=1e-9, atol=1e-12)
    # the reduced blocks off the softmax null vector: Q'ᵀ Σ_jk Q'
    Qp = feature.basis
    reduced = np.einsum("ha,jhkg,gb->jakb", Qp, Sigma, Qp)
    S_kk, V = feature.reduced_at(C)
    np.testing.assert_allclose(S_kk, Sigma[C, :, C, :], rtol=1e-9, atol=1e-12)
    got = np.einsum("jm,mabk->jakb", phi[U], V)
    np.testing.assert_allclose(got, reduced[U][:, :, C], rtol=1e-9, atol=1e-12)
    diag = reduced[U, :, U, :]
    np.testing.assert_allclose(feature.reduced_diagonal, diag, rtol=1e-9, atol=1e-12)
    # the same blocks by Woodbury on the labels, in blocks of 4 risk points
    labeled.PAIR_BLOCK_ELEMENTS = 4 * Qp.shape[1] ** 2 * C.size
    S_kk, V = labeled.reduced_at(C)
    np.testing.assert_allclose(S_kk, Sigma[C, :, C, :], rtol=1e-9, atol=1e-12)
    blocks = list(labeled.reduced_blocks(V))
    assert len(blocks) == -(-U.size // 4) and blocks[-1][1] == U.size
    got = np.concatenate([Z for _, _, Z in blocks])  # (u, h', h', c)
    np.testing.assert_allclose(
        got.transpose(0, 1, 3, 2), reduced[U][:, :, C], rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(labeled.reduced_diagonal, diag, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("T", [2, 3])
def test_fast_scores_on_a_risk_sample_and_many_labels_equal_the_dense_engine(T):
    """The risk sample (Φ_U gathered) and more labels than features (l > m)."""
    X, y = _pool(n=150, T=T, seed=2)
    kw = dict(sigma=3.0, lam=0.05, mode="fast", risk_points=50, seed=4)
    low = LowRankAOptimalKLR(n_landmarks=12, candidates=30, **kw).start(X, list(range(T)))
    dense = AOptimalKLR(kernel="rbf", candidates=30, **kw)
    dense.start(X, list(range(T)), K=low.features_ @ low.features_.T)
    L = [int(np.flatnonzero(y == c)[0]) for c in range(T)] + list(range(20, 40))
    _teach(low, y, L)
    _teach(dense, y, L)
    np.testing.assert_allclose(low.estimated_risk(), dense.estimated_risk(), rtol=1e-8)
    np.testing.assert_allclose(low.scores(), dense.scores(), rtol=1e-8, equal_nan=True)


@pytest.mark.parametrize("T", [2, 3])
def test_label_steps_equal_a_fit_from_scratch(T):
    """Labels taught one at a time, undone and forgotten (K_LL grown and shrunk, Newton on the
    features once l > m, the pool's values as Φ(Φ_Lᵀα)) against a from-scratch fit: Newton on
    the labels' K_LL = Φ_LΦ_Lᵀ and β = K_{:L}α written out, and a fresh strategy's scores."""
    from rlscore.core.conventions.ova_encoding import ova_targets
    from rlscore.core.klr.newton import newton_representer

    X, y = _pool(n=150, T=T, seed=5)
    kw = dict(sigma=3.0, lam=0.05, n_landmarks=10, mode="fast", candidates=25)
    s = LowRankAOptimalKLR(**kw).start(X, list(range(T)))
    L = [int(np.flatnonzero(y == c)[0]) for c in range(T)] + list(range(30, 50))
    _teach(s, y, L)
    s.undo()
    s.forget(L[5])
    s.teach(77, int(y[77]))
    kept = [i for i in L[:-1] if i != L[5]] + [77]
    assert sorted(s.labeled_) == sorted(kept)
    phi = s.features_[s._L]
    alpha, _ = newton_representer(phi @ phi.T, ova_targets(y[s._L], T, negative=0.0), 0.05)
    want = s.features_ @ phi.T @ alpha
    got = s.decision_function()
    np.testing.assert_allclose(got, want[:, 0] if T == 2 else want, atol=1e-9)
    fresh = LowRankAOptimalKLR(**kw).start(X, list(range(T)))
    fresh.teach_many(list(s._L), y[s._L].tolist())
    np.testing.assert_allclose(s.scores(), fresh.scores(), rtol=1e-8, equal_nan=True)
    assert s.next_query()[0] == fresh.next_query()[0]


def test_candidates_of_equal_uncertainty_are_the_lowest_indices():
    """Before any label every point is equally uncertain: the n candidates are the first n
    (the stable order the candidate rule promises)."""
    X, _ = _pool(n=80, T=3)
    s = LowRankAOptimalKLR(sigma=3.0, n_landmarks=10, candidates=7).start(X, [0, 1, 2])
    np.testing.assert_array_equal(s.candidate_set(), np.arange(7))
