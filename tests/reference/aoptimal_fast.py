"""Today's fast-mode A-optimal KLR scoring (issue 25.5), kept as plain functions before the
compiled path replaced it: the one-Newton-step label risks of
``AOptimalKLR._fast_label_risks`` with the posterior by Woodbury on the labeled points
(``LabeledPosterior``) or on the m features (``FeaturePosterior``) as they were
(docs/mathematics.md §6–§7). The new engine's picks and scores are tested against these.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg
from scipy.special import expit

from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.klr.link import fisher_blocks, probabilities


class FeaturePosteriorReference:
    """``Σ`` of the pool values for ``K = ΦΦᵀ`` by Woodbury on m, as the engine had it."""

    def __init__(self, features: np.ndarray, L, U, P_L: np.ndarray, lam: float):
        self.features, self.U, self.lam = features, np.asarray(U, dtype=np.intp), lam
        m = features.shape[1]
        h = self.h = P_L.shape[-1]
        self._phi_U = features[self.U]
        phi_L = features[np.asarray(L, dtype=np.intp)]
        F = fisher_blocks(P_L)
        M = np.zeros((h, m, h, m))
        for a in range(h):
            for b in range(a, h):
                M[a, :, b] = (phi_L * F[:, a, b, None]).T @ phi_L
                M[b, :, a] = M[a, :, b].T
        M = M.reshape(h * m, h * m)
        M[np.diag_indices(h * m)] += lam
        self._chol = scipy.linalg.cholesky(M, lower=True)
        self.S = scipy.linalg.cho_solve((self._chol, True), np.eye(h * m))

    def diagonal(self) -> np.ndarray:
        h, m = self.h, self.features.shape[1]
        Cinv_t = scipy.linalg.solve_triangular(self._chol, np.eye(h * m), lower=True).T
        E = [self._phi_U @ Cinv_t[a * m : (a + 1) * m] for a in range(h)]
        out = np.empty((self.U.size, h, h))
        for a in range(h):
            for b in range(h):
                out[:, a, b] = np.einsum("ij,ij->i", E[a], E[b])
        return out

    def at(self, C) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        h, m = self.h, self.features.shape[1]
        phi_C = self.features[np.asarray(C, dtype=np.intp)]
        c = phi_C.shape[0]
        S_phi = [self.S[:, b * m : (b + 1) * m] @ phi_C.T for b in range(h)]
        S_kk = np.empty((c, h, h))
        for a in range(h):
            for b in range(h):
                S_kk[:, a, b] = np.einsum("km,mk->k", phi_C, S_phi[b][a * m : (a + 1) * m])

        def times(Xk: np.ndarray) -> np.ndarray:
            r = Xk.shape[2]
            W = np.zeros((h, m, r, c))
            for b in range(h):
                W += S_phi[b].reshape(h, m, 1, c) * Xk[:, b, :].T
            out = np.empty((h, r * c, self.U.size))
            for a in range(h):
                out[a] = (self._phi_U @ W[a].reshape(m, r * c)).T
            return out.reshape(h, r, c, -1)

        return S_kk, times


def fast_label_risks_reference(
    posterior, P: np.ndarray, beta: np.ndarray, U: np.ndarray, cands: np.ndarray, n_classes: int
) -> np.ndarray:
    """One-Newton-step risk ``R(ω^{+(k,c)})`` per candidate and label (n_cands, T), the
    engine's fast mode as it was: ``posterior`` gives ``diagonal()`` and ``at(C)`` over the
    risk set ``U`` (sorted), ``P`` and ``beta`` the current probabilities and values."""
    h = P.shape[1] if n_classes > 2 else 1
    P = P[:, 1:] if n_classes == 2 and P.shape[1] == 2 else P
    pos = np.searchsorted(U, cands)
    inside = pos < U.size
    inside[inside] = U[pos[inside]] == cands[inside]
    pos_in_U = np.where(inside, pos, -1)
    post_U = np.moveaxis(posterior.diagonal(), 0, -1)[:, :, None]
    beta_U = beta[U].T[:, None, :]
    eye = np.eye(h)
    out = np.empty((cands.size, n_classes))
    C, m = cands, cands.size
    own = (np.flatnonzero(pos_in_U >= 0), pos_in_U[pos_in_U >= 0])
    S_kk, sigma_times = posterior.at(C)
    D = np.linalg.inv(eye + fisher_blocks(P[C]) @ S_kk)
    columns = []
    for c in range(n_classes):
        g = P[C] - ova_targets(np.full(m, c), n_classes, negative=0.0)
        v = np.einsum("mab,mb->ma", D, g)
        beta_own = beta[C] - np.einsum("mab,mb->ma", S_kk, v)
        F_own = fisher_blocks(probabilities(beta_own))
        A = np.linalg.solve(eye + F_own @ S_kk, F_own)
        columns += [v[:, :, None], _low_rank_factor(A)]
    sizes = np.cumsum([0] + [x.shape[2] for x in columns])
    products = sigma_times(np.concatenate(columns, axis=2))
    for c in range(n_classes):
        a0, a1, a2 = sizes[2 * c : 2 * c + 3]
        P_new = _planes_probabilities(beta_U - products[:, a0])
        terms = _trace_fisher_sq(P_new, post_U)
        for r in range(a1, a2):
            Y = products[:, r]
            pY = sum(P_new[a] * Y[a] for a in range(h))
            for a in range(h):
                FY = P_new[a] * (Y[a] - pY) if h > 1 else P_new[0] * (1 - P_new[0]) * Y[0]
                terms -= FY * FY
        terms[own] = 0.0
        out[:, c] = terms.sum(axis=1)
    return out


def _planes_probabilities(B: np.ndarray) -> np.ndarray:
    if B.shape[0] == 1:
        return expit(B)
    E = np.exp(B - B.max(axis=0))
    E /= E.sum(axis=0)
    return E


def _low_rank_factor(A: np.ndarray) -> np.ndarray:
    if A.shape[-1] == 1:
        return np.sqrt(np.maximum(A, 0.0))
    w, V = np.linalg.eigh(0.5 * (A + np.swapaxes(A, -1, -2)))
    return (V * np.sqrt(np.maximum(w, 0.0))[..., None, :])[..., 1:]


def _trace_fisher_sq(P: np.ndarray, N: np.ndarray) -> np.ndarray:
    h = P.shape[0]
    if h == 1:
        q = P[0] * (1.0 - P[0])
        return q * q * N[0, 0]
    q = [P[a] * P[a] for a in range(h)]
    Np = [sum(N[a, b] * P[b] for b in range(h)) for a in range(h)]
    return (
        sum(q[a] * N[a, a] for a in range(h))
        - 2.0 * sum(q[a] * Np[a] for a in range(h))
        + sum(q) * sum(P[a] * Np[a] for a in range(h))
    )
