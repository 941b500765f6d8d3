"""The LGC classifier: transductive classification and ranking of a pool by Local and Global
Consistency (Sheng §3.2, Zhou et al. 2004; the mathematics: :mod:`rlscore.core.graph.lgc`), in
scikit-learn style like its ``LabelSpreading``.

**scikit-learn.** ``LabelSpreading`` is the symmetric form with zero initial rows, its output
rows normalised (our ``label_distributions_``). Given the same affinity (a callable kernel
returning ``W``) the two agree exactly. With ``kernel="knn", n_neighbors=m`` it uses the
*directed* graph of the m nearest points (each point its own neighbour, self-loops then
ignored, in-degrees): this equals our symmetrised (m − 1)-NN graph only when the (m − 1)-NN
relation is mutual (``tests/test_lgc.py``).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.parameter_constraints import (
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.conventions.partial_labels import validate_partial_labels
from rlscore.core.graph.lgc import (
    NORMALIZATIONS,
    SOLVERS,
    UNLABELED_INITS,
    Affinity,
    check_affinity,
    check_alpha,
    initial_labels,
    lgc_solve,
)
from rlscore.core.kernels.functions import knn_graph

__all__ = ["LGCClassifier"]


class LGCClassifier(ClassifierMixin, BaseEstimator):
    """Local and Global Consistency (Sheng §3.2, Zhou et al. 2004): transductive classifier and
    ranker on a graph over the pool, in scikit-learn style (like ``LabelSpreading``).

    ``fit(X, y)`` takes the **whole pool** with unlabeled points marked in ``y`` (see
    ``unlabeled``); ``transduction_`` holds the labels of every pool point (row argmax of
    ``F*``, Sheng Algorithm 4 step 4) and :meth:`rank` orders the pool by one column.

    Parameters
    ----------
    n_neighbors : int
        k of the symmetric kNN graph (:func:`rlscore.core.kernels.functions.knn_graph`; an edge when
        either point is among the other's k nearest).
    alpha : float
        0 < α < 1 (Sheng eq. 3.2). Large α trusts the graph more; the thesis (§3.3) finds the
        accuracy sensitive to α when the labeled classes are unbalanced. Default 0.2
        (scikit-learn's ``LabelSpreading``); rank with α ≈ 0.001 (docs/mathematics.md §8,
        Sheng §3.4).
    normalization : {"random_walk", "symmetric"}
        ``S = D⁻¹W`` (Sheng, docs/mathematics.md §8; rows of ``F*`` sum to one with uniform init) or
        ``D^{-1/2}WD^{-1/2}`` (Zhou, scikit-learn).
    unlabeled_init : {"uniform", "zeros"}
        Initial rows of unlabeled points: ``1/c`` (Sheng §3.2.1, docs/mathematics.md §8) or 0 (Zhou,
        scikit-learn). The argmax does not depend on it; rankings do.
    affinity : {"knn", "precomputed"}
        ``"precomputed"``: ``X`` is the (n, n) symmetric non-negative affinity ``W`` (dense or
        sparse), e.g. Sheng's fully connected RBF or cosine similarity (eq. 3.46).
    metric, weights, heat_width
        The kNN graph: ``"euclidean"`` or ``"cosine"`` distances, binary or heat weights
        ``exp(−‖x_i − x_j‖²/heat_width²)``.
    solver : {"cg", "direct"}
        Sparse solver of :func:`lgc_solve` (no dense inverse either way).
    tol : float
        CG relative residual.
    unlabeled : object or None
        Marker of unlabeled points in ``y`` (:mod:`rlscore.core.conventions.missing_labels`): None
        or NaN mean NaN (float ``y``) or None/NaN (object ``y``); pass ``-1`` for scikit-learn's
        convention (only when −1 is not a class).

    Attributes
    ----------
    classes_ : ndarray (c,) — sorted labels of the labeled points.
    F_ : ndarray (n, c) — ``F* = (1 − α)(I − αS)⁻¹Y`` (Sheng eq. 3.5).
    label_distributions_ : ndarray (n, c) — ``F*`` normalised to rows summing to one (rows of
        zeros stay zero); equal to ``F_`` for the random-walk form with uniform init.
    transduction_ : ndarray (n,) — the label of every pool point.
    unreached_ : ndarray (n,) bool — points in graph components without a labeled point.
    labeled_ : ndarray — indices of the labeled points.
    affinity_ : scipy.sparse.csr_matrix — the graph ``W``.
    n_iter_ : int — CG iterations.
    """

    parameter_constraints = {
        "n_neighbors": (Interval(Integral, 1, None),),
        "alpha": (Validated(check_alpha),),
        "normalization": (Options(*NORMALIZATIONS),),
        "unlabeled_init": (Options(*UNLABELED_INITS),),
        "affinity": (Options("knn", "precomputed"),),
        "metric": (Options("euclidean", "cosine"),),
        "weights": (Options("binary", "heat"),),
        "heat_width": (Interval(Real, 0, None, closed="neither"),),
        "solver": (Options(*SOLVERS),),
        "tol": (Interval(Real, 0, 1, closed="neither"),),
    }

    def __init__(
        self,
        n_neighbors: int = 10,
        *,
        alpha: float = 0.2,
        normalization: str = "random_walk",
        unlabeled_init: str = "uniform",
        affinity: str = "knn",
        metric: str = "euclidean",
        weights: str = "binary",
        heat_width: float = 1.0,
        solver: str = "cg",
        tol: float = 1e-12,
        unlabeled: object = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.alpha = alpha
        self.normalization = normalization
        self.unlabeled_init = unlabeled_init
        self.affinity = affinity
        self.metric = metric
        self.weights = weights
        self.heat_width = heat_width
        self.solver = solver
        self.tol = tol
        self.unlabeled = unlabeled

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.affinity == "precomputed"
        tags.input_tags.sparse = self.affinity == "precomputed"
        tags.input_tags.positive_only = self.affinity == "precomputed"  # W ≥ 0
        return tags

    def _graph(self, X: np.ndarray | sp.csr_matrix) -> sp.csr_matrix:
        """The affinity ``W`` of the validated pool ``X`` (or ``X`` itself when precomputed)."""
        if self.affinity == "precomputed":
            return check_affinity(X)
        if self.n_neighbors >= X.shape[0]:
            raise ValueError(
                f"n_neighbors={self.n_neighbors} needs more than {self.n_neighbors} points, "
                f"X has {X.shape[0]}"
            )
        return knn_graph(
            X,
            k=int(self.n_neighbors),
            metric=self.metric,
            weights=self.weights,
            heat_width=self.heat_width,
        )

    def fit(self, X: np.ndarray | Affinity, y: np.ndarray) -> LGCClassifier:
        """Spread the labels of ``y`` over the graph of the pool ``X``.

        Parameters
        ----------
        X
            (n, d) pool, or the (n, n) affinity with ``affinity="precomputed"``.
        y
            (n,) labels with unlabeled points marked (see ``unlabeled``); at least two classes
            must have a labeled point.
        """
        check_parameters(self)
        X, y, labeled = validate_partial_labels(
            self,
            X,
            y,
            self.unlabeled,
            dtype=np.float64,
            accept_sparse="csr" if self.affinity == "precomputed" else False,
            ensure_min_samples=2,
        )
        W = self._graph(X)
        n = W.shape[0]
        classes, codes_l = np.unique(y[labeled], return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"the labeled points have only one class ({classes.tolist()[0]!r}): LGC "
                "classification "
                "needs two; for positive-only data use rlscore.core.graph.ocl.GraphOCL or "
                "lgc_solve with initial_labels(codes, 2)"
            )
        codes = np.full(n, -1, dtype=np.intp)
        codes[labeled] = codes_l
        Y = initial_labels(codes, classes.size, self.unlabeled_init)
        sol = lgc_solve(
            W, Y, self.alpha, self.normalization, solver=self.solver, tol=float(self.tol)
        )
        _, comp = connected_components(W, directed=False)
        reached = np.zeros(comp.max() + 1, dtype=bool)
        reached[comp[labeled]] = True
        unreached = ~reached[comp]
        if unreached.any():
            # every column of Y is the same there, hence every column of F*: make the tie exact
            # (rounding would otherwise pick a class at random)
            for M in (sol.F, sol.H):
                M[unreached] = M[unreached].mean(axis=1, keepdims=True)
            warnings.warn(
                f"{int(unreached.sum())} of {n} points lie in graph components without a "
                "labeled point: their rows of F* are ties (1/c with the default uniform rows "
                f"and S = D⁻¹W, 0 with zeros) and they are assigned {classes.tolist()[0]!r} by "
                "convention; see unreached_ (raise n_neighbors or label a point in each "
                "component)",
                UserWarning,
                stacklevel=2,
            )
        self.unreached_ = unreached
        self.classes_ = classes
        self.labeled_ = labeled
        self.affinity_ = W
        self.F_ = sol.F
        self._H = sol.H
        self.n_iter_ = sol.n_iter
        total = sol.F.sum(axis=1, keepdims=True)
        self.label_distributions_ = sol.F / np.where(total > 0, total, 1.0)
        self.transduction_ = classes[np.argmax(sol.F, axis=1)]
        self._X_fit = W if self.affinity == "precomputed" else X
        return self

    # -- transductive outputs ------------------------------------------------------------------
    def _check_pool(self, X: np.ndarray | Affinity) -> None:
        check_is_fitted(self, "F_")
        precomputed = self.affinity == "precomputed"
        # a sparse matrix is never the dense pool of a kNN model (it is the pool's affinity)
        same = precomputed or not sp.issparse(X)
        if same:
            sparse = "csr" if precomputed else False
            X = validate_data(self, X, dtype=np.float64, accept_sparse=sparse, reset=False)
            ref = self._X_fit
            if precomputed:  # the fitted affinity, dense or sparse
                A = sp.csr_matrix(X)
                same = A.shape == ref.shape and (A != ref).nnz == 0
            else:
                same = X.shape == ref.shape and np.array_equal(X, ref)
        if not same:
            raise ValueError(
                "LGC is transductive: it predicts only the pool passed to fit (use "
                "transduction_, or refit on a pool that includes the new points)"
            )

    def predict(self, X: np.ndarray | Affinity) -> np.ndarray:
        """Labels of the pool (``X`` must be the pool passed to ``fit``)."""
        self._check_pool(X)
        return self.transduction_

    def predict_proba(self, X: np.ndarray | Affinity) -> np.ndarray:
        """:attr:`label_distributions_` of the pool (``X`` must be the fitted pool)."""
        self._check_pool(X)
        return self.label_distributions_

    def rank(self, label: object, *, descending: bool = True) -> np.ndarray:
        """Pool indices ordered by the column of ``label`` in ``F*`` (Sheng Algorithm 4, ranking).

        Parameters
        ----------
        label
            A class of ``classes_``.
        descending
            Most relevant first (default) or least relevant first (the reliable negatives of
            Graph-OCL, Sheng §3.5.1).

        Returns
        -------
        ndarray (n,)
            Indices; exact ties keep index order. Ties of ``F*`` in floating point among points
            with equal initial rows are broken by ``H`` (see :class:`LGCSolution`).
        """
        check_is_fitted(self, "F_")
        hit = np.flatnonzero(self.classes_ == label)
        if hit.size != 1:
            raise ValueError(f"unknown class {label!r}: choose one of {self.classes_.tolist()}")
        k = int(hit[0])
        sign = -1.0 if descending else 1.0
        # lexsort: last key is primary
        return np.lexsort((np.arange(self.F_.shape[0]), sign * self._H[:, k], sign * self.F_[:, k]))
