"""Kernels against direct per-pair formulas and the graph definitions of docs/mathematics.md §2."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from rlscore.core.kernels.functions import (
    GRAPH_KERNELS,
    graph_kernel,
    kernel_matrix,
    knn_graph,
    laplacian,
    pool_kernel,
)


@pytest.fixture
def X():
    return np.random.default_rng(0).normal(size=(40, 3))


def test_vector_kernels_match_per_pair_formulas(X):
    Z = X[:7] + 0.3
    for i in range(X.shape[0]):
        for j in range(Z.shape[0]):
            x, z = X[i], Z[j]
            assert kernel_matrix(X, Z, kernel="linear")[i, j] == pytest.approx(x @ z)
            assert kernel_matrix(X, Z, kernel="polynomial", degree=3)[i, j] == pytest.approx(
                (1 + x @ z) ** 3
            )
            assert kernel_matrix(X, Z, kernel="rbf", sigma=1.7)[i, j] == pytest.approx(
                np.exp(-np.sum((x - z) ** 2) / (2 * 1.7**2))
            )


def test_rbf_sigma_matches_sklearn_gamma(X):
    sigma = 0.8
    np.testing.assert_allclose(
        kernel_matrix(X, kernel="rbf", sigma=sigma), sk_rbf(X, gamma=1 / (2 * sigma**2))
    )
    assert np.all(np.diag(kernel_matrix(X, kernel="rbf")) == 1.0)


def _brute_knn_graph(X, k):
    n = len(X)
    d = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    near = np.argsort(d, axis=1)[:, :k]
    B = np.zeros((n, n))
    for i in range(n):
        B[i, near[i]] = 1
    return np.maximum(B, B.T)


def test_knn_graph_is_symmetric_either_way_neighbourhood(X):
    B = knn_graph(X, k=4).toarray()
    np.testing.assert_array_equal(B, _brute_knn_graph(X, 4))
    assert (B.sum(1) >= 4).all()


def test_heat_weights_and_cosine_metric(X):
    B = knn_graph(X, k=3, weights="heat", heat_width=2.0).toarray()
    i, j = np.argwhere(B > 0)[0]
    assert B[i, j] == pytest.approx(np.exp(-np.sum((X[i] - X[j]) ** 2) / 4.0))
    Bc = knn_graph(X, k=3, metric="cosine").toarray()
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    np.testing.assert_array_equal(Bc, _brute_knn_graph(Xn, 3))


def test_laplacians(X):
    B = knn_graph(X, k=5)
    D = np.diag(B.toarray().sum(1))
    L = D - B.toarray()
    np.testing.assert_allclose(laplacian(B).toarray(), L)
    Dm = np.diag(1 / np.sqrt(np.diag(D)))
    np.testing.assert_allclose(laplacian(B, normalized=True).toarray(), Dm @ L @ Dm)


@pytest.mark.parametrize("kind", GRAPH_KERNELS)
def test_graph_kernels_match_their_definitions(X, kind):
    t = 0.05 if kind == "von_neumann" else 0.7
    g = graph_kernel(X, kind=kind, k=6, t=t)
    B = _brute_knn_graph(X, 6)
    D = np.diag(B.sum(1))
    L = D - B
    Dm = np.diag(1 / np.sqrt(np.diag(D)))
    Ln = Dm @ L @ Dm
    eye = np.eye(len(X))
    expected = {
        "regularized": np.linalg.inv(eye + t * L),
        "normalized_regularized": np.linalg.inv(eye + t * Ln),
        "diffusion": scipy.linalg.expm(-(t / 2) * Ln),
        "von_neumann": np.linalg.inv(eye - t * B),
    }[kind]
    np.testing.assert_allclose(g.K, expected, atol=1e-10)
    if kind in ("regularized", "normalized_regularized"):
        np.testing.assert_allclose(g.K_inv.toarray() @ g.K, eye, atol=1e-10)
    else:
        assert g.K_inv is None


def test_pool_kernel_dispatch(X):
    np.testing.assert_allclose(pool_kernel(X, "graph"), graph_kernel(X).K)
    np.testing.assert_allclose(pool_kernel(X, "rbf", sigma=2.0), kernel_matrix(X, sigma=2.0))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda X: kernel_matrix(X, kernel="rbf", sigma=0), "sigma must be > 0"),
        (lambda X: kernel_matrix(X, kernel="rbf", sigma=-1), "sigma must be > 0"),
        (
            lambda X: kernel_matrix(X, kernel="rbf", sigma=1e-300),
            r"sigma = 1e-300 is too small: σ² underflows, use σ ≥ 1e-150; a useful σ is near "
            r"the median distance between points \(about [0-9.]+ here\)",
        ),
        (lambda X: pool_kernel(X, "rbf", sigma=1e-160), "sigma = 1e-160 is too small"),
        (lambda X: kernel_matrix(X, kernel="nope"), "unknown kernel 'nope'"),
        (lambda X: kernel_matrix(X, kernel="graph"), "graph kernel"),
        (lambda X: kernel_matrix(X, X[:, :2]), "same columns"),
        (lambda X: kernel_matrix(X[:, 0]), "2-D array"),
        (lambda X: kernel_matrix(np.where(X > 2, np.nan, X)), "NaN"),
        (lambda X: graph_kernel(X, k=0), "graph_k"),
        (lambda X: graph_kernel(X, k=2.5), "graph_k"),
        (lambda X: graph_kernel(X, kind="von_neumann", t=5.0), "t < 1/ρ"),
        (lambda X: graph_kernel(X, kind="heat"), "unknown graph kernel"),
        (lambda X: kernel_matrix(X, kernel="polynomial", degree=0), "degree"),
    ],
)
def test_bad_input_messages_name_the_problem(X, call, message):
    with pytest.raises(ValueError, match=message):
        call(X)


def test_smallest_accepted_sigma_gives_a_finite_kernel(X):
    # 1/(2σ²) is still a finite float at σ = 1e-150: K is the identity (distinct points)
    K = kernel_matrix(X, kernel="rbf", sigma=1e-150)
    np.testing.assert_array_equal(K, np.eye(len(X)))
    # the message's hint is the median pairwise distance of the points
    d = [np.linalg.norm(X[i] - X[j]) for i in range(len(X)) for j in range(i + 1, len(X))]
    with pytest.raises(ValueError, match=rf"about {np.median(d):.3g} here"):
        kernel_matrix(X, kernel="rbf", sigma=1e-200)


# -- connected components and their bridges ------------------------------------------------------
def _clusters(sizes, seed=0, spread=6.0):
    """Tight Gaussian clusters far apart: a kNN graph with small k splits along them."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=spread, size=(len(sizes), 3))
    return np.vstack(
        [c + rng.normal(scale=0.3, size=(s, 3)) for c, s in zip(centres, sizes, strict=True)]
    )


def _brute_component_mst(X, B):
    """Bridges by brute force: the MST of the complete graph over components whose edge
    weight is the closest pair of points, from the full distance matrix."""
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

    _, lab = connected_components(B, directed=False)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    c = lab.max() + 1
    W = np.zeros((c, c))
    best = {}
    for a in range(c):
        for b in range(a + 1, c):
            block = D[np.ix_(lab == a, lab == b)]
            r, s = np.unravel_index(np.argmin(block), block.shape)
            W[a, b] = block[r, s]
            best[(a, b)] = (np.flatnonzero(lab == a)[r], np.flatnonzero(lab == b)[s])
    T = minimum_spanning_tree(W).tocoo()
    edges = {frozenset(best[(min(a, b), max(a, b))]) for a, b in zip(T.row, T.col, strict=True)}
    return edges, float(T.data.sum())


@pytest.mark.parametrize("small", [256, 1])  # 1: every component searches the points outside it
@pytest.mark.parametrize("sizes", [(60, 9), (40, 12, 5, 3, 30), (25, 25, 25, 25)])
def test_connect_adds_the_component_mst_of_closest_pairs(sizes, small, monkeypatch):
    from scipy.sparse.csgraph import connected_components

    from rlscore.core.graph import components as graph_components
    from rlscore.core.graph.components import component_bridges

    monkeypatch.setattr(graph_components, "_SMALL_COMPONENT", small)

    X = _clusters(sizes)
    raw = knn_graph(X, k=2)
    n_raw, _ = connected_components(raw, directed=False)
    assert n_raw >= len(sizes)  # the data really are split
    pairs, dist = component_bridges(X, raw)
    edges, total = _brute_component_mst(X, raw)
    assert {frozenset(p) for p in pairs.tolist()} == edges
    assert dist.sum() == pytest.approx(total, rel=1e-12)
    np.testing.assert_allclose(dist, np.linalg.norm(X[pairs[:, 0]] - X[pairs[:, 1]], axis=1))
    joined = knn_graph(X, k=2, connect=True)
    assert connected_components(joined, directed=False)[0] == 1
    # exactly the kNN edges plus the bridges, both ways
    added = (joined - raw).tocoo()
    assert {frozenset((i, j)) for i, j in zip(added.row, added.col, strict=True)} == edges
    assert (joined != joined.T).nnz == 0


def test_connected_graph_is_left_alone_and_graph_kernels_connect_by_default(X):
    from rlscore.core.graph.components import component_sizes

    np.testing.assert_array_equal(
        knn_graph(X, k=4, connect=True).toarray(), knn_graph(X, k=4).toarray()
    )
    Xs = _clusters((30, 8))
    assert component_sizes(knn_graph(Xs, k=3)).tolist() == [30, 8]
    g = graph_kernel(Xs, k=3)
    assert component_sizes(g.B).tolist() == [38]
    assert np.all(
        g.K > 0
    )  # connected: every pair interacts (the inverse of an irreducible M-matrix)
    split = graph_kernel(Xs, k=3, connect=False)
    assert np.sum(split.K == 0) > 0 or np.abs(split.K[:30, 30:]).max() < 1e-12


def test_heat_weights_apply_to_bridges():
    Xs = _clusters((20, 6))
    B = knn_graph(Xs, k=2, weights="heat", heat_width=5.0, connect=True).tocoo()
    np.testing.assert_allclose(B.data, np.exp(-((Xs[B.row] - Xs[B.col]) ** 2).sum(1) / 25.0))


@pytest.mark.parametrize("n", [1, 2, 127, 128, 129, 300])
def test_rbf_of_a_pool_mirrors_the_rectangular_kernel(n):
    """The kernel of a pool with itself (one triangle computed, mirrored) against the kernel
    of the pool with a copy of itself (every entry computed) and the per-pair formula: the
    same to rounding, exactly symmetric, ones on the diagonal (n around the block size)."""
    X = np.random.default_rng(n).normal(size=(n, 5))
    K = kernel_matrix(X, kernel="rbf", sigma=1.3)
    np.testing.assert_allclose(K, kernel_matrix(X, X.copy(), kernel="rbf", sigma=1.3), rtol=1e-13)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_allclose(K, np.exp(-d2 / (2 * 1.3**2)), rtol=1e-12, atol=1e-300)
    assert np.array_equal(K, K.T)
    assert np.all(np.diag(K) == 1.0)
