"""Graph kernels for any t without an n × n inverse, against dense inverses and scipy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg

from rlscore.core.graph.kernel_family import RegularizedGraphKernels, block_cg
from rlscore.core.kernels.functions import graph_kernel


@pytest.fixture
def X():
    return np.random.default_rng(3).normal(size=(150, 4))


@pytest.mark.parametrize("kind", ["normalized_regularized", "regularized"])
@pytest.mark.parametrize("solver", ["eigh", "cg"])
def test_columns_equal_the_dense_inverse(X, kind, solver):
    fam = RegularizedGraphKernels(X, kind, k=5, solver=solver)
    idx = [0, 17, 17, 149]
    for t in (1.0, 10.0):
        K = graph_kernel(X, kind=kind, k=5, t=t).K  # np.linalg.inv of I + tL
        np.testing.assert_allclose(fam.columns(t, idx), K[:, idx], atol=1e-9)
        if solver == "eigh":
            np.testing.assert_allclose(fam.dense(t), K, atol=1e-12)
            np.testing.assert_allclose(fam.diagonal(t), np.diag(K), atol=1e-12)
        np.testing.assert_allclose(fam.inverse(t).toarray() @ K, np.eye(150), atol=1e-9)


def test_cg_solver_refuses_the_dense_kernel(X):
    fam = RegularizedGraphKernels(X, "graph", solver="cg")
    with pytest.raises(ValueError, match="not formed with the CG solver"):
        fam.dense(1.0)
    with pytest.raises(ValueError, match="kind must be one of"):
        RegularizedGraphKernels(X, "diffusion")


def test_block_cg_matches_spsolve():
    rng = np.random.default_rng(0)
    A = sp.random(200, 200, density=0.02, random_state=1)
    A = sp.csr_matrix(A @ A.T + sp.diags(rng.uniform(1, 50, 200)))
    B = rng.normal(size=(200, 3))
    ref = np.column_stack([scipy.sparse.linalg.spsolve(A.tocsc(), B[:, j]) for j in range(3)])
    np.testing.assert_allclose(block_cg(A, B, precond=A.diagonal()), ref, atol=1e-8)
    with pytest.raises(RuntimeError, match="did not reach"):
        block_cg(A, B, max_iter=1)


def test_graph_columns_kernel_blocks_diagonal_and_eviction(X):
    from rlscore.core.kernels.blocks import GraphColumnsKernel, graph_kernel_at

    fam = RegularizedGraphKernels(X, "graph", k=5, solver="cg")
    K = graph_kernel(X, k=5, t=3.0).K
    view = GraphColumnsKernel(fam, 3.0, max_kept=6)
    rows, cols = [3, 9, 40, 41, 77, 120, 140], [5, 6]
    np.testing.assert_allclose(view.block(rows, cols), K[np.ix_(rows, cols)], atol=1e-9)
    np.testing.assert_allclose(view.block(cols, rows), K[np.ix_(cols, rows)], atol=1e-9)
    np.testing.assert_allclose(view.diagonal(rows), np.diag(K)[rows], atol=1e-9)
    np.testing.assert_allclose(view.columns(rows), K[:, rows], atol=1e-9)
    assert len(view._kept) <= max(6, len(rows))
    assert graph_kernel_at(fam, 3.0) is graph_kernel_at(fam, 3.0)
    dense = graph_kernel_at(RegularizedGraphKernels(X, "graph", k=5), 3.0)
    np.testing.assert_allclose(dense.block(rows, cols), K[np.ix_(rows, cols)], atol=1e-12)


def test_columns_times_equals_the_columns_product_and_keeps_memory_bounded(X, monkeypatch):
    """``K[:, cols] @ coef`` a chunk at a time (issue 36) for the kept-columns and the dense
    kernels; a kept column asked for again is not dropped while new ones are solved."""
    from rlscore.core.kernels import blocks
    from rlscore.core.kernels.blocks import GraphColumnsKernel, graph_kernel_at

    monkeypatch.setattr(blocks, "_PRODUCT_CHUNK_ELEMENTS", 2 * X.shape[0])  # 2 columns
    K = graph_kernel(X, k=5, t=2.0).K
    cols = [4, 8, 15, 16, 23, 42, 99]
    coef = np.random.default_rng(0).normal(size=(len(cols), 3))
    view = GraphColumnsKernel(RegularizedGraphKernels(X, "graph", k=5, solver="cg"), 2.0)
    dense = graph_kernel_at(RegularizedGraphKernels(X, "graph", k=5), 2.0)
    for kernel in (view, dense):
        np.testing.assert_allclose(kernel.columns_times(cols, coef), K[:, cols] @ coef, atol=1e-9)
    small = GraphColumnsKernel(RegularizedGraphKernels(X, "graph", k=5, solver="cg"), 2.0, 3)
    small.columns([4, 8, 15])
    np.testing.assert_allclose(small.columns([4, 30]), K[:, [4, 30]], atol=1e-9)
    assert len(small._kept) == 3
