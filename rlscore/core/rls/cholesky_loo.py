"""Exact leave-one-out values of RLS at one λ from one Cholesky factor, and the label
checker's λ: the exact search on a small pool, the sketched one on a larger pool.

For ``G = K + λI`` and ``c = G⁻¹y`` the exact LOO residual of point i is ``c_i / [G⁻¹]_ii``
(docs/mathematics.md §3). With ``G = LLᵀ``, ``G⁻¹ = L⁻ᵀL⁻¹``: the diagonal is the column
sums of squares of the triangular inverse ``L⁻¹`` and ``c = L⁻ᵀ(L⁻¹y)``. The factor and the
triangular inverse cost n³/3 flops each, a fraction of the eigendecomposition the λ path needs
(docs/benchmarks/label-issues.md, ``--floor``), and the values are the exact LOO values at that
λ, not an approximation.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from rlscore.core.conventions.input_validation import check_positive
from rlscore.core.rls.eigen_loo import EigenLOO
from rlscore.core.rls.path import RLSPath
from rlscore.core.rls.sketched_lam import sketched_loo_lam

#: pools up to this many points choose λ on the exact path (its decomposition is cheap there)
EXACT_SEARCH_MAX = 250


def cholesky_loo(K: np.ndarray, Y: np.ndarray, lam: float) -> np.ndarray | None:
    """(n, T) the exact LOO values ``f_{S∖i}(x_i)`` of RLS ``(K + λI)c = Y`` at ``lam``.

    Parameters
    ----------
    K
        (n, n) symmetric kernel matrix (only its lower triangle is read).
    Y
        (n, T) targets.
    lam
        λ > 0.

    Returns
    -------
    numpy.ndarray or None
        None when ``K + λI`` is not numerically positive definite (λ at the rounding-noise
        level of ``K``): the eigendecomposition copes with that case, the factor does not.
    """
    n = K.shape[0]
    G = np.array(K, dtype=np.float64)
    G.flat[:: n + 1] += lam
    # G is symmetric: the transpose of its C-ordered copy is the Fortran-ordered G that LAPACK
    # reads, without the strided copy a Fortran-ordered copy of K would take
    factor, info = scipy.linalg.lapack.dpotrf(G.T, lower=1, overwrite_a=1)
    if info != 0:
        return None
    inverse, info = scipy.linalg.lapack.dtrtri(factor, lower=1, overwrite_c=1)
    if info != 0:
        return None
    diagonal = np.einsum("ij,ij->j", inverse, inverse)  # [G⁻¹]_ii
    coef = inverse.T @ (inverse @ Y)
    return Y - coef / diagonal[:, None]


def checker_loo(
    K, Y: np.ndarray, lam: float | str = "auto", *, exact_search_max: int = EXACT_SEARCH_MAX
) -> tuple[np.ndarray, float]:
    """The exact LOO values of unweighted RLS without offset, and the λ they are at.

    Parameters
    ----------
    K
        (n, n) symmetric positive semi-definite kernel matrix, finite (a precomputed one
        checked by
        :func:`~rlscore.core.conventions.input_validation.check_kernel_matrix`).
    Y
        (n, T) ±1 one-vs-all targets (one column for two classes).
    lam
        λ > 0, or ``"auto"``: the largest λ minimising the LOO classification error, over
        the exact path's grid when ``n ≤ exact_search_max``
        (:meth:`~rlscore.core.rls.eigen_loo.EigenLOO.best_lam`, the λ of
        :meth:`~rlscore.core.rls.path.RLSPath.best_loo_lam`), otherwise over the sketched
        kernel's (:func:`~rlscore.core.rls.sketched_lam.sketched_loo_lam`).
    exact_search_max
        The largest pool whose λ is searched on the exact path.

    Returns
    -------
    loo, lam
        (n, T) exact LOO values at ``lam``, and ``lam``.
    """
    if isinstance(lam, str):
        if lam != "auto":
            raise ValueError(f"lam must be a positive number or 'auto', got {lam!r}")
        if K.shape[0] <= exact_search_max:
            path = EigenLOO.of_kernel(K, Y)
            lam = path.best_lam()
            return path.loo(np.array([lam]))[:, 0], lam
        lam = sketched_loo_lam(K, Y)
    lam = check_positive(lam, "lam")
    loo = cholesky_loo(K, Y, lam)
    if loo is None:
        loo = RLSPath(K, Y).loo(lam)
    return loo, lam


__all__ = ["EXACT_SEARCH_MAX", "checker_loo", "cholesky_loo"]
