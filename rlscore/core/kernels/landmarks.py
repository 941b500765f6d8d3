"""Landmark rules for Nyström approximations (docs/mathematics.md §7; Rifkin §7.6, Sheng ch. 4).

Every rule returns a :class:`LandmarkChoice`: the landmark points, their pool indices (when they
are pool points), and one or more *groups* of landmarks with a mixture weight μ_r and a
normalisation ``N_r`` each, such that the approximation is

``K̃ = Σ_r μ_r K_{n,Z_r} N_r N_rᵀ K_{Z_r,n}``  with  ``N_r N_rᵀ = K_{Z_r Z_r}⁺``.

Single-group rules (uniform, k-means, incomplete Cholesky) have one group and μ = 1. The
rules only ever compute kernel columns (n × m or n × d blocks): never an n × n matrix.

* :func:`uniform_landmarks` — m pool points drawn without replacement (Williams & Seeger).
* :func:`kmeans_landmarks` — k-means centres (Zhang, Tsang & Kwok 2008, Sheng's method (c)).
* :func:`incomplete_cholesky` — pivoted incomplete Cholesky (Fine & Scheinberg): greedy pivot on
  the largest residual diagonal.
* :func:`ensemble_landmarks` — Ensemble Nyström (Kumar, Mohri & Talwalkar; Sheng §4.3.1).
* :func:`boost_nystrom` — BoostNyström (Sheng §4.3.2, algorithms 7–9).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

#: the landmark rules by name (docs/mathematics.md §7)
LANDMARK_RULES = ("uniform", "kmeans", "ic", "ensemble", "boost")
#: mixture weights of the ensemble rules
MIXTURES = ("uniform", "exponential")
#: ``kernel(A, B)`` → the (len(A), len(B)) kernel matrix
KernelFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: eigenvalues of K_mm below this fraction of the largest are dropped from K_mm^{-1/2}
#: (their directions carry rounding noise, and 1/√λ would amplify it)
EIGEN_CUTOFF = 1e-10
#: incomplete Cholesky stops when every residual diagonal is below this fraction of the largest
#: kernel diagonal (the next pivot would divide by rounding noise)
IC_TOLERANCE = 1e-10
#: above this many points k-means uses scikit-learn's MiniBatchKMeans instead of KMeans
KMEANS_FULL_MAX = 20_000
#: default η of the exponential mixture weights ``exp(−η ε)``, ε a relative error in [0, 1]:
#: η = 100 is η = 1 on the percent errors the thesis reports
DEFAULT_ETA = 100.0


@dataclass
class LandmarkChoice:
    """What a landmark rule returns.

    Attributes
    ----------
    points : ndarray (M, d)
        All landmarks (the groups concatenated).
    indices : ndarray (M,) or None
        Their pool indices; None when the landmarks are not pool points (k-means centres).
    groups : list of ndarray
        Row positions in ``points`` of each base approximation's landmarks.
    weights : ndarray (p,)
        Mixture weights μ_r (sum 1).
    normalizations : list of ndarray
        ``N_r`` (|group r|, r_r) with ``N_r N_rᵀ = K_{Z_r Z_r}⁺`` on the kept directions.
    info : dict
        Rule-specific diagnostics (residual traces, validation errors, …).
    """

    points: np.ndarray
    indices: np.ndarray | None
    groups: list[np.ndarray]
    weights: np.ndarray
    normalizations: list[np.ndarray]
    info: dict = field(default_factory=dict)


def inverse_sqrt(K_mm: np.ndarray, cutoff: float = EIGEN_CUTOFF) -> np.ndarray:
    """``K_mm^{-1/2}`` on the eigen-directions above ``cutoff`` × the largest eigenvalue: an
    (m, r) matrix ``U Λ^{-1/2}`` with ``(K_nm U Λ^{-1/2})(…)ᵀ = K_nm K_mm⁺ K_mn``."""
    evals, U = np.linalg.eigh(K_mm)
    top = float(evals[-1]) if evals.size else 0.0
    if top <= 0:
        raise ValueError("the kernel matrix of the landmarks is zero: no features can be built")
    keep = evals > cutoff * top
    return U[:, keep] / np.sqrt(evals[keep])


def paired_kernel(
    A: np.ndarray, B: np.ndarray, *, kernel: str, sigma: float = 1.0, degree: int = 2
) -> np.ndarray:
    """Row-wise kernel values ``k(a_i, b_i)`` of two (N, d) arrays, an (N,) vector.

    With ``A is B`` this is the kernel diagonal.
    """
    if kernel == "rbf":
        diff = A - B
        return np.exp(-np.einsum("ij,ij->i", diff, diff) / (2.0 * sigma * sigma))
    dot = np.einsum("ij,ij->i", A, B)
    if kernel == "linear":
        return dot
    if kernel == "polynomial":
        return (1.0 + dot) ** int(degree)
    raise ValueError(f"unknown vector kernel {kernel!r}")


def _single(points: np.ndarray, indices: np.ndarray | None, norm: np.ndarray, **info):
    return LandmarkChoice(
        points=points,
        indices=indices,
        groups=[np.arange(points.shape[0])],
        weights=np.ones(1),
        normalizations=[norm],
        info=info,
    )


def uniform_landmarks(
    X: np.ndarray, m: int, kernel: KernelFn, rng: np.random.RandomState
) -> LandmarkChoice:
    """m pool points drawn uniformly without replacement (sorted indices)."""
    idx = np.sort(rng.choice(X.shape[0], size=m, replace=False))
    Z = X[idx].copy()
    return _single(Z, idx, inverse_sqrt(kernel(Z, Z)))


def kmeans_landmarks(
    X: np.ndarray, m: int, kernel: KernelFn, rng: np.random.RandomState, *, max_iter: int = 100
) -> LandmarkChoice:
    """The m k-means centres as landmarks (``indices`` is None: centres are not pool points).

    scikit-learn's ``KMeans`` (one k-means++ start) up to :data:`KMEANS_FULL_MAX` points,
    ``MiniBatchKMeans`` above (Zhang et al. also stop k-means early: the centres only need to
    cover the data, not to converge).
    """
    # imported here: sklearn.cluster loads sklearn.metrics and sklearn.neighbors, which the
    # app's first page does not need (a large pool's default landmarks are uniform)
    from sklearn.cluster import KMeans, MiniBatchKMeans

    seed = int(rng.randint(np.iinfo(np.int32).max))
    if X.shape[0] <= KMEANS_FULL_MAX:
        km = KMeans(n_clusters=m, n_init=1, max_iter=max_iter, random_state=seed)
    else:
        km = MiniBatchKMeans(
            n_clusters=m, n_init=1, max_iter=max_iter, batch_size=4096, random_state=seed
        )
    Z = np.ascontiguousarray(km.fit(X).cluster_centers_, dtype=np.float64)
    return _single(Z, None, inverse_sqrt(kernel(Z, Z)))


def incomplete_cholesky(
    X: np.ndarray,
    m: int,
    kernel: KernelFn,
    diag: np.ndarray,
    *,
    tol: float = IC_TOLERANCE,
) -> LandmarkChoice:
    """Pivoted incomplete Cholesky (Fine & Scheinberg): ``K ≈ G Gᵀ`` with G (n, m).

    Each step pivots on the largest residual diagonal ``d_i = K_ii − ‖G_i‖²`` (the point worst
    represented by the landmarks so far; ties go to the smallest index, so the rule is
    deterministic), computes that one kernel column and subtracts its projection: O(nm) memory,
    O(nm²) time, never n × n. It stops early when every residual is below ``tol`` × max K_ii.

    ``G Gᵀ`` *is* the Nyström approximation on the pivots: with ``L = G[pivots]`` (lower
    triangular, ``K_PP = L Lᵀ``), ``G = K_nP L⁻ᵀ``, so the normalisation is ``L⁻ᵀ`` and
    ``info["residual_traces"][j] = tr(K − G_j G_jᵀ)`` after j pivots (non-increasing,
    ``[0] = tr K``).
    """
    n = X.shape[0]
    d = np.array(diag, dtype=np.float64)
    scale = float(d.max()) if n else 0.0
    G = np.zeros((n, m))
    pivots: list[int] = []
    traces = [float(d.sum())]
    for j in range(m):
        i = int(np.argmax(d))
        if d[i] <= tol * scale:
            break
        col = kernel(X, X[i : i + 1])[:, 0] - G[:, :j] @ G[i, :j]
        G[:, j] = col / np.sqrt(d[i])
        d -= G[:, j] ** 2
        d[i] = 0.0  # exact: the pivot is now represented exactly
        np.maximum(d, 0.0, out=d)
        pivots.append(i)
        traces.append(float(d.sum()))
    if not pivots:
        raise ValueError("the kernel diagonal is zero: no features can be built")
    P = np.array(pivots)
    L = G[P, : P.size]
    norm = scipy.linalg.solve_triangular(L, np.eye(P.size), lower=True).T
    return _single(X[P].copy(), P, norm, residual_traces=np.array(traces))


def _nystrom_error(K_nV: np.ndarray, V: np.ndarray, E: np.ndarray, S_rows: np.ndarray) -> float:
    """Relative error ``‖K_{:,V} − K̃_{:,V}‖_F / ‖K_{:,V}‖_F`` of the Nyström approximation on
    the columns E = K[:, S] (``S_rows``: positions of S among the pool rows)."""
    Phi = E @ inverse_sqrt(E[S_rows])
    R = K_nV - Phi @ Phi[V].T
    return float(np.sqrt(np.einsum("ij,ij->", R, R) / np.einsum("ij,ij->", K_nV, K_nV)))


def _mixture(errors: np.ndarray, mixture: str, eta: float) -> np.ndarray:
    if mixture == "uniform":
        return np.full(errors.size, 1.0 / errors.size)
    w = np.exp(-eta * (errors - errors.min()))  # shift: same weights, no underflow
    return w / w.sum()


def _groups_choice(
    X: np.ndarray,
    groups_idx: list[np.ndarray],
    kernel: KernelFn,
    weights: np.ndarray,
    **info,
) -> LandmarkChoice:
    idx = np.concatenate(groups_idx)
    bounds = np.cumsum([0] + [g.size for g in groups_idx])
    groups = [np.arange(bounds[r], bounds[r + 1]) for r in range(len(groups_idx))]
    norms = [inverse_sqrt(kernel(X[g], X[g])) for g in groups_idx]
    return LandmarkChoice(X[idx].copy(), idx, groups, weights, norms, info)


def ensemble_landmarks(
    X: np.ndarray,
    m: int,
    kernel: KernelFn,
    rng: np.random.RandomState,
    *,
    n_subsets: int,
    mixture: str = "uniform",
    eta: float = DEFAULT_ETA,
) -> LandmarkChoice:
    """Ensemble Nyström (Kumar et al. 2009; Sheng §4.3.1): ``K̃ = Σ_r μ_r K̃_r``.

    ``p = n_subsets`` disjoint subsets of m pool points each (m·p drawn uniformly without
    replacement), one standard Nyström approximation ``K̃_r`` per subset. Mixture weights
    ``μ_r = 1/p`` (``"uniform"``) or ``exp(−η ε̂_r)/Z`` (``"exponential"``), where ε̂_r is the
    relative Frobenius error of ``K̃_r`` on the columns of a further m pool points V (disjoint
    from the subsets, as in the thesis' "additional set of m columns").
    """
    n = X.shape[0]
    extra = m if mixture == "exponential" else 0
    draw = rng.choice(n, size=m * n_subsets + extra, replace=False)
    subsets = [np.sort(draw[r * m : (r + 1) * m]) for r in range(n_subsets)]
    info: dict = {}
    if mixture == "exponential":
        V = np.sort(draw[m * n_subsets :])
        K_nV = kernel(X, X[V])
        errors = np.array([_nystrom_error(K_nV, V, kernel(X, X[S]), S) for S in subsets])
        info = {"validation_indices": V, "validation_errors": errors}
        weights = _mixture(errors, mixture, eta)
    else:
        weights = _mixture(np.zeros(n_subsets), mixture, eta)
    return _groups_choice(X, subsets, kernel, weights, **info)


def boost_nystrom(
    X: np.ndarray,
    m: int,
    kernel: KernelFn,
    rng: np.random.RandomState,
    *,
    n_subsets: int,
    block_size: int | None = None,
    mixture: str = "exponential",
    eta: float = DEFAULT_ETA,
) -> LandmarkChoice:
    """BoostNyström (Sheng §4.3.2, algorithms 7–9), T = p = ``n_subsets`` iterations.

    1. V: m pool points drawn uniformly (the validation columns; never sampled afterwards).
       P₁ uniform over the other points; S empty.
    2. Iteration t = 1 … T: draw m(p − t + 1) columns without replacement from P_t, cut them
       into blocks of d = ``block_size`` columns, compute each block's standard Nyström
       approximation and its relative Frobenius error ε on the columns V,
       ``‖K_{:,V} − K̃_{:,V}‖_F/‖K_{:,V}‖_F``. The best blocks (ascending ε) holding m columns
       form the t-th subset S_t of S.
    3. If t < T (algorithm 8): ratio = ε_avg / ε_min (mean ε of all blocks / of the chosen
       blocks); the columns of the next-best blocks holding m columns get their probability
       multiplied by the ratio; the chosen columns get probability 0; renormalise.
    4. After T iterations (algorithm 9): Ensemble Nyström on S_1 … S_p with
       ``μ_j = exp(−η ε̂_j)/Z``, ε̂_j the error of S_j's Nyström approximation on V.

    Choices where the thesis is silent: d defaults to ``max(1, m // 10)`` (the thesis gives d
    only in a figure the text extraction lost); when d does not divide the number of sampled
    columns they are cut into near-equal blocks (``numpy.array_split``) and the last chosen
    block is truncated so that S_t has exactly m columns; ε is relative (in [0, 1]), so the
    default η = 100 equals η = 1 on the thesis' percent errors; columns sampled but not chosen
    (and the columns of a truncated block that did not make it into S_t) keep their probability
    — raised for the next-best blocks — and can be drawn again; the
    rank k of each W is its numerical rank (eigenvalues above 1e-10 × the largest), the thesis'
    "rank of W". Needs n ≥ m(p + 1).
    """
    n = X.shape[0]
    p = n_subsets
    if n < m * (p + 1):
        raise ValueError(f"BoostNyström needs n ≥ m(p + 1) = {m * (p + 1)} points, got {n}")
    d = max(1, m // 10) if block_size is None else int(block_size)
    V = np.sort(rng.choice(n, size=m, replace=False))
    K_nV = kernel(X, X[V])
    prob = np.ones(n)
    prob[V] = 0.0
    chosen: list[np.ndarray] = []
    for t in range(1, p + 1):
        count = m * (p - t + 1)
        cols = rng.choice(n, size=count, replace=False, p=prob / prob.sum())
        blocks = np.array_split(cols, int(np.ceil(count / d)))
        errors = np.array([_nystrom_error(K_nV, V, kernel(X, X[b]), b) for b in blocks])
        order = np.argsort(errors, kind="stable")
        sizes = np.cumsum([blocks[r].size for r in order])
        n_best = int(np.searchsorted(sizes, m)) + 1  # blocks needed to hold m columns
        S_t = np.concatenate([blocks[r] for r in order[:n_best]])[:m]
        chosen.append(np.sort(S_t))
        if t < p:
            ratio = errors.mean() / max(errors[order[:n_best]].mean(), np.finfo(float).tiny)
            next_sizes = sizes[n_best:] - sizes[n_best - 1]
            n_next = min(int(np.searchsorted(next_sizes, m)) + 1, order.size - n_best)
            for r in order[n_best : n_best + n_next]:
                prob[blocks[r]] *= ratio
            prob[S_t] = 0.0
    final = np.array([_nystrom_error(K_nV, V, kernel(X, X[S]), S) for S in chosen])
    weights = _mixture(final, mixture, eta)
    return _groups_choice(
        X, chosen, kernel, weights, validation_indices=V, validation_errors=final, block_size=d
    )


__all__ = [
    "DEFAULT_ETA",
    "EIGEN_CUTOFF",
    "IC_TOLERANCE",
    "KMEANS_FULL_MAX",
    "LANDMARK_RULES",
    "MIXTURES",
    "KernelFn",
    "LandmarkChoice",
    "boost_nystrom",
    "ensemble_landmarks",
    "incomplete_cholesky",
    "inverse_sqrt",
    "kmeans_landmarks",
    "paired_kernel",
    "uniform_landmarks",
]
