"""The regularized graph kernels of one pool for any scale t, without an n × n inverse.

docs/mathematics.md §2: on a kNN graph with Laplacian ``L`` (or ``L̃``), the regularized kernel is
``K_t = (I + tL)⁻¹`` (``"regularized"``) or ``(I + tL̃)⁻¹`` (``"normalized_regularized"``,
Yajima's). Choosing t from the labels (:mod:`rlscore.core.klr.tuning`) needs ``K_t`` for
several t, and a large pool cannot hold any ``K_t`` at all. What the KLR needs is columns:
``K_{:L}`` for the fit (``β = K_{:L}α``) and ``K_{:C}`` for scored candidates. Two solvers:

* ``"eigh"`` (pools up to :data:`EIGH_MAX_POOL` points): one dense eigendecomposition
  ``L = VμVᵀ`` serves every t, ``K_t = V diag(1/(1 + tμ)) Vᵀ``; columns cost O(n·|idx|·n).
* ``"cg"``: conjugate gradients on ``(I + tL) X = E_idx``, all columns at once (a sparse
  matrix times a dense block per iteration). ``I + tL̃`` has its spectrum in ``[1, 1 + 2t]``
  (``L̃``'s lies in [0, 2]), so CG needs about ``√(1 + 2t)·log(1/tol)/2`` iterations whatever
  the pool size; the unnormalised ``L`` is preconditioned by its diagonal ``1 + t·deg``.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import scipy.sparse as sp

from rlscore.core.conventions.input_validation import check_positive
from rlscore.core.kernels.functions import GRAPH_ALIASES, LAPLACIAN_DEFAULT_T, knn_graph, laplacian

__all__ = ["EIGH_MAX_POOL", "RegularizedGraphKernels", "block_cg"]

#: largest pool the ``"auto"`` solver decomposes densely (an n × n eigh: 3000 points take
#: about 10 s on one core; above, columns come from CG)
EIGH_MAX_POOL = 3000
#: the two kernels whose inverse ``I + tL`` is sparse
REGULARIZED = ("regularized", "normalized_regularized")


def block_cg(
    A: sp.spmatrix,
    B: np.ndarray,
    *,
    precond: np.ndarray | None = None,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> np.ndarray:
    """Solve ``A X = B`` for a symmetric positive definite sparse ``A`` and every column of ``B``.

    Independent (Jacobi-preconditioned) conjugate gradients, one per column, advanced
    together so each iteration is one sparse-times-dense product. Stops when every column's
    residual is below ``tol`` times its right-hand side's norm; ``RuntimeError`` after
    ``max_iter`` iterations.
    """
    M = np.ones(A.shape[0]) if precond is None else 1.0 / np.asarray(precond, dtype=np.float64)
    X = np.zeros_like(B, dtype=np.float64)
    R = np.array(B, dtype=np.float64)
    Zr = M[:, None] * R
    P = Zr.copy()
    rz = np.einsum("ij,ij->j", R, Zr)
    goal = tol * np.maximum(np.linalg.norm(B, axis=0), np.finfo(float).tiny)
    for _ in range(max_iter):
        if np.all(np.linalg.norm(R, axis=0) <= goal):
            return X
        AP = A @ P
        step = rz / np.einsum("ij,ij->j", P, AP)
        X += step * P
        R -= step * AP
        Zr = M[:, None] * R
        rz_new = np.einsum("ij,ij->j", R, Zr)
        P = Zr + (rz_new / rz) * P
        rz = rz_new
    if np.all(np.linalg.norm(R, axis=0) <= goal):
        return X
    raise RuntimeError(f"conjugate gradients did not reach tol {tol:g} in {max_iter} iterations")


def _scale(t: float | None) -> float:
    """``t`` checked, or the Laplacian kernels' default scale for None."""
    return LAPLACIAN_DEFAULT_T if t is None else check_positive(t, "graph_t")


class RegularizedGraphKernels:
    """``(I + tL)⁻¹`` or ``(I + tL̃)⁻¹`` on one pool's kNN graph, for any ``t > 0`` (None:
    the default :data:`~rlscore.core.kernels.functions.LAPLACIAN_DEFAULT_T`).

    Parameters
    ----------
    X : ndarray (n, d)
        The pool.
    kind : ``"normalized_regularized"`` (also ``"graph"``) or ``"regularized"``
    k, metric, connect
        The kNN graph (:func:`rlscore.core.kernels.functions.knn_graph`; components joined by
        default).
    solver : ``"auto"``, ``"eigh"`` or ``"cg"``
        ``"auto"``: eigh up to :data:`EIGH_MAX_POOL` points, CG above.

    Attributes
    ----------
    B, L : the graph and its (normalised) Laplacian.
    n : int — pool size.
    solver_ : str — the solver in use.
    kept : OrderedDict — kernels per t kept by :func:`rlscore.core.kernels.blocks.graph_kernel_at`.
    """

    def __init__(
        self,
        X: np.ndarray,
        kind: str = "normalized_regularized",
        k: int = 6,
        metric: str = "euclidean",
        connect: bool = True,
        solver: str = "auto",
    ):
        kind = GRAPH_ALIASES.get(kind, kind)
        if kind not in REGULARIZED:
            raise ValueError(f"kind must be one of {REGULARIZED} (or 'graph'), got {kind!r}")
        if solver not in ("auto", "eigh", "cg"):
            raise ValueError(f"solver must be 'auto', 'eigh' or 'cg', got {solver!r}")
        self.kind = kind
        self.B = knn_graph(X, k=k, metric=metric, connect=connect)
        self.L = laplacian(self.B, normalized=kind == "normalized_regularized")
        self.n = self.B.shape[0]
        if solver == "auto":
            solver = "eigh" if self.n <= EIGH_MAX_POOL else "cg"
        self.solver_ = solver
        self._eig: tuple[np.ndarray, np.ndarray] | None = None
        self.kept: OrderedDict = OrderedDict()

    def _spectrum(self) -> tuple[np.ndarray, np.ndarray]:
        if self._eig is None:
            mu, V = np.linalg.eigh(self.L.toarray())
            self._eig = (np.maximum(mu, 0.0), V)
        return self._eig

    @staticmethod
    def scale(t: float | None) -> float:
        """The scale in use for ``t``: ``t`` checked (> 0), or the default for None."""
        return _scale(t)

    def inverse(self, t: float | None) -> sp.csr_matrix:
        """The sparse ``K_t⁻¹ = I + tL``."""
        t = _scale(t)
        return sp.csr_matrix(sp.identity(self.n, format="csr") + t * self.L)

    def columns(self, t: float | None, idx) -> np.ndarray:
        """``K_t[:, idx]`` (n, len(idx))."""
        t = _scale(t)
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        if self.solver_ == "eigh":
            mu, V = self._spectrum()
            return V @ (V[idx].T / (1.0 + t * mu)[:, None])
        E = np.zeros((self.n, idx.size))
        E[idx, np.arange(idx.size)] = 1.0
        A = self.inverse(t)
        X = block_cg(A, E, precond=A.diagonal())
        return X

    def dense(self, t: float | None) -> np.ndarray:
        """The whole ``K_t`` (n × n; eigh solver only: a large pool cannot hold it)."""
        if self.solver_ != "eigh":
            raise ValueError(
                f"a dense {self.n} × {self.n} graph kernel is not formed with the CG solver: "
                "ask for columns"
            )
        mu, V = self._spectrum()
        K = (V / (1.0 + _scale(t) * mu)) @ V.T
        return 0.5 * (K + K.T)

    def diagonal(self, t: float | None) -> np.ndarray:
        """``diag(K_t)`` (n,) (eigh solver only)."""
        if self.solver_ != "eigh":
            raise ValueError("diag(K_t) of the whole pool needs the eigh solver")
        mu, V = self._spectrum()
        return (V * V) @ (1.0 / (1.0 + _scale(t) * mu))
