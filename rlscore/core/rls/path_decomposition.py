"""The per-weight-vector decompositions behind :class:`rlscore.core.rls.path.RLSPath`.

For one weight vector ``a`` (``W = diag(√a)``) the path needs ``M = WKW = QΛQᵀ`` and the
targets and weights projected on ``Q`` (docs/mathematics.md §1, §3): from the kernel by one
symmetric eigendecomposition, or from features ``Φ`` (``K = ΦΦᵀ``, §7) by one thin SVD of
``WΦ``, keeping only the directions with positive eigenvalues and the parts of ``Wy`` and
``w`` outside them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg


@dataclass
class Decomposition:
    """``M = WKW = QΛQᵀ`` for one weight vector, with the targets it serves projected."""

    cols: np.ndarray  # target columns using these weights
    a: np.ndarray  # (n,) weights
    w: np.ndarray  # (n,) sqrt(a)
    evals: np.ndarray  # (n,) ascending, clipped at 0
    Q: np.ndarray  # (n, n)
    Q2: np.ndarray | None  # Q∘Q, or None to compute per λ
    Qt_z: np.ndarray  # (n, len(cols)) Qᵀ W y
    Qt_w: np.ndarray  # (n,) Qᵀ w
    zero: np.ndarray  # indices with a_i == 0
    K_zero: np.ndarray  # (len(zero), n) kernel rows of those points
    # A thin decomposition (from features) keeps only the r ≤ m eigenvectors of M with
    # positive eigenvalues; on their orthogonal complement M is 0 and G⁻¹ is I/λ. These are
    # the parts of z = Wy and w outside span(Q), and 1 − ‖Q_i‖² (None when Q is square).
    z_perp: np.ndarray | None = None  # (n, len(cols))
    w_perp: np.ndarray | None = None  # (n,)
    diag_perp: np.ndarray | None = None  # (n,)


def decompose_kernel(K, Y, A, cols, store_squares: bool) -> Decomposition:
    """The eigendecomposition of ``M = WKW`` for the weights of target columns ``cols``
    (``W = diag(√a)``, ``a = A[:, cols[0]]``; ``store_squares``: keep ``Q∘Q``)."""
    a = A[:, cols[0]]
    w = np.sqrt(a)
    M = w[:, None] * K * w[None, :]
    evals, Q = scipy.linalg.eigh(M, overwrite_a=True, check_finite=False, driver="evd")
    del M
    # M is PSD: negative eigenvalues are rounding noise
    np.maximum(evals, 0.0, out=evals)
    zero = np.flatnonzero(a == 0)
    return Decomposition(
        cols=np.asarray(cols),
        a=a,
        w=w,
        evals=evals,
        Q=Q,
        Q2=Q * Q if store_squares else None,
        Qt_z=Q.T @ (w[:, None] * Y[:, cols]),
        Qt_w=Q.T @ w,
        zero=zero,
        K_zero=K[zero].copy(),
    )


def decompose_features(Phi, Y, A, cols) -> Decomposition:
    """The thin decomposition of ``M = WΦΦᵀW`` from one SVD of ``WΦ`` (docs/mathematics.md §7)."""
    a = A[:, cols[0]]
    w = np.sqrt(a)
    U, sv, _ = scipy.linalg.svd(w[:, None] * Phi, full_matrices=False, check_finite=False)
    # directions with a rounding-noise singular value belong to the complement (M = 0)
    keep = sv > max(Phi.shape) * np.finfo(np.float64).eps * (sv[0] if sv.size else 0.0)
    U, evals = U[:, keep][:, ::-1], (sv[keep] ** 2)[::-1]  # ascending, as eigh's
    zero = np.flatnonzero(a == 0)
    return thin_decomposition(U, evals, Y, a, cols, Phi[zero] @ Phi.T)


def thin_decomposition(U, evals, Y, a, cols, K_zero) -> Decomposition:
    """The decomposition of ``M = U diag(evals) Uᵀ`` (U orthonormal columns; ``K_zero`` the
    kernel rows of the points of weight 0)."""
    w = np.sqrt(a)
    z = w[:, None] * Y[:, cols]
    Qt_z, Qt_w = U.T @ z, U.T @ w
    zero = np.flatnonzero(a == 0)
    Q2 = U * U
    return Decomposition(
        cols=np.asarray(cols),
        a=a,
        w=w,
        evals=evals,
        Q=U,
        Q2=Q2,
        Qt_z=Qt_z,
        Qt_w=Qt_w,
        zero=zero,
        K_zero=K_zero,
        z_perp=z - U @ Qt_z,
        w_perp=w - U @ Qt_w,
        diag_perp=np.clip(1.0 - Q2.sum(axis=1), 0.0, None),
    )


__all__ = ["Decomposition", "decompose_features", "decompose_kernel", "thin_decomposition"]
