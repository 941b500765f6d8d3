"""Kernels against direct per-pair formulas and the graph definitions of SPEC §2."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from rlscore.core.kernels import (
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
        (lambda X: graph_kernel(X, k=100), "graph_k"),
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
