"""The classifier with specified error rates (Saketha Nath, ch. 2; docs/mathematics.md §8 (c)).

The largest-margin hyperplane whose class moments meet theorem 2.1's cone constraints for the
false-negative and false-positive targets ``η = (η₁, η₂)``
(:mod:`rlscore.core.classifiers.error_bounds`): the separation of two ellipsoids centred at the
class means (:mod:`rlscore.core.classifiers.ellipsoid_separation`), in input space for the
linear kernel and on the kernel's empirical feature map otherwise.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.classifiers.ellipsoid_separation import solve_iterative, solve_socp
from rlscore.core.classifiers.error_bounds import (
    DEFAULT_RIDGE,
    MOMENTS,
    Certificate,
    Moments,
    ProjectedMoments,
    certificate,
    check_targets,
    class_moments,
    kappa,
    kernel_class_traces,
    linear_projected_moments,
    positive_mask,
)
from rlscore.core.conventions.parameter_constraints import (
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.kernels.functions import VECTOR_KERNELS, kernel_matrix
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA, check_width, fitted_sigma

__all__ = ["InfeasibleTargetsError", "InfeasibleTargetsWarning", "SpecifiedErrorClassifier"]

SOLVERS = ("socp", "iterative")
KERNELS = (*VECTOR_KERNELS, "precomputed")


class InfeasibleTargetsError(ValueError):
    """Raised when a classifier fitted with infeasible targets is asked to predict."""


class InfeasibleTargetsWarning(UserWarning):
    """Emitted by :meth:`SpecifiedErrorClassifier.fit` when no classifier meets the targets."""


class SpecifiedErrorClassifier(ClassifierMixin, BaseEstimator):
    """Maximum-margin classifier with specified false-negative and false-positive rates.

    Saketha Nath's formulation (2.3) (linear kernel) and (2.17)–(2.19) (any kernel): the
    largest margin hyperplane whose class moments satisfy theorem 2.1's cone constraints for
    ``η = (η₁, η₂)``, i.e. the separation of two ellipsoids centred at the class means.
    Class 1 (positive) is ``classes_[1]``; η₁ bounds its errors (false negatives), η₂ those of
    ``classes_[0]`` (false positives).

    Kernelised form: with ``K = LLᵀ`` (``L = U_rΛ_r^{1/2}`` from ``eigh``, eigenvalues below
    ``rank_rtol·λ_max`` dropped, so a singular K works), ``v = Lᵀs``, ``h_i = L⁺g_i`` and
    ``H_i = L⁺G_iL⁺ᵀ`` (2.18) are the class means and covariances of the rows of L: (2.18) is
    (2.3) on this empirical feature map; then ``s = U_rΛ_r^{-1/2}v`` and
    ``f(x) = sᵀk(X, x) − b`` (2.21).

    Parameters
    ----------
    eta
        ``(η₁, η₂)`` or one number for both: targets in (0, 1] (``"gaussian"``: (0, 1/2]).
    kernel
        ``"linear"`` (solved in input space; ``w_``), ``"rbf"``, ``"polynomial"`` or
        ``"precomputed"`` (fit on the (n, n) kernel, predict on (m, n) kernel rows).
    sigma
        RBF width σ, or a rule reading it off the training inputs: ``"median"`` (default), the
        median distance between two points, or ``"scale"``, scikit-learn's ``gamma="scale"``
        (:mod:`rlscore.core.kernels.rbf_width`).
    degree
        Polynomial degree (:func:`~rlscore.core.kernels.functions.kernel_matrix`).
    solver
        ``"socp"`` (cvxpy + Clarabel, :func:`solve_socp`) or ``"iterative"`` (§2.3.1,
        :func:`solve_iterative`).
    moments
        ``"chebyshev"`` (κ = √((1−η)/η), any distribution) or ``"gaussian"`` (κ = Φ⁻¹(1−η)).
    ridge
        Relative covariance ridge (:mod:`rlscore.core.classifiers.error_bounds`); a regulariser
        with non-linear kernels.
    tol
        Solver tolerance; default 1e-9 (SOCP) or 1e-10 (iterative, radians).
    max_iter
        Iteration cap of the iterative solver.
    rank_rtol
        Relative eigenvalue cut-off of the kernel factor L.

    Attributes
    ----------
    classes_ : ndarray (2,)
    feasible_ : bool
        False when no classifier meets the targets: ``decision_function`` then raises
        :class:`InfeasibleTargetsError` and ``status_`` says "targets infeasible: …".
    status_ : str
    w_ : ndarray (d,) or None
        Weights (linear kernel).
    coef_ : ndarray (1, d) or None
        ``w_`` in scikit-learn's shape (linear kernel).
    dual_coef_ : ndarray (n,) or None
        Expansion coefficients s over the training points (other kernels).
    b_ : float or None
        Offset: ``f(x) = wᵀφ(x) − b``.
    intercept_ : ndarray (1,) or None
        ``−b_`` (``f = Xw + intercept``).
    kappa_ : ndarray (2,)
    rho_ : float
        Absolute ridge added to the class covariances.
    certificate_ : Certificate or None
        Worst-case rates under the training moments (≤ η by construction).
    n_iter_, converged_, solve_seconds_
        Solver diagnostics.
    X_fit_ : ndarray
        Training inputs (kernel path).
    sigma_ : float or None
        The RBF width used (None for the other kernels).
    """

    parameter_constraints = {
        "eta": (Validated(check_targets),),
        "kernel": (Options(*KERNELS),),
        "sigma": (Validated(check_width),),
        "degree": (Interval(Integral, 1, None),),
        "solver": (Options(*SOLVERS),),
        "moments": (Options(*MOMENTS),),
        "ridge": (Interval(Real, 0, None),),
        "tol": (Interval(Real, 0, None, closed="neither"), Options(None)),
        "max_iter": (Interval(Integral, 1, None),),
        "rank_rtol": (Interval(Real, 0, 1, closed="left"),),
    }

    def __init__(
        self,
        eta: float | tuple[float, float] = (0.1, 0.1),
        *,
        kernel: str = "linear",
        sigma: float | str = DEFAULT_SIGMA,
        degree: int = 2,
        solver: str = "socp",
        moments: str = "chebyshev",
        ridge: float = DEFAULT_RIDGE,
        tol: float | None = None,
        max_iter: int = 100_000,
        rank_rtol: float = 1e-10,
    ) -> None:
        self.eta = eta
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.solver = solver
        self.moments = moments
        self.ridge = ridge
        self.tol = tol
        self.max_iter = max_iter
        self.rank_rtol = rank_rtol

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.classifier_tags.multi_class = False
        return tags

    def _kernel(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        return kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma_, degree=int(self.degree))

    def _check_params(self) -> np.ndarray:
        """Check the parameters; the multipliers κ of the two targets."""
        check_parameters(self)
        e = check_targets(self.eta)
        if self.moments == "gaussian" and np.any(e > 0.5):
            raise ValueError(
                f"moments='gaussian' needs η ≤ 1/2 (κ = Φ⁻¹(1 − η) ≥ 0 keeps (2.3) convex), "
                f"got {self.eta!r}"
            )
        return kappa(e, self.moments)

    def fit(self, X, y) -> SpecifiedErrorClassifier:
        """Estimate the class moments and solve (2.3) / (2.18).

        Infeasible targets do not raise: ``feasible_`` is False, ``status_`` explains, and an
        :class:`InfeasibleTargetsWarning` is emitted.

        Parameters
        ----------
        X
            (n, d) inputs, or the (n, n) kernel when ``kernel="precomputed"``.
        y
            (n,) labels of exactly two classes, at least 2 points each.

        Returns
        -------
        SpecifiedErrorClassifier
            self.
        """
        k = self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=4)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise ValueError(
                "Only binary classification is supported: SpecifiedErrorClassifier is binary "
                f"(false negatives and false positives); y has {self.classes_.size} classes"
            )
        pos = positive_mask(y, self.classes_[1])
        self.kappa_ = k
        self.sigma_ = fitted_sigma(self.sigma, self.kernel, X)
        if self.kernel == "linear":
            Phi = X
        else:
            if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
                raise ValueError(f"kernel='precomputed' needs the (n, n) kernel, got {X.shape}")
            K = X if self.kernel == "precomputed" else self._kernel(X)
            lam, U = np.linalg.eigh(0.5 * (K + K.T))
            keep = lam > self.rank_rtol * max(lam[-1], 0.0)
            if not keep.any():
                raise ValueError("the kernel matrix is zero: nothing to separate")
            lam, U = lam[keep], U[:, keep]
            Phi = U * np.sqrt(lam)  # L, K = LLᵀ: the empirical feature map of §2.4
            to_dual = U / np.sqrt(lam)  # s = U Λ^{-1/2} v = L⁺ᵀv
            self.X_fit_ = X
        mu1, mu2, S1, S2, self.rho_ = class_moments(Phi, pos, pos_label=True, ridge=self.ridge)
        if self.solver == "socp":
            sol = solve_socp(mu1, mu2, S1, S2, k[0], k[1], tol=self.tol or 1e-9)
        else:
            sol = solve_iterative(
                mu1, mu2, S1, S2, k[0], k[1], tol=self.tol or 1e-10, max_iter=self.max_iter
            )
        self.feasible_, self.status_ = sol.feasible, sol.status
        self.n_iter_, self.converged_, self.solve_seconds_ = sol.n_iter, sol.converged, sol.seconds
        self.w_ = self.coef_ = self.dual_coef_ = self.b_ = self.intercept_ = None
        self.certificate_ = None
        if not sol.feasible:
            eta = tuple(check_targets(self.eta).tolist())
            warnings.warn(f"{sol.status}: η = {eta}", InfeasibleTargetsWarning, stacklevel=2)
            return self
        self.b_ = sol.b
        self.intercept_ = np.array([-sol.b])
        if self.kernel == "linear":
            self.w_ = sol.w
            self.coef_ = sol.w[None, :]
        else:
            self.dual_coef_ = to_dual @ sol.w
        self.certificate_ = certificate(
            linear_projected_moments(Phi, pos, sol.w, pos_label=True, ridge=self.ridge),
            sol.b,
            self.moments,
        )
        return self

    def decision_function(self, X) -> np.ndarray:
        """``f(x) = wᵀφ(x) − b`` (2.6), (2.21); positive means ``classes_[1]``."""
        check_is_fitted(self, "feasible_")
        if not self.feasible_:
            raise InfeasibleTargetsError(f"{self.status_}: there is no classifier to apply")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.kernel == "linear":
            return X @ self.w_ - self.b_
        Kx = X if self.kernel == "precomputed" else self._kernel(X, self.X_fit_)
        return Kx @ self.dual_coef_ - self.b_

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where ``f(x) > 0``, else ``classes_[0]``."""
        f = self.decision_function(X)  # checks fitted before classes_ is read
        return self.classes_[(f > 0).astype(np.intp)]

    def certificate(self, X, y, *, moments: Moments | None = None) -> Certificate:
        """Worst-case rates of the fitted classifier under the moments of labeled ``(X, y)``.

        Parameters
        ----------
        X, y
            Labeled points (e.g. held out); for ``kernel="precomputed"``, the kernel rows of X
            against the training points are not enough: use the linear or a vector kernel.
        moments
            Default: the estimator's ``moments``.
        """
        check_is_fitted(self, "feasible_")
        if not self.feasible_:
            raise InfeasibleTargetsError(f"{self.status_}: there is no classifier to certify")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        y = np.asarray(y)
        m = moments or self.moments
        if self.kernel == "linear":
            pm = linear_projected_moments(
                X, y, self.w_, pos_label=self.classes_[1], ridge=self.ridge
            )
            return certificate(pm, self.b_, m)
        if self.kernel == "precomputed":
            raise ValueError("kernel='precomputed': certify held-out points with a vector kernel")
        pos = positive_mask(y, self.classes_[1])
        s = self.dual_coef_
        scores = self._kernel(X, self.X_fit_) @ s
        w_norm2 = s @ self._kernel(self.X_fit_) @ s
        pm = ProjectedMoments.from_scores(
            scores, pos, w_norm2, kernel_class_traces(self._kernel(X), pos), self.ridge
        )
        return certificate(pm, self.b_, m)
