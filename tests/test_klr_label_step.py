"""The A-optimal KLR label step's fast paths (issue 36 item 1) against references written here:
the lazy Newton on the features and its Woodbury-updated matrices (a dense Newton on the labels
to the rounding floor, the Newton matrix written out), the precision's polarised blocks (Σ of
Kronecker products), the three-class compiled pair pass (each pair's risk term from its
definition, in numpy) and the chunked product of the pool's decision values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import softmax
from sklearn.datasets import make_blobs

import rlscore.core.klr.newton as newton
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.kernels import blocks
from rlscore.core.kernels.blocks import FeatureKernel
from rlscore.core.klr.link import fisher_blocks, probabilities
from rlscore.core.klr.newton import FeatureJacobian, newton_features, newton_representer
from rlscore.core.klr.posterior import feature_precision, null_free_basis
from rlscore.query.klr.aoptimal_compiled import _accumulate, accumulate_pair_risks
from rlscore.query.klr.aoptimal_lowrank import LowRankAOptimalKLR

LAM = 0.05


def _problem(classes: int, l: int = 60, m: int = 8, seed: int = 0):
    rng = np.random.default_rng(seed)
    phi = rng.normal(size=(l, m))
    T = ova_targets(rng.integers(0, classes, size=l), classes, negative=0.0)
    return phi, T


def _reference(phi: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Newton on the labels' (lh)² systems (LU), to the rounding floor."""
    return newton_representer(phi @ phi.T, T, LAM, tol=1e-12)[0]


def _dense_jacobian(phi: np.ndarray, Z: np.ndarray, lam: float) -> np.ndarray:
    """``λI + Z(I⊗K_LL)`` (lh × lh, point-major) written out."""
    l, h = Z.shape[0], Z.shape[-1]
    K = phi @ phi.T
    J = np.einsum("iab,ij->iajb", Z, K).reshape(l * h, l * h)
    return J + lam * np.eye(l * h)


@pytest.mark.parametrize("classes", [2, 3, 4])
def test_lazy_newton_reaches_newtons_optimum(classes):
    phi, T = _problem(classes)
    K = phi @ phi.T
    alpha, steps = newton_features(K, phi, T, LAM)
    np.testing.assert_allclose(alpha, _reference(phi, T), rtol=0, atol=1e-10)
    assert np.abs(LAM * alpha + probabilities(K @ alpha) - T).max() <= 1e-8
    assert steps >= 1


@pytest.mark.parametrize("classes", [2, 3, 4])
def test_the_last_models_matrix_extended_by_a_label_is_newtons_matrix(classes):
    """The matrix of l − 1 labels' G (given by its inverse) extended by the new label equals
    the Newton matrix at the warm start, and the refit from it reaches the optimum."""
    phi, T = _problem(classes, seed=classes)
    old = _reference(phi[:-1], T[:-1])
    Z_old = fisher_blocks(probabilities(phi[:-1] @ (phi[:-1].T @ old)))
    Qp = null_free_basis(Z_old.shape[-1])
    G_old = feature_precision(phi[:-1], Qp.T @ Z_old @ Qp, LAM)
    S_old = np.linalg.inv(G_old)
    alpha0 = np.vstack([old, np.zeros((1, T.shape[1]))])
    P0 = probabilities(phi @ (phi.T @ alpha0))
    jac = FeatureJacobian.extended(phi, Z_old, lambda b: S_old @ b, P0[-1:], LAM)
    np.testing.assert_allclose(jac.Z, fisher_blocks(P0), atol=1e-12)
    r = np.random.default_rng(1).normal(size=T.shape)
    want = np.linalg.solve(_dense_jacobian(phi, jac.Z, LAM), r.ravel()).reshape(r.shape)
    np.testing.assert_allclose(jac.solve(r), want, rtol=1e-9, atol=1e-11)
    alpha, _ = newton_features(phi @ phi.T, phi, T, LAM, alpha0=alpha0, jacobian=jac)
    np.testing.assert_allclose(alpha, _reference(phi, T), rtol=0, atol=1e-10)


@pytest.mark.parametrize("classes", [2, 3])
def test_an_updated_matrix_is_newtons_matrix_at_its_blocks(classes):
    """:meth:`FeatureJacobian.updated` moves the blocks of the labels that moved most (all of
    them for count = l): its solve is the dense solve with its blocks ``Z``."""
    phi, T = _problem(classes, seed=7)
    rng = np.random.default_rng(2)
    P1 = probabilities(rng.normal(size=T.shape))
    P2 = probabilities(rng.normal(size=T.shape))
    jac = FeatureJacobian.at(phi, P1, LAM)
    r = rng.normal(size=T.shape)
    P2[::3] = P1[::3]  # labels whose blocks did not move
    for count in (5, phi.shape[0]):
        moved = jac.updated(P2, count)
        changed = np.flatnonzero(np.abs(moved.Z - jac.Z).max(axis=(1, 2)) > 0)
        assert changed.size <= count
        if count == phi.shape[0]:
            np.testing.assert_array_equal(moved.Z, fisher_blocks(P2))
        want = np.linalg.solve(_dense_jacobian(phi, moved.Z, LAM), r.ravel()).reshape(r.shape)
        np.testing.assert_allclose(moved.solve(r), want, rtol=1e-9, atol=1e-11)


def test_a_matrix_far_from_the_start_is_made_again():
    """A matrix that serves badly (made at other probabilities) still reaches the optimum: the
    lazy Newton updates it and then makes it at its point."""
    phi, T = _problem(3, seed=3)
    far = FeatureJacobian.at(phi, np.full(T.shape, 1.0 / 3.0), 10.0 * LAM)
    made = []
    at = FeatureJacobian.at.__func__

    def counted(cls, *args):
        made.append(1)
        return at(cls, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(FeatureJacobian, "at", classmethod(counted))
        alpha, _ = newton_features(phi @ phi.T, phi, T, LAM, jacobian=far)
    assert made
    np.testing.assert_allclose(alpha, _reference(phi, T), rtol=0, atol=1e-10)


def test_a_kept_matrix_that_gives_no_step_is_made_again():
    """A given matrix whose solve is useless (NaN): the line search rejects its step, and the
    lazy Newton makes the matrix at its point instead of failing."""
    phi, T = _problem(2, seed=4)
    Z = fisher_blocks(np.full(T.shape, 0.5))
    broken = FeatureJacobian(phi, Z, LAM, lambda b: np.full_like(b, np.nan))
    alpha, _ = newton_features(phi @ phi.T, phi, T, LAM, jacobian=broken)
    np.testing.assert_allclose(alpha, _reference(phi, T), rtol=0, atol=1e-10)


@pytest.mark.parametrize("g", [1, 2, 3])
def test_feature_precision_is_the_sum_of_kronecker_products(g):
    rng = np.random.default_rng(g)
    phi = rng.normal(size=(30, 5))
    A = rng.normal(size=(30, g, g))
    F = A @ np.swapaxes(A, 1, 2)  # positive semidefinite blocks
    want = 0.3 * np.eye(g * 5) + sum(np.kron(F[i], np.outer(phi[i], phi[i])) for i in range(30))
    np.testing.assert_allclose(feature_precision(phi, F, 0.3), want, rtol=1e-12, atol=1e-12)


def _pair_terms_by_definition(Z, D, beta, Xr, Qp, n_labels, own):
    """Each pair's term ``tr(F'² N) − Σ_r ‖F' Y_r‖²`` written from its definition: ``Y = Q'S'_jk
    X_k`` (h × R), the label's new values ``β_j − Y[:, step]``, ``F' = diag(p') − p'p'ᵀ``
    (binary ``p'(1 − p')``) and ``N = Q'S'_jjQ'ᵀ``; the candidate's own row left out."""
    nb, c, h = Z.shape[0], Z.shape[3], Qp.shape[0]
    per = Xr.shape[1] // n_labels
    out = np.zeros((c, n_labels))
    for j in range(nb):
        N = Qp @ D[j] @ Qp.T
        for k in range(c):
            if own[k] == j:
                continue
            Y = Qp @ Z[j, :, :, k] @ Xr[:, :, k]
            for lab in range(n_labels):
                b = beta[j] - Y[:, lab * per]
                if h == 1:
                    q = 1.0 / (1.0 + np.exp(-b[0]))
                    F = np.array([[q * (1 - q)]])
                else:
                    p = softmax(b)
                    F = np.diag(p) - np.outer(p, p)
                cols = Y[:, lab * per + 1 : (lab + 1) * per]
                out[k, lab] += np.trace(F @ F @ N) - np.sum((F @ cols) ** 2)
    return out


@pytest.mark.parametrize(("classes", "columns"), [(2, 1), (3, 2), (4, 3)])
def test_the_compiled_pair_pass_equals_the_definition(classes, columns):
    """The three-class pass (all of a pair's arithmetic in one vectorised loop) and the general
    one against each pair's term written out; candidates' own rows skipped."""
    rng = np.random.default_rng(classes)
    h = 1 if classes == 2 else classes
    Qp = null_free_basis(h)
    g = Qp.shape[1]
    nb, c = 9, 21
    Z = 0.3 * rng.normal(size=(nb, g, g, c))
    A = 0.3 * rng.normal(size=(nb, g, g))
    D = A @ np.swapaxes(A, 1, 2) + np.eye(g)
    beta = 2.0 * rng.normal(size=(nb, h))
    Xr = rng.normal(size=(g, classes * (1 + columns), c))
    own = np.full(c, -1, dtype=np.int64)
    own[[2, 5, 11]] = [0, 4, 8]
    want = _pair_terms_by_definition(Z, D, beta, Xr, Qp, classes, own)
    got = np.zeros((c, classes))
    accumulate_pair_risks(Z, D, beta, Xr, Qp, classes, own, got)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-13)
    general = np.zeros((c, classes))
    _accumulate(Z, D, beta, Xr, Qp, classes, own, general)
    np.testing.assert_allclose(general, want, rtol=1e-11, atol=1e-13)


def test_feature_kernel_decision_values_in_chunks(monkeypatch):
    rng = np.random.default_rng(0)
    phi = rng.normal(size=(103, 7))
    monkeypatch.setattr(blocks, "_SKINNY_CHUNK_ELEMENTS", 7 * 10)  # 10 rows, a short last one
    cols, coef = [3, 50, 7, 99], rng.normal(size=(4, 3))
    got = FeatureKernel(phi).columns_times(cols, coef)
    np.testing.assert_allclose(got, phi @ phi[cols].T @ coef, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("T", [2, 3])
def test_label_steps_with_queries_equal_a_fit_from_scratch(T, monkeypatch):
    """Labels taught between queries (the refit begins from the last posterior's matrix; Φ_U
    read from the kept rows of the risk sample) against Newton on the labels written out and a
    fresh strategy's scores."""
    X, blob = make_blobs(
        n_samples=160, centers=2 * T, n_features=4, cluster_std=2.0, random_state=T
    )
    y = blob % T
    kw = dict(sigma=3.0, lam=LAM, n_landmarks=10, mode="fast", candidates=25, risk_points=60)
    s = LowRankAOptimalKLR(**kw).start(X, list(range(T)))
    first = [int(np.flatnonzero(y == c)[0]) for c in range(T)] + list(range(30, 45))
    s.teach_many(first, y[first].tolist())
    extended = []
    original = FeatureJacobian.extended.__func__

    def counted(cls, *args):
        extended.append(1)
        return original(cls, *args)

    monkeypatch.setattr(newton.FeatureJacobian, "extended", classmethod(counted))
    for _ in range(4):
        i = int(s.next_query()[0])
        s.teach(i, int(y[i]))
    assert len(extended) == 4
    s.next_query()
    assert s._posterior_cache[1]._rows is not None  # Φ_U read from the sample's rows
    phi = s.features_[s._L]
    alpha = _reference(phi, ova_targets(y[s._L], T, negative=0.0))
    np.testing.assert_allclose(s._alpha, alpha, rtol=0, atol=1e-9)
    want = s.features_ @ phi.T @ alpha
    np.testing.assert_allclose(s.decision_function(), want[:, 0] if T == 2 else want, atol=1e-9)
    fresh = LowRankAOptimalKLR(**kw).start(X, list(range(T)))
    fresh.teach_many(list(s._L), y[s._L].tolist())
    np.testing.assert_allclose(s.scores(), fresh.scores(), rtol=1e-9, equal_nan=True)
    assert s.next_query()[0] == fresh.next_query()[0]
