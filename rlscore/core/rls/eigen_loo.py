"""Exact leave-one-out values of unweighted RLS without offset over a λ grid, from eigenpairs.

For ``K = QΛQᵀ``, ``G = K + λI``, ``h = 1/(Λ + λ)`` and ``P = QᵀY`` (formed once), the LOO
residual of point i is ``c_i / [G⁻¹]_ii`` with ``c = Q(h∘P)`` and ``[G⁻¹]_ii = (Q∘Q)h``
(docs/mathematics.md §3), so ``f_{S∖i}(x_i) = y_i − c_i / [G⁻¹]_ii``. All λ of a grid are one
matrix product ``Q @ (h_l P)_l`` and one ``(Q∘Q) @ H``. A thin ``Q`` (n × r, a low-rank
kernel's eigenpairs) adds the orthogonal complement, where ``G⁻¹ = I/λ``: ``(Y − QP)/λ`` to
``c`` and ``(1 − ‖Q_i‖²)/λ`` to the diagonal.

This is :class:`rlscore.core.rls.path.RLSPath`'s LOO arithmetic for the label checker's case
(unit weights, no offset, one decomposition shared by the one-vs-all columns) without what the
general path carries: its input checks (the checker's kernel is symmetric by construction or
checked once), the memory probe, the weight groups, the coefficient arrays. On the checker's
small pools that overhead was of the order of the arithmetic (docs/benchmarks/label-issues.md,
"Time"). The λ it chooses is the path's (tests/test_cholesky_loo.py checks them equal).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from rlscore.core.rls.path import DEFAULT_N_LAMS

#: the (n, λ, T) arrays of one block of the grid stay near 32 MB (as the path's)
_BLOCK_VALUES = 4_000_000


class EigenLOO:
    """The exact LOO values of ``(K + λI)c = Y`` for any λ, from eigenpairs of ``K``.

    Parameters
    ----------
    Q
        (n, r) orthonormal eigenvectors, r = n (the whole decomposition) or r < n (thin).
    evals
        (r,) eigenvalues ≥ 0, ascending.
    Y
        (n, T) ±1 one-vs-all targets (one column for two classes).
    """

    def __init__(self, Q: np.ndarray, evals: np.ndarray, Y: np.ndarray) -> None:
        self.Q, self.evals, self.Y = Q, evals, Y
        self.Q2 = Q * Q
        self.P = Q.T @ Y
        thin = Q.shape[1] < Q.shape[0]
        # the parts of Y and of the diagonal of I outside span(Q), where G⁻¹ = I/λ
        self.Y_perp = Y - Q @ self.P if thin else None
        self.diag_perp = np.clip(1.0 - self.Q2.sum(axis=1), 0.0, None) if thin else None
        self.truth = np.argmax(Y, axis=1) if Y.shape[1] > 1 else Y[:, 0] > 0  # the label

    @classmethod
    def of_kernel(cls, K: np.ndarray, Y: np.ndarray) -> EigenLOO:
        """From the whole eigendecomposition of a symmetric PSD ``K``: LAPACK's ``dsyevd`` on
        its lower triangle, the routine and triangle of the path's ``scipy.linalg.eigh``
        (the same pairs, bit for bit) without the wrapper's checks and workspace query."""
        evals, Q, info = scipy.linalg.lapack.dsyevd(K, compute_v=1, lower=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"the eigendecomposition of K failed (LAPACK info {info})")
        np.maximum(evals, 0.0, out=evals)  # K is PSD: a negative eigenvalue is rounding noise
        return cls(Q, evals, Y)

    def default_lams(self, num: int = DEFAULT_N_LAMS) -> np.ndarray:
        """The path's grid (:meth:`RLSPath.default_lams`): geometric from the smallest
        eigenvalue above the rounding-noise level ``n·ε·λ_max`` to ``λ_max``."""
        top = float(self.evals[-1])
        if top <= 0:
            raise ValueError("the kernel matrix is zero: no λ grid can be built")
        tol = self.Q.shape[0] * np.finfo(np.float64).eps * top
        return np.geomspace(float(self.evals[self.evals > tol][0]), top, num)

    def loo(self, lams: np.ndarray) -> np.ndarray:
        """(n, L, T) the exact LOO values at each λ of ``lams`` (module docstring)."""
        n, r = self.Q.shape
        T, L = self.Y.shape[1], lams.size
        H = 1.0 / (self.evals[:, None] + lams[None, :])  # (r, L)
        diagonal = self.Q2 @ H  # (n, L) [G⁻¹]_ii
        # λ before the class: the argmax over the classes reads contiguous memory
        c = (self.Q @ (H[:, :, None] * self.P[:, None, :]).reshape(r, L * T)).reshape(n, L, T)
        if self.Y_perp is not None:
            diagonal += self.diag_perp[:, None] / lams
            c += self.Y_perp[:, None, :] / lams[None, :, None]
        # Y − c / diagonal in place: the same values without two more (n, L, T) temporaries
        # to allocate and fill (6 MB each at 150 labels of 10 classes)
        c /= diagonal[:, :, None]
        return np.subtract(self.Y[:, None, :], c, out=c)

    def classification_errors(self, lams: np.ndarray) -> np.ndarray:
        """(L,) the share of points the LOO model misclassifies at each λ (sign for one
        column, argmax for several: :meth:`RLSPath.errors`)."""
        n, T = self.Y.shape
        step = max(1, _BLOCK_VALUES // (n * T))
        errors = np.empty(lams.size)
        for s in range(0, lams.size, step):
            f = self.loo(lams[s : s + step])
            if T == 1:
                wrong = (f[:, :, 0] > 0) != self.truth[:, None]
            else:
                wrong = np.argmax(f, axis=2) != self.truth[:, None]
            errors[s : s + step] = wrong.mean(axis=0)
        return errors

    def best_lam(self, lams: np.ndarray | None = None) -> float:
        """The largest λ of ``lams`` (default :meth:`default_lams`) minimising the LOO
        classification error; errors within 1e-12 of the minimum tie (:meth:`RLSPath.best_lam`)."""
        lams = self.default_lams() if lams is None else lams
        errors = self.classification_errors(lams)
        return float(lams[errors <= errors.min() + 1e-12].max())


__all__ = ["EigenLOO"]
