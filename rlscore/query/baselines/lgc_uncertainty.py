"""Local and Global Consistency as a query strategy: uncertainty sampling on the label
distribution that LGC spreads over the pool's kNN graph (Sheng §3.2, Zhou et al. 2004,
docs/mathematics.md §8).

The model is :class:`rlscore.core.graph.lgc_classifier.LGCClassifier` on the symmetric binary
kNN graph ``W`` of the pool (``graph_k`` neighbours, as the graph kernels): ``S = D⁻¹W`` (or
``D^{-1/2}WD^{-1/2}``) and ``F* = (1 − α)(I − αS)⁻¹Y`` (Sheng eq. 3.5, the limit of eq. 3.2),
with one-hot rows of ``Y`` for the labeled points and uniform rows ``1/T`` for the others (Sheng
§3.2.1). The class probabilities are the rows of ``F*``, clipped at 0 and normalised; the query
is the point with the smallest gap between its two most probable classes.

**One sparse solve per label.** ``F*`` is linear in ``Y``. Writing
``Y = (1/T) 1 1ᵀ + Σ_{j∈L} e_j (y_j − 1/T)ᵀ`` (``y_j`` the one-hot row of label j),

``F* = (1 − α) [u 1ᵀ/T + U − (U 1) 1ᵀ/T]``, ``u = (I − αS)⁻¹ 1``, ``U = Σ_{j∈L} g_j y_jᵀ``,

with ``g_j = (I − αS)⁻¹ e_j`` (``u = 1/(1 − α)`` for ``S = D⁻¹W``, since ``S1 = 1``). The
state is the n × T matrix ``U`` of per-class sums: teaching a label adds one column
``g_i``, one conjugate-gradient solve with the symmetric positive definite
``I − αD^{-1/2}WD^{-1/2}`` (eigenvalues in [1 − α, 1 + α], so the iterations do not grow
with n: :func:`rlscore.core.graph.lgc.lgc_solve`), and forgetting a label subtracts the same
column, solved again. That is T times less work than re-solving the n × T system of
eq. 3.5 after each label, warm start or not, and the state never depends on a previous
iterate: undo, forget and a rebuild agree with teaching the remaining labels from scratch
to rounding. Memory is O(n (k + T)): the graph and a few n-vectors per class, never an
n × n matrix (:meth:`LGCQuery.memory_bytes`).

**Unreached points.** In a component of the graph without a labeled point every column of
``F*`` is the same: those points get the uniform distribution (margin 0, so they are queried
first — a label there is what the graph needs), as in ``LGCClassifier.unreached_``.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from rlscore.core.conventions.memory_budget import require_memory, vectors_bytes
from rlscore.core.graph.lgc import NORMALIZATIONS, _block_cg, _cg_iterations, check_alpha
from rlscore.core.kernels.functions import knn_graph
from rlscore.core.rls.confidence import margin
from rlscore.query.protocol.strategy import QueryStrategy

#: relative residual of each conjugate-gradient solve (as :class:`LGCClassifier`'s default)
CG_TOL = 1e-12
#: bytes per stored entry of a sparse graph (float64 value, int64 index at worst)
_ENTRY_BYTES = 16
#: copies of the 2 n k graph entries alive at once (kNN construction, W, the symmetric S)
_GRAPH_COPIES = 4
#: n-vectors besides the per-class ones (degrees, components, u, CG work vectors, scores)
_EXTRA_VECTORS = 10
#: n-vectors per class (U, the probabilities, a copy while normalising)
_VECTORS_PER_CLASS = 3


class LGCQuery(QueryStrategy):
    """Uncertainty sampling on Local and Global Consistency over the pool's kNN graph
    (Sheng §3.2, Zhou et al. 2004).

    ``predict_proba`` is ``F* = (1 − α)(I − αS)⁻¹Y`` (Sheng eq. 3.5) clipped at 0 with rows
    normalised to one, ``scores()`` the margin ``p_(1) − p_(2)`` between the two most probable
    classes (lower is queried first, NaN for labeled points), ``estimated_risk()`` the expected
    number of errors ``Σ_{unlabeled} (1 − max_t p_t)``. The kernel parameters of a session
    (``kernel``, ``sigma``, ``lam``, …) do not apply: LGC builds its own graph, and
    :func:`~rlscore.query.protocol.registry.make_strategy` drops them.

    Parameters
    ----------
    graph_k : int
        Neighbours of the symmetric binary kNN graph (an edge when either point is among the
        other's ``graph_k`` nearest, Euclidean distance), as the graph kernels (default 6).
    alpha : float
        0 < α < 1 (Sheng eq. 3.2): how far labels spread. Default 0.99, Zhou et al.'s choice
        for classification (labels reach the whole component); the ranking regime α ≈ 0.001
        of docs/mathematics.md §8 spreads them a few hops only.
    normalization : {"random_walk", "symmetric"}
        ``S = D⁻¹W`` (Sheng eq. 3.5, docs/mathematics.md §8: rows of ``F*`` sum to one) or
        ``S = D^{-1/2}WD^{-1/2}`` (Zhou et al.).

    Attributes (after :meth:`start`)
    --------------------------------
    graph_ : scipy.sparse.csr_matrix
        The kNN graph ``W`` (n × n, O(n k) entries).
    unreached_ : ndarray (n,) bool
        Points in components of the graph without a labeled point (uniform probabilities).
    n_iter_ : int
        Conjugate-gradient iterations of the last solve.
    """

    def __init__(
        self, graph_k: int = 6, alpha: float = 0.99, normalization: str = "random_walk"
    ) -> None:
        self.graph_k = graph_k
        self.alpha = alpha
        self.normalization = normalization

    # -- memory ----------------------------------------------------------------------------
    def needs_pool_kernel(self) -> bool:
        """False: LGC builds its sparse kNN graph itself and never uses an n × n kernel."""
        return False

    def memory_bytes(self, n: int, n_classes: int = 2) -> int:
        """Bytes the strategy needs on a pool of ``n`` points: O(n (k + T)), no n × n term.

        Parameters
        ----------
        n
            Pool size.
        n_classes
            Number of classes T.

        Returns
        -------
        int
            ``_GRAPH_COPIES`` copies of the ``2 n k`` graph entries (``_ENTRY_BYTES`` each) plus
            ``_VECTORS_PER_CLASS · T + _EXTRA_VECTORS`` float64 n-vectors.
        """
        k = self._graph_k()
        entries = 2 * n * min(k, max(n - 1, 1))
        graph = _GRAPH_COPIES * _ENTRY_BYTES * entries
        return graph + vectors_bytes(n, _VECTORS_PER_CLASS * n_classes + _EXTRA_VECTORS)

    # -- state -----------------------------------------------------------------------------
    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        """Build the kNN graph and the symmetric system (a given ``K`` is not used)."""
        n, T = X.shape[0], self.classes_.size
        self._alpha = check_alpha(self.alpha)
        if self.normalization not in NORMALIZATIONS:
            raise ValueError(
                f"normalization must be one of {NORMALIZATIONS}, got {self.normalization!r}"
            )
        k = self._graph_k()
        require_memory(
            self.memory_bytes(n, T),
            f"{type(self).__name__} on a pool of {n} points ({k}-nearest-neighbour graph)",
        )
        W = knn_graph(X, k=k)  # every point has ≥ k neighbours: all degrees are positive
        deg = np.asarray(W.sum(axis=1)).ravel()
        self._r = 1.0 / np.sqrt(deg)
        self._sqrt_deg = np.sqrt(deg)
        self._S_sym = sp.csr_matrix(sp.diags(self._r) @ W @ sp.diags(self._r))
        self._max_iter = _cg_iterations(self._alpha, CG_TOL)
        self.graph_ = W
        _, self._components = connected_components(W, directed=False)
        self.n_iter_ = 0
        # u = (I − αS)⁻¹ 1: exactly 1/(1 − α) for the row-stochastic S = D⁻¹W
        if self.normalization == "random_walk":
            self._u = np.full(n, 1.0 / (1.0 - self._alpha))
        else:
            self._u = self._solve(np.ones(n))
        self._U = np.zeros((n, T))
        self._refresh()

    def _add(self, i: int, c: int) -> None:
        self._U[:, c] += self._unit_solution(i)
        self._refresh(extra=i)

    def _remove(self, pos: int) -> None:
        i = self.labeled_[pos]
        c = self.class_index(self.labels_[pos])
        self._U[:, c] -= self._unit_solution(i)
        self._refresh(drop=pos)

    def _graph_k(self) -> int:
        k = self.graph_k
        if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
            raise ValueError(f"graph_k must be a positive integer, got {k!r}")
        return int(k)

    # -- the linear algebra ----------------------------------------------------------------
    def _solve(self, b: np.ndarray) -> np.ndarray:
        """``z`` with ``(I − αD^{-1/2}WD^{-1/2}) z = b`` by conjugate gradients."""
        alpha, S = self._alpha, self._S_sym
        Z, self.n_iter_ = _block_cg(
            lambda P: P - alpha * (S @ P), b.reshape(-1, 1), CG_TOL, self._max_iter
        )
        return Z[:, 0]

    def _unit_solution(self, i: int) -> np.ndarray:
        """``g_i = (I − αS)⁻¹ e_i``: for ``S = D⁻¹W``, ``I − αS = D^{-1/2}(I − αS_sym)D^{1/2}``
        gives ``g_i = D^{-1/2}(I − αS_sym)⁻¹ √d_i e_i``."""
        b = np.zeros(self.n_pool_)
        if self.normalization == "random_walk":
            b[i] = self._sqrt_deg[i]
            return self._r * self._solve(b)
        b[i] = 1.0
        return self._solve(b)

    def _refresh(self, extra: int | None = None, drop: int | None = None) -> None:
        """Recompute ``F*``, the probabilities and the unreached points from ``U``.

        ``_add`` runs before the base class appends its label and ``_remove`` before it drops
        one, so the labeled set of the new state is passed in.
        """
        labeled = list(self.labeled_)
        if drop is not None:
            labeled.pop(drop)
        if extra is not None:
            labeled.append(extra)
        T = self.classes_.size
        U = self._U
        F = (1.0 - self._alpha) * (U + (self._u - U.sum(axis=1))[:, None] / T)
        self.F_ = F
        reached = np.zeros(self._components.max() + 1, dtype=bool)
        reached[self._components[labeled]] = True
        self.unreached_ = ~reached[self._components]
        P = np.clip(F, 0.0, None)
        total = P.sum(axis=1, keepdims=True)
        P = np.divide(P, total, out=np.full_like(P, 1.0 / T), where=total > 0)
        P[self.unreached_] = 1.0 / T  # every column of F* is the same there: an exact tie
        self._P = P

    # -- outputs ---------------------------------------------------------------------------
    def predict_proba(self) -> np.ndarray:
        """Class probabilities on the pool (n, T): rows of ``F*`` (Sheng eq. 3.5), negatives
        clipped to 0, normalised to sum to one (uniform in components without a label)."""
        self._check_started()
        return self._P.copy()

    def decision_function(self) -> np.ndarray:
        """Decision values: ``p_1 − p_0`` ∈ [−1, 1] for two classes (positive means
        ``classes_[1]``), ``2P − 1`` (n × T) otherwise; the base class's soft probabilities of
        these values are :meth:`predict_proba` again."""
        self._check_started()
        P = self._P
        return P[:, 1] - P[:, 0] if P.shape[1] == 2 else 2.0 * P - 1.0

    def scores(self) -> np.ndarray:
        """Margin ``p_(1) − p_(2)`` of the two most probable classes, lower is better; NaN for
        labeled points."""
        self._check_started()
        s = margin(self._P)
        s[self.labeled_] = np.nan
        return s

    def estimated_risk(self) -> float:
        """Expected number of errors on the unlabeled points, ``Σ_i (1 − max_t p_it)``."""
        self._check_started()
        unl = np.ones(self.n_pool_, dtype=bool)
        unl[self.labeled_] = False
        return float(np.sum(1.0 - self._P[unl].max(axis=1)))


__all__ = ["LGCQuery"]
