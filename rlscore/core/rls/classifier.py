"""Kernel RLS classifier: binary and one-vs-all, exact leave-one-out, automatic λ, weights.

:class:`RLSClassifier` is the scikit-learn estimator over :class:`~rlscore.core.rls.path.RLSPath`
(the λ path and the exact LOO mathematics, docs/mathematics.md §3): λ follows
docs/mathematics.md §1, ``(K + λA⁻¹)c = y``;
class weights follow the one rule of :mod:`rlscore.core.rls.class_weights`; probabilities and
confidences come from :mod:`rlscore.core.rls.confidence`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Literal

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.input_validation import check_sample_weight
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.conventions.parameter_constraints import (
    Booleans,
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.kernels.functions import VECTOR_KERNELS, kernel_matrix
from rlscore.core.kernels.rbf_width import check_width, fitted_sigma
from rlscore.core.rls import confidence as _conf
from rlscore.core.rls.class_weights import class_weight_table, resolve_class_weight
from rlscore.core.rls.fold_weights import FoldWeightedPath, balanced_fold_weights
from rlscore.core.rls.path import (
    DEFAULT_N_LAMS,
    LOO_ERRORS,
    RLSPath,
    RLSSolution,
    check_lam_bounds,
    lams_within,
)

# RLSPath lives in rls_path; it is re-exported here for the importers of rlscore.core.rls.classifier
__all__ = ["KERNELS", "RLSClassifier", "RLSPath"]

KERNELS = (*VECTOR_KERNELS, "precomputed")


def _kernel_diag(X: np.ndarray, kernel: str, degree: int) -> np.ndarray:
    if kernel == "rbf":
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    return sq if kernel == "linear" else (1.0 + sq) ** int(degree)


def _fingerprint(*arrays: np.ndarray, params: tuple) -> str:
    """Cheap content hash (O(size)) identifying the data an eigendecomposition was built on."""
    hsh = hashlib.blake2b(repr(params).encode(), digest_size=16)
    for arr in arrays:
        arr = np.ascontiguousarray(arr)
        hsh.update(repr((arr.shape, arr.dtype.str)).encode())
        hsh.update(arr.data)
    return hsh.hexdigest()


class RLSClassifier(ClassifierMixin, BaseEstimator):
    """Kernel RLS classifier with exact leave-one-out, automatic λ and class weighting.

    Binary problems use one RLS with targets ±1 (second class of ``classes_`` positive);
    multiclass problems use one-vs-all (Paskov §2.6). λ follows docs/mathematics.md §1:
    ``(K + λA⁻¹)c = y``.

    Parameters
    ----------
    kernel
        ``"rbf"`` ``exp(−‖x−z‖²/(2σ²))``, ``"linear"``, ``"polynomial"`` ``(1 + x·z)^degree``
        or ``"precomputed"`` (``fit(K, y)`` with the (n, n) training kernel, then
        ``predict(K_test)`` with (m, n) kernel values against the training points).
    sigma
        RBF width σ ≥ 1e-150 (``1/(2σ²)`` must stay finite; see
        :func:`~rlscore.core.kernels.functions.check_sigma`), or a rule reading it off the training
        inputs ``X`` (every row, whatever its sample weight): ``"median"``, the median
        distance between two points, or ``"scale"``, scikit-learn's ``gamma="scale"``
        (:mod:`rlscore.core.kernels.rbf_width`). The default stays 1: with a width read off ``X``,
        a sample weight of 0 would no longer equal leaving the point out, nor an integer
        weight duplicating it (``"median"`` is the default of the other RBF estimators).
    degree
        Polynomial degree (positive integer).
    lam
        λ > 0, or ``"auto"``: the largest λ minimising the ``loo_error`` over the default grid
        (:data:`DEFAULT_N_LAMS` geometric values between the smallest positive and the largest
        eigenvalue of M; Paskov §2.5, §4.1). One λ is shared by all OvA classifiers.
    lam_bounds
        None, or ``(low, high)``: with ``lam="auto"`` the grid's values beyond it are moved to
        its nearer end first, so the choice stays within it (:func:`.lams_within`; an app keeps
        its automatic λ within its λ slider's range this way). Ignored for a numeric ``lam``.
    class_weight
        None, ``"balanced"`` (docs/mathematics.md §1; one eigendecomposition per class in
        multiclass, and two more per OvA column for the leave-one-out values with the weights
        recounted, docs/mathematics.md §3) or a dict class → weight.
    offset
        Fit an offset b per classifier (Paskov 3.28–3.33): unpenalised, or with the prior
        ``offset_precision``.
    offset_precision
        With ``offset``: the precision ``P ≥ 0`` of a Gaussian prior ``b ~ N(0, 1/P)`` on each
        offset (docs/mathematics.md §3, "An offset with a prior"); 0 is the unpenalised
        offset. Equivalent to RLS without offset on the kernel ``k + 1/P``, which is how it is
        fitted: the LOO values, λ path and variances are those of that kernel.
    loo_error
        ``"classification"`` or ``"squared"``: the LOO error ``lam="auto"`` minimises.

    Attributes
    ----------
    classes_ : ndarray (T,)
        The class labels.
    lam_ : float
        The λ used (= ``lam`` or the automatic choice).
    dual_coef_ : ndarray (n,) or (n, T)
        Dual coefficients c (one column per OvA classifier; a vector for binary problems).
    intercept_ : ndarray (1,) or (T,)
        Offsets b (zeros when ``offset=False``; ``Σ_i c_i / P`` with a prior of precision P).
    loo_decision_ : ndarray (n,) or (n, T)
        Exact leave-one-out decision values ``f_{S∖i}(x_i)`` (same shape as
        ``decision_function(X_train)``): the model refitted without point i, ``"balanced"``
        class weights recounted without it (:mod:`rlscore.core.rls.fold_weights`).
    loo_variance_ : ndarray (n,) or (n, T)
        Gaussian-process variance at ``x_i`` of the model trained without point i (likewise).
    loo_squared_error_, loo_classification_error_, loo_bound_, gacv_ : float
        The LOO errors at ``lam_`` (see :meth:`~rlscore.core.rls.path.RLSPath.errors`); the
        first two (and :meth:`loo_curve`'s, and ``lam="auto"``) from ``loo_decision_``,
        ``loo_bound_`` and ``gacv_`` from the full fit (with ``"balanced"`` the bound is
        Rifkin's for the full-data weights, not proven for the recounted LOO error).
    sample_weights_ : ndarray (n, 1) or (n, T)
        The loss weights ``a_i`` of each OvA classifier (class weights × sample weights).
    X_fit_ : ndarray
        Training inputs (the training kernel when ``kernel="precomputed"``).
    y_fit_ : ndarray (n,)
        Training labels.
    n_features_in_ : int
    sigma_ : float or None
        The RBF width used (None for the other kernels).

    Notes
    -----
    The eigendecomposition is cached on the instance, keyed on a content hash of X, y, the
    kernel parameters, the weights and ``offset``: :meth:`loo_curve`, :meth:`predictive_variance`
    and a refit after ``set_params(lam=…)`` on the same data never refactorise.
    """

    parameter_constraints = {
        "kernel": (Options(*KERNELS),),
        "sigma": (Validated(check_width),),
        "degree": (Interval(Integral, 1, None),),
        "lam": (Interval(Real, 0, None, closed="neither"), Options("auto")),
        "lam_bounds": (Options(None), Validated(check_lam_bounds, "a pair (low, high)")),
        # class_weight is checked against the classes (class_weights.resolve_class_weight)
        "offset": (Booleans(),),
        "offset_precision": (Interval(Real, 0, None, closed="left"),),
        "loo_error": (Options(*LOO_ERRORS),),
    }

    def __init__(
        self,
        kernel: str = "rbf",
        *,
        sigma: float | str = 1.0,
        degree: int = 2,
        lam: float | str = 1.0,
        lam_bounds: tuple[float, float] | None = None,
        class_weight: None | str | dict = None,
        offset: bool = False,
        offset_precision: float = 0.0,
        loo_error: str = "classification",
    ) -> None:
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.lam_bounds = lam_bounds
        self.class_weight = class_weight
        self.offset = offset
        self.offset_precision = offset_precision
        self.loo_error = loo_error

    # -- scikit-learn plumbing ---------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_path", None)  # rebuilt on demand; keeps pickles O(n·d)
        state.pop("_path_key", None)
        return state

    def _kernel(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        return kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma_, degree=int(self.degree))

    def _offset_variance(self) -> float:
        """The prior variance ``1/P`` of an offset with a prior (``offset`` and
        ``offset_precision`` P > 0), else 0: the constant added to the kernel."""
        return 1.0 / self.offset_precision if self.offset and self.offset_precision > 0 else 0.0

    # -- fitting -----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> RLSClassifier:
        """Fit RLS at ``lam`` (or choose λ by LOO error when ``lam="auto"``).

        Parameters
        ----------
        X
            (n, d) training inputs, or the (n, n) kernel when ``kernel="precomputed"``.
        y
            (n,) class labels, at least two classes.
        sample_weight
            Optional (n,) non-negative loss weights, multiplied into the class weights. A
            point of weight 0 is equivalent to leaving it out.
        """
        check_parameters(self)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_index = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"y has only one class ({classes[0]!r}): a classifier needs at least 2 classes"
            )
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"kernel='precomputed' needs the square (n, n) training kernel, got {X.shape}"
            )
        self.sigma_ = fitted_sigma(self.sigma, self.kernel, X)
        counts = np.bincount(y_index, minlength=classes.size)
        W, e_class = class_weight_table(counts, resolve_class_weight(self.class_weight, classes))
        A = np.ascontiguousarray(W[:, y_index].T)  # (n, T'): each point's weight per column
        e = e_class[y_index]
        if sample_weight is not None:
            sw = check_sample_weight(sample_weight, X.shape[0])
            A = A * sw[:, None]
            e = e * sw
            if np.any(A.sum(axis=0) <= 0):
                raise ValueError("sample_weight is zero for every point: nothing to fit")
            present = np.bincount(y_index[sw > 0], minlength=classes.size) > 0
            if present.sum() < 2:
                raise ValueError(
                    "sample_weight leaves only one class with positive weight: "
                    "a classifier needs at least 2 classes"
                )

        self.classes_ = classes
        self.X_fit_ = X
        self.y_fit_ = y
        self.sample_weights_ = A
        self._error_weights = e
        path = self._ensure_path(y_index, A, e)
        lam = self.lam
        if lam == "auto":
            grid = path.default_lams()
            if self.lam_bounds is not None:
                grid = lams_within(grid, self.lam_bounds)
            lam = path.best_loo_lam(self.loo_error, grid)
        sol = path.solve(float(lam))
        errs = path.errors(sol)
        self._set_solution(sol, errs)
        return self

    def _ensure_path(self, y_index=None, A=None, e=None) -> RLSPath:
        """The cached :class:`.RLSPath` of the fitted data, built if missing or stale."""
        if y_index is None:  # rebuilding after unpickling
            _, y_index = np.unique(self.y_fit_, return_inverse=True)
            A, e = self.sample_weights_, self._error_weights
        s2 = self._offset_variance()
        balanced = isinstance(self.class_weight, str)  # resolve_class_weight: "balanced"
        params = (self.kernel, self.sigma_, int(self.degree), bool(self.offset), s2, balanced)
        key = _fingerprint(self.X_fit_, y_index, A, e, params=params)
        if getattr(self, "_path_key", None) != key:
            self._path = None  # free the old decomposition before building a new one
            Y = ova_targets(y_index, self.classes_.size)
            n, d = self.X_fit_.shape
            # an offset with a prior is RLS without offset on the kernel k + s2
            offset = bool(self.offset) and s2 == 0
            if self.kernel == "linear" and d < n:
                # K = XXᵀ has rank ≤ d: the primal path costs O(nd²), never an n × n matrix
                Phi = self.X_fit_
                if s2:  # the feature √s2 on every point adds s2 to the kernel
                    Phi = np.column_stack([Phi, np.full(n, s2**0.5)])

                def build(Y, A, e=None):
                    return RLSPath.from_features(Phi, Y, A, offset=offset, error_weights=e)
            else:
                K = self.X_fit_ if self.kernel == "precomputed" else self._kernel(self.X_fit_)
                K = K + s2 if s2 else K

                def build(Y, A, e=None):
                    return RLSPath(K, Y, A, offset=offset, error_weights=e)

            path = build(Y, A, e)
            # balanced weights depend on the class counts: the LOO values are those of the
            # refits with the weights recomputed without each point (fixed weights do not)
            if balanced:
                path = FoldWeightedPath(path, balanced_fold_weights(A, y_index), build)
            self._path = path
            self._path_key = key
        return self._path

    def _set_solution(self, sol: RLSSolution, errs: dict[str, float]) -> None:
        binary = self.classes_.size == 2
        shape = (lambda a: a[:, 0]) if binary else (lambda a: a)
        self.lam_ = sol.lam
        self.dual_coef_ = shape(sol.coef)
        # with a prior on the offset, f = (K + s2) c = K c + s2 Σc
        s2 = self._offset_variance()
        self.intercept_ = s2 * sol.coef.sum(axis=0) if s2 else sol.intercept
        self.loo_decision_ = shape(sol.loo)
        self.loo_variance_ = shape(sol.loo_variance)
        self.loo_squared_error_ = errs["loo_squared_error"]
        self.loo_classification_error_ = errs["loo_classification_error"]
        self.loo_bound_ = errs["loo_bound"]
        self.gacv_ = errs["gacv"]

    # -- λ path ------------------------------------------------------------------------------
    def default_lams(self, num: int = DEFAULT_N_LAMS) -> np.ndarray:
        """The default λ grid of the fitted data (:meth:`.RLSPath.default_lams`)."""
        check_is_fitted(self)
        return self._ensure_path().default_lams(num)

    def loo_curve(self, lams: Sequence[float] | np.ndarray | None = None) -> pd.DataFrame:
        """Exact LOO errors for every λ, reusing the cached eigendecomposition.

        Parameters
        ----------
        lams
            λ values; default :meth:`default_lams`.

        Returns
        -------
        pandas.DataFrame
            One row per λ: ``lam``, ``loo_squared_error``, ``loo_classification_error``,
            ``loo_bound``, ``gacv`` (definitions in :meth:`~rlscore.core.rls.path.RLSPath.errors`).
        """
        check_is_fitted(self)
        return self._ensure_path().curve(lams)

    # -- prediction --------------------------------------------------------------------------
    def _test_kernel(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X if self.kernel == "precomputed" else self._kernel(X, self.X_fit_)

    def _decision(self, Kx: np.ndarray) -> np.ndarray:
        C = self.dual_coef_.reshape(self.X_fit_.shape[0], -1)
        F = Kx @ C + self.intercept_
        return F[:, 0] if self.classes_.size == 2 else F

    def decision_function(self, X) -> np.ndarray:
        """Decision values ``f(x) = k(x, X) c + b``: (m,) for binary, (m, T) one-vs-all."""
        return self._decision(self._test_kernel(X))

    def predict(self, X) -> np.ndarray:
        """Predicted labels: ``f > 0`` for binary, the argmax of the OvA outputs otherwise."""
        F = self.decision_function(X)
        return self.classes_[_conf.predicted_index(F)]

    def predict_proba(self, X) -> np.ndarray:
        """Clipped soft scores ``clip((f+1)/2, 0, 1)`` normalised per row, (m, T)
        (docs/mathematics.md §4)."""
        return _conf.soft_probabilities(self.decision_function(X))

    def predictive_variance(self, X, *, kernel_diag=None) -> np.ndarray:
        """Gaussian-process variance of each OvA output (Paskov eq. 3.40, docs/mathematics.md §4).

        ``σ_x² = k(x,x) + λ − k(x,X)(K + λA⁻¹)⁻¹k(X,x)`` with each classifier's own weights;
        with ``offset=True`` the uncertainty of the offset (flat prior) is added:
        ``+ (1 − wᵀG⁻¹Wk)² / wᵀG⁻¹w`` (Rasmussen & Williams §2.7); with a prior of precision
        P on the offset, the variance of the kernel ``k + 1/P``.

        Parameters
        ----------
        X
            Test inputs (or (m, n) kernel values for ``kernel="precomputed"``).
        kernel_diag
            (m,) self-similarities ``k(x, x)``; required with ``kernel="precomputed"``.

        Returns
        -------
        numpy.ndarray
            (m,) for binary, (m, T) one-vs-all.
        """
        Kx = self._test_kernel(X)
        m = Kx.shape[0]
        if self.kernel == "precomputed":
            if kernel_diag is None:
                raise ValueError(
                    "kernel='precomputed' needs kernel_diag=k(x, x) of the test points "
                    "for the Bayes variance"
                )
            kd = np.asarray(kernel_diag, dtype=np.float64)
            if kd.shape != (m,) or not np.all(np.isfinite(kd)):
                raise ValueError(f"kernel_diag must be ({m},) finite values, got {kd.shape}")
        else:
            kd = _kernel_diag(np.asarray(X, dtype=np.float64), self.kernel, self.degree)
        s2 = self._offset_variance()
        if s2:  # the kernel k + s2 (an offset with a prior)
            Kx, kd = Kx + s2, kd + s2
        path = self._ensure_path()
        lam = self.lam_
        var = np.empty((m, path.T))
        for dec in path.decompositions:
            h = 1.0 / (dec.evals + lam)
            V = dec.Q.T @ (dec.w[:, None] * Kx.T)  # Qᵀ W k(X, x)
            v = kd + lam - h @ (V * V)
            if path.offset:
                hw = h * dec.Qt_w
                wr = float(dec.Qt_w @ hw)  # wᵀG⁻¹w
                if dec.w_perp is not None:
                    # a thin decomposition (the linear kernel's primal path): w outside
                    # span(Q), where G⁻¹ = I/λ, counts in wᵀG⁻¹w (W k(X, x) lies in span(Q))
                    wr += float(dec.w_perp @ dec.w_perp) / lam
                v = v + (1.0 - hw @ V) ** 2 / wr
            var[:, dec.cols] = v[:, None]
        # rounding can push a tiny variance below 0; the exact value is ≥ λ
        np.maximum(var, lam * 1e-12, out=var)
        return var[:, 0] if self.classes_.size == 2 else var

    def confidence(
        self, X, method: Literal["soft", "gap", "bayes"] = "soft", *, kernel_diag=None
    ) -> np.ndarray:
        """Confidence in the predicted label, (m,) in [0, 1] (Paskov §3.2, docs/mathematics.md §4).

        Parameters
        ----------
        X
            Test inputs.
        method
            ``"soft"`` clipped soft score of the winner, ``"gap"`` winner minus runner-up,
            ``"bayes"`` Gaussian-process probability of the predicted class.
        kernel_diag
            Only for ``"bayes"`` with ``kernel="precomputed"``: the test points' ``k(x, x)``.
        """
        if method not in _conf.METHODS:
            raise ValueError(f"unknown confidence method {method!r}: choose one of {_conf.METHODS}")
        F = self.decision_function(X)
        var = self.predictive_variance(X, kernel_diag=kernel_diag) if method == "bayes" else None
        return _conf.confidence_scores(F, method, var)
