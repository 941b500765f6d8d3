"""Kernel functions: vector kernels and graph (Laplacian) kernels over a pool.

Conventions follow SPEC §1–§2:

* RBF: ``k(x, z) = exp(-||x - z||² / (2σ²))`` (Paskov eq. 2.6). Yajima's ``t`` is ``σ√2``,
  scikit-learn's ``gamma`` is ``1 / (2σ²)``.
* Graph kernels (Yajima §3.1) are defined on the pool only: a symmetric k-nearest-neighbour
  graph ``B``, its Laplacian ``L = D - B`` and normalised Laplacian
  ``L̃ = D^{-1/2} L D^{-1/2}``. For the two *regularized* kernels the inverse
  ``K⁻¹ = I + tL`` (or ``I + tL̃``) is sparse and is returned alongside ``K``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from rlscore.core.graph_components import component_bridges, nearest_neighbors
from rlscore.core.validation import check_matrix, check_positive

VECTOR_KERNELS = ("linear", "polynomial", "rbf")
GRAPH_KERNELS = ("regularized", "normalized_regularized", "diffusion", "von_neumann")
#: Smallest RBF width accepted: ``1/(2σ²)`` must stay a finite float64 (σ > ~1e-154).
SIGMA_MIN = 1e-150
#: ``"graph"`` is shorthand for Yajima's default, the normalised regularized kernel.
GRAPH_ALIASES = {"graph": "normalized_regularized"}


def _pair(X, Z):
    X = check_matrix(X, "X")
    Z = X if Z is None else check_matrix(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Z has {Z.shape[1]}: both must have the same columns"
        )
    return X, Z


def squared_distances(X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """Pairwise squared Euclidean distances, clipped at 0 against rounding."""
    X, Z = _pair(X, Z)
    d = (X * X).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2.0 * (X @ Z.T)
    np.maximum(d, 0.0, out=d)
    if Z is X:
        # exact zeros on the diagonal keep K_ii = 1 for RBF
        np.fill_diagonal(d, 0.0)
    return d


def linear_kernel(X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """Linear kernel ``x·z``."""
    X, Z = _pair(X, Z)
    return X @ Z.T


def polynomial_kernel(X: np.ndarray, Z: np.ndarray | None = None, degree: int = 2) -> np.ndarray:
    """Inhomogeneous polynomial kernel ``(1 + x·z)^p``."""
    if int(degree) != degree or degree < 1:
        raise ValueError(f"degree must be a positive integer, got {degree!r}")
    X, Z = _pair(X, Z)
    return (1.0 + X @ Z.T) ** int(degree)


def check_sigma(sigma, X=None) -> float:
    """Return the RBF width σ as a float, or raise a ``ValueError`` naming a usable range.

    σ must be > 0 and at least :data:`SIGMA_MIN`: below it ``1/(2σ²)`` overflows (σ² underflows
    near 1e-162) and every kernel value becomes NaN or a division by zero.

    Parameters
    ----------
    sigma
        The width.
    X
        Optional (n, d) points: the message then suggests their median pairwise distance.
    """
    sigma = check_positive(sigma, "sigma")
    if sigma < SIGMA_MIN:
        hint = ""
        if X is not None:
            # a few hundred points give the median distance to a few percent
            Xs = np.asarray(X, dtype=np.float64)[:500]
            d = np.sqrt(squared_distances(Xs)[np.triu_indices(Xs.shape[0], 1)])
            if d.size and np.median(d) > 0:
                hint = f" (about {np.median(d):.3g} here)"
        raise ValueError(
            f"sigma = {sigma:g} is too small: σ² underflows, use σ ≥ {SIGMA_MIN:g}; a useful σ "
            f"is near the median distance between points{hint}"
        )
    return sigma


def rbf_kernel(X: np.ndarray, Z: np.ndarray | None = None, sigma: float = 1.0) -> np.ndarray:
    """Gaussian kernel ``exp(-||x - z||² / (2σ²))`` (Paskov eq. 2.6)."""
    X, Z = _pair(X, Z)
    sigma = check_sigma(sigma, X)
    d = squared_distances(X, None if Z is X else Z)
    d *= -1.0 / (2.0 * sigma * sigma)
    return np.exp(d, out=d)


def kernel_matrix(
    X: np.ndarray,
    Z: np.ndarray | None = None,
    *,
    kernel: str = "rbf",
    sigma: float = 1.0,
    degree: int = 2,
) -> np.ndarray:
    """Kernel matrix ``k(X, Z)`` for a vector kernel (``linear``, ``polynomial``, ``rbf``).

    Graph kernels exist only on a pool (use :func:`graph_kernel` or :func:`pool_kernel`).
    """
    if kernel == "linear":
        return linear_kernel(X, Z)
    if kernel == "polynomial":
        return polynomial_kernel(X, Z, degree=degree)
    if kernel == "rbf":
        return rbf_kernel(X, Z, sigma=sigma)
    if kernel in GRAPH_KERNELS or kernel in GRAPH_ALIASES:
        raise ValueError(
            f"kernel {kernel!r} is a graph kernel: it is defined on a pool only, "
            "use graph_kernel(X_pool) or pool_kernel(X_pool, kernel)"
        )
    raise ValueError(
        f"unknown kernel {kernel!r}: choose one of {VECTOR_KERNELS + GRAPH_KERNELS + ('graph',)}"
    )


def knn_graph(
    X: np.ndarray,
    k: int = 6,
    metric: str = "euclidean",
    weights: str = "binary",
    heat_width: float = 1.0,
    connect: bool = False,
) -> sp.csr_matrix:
    """Symmetric k-nearest-neighbour graph (Yajima §3.1).

    An edge joins ``i`` and ``j`` when either is among the other's ``k`` nearest neighbours.
    Weights are ``b_ij = 1`` (``"binary"``) or ``exp(-||x_i - x_j||² / heat_width²)``
    (``"heat"``). The search is exact (:func:`~rlscore.core.graph_components.nearest_neighbors`:
    a kd-tree in up to 4 dimensions, scikit-learn's blocked brute force above).

    ``connect=True`` adds, when the graph has several connected components, the ``c − 1``
    bridges of a minimum spanning tree over the components (each a closest pair of points of
    two components, weighted like any edge;
    :func:`~rlscore.core.graph_components.component_bridges`).
    The default ``False`` is the graph as Yajima defines it; the graph kernels
    (:func:`graph_kernel`) connect by default.
    """
    X = check_matrix(X, "X", min_samples=2)
    n = X.shape[0]
    if int(k) != k or not 1 <= k < n:
        raise ValueError(f"graph_k must be an integer between 1 and n - 1 = {n - 1}, got {k!r}")
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"graph metric must be 'euclidean' or 'cosine', got {metric!r}")
    if weights not in ("binary", "heat"):
        raise ValueError(f"graph weights must be 'binary' or 'heat', got {weights!r}")
    search = nearest_neighbors(X, metric)
    _, idx = search.kneighbors(X, n_neighbors=int(k) + 1)
    k = int(k)
    # drop each point itself; with duplicate points it need not come first in its own row
    not_self = idx != np.arange(n)[:, None]
    order = np.argsort(~not_self, axis=1, kind="stable")[:, :k]
    cols = np.take_along_axis(idx, order, axis=1).ravel()
    rows = np.repeat(np.arange(n), k)
    A = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    if connect:
        pairs, _ = component_bridges(X, A, metric=metric, search=search)
        if pairs.size:
            A = A + sp.csr_matrix(
                (np.ones(pairs.shape[0]), (pairs[:, 0], pairs[:, 1])), shape=(n, n)
            )
    A = ((A + A.T) > 0).astype(np.float64).tocsr()
    if weights == "heat":
        heat_width = check_positive(heat_width, "heat_width")
        coo = A.tocoo()
        d2 = ((X[coo.row] - X[coo.col]) ** 2).sum(1)
        A = sp.csr_matrix((np.exp(-d2 / heat_width**2), (coo.row, coo.col)), shape=(n, n))
    A.sort_indices()
    return A


def laplacian(B: sp.spmatrix, normalized: bool = False) -> sp.csr_matrix:
    """Graph Laplacian ``L = D - B`` or its normalised form ``D^{-1/2} L D^{-1/2}``."""
    B = sp.csr_matrix(B, dtype=np.float64)
    deg = np.asarray(B.sum(axis=1)).ravel()
    L = sp.diags(deg) - B
    if not normalized:
        return sp.csr_matrix(L)
    if np.any(deg <= 0):
        raise ValueError("the graph has isolated points: the normalised Laplacian is undefined")
    s = sp.diags(1.0 / np.sqrt(deg))
    return sp.csr_matrix(s @ L @ s)


@dataclass
class GraphKernel:
    """A graph kernel over a pool, with its sparse inverse where one is known."""

    K: np.ndarray
    K_inv: sp.csr_matrix | None
    kind: str
    B: sp.csr_matrix
    L: sp.csr_matrix


def graph_kernel(
    X: np.ndarray,
    kind: str = "normalized_regularized",
    k: int = 6,
    metric: str = "euclidean",
    weights: str = "binary",
    heat_width: float = 1.0,
    t: float = 1.0,
    connect: bool = True,
) -> GraphKernel:
    """Graph kernel over the pool ``X`` (SPEC §2).

    Parameters
    ----------
    kind
        ``"regularized"`` ``(I + tL)⁻¹``; ``"normalized_regularized"`` ``(I + tL̃)⁻¹``
        (Yajima's experiments: k = 6, t = 1); ``"diffusion"`` ``exp(-(t/2) L̃)``;
        ``"von_neumann"`` ``(I - tB)⁻¹`` with ``t < 1/ρ(B)``.
    k, metric, weights, heat_width
        The kNN graph (:func:`knn_graph`).
    t
        The kernel's scale parameter (``s`` for diffusion).
    connect
        Join the graph's connected components by their closest pairs first (default; see
        :func:`knn_graph`). A disconnected graph makes the kernel block diagonal: labels in
        one component say nothing about another.
    """
    kind = GRAPH_ALIASES.get(kind, kind)
    if kind not in GRAPH_KERNELS:
        raise ValueError(f"unknown graph kernel {kind!r}: choose one of {GRAPH_KERNELS}")
    t = check_positive(t, "graph_t")
    B = knn_graph(X, k=k, metric=metric, weights=weights, heat_width=heat_width, connect=connect)
    n = B.shape[0]
    eye = sp.identity(n, format="csr")
    normalized = kind in ("normalized_regularized", "diffusion")
    L = laplacian(B, normalized=normalized)
    K_inv = None
    if kind in ("regularized", "normalized_regularized"):
        K_inv = sp.csr_matrix(eye + t * L)
        K = np.linalg.inv(K_inv.toarray())
    elif kind == "diffusion":
        K = scipy.linalg.expm(-(t / 2.0) * L.toarray())
    else:
        rho = float(np.max(np.abs(np.linalg.eigvalsh(B.toarray()))))
        if t * rho >= 1.0:
            raise ValueError(
                f"von Neumann kernel needs t < 1/ρ(B) = {1.0 / rho:.4g}, got t = {t:g}"
            )
        K = np.linalg.inv((eye - t * B).toarray())
    K = 0.5 * (K + K.T)
    return GraphKernel(K=K, K_inv=K_inv, kind=kind, B=B, L=L)


def is_graph_kernel(kernel: str) -> bool:
    """Whether ``kernel`` names a graph kernel (defined on a pool only)."""
    return kernel in GRAPH_KERNELS or kernel in GRAPH_ALIASES


def pool_kernel(
    X: np.ndarray,
    kernel: str = "rbf",
    *,
    sigma: float = 1.0,
    degree: int = 2,
    graph_k: int = 6,
    graph_t: float = 1.0,
    graph_metric: str = "euclidean",
    graph_connect: bool = True,
) -> np.ndarray:
    """Dense kernel matrix over a pool for any kernel name, vector or graph."""
    if is_graph_kernel(kernel):
        return graph_kernel(
            X, kind=kernel, k=graph_k, metric=graph_metric, t=graph_t, connect=graph_connect
        ).K
    return kernel_matrix(X, kernel=kernel, sigma=sigma, degree=degree)
