"""The Laplace posterior of kernel logistic regression over a pool, without an n × n inverse.

docs/mathematics.md §6 (Yajima & Sato §4–5). At a KLR optimum the posterior precision of the pool
values is
``H = λ(I⊗K⁻¹) + Z``, ``Z`` the Fisher blocks of the labeled points. Its inverse is needed on
diagonal blocks only: the A-optimal risk (eq. 4.23 / 5.29) sums them over the unlabeled
points, and the approximate leave-one-out of :mod:`rlscore.core.klr.tuning` reads them at
the labeled points. By Sherman–Morrison–Woodbury in the stable symmetric form
``R(λI + Rᵀ(K_LL⊗I)R)⁻¹Rᵀ`` (``Z̄ = RRᵀ``; the softmax blocks are singular and never
inverted) ``[H⁻¹]_jj = (K_jj I − (I⊗k̄_j)ᵀ G (I⊗k̄_j)) / λ`` with ``k̄_j = K_{Lj}``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import scipy.linalg
from scipy.linalg.blas import dsyrk, dtrmm
from scipy.linalg.lapack import dpotri

from rlscore.core.klr.link import fisher_blocks, fisher_factor, whitened_matrix

__all__ = [
    "FeaturePosterior",
    "LabeledPosterior",
    "aoptimal_risk_terms",
    "feature_precision",
    "null_free_basis",
    "posterior_diag",
    "woodbury_core",
]


def woodbury_core(K_LL: np.ndarray, P_L: np.ndarray, lam: float) -> np.ndarray:
    """``G = R(λI + Rᵀ(K_LL⊗I)R)⁻¹Rᵀ`` (..., lh, lh, point-major), ``RRᵀ = Z̄`` the Fisher blocks.

    Equal to ``(λZ̄⁻¹ + K_LL)⁻¹`` = ``K̄⁻¹`` of eq. 4.24 when ``Z̄`` is invertible (binary), and
    well defined when it is not. Then ``H⁻¹ = (I⊗K − (I⊗K_{:L}) G (I⊗K_{L:})) / λ``.
    ``P_L`` (..., l, h') are the labeled points' probabilities; leading axes of ``K_LL``
    (..., l, l) and ``P_L`` are independent problems.
    """
    l, h = P_L.shape[-2], P_L.shape[-1]
    lead = P_L.shape[:-2]
    if l == 0:
        return np.zeros((*lead, 0, 0))
    R = fisher_factor(P_L)
    W_inv = np.linalg.inv(whitened_matrix(K_LL, R, lam)).reshape(*lead, l, h, l * h)
    # left: R_i W⁻¹[i, :]; right: (·)[:, j] R_jᵀ
    Y = (R @ W_inv).reshape(*lead, l, h, l, h)
    Y = np.moveaxis(Y, -2, -4).reshape(*lead, l, l * h, h)  # (j, (i, a), d)
    G = Y @ np.swapaxes(R, -1, -2)  # (j, (i, a), e)
    G = np.moveaxis(G.reshape(*lead, l, l, h, h), -4, -2)  # (i, a, j, e)
    return G.reshape(*lead, l * h, l * h)


def posterior_diag(
    G: np.ndarray, K_LU: np.ndarray, k_UU: np.ndarray, h: int, lam: float
) -> np.ndarray:
    """Diagonal blocks ``[H⁻¹]_jj`` (..., u, h, h) for the pool points U.

    ``G`` from :func:`woodbury_core`, ``K_LU`` (..., l, u) the kernel between the labeled
    points and U, ``k_UU`` (..., u) ``diag(K)`` on U, ``h`` the columns of the model (1 for
    binary), ``λ`` the regularisation.
    """
    lead, (l, u) = K_LU.shape[:-2], K_LU.shape[-2:]
    post = np.zeros((*lead, u, h, h))
    post[..., np.arange(h), np.arange(h)] = np.asarray(k_UU)[..., None]
    if l:
        # Q[a, e, j] = Σ_{i,i'} K_ij G[(i,a),(i',e)] K_i'j
        Gt = np.swapaxes(G.reshape(*lead, l, h, l, h), -1, -2).reshape(*lead, l * h * h, l)
        GK = (Gt @ K_LU).reshape(*lead, l, h * h, u)
        Q = np.einsum("...iu,...iqu->...uq", K_LU, GK).reshape(*lead, u, h, h)
        post -= Q
    return post / lam


def aoptimal_risk_terms(
    K_LL: np.ndarray,
    K_LU: np.ndarray,
    k_UU: np.ndarray,
    P_L: np.ndarray,
    P_U: np.ndarray,
    lam: float,
) -> np.ndarray:
    """Per-point A-optimal risk ``Σ_c q_jcᵀ H⁻¹ q_jc`` for the points U (docs/mathematics.md §6 ✔).

    Parameters
    ----------
    K_LL, K_LU, k_UU
        Kernel among the labeled points, between labeled and U, and ``diag(K)`` on U.
    P_L, P_U
        Model probabilities (n, h') of the labeled points and of U: one column (positive
        class) for binary, h columns for softmax. Leading axes (stacks of independent
        problems) are allowed on every argument.
    lam
        Regularisation λ.

    Returns
    -------
    ndarray (..., u)
        ``(1/λ)(‖F_j‖²_F K_jj − tr(F_j² Q_j))``, ``Q_j = (I⊗k̄_j)ᵀ G (I⊗k̄_j)``, ``F_j`` the
        Fisher block; for binary ``(σ_j(1 − σ_j))² [H⁻¹]_jj`` (eq. 4.23 with the 1/λ the paper
        drops).
    """
    h = P_U.shape[-1]
    G = woodbury_core(K_LL, P_L, lam)
    post = posterior_diag(G, K_LU, k_UU, h, lam)
    F_U = fisher_blocks(P_U)
    return np.einsum("...uab,...uab->...u", post, F_U @ F_U)


class LabeledPosterior:
    """The posterior covariance ``Σ = H⁻¹`` of the pool values, by Woodbury on the labeled points.

    ``Σ = (I⊗K − (I⊗K_{:L}) G (I⊗K_{L:})) / λ`` (:func:`woodbury_core`): any kernel held as
    blocks (:mod:`rlscore.core.kernels.blocks`). A product ``Σ_{U,k} X`` costs O(u·(1 + l)·h)
    per candidate column, so the cost of a query grows with the labels. The fast-mode query
    reads the blocks ``Σ_jk`` off the softmax null vector as :class:`FeaturePosterior` gives
    them (:attr:`basis`, :meth:`reduced_at`, :meth:`reduced_blocks`, :attr:`reduced_diagonal`:
    O(u·c·l·h'²) for c candidates, h' = h − 1 coordinates, 1 for two classes).

    Parameters
    ----------
    kernel
        ``block(rows, cols)`` and ``diagonal(idx)`` of the pool kernel.
    L, U
        The labeled points and the points the risk sums over.
    P_L
        The labeled points' probabilities (l, h').
    lam
        Regularisation λ.
    """

    #: floats of one block of reduced blocks ``S'_jk`` (a few MB: stays near the cache)
    PAIR_BLOCK_ELEMENTS = 1_000_000

    def __init__(self, kernel, L, U, P_L: np.ndarray, lam: float):
        self.kernel, self.L, self.U, self.lam = kernel, L, U, lam
        self.h = P_L.shape[-1]
        l, h = len(L), self.h
        self.G = woodbury_core(kernel.block(L, L), P_L, lam)
        self._G_t = self.G.reshape(l, h, l, h).transpose(0, 1, 3, 2).reshape(l * h * h, l)
        self.K_LU = kernel.block(L, U)

    def diagonal(self) -> np.ndarray:
        """``[Σ]_jj`` for j in U, (u, h, h)."""
        return posterior_diag(self.G, self.K_LU, self.kernel.diagonal(self.U), self.h, self.lam)

    def _candidate_blocks(self, C) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``K_LC`` (l, c), ``G K_LC`` as (c, l, h, h) and ``Σ_kk`` (c, h, h) for candidates C."""
        L, l, h = self.L, len(self.L), self.h
        K_LC = self.kernel.block(L, C)
        c = K_LC.shape[1]
        Gk = np.moveaxis((self._G_t @ K_LC).reshape(l, h, h, c), -1, 0)  # (c, l, h, h)
        S_kk = self.kernel.diagonal(C)[:, None, None] * np.eye(h)
        if l:
            S_kk = S_kk - np.einsum("im,miab->mab", K_LC, Gk)
        return K_LC, Gk, S_kk / self.lam

    def at(self, C) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """For the candidates ``C``: ``Σ_kk`` (c, h, h) and ``times(X)``, which maps ``X``
        (c, h, r) to ``Σ_{jk} X_k`` for every k and j in U as planes (h, r, c, u)."""
        lam, l = self.lam, len(self.L)
        _, Gk, S_kk = self._candidate_blocks(C)
        K_CU = self.kernel.block(C, self.U)

        def times(Xk: np.ndarray) -> np.ndarray:
            res = Xk.transpose(1, 2, 0)[..., None] * K_CU
            if l:
                GX = (Gk @ Xk[:, None]).transpose(2, 3, 0, 1)  # (h, r, c, l)
                res -= (GX.reshape(-1, l) @ self.K_LU).reshape(res.shape)
            return res / lam

        return S_kk, times

    @functools.cached_property
    def basis(self) -> np.ndarray:
        """``Q'`` (h, h'), as :attr:`FeaturePosterior.basis`: the risk sees ``Q'ᵀΣQ'`` only."""
        return null_free_basis(self.h)

    @functools.cached_property
    def _reduced_core(self) -> np.ndarray:
        """``G' = (I⊗Q')ᵀ G (I⊗Q')`` (l·h', l·h', point-major): ``G`` off the null vector."""
        l, h, Qp = len(self.L), self.h, self.basis
        g = Qp.shape[1]
        G = np.einsum("iaje,ab,ef->ibjf", self.G.reshape(l, h, l, h), Qp, Qp)
        return G.reshape(l * g, l * g)

    @functools.cached_property
    def reduced_diagonal(self) -> np.ndarray:
        """``Q'ᵀ Σ_jj Q'`` for j in U (u, h', h')."""
        g = self.basis.shape[1]
        return posterior_diag(
            self._reduced_core, self.K_LU, self.kernel.diagonal(self.U), g, self.lam
        )

    def reduced_at(self, C) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """For the candidates C: ``Σ_kk`` (c, h, h) and the operand of :meth:`reduced_blocks`,
        ``(W, K_CU)`` with ``W[i, a, b, k] = Σ_i' G'[(i, a), (i', b)] K_i'k`` (l, h'·h'·c)."""
        l, g = len(self.L), self.basis.shape[1]
        K_LC, _, S_kk = self._candidate_blocks(C)
        c = K_LC.shape[1]
        G_t = self._reduced_core.reshape(l, g, l, g).transpose(0, 1, 3, 2).reshape(l * g * g, l)
        W = (G_t @ K_LC).reshape(l, g * g * c)
        return S_kk, (W, self.kernel.block(C, self.U))

    def reduced_blocks(self, V: tuple[np.ndarray, np.ndarray]):
        """Yield ``(start, stop, Z)`` over blocks of U: ``Z`` (nb, h', h', c) the reduced blocks
        ``Q'ᵀΣ_jkQ' = (K_jk I − Σ_i K_ij W[i, :, :, k]) / λ`` against the candidates of ``V``
        (:meth:`reduced_at`)."""
        W, K_CU = V
        g, c = self.basis.shape[1], K_CU.shape[0]
        step = max(1, self.PAIR_BLOCK_ELEMENTS // max(1, g * g * c))
        eye = np.arange(g)
        for s in range(0, self.U.size, step):
            e = min(self.U.size, s + step)
            Z = (self.K_LU[:, s:e].T @ W).reshape(e - s, g, g, c)
            Z *= -1.0
            Z[:, eye, eye, :] += K_CU[:, s:e].T[:, None, :]
            Z /= self.lam
            yield s, e, Z


def null_free_basis(h: int) -> np.ndarray:
    """``Q'`` (h, h − 1): orthonormal columns orthogonal to ``1``, ``[[1]]`` for h = 1 (binary).

    The softmax Fisher blocks annihilate ``1``: ``F = Q'(Q'ᵀFQ')Q'ᵀ`` (docs/mathematics.md §7).
    """
    if h == 1:
        return np.ones((1, 1))
    Q = np.linalg.qr(np.column_stack([np.ones(h), np.eye(h)[:, : h - 1]]))[0]
    return np.ascontiguousarray(Q[:, 1:])


def feature_precision(phi_L: np.ndarray, F: np.ndarray, lam: float) -> np.ndarray:
    """``λI + Σ_i F_i ⊗ φ_iφ_iᵀ`` (g·m, g·m, class-major) for features ``φ_L`` (l, m) and
    blocks ``F`` (l, g, g), symmetric positive semidefinite.

    Every block is a weighted Gram matrix ``Σ_i w_i φ_iφ_iᵀ`` made by ``syrk`` on rows scaled by
    ``√w_i`` (half the multiply-adds of a general product): the diagonal blocks with
    ``w = F_aa`` and, by polarisation, an off-diagonal one as ``(G_ab − M_aa − M_bb) / 2`` with
    ``G_ab`` the Gram matrix of ``w = F_aa + F_bb + 2F_ab = (e_a + e_b)ᵀF(e_a + e_b) ≥ 0``:
    l·m²·g(g + 1)/4 multiply-adds (1.5·l·m² for three classes, 2·l·m² with general products
    for the off-diagonal blocks)."""
    m, g = phi_L.shape[1], F.shape[-1]
    M = np.zeros((g, m, g, m))

    def gram(w):
        low = dsyrk(1.0, phi_L * np.sqrt(np.maximum(w, 0.0))[:, None], trans=1, lower=1)
        return np.tril(low) + np.tril(low, -1).T

    for a in range(g):
        M[a, :, a] = gram(F[:, a, a])
    for a in range(g):
        for b in range(a + 1, g):
            both = gram(F[:, a, a] + F[:, b, b] + 2.0 * F[:, a, b])
            M[a, :, b] = M[b, :, a] = 0.5 * (both - M[a, :, a] - M[b, :, b])
    M = M.reshape(g * m, g * m)
    M[np.diag_indices(g * m)] += lam
    return M


class FeaturePosterior:
    """The posterior covariance of the pool values when ``K = ΦΦᵀ`` (docs/mathematics.md §7):
    Woodbury on m.

    With ``β_c = Φ w_c`` and the prior ``(λ/2)Σ_c‖w_c‖²``, the Laplace posterior of ``w`` has
    the (hm × hm) covariance ``S = (λI + Σ_{i∈L} F_i ⊗ φ_iφ_iᵀ)⁻¹`` and
    ``Σ_{(j,a),(k,b)} = φ_jᵀ S_ab φ_k`` — the same matrix as :class:`LabeledPosterior` on
    ``K = ΦΦᵀ`` (push-through identity). One O(l m² h² + m³ h³) factorisation per model, then
    ``Σ_{U,k} X`` costs O(u·m·h) per candidate column whatever the number of labels: cheaper
    than :class:`LabeledPosterior`'s O(u·(1 + l)·h) once l exceeds m. The fast-mode query
    reads the blocks ``Σ_jk`` themselves off the softmax null vector (``S'``,
    :meth:`reduced_blocks`, and the quadratic forms of :attr:`reduced_diagonal`: h' = h − 1
    coordinates, O(u·m·(c·h'² + m·h'(h' + 1)/4)) per query for c candidates, the diagonal
    included).

    Parameters
    ----------
    features
        Φ (n, m).
    L, U
        The labeled points and the points the risk sums over (U may be most of the pool:
        then Φ is read in place rather than copied).
    P_L
        The labeled points' probabilities (l, h').
    lam
        Regularisation λ.
    rows
        ``(Φ_S, pos)``: Φ's rows of a superset S of U that the caller keeps (a risk sample) and
        U's positions in them. Φ_U is then read from them a block of rows at a time, never
        gathered whole (a fresh 80 MB at u = 20 000, m = 500).
    """

    #: floats of one block's product with Φ's rows (a few MB: stays near the cache)
    PAIR_BLOCK_ELEMENTS = 1_000_000

    def __init__(self, features: np.ndarray, L, U, P_L: np.ndarray, lam: float, rows=None):
        self.features, self.U, self.lam = features, np.asarray(U, dtype=np.intp), lam
        n = features.shape[0]
        self.h = P_L.shape[-1]
        # most of the pool: multiply the whole Φ and keep the rows of U, not a copy of Φ_U
        self._whole = self.U.size > n // 2
        self._phi_L = features[np.asarray(L, dtype=np.intp)]
        self._F = fisher_blocks(P_L)
        self._rows = rows

    def _precision(self, F: np.ndarray) -> np.ndarray:
        """``λI + Σ_i F_i ⊗ φ_iφ_iᵀ`` for blocks F (l, g, g), (g·m, g·m)."""
        return feature_precision(self._phi_L, F, self.lam)

    @functools.cached_property
    def S(self) -> np.ndarray:
        """The (h·m × h·m) posterior covariance of the primal weights (for :meth:`at`)."""
        h, m = self.h, self.features.shape[1]
        chol = scipy.linalg.cholesky(self._precision(self._F), lower=True)
        return scipy.linalg.cho_solve((chol, True), np.eye(h * m))

    @functools.cached_property
    def basis(self) -> np.ndarray:
        """``Q'`` (h, h'): orthonormal columns orthogonal to ``1`` (h' = h − 1), ``[[1]]`` for
        binary. ``S = (Q⊗I) diag(I/λ, S')(Qᵀ⊗I)`` with ``Q = [1/√h, Q']`` (docs/mathematics.md
        §7): the softmax Fisher blocks annihilate ``1``, so the risk sees ``S'`` only."""
        return null_free_basis(self.h)

    @functools.cached_property
    def _reduced_cholesky(self) -> np.ndarray:
        """The lower Cholesky factor ``C`` of the reduced precision ``S'⁻¹ = λI + Σ_i Q'ᵀF_iQ'
        ⊗ φ_iφ_iᵀ`` (h'm, h'm): ``S'`` is the posterior covariance of the weights off the
        null direction."""
        Qp = self.basis
        return scipy.linalg.cholesky(self._precision(Qp.T @ self._F @ Qp), lower=True)

    @functools.cached_property
    def _reduced_covariance(self) -> np.ndarray:
        """``S'`` (h'm, h'm, class-major): the inverse of the reduced precision from its Cholesky
        factor (LAPACK ``potri``), symmetric."""
        S, info = dpotri(self._reduced_cholesky, lower=1)
        if info:
            raise np.linalg.LinAlgError(f"the reduced precision's factor is singular ({info})")
        return np.tril(S) + np.tril(S, -1).T

    @functools.cached_property
    def _form_factors(self) -> dict[tuple[int, int], np.ndarray]:
        """Lower Cholesky factors ``L`` (m, m, Fortran-ordered for BLAS) of the m × m matrices
        whose quadratic forms make :attr:`reduced_diagonal`: ``S'_aa`` under ``(a, a)``, and
        ``S'_aa + S'_bb + S'_ab + S'_ba`` (the form of ``(e_a + e_b) ⊗ φ``) under ``(a, b)``,
        a < b. Each is a diagonal block of ``S'`` in another basis: positive definite."""
        g, m = self.basis.shape[1], self.features.shape[1]
        S = self._reduced_covariance.reshape(g, m, g, m)
        forms = {}
        for a in range(g):
            for b in range(a, g):
                M = S[a, :, a] if a == b else S[a, :, a] + S[b, :, b] + S[a, :, b] + S[b, :, a]
                forms[a, b] = np.asfortranarray(scipy.linalg.cholesky(M, lower=True))
        return forms

    def reduced_at(self, C) -> tuple[np.ndarray, np.ndarray]:
        """For the candidates C: ``Σ_kk`` (c, h, h) and ``V`` (m, h', h', c) with
        ``V[:, a, b, k] = S'_ab φ_k``, so that ``φ_jᵀ V[..., k]`` is the reduced block
        ``S'_jk`` (h'²·m²·c multiply-adds with the blocks of :attr:`_reduced_covariance`)."""
        Qp, h = self.basis, self.h
        g, m = Qp.shape[1], self.features.shape[1]
        phi_C = self.features[np.asarray(C, dtype=np.intp)]
        S = self._reduced_covariance.reshape(g, m, g, m)
        V = np.empty((m, g, g, phi_C.shape[0]))
        for a in range(g):
            for b in range(g):
                V[:, a, b] = S[a, :, b] @ phi_C.T
        S_kk = Qp @ np.einsum("mabk,km->kab", V, phi_C) @ Qp.T
        if h > 1:  # the null direction: (‖φ_k‖²/λ) q₀q₀ᵀ, q₀ = 1/√h
            S_kk += (np.einsum("km,km->k", phi_C, phi_C) / (self.lam * h))[:, None, None]
        return S_kk, V

    @functools.cached_property
    def _phi_U(self) -> np.ndarray:
        """Φ's rows of U, gathered once when first read (the whole Φ, not a copy, when U is
        most of the pool)."""
        if self._rows is not None:
            return self._rows[0][self._rows[1]]
        return self.features if self._whole else self.features[self.U]

    def _row_blocks(self, width: int):
        """Yield ``(start, stop, Φ rows)`` over blocks of U sized for a product ``width`` wide."""
        step = max(1, self.PAIR_BLOCK_ELEMENTS // max(1, width))
        for s in range(0, self.U.size, step):
            if self._rows is not None:
                rows = self._rows[0][self._rows[1][s : s + step]]
            elif self._whole:
                rows = self.features[self.U[s : s + step]]
            else:
                rows = self._phi_U[s : s + step]
            yield s, s + rows.shape[0], rows

    @functools.cached_property
    def reduced_diagonal(self) -> np.ndarray:
        """``S'_jj = [φ_jᵀ S'_ab φ_j]`` for j in U (u, h', h').

        By quadratic forms (:attr:`_form_factors`): ``q_ab = ‖L_abᵀ φ_j‖²`` by one triangular
        product (``trmm``, m²/2 multiply-adds) each, ``S'_jj[a, a] = q_aa`` and ``S'_jj[a, b] =
        (q_ab − q_aa − q_bb) / 2``: h'(h' + 1)/4 · m² multiply-adds per point, against
        h'²/2 · m² by products with the blocks of ``C⁻¹`` (three classes: 1.5m² against 2m²)."""
        g, m = self.basis.shape[1], self.features.shape[1]
        out = np.empty((self.U.size, g, g))
        for s, e, phi in self._row_blocks(m):
            q = {}
            for key, L in self._form_factors.items():
                # Lᵀφ as columns (m, rows): phi.T is Fortran-ordered, read by BLAS in place
                y = dtrmm(1.0, L, phi.T, lower=1, trans_a=1)
                q[key] = np.einsum("ij,ij->j", y, y)
            for a in range(g):
                out[s:e, a, a] = q[a, a]
                for b in range(a + 1, g):
                    out[s:e, a, b] = 0.5 * (q[a, b] - q[a, a] - q[b, b])
                    out[s:e, b, a] = out[s:e, a, b]
        return out

    def reduced_blocks(self, V: np.ndarray):
        """Yield ``(start, stop, Z)`` over blocks of U's rows: ``Z`` (nb, h', h', c) the reduced
        blocks ``S'_jk`` against the candidates of ``V`` (:meth:`reduced_at`), one product
        with Φ's rows per block."""
        m, g, c = V.shape[0], V.shape[1], V.shape[3]
        W = V.reshape(m, g * g * c)
        for s, e, phi in self._row_blocks(W.shape[1]):
            yield s, e, (phi @ W).reshape(e - s, g, g, c)

    def diagonal(self) -> np.ndarray:
        """``[Σ]_jj`` for j in U, (u, h, h): ``Q' S'_jj Q'ᵀ + (‖φ_j‖²/(λh)) 11ᵀ`` (the second
        term for softmax only, :attr:`basis`)."""
        Qp, h = self.basis, self.h
        out = Qp @ self.reduced_diagonal @ Qp.T
        if h > 1:
            for s, e, phi in self._row_blocks(self.features.shape[1]):
                out[s:e] += (np.einsum("ij,ij->i", phi, phi) / (self.lam * h))[:, None, None]
        return out

    def at(self, C) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """As :meth:`LabeledPosterior.at`: ``Σ_kk`` (c, h, h) and ``times``."""
        h, m = self.h, self.features.shape[1]
        phi_C = self.features[np.asarray(C, dtype=np.intp)]  # (c, m)
        c = phi_C.shape[0]
        # SΦ[b] = S_{·b} φ_k for every k: (h·m, c)
        S_phi = [self.S[:, b * m : (b + 1) * m] @ phi_C.T for b in range(h)]
        S_kk = np.empty((c, h, h))
        for a in range(h):
            for b in range(h):
                S_kk[:, a, b] = np.einsum("km,mk->k", phi_C, S_phi[b][a * m : (a + 1) * m])

        def times(Xk: np.ndarray) -> np.ndarray:
            # W_a = Σ_b S_ab φ_k X_kb (m, r, c), then one product with Φ_U per class a
            r = Xk.shape[2]
            W = np.zeros((h, m, r, c))
            for b in range(h):
                W += S_phi[b].reshape(h, m, 1, c) * Xk[:, b, :].T
            out = np.empty((h, r * c, self.U.size))
            for a in range(h):
                product = self._phi_U @ W[a].reshape(m, r * c)  # (rows read, r·c)
                # rows of U gathered whole (contiguous), then one transposed copy
                out[a] = (product[self.U] if self._whole else product).T
            return out.reshape(h, r, c, -1)

        return S_kk, times
