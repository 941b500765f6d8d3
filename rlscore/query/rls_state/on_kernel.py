"""The weighted one-vs-all RLS state on the pool kernel: ARLS, focused ARLS and the baselines.

Paskov §3.3 and appendix A.4 (seed ``000``), docs/mathematics.md §5. The implementation on the n × n
kernel
of :class:`~rlscore.query.rls_state.weighted.WeightedRLSStrategy` (the state every RLS strategy
shares; the other implementation, on features, is :mod:`rlscore.query.rls_state.on_features`). The
state over the pool is

* ``m = K_{:L}(K_LL + λW^L)⁻¹ Y_L`` — the RLS predictions on every pool point (n, or n × T
  one-vs-all columns), eq. 3.52;
* ``D = K − V`` with ``V = K_{:L}(K_LL + λW^L)⁻¹ K_{L:}`` (eq. 3.51) — the *posterior
  covariance*. Every formula of §3.3.3 uses ``V`` only through ``K − V``
  (``s_i = D_ii + λ/w_y``, ``d_i = D_{:i}``), so ``D`` is kept instead of ``V``.

``W^L`` holds the loss weight of each labeled point, per one-vs-all column, by the class rule of
:mod:`rlscore.core.rls.class_weights`. Columns with the same weights share one ``D``: there is one
``D`` without weights, with per-class (dict) weights and for two classes, and one per column
(``D_t``) for balanced multiclass weights, whose columns each equalise their own two sides.

Teaching point i with class y is a rank-one update of every ``D``, eqs. 3.53 and 3.55:
``m ← m + d_i (y − m_i)/s_i`` and ``D ← D − d_i d_iᵀ/s_i``. Removing a labeled point j adds
``u uᵀ/Gi_jj`` back (``u = K_{:L} Gi e_j``, ``Gi = (K_LL + λW^L)⁻¹``), and ``m`` is recomputed
from the remaining labels, so undo leaves the state equal to the never-labeled one.

Memory: ``K`` and one ``D`` are two n × n float64 matrices, i.e. ``16 n²`` bytes — 16 MB at
n = 1000, 400 MB at 5000, 1.6 GB at 10 000, 6.4 GB at 20 000 (the largest pool for ``M`` bytes
of free memory is about ``√(0.8 M / 16)``: 35 000 points in 24 GB). Balanced weights over
T ≥ 3 classes need T matrices ``D``, i.e. ``8 (T + 1) n²`` bytes. The risk pass reads ``D``
in place (:mod:`rlscore.query.arls.fused_lookahead`): nothing of size n² on top of that. A pool
needing more than 80 % of the available memory (``MemAvailable``) is refused with a
``MemoryError`` before anything is allocated.

**Low-memory path.** Strategies that keep no covariance (the baselines of
:mod:`rlscore.query.baselines.strategies`) refit ``m`` from ``K_{:L}`` and ``K_LL`` alone after
every label. With a vector kernel and no precomputed ``K`` they never form ``K``: they keep the
kernel columns of the labeled points only, ``K_{:L}`` (n × l, one column computed in O(n d) when a
point is labeled, freed when its label is removed), i.e. ``8 n`` bytes per label plus a few
n-vectors (:meth:`RLSPoolStrategy.memory_bytes`): a pool of a million points fits. Graph kernels are
defined by an n × n inverse and a given ``K`` is used as it is: both keep the dense path.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg.blas import dger, dsyrk

from rlscore.core.conventions.input_validation import check_matrix
from rlscore.core.conventions.memory_budget import (
    require_memory,
    square_matrices_bytes,
    vectors_bytes,
)
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.kernels.functions import (
    VECTOR_KERNELS,
    checked_kernel_matrix,
    is_graph_kernel,
    kernel_matrix,
    squared_norms,
)
from rlscore.query.rls_state.weighted import VECTORS_PER_CLASS, WeightedRLSStrategy, pool_risk

#: float64 elements per working block (1 MiB: stays in the L2 cache): the mirroring of
#: :meth:`RLSPoolStrategy._subtract_labeled` (ARLS's risk pass needs no block since issue 25)
BLOCK_ELEMENTS = 1 << 17
#: labels budgeted by :meth:`RLSPoolStrategy.memory_bytes` on the low-memory path (a labeled
#: point costs one kernel column of ``8 n`` bytes there)
LABEL_BUDGET = 500


class RLSPoolStrategy(WeightedRLSStrategy):
    """The weighted one-vs-all RLS state on the pool kernel: ARLS, focused ARLS, baselines.

    The implementation of :class:`~rlscore.query.rls_state.weighted.WeightedRLSStrategy` that holds
    the n × n kernel ``K`` and one covariance ``D = K − V`` per group of columns (module
    docstring, docs/mathematics.md §5); subclasses only define :meth:`scores`. Subclasses without
    lookahead
    set ``_keeps_covariance = False``; with a vector kernel and no given ``K`` they then run on
    the low-memory path (the kernel columns of the labeled points only;
    :meth:`needs_pool_kernel`, :meth:`memory_bytes`).

    Parameters
    ----------
    kernel : str
        ``"linear"``, ``"polynomial"``, ``"rbf"`` or a graph kernel name
        (``rlscore.core.kernels.functions``).
    sigma, degree, lam, class_weight, bias_corrected, clip
        As :class:`~rlscore.query.rls_state.weighted.WeightedRLSStrategy`. A change of the balanced
        weights rebuilds the state in O(n² l) per ``D`` (BLAS ``syrk``) instead of the O(n²)
        rank-one update.
    graph_k, graph_t : int, float or None (None: the graph kernel's default scale)
        Neighbours and scale of graph kernels.
    """

    _kernel_params = ("kernel", "sigma", "degree", "graph_k", "graph_t")

    # the state on the pool kernel (module docstring)
    _K: np.ndarray | None
    _kernel: _DenseKernel | _LabeledColumns
    _Ds: list[np.ndarray]

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 1.0,
        class_weight=None,
        bias_corrected: bool | None = None,
        clip: bool = True,
        graph_k: int = 6,
        graph_t: float | None = None,
    ):
        super().__init__(
            kernel=kernel,
            sigma=sigma,
            degree=degree,
            lam=lam,
            class_weight=class_weight,
            bias_corrected=bias_corrected,
            clip=clip,
        )
        self.graph_k = graph_k
        self.graph_t = graph_t

    # -- memory ----------------------------------------------------------------------------
    def needs_pool_kernel(self) -> bool:
        """Whether :meth:`start` builds (or wants to be given) the n × n pool kernel.

        False on the low-memory path: no covariance kept and a vector kernel, so the strategy
        computes the kernel columns of its labeled points itself.
        """
        return self._keeps_covariance or self.kernel not in VECTOR_KERNELS

    def memory_bytes(self, n: int, n_classes: int = 2, n_labels: int = LABEL_BUDGET) -> int:
        """Bytes the strategy needs on a pool of ``n`` points, its pool kernel included.

        Parameters
        ----------
        n
            Pool size.
        n_classes
            Number of classes T (balanced multiclass weights need one covariance per class).
        n_labels
            Labels to budget for on the low-memory path (one kernel column each).

        Returns
        -------
        int
            On the dense path ``8 (1 + c) n²``: the kernel and c covariances (ARLS: one, or T
            with balanced multiclass weights; a baseline with a graph kernel: none). On the
            low-memory path ``8 n (min(l, n) + v)`` with ``v`` the working vectors
            (:meth:`_working_vectors`; the baselines: ``VECTORS_PER_CLASS · T``).
        """
        if self.needs_pool_kernel():
            return square_matrices_bytes(n, 1 + self._covariances(n_classes))
        return vectors_bytes(n, min(n_labels, n) + self._working_vectors(n_classes))

    def _working_vectors(self, T: int) -> int:
        """n-vectors the low-memory path holds at its peak besides the labeled columns."""
        return VECTORS_PER_CLASS * T

    def _covariances(self, T: int) -> int:
        """Number of n × n covariances ``D``: none for the baselines, one per one-vs-all
        column for balanced multiclass weights, else one shared by every column."""
        if not self._keeps_covariance:
            return 0
        return T if isinstance(self.class_weight, str) and T > 2 else 1

    # -- the state on the kernel -------------------------------------------------------------
    def _start_state(self, X: np.ndarray, K: np.ndarray | None) -> None:
        n, T = X.shape[0], self.classes_.size
        name = type(self).__name__
        if K is None and not self.needs_pool_kernel():
            # reject bad kernel parameters now, as building K would (a 1 × 1 kernel)
            kernel_matrix(X[:1], kernel=self.kernel, sigma=self.sigma_, degree=self.degree)
            count = self._working_vectors(T)
            require_memory(
                vectors_bytes(n, count),
                f"{name} on a pool of {n} points ({count} vectors of {n} float64)",
            )
            self._K = None
            self._kernel = _LabeledColumns(X, self.kernel, self.sigma_, self.degree)
        else:
            count = int(K is None) + self._covariances(T)
            require_memory(
                square_matrices_bytes(n, count),
                f"{name} on a pool of {n} points ({count} × {n} × {n} float64)",
            )
            self._K = self.pool_kernel(X) if K is None else K
            self._kernel = _DenseKernel(self._K)
        # V = 0: D = K
        self._Ds = [np.array(self._K, order="C")] if self._keeps_covariance else []

    def _update(self, i: int, c: int) -> None:
        """Eqs. 3.53 and 3.55 in terms of ``D = K − V``, for each group of columns."""
        y = ova_targets([c], self.classes_.size)[0]
        for cols, D in zip(self._groups, self._Ds, strict=True):
            d = D[i].copy()
            s = d[i] + self._lam / self._W[cols[0], c]
            sel = _as_slice(cols)
            self._m[:, sel] += np.outer(d, (y[sel] - self._m[i, sel]) / s)
            _symmetric_rank_one(D, d / np.sqrt(s), -1.0)

    def _downdate(self, pos: int, classes: list[int], rest: list[int], rest_classes) -> None:
        """Add ``u uᵀ/Gi_jj`` back to every ``D`` (``u = K_{:L} Gi e_j``) and recompute ``m``
        from the remaining labels."""
        L = np.asarray(self.labeled_)
        e = np.zeros(L.size)
        e[pos] = 1.0
        KL = self._K[:, L]
        for cols, D in zip(self._groups, self._Ds, strict=True):
            g = scipy.linalg.cho_solve(scipy.linalg.cho_factor(self._gram(L, classes, cols[0])), e)
            _symmetric_rank_one(D, (KL @ g) / np.sqrt(g[pos]), 1.0)
        self._m = self._predictions(rest, rest_classes)

    def _gram(self, L: np.ndarray, classes, t: int) -> np.ndarray:
        """``K_LL + λ W^L`` of one-vs-all column ``t``, ``W^L = diag(1/a_t(y))``."""
        G = self._kernel.block(L)
        G[np.diag_indices_from(G)] += self._lam / self._W[t, np.asarray(classes, dtype=np.intp)]
        return G

    def _predictions(self, labeled, classes) -> np.ndarray:
        """``m = K_{:L} G⁻¹ Y_L`` from scratch, one solve per group of columns."""
        L = np.asarray(labeled, dtype=np.intp)
        self._kernel.sync(L)  # the low-memory path computes and frees columns here
        if not L.size:
            return np.zeros_like(self._m)
        Y = ova_targets(classes, self.classes_.size)
        coef = np.empty((L.size, self._m.shape[1]))
        for cols in self._groups:
            G = scipy.linalg.cho_factor(self._gram(L, classes, cols[0]))
            coef[:, cols] = scipy.linalg.cho_solve(G, Y[:, cols])
        return self._kernel.dot(L, coef)

    def _build(self, labeled, classes) -> None:
        """``m`` and every ``D = K − K_{:L} G⁻¹ K_{L:}`` from scratch (after a weight change)."""
        self._m = self._predictions(labeled, classes)
        if not self._keeps_covariance:
            return
        # one D per group of columns; reuse the matrices already allocated
        del self._Ds[len(self._groups) :]
        while len(self._Ds) < len(self._groups):
            self._Ds.append(np.empty((self.n_pool_, self.n_pool_)))
        L = np.asarray(labeled, dtype=np.intp)
        for cols, D in zip(self._groups, self._Ds, strict=True):
            D[...] = self._K
            if L.size:
                self._subtract_labeled(D, L, self._gram(L, classes, cols[0]))

    def _subtract_labeled(self, D: np.ndarray, L: np.ndarray, G: np.ndarray) -> None:
        """``D ← D − K_{:L} G⁻¹ K_{L:}`` by BLAS ``syrk``, keeping D exactly symmetric."""
        R = scipy.linalg.cholesky(G)
        B = scipy.linalg.solve_triangular(R, self._K[L], trans="T")  # R⁻ᵀ K_{L:}
        # one triangle by BLAS syrk (D.T is the Fortran-ordered view dsyrk updates in
        # place), then mirrored, so D stays exactly symmetric
        dsyrk(-1.0, B, beta=1.0, c=D.T, trans=1, lower=0, overwrite_c=1)
        n = self.n_pool_
        step = max(1, BLOCK_ELEMENTS // n)
        for a in range(0, n, step):
            e = min(a + step, n)
            block = D[a:e, a:e]
            upper = np.triu_indices(e - a, 1)
            block[upper] = block.T[upper]
            D[a:e, e:] = D[e:, a:e].T

    # -- public state ----------------------------------------------------------------------
    @property
    def V_(self) -> np.ndarray:
        """``V = K_{:L}(K_LL + λW^L)⁻¹K_{L:}`` (eq. 3.51), computed as ``K − D``: (n, n), or
        (T, n, n) one per column for balanced multiclass weights."""
        return self._K - self.covariance_

    @property
    def covariance_(self) -> np.ndarray:
        """``D = K − V``: (n, n) shared by every column (a view on the live state: do not
        modify), or a (T, n, n) copy, one per column, for balanced multiclass weights."""
        if not self._keeps_covariance:
            raise AttributeError(f"{type(self).__name__} does not keep the covariance D = K − V")
        if len(self._Ds) == 1:
            return self._Ds[0]
        out = np.empty((self._W.shape[0], self.n_pool_, self.n_pool_))
        for cols, D in zip(self._groups, self._Ds, strict=True):
            out[cols] = D
        return out

    def dual_coef(self) -> np.ndarray:
        """Coefficients on the labeled points, ``c = W(y_L − m_L)/λ`` per column (eq. 3.54)."""
        self._check_started()
        L = np.asarray(self.labeled_, dtype=np.intp)
        classes = np.asarray(self._label_positions(), dtype=np.intp)
        Y = ova_targets(classes, self.classes_.size)
        return self._W[:, classes].T * (Y - self._m[L]) / self._lam

    def decision_function_at(self, Z) -> np.ndarray:
        """Decision values on new points ``Z`` (vector kernels only): ``k(Z, X_L) c``."""
        self._check_started()
        if is_graph_kernel(self.kernel):
            raise ValueError(
                f"kernel {self.kernel!r} is a graph kernel, defined on the pool only: "
                "it cannot score points outside the pool"
            )
        Z = check_matrix(Z, "Z")
        if not self.labeled_:
            f = np.zeros((Z.shape[0], self._m.shape[1]))
        else:
            Kz = kernel_matrix(
                Z, self.X_[self.labeled_], kernel=self.kernel, sigma=self.sigma_, degree=self.degree
            )
            f = Kz @ self.dual_coef()
        return f[:, 0] if f.shape[1] == 1 else f


class _DenseKernel:
    """The whole n × n pool kernel ``K`` (given, built for a graph kernel, or for ARLS)."""

    def __init__(self, K: np.ndarray) -> None:
        self.K = K

    def sync(self, L: np.ndarray) -> None:
        """Nothing to do: every column is there."""

    def block(self, L: np.ndarray) -> np.ndarray:
        """A new array ``K_LL``, (l, l)."""
        return self.K[np.ix_(L, L)]

    def columns(self, idx: np.ndarray) -> np.ndarray:
        """A new array ``K_{:idx}``, (n, b)."""
        return self.K[:, idx]

    def dot(self, L: np.ndarray, C: np.ndarray) -> np.ndarray:
        """``K_{:L} C`` for (l, T') coefficients ``C``."""
        return self.K[:, L] @ C

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """A new C-ordered array ``K_{idx:}``, (b, n)."""
        return self.K[idx]

    def dot_rows(self, L: np.ndarray, C: np.ndarray) -> np.ndarray:
        """``Cᵀ K_{L:}``, (b, n) C-ordered, for (l, b) coefficients ``C``."""
        return C.T @ self.K[L]


class _LabeledColumns:
    """The kernel columns ``K_{:j}`` of the labeled points only (the low-memory path).

    :meth:`sync` computes the column of a new label in O(n d) and frees those of removed
    labels. Columns sit in Fortran-ordered blocks of :data:`_COLUMNS_PER_BLOCK` (one BLAS
    product per block in :meth:`dot`) in no particular order: a freed slot takes the last
    column, so removing a label moves one column, not all after it.
    """

    def __init__(self, X: np.ndarray, kernel: str, sigma: float, degree: int) -> None:
        # X and the parameters are checked once by start(); the pool's squared norms are
        # kept, so a column costs one product with the pool instead of a pass over X per call
        self._X = np.asarray(X, dtype=np.float64)
        self._params = {"kernel": kernel, "sigma": sigma, "degree": degree}
        self._norms = squared_norms(self._X) if kernel == "rbf" else None
        self._blocks: list[np.ndarray] = []
        self._held: list[int] = []  # pool index of the column in each slot
        self._slot: dict[int, int] = {}  # pool index -> slot

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns."""
        return sum(b.nbytes for b in self._blocks)

    def _column(self, slot: int) -> np.ndarray:
        return self._blocks[slot // _COLUMNS_PER_BLOCK][:, slot % _COLUMNS_PER_BLOCK]

    def sync(self, L: np.ndarray) -> None:
        """Hold exactly the columns of the points ``L``."""
        keep = set(L.tolist())
        for j in [j for j in self._held if j not in keep]:
            self._drop(j)
        new = [j for j in L.tolist() if j not in self._slot]
        for a in range(0, len(new), _COLUMNS_PER_BLOCK):
            self._append(new[a : a + _COLUMNS_PER_BLOCK])

    def columns(self, idx: np.ndarray) -> np.ndarray:
        """A new array ``K_{:idx}``, (n, b), computed in O(n b d) as the pool kernel would be."""
        Z = self._X[idx]
        norms = None if self._norms is None else (self._norms, self._norms[idx])
        cols = checked_kernel_matrix(self._X, Z, norms=norms, **self._params)  # (n, b)
        if self._params["kernel"] == "rbf":
            # as the pool kernel: exact ones on the diagonal (‖x − x‖² is not rounded)
            cols[idx, np.arange(len(idx))] = 1.0
        return cols

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """A new C-ordered array ``K_{idx:}``, (b, n): :meth:`columns` computed row-wise, so
        that a candidate's row is contiguous for the lookahead."""
        Z = self._X[idx]
        norms = None if self._norms is None else (self._norms[idx], self._norms)
        out = checked_kernel_matrix(Z, self._X, norms=norms, **self._params)  # (b, n)
        if self._params["kernel"] == "rbf":
            out[np.arange(len(idx)), idx] = 1.0
        return out

    def dot_rows(self, L: np.ndarray, C: np.ndarray) -> np.ndarray:
        """``Cᵀ K_{L:}``, (b, n) C-ordered, for (l, b) coefficients ``C`` in the order of ``L``.

        A stretch of :data:`_DOT_ROWS_POINTS` pool points at a time: the products of every
        block of columns add up in that stretch of the output while it is in cache (one
        write of the (b, n) output, not one read and write per block of 16 labels)."""
        n, b = self._X.shape[0], C.shape[1]
        if not self._blocks:
            return np.zeros((b, n))
        by_slot = np.zeros((len(self._held), b))
        by_slot[[self._slot[j] for j in L.tolist()]] = C
        coef = [
            np.ascontiguousarray(by_slot[k * _COLUMNS_PER_BLOCK : (k + 1) * _COLUMNS_PER_BLOCK].T)
            for k in range(len(self._blocks))
        ]
        out = np.empty((b, n))
        part = np.empty((b, _DOT_ROWS_POINTS))
        for s in range(0, n, _DOT_ROWS_POINTS):
            e = min(n, s + _DOT_ROWS_POINTS)
            stretch = out[:, s:e]
            for k, block in enumerate(self._blocks):
                # block is Fortran-ordered (n, 16): its rows' transpose is a C-ordered operand
                kernel = block[s:e, : coef[k].shape[1]].T
                if k == 0:
                    np.matmul(coef[k], kernel, out=stretch)
                else:
                    stretch += np.matmul(coef[k], kernel, out=part[:, : e - s])
        return out

    def _append(self, idx: list[int]) -> None:
        n = self._X.shape[0]
        cols = self.columns(np.asarray(idx, dtype=np.intp))
        for k, j in enumerate(idx):
            slot = len(self._held)
            if slot % _COLUMNS_PER_BLOCK == 0:
                require_memory(
                    vectors_bytes(n, _COLUMNS_PER_BLOCK),
                    f"the kernel columns of {slot + 1} labeled points on a pool of {n} points",
                )
                self._blocks.append(np.empty((n, _COLUMNS_PER_BLOCK), order="F"))
            self._column(slot)[:] = cols[:, k]
            self._held.append(j)
            self._slot[j] = slot

    def _drop(self, j: int) -> None:
        slot, last = self._slot.pop(j), len(self._held) - 1
        moved = self._held.pop()
        if slot != last:
            self._column(slot)[:] = self._column(last)
            self._held[slot] = moved
            self._slot[moved] = slot
        if last % _COLUMNS_PER_BLOCK == 0:
            self._blocks.pop()

    def block(self, L: np.ndarray) -> np.ndarray:
        """A new array ``K_LL``, (l, l), exactly symmetric as the pool kernel's block."""
        G = np.column_stack([self._column(self._slot[j])[L] for j in L.tolist()])
        return 0.5 * (G + G.T)

    def dot(self, L: np.ndarray, C: np.ndarray) -> np.ndarray:
        """``K_{:L} C`` for (l, T') coefficients ``C`` in the order of ``L``."""
        by_slot = np.zeros((len(self._held), C.shape[1]))
        by_slot[[self._slot[j] for j in L.tolist()]] = C
        out = np.zeros((self._X.shape[0], C.shape[1]))
        for b, block in enumerate(self._blocks):
            rows = by_slot[b * _COLUMNS_PER_BLOCK : (b + 1) * _COLUMNS_PER_BLOCK]
            out += block[:, : rows.shape[0]] @ rows
        return out


#: kernel columns per block of :class:`_LabeledColumns`
_COLUMNS_PER_BLOCK = 16
#: pool points per stretch of :meth:`_LabeledColumns.dot_rows` (11 rows: 0.7 MB, in cache)
_DOT_ROWS_POINTS = 8192


def _as_slice(cols: np.ndarray) -> slice | np.ndarray:
    """A slice for a contiguous run of columns (a view instead of a copy), else ``cols``."""
    if cols[-1] - cols[0] == cols.size - 1:
        return slice(int(cols[0]), int(cols[-1]) + 1)
    return cols


def _symmetric_rank_one(D: np.ndarray, u: np.ndarray, sign: float) -> None:
    """``D += sign · u uᵀ`` in place (BLAS ``dger``; each entry gets ``u_i u_j``, so a
    symmetric ``D`` stays exactly symmetric)."""
    # D is C-ordered: its transpose is the Fortran-ordered matrix dger updates in place
    dger(sign, u, u, a=D.T, overwrite_a=True)


# pool_risk is defined with the shared state (rlscore.query.rls_state.weighted) and importable here
__all__ = ["BLOCK_ELEMENTS", "LABEL_BUDGET", "RLSPoolStrategy", "pool_risk"]
