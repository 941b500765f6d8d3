"""Kernel logistic regression (KLR), the estimator: supervised on vector kernels, transductive
on graph kernels. It minimises ``(λ/2)‖f‖²_K + Σ_labeled −log P(y_j | x_j)`` by Newton's
method (:mod:`rlscore.core.klr.newton`, docs/mathematics.md §6).

Scikit-learn terms for the transductive case: a graph kernel lives on the pool only, so
``fit(X_pool, y)`` takes the **whole pool** with unlabeled points marked in ``y`` (NaN for a
float ``y``, None for an object ``y``, or the value given as ``unlabeled``, e.g. ``-1`` in
scikit-learn's semi-supervised convention when −1 is not a class). ``transduction_`` holds the
predicted labels of the pool and ``predict(X_pool)`` / ``predict_proba(X_pool)`` accept only
that same pool. Vector kernels ignore unlabeled rows (they do not change the supervised
optimum; only the data-adaptive width ``sigma="median"`` reads them) and predict on any X.
``kernel="precomputed"`` takes the n × n training (or pool) kernel in ``fit`` and the
(m × n) kernel between new points and the training points in ``predict``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.conventions.parameter_constraints import (
    Booleans,
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.conventions.partial_labels import validate_partial_labels
from rlscore.core.kernels.functions import (
    GRAPH_ALIASES,
    GRAPH_KERNELS,
    VECTOR_KERNELS,
    graph_kernel,
    is_graph_kernel,
    kernel_matrix,
)
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA, check_width, fitted_sigma
from rlscore.core.klr.link import probabilities
from rlscore.core.klr.newton import newton_graph, newton_representer

__all__ = ["KLR_KERNELS", "KernelLogisticRegression"]

#: the kernels the estimator takes: vector kernels, graph kernels on the pool, a precomputed one
KLR_KERNELS = (*VECTOR_KERNELS, *GRAPH_KERNELS, *GRAPH_ALIASES, "precomputed")


class KernelLogisticRegression(ClassifierMixin, BaseEstimator):
    """Kernel logistic regression, binary (logistic) or multiclass (softmax),
    docs/mathematics.md §6.

    Minimises ``(λ/2)‖f‖²_K + Σ_labeled −log P(y_j | x_j)``; with a linear kernel this is
    scikit-learn's ``LogisticRegression(C=1/lam, fit_intercept=False)`` (multinomial for three
    or more classes).

    Parameters
    ----------
    lam : float
        Regularisation λ > 0.
    kernel : str
        ``"rbf"`` (default), ``"linear"``, ``"polynomial"``, ``"precomputed"``, or a graph
        kernel on the pool: ``"graph"`` (= ``"normalized_regularized"``, Yajima's
        ``(I + tL̃)⁻¹``), ``"regularized"``, ``"diffusion"``, ``"von_neumann"``.
    sigma : float or {"median", "scale"}
        RBF width σ (docs/mathematics.md §1), or a rule reading it off the rows passed to ``fit``
        (unlabeled
        rows included): ``"median"`` (default), the median distance between two points;
        ``"scale"``, scikit-learn's ``gamma="scale"`` (:mod:`rlscore.core.kernels.rbf_width`).
    degree : int
        Polynomial degree.
    graph_k, graph_t, graph_metric, graph_weights : the kNN graph and graph-kernel scale.
    graph_connect : bool — join the graph's connected components by their closest pairs
        (default; :func:`rlscore.core.kernels.functions.knn_graph`).
    solver : ``"auto"``, ``"representer"`` or ``"sparse"``
        ``"sparse"`` (the default for the two regularized graph kernels) runs Newton on the
        sparse ``λK⁻¹ + Z``; ``"representer"`` runs Newton in ``α`` on the labeled points.
    unlabeled : object or None
        Marker of unlabeled points in ``y`` (:mod:`rlscore.core.conventions.missing_labels`): None
        or NaN mean NaN (float y) or None/NaN (object y); e.g. ``-1`` for scikit-learn's convention.
    tol, max_iter : Newton stopping rule (largest gradient entry) and iteration cap.

    Attributes
    ----------
    classes_ : ndarray — sorted labels; for binary problems ``classes_[1]`` is the positive one.
    dual_coef_ : ndarray (l, h') — ``α`` of the labeled training points.
    labeled_ : ndarray — indices (into the rows passed to ``fit``) of the labeled points.
    transduction_ : ndarray — predicted labels of every row passed to ``fit``.
    n_iter_ : int — Newton steps taken.
    sigma_ : float or None — the RBF width used (None for the other kernels).
    """

    parameter_constraints = {
        "lam": (Interval(Real, 0, None, closed="neither"),),
        "kernel": (Options(*KLR_KERNELS),),
        "sigma": (Validated(check_width),),
        "degree": (Interval(Integral, 1, None),),
        "graph_k": (Interval(Integral, 1, None),),
        "graph_t": (Interval(Real, 0, None, closed="neither"), Options(None)),
        "graph_metric": (Options("euclidean", "cosine"),),
        "graph_weights": (Options("binary", "heat"),),
        "graph_connect": (Booleans(),),
        "solver": (Options("auto", "representer", "sparse"),),
        "tol": (Interval(Real, 0, None, closed="neither"),),
        "max_iter": (Interval(Integral, 1, None),),
    }

    def __init__(
        self,
        lam: float = 1.0,
        *,
        kernel: str = "rbf",
        sigma: float | str = DEFAULT_SIGMA,
        degree: int = 2,
        graph_k: int = 6,
        graph_t: float | None = None,
        graph_metric: str = "euclidean",
        graph_weights: str = "binary",
        graph_connect: bool = True,
        solver: str = "auto",
        unlabeled=None,
        tol: float = 1e-8,
        max_iter: int = 100,
    ):
        self.lam = lam
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.graph_k = graph_k
        self.graph_t = graph_t
        self.graph_metric = graph_metric
        self.graph_weights = graph_weights
        self.graph_connect = graph_connect
        self.solver = solver
        self.unlabeled = unlabeled
        self.tol = tol
        self.max_iter = max_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y) -> KernelLogisticRegression:
        """Fit on ``X`` (samples, or the pool for graph kernels, or a kernel) and labels ``y``.

        Unlabeled rows (see ``unlabeled``) are allowed; graph kernels use them through the
        graph, the other kernels ignore them (but for the RBF width rule, ``sigma``).
        """
        check_parameters(self)
        lam, tol, kernel = float(self.lam), float(self.tol), self.kernel
        X, y, labeled = validate_partial_labels(self, X, y, self.unlabeled, dtype=np.float64)
        n = X.shape[0]
        if kernel == "precomputed" and X.shape != (n, n):
            raise ValueError(f"kernel='precomputed' needs a square n × n kernel, got {X.shape}")
        classes, codes = np.unique(y[labeled], return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"the labeled points have only one class ({classes[0]!r}): kernel logistic "
                "regression needs at least two classes"
            )
        T = ova_targets(codes, classes.size, negative=0.0)
        self.classes_ = classes
        self.labeled_ = labeled
        self.sigma_ = fitted_sigma(self.sigma, kernel, X)
        if is_graph_kernel(kernel):
            self._fit_graph(X, labeled, T, lam, tol)
        else:
            if kernel == "precomputed":
                K_LL = X[np.ix_(labeled, labeled)]
                self.X_fit_ = None
            else:
                self.X_fit_ = X[labeled]
                K_LL = self._vector_kernel(self.X_fit_, None)
            alpha, self.n_iter_ = newton_representer(
                K_LL, T, lam, tol=tol, max_iter=int(self.max_iter)
            )
            self.dual_coef_ = alpha
            self.pool_decision_ = None
            self.transduction_ = self.predict(X)
        return self

    def _fit_graph(self, X, labeled, T, lam, tol) -> None:
        gk = graph_kernel(
            X,
            kind=self.kernel,
            k=self.graph_k,
            metric=self.graph_metric,
            weights=self.graph_weights,
            t=self.graph_t,
            connect=self.graph_connect,
        )
        solver = self.solver
        if solver == "auto":
            solver = "sparse" if gk.K_inv is not None else "representer"
        if solver == "sparse":
            if gk.K_inv is None:
                raise ValueError(
                    f"solver='sparse' needs a sparse K⁻¹, which the {gk.kind!r} kernel lacks: "
                    "use solver='representer'"
                )
            beta, self.n_iter_ = newton_graph(
                gk.K_inv, labeled, T, lam, tol=tol, max_iter=int(self.max_iter)
            )
            # at the optimum λα = t − p on the labeled points (β = K_{:L} α)
            self.dual_coef_ = (T - probabilities(beta[labeled])) / lam
        else:
            K_LL = gk.K[np.ix_(labeled, labeled)]
            alpha, self.n_iter_ = newton_representer(
                K_LL, T, lam, tol=tol, max_iter=int(self.max_iter)
            )
            self.dual_coef_ = alpha
            beta = gk.K[:, labeled] @ alpha
        self.graph_kernel_ = gk
        self.X_fit_ = X
        self.pool_decision_ = beta
        self.transduction_ = self._labels_from(beta)

    def _vector_kernel(self, X, Z):
        return kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma_, degree=self.degree)

    # -- prediction ----------------------------------------------------------------------------
    def _raw_decision(self, X) -> np.ndarray:
        check_is_fitted(self, "dual_coef_")
        # n_features_in_ is the pool's width, or the training rows of a precomputed kernel
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if is_graph_kernel(self.kernel):
            if X.shape != self.X_fit_.shape or not np.array_equal(X, self.X_fit_):
                raise ValueError(
                    f"the {self.kernel!r} graph kernel is transductive: it predicts only the pool "
                    "passed to fit (use transduction_, or refit on a pool including the new "
                    "points)"
                )
            return self.pool_decision_
        if self.kernel == "precomputed":
            return X[:, self.labeled_] @ self.dual_coef_
        return self._vector_kernel(X, self.X_fit_) @ self.dual_coef_

    def decision_function(self, X) -> np.ndarray:
        """Decision values: (n,) for binary (positive = ``classes_[1]``), (n, h) softmax logits."""
        F = self._raw_decision(X)
        return F[:, 0] if F.shape[1] == 1 else F

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (n, h), columns in ``classes_`` order."""
        P = probabilities(self._raw_decision(X))
        if P.shape[1] == 1:
            return np.column_stack([1.0 - P[:, 0], P[:, 0]])
        return P

    def predict(self, X) -> np.ndarray:
        """Most probable class of each row."""
        return self._labels_from(self._raw_decision(X))

    def _labels_from(self, F: np.ndarray) -> np.ndarray:
        if F.shape[1] == 1:
            return self.classes_[(F[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]
