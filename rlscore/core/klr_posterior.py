"""The Laplace posterior of kernel logistic regression over a pool, without an n × n inverse.

SPEC §6 (Yajima & Sato §4–5). At a KLR optimum the posterior precision of the pool values is
``H = λ(I⊗K⁻¹) + Z``, ``Z`` the Fisher blocks of the labeled points. Its inverse is needed on
diagonal blocks only: the A-optimal risk (eq. 4.23 / 5.29) sums them over the unlabeled
points, and the approximate leave-one-out of :mod:`rlscore.core.klr_tuning` reads them at
the labeled points. By Sherman–Morrison–Woodbury in the stable symmetric form
``R(λI + Rᵀ(K_LL⊗I)R)⁻¹Rᵀ`` (``Z̄ = RRᵀ``; the softmax blocks are singular and never
inverted) ``[H⁻¹]_jj = (K_jj I − (I⊗k̄_j)ᵀ G (I⊗k̄_j)) / λ`` with ``k̄_j = K_{Lj}``.
"""

from __future__ import annotations

import numpy as np

from rlscore.core.klr import fisher_blocks, fisher_factor, whitened_matrix

__all__ = ["aoptimal_risk_terms", "posterior_diag", "woodbury_core"]


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
    """Per-point A-optimal risk ``Σ_c q_jcᵀ H⁻¹ q_jc`` for the points U (SPEC §6 ✔).

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
