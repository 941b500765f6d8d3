"""The multi-label RLS state over a pool: one binary RLS per class, one shared covariance.

A multi-label project's label is a set of classes (:mod:`rlscore.core.conventions.label_sets`);
for the engine it is a row of ±1 targets, one per class (``multi_hot(..., negative=-1)``). All L
binary problems share the kernel, λ and the labeled points, so they share the posterior
covariance ``D = K − K_{:L}(K_LL + λI)⁻¹K_{L:}`` (docs/mathematics.md §5) and differ only in
their targets: the predictions are ``m = K_{:L}(K_LL + λI)⁻¹ Y_L``, (n, L), one solve with L
right-hand sides. Teaching point i is the single-label rank-one update with a row of L targets,
``m ← m + d_i (y − m_i)/s_i``, ``D ← D − d_i d_iᵀ/s_i`` with ``d_i = D_{:i}``,
``s_i = D_ii + λ``; removing a label adds ``u uᵀ/Gi_jj`` back to ``D`` and refits ``m`` from the
remaining labels, as for one label (docs/multilabel.md §2).

With ``class_weight="balanced"`` each class weighs its own two sides, as
:class:`~rlscore.core.rls.multilabel.MultiLabelRLS` does
(:func:`~rlscore.core.rls.multilabel.label_weights`: over the l labels a member of class k
weighs ``l/(2 l_k)``, a non-member ``l/(2(l − l_k))``): class k solves
``(K_LL + λA_k⁻¹)c_k = y_k`` and has its own covariance
``D_k = K − K_{:L}(K_LL + λA_k⁻¹)⁻¹K_{L:}`` (classes with equal weights share one). A label
changes the counts, hence the weights, so the weighted state is rebuilt from the labels after
every change instead of updated.

:class:`MultiLabelStrategy` keeps this state and the bookkeeping of label sets (teach, undo,
forget, replay, predictions as sets); the strategies of :mod:`rlscore.query.multilabel.strategies`
only define :meth:`~MultiLabelStrategy.scores`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.linalg

from rlscore.core.conventions.input_validation import check_matrix, check_positive
from rlscore.core.conventions.label_sets import label_set, multi_hot
from rlscore.core.conventions.memory_budget import require_memory, square_matrices_bytes
from rlscore.core.kernels.functions import is_graph_kernel, kernel_matrix
from rlscore.core.rls.multilabel import label_weights
from rlscore.query.protocol.strategy import QueryStrategy
from rlscore.query.rls_state.on_kernel import _symmetric_rank_one
from rlscore.query.rls_state.weighted import pool_risk


class MultiLabelStrategy(QueryStrategy):
    """Incremental multi-label RLS over a pool: the state every multi-label strategy shares.

    Follows :class:`~rlscore.query.protocol.strategy.QueryStrategy` with **label sets as
    labels**: ``teach(i, ("news", "sports"))``, ``teach(i, ())`` ("none of these");
    :attr:`labels_` holds tuples of classes in class order. Subclasses define :meth:`scores`.

    Parameters
    ----------
    kernel : str
        A kernel name (:mod:`rlscore.core.kernels.functions`).
    sigma : float or str
        RBF width σ, or a rule such as ``"median"``.
    degree : int
        Polynomial degree.
    lam : float
        Regularisation λ > 0, ``(K_LL + λI) c = Y_L`` (docs/mathematics.md §1).
    graph_k, graph_t
        The kNN graph of a graph kernel.
    class_weight : None or "balanced"
        Loss weights per class (module docstring), so a rare class is not drowned by its
        non-members. ARLS's expected risk stays the unweighted sum of the binary risks.

    Attributes (after :meth:`start`)
    --------------------------------
    labels_ : list of tuple
        The label set of each labeled point, in teaching order.
    """

    #: whether the posterior covariance ``D`` is kept (ARLS's lookahead needs it); without it
    #: every change refits the predictions from the labels in O(l³ + n l)
    _keeps_covariance: bool = True
    #: within :meth:`teach_many` with weights: the labels are built once at the end
    _replaying: bool = False

    _K: np.ndarray
    #: the posterior covariances, one per group of classes with equal weights (none for the
    #: strategies without); ``_group_of[k]``: the position of class k's
    _Ds: list[np.ndarray]
    _group_of: np.ndarray
    #: loss weights (l, L) of the labeled points in teaching order, and those a new
    #: non-member (row 0) or member (row 1) of each class would get now, (2, L)
    _A: np.ndarray
    _side: np.ndarray
    _m: np.ndarray
    _lam: float
    _version: int
    #: the scores of a version (``_version``), for strategies that cache them
    _scores_cache: tuple | None

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 1.0,
        graph_k: int = 6,
        graph_t: float | None = None,
        class_weight: None | str = None,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.graph_k = graph_k
        self.graph_t = graph_t
        self.class_weight = class_weight

    # -- state -----------------------------------------------------------------------------
    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        n, L = X.shape[0], self.classes_.size
        self._lam = check_positive(self.lam, "lam")
        check_set_weight(self.class_weight)
        count = int(K is None) + self._covariances(L)
        require_memory(
            square_matrices_bytes(n, count),
            f"{type(self).__name__} on a pool of {n} points ({count} × {n} × {n} float64)",
        )
        self._K = self.pool_kernel(X) if K is None else K
        self._Ds = [np.array(self._K, order="C")] if self._keeps_covariance else []
        self._group_of = np.zeros(L, dtype=np.intp)
        self._A, self._side = np.ones((0, L)), np.ones((2, L))
        self._m = np.zeros((n, L))
        self._version = 0
        self._scores_cache = None

    def memory_bytes(self, n: int) -> int:
        """Bytes the strategy holds on a pool of ``n`` points: the kernel and its covariances
        ``D``, n × n float64 matrices (:meth:`_covariances`; before :meth:`start` the classes
        count as 2)."""
        classes = self.classes_.size if hasattr(self, "classes_") else 2
        return square_matrices_bytes(n, 1 + self._covariances(classes))

    def _covariances(self, n_classes: int) -> int:
        """Covariances ``D`` kept at most: one per class with balanced weights, else one (none
        for the strategies without)."""
        if not self._keeps_covariance:
            return 0
        return n_classes if self.class_weight == "balanced" else 1

    def _targets(self, sets) -> np.ndarray:
        """±1 targets (m, L) of label sets."""
        return multi_hot(sets, self.classes_.tolist(), negative=-1.0)

    def _refit(self, labeled: list[int], sets: list[tuple]) -> np.ndarray:
        """``m = K_{:L}(K_LL + λA⁻¹)⁻¹ Y_L``: one Cholesky solve per group of classes with
        equal weights, with their targets as right-hand sides (one group without weights)."""
        if not labeled:
            return np.zeros_like(self._m)
        L = np.asarray(labeled, dtype=np.intp)
        Y = self._targets(sets)
        A = label_weights((Y > 0).astype(np.float64), self.class_weight)
        coef = np.empty_like(Y)
        for cols in weight_groups(A):
            G = scipy.linalg.cho_factor(self._gram(L, A[:, cols[0]]))
            coef[:, cols] = scipy.linalg.cho_solve(G, Y[:, cols])
        return self._K[:, L] @ coef

    def _gram(self, L: np.ndarray, a: np.ndarray | None = None) -> np.ndarray:
        """``K_LL + λ diag(1/a)``, ``a`` the labeled points' loss weights (None: all 1)."""
        G = self._K[np.ix_(L, L)]
        G[np.diag_indices_from(G)] += self._lam if a is None else self._lam / a
        return G

    def _rebuild(self, labeled: list[int], sets: list[tuple]) -> None:
        """The weighted state from the labels: the weights, ``m`` and one
        ``D = K − K_{:L}(K_LL + λA_k⁻¹)⁻¹K_{L:}`` per group of classes with equal weights."""
        Y01 = (self._targets(sets) > 0).astype(np.float64)
        self._A = label_weights(Y01, self.class_weight)
        self._side = side_weights(self._A, Y01)
        self._m = self._refit(labeled, sets)
        if not self._keeps_covariance:
            return
        groups = weight_groups(self._A)
        L = np.asarray(labeled, dtype=np.intp)
        del self._Ds[len(groups) :]  # reuse the matrices already allocated
        while len(self._Ds) < len(groups):
            self._Ds.append(np.empty_like(self._K))
        for g, (cols, D) in enumerate(zip(groups, self._Ds, strict=True)):
            self._group_of[cols] = g
            D[...] = self._K
            if L.size:
                G = scipy.linalg.cho_factor(self._gram(L, self._A[:, cols[0]]))
                D -= self._K[:, L] @ scipy.linalg.cho_solve(G, self._K[L])

    def _add_set(self, i: int, labels: tuple) -> None:
        """The rank-one update of ``m`` and ``D`` by point ``i`` with label set ``labels``
        (with weights a rebuild: the new label changes them)."""
        if self._replaying:
            return  # teach_many builds the weighted state once at the end
        if self.class_weight is not None:
            self._rebuild([*self.labeled_, i], [*self.labels_, labels])
        elif not self._Ds:
            self._m = self._refit([*self.labeled_, i], [*self.labels_, labels])
        else:
            y = self._targets([labels])[0]
            D = self._Ds[0]
            d = D[i].copy()
            s = d[i] + self._lam
            self._m += np.outer(d, (y - self._m[i]) / s)
            _symmetric_rank_one(D, d / np.sqrt(s), -1.0)
        self._version += 1

    def _remove(self, pos: int) -> None:
        """Add ``u uᵀ/Gi_jj`` back to ``D`` (``u = K_{:L} Gi e_j``) and refit ``m`` (with
        weights a rebuild from the remaining labels)."""
        rest = self.labeled_[:pos] + self.labeled_[pos + 1 :]
        rest_sets = self.labels_[:pos] + self.labels_[pos + 1 :]
        if self.class_weight is not None:
            self._rebuild(rest, rest_sets)
        else:
            if self._Ds:
                L = np.asarray(self.labeled_, dtype=np.intp)
                g = scipy.linalg.cho_solve(
                    scipy.linalg.cho_factor(self._gram(L)), np.eye(L.size)[pos]
                )
                _symmetric_rank_one(self._Ds[0], (self._K[:, L] @ g) / np.sqrt(g[pos]), 1.0)
            self._m = self._refit(rest, rest_sets)
        self._version += 1

    # -- labels ----------------------------------------------------------------------------
    def teach(self, i: int, label) -> None:
        """Add the label set of pool point ``i`` (a list, tuple or set of classes; empty for
        "none of these"); relabel = :meth:`forget` + teach."""
        i = self._check_index(i)
        if i in self._labeled_set():
            pos = self.labeled_.index(i)
            raise ValueError(
                f"point {i} is already labeled as {self.labels_[pos]!r}: forget it first to relabel"
            )
        labels = label_set(label, self.classes_.tolist())
        self._add_set(i, labels)
        self.labeled_.append(i)
        self.labels_.append(labels)

    def teach_many(self, indices: Sequence[int], labels: Sequence) -> None:
        """Teach several label sets (a session's replay), one after the other; with weights
        the state is built once at the end. If a label is refused, the ones before it stay
        taught."""
        self._replaying = self.class_weight is not None
        try:
            for i, y in zip(indices, labels, strict=True):
                self.teach(i, y)
        finally:
            if self._replaying:
                self._replaying = False
                self._rebuild(list(self.labeled_), list(self.labels_))
                self._version += 1

    def believed_label(self, i: int) -> tuple:
        """The most probable label set of point ``i`` under the current model (the kriging
        believer of batch queries, :mod:`rlscore.query.protocol.batch`)."""
        return predicted_sets(self)[i]

    # -- predictions -----------------------------------------------------------------------
    def decision_function(self, X=None) -> np.ndarray:
        """Decision values (n, L), one column per class; > 0 means "in the set".

        Parameters
        ----------
        X : array (n_z, d), optional
            New points (vector kernels only); the pool when omitted.
        """
        self._check_started()
        if X is None:
            return self._m.copy()
        if is_graph_kernel(self.kernel):
            raise ValueError(
                f"kernel {self.kernel!r} is a graph kernel, defined on the pool only: "
                "it cannot score points outside the pool"
            )
        Z = check_matrix(X, "X")
        if not self.labeled_:
            return np.zeros((Z.shape[0], self.classes_.size))
        L = np.asarray(self.labeled_, dtype=np.intp)
        # the dual coefficients c = A(Y_L − m_L)/λ (eq. 3.54), A the loss weights
        A = 1.0 if self.class_weight is None else self._A
        coef = A * (self._targets(self.labels_) - self._m[L]) / self._lam
        Kz = kernel_matrix(
            Z, self.X_[L], kernel=self.kernel, sigma=self.sigma_ or 1.0, degree=self.degree
        )
        return Kz @ coef

    def decision_function_at(self, Z) -> np.ndarray:
        """Decision values (n_z, L) on new points ``Z``, as the single-label strategies name it."""
        return self.decision_function(Z)

    def predict_at(self, Z) -> list[tuple]:
        """The predicted label sets of new points ``Z`` (:func:`predicted_sets`)."""
        return predicted_sets(self, Z)

    def predict_proba(self) -> np.ndarray:
        """Per-label probabilities that each class is in the set, (n, L):
        ``clip((f + 1)/2, 0, 1)`` (docs/mathematics.md §1); rows do not sum to one."""
        return np.clip((self.decision_function() + 1.0) / 2.0, 0.0, 1.0)

    def predict(self) -> list[tuple]:
        """The predicted label set of every pool point (:func:`predicted_sets`)."""
        return predicted_sets(self)

    def margins(self) -> np.ndarray:
        """The smallest per-label margin ``min_l |f_l(x)|`` of every pool point, (n,)."""
        self._check_started()
        return np.abs(self._m).min(axis=1)

    def estimated_risk(self) -> float:
        """The thesis' binary risk (eq. 3.47) of each label's classifier, summed over labels:
        ``Σ_l Σ_z (1 − min(|f_l(z)|, 1))/2`` (docs/multilabel.md §3)."""
        self._check_started()
        return float(pool_risk(self._m.T.copy(), np.ones(2)).sum())

    def scores(self) -> np.ndarray:
        """Score of every pool point, lower is better; NaN for labeled points."""
        raise NotImplementedError


def check_set_weight(class_weight) -> None:
    """Refuse a ``class_weight`` a multi-label strategy does not take, naming it."""
    if not (class_weight is None or (isinstance(class_weight, str) and class_weight == "balanced")):
        raise ValueError(
            "class_weight of a multi-label project must be none or 'balanced' (each class "
            f"weighs its own members and non-members), got {class_weight!r}"
        )


def weight_groups(A: np.ndarray) -> list[np.ndarray]:
    """The classes (columns of the loss weights ``A``, (l, L)) sharing one weight vector, in
    order of their first class."""
    _, first, which = np.unique(A.T, axis=0, return_index=True, return_inverse=True)
    return [np.flatnonzero(which.ravel() == g) for g in np.argsort(first)]


def side_weights(A: np.ndarray, Y01: np.ndarray) -> np.ndarray:
    """The weights (2, L) a new non-member (row 0) and member (row 1) of each class get in
    ARLS's lookahead: those of its labeled non-members and members now (1 for a side with no
    label: :func:`~rlscore.core.rls.multilabel.label_weights` weighs such a class 1)."""
    side = np.ones((2, A.shape[1]))
    for k in range(A.shape[1]):
        for member in (0, 1):
            rows = np.flatnonzero(Y01[:, k] == member)
            if rows.size:
                side[member, k] = A[rows[0], k]
    return side


def predicted_sets(strategy: QueryStrategy, X=None) -> list[tuple]:
    """The predicted label set of each point: the classes whose decision value is > 0.

    Parameters
    ----------
    strategy
        A started multi-label strategy (:class:`MultiLabelStrategy`).
    X : array (n_z, d), optional
        New points; the pool when omitted.

    Returns
    -------
    list of tuple
        One tuple of classes per point, in class order (``()`` when no class applies).
    """
    F = strategy.decision_function() if X is None else strategy.decision_function(X)
    classes = strategy.classes_.tolist()
    return [tuple(c for c, hit in zip(classes, row, strict=True) if hit) for row in F > 0]


__all__ = [
    "MultiLabelStrategy",
    "check_set_weight",
    "predicted_sets",
    "side_weights",
    "weight_groups",
]
