"""Classifiers with specified error rates (Saketha Nath, ch. 2; docs/mathematics.md §8).

Positive class 1 (the second of the sorted labels, as in
:class:`~rlscore.core.rls.classifier.RLSClassifier`), negative class 2, a classifier linear in a
feature space ``f(x) = wᵀφ(x) − b`` and the class moments ``(μ_i, Σ_i)``. By the Chebyshev–Cantelli
inequality (thesis theorem 2.1)

    ``wᵀμ₁ − b ≥ κ₁ √(wᵀΣ₁w)``  ⇒  false-negative rate ``P(f(X₁) < 0) ≤ η₁``,
    ``b − wᵀμ₂ ≥ κ₂ √(wᵀΣ₂w)``  ⇒  false-positive rate ``P(f(X₂) > 0) ≤ η₂``,

with ``κ = √((1 − η)/η)`` for any distribution with these moments and ``κ = Φ⁻¹(1 − η)`` for
Gaussian classes. Three uses:

(a) **certificate** of any such classifier: with ``r₁ = (wᵀμ₁ − b)/√(wᵀΣ₁w)`` and
    ``r₂ = (b − wᵀμ₂)/√(wᵀΣ₂w)`` the worst-case rates are ``1/(1 + r²)`` (``r > 0``; 1 otherwise)
    or ``Φ(−r)`` for Gaussian classes. For a kernel expansion ``w = Σ_j s_j φ(x_j)`` the
    moments are §2.4's ``wᵀμ_i = sᵀg_i`` and ``wᵀΣ_iw = sᵀG_is`` (no feature map):
    :func:`projected_moments`, :func:`rls_certificate`;
(b) the **interval of offsets** b meeting both targets, ``[wᵀμ₂ + κ₂σ₂, wᵀμ₁ − κ₁σ₁]``
    (:func:`offset_interval`, :func:`rls_offset_interval`; empty → "targets infeasible");
(c) the thesis's **max-margin classifier** (2.3) / kernelised (2.17)–(2.19), an SOCP
    (:func:`solve_socp`, cvxpy + Clarabel) or the ellipsoid-distance iteration of §2.3.1
    (:func:`solve_iterative`, numpy only): :class:`SpecifiedErrorClassifier`.

Moments are the thesis's (§2.4) empirical ones, covariances divided by ``m_i`` (not ``m_i − 1``),
plus a **ridge** ``ρI`` with ``ρ = ridge · (tr Σ̂₁ + tr Σ̂₂)/2`` (relative, so invariant to the
scale of the data and identical for the linear and the kernelised forms: in feature space it
adds ``ρ‖w‖² = ρ sᵀKs`` to ``wᵀΣ_iw``). It keeps the covariances invertible (§2.3.1 needs
``Σ_i⁻¹``) and only ever enlarges the variances, so guarantees stay conservative. With a
non-linear kernel it is also a regulariser: without it, a kernel expansion can give both training
classes zero variance and "meet" any target (kernel Fisher discriminants need the same).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Literal

import numpy as np
import scipy.linalg
from scipy.stats import norm
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.parameter_constraints import (
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.kernels.functions import VECTOR_KERNELS, kernel_matrix
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA, check_width, fitted_sigma

__all__ = [
    "DEFAULT_RIDGE",
    "Certificate",
    "EllipsoidSeparation",
    "InfeasibleTargetsError",
    "InfeasibleTargetsWarning",
    "OffsetInterval",
    "ProjectedMoments",
    "SpecifiedErrorClassifier",
    "certificate",
    "class_moments",
    "kappa",
    "kernel_class_quantities",
    "linear_projected_moments",
    "offset_interval",
    "projected_moments",
    "rls_certificate",
    "rls_offset_interval",
    "rls_projected_moments",
    "solve_iterative",
    "solve_socp",
    "worst_case_rate",
]

Moments = Literal["chebyshev", "gaussian"]
MOMENTS = ("chebyshev", "gaussian")
SOLVERS = ("socp", "iterative")
KERNELS = (*VECTOR_KERNELS, "precomputed")
#: Default relative ridge: ``ρ = 1e-3 · (tr Σ̂₁ + tr Σ̂₂)/2`` (see the module docstring).
DEFAULT_RIDGE = 1e-3
#: The message of every infeasible result (UI and API say the same thing).
INFEASIBLE = "targets infeasible: label more or relax them"


class InfeasibleTargetsError(ValueError):
    """Raised when a classifier fitted with infeasible targets is asked to predict."""


class InfeasibleTargetsWarning(UserWarning):
    """Emitted by :meth:`SpecifiedErrorClassifier.fit` when no classifier meets the targets."""


# ----------------------------------------------------------------------------- κ and rates


def _check_moments(moments: str) -> None:
    if moments not in MOMENTS:
        raise ValueError(f"moments must be one of {MOMENTS}, got {moments!r}")


def _eta_pair(eta) -> np.ndarray:
    e = np.broadcast_to(np.asarray(eta, dtype=np.float64), (2,)).copy()
    if not np.all(np.isfinite(e)) or np.any(e <= 0) or np.any(e > 1):
        raise ValueError(f"the targets η must be in (0, 1], got {eta!r}")
    return e


def kappa(eta, moments: Moments = "chebyshev") -> np.ndarray:
    """The multiplier κ of theorem 2.1 for a target error rate η.

    Parameters
    ----------
    eta
        Target rate(s) in (0, 1].
    moments
        ``"chebyshev"``: ``κ = √((1 − η)/η)`` (Chebyshev–Cantelli, any distribution);
        ``"gaussian"``: ``κ = Φ⁻¹(1 − η)`` (negative for η > 1/2, −∞ at η = 1).

    Returns
    -------
    numpy.ndarray
        κ, same shape as ``eta``.
    """
    _check_moments(moments)
    e = np.asarray(eta, dtype=np.float64)
    if not np.all(np.isfinite(e)) or np.any(e <= 0) or np.any(e > 1):
        raise ValueError(f"the targets η must be in (0, 1], got {eta!r}")
    if moments == "chebyshev":
        return np.sqrt((1.0 - e) / e)
    return norm.isf(e)  # Φ⁻¹(1 − η), accurate for small η


def worst_case_rate(r, moments: Moments = "chebyshev") -> np.ndarray:
    """Worst-case error rate of a class whose mean lies ``r`` standard deviations on its side.

    ``1/(1 + r²)`` for ``r > 0`` and 1 otherwise (Chebyshev–Cantelli, tight over all
    distributions with the given mean and variance); ``Φ(−r)`` for Gaussian classes.
    """
    _check_moments(moments)
    r = np.asarray(r, dtype=np.float64)
    if moments == "gaussian":
        return norm.sf(r)
    with np.errstate(over="ignore"):
        return np.where(r > 0, 1.0 / (1.0 + r * r), 1.0)


# ----------------------------------------------------------------------------- moments


def _positive_mask(y, pos_label=None) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"y must have exactly 2 classes, got {classes.size}: {classes[:5]}")
    pos = classes[1] if pos_label is None else pos_label
    if pos not in classes:
        raise ValueError(f"pos_label {pos_label!r} is not one of the classes {classes}")
    mask = y == pos
    if min(mask.sum(), (~mask).sum()) < 2:
        raise ValueError(
            "each class needs at least 2 labeled points to estimate its covariance, got "
            f"{int(mask.sum())} positive and {int((~mask).sum())} negative"
        )
    return mask


def _ridge_abs(ridge: float, traces) -> float:
    if not np.isfinite(ridge) or ridge < 0:
        raise ValueError(f"ridge must be ≥ 0, got {ridge!r}")
    return float(ridge) * float(np.mean(traces))


def class_moments(
    X: np.ndarray, y, *, pos_label=None, ridge: float = DEFAULT_RIDGE
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """Empirical class means and ridged covariances from explicit features (thesis §2.2, §2.4).

    Parameters
    ----------
    X
        (n, p) features.
    y
        (n,) binary labels; the positive class is ``pos_label`` (default: the larger label).
    pos_label
        Label of class 1 (false negatives are its errors).
    ridge
        Relative ridge: ``ρ = ridge · (tr Σ̂₁ + tr Σ̂₂)/2`` is added to both diagonals.

    Returns
    -------
    mu1, mu2, S1, S2, rho
        Means (p,), covariances ``Σ̂_i + ρI`` (p, p) with ``Σ̂_i`` divided by ``m_i`` as in §2.4,
        and the absolute ridge ρ.
    """
    X = np.asarray(X, dtype=np.float64)
    pos = _positive_mask(y, pos_label)
    mus, covs = [], []
    for mask in (pos, ~pos):
        Xi = X[mask]
        mu = Xi.mean(axis=0)
        D = Xi - mu
        mus.append(mu)
        covs.append(D.T @ D / Xi.shape[0])
    rho = _ridge_abs(ridge, [np.trace(S) for S in covs])
    eye = rho * np.eye(X.shape[1])
    return mus[0], mus[1], covs[0] + eye, covs[1] + eye, rho


def kernel_class_quantities(
    K: np.ndarray, y, *, pos_label=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel quantities ``g₁, g₂, G₁, G₂`` of thesis §2.4, formed literally (O(n²m)).

    With ``w = Σ_j s_j φ(x_j)`` over all n training points, ``wᵀμ_i = sᵀg_i`` and
    ``wᵀΣ_iw = sᵀG_is`` (eq. 2.17), where ``g_i = K_{:,i} e_i/m_i`` and
    ``G_i = K_{:,i}(I − e_ie_iᵀ/m_i)² K_{i,:}/m_i`` (``K_{:,i}``: the kernel columns of class i).
    A reference: the solvers use the equivalent O(n²) forms of :func:`projected_moments` and the
    empirical feature map of :class:`SpecifiedErrorClassifier`.

    Parameters
    ----------
    K
        (n, n) training kernel.
    y
        (n,) binary labels.
    pos_label
        Label of class 1.

    Returns
    -------
    g1, g2, G1, G2
        (n,), (n,), (n, n), (n, n).
    """
    K = np.asarray(K, dtype=np.float64)
    pos = _positive_mask(y, pos_label)
    out = []
    for mask in (pos, ~pos):
        Ki = K[:, mask]
        m = Ki.shape[1]
        J = np.eye(m) - 1.0 / m  # centring; J² = J
        out.append((Ki.mean(axis=1), Ki @ J @ J @ Ki.T / m))
    return out[0][0], out[1][0], out[0][1], out[1][1]


@dataclass(frozen=True)
class ProjectedMoments:
    """Moments of the projection ``wᵀφ(X_i)`` of each class (what theorem 2.1 needs).

    Attributes
    ----------
    mean
        ``(wᵀμ₁, wᵀμ₂)`` (= ``sᵀg_i`` of eq. 2.17 for a kernel expansion).
    std
        ``(√(wᵀΣ₁w + ρ‖w‖²), √(wᵀΣ₂w + ρ‖w‖²))`` (= ``√(sᵀG_is + ρ sᵀKs)``).
    n
        Points per class ``(m₁, m₂)``.
    rho
        The absolute ridge ρ.
    """

    mean: tuple[float, float]
    std: tuple[float, float]
    n: tuple[int, int]
    rho: float

    @classmethod
    def from_scores(
        cls, scores: np.ndarray, positive: np.ndarray, w_norm2: float, traces, ridge: float
    ) -> ProjectedMoments:
        """From ``wᵀφ(x_j)`` of every point, ``‖w‖²`` and the class covariance traces."""
        rho = _ridge_abs(ridge, traces)
        mean, std, n = [], [], []
        for mask in (positive, ~positive):
            f = scores[mask]
            mu = float(f.mean())
            var = float(np.mean((f - mu) ** 2)) + rho * max(float(w_norm2), 0.0)
            mean.append(mu)
            std.append(float(np.sqrt(var)))
            n.append(int(f.size))
        return cls(mean=tuple(mean), std=tuple(std), n=tuple(n), rho=rho)

    def margins(self, b: float) -> np.ndarray:
        """``(r₁, r₂)``: each class mean's distance to ``wᵀφ = b`` in its standard deviations."""
        num = np.array([self.mean[0] - b, b - self.mean[1]])
        sd = np.asarray(self.std)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = num / sd
        # a class of zero variance is entirely on the side of its mean
        return np.where(sd > 0, r, np.where(num > 0, np.inf, -np.inf))


@dataclass(frozen=True)
class Certificate:
    """Worst-case error rates of ``f = wᵀφ − b`` under the class moments (thesis theorem 2.1).

    Attributes
    ----------
    false_negative, false_positive
        Worst-case rates of class 1 and class 2.
    r
        ``(r₁, r₂)``, the margins in standard deviations.
    b
        The offset certified.
    moments
        ``"chebyshev"`` (any distribution) or ``"gaussian"``.
    projected
        The :class:`ProjectedMoments` behind the numbers.
    """

    false_negative: float
    false_positive: float
    r: tuple[float, float]
    b: float
    moments: str
    projected: ProjectedMoments

    @property
    def rates(self) -> tuple[float, float]:
        """``(false_negative, false_positive)``."""
        return (self.false_negative, self.false_positive)


@dataclass(frozen=True)
class OffsetInterval:
    """The offsets b for which ``f = wᵀφ − b`` meets both targets (docs/mathematics.md §8 (b)).

    ``low = wᵀμ₂ + κ₂σ₂`` (false positives ≤ η₂ needs ``b ≥ low``) and
    ``high = wᵀμ₁ − κ₁σ₁`` (false negatives ≤ η₁ needs ``b ≤ high``): the constraints of (2.3)
    without the margin 1, w held fixed. Empty when ``low > high``.

    Attributes
    ----------
    low, high
        The endpoints (``low > high`` when infeasible).
    feasible
        Whether some b meets both targets.
    eta, kappa
        The targets ``(η₁, η₂)`` and their multipliers.
    moments
        ``"chebyshev"`` or ``"gaussian"``.
    best_false_positive
        The worst-case false-positive rate at ``b = high`` (the best η₂ while η₁ is met).
    best_false_negative
        The worst-case false-negative rate at ``b = low`` (the best η₁ while η₂ is met).
    message
        One line for the user ("targets infeasible: label more or relax them …" when empty).
    """

    low: float
    high: float
    feasible: bool
    eta: tuple[float, float]
    kappa: tuple[float, float]
    moments: str
    best_false_positive: float
    best_false_negative: float
    message: str

    def intercepts(self) -> tuple[float, float]:
        """The same interval for an intercept ``f = wᵀφ + c`` (RLS convention: ``c = −b``)."""
        return (-self.high, -self.low)

    def contains(self, b: float) -> bool:
        """Whether the offset b meets both targets."""
        return self.feasible and self.low <= b <= self.high


def projected_moments(
    K: np.ndarray, y, coef: np.ndarray, *, pos_label=None, ridge: float = DEFAULT_RIDGE
) -> ProjectedMoments:
    """Class moments of ``w = Σ_j s_j φ(x_j)`` from the kernel alone (thesis §2.4, eq. 2.17).

    ``sᵀg_i`` is the class-i mean of ``Ks`` and ``sᵀG_is`` its (1/m_i) variance: the same
    numbers as :func:`kernel_class_quantities` in O(n²) (one product ``Ks``) instead of O(n³).

    Parameters
    ----------
    K
        (n, n) kernel of the points the expansion runs over; the moments are theirs too.
    y
        (n,) binary labels.
    coef
        (n,) expansion coefficients s (an RLS's dual coefficients c).
    pos_label
        Label of class 1.
    ridge
        Relative ridge (module docstring); in feature space it adds ``ρ sᵀKs``.
    """
    K = np.asarray(K, dtype=np.float64)
    s = np.asarray(coef, dtype=np.float64).ravel()
    if K.ndim != 2 or K.shape != (s.size, s.size):
        raise ValueError(f"K must be ({s.size}, {s.size}) for {s.size} coefficients, got {K.shape}")
    pos = _positive_mask(y, pos_label)
    f = K @ s
    return ProjectedMoments.from_scores(f, pos, s @ f, _kernel_traces(K, pos), ridge)


def _kernel_traces(K: np.ndarray, pos: np.ndarray) -> list[float]:
    # tr Σ_i in feature space = mean k(x, x) − mean k(x, x') over the class
    return [float(np.mean(np.diag(K)[m]) - np.mean(K[np.ix_(m, m)])) for m in (pos, ~pos)]


def linear_projected_moments(
    X: np.ndarray, y, w: np.ndarray, *, pos_label=None, ridge: float = DEFAULT_RIDGE
) -> ProjectedMoments:
    """Class moments of ``wᵀx`` for an explicit weight vector (linear kernel path, O(nd)).

    Parameters
    ----------
    X
        (n, d) points whose class moments are used.
    y
        (n,) binary labels.
    w
        (d,) weights.
    pos_label, ridge
        As for :func:`projected_moments`.
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64).ravel()
    pos = _positive_mask(y, pos_label)
    traces = [float(np.sum(X[m].var(axis=0))) for m in (pos, ~pos)]
    return ProjectedMoments.from_scores(X @ w, pos, w @ w, traces, ridge)


def certificate(pm: ProjectedMoments, b: float, moments: Moments = "chebyshev") -> Certificate:
    """Worst-case false-negative / false-positive rates of ``wᵀφ − b`` (theorem 2.1).

    Parameters
    ----------
    pm
        Projected class moments (:func:`projected_moments`, :func:`linear_projected_moments`,
        :func:`rls_projected_moments`).
    b
        Offset: the classifier says class 1 when ``wᵀφ(x) > b``.
    moments
        ``"chebyshev"``: ``1/(1 + r²)``; ``"gaussian"``: ``Φ(−r)``.
    """
    r = pm.margins(float(b))
    rates = worst_case_rate(r, moments)
    return Certificate(
        false_negative=float(rates[0]),
        false_positive=float(rates[1]),
        r=(float(r[0]), float(r[1])),
        b=float(b),
        moments=moments,
        projected=pm,
    )


def offset_interval(pm: ProjectedMoments, eta, moments: Moments = "chebyshev") -> OffsetInterval:
    """The interval of offsets b meeting ``FN ≤ η₁`` and ``FP ≤ η₂`` for a fixed w.

    From the constraints of (2.3) without the margin: ``wᵀμ₁ − b ≥ κ₁σ₁`` and
    ``b − wᵀμ₂ ≥ κ₂σ₂``. At ``b = high`` the certified false-negative rate equals η₁, at
    ``b = low`` the false-positive rate equals η₂. An empty interval is a result, not an error:
    ``feasible`` is False and ``message`` says so.

    Parameters
    ----------
    pm
        Projected class moments.
    eta
        ``(η₁, η₂)`` (or one number for both), each in (0, 1) (``"gaussian"``) or (0, 1].
    moments
        ``"chebyshev"`` or ``"gaussian"``.
    """
    e = _eta_pair(eta)
    if moments == "gaussian" and np.any(e >= 1):
        raise ValueError(f"moments='gaussian' needs η < 1, got {eta!r}")
    k = kappa(e, moments)
    low = pm.mean[1] + k[1] * pm.std[1]
    high = pm.mean[0] - k[0] * pm.std[0]
    feasible = bool(low <= high)
    best_fp = float(certificate(pm, high, moments).false_positive)
    best_fn = float(certificate(pm, low, moments).false_negative)
    if feasible:
        message = (
            f"offsets b in [{low:.6g}, {high:.6g}] meet false negatives ≤ {e[0]:g} and "
            f"false positives ≤ {e[1]:g} ({moments})"
        )
    else:
        message = (
            f"{INFEASIBLE} (with false negatives ≤ {e[0]:g} this classifier certifies false "
            f"positives ≤ {best_fp:.3g} at best; with false positives ≤ {e[1]:g}, false "
            f"negatives ≤ {best_fn:.3g})"
        )
    return OffsetInterval(
        low=float(low),
        high=float(high),
        feasible=feasible,
        eta=(float(e[0]), float(e[1])),
        kappa=(float(k[0]), float(k[1])),
        moments=moments,
        best_false_positive=best_fp,
        best_false_negative=best_fn,
        message=message,
    )


# ----------------------------------------------------------------------------- RLS glue


def _rls_column(clf, positive) -> tuple[int, object]:
    check_is_fitted(clf, "dual_coef_")
    classes = clf.classes_
    if classes.size == 2:
        if positive is not None and positive != classes[1]:
            raise ValueError(
                f"a binary RLS's positive class is {classes[1]!r} (f > 0), got {positive!r}"
            )
        return 0, classes[1]
    if positive is None:
        raise ValueError(
            f"a one-vs-all RLS has {classes.size} classifiers: name the positive class "
            f"(one of {list(classes)})"
        )
    hits = np.flatnonzero(classes == positive)
    if hits.size != 1:
        raise ValueError(f"positive {positive!r} is not one of the classes {list(classes)}")
    return int(hits[0]), positive


def rls_projected_moments(
    clf, X=None, y=None, *, positive=None, ridge: float = DEFAULT_RIDGE
) -> tuple[ProjectedMoments, float]:
    """Projected class moments of a fitted :class:`~rlscore.core.rls.classifier.RLSClassifier`.

    ``w = Σ_j c_j φ(x_j)`` over the RLS's training points (its dual coefficients), so
    ``f(x) = wᵀφ(x) − b`` with ``b = −intercept``. Linear kernel: ``w = X_fitᵀc`` explicitly
    (O(nd)); other kernels: §2.4's kernel quantities (:func:`projected_moments`).

    Parameters
    ----------
    clf
        A fitted RLSClassifier (binary, or one-vs-all with ``positive`` naming a class).
    X, y
        Labeled points to estimate the moments on; default the RLS's training set. Held-out
        labels give an honest certificate (training moments are optimistic, thesis §2.4 end).
    positive
        The class playing class 1 (binary: ``classes_[1]``, the default).
    ridge
        Relative ridge (module docstring).

    Returns
    -------
    (ProjectedMoments, float)
        The moments and the RLS's offset ``b = −intercept``.
    """
    col, pos_label = _rls_column(clf, positive)
    n = clf.X_fit_.shape[0]
    c = np.asarray(clf.dual_coef_, dtype=np.float64).reshape(n, -1)[:, col]
    b = -float(np.asarray(clf.intercept_).ravel()[col])
    kw = {"kernel": clf.kernel, "sigma": clf.sigma, "degree": int(clf.degree)}
    if X is None:
        if y is not None:
            raise ValueError("pass X together with y")
        X, y = clf.X_fit_, clf.y_fit_
        same = True
    else:
        if y is None:
            raise ValueError("pass y together with X")
        X = np.asarray(X, dtype=np.float64)
        same = False
    # one-vs-all: class 1 is ``positive``, class 2 every other class
    y, pos_label = np.asarray(y) == pos_label, True
    if clf.kernel == "linear":
        pm = linear_projected_moments(X, y, clf.X_fit_.T @ c, pos_label=pos_label, ridge=ridge)
        return pm, b
    if clf.kernel == "precomputed":
        if not same:
            raise ValueError(
                "kernel='precomputed': certify on the training points (X=None), other points "
                "need their kernel among themselves"
            )
        return projected_moments(clf.X_fit_, y, c, pos_label=pos_label, ridge=ridge), b
    if same:
        K = kernel_matrix(clf.X_fit_, **kw)
        return projected_moments(K, y, c, pos_label=pos_label, ridge=ridge), b
    # moments of other points: their scores, ‖w‖² = cᵀKc, traces from their own kernel blocks
    pos = _positive_mask(y, pos_label)
    K_fit = kernel_matrix(clf.X_fit_, **kw)
    scores = kernel_matrix(X, clf.X_fit_, **kw) @ c
    traces = _kernel_traces(kernel_matrix(X, **kw), pos)
    return ProjectedMoments.from_scores(scores, pos, c @ K_fit @ c, traces, ridge), b


def rls_certificate(
    clf,
    X=None,
    y=None,
    *,
    positive=None,
    moments: Moments = "chebyshev",
    ridge: float = DEFAULT_RIDGE,
) -> Certificate:
    """Worst-case false-negative / false-positive rates of a fitted RLS (docs/mathematics.md §8
    (a)).

    Parameters
    ----------
    clf, X, y, positive, ridge
        As for :func:`rls_projected_moments`.
    moments
        ``"chebyshev"`` (any distribution) or ``"gaussian"``.
    """
    pm, b = rls_projected_moments(clf, X, y, positive=positive, ridge=ridge)
    return certificate(pm, b, moments)


def rls_offset_interval(
    clf,
    eta,
    X=None,
    y=None,
    *,
    positive=None,
    moments: Moments = "chebyshev",
    ridge: float = DEFAULT_RIDGE,
) -> OffsetInterval:
    """Offsets b (``f = k(x, X)c − b``) meeting the targets ``eta`` for a fitted RLS.

    ``interval.intercepts()`` gives the same interval for the RLS's ``intercept_``.

    Parameters
    ----------
    clf, X, y, positive, ridge
        As for :func:`rls_projected_moments`.
    eta
        ``(η₁, η₂)``: the false-negative and false-positive targets.
    moments
        ``"chebyshev"`` or ``"gaussian"``.
    """
    pm, _ = rls_projected_moments(clf, X, y, positive=positive, ridge=ridge)
    return offset_interval(pm, eta, moments)


# ----------------------------------------------------------------------------- solvers


@dataclass(frozen=True)
class EllipsoidSeparation:
    """Solution of (2.3): the hyperplane ``wᵀx = b`` separating the two ellipsoids.

    Attributes
    ----------
    w, b
        The classifier (None when infeasible).
    feasible
        False when the ellipsoids ``B(μ_i, C_i, κ_i)`` intersect (the targets cannot be met).
    converged
        The solver reached its tolerance.
    n_iter
        Iterations (interior-point iterations for the SOCP).
    status
        Solver status or a one-line explanation.
    z
        Closest points ``(z₁, z₂)`` of the two ellipsoids (iterative solver; dual (2.13)).
    seconds
        Wall-clock time of the solve (SOCP: cvxpy's compilation included).
    solver_seconds
        Time inside the numerical solver (SOCP: Clarabel's own solve time).
    """

    w: np.ndarray | None
    b: float | None
    feasible: bool
    converged: bool
    n_iter: int
    status: str
    z: tuple[np.ndarray, np.ndarray] | None = None
    seconds: float = 0.0
    solver_seconds: float = 0.0


def _check_problem(mu1, mu2, S1, S2, kappa1, kappa2):
    mu1 = np.asarray(mu1, dtype=np.float64).ravel()
    mu2 = np.asarray(mu2, dtype=np.float64).ravel()
    S1 = np.asarray(S1, dtype=np.float64)
    S2 = np.asarray(S2, dtype=np.float64)
    p = mu1.size
    if mu2.shape != (p,) or S1.shape != (p, p) or S2.shape != (p, p):
        raise ValueError(
            f"shapes disagree: mu1 {mu1.shape}, mu2 {mu2.shape}, S1 {S1.shape}, S2 {S2.shape}"
        )
    k = np.array([kappa1, kappa2], dtype=np.float64)
    if not np.all(np.isfinite(k)) or np.any(k < 0):
        raise ValueError(
            f"κ must be finite and ≥ 0 (a convex problem; Gaussian moments need η ≤ 1/2), got {k}"
        )
    return mu1, mu2, S1, S2, k


def _sq(v: np.ndarray) -> float:
    return float(v @ v)


def _cholesky(S: np.ndarray, name: str) -> np.ndarray:
    try:
        return np.linalg.cholesky(0.5 * (S + S.T))
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} is not positive definite: use a ridge > 0") from None


def solve_socp(
    mu1, mu2, S1, S2, kappa1: float, kappa2: float, *, tol: float = 1e-9
) -> EllipsoidSeparation:
    """Solve (2.3) in the standard SOCP form (2.5) (kernelised: (2.19)) with cvxpy + Clarabel.

    ``min t  s.t.  ‖w‖ ≤ t,  wᵀμ₁ − b − 1 ≥ κ₁‖C₁ᵀw‖,  b − wᵀμ₂ − 1 ≥ κ₂‖C₂ᵀw‖``
    with ``Σ_i = C_iC_iᵀ`` (Cholesky). Clarabel: a maintained, open-source (Apache-2.0)
    interior-point solver for conic programs (second-order cones natively), cvxpy's default
    for them; cvxpy keeps the program as readable as the thesis's display.

    Parameters
    ----------
    mu1, mu2
        (p,) class means.
    S1, S2
        (p, p) positive-definite class covariances (ridged).
    kappa1, kappa2
        κ ≥ 0 of the two targets.
    tol
        Clarabel's gap and feasibility tolerances.
    """
    import cvxpy as cp  # lazy: a heavy import only this solver needs

    mu1, mu2, S1, S2, k = _check_problem(mu1, mu2, S1, S2, kappa1, kappa2)
    C1, C2 = _cholesky(S1, "S1"), _cholesky(S2, "S2")
    p = mu1.size
    w, b, t = cp.Variable(p), cp.Variable(), cp.Variable()
    constraints = [
        cp.SOC(t, w),
        cp.SOC(mu1 @ w - b - 1.0, k[0] * (C1.T @ w)),
        cp.SOC(b - mu2 @ w - 1.0, k[1] * (C2.T @ w)),
    ]
    problem = cp.Problem(cp.Minimize(t), constraints)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        # cvxpy's generic "may be inaccurate" warning: replaced by ours below
        warnings.filterwarnings("ignore", "Solution may be inaccurate", UserWarning)
        problem.solve(
            solver=cp.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, max_iter=500
        )
    seconds = time.perf_counter() - t0
    status = problem.status
    n_iter = int(problem.solver_stats.num_iters or 0)
    inner = float(problem.solver_stats.solve_time or 0.0)
    if status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        return EllipsoidSeparation(
            None, None, False, True, n_iter, f"{INFEASIBLE} (SOCP {status})",
            seconds=seconds, solver_seconds=inner,
        )  # fmt: skip
    if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or w.value is None:
        raise RuntimeError(f"the SOCP solver failed: status {status!r}")
    if status == cp.OPTIMAL_INACCURATE:
        # Clarabel met only its reduced tolerances: typical next to infeasibility
        warnings.warn(
            f"SOCP solved to reduced accuracy (tolerance {tol:g} not met; the targets are "
            "close to infeasible)",
            ConvergenceWarning,
            stacklevel=2,
        )
    return EllipsoidSeparation(
        np.asarray(w.value, dtype=np.float64),
        float(b.value),
        True,
        status == cp.OPTIMAL,
        n_iter,
        f"SOCP {status}",
        seconds=seconds,
        solver_seconds=inner,
    )


def solve_iterative(
    mu1,
    mu2,
    S1,
    S2,
    kappa1: float,
    kappa2: float,
    *,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> EllipsoidSeparation:
    """Solve (2.3) through its dual (2.13), the distance between two ellipsoids (§2.3.1).

    Lin & Han's iteration as in the thesis: ellipsoids ``q_i(z) = ½zᵀA_iz + b_iᵀz + ρ_i ≤ 0``
    with ``A_i = 2Σ_i⁻¹``, ``b_i = −2Σ_i⁻¹μ_i``, ``ρ_i = μ_iᵀΣ_i⁻¹μ_i − κ_i²``; start from the
    centres ``c_i = μ_i``; each step intersects the segment ``c₁c₂`` with both ellipsoids
    (two scalar quadratics) giving ``z₁, z₂``; stops when ``z₂ − z₁`` is normal to both
    (angles ``θ_i < tol``); otherwise moves ``c_i ← z_i − δ_i∇q_i(z_i)``, ``δ_i = 1/‖A_i‖₂``
    (the largest δ for which the sphere of centre ``c_i`` through ``z_i`` lies inside the
    ellipsoid wherever ``z_i`` is on its boundary). ``t₁ ≥ t₂`` (the segment
    meets both ellipsoids at once) means they intersect: infeasible. Then (2.14), (2.16):
    ``w = 2(z₁ − z₂)/‖z₁ − z₂‖²``, ``b = wᵀz₁ − 1``.

    Cost O(p³) once (``Σ_i⁻¹``), O(p²) per step; the number of steps grows with the
    condition number of the covariances (the sphere radii are tied to ``λ_min(Σ_i)``), so a
    larger ridge converges faster.

    Parameters
    ----------
    mu1, mu2, S1, S2, kappa1, kappa2
        As for :func:`solve_socp`.
    tol
        Stop when both normal angles are below ``tol`` (radians).
    max_iter
        Iteration cap; reaching it gives ``converged=False`` (and a ConvergenceWarning).
    """
    mu1, mu2, S1, S2, k = _check_problem(mu1, mu2, S1, S2, kappa1, kappa2)
    if int(max_iter) < 1:
        raise ValueError(f"max_iter must be ≥ 1, got {max_iter!r}")
    max_iter = int(max_iter)
    t0 = time.perf_counter()
    p = mu1.size
    P, step = [], []
    for i, S in enumerate((S1, S2)):
        C = _cholesky(S, f"S{i + 1}")
        P.append(scipy.linalg.cho_solve((C, True), np.eye(p)))  # Σ_i⁻¹ (A_i = 2Σ_i⁻¹)
        # c̄ = z − δ∇q = z − (λ_min/2)·2Σ⁻¹(z − μ): δ_i = 1/‖A_i‖₂ = λ_min(Σ_i)/2
        step.append(float(np.linalg.eigvalsh(0.5 * (S + S.T))[0]))
    P1, P2 = P
    k1sq, k2sq = float(k[0] ** 2), float(k[1] ** 2)
    fixed1, fixed2 = k[0] == 0, k[1] == 0  # η = 1: the ellipsoid is its mean, never moved
    tiny = 1e-14 * (1.0 + np.linalg.norm(mu1) + np.linalg.norm(mu2))
    c1, c2 = mu1.copy(), mu2.copy()
    M = np.empty((p, 2))  # [e_i, d]: one product Σ_i⁻¹[e_i, d] per ellipsoid and step
    status, converged, feasible = "", False, True
    z1, z2, theta = c1, c2, np.inf
    it = 0
    # a scalar loop: every step is two (p × p)(p × 2) products plus O(p) vector work
    while it < max_iter:
        it += 1
        d = c2 - c1
        M[:, 1] = d
        M[:, 0] = c1 - mu1
        R1 = P1 @ M
        e1, Pe1, Pd1 = M[:, 0].copy(), R1[:, 0], R1[:, 1]
        M[:, 0] = c1 - mu2
        R2 = P2 @ M
        e2, Pe2, Pd2 = M[:, 0], R2[:, 0], R2[:, 1]
        # q_i(c₁ + t d) = a t² + 2h t + c (halved standard form): two scalar quadratics
        a1, h1, q1 = Pd1 @ d, Pd1 @ e1, Pe1 @ e1 - k1sq
        a2, h2, q2 = Pd2 @ d, Pd2 @ e2, Pe2 @ e2 - k2sq
        # c₁ is inside B₁: its exit root (the larger); c₂ inside B₂: its entry root (smaller)
        t1 = (-h1 + math.sqrt(max(h1 * h1 - a1 * q1, 0.0))) / a1
        t2 = (-h2 - math.sqrt(max(h2 * h2 - a2 * q2, 0.0))) / a2
        if t1 >= t2:
            status, feasible = f"{INFEASIBLE} (the ellipsoids intersect)", False
            break
        z1, z2 = c1 + t1 * d, c1 + t2 * d
        # gradients ∇q_i(z_i) ∝ Σ_i⁻¹(z_i − μ_i), without another product
        g1, g2 = Pe1 + t1 * Pd1, Pe2 + t2 * Pd2
        u = (t2 - t1) * d  # z₂ − z₁
        un = math.sqrt(u @ u)
        if un <= tiny:
            status, feasible = f"{INFEASIBLE} (the ellipsoids touch)", False
            break
        u /= un
        # θ via the chord ‖û − n̂‖ = 2 sin(θ/2): accurate for small angles, unlike arccos
        th1 = 0.0 if fixed1 else math.sqrt(_sq(u - g1 / math.sqrt(g1 @ g1)))
        th2 = 0.0 if fixed2 else math.sqrt(_sq(u + g2 / math.sqrt(g2 @ g2)))
        theta = max(th1, th2)
        if theta < tol:
            converged = True
            break
        c1 = mu1 if fixed1 else z1 - step[0] * g1
        c2 = mu2 if fixed2 else z2 - step[1] * g2
    seconds = time.perf_counter() - t0
    if not feasible:
        return EllipsoidSeparation(None, None, False, True, it, status, None, seconds, seconds)
    dz = z1 - z2
    w = 2.0 * dz / (dz @ dz)  # (2.14)
    b = float(w @ z1 - 1.0)  # (2.16)
    if not converged:
        status = f"iterative: not converged after {it} steps (angle {theta:.2e} > {tol:g})"
        warnings.warn(status + "; raise max_iter or the ridge", ConvergenceWarning, stacklevel=2)
    else:
        status = f"iterative: converged in {it} steps"
    return EllipsoidSeparation(w, b, True, converged, it, status, (z1, z2), seconds, seconds)


# ----------------------------------------------------------------------------- estimator


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
        Relative covariance ridge (module docstring); a regulariser with non-linear kernels.
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
        "eta": (Validated(_eta_pair),),
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
        e = _eta_pair(self.eta)
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
        pos = _positive_mask(y, self.classes_[1])
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
            eta = tuple(_eta_pair(self.eta).tolist())
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
        pos = _positive_mask(y, self.classes_[1])
        s = self.dual_coef_
        scores = self._kernel(X, self.X_fit_) @ s
        w_norm2 = s @ self._kernel(self.X_fit_) @ s
        pm = ProjectedMoments.from_scores(
            scores, pos, w_norm2, _kernel_traces(self._kernel(X), pos), self.ridge
        )
        return certificate(pm, self.b_, m)
