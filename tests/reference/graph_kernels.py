"""Graph kernels written out from their definitions (docs/mathematics.md §2) on graphs given
by hand, with the closed forms of two small graphs.

Nothing here builds a kNN graph or calls :mod:`rlscore.core.kernels.functions`: the graphs are
adjacency matrices written in the test, the kernels dense inverses and matrix exponentials.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg


def path_graph(n: int) -> np.ndarray:
    """Adjacency of the path 0 – 1 – … – n−1."""
    B = np.zeros((n, n))
    i = np.arange(n - 1)
    B[i, i + 1] = B[i + 1, i] = 1.0
    return B


def path_spectral_radius(n: int) -> float:
    """``ρ`` of the path on n vertices: ``2 cos(π / (n + 1))`` (its eigenvalues are
    ``2 cos(πj / (n + 1))``, j = 1 … n)."""
    return 2.0 * np.cos(np.pi / (n + 1))


def laplacians(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``L = D − B`` and ``L̃ = D^{-1/2} L D^{-1/2}``."""
    d = B.sum(1)
    L = np.diag(d) - B
    s = 1.0 / np.sqrt(d)
    return L, s[:, None] * L * s[None, :]


def graph_kernel_reference(B: np.ndarray, kind: str, t: float) -> np.ndarray:
    """The kernel ``kind`` of the graph ``B`` at scale ``t``, from its definition."""
    n = B.shape[0]
    L, Ln = laplacians(B)
    eye = np.eye(n)
    if kind == "regularized":
        return np.linalg.inv(eye + t * L)
    if kind == "normalized_regularized":
        return np.linalg.inv(eye + t * Ln)
    if kind == "diffusion":
        return scipy.linalg.expm(-(t / 2.0) * Ln)
    if kind == "von_neumann":
        return np.linalg.inv(eye - t * B)
    raise ValueError(kind)


def two_point_kernel(kind: str, t: float) -> np.ndarray:
    """The closed form of each kernel on the one-edge graph of two points.

    ``L = L̃ = [[1, −1], [−1, 1]]`` has eigenvalues 0 (vector (1, 1)/√2) and 2 (vector
    (1, −1)/√2), and ``B`` has 1 and −1 on the same vectors; so every kernel is
    ``a·J/2 + b·(I − J/2)·…`` with ``J`` the all-ones matrix:
    regularized ``J/2 + (I − J/2)/(1 + 2t)``; diffusion ``J/2 + e^{−t}(I − J/2)``;
    von Neumann ``(I − tB)⁻¹ = (I + tB)/(1 − t²)``.
    """
    J2 = np.full((2, 2), 0.5)
    P = np.eye(2) - J2
    if kind in ("regularized", "normalized_regularized"):
        return J2 + P / (1.0 + 2.0 * t)
    if kind == "diffusion":
        return J2 + np.exp(-t) * P
    if kind == "von_neumann":
        return (np.eye(2) + t * np.array([[0.0, 1.0], [1.0, 0.0]])) / (1.0 - t * t)
    raise ValueError(kind)
