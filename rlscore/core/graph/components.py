"""Connected components of a kNN graph, and the bridges that join them.

A symmetric kNN graph (docs/mathematics.md §2) often falls apart into a large component and a few
small
stray ones (a tight cluster of near-duplicates, an outlying group). A graph kernel
``(I + tL̃)⁻¹`` is then block diagonal: no label ever informs a stray component, its points
keep the largest prior variance, and A-optimal selection spends queries there (measured on
digits {1, 2, 3}: a 16-point component drew 23–50 of 150 A-optimal queries).

:func:`component_bridges` joins the components by a minimum spanning tree over them, whose
edge between two components is their closest pair of points (Borůvka's rounds: every
component proposes its closest pair to a point outside it, and a union-find keeps the
proposals that join different components, shortest first). Each bridge is therefore a
true nearest cross-component pair, and ``c`` components gain exactly ``c − 1`` bridges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

if TYPE_CHECKING:
    from sklearn.neighbors import NearestNeighbors

__all__ = ["component_bridges", "component_sizes", "nearest_neighbors"]

#: components up to this size find their closest outside point by a (size + 1)-nearest
#: neighbour query on the whole pool (at least one of those neighbours lies outside); larger
#: ones query a search structure built on the points outside them
_SMALL_COMPONENT = 256
#: up to this many features an exact kd-tree beats brute force: measured 2026-11-24 on
#: 20 000 Gaussian points, k = 6, one thread, load ≈ 9 on 2 cores: d = 6 tree 2.5 s, brute
#: 4.8 s; d = 8 tree 7.0 s, brute 3.8 s (d = 3 and 10: benchmarks/aopt_speed.py --large)
_TREE_MAX_FEATURES = 7


def nearest_neighbors(X: np.ndarray, metric: str = "euclidean") -> NearestNeighbors:
    """An exact nearest-neighbour search over ``X`` (kd-tree in few dimensions, else brute).

    Brute force is scikit-learn's blocked distance-GEMM with a running k-smallest
    selection: O(n²d) work but with no tree overhead, which wins from d ≈ 8 on (on data
    without low intrinsic dimension).
    """
    # imported here: vector kernels import this module, only graph kernels need the search
    from sklearn.neighbors import NearestNeighbors

    tree = metric == "euclidean" and X.shape[1] <= _TREE_MAX_FEATURES
    return NearestNeighbors(algorithm="kd_tree" if tree else "brute", metric=metric).fit(X)


def component_sizes(B: sp.spmatrix) -> np.ndarray:
    """Sizes of the connected components of the (symmetric) graph ``B``, largest first."""
    _, labels = connected_components(B, directed=False)
    return np.sort(np.bincount(labels))[::-1]


def _closest_outside(X, members, labels, search, metric) -> tuple[float, int, int]:
    """The closest pair ``(distance, i, j)`` with ``i`` in ``members`` and ``j`` outside."""
    own = labels[members[0]]
    s = members.size
    if s <= _SMALL_COMPONENT:
        dist, idx = search.kneighbors(X[members], n_neighbors=min(s + 1, X.shape[0]))
        outside = labels[idx] != own
        # the first outside neighbour of each row is that row's nearest outside point
        first = np.argmax(outside, axis=1)
        rows = np.arange(s)
        d = np.where(outside[rows, first], dist[rows, first], np.inf)
        r = int(np.argmin(d))
        return float(d[r]), int(members[r]), int(idx[r, first[r]])
    rest = np.flatnonzero(labels != own)
    dist, idx = nearest_neighbors(X[rest], metric).kneighbors(X[members], n_neighbors=1)
    r = int(np.argmin(dist[:, 0]))
    return float(dist[r, 0]), int(members[r]), int(rest[idx[r, 0]])


def _find(parent: np.ndarray, a: int) -> int:
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


def component_bridges(
    X: np.ndarray,
    B: sp.spmatrix,
    metric: str = "euclidean",
    search: NearestNeighbors | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bridges joining the connected components of ``B`` into one (a component-level MST).

    Parameters
    ----------
    X
        The pool (n, d) the graph was built on.
    B
        Symmetric adjacency (n × n).
    metric
        ``"euclidean"`` or ``"cosine"``: the distance of the kNN graph.
    search
        A fitted :class:`~sklearn.neighbors.NearestNeighbors` over ``X`` to reuse.

    Returns
    -------
    pairs, distances
        ``pairs`` (c − 1, 2) point indices of the bridges and their distances, for the
        ``c`` components of ``B`` (empty when ``B`` is connected).
    """
    n_comp, labels = connected_components(B, directed=False)
    pairs: list[tuple[int, int]] = []
    dists: list[float] = []
    if n_comp > 1 and search is None:
        search = nearest_neighbors(X, metric)
    while n_comp > 1:
        sizes = np.bincount(labels)
        # a component holding most points needs no proposal of its own: every other one
        # proposes, so each round still at least halves the number of components
        giant = int(np.argmax(sizes)) if sizes.max() * 2 > labels.size else -1
        order = np.argsort(labels, kind="stable")
        groups = np.split(order, np.cumsum(sizes)[:-1])
        proposals = sorted(
            _closest_outside(X, members, labels, search, metric)
            for c, members in enumerate(groups)
            if c != giant
        )
        parent = np.arange(n_comp)
        for d, i, j in proposals:
            a, b = _find(parent, labels[i]), _find(parent, labels[j])
            if a != b:
                parent[a] = b
                pairs.append((i, j))
                dists.append(d)
        roots = np.array([_find(parent, c) for c in range(n_comp)])
        n_comp, labels = _relabel(roots[labels])
    return np.array(pairs, dtype=np.int64).reshape(-1, 2), np.array(dists, dtype=np.float64)


def _relabel(labels: np.ndarray) -> tuple[int, np.ndarray]:
    uniq, new = np.unique(labels, return_inverse=True)
    return uniq.size, new
