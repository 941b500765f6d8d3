"""Kernel functions: vector kernels and graph (Laplacian) kernels over a pool.

Conventions follow docs/mathematics.md §1–§2:

* RBF: ``k(x, z) = exp(-||x - z||² / (2σ²))`` (Paskov eq. 2.6). Yajima's ``t`` is ``σ√2``,
  scikit-learn's ``gamma`` is ``1 / (2σ²)``.
* Graph kernels (Yajima §3.1) are defined on the pool only: a symmetric k-nearest-neighbour
  graph ``B``, its Laplacian ``L = D - B`` and normalised Laplacian
  ``L̃ = D^{-1/2} L D^{-1/2}``. For the two *regularized* kernels the inverse
  ``K⁻¹ = I + tL`` (or ``I + tL̃``) is sparse and is returned alongside ``K``.
* The scale ``t`` of the three Laplacian kernels is any ``t > 0`` (default 1, Yajima's); the
  von Neumann kernel ``(I − tB)⁻¹`` exists only for ``0 < t < 1/ρ(B)``, and ``ρ(B)`` is at
  least the graph's smallest degree (≥ k), so its default is data-adaptive:
  ``t = VON_NEUMANN_FRACTION / ρ(B)`` (:func:`default_graph_t`).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg

from rlscore.core.conventions.input_validation import check_matrix, check_positive
from rlscore.core.graph.components import component_bridges, nearest_neighbors

VECTOR_KERNELS = ("linear", "polynomial", "rbf")
GRAPH_KERNELS = ("regularized", "normalized_regularized", "diffusion", "von_neumann")
#: Smallest RBF width accepted: ``1/(2σ²)`` must stay a finite float64 (σ > ~1e-154).
SIGMA_MIN = 1e-150
#: ``"graph"`` is shorthand for Yajima's default, the normalised regularized kernel.
GRAPH_ALIASES = {"graph": "normalized_regularized"}
#: the default scale t of the three Laplacian graph kernels (Yajima's experiments)
LAPLACIAN_DEFAULT_T = 1.0
#: the von Neumann kernel's default t, as a fraction of its upper bound 1/ρ(B): the weight of
#: walks of length s then falls like 0.5^s relative to their number, so the kernel is dominated
#: by short walks yet stays far from the singular ``I − B/ρ(B)``
VON_NEUMANN_FRACTION = 0.5


#: float64 elements per block of :func:`squared_distances_from_norms` (512 KiB, in cache)
_NORM_BLOCK = 1 << 16
#: rows per block of :func:`_symmetric_rbf` (fastest of 32–256 at n = 283–1400, measured)
_TRIANGLE_ROWS = 128


def _pair(X, Z):
    X = check_matrix(X, "X")
    Z = X if Z is None else check_matrix(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Z has {Z.shape[1]}: both must have the same columns"
        )
    return X, Z


def squared_norms(X: np.ndarray) -> np.ndarray:
    """``‖x‖²`` of every row (what :func:`squared_distances` adds; keep it for many calls)."""
    return (X * X).sum(1)


def squared_distances(X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """Pairwise squared Euclidean distances, clipped at 0 against rounding."""
    X, Z = _pair(X, Z)
    d = squared_distances_from_norms(X, Z, squared_norms(X), squared_norms(Z))
    if Z is X:
        # exact zeros on the diagonal keep K_ii = 1 for RBF
        np.fill_diagonal(d, 0.0)
    return d


def squared_distances_from_norms(
    X: np.ndarray, Z: np.ndarray, x_norms: np.ndarray, z_norms: np.ndarray
) -> np.ndarray:
    """:func:`squared_distances` of checked float64 points with their :func:`squared_norms`
    given (no validation, no diagonal fix): a pool's norms are computed once, not per call."""
    d = X @ Z.T
    d *= -2.0
    # ‖x‖² + ‖z‖² − 2x·z added in place, a block of rows at a time (the same rounding as
    # the whole expression, without three more n × b temporaries)
    rows = max(1, _NORM_BLOCK // max(1, d.shape[1]))
    for a in range(0, d.shape[0], rows):
        block = d[a : a + rows]
        np.add(block, np.add(x_norms[a : a + rows, None], z_norms[None, :]), out=block)
    np.maximum(d, 0.0, out=d)
    return d


def linear_kernel(X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """Linear kernel ``x·z``."""
    X, Z = _pair(X, Z)
    return checked_kernel_matrix(X, Z, kernel="linear")


def polynomial_kernel(X: np.ndarray, Z: np.ndarray | None = None, degree: int = 2) -> np.ndarray:
    """Inhomogeneous polynomial kernel ``(1 + x·z)^p``."""
    if int(degree) != degree or degree < 1:
        raise ValueError(f"degree must be a positive integer, got {degree!r}")
    X, Z = _pair(X, Z)
    return checked_kernel_matrix(X, Z, kernel="polynomial", degree=degree)


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
            f"is near the median distance between points{hint}; the estimators compute it "
            'with sigma="median"'
        )
    return sigma


def rbf_kernel(X: np.ndarray, Z: np.ndarray | None = None, sigma: float = 1.0) -> np.ndarray:
    """Gaussian kernel ``exp(-||x - z||² / (2σ²))`` (Paskov eq. 2.6)."""
    X, Z = _pair(X, Z)
    sigma = check_sigma(sigma, X)
    if Z is X:
        return _symmetric_rbf(X, sigma)
    return checked_kernel_matrix(X, Z, kernel="rbf", sigma=sigma)


def _symmetric_rbf(X: np.ndarray, sigma: float) -> np.ndarray:
    """The RBF kernel of checked points with themselves: the upper triangle entry by entry
    as :func:`squared_distances` and :func:`checked_kernel_matrix` compute it, the lower one
    its mirror. ``numpy.exp`` is most of the kernel's time; this runs it over half the
    entries, a block of rows at a time."""
    norms = squared_norms(X)
    K = X @ X.T
    scale = -1.0 / (2.0 * sigma * sigma)
    n = K.shape[0]
    for a in range(0, n, _TRIANGLE_ROWS):
        b = min(n, a + _TRIANGLE_ROWS)
        upper = K[a:b, a:]  # rows a..b from the diagonal on
        upper *= -2.0
        np.add(upper, np.add(norms[a:b, None], norms[None, a:]), out=upper)
        np.maximum(upper, 0.0, out=upper)
        # exact zeros on the diagonal keep K_ii = 1
        upper[np.arange(b - a), np.arange(b - a)] = 0.0
        upper *= scale
        np.exp(upper, out=upper)
        K[b:, a:b] = upper[:, b - a :].T
    return K


def checked_kernel_matrix(
    X: np.ndarray,
    Z: np.ndarray,
    *,
    kernel: str,
    sigma: float = 1.0,
    degree: int = 2,
    norms: tuple[np.ndarray, np.ndarray] | None = None,
    squared: np.ndarray | None = None,
) -> np.ndarray:
    """The arithmetic of :func:`kernel_matrix` for inputs already checked (float64 finite
    points with the same columns, a valid σ or degree): no validation per call, for a pool
    whose points are checked once.

    Parameters
    ----------
    X, Z : ndarray (n, d), (b, d)
    kernel : str
        ``"linear"``, ``"polynomial"`` or ``"rbf"``.
    sigma, degree
        The RBF width and the polynomial degree.
    norms : (ndarray (n,), ndarray (b,)), optional
        RBF: the rows' :func:`squared_norms`, when the caller keeps them.
    squared : ndarray (n, b), optional
        RBF: the squared distances themselves (overwritten).

    Returns
    -------
    ndarray (n, b)
    """
    if kernel == "linear":
        return X @ Z.T
    if kernel == "polynomial":
        return (1.0 + X @ Z.T) ** int(degree)
    if squared is None:
        x_norms, z_norms = (squared_norms(X), squared_norms(Z)) if norms is None else norms
        squared = squared_distances_from_norms(X, Z, x_norms, z_norms)
    squared *= -1.0 / (2.0 * sigma * sigma)
    return np.exp(squared, out=squared)


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

    An edge joins ``i`` and ``j`` when either is among the other's ``k`` nearest neighbours
    (all ``n − 1`` others on a pool of ``n ≤ k`` points: the complete graph).
    Weights are ``b_ij = 1`` (``"binary"``) or ``exp(-||x_i - x_j||² / heat_width²)``
    (``"heat"``). The search is exact (:func:`~rlscore.core.graph.components.nearest_neighbors`:
    a kd-tree in up to 4 dimensions, scikit-learn's blocked brute force above).

    ``connect=True`` adds, when the graph has several connected components, the ``c − 1``
    bridges of a minimum spanning tree over the components (each a closest pair of points of
    two components, weighted like any edge;
    :func:`~rlscore.core.graph.components.component_bridges`).
    The default ``False`` is the graph as Yajima defines it; the graph kernels
    (:func:`graph_kernel`) connect by default.
    """
    X = check_matrix(X, "X", min_samples=2)
    n = X.shape[0]
    if isinstance(k, bool) or not isinstance(k, Real) or int(k) != k or k < 1:
        raise ValueError(f"graph_k must be an integer ≥ 1, got {k!r}")
    # a pool of n ≤ k points has only n − 1 other points: each is a neighbour of every
    # point (the complete graph), which is the k-nearest-neighbour graph's limit
    k = min(int(k), n - 1)
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"graph metric must be 'euclidean' or 'cosine', got {metric!r}")
    if weights not in ("binary", "heat"):
        raise ValueError(f"graph weights must be 'binary' or 'heat', got {weights!r}")
    search = nearest_neighbors(X, metric)
    _, idx = search.kneighbors(X, n_neighbors=k + 1)
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


def spectral_radius(B: sp.spmatrix) -> float:
    """``ρ(B)``, the largest eigenvalue of a symmetric non-negative graph ``B``
    (Perron–Frobenius: also its largest in absolute value)."""
    B = sp.csr_matrix(B, dtype=np.float64)
    if B.shape[0] <= 64:
        return float(np.linalg.eigvalsh(B.toarray())[-1])
    top = scipy.sparse.linalg.eigsh(B, k=1, which="LA", return_eigenvectors=False, tol=1e-10)
    return float(top[0])


def default_graph_t(kind: str, B: sp.spmatrix | None = None) -> float:
    """The default scale t of graph kernel ``kind`` on the graph ``B``.

    :data:`LAPLACIAN_DEFAULT_T` for the three Laplacian kernels; for the von Neumann kernel
    ``(I − tB)⁻¹``, which needs ``t < 1/ρ(B)``, ``VON_NEUMANN_FRACTION / ρ(B)`` (``B``
    required).
    """
    kind = GRAPH_ALIASES.get(kind, kind)
    if kind != "von_neumann":
        return LAPLACIAN_DEFAULT_T
    if B is None:
        raise ValueError("the von Neumann kernel's default t depends on the graph: pass B")
    return VON_NEUMANN_FRACTION / spectral_radius(B)


def check_graph_t(t: float | None, kind: str, B: sp.spmatrix) -> float:
    """The scale t of graph kernel ``kind`` on ``B``: ``t`` itself, checked, or the default
    (:func:`default_graph_t`) for None.

    Raises
    ------
    ValueError
        ``t`` ≤ 0, or, for the von Neumann kernel, ``t ≥ 1/ρ(B)`` (the message gives the bound
        on this graph and the default).
    """
    if t is None:
        return default_graph_t(kind, B)
    t = check_positive(t, "graph_t")
    if GRAPH_ALIASES.get(kind, kind) == "von_neumann":
        rho = spectral_radius(B)
        if t * rho >= 1.0:
            raise ValueError(
                f"the von Neumann kernel (I − tB)⁻¹ needs 0 < t < 1/ρ(B) = {1.0 / rho:.4g} on "
                f"this pool's graph, got t = {t:g}; leave t at its default "
                f"({VON_NEUMANN_FRACTION / rho:.4g} here, half the bound) or choose a smaller one"
            )
    return t


@dataclass
class GraphKernel:
    """A graph kernel over a pool, with its sparse inverse where one is known."""

    K: np.ndarray
    K_inv: sp.csr_matrix | None
    kind: str
    B: sp.csr_matrix
    L: sp.csr_matrix
    #: the scale in use (the default of :func:`default_graph_t` when none was given)
    t: float = LAPLACIAN_DEFAULT_T


def graph_kernel(
    X: np.ndarray,
    kind: str = "normalized_regularized",
    k: int = 6,
    metric: str = "euclidean",
    weights: str = "binary",
    heat_width: float = 1.0,
    t: float | None = None,
    connect: bool = True,
) -> GraphKernel:
    """Graph kernel over the pool ``X`` (docs/mathematics.md §2).

    Parameters
    ----------
    kind
        ``"regularized"`` ``(I + tL)⁻¹``; ``"normalized_regularized"`` ``(I + tL̃)⁻¹``
        (Yajima's experiments: k = 6, t = 1); ``"diffusion"`` ``exp(-(t/2) L̃)``;
        ``"von_neumann"`` ``(I - tB)⁻¹`` with ``0 < t < 1/ρ(B)``.
    k, metric, weights, heat_width
        The kNN graph (:func:`knn_graph`).
    t
        The kernel's scale parameter (``s`` for diffusion); None: its default
        (:func:`default_graph_t`: 1, or half of 1/ρ(B) for von Neumann).
    connect
        Join the graph's connected components by their closest pairs first (default; see
        :func:`knn_graph`). A disconnected graph makes the kernel block diagonal: labels in
        one component say nothing about another.
    """
    kind = GRAPH_ALIASES.get(kind, kind)
    if kind not in GRAPH_KERNELS:
        raise ValueError(f"unknown graph kernel {kind!r}: choose one of {GRAPH_KERNELS}")
    B = knn_graph(X, k=k, metric=metric, weights=weights, heat_width=heat_width, connect=connect)
    t = check_graph_t(t, kind, B)
    n = B.shape[0]
    eye = sp.identity(n, format="csr")
    normalized = kind in ("normalized_regularized", "diffusion")
    L = laplacian(B, normalized=normalized)
    K_inv = None
    if kind in ("regularized", "normalized_regularized"):
        K_inv = sp.csr_matrix(eye + t * L)
        K = np.linalg.inv(K_inv.toarray())
    elif kind == "diffusion":
        # L is symmetric: exp(-(t/2) L) by its eigendecomposition (eigenvalues in [0, 2]) is
        # exact and cannot overflow, unlike a general matrix exponential
        w, V = np.linalg.eigh(L.toarray())
        K = (V * np.exp(-(t / 2.0) * w)) @ V.T
    else:
        K = np.linalg.inv((eye - t * B).toarray())
    K = 0.5 * (K + K.T)
    return GraphKernel(K=K, K_inv=K_inv, kind=kind, B=B, L=L, t=t)


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
    graph_t: float | None = None,
    graph_metric: str = "euclidean",
    graph_connect: bool = True,
) -> np.ndarray:
    """Dense kernel matrix over a pool for any kernel name, vector or graph (``graph_t``
    None: the graph kernel's default scale, :func:`default_graph_t`)."""
    if is_graph_kernel(kernel):
        return graph_kernel(
            X, kind=kernel, k=graph_k, metric=graph_metric, t=graph_t, connect=graph_connect
        ).K
    return kernel_matrix(X, kernel=kernel, sigma=sigma, degree=degree)
