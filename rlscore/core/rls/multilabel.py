"""Multi-label kernel RLS: one binary RLS per class, exact leave-one-out per label, one solve.

A multi-label target is a label set per point (:mod:`rlscore.core.conventions.label_sets`),
i.e. an (n, L) ±1 target matrix. :class:`MultiLabelRLS` is the same weighted RLS as
:class:`~rlscore.core.rls.classifier.RLSClassifier` (docs/mathematics.md §3), solved by the
same :class:`~rlscore.core.rls.path.RLSPath` with the L columns as right-hand sides: one
eigendecomposition serves every label (one per distinct weight vector with per-label class
weights), and gives every label's exact LOO decision values (docs/multilabel.md §1).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.label_sets import is_label_set, multi_hot
from rlscore.core.conventions.parameter_constraints import (
    Booleans,
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.kernels.functions import VECTOR_KERNELS, kernel_matrix
from rlscore.core.kernels.rbf_width import check_width, fitted_sigma
from rlscore.core.rls.class_weights import class_weight_table
from rlscore.core.rls.fold_weights import FoldWeightedPath
from rlscore.core.rls.path import RLSPath

__all__ = ["fold_label_weights", "MultiLabelRLS", "label_weights", "multilabel_targets"]


def multilabel_targets(Y, classes=None) -> tuple[np.ndarray, np.ndarray]:
    """The (n, L) 0/1 matrix and the classes of multi-label targets.

    Parameters
    ----------
    Y
        An (n, L) 0/1 (or boolean) multi-hot matrix, or a list of n label sets.
    classes
        The L classes: required with label sets; with a matrix, default ``0 … L − 1``.

    Returns
    -------
    (Y01, classes)
        ``Y01`` (n, L) float 0/1; ``classes`` (L,) ndarray.
    """
    if isinstance(Y, list | tuple) and all(is_label_set(s) for s in Y):
        if classes is None:
            raise ValueError("label sets need the classes: fit(X, sets, classes=[...])")
        return multi_hot(Y, list(classes)), np.asarray(list(classes))
    M = np.asarray(Y)
    if M.ndim != 2 or M.shape[1] < 1:
        raise ValueError(
            f"Y must be an (n, L) multi-hot matrix or a list of label sets, got shape {M.shape}"
        )
    if M.dtype == object or not np.isin(M, (0, 1)).all():
        raise ValueError("a multi-hot matrix Y holds only 0 and 1 (1: the class is in the set)")
    classes = np.arange(M.shape[1]) if classes is None else np.asarray(list(classes))
    if classes.shape != (M.shape[1],):
        raise ValueError(f"Y has {M.shape[1]} columns but {classes.size} classes were given")
    return M.astype(np.float64), classes


def label_weights(Y01: np.ndarray, class_weight: None | str) -> np.ndarray:
    """The loss weight of each point in each label's column, (n, L).

    ``None``: all 1. ``"balanced"``: each label on its own, by the binary rule of
    :mod:`rlscore.core.rls.class_weights` — a positive weighs ``n/(2 n_k)``, a negative
    ``n/(2(n − n_k))`` — so a rare label is not drowned by its negatives; a label that is
    positive for every point or for none keeps weight 1 (it has no two sides to balance).
    """
    n, L = Y01.shape
    if class_weight is None:
        return np.ones((n, L))
    positives = Y01.sum(axis=0)
    return _side_weights(Y01, [_column_rule(n, p) for p in positives])


def fold_label_weights(Y01: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``"balanced"`` :func:`label_weights` of the refits without one positive and
    without one negative of each label's column, (n, L) each: the weights the exact LOO
    values of :class:`~rlscore.core.rls.fold_weights.FoldWeightedPath` need (a label's
    weights depend on its counts, so the refit without a point recounts them)."""
    n = Y01.shape[0]
    positives = Y01.sum(axis=0)
    without_positive = [_column_rule(n - 1, p - 1) for p in positives]
    without_negative = [_column_rule(n - 1, p) for p in positives]
    return _side_weights(Y01, without_positive), _side_weights(Y01, without_negative)


def _column_rule(n: int, positives: int) -> tuple[float, float]:
    """(negative, positive) weight of a balanced label column with ``positives`` of ``n``."""
    if 0 < positives < n:
        W, _ = class_weight_table([n - positives, positives], "balanced")
        return float(W[0, 0]), float(W[0, 1])
    return 1.0, 1.0


def _side_weights(Y01: np.ndarray, rules: list[tuple[float, float]]) -> np.ndarray:
    """Each point's weight in each column: its side's of the column's rule."""
    negative, positive = (np.asarray(side) for side in zip(*rules, strict=True))
    return np.where(Y01 > 0, positive[None, :], negative[None, :])


class MultiLabelRLS(BaseEstimator):
    """Multi-label kernel RLS with exact leave-one-out per label (docs/multilabel.md §1).

    One binary RLS per class with targets ±1 (in the set / not), sharing the kernel and λ
    (``(K + λA_k⁻¹)c_k = y_k``, docs/mathematics.md §1); class k is predicted in the set of x
    when ``f_k(x) > 0``.

    Parameters
    ----------
    kernel
        ``"rbf"``, ``"linear"``, ``"polynomial"`` or ``"precomputed"`` (as
        :class:`~rlscore.core.rls.classifier.RLSClassifier`).
    sigma
        RBF width, or a rule (``"median"``, ``"scale"``).
    degree
        Polynomial degree.
    lam
        λ > 0, or ``"auto"``: the largest λ of the default grid minimising the LOO squared
        error summed over the labels.
    class_weight
        None, or ``"balanced"`` per label (:func:`label_weights`).
    offset
        Fit an unpenalised offset per label.

    Attributes
    ----------
    classes_ : ndarray (L,)
    lam_ : float
    dual_coef_ : ndarray (n, L)
    intercept_ : ndarray (L,)
    loo_decision_ : ndarray (n, L)
        Exact leave-one-out decision values ``f_{S∖i,k}(x_i)`` of every label.
    loo_hamming_loss_ : float
        Share of wrong memberships of the LOO predictions ``f_{S∖i,k}(x_i) > 0``.
    sample_weights_ : ndarray (n, L)
        The loss weight of each point in each label's column.
    """

    parameter_constraints = {
        "kernel": (Options(*VECTOR_KERNELS, "precomputed"),),
        "sigma": (Validated(check_width),),
        "degree": (Interval(Integral, 1, None),),
        "lam": (Interval(Real, 0, None, closed="neither"), Options("auto")),
        "class_weight": (Options(None, "balanced"),),
        "offset": (Booleans(),),
    }

    def __init__(
        self,
        kernel: str = "rbf",
        *,
        sigma: float | str = 1.0,
        degree: int = 2,
        lam: float | str = 1.0,
        class_weight: None | str = None,
        offset: bool = False,
    ) -> None:
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.class_weight = class_weight
        self.offset = offset

    def _kernel(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        return kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma_, degree=int(self.degree))

    def fit(self, X, Y, classes=None) -> MultiLabelRLS:
        """Fit every label's RLS from one decomposition per weight vector.

        Parameters
        ----------
        X
            (n, d) inputs, or the (n, n) kernel with ``kernel="precomputed"``.
        Y
            (n, L) multi-hot 0/1 matrix, or a list of n label sets with ``classes``.
        classes
            The L classes (required with label sets).
        """
        check_parameters(self)
        Y01, classes = multilabel_targets(Y, classes)
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        if Y01.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but Y has {Y01.shape[0]} label sets")
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"kernel='precomputed' needs the square (n, n) training kernel, got {X.shape}"
            )
        self.sigma_ = fitted_sigma(self.sigma, self.kernel, X)
        self.classes_ = classes
        self.X_fit_ = X
        self.sample_weights_ = label_weights(Y01, self.class_weight)
        K = X if self.kernel == "precomputed" else self._kernel(X)
        targets = 2.0 * Y01 - 1.0
        path = RLSPath(K, targets, self.sample_weights_, offset=bool(self.offset))
        if self.class_weight == "balanced":
            # a label's weights depend on its counts: the LOO values are the refits' with
            # them recounted without the point (as RLSClassifier's)
            path = FoldWeightedPath(
                path,
                fold_label_weights(Y01),
                lambda Y, A: RLSPath(K, Y, A, offset=bool(self.offset)),
            )
        lam = path.best_loo_lam("squared") if self.lam == "auto" else float(self.lam)
        sol = path.solve(lam)
        self.lam_ = sol.lam
        self.dual_coef_ = sol.coef
        self.intercept_ = sol.intercept
        self.loo_decision_ = sol.loo
        self.loo_hamming_loss_ = float(np.mean((sol.loo > 0) != (Y01 > 0)))
        return self

    def decision_function(self, X) -> np.ndarray:
        """Decision values ``f_k(x) = k(x, X) c_k + b_k``, (m, L); > 0 means "in the set"."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Kx = X if self.kernel == "precomputed" else self._kernel(X, self.X_fit_)
        return Kx @ self.dual_coef_ + self.intercept_

    def predict(self, X) -> np.ndarray:
        """The predicted sets as an (m, L) 0/1 integer matrix (scikit-learn's multi-label
        convention)."""
        return (self.decision_function(X) > 0).astype(np.int64)

    def predict_sets(self, X) -> list[tuple]:
        """The predicted label sets, one tuple of classes per point."""
        classes = self.classes_.tolist()
        return [
            tuple(c for c, hit in zip(classes, row, strict=True) if hit)
            for row in self.predict(X).astype(bool)
        ]
