"""Reduced RLS on m landmark points: Rifkin's *subset*, *rectangle* and *Nyström*
(docs/mathematics.md §7).

Rifkin, Yeo & Poggio §7.6 compare three ways of training RLS with m ≪ n points, in our λ
(docs/mathematics.md §1: full RLS solves ``(K + λI) c = y``):

* **subset** — RLS on the m landmarks only: ``(K_mm + λI) c_m = y_m``, ``f(x) = k(x, Z) c_m``.
* **rectangle** — coefficients only on the m landmarks, loss over all n points:
  ``min ‖y − K_nm c_m‖² + λ c_mᵀ K_mm c_m``, i.e. ``(K_mn K_nm + λ K_mm) c_m = K_mn y``,
  ``f(x) = k(x, Z) c_m``. Solved through the Nyström features ``Φ = K_nm N`` with
  ``N = K_mm^{-1/2}``: ``c_m = N (ΦᵀΦ + λI)⁻¹ Φᵀ y`` (conditioning of Φ, not of its square;
  directions in the null space of ``K_mm`` change nothing and are left at 0). This is also
  exactly RLS on :class:`~rlscore.core.kernels.lowrank.LowRankKernel` features.
* **Nyström** (Williams & Seeger, as Rifkin runs it) — the Nyström kernel ``K̃ = ΦΦᵀ`` in place
  of K for the n coefficients, ``(K̃ + λI) c = y`` (Woodbury: ``c = (y − Φ(ΦᵀΦ + λI)⁻¹Φᵀy)/λ``),
  then predictions with the *exact* kernel, ``f(x) = k(x, X) c``.

Rifkin's finding on usps and faces: rectangle beats subset beats Nyström at equal m
(``benchmarks/reproduce_lowrank.py`` checks it on other data).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.input_validation import check_positive
from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.conventions.parameter_constraints import Interval, Options, check_parameters
from rlscore.core.kernels.functions import kernel_matrix
from rlscore.core.kernels.landmarks import inverse_sqrt
from rlscore.core.kernels.lowrank import BLOCK_ENTRIES, LowRankKernel
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA

#: the three reduced methods
METHODS = ("rectangle", "subset", "nystrom")
#: landmark rules with one group of landmarks (the ensemble rules mix several)
SINGLE_RULES = ("uniform", "kmeans", "ic")


def subset_rls(K_mm: np.ndarray, y_m: np.ndarray, lam: float) -> np.ndarray:
    """Coefficients of RLS on the m landmarks only: ``(K_mm + λI) c_m = y_m``.

    ``y_m`` may be (m,) or (m, T) (one column per one-vs-all target).
    """
    lam = check_positive(lam, "lam")
    G = np.asarray(K_mm, dtype=np.float64) + lam * np.eye(K_mm.shape[0])
    return scipy.linalg.solve(G, np.asarray(y_m, dtype=np.float64), assume_a="pos")


def _primal(Phi: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """``(ΦᵀΦ + λI)⁻¹ Φᵀ y``."""
    H = Phi.T @ Phi
    H[np.diag_indices_from(H)] += lam
    return scipy.linalg.solve(H, Phi.T @ y, assume_a="pos")


def rectangle_rls(K_nm: np.ndarray, K_mm: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """Coefficients ``c_m`` of Rifkin's rectangle RLS, ``(K_mn K_nm + λ K_mm) c_m = K_mn y``.

    The minimiser of ``‖y − K_nm c_m‖² + λ c_mᵀ K_mm c_m`` (the one without components in the
    null space of ``K_mm``), computed as ``N (ΦᵀΦ + λI)⁻¹ Φᵀ y`` with ``N = K_mm^{-1/2}`` and
    ``Φ = K_nm N``. ``y`` may be (n,) or (n, T).
    """
    lam = check_positive(lam, "lam")
    N = inverse_sqrt(np.asarray(K_mm, dtype=np.float64))
    return N @ _primal(np.asarray(K_nm, dtype=np.float64) @ N, np.asarray(y, float), lam)


def nystrom_rls(features: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """The n coefficients of ``(ΦΦᵀ + λI) c = y`` (RLS with the Nyström kernel), by Woodbury
    in O(nr²): ``c = (y − Φ (ΦᵀΦ + λI)⁻¹ Φᵀ y) / λ``. ``y`` may be (n,) or (n, T)."""
    lam = check_positive(lam, "lam")
    Phi = np.asarray(features, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return (y - Phi @ _primal(Phi, y, lam)) / lam


class ReducedRLSClassifier(ClassifierMixin, BaseEstimator):
    """RLS classifier trained on m landmarks: Rifkin's subset, rectangle or Nyström method.

    Binary problems use targets ±1 (second class of ``classes_`` positive); more classes use
    one-vs-all, one column of coefficients per class. λ follows docs/mathematics.md §1.

    Parameters
    ----------
    method : {"rectangle", "subset", "nystrom"}
        See the module docstring.
    kernel, sigma, degree
        The vector kernel, as in :class:`~rlscore.core.rls.classifier.RLSClassifier`
        (``sigma="median"`` by default: the width is read off the training inputs, ``sigma_``).
    lam : float
        Regularisation λ > 0.
    n_landmarks : int
        m.
    landmarks : {"uniform", "kmeans", "ic"}
        Landmark rule (:class:`~rlscore.core.kernels.lowrank.LowRankKernel`); ``"subset"`` needs
        landmarks that are pool points (not ``"kmeans"``).
    random_state : int, RandomState or None
        Seed of the landmark choice.

    Attributes
    ----------
    classes_ : ndarray
        The class labels.
    basis_ : ndarray (b, d)
        The points of the expansion ``f(x) = k(x, basis_) coef_``: the m landmarks, or every
        training point for ``"nystrom"``.
    coef_ : ndarray (b, T')
        The coefficients (T' = 1 for two classes).
    landmark_indices_ : ndarray (m,) or None
        Training indices of the landmarks.
    sigma_ : float or None
        The RBF width used (None for the other kernels).
    """

    parameter_constraints = {
        "method": (Options(*METHODS),),
        # the landmarks' parameters are LowRankKernel's, checked before any work
        **{
            name: LowRankKernel.parameter_constraints[name]
            for name in ("kernel", "sigma", "degree", "n_landmarks")
        },
        "lam": (Interval(Real, 0, None, closed="neither"),),
        "landmarks": (Options(*SINGLE_RULES),),
    }

    def __init__(
        self,
        method: str = "rectangle",
        *,
        kernel: str = "rbf",
        sigma: float | str = DEFAULT_SIGMA,
        degree: int = 2,
        lam: float = 1.0,
        n_landmarks: int = 500,
        landmarks: str = "uniform",
        random_state=0,
    ) -> None:
        self.method = method
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.random_state = random_state

    def fit(self, X, y) -> ReducedRLSClassifier:
        """Choose the landmarks and solve the method's m × m (or primal) system."""
        check_parameters(self)
        if self.method == "subset" and self.landmarks == "kmeans":
            raise ValueError("the subset method needs labeled landmarks: k-means centres have none")
        lam = float(self.lam)
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError("y has a single class: a classifier needs at least two")
        Y = ova_targets(codes, self.classes_.size)
        lr = LowRankKernel(
            kernel=self.kernel, sigma=self.sigma, degree=self.degree,
            n_landmarks=self.n_landmarks, landmarks=self.landmarks,
            random_state=self.random_state,
        ).fit(X)  # fmt: skip
        self.landmark_indices_ = lr.landmark_indices_
        self.sigma_ = lr.sigma_
        if self.method == "nystrom":
            self.basis_ = X
            self.coef_ = nystrom_rls(lr.features_, Y, lam)
        elif self.method == "rectangle":
            self.basis_ = lr.landmarks_
            self.coef_ = lr.normalization_ @ _primal(lr.features_, Y, lam)
        else:
            self.basis_ = lr.landmarks_
            idx = lr.landmark_indices_
            self.coef_ = subset_rls(self._kernel(X[idx], X[idx]), Y[idx], lam)
        return self

    def decision_function(self, X) -> np.ndarray:
        """``f(x) = k(x, basis_) coef_``: (n,) for two classes, (n, T) otherwise."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        out = np.empty((X.shape[0], self.coef_.shape[1]))
        step = max(1, BLOCK_ENTRIES // self.basis_.shape[0])  # k(x, X) for "nystrom" is wide
        for s in range(0, X.shape[0], step):
            rows = X[s : s + step]
            out[s : s + rows.shape[0]] = self._kernel(rows, self.basis_) @ self.coef_
        return out[:, 0] if self.classes_.size == 2 else out

    def predict(self, X) -> np.ndarray:
        """Class labels: the sign for two classes, the largest one-vs-all output otherwise."""
        f = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(f > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]

    def _kernel(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        return kernel_matrix(A, B, kernel=self.kernel, sigma=self.sigma_, degree=int(self.degree))


__all__ = [
    "METHODS",
    "ReducedRLSClassifier",
    "nystrom_rls",
    "rectangle_rls",
    "subset_rls",
]
