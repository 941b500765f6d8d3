"""Blocks of a pool kernel, whether it is held as an n × n matrix, as features or as columns.

The KLR strategies (:mod:`rlscore.query.klr.pool`) need the kernel among the labeled points,
between them (or scored candidates) and the pool, and its diagonal: never the whole n × n
matrix at once. :class:`DenseKernel` slices a matrix; :class:`FeatureKernel` multiplies
low-rank features (``K̃ = ΦΦᵀ``, docs/mathematics.md §7), so a large pool costs O(nm) memory;
:class:`GraphColumnsKernel` solves for the columns of a regularized graph kernel
``(I + tL̃)⁻¹`` as they are asked for (block CG, :mod:`rlscore.core.graph.kernel_family`) and keeps
a bounded number of them.

Every kind offers ``block(rows, cols)``, ``columns(cols)`` (n × len(cols)), ``diagonal(idx)``
and ``columns_times(cols, coef)``: ``K[:, cols] @ coef`` — the pool's decision values after a
refit — without the n × len(cols) block at once (Φ's product taken in the cheap order, rows or
kept columns a bounded chunk at a time).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from rlscore.core.graph.kernel_family import RegularizedGraphKernels

__all__ = ["DenseKernel", "FeatureKernel", "GraphColumnsKernel", "graph_kernel_at"]

#: columns a GraphColumnsKernel keeps (each n floats: 0.8 MB at n = 100 000)
MAX_KEPT_COLUMNS = 1024
#: columns solved together when only diagonal entries are wanted (bounds the memory)
_DIAGONAL_BATCH = 256
#: floats of one chunk of a kernel block that ``columns_times`` multiplies (8 MB)
_PRODUCT_CHUNK_ELEMENTS = 1_000_000
#: floats of the rows of Φ that ``FeatureKernel.columns_times`` multiplies at a time (1 MB)
_SKINNY_CHUNK_ELEMENTS = 131_072
#: kernels (one per t) a graph family keeps for graph_kernel_at (a dense one is n × n)
MAX_KEPT_SCALES = 4


class DenseKernel:
    """A pool kernel held as an n × n matrix ``K`` (``family``: the graph it comes from)."""

    def __init__(self, K: np.ndarray, family: RegularizedGraphKernels | None = None):
        self.K = K
        self.family = family
        self.n = K.shape[0]
        self._diag = np.diag(K).copy()

    def diagonal(self, idx) -> np.ndarray:
        """``K[idx, idx]``."""
        return self._diag[idx]

    def block(self, rows, cols) -> np.ndarray:
        """``K[rows][:, cols]``."""
        return self.K[np.ix_(rows, cols)]

    def columns(self, cols) -> np.ndarray:
        """``K[:, cols]`` (n, len(cols))."""
        return self.K[:, cols]

    def columns_times(self, cols, coef: np.ndarray) -> np.ndarray:
        """``K[:, cols] @ coef`` (n, coef's columns), a bounded block of rows at a time."""
        cols = np.asarray(cols, dtype=np.intp).reshape(-1)
        out = np.empty((self.n, coef.shape[1]))
        step = max(1, _PRODUCT_CHUNK_ELEMENTS // max(1, cols.size))
        for s in range(0, self.n, step):
            out[s : s + step] = self.K[s : s + step, cols] @ coef
        return out


class FeatureKernel:
    """A pool kernel ``ΦΦᵀ`` held as its features ``Φ`` (n, m)."""

    def __init__(self, features: np.ndarray):
        self.features = np.asarray(features, dtype=np.float64)
        self.n = self.features.shape[0]
        self._diag = np.einsum("ij,ij->i", self.features, self.features)

    def diagonal(self, idx) -> np.ndarray:
        """``‖φ_i‖²`` for i in idx."""
        return self._diag[idx]

    def block(self, rows, cols) -> np.ndarray:
        """``Φ_rows Φ_colsᵀ``."""
        return self.features[rows] @ self.features[cols].T

    def columns(self, cols) -> np.ndarray:
        """``Φ Φ_colsᵀ`` (n, len(cols))."""
        return self.features @ self.features[cols].T

    def columns_times(self, cols, coef: np.ndarray) -> np.ndarray:
        """``Φ (Φ_colsᵀ coef)``: O(n·m·k) for k columns of coef, not the n × len(cols) block
        and its O(n·m·len(cols)) product. ``Φ`` is read ``_SKINNY_CHUNK_ELEMENTS`` floats of
        rows at a time: one-thread OpenBLAS took 2.3× as long for the whole tall, skinny
        product (n = 100 000, m = 500, k = 3: 0.074 s against 0.032 s in 256-row chunks)."""
        w = self.features[cols].T @ coef
        out = np.empty((self.n, w.shape[1]))
        step = max(1, _SKINNY_CHUNK_ELEMENTS // max(1, self.features.shape[1]))
        for s in range(0, self.n, step):
            np.matmul(self.features[s : s + step], w, out=out[s : s + step])
        return out


class GraphColumnsKernel:
    """``K_t = (I + tL̃)⁻¹`` (or ``(I + tL)⁻¹``) held as the columns solved so far.

    Parameters
    ----------
    family : RegularizedGraphKernels
        The pool's graph (its ``columns`` solve by CG or read an eigendecomposition).
    t : float
        The kernel's scale.
    max_kept : int
        Columns kept (oldest dropped first); diagonal entries are always kept.
    """

    def __init__(self, family: RegularizedGraphKernels, t: float, max_kept: int = MAX_KEPT_COLUMNS):
        self.family = family
        self.t = float(t)
        self.n = family.n
        self.max_kept = int(max_kept)
        self._kept: OrderedDict[int, np.ndarray] = OrderedDict()
        self._diag = np.full(self.n, np.nan)

    def columns(self, cols) -> np.ndarray:
        """``K_t[:, cols]``, solving the columns not kept (and keeping them)."""
        cols = self._solve_missing(cols)
        out = np.empty((self.n, cols.size))
        for j, c in enumerate(cols.tolist()):
            out[:, j] = self._kept[c]
            self._kept.move_to_end(c)
        return out

    def _solve_missing(self, cols) -> np.ndarray:
        """Solve and keep the columns of ``cols`` not kept (one block CG); ``cols`` as int64."""
        cols = np.asarray(cols, dtype=np.int64).reshape(-1)
        missing = []
        for c in cols.tolist():
            if c in self._kept:
                self._kept.move_to_end(c)  # asked for now: not the oldest, not dropped below
            else:
                missing.append(c)
        missing = np.unique(np.asarray(missing, dtype=np.int64))
        if missing.size:
            solved = self.family.columns(self.t, missing)
            self._diag[missing] = solved[missing, np.arange(missing.size)]
            for j, c in enumerate(missing.tolist()):
                self._kept[c] = solved[:, j]
            while len(self._kept) > max(self.max_kept, cols.size):
                self._kept.popitem(last=False)
        return cols

    def columns_times(self, cols, coef: np.ndarray) -> np.ndarray:
        """``K_t[:, cols] @ coef``, the kept columns multiplied a bounded chunk at a time (the
        missing ones are solved and kept first)."""
        cols = self._solve_missing(cols)  # all in one CG: the chunks below only read
        out = np.zeros((self.n, coef.shape[1]))
        step = max(1, _PRODUCT_CHUNK_ELEMENTS // self.n)
        for s in range(0, cols.size, step):
            out += self.columns(cols[s : s + step]) @ coef[s : s + step]
        return out

    def block(self, rows, cols) -> np.ndarray:
        """``K_t[rows][:, cols]`` from the columns of the kept or the smaller side."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        cols = np.asarray(cols, dtype=np.int64).reshape(-1)
        kept_cols = all(c in self._kept for c in cols.tolist())
        kept_rows = all(r in self._kept for r in rows.tolist())
        if kept_cols or (not kept_rows and cols.size <= rows.size):
            return self.columns(cols)[rows]
        return self.columns(rows)[cols].T

    def diagonal(self, idx) -> np.ndarray:
        """``K_t[idx, idx]`` (entries not yet known are solved in batches, not kept)."""
        idx = np.asarray(idx, dtype=np.int64).reshape(-1)
        unknown = np.unique(idx[np.isnan(self._diag[idx])])
        for s0 in range(0, unknown.size, _DIAGONAL_BATCH):
            part = unknown[s0 : s0 + _DIAGONAL_BATCH]
            self._diag[part] = self.family.columns(self.t, part)[part, np.arange(part.size)]
        return self._diag[idx]


def graph_kernel_at(family: RegularizedGraphKernels, t: float) -> DenseKernel | GraphColumnsKernel:
    """The kernel ``K_t`` of a graph family: dense (eigh solver) or by columns (CG solver).

    Kept on the family (``family.kept``, the last :data:`MAX_KEPT_SCALES` scales asked for),
    so returning to a scale reuses its matrix or its solved columns.
    """
    t = family.scale(t)  # None: the family's default scale
    kept = family.kept
    if t in kept:
        kept.move_to_end(t)
        return kept[t]
    if family.solver_ == "eigh":
        kernel = DenseKernel(family.dense(t), family)
    else:
        kernel = GraphColumnsKernel(family, t)
    kept[t] = kernel
    while len(kept) > MAX_KEPT_SCALES:
        kept.popitem(last=False)
    return kernel
