"""The link of kernel logistic regression and its Fisher information (docs/mathematics.md §6):
class probabilities from decision values (logistic for one column, softmax for more), the
per-point log-losses, the Fisher blocks ``diag(p) − ppᵀ`` and their square roots.

Every function works on stacks: leading axes are independent problems (exact A-optimal
scoring refits all candidates and labels at once).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_softmax, softmax

__all__ = ["fisher_blocks", "fisher_factor", "log_losses", "probabilities", "whitened_matrix"]


def probabilities(F: np.ndarray) -> np.ndarray:
    """Class probabilities from decision values ``F`` (..., h').

    One column is the binary logistic model (``P(positive) = σ(f)``); two or more columns are
    the softmax model.
    """
    if F.shape[-1] == 1:
        return expit(F)
    return softmax(F, axis=-1)


def log_losses(F: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Negative log-likelihood of each row (binary: ``log(1 + e^f) − t f``), shape (...,).

    ``F`` are decision values (..., h'), ``T`` the 0/1 targets of the same shape.
    """
    if F.shape[-1] == 1:
        return np.logaddexp(0.0, F[..., 0]) - T[..., 0] * F[..., 0]
    return -(log_softmax(F, axis=-1) * T).sum(axis=-1)


def fisher_blocks(P: np.ndarray) -> np.ndarray:
    """Per-point Fisher blocks (..., h', h'): ``diag(p) − ppᵀ``, binary ``p(1 − p)``.

    The off-diagonal entries are ``−p^c p^k`` (docs/mathematics.md §6: Yajima eq. 5.28 prints
    ``+``).
    """
    if P.shape[-1] == 1:
        return (P * (1.0 - P))[..., None]
    h = P.shape[-1]
    F = -P[..., :, None] * P[..., None, :]
    F[..., np.arange(h), np.arange(h)] += P
    return F


def fisher_factor(P: np.ndarray) -> np.ndarray:
    """Factors ``R`` (..., h', h') with ``RRᵀ`` = the Fisher block of each point.

    Binary ``√(p(1 − p))``; softmax ``R = diag(√p) − p√pᵀ`` (``RRᵀ = diag(p) − ppᵀ`` because
    ``Σp = 1``). The softmax blocks are singular (rank h − 1): nothing here inverts them.
    """
    if P.shape[-1] == 1:
        return np.sqrt(np.maximum(P * (1.0 - P), 0.0))[..., None]
    r = np.sqrt(np.maximum(P, 0.0))
    R = -P[..., :, None] * r[..., None, :]
    h = P.shape[-1]
    R[..., np.arange(h), np.arange(h)] += r
    return R


def whitened_matrix(K_LL: np.ndarray, R: np.ndarray, lam: float) -> np.ndarray:
    """``W = λI + Rᵀ(K_LL⊗I)R`` (..., lh, lh) in point-major order, ``R = blockdiag(R_i)``.

    Entry ``[(i, a), (j, b)]`` of ``Rᵀ(K⊗I)R`` is ``K_ij (R_iᵀ R_j)_ab``. ``W`` is symmetric
    positive definite (≥ λI) however small the probabilities get.
    """
    l, h = R.shape[-3], R.shape[-1]
    lead = R.shape[:-3]
    left = np.swapaxes(R, -1, -2).reshape(*lead, l * h, h)  # rows (i, a): R_i[:, a]
    right = np.moveaxis(R, -2, -3).reshape(*lead, h, l * h)  # columns (j, b): R_j[:, b]
    W = (left @ right).reshape(*lead, l, h, l, h) * K_LL[..., :, None, :, None]
    W = W.reshape(*lead, l * h, l * h)
    W[..., np.arange(l * h), np.arange(l * h)] += lam
    return W
