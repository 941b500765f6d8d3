"""Error bounds of a linear classifier from its class moments (Saketha Nath, ch. 2;
docs/mathematics.md §8).

Positive class 1 (the second of the sorted labels, as in
:class:`~rlscore.core.rls.classifier.RLSClassifier`), negative class 2, a classifier linear in a
feature space ``f(x) = wᵀφ(x) − b`` and the class moments ``(μ_i, Σ_i)``. By the Chebyshev–Cantelli
inequality (thesis theorem 2.1)

    ``wᵀμ₁ − b ≥ κ₁ √(wᵀΣ₁w)``  ⇒  false-negative rate ``P(f(X₁) < 0) ≤ η₁``,
    ``b − wᵀμ₂ ≥ κ₂ √(wᵀΣ₂w)``  ⇒  false-positive rate ``P(f(X₂) > 0) ≤ η₂``,

with ``κ = √((1 − η)/η)`` for any distribution with these moments and ``κ = Φ⁻¹(1 − η)`` for
Gaussian classes. Two uses here, a third in the classifier:

(a) **certificate** of any such classifier: with ``r₁ = (wᵀμ₁ − b)/√(wᵀΣ₁w)`` and
    ``r₂ = (b − wᵀμ₂)/√(wᵀΣ₂w)`` the worst-case rates are ``1/(1 + r²)`` (``r > 0``; 1 otherwise)
    or ``Φ(−r)`` for Gaussian classes. For a kernel expansion ``w = Σ_j s_j φ(x_j)`` the
    moments are §2.4's ``wᵀμ_i = sᵀg_i`` and ``wᵀΣ_iw = sᵀG_is`` (no feature map):
    :func:`projected_moments`, :func:`certificate`
    (for a fitted RLS: :mod:`rlscore.core.classifiers.rls_certificate`);
(b) the **interval of offsets** b meeting both targets, ``[wᵀμ₂ + κ₂σ₂, wᵀμ₁ − κ₁σ₁]``
    (:func:`offset_interval`; empty → "targets infeasible");
(c) the thesis's **max-margin classifier** (2.3) / kernelised (2.17)–(2.19), which separates
    the two ellipsoids of these constraints
    (:mod:`rlscore.core.classifiers.ellipsoid_separation`):
    :class:`~rlscore.core.classifiers.specified_error.SpecifiedErrorClassifier`.

Moments are the thesis's (§2.4) empirical ones, covariances divided by ``m_i`` (not ``m_i − 1``),
plus a **ridge** ``ρI`` with ``ρ = ridge · (tr Σ̂₁ + tr Σ̂₂)/2`` (relative, so invariant to the
scale of the data and identical for the linear and the kernelised forms: in feature space it
adds ``ρ‖w‖² = ρ sᵀKs`` to ``wᵀΣ_iw``). It keeps the covariances invertible (§2.3.1 needs
``Σ_i⁻¹``) and only ever enlarges the variances, so guarantees stay conservative. With a
non-linear kernel it is also a regulariser: without it, a kernel expansion can give both training
classes zero variance and "meet" any target (kernel Fisher discriminants need the same).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.stats import norm

__all__ = [
    "DEFAULT_RIDGE",
    "INFEASIBLE",
    "MOMENTS",
    "Certificate",
    "OffsetInterval",
    "ProjectedMoments",
    "certificate",
    "check_moments",
    "check_targets",
    "class_moments",
    "kappa",
    "kernel_class_quantities",
    "kernel_class_traces",
    "linear_projected_moments",
    "offset_interval",
    "positive_mask",
    "projected_moments",
    "worst_case_rate",
]

Moments = Literal["chebyshev", "gaussian"]
MOMENTS = ("chebyshev", "gaussian")
#: Default relative ridge: ``ρ = 1e-3 · (tr Σ̂₁ + tr Σ̂₂)/2`` (see the module docstring).
DEFAULT_RIDGE = 1e-3
#: The message of every infeasible result (UI and API say the same thing).
INFEASIBLE = "targets infeasible: label more or relax them"


# ----------------------------------------------------------------------------- κ and rates


def check_moments(moments: str) -> None:
    if moments not in MOMENTS:
        raise ValueError(f"moments must be one of {MOMENTS}, got {moments!r}")


def check_targets(eta) -> np.ndarray:
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
    check_moments(moments)
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
    check_moments(moments)
    r = np.asarray(r, dtype=np.float64)
    if moments == "gaussian":
        return norm.sf(r)
    with np.errstate(over="ignore"):
        return np.where(r > 0, 1.0 / (1.0 + r * r), 1.0)


# ----------------------------------------------------------------------------- moments


def positive_mask(y, pos_label=None) -> np.ndarray:
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
    pos = positive_mask(y, pos_label)
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
    empirical feature map of
    :class:`~rlscore.core.classifiers.specified_error.SpecifiedErrorClassifier`.

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
    pos = positive_mask(y, pos_label)
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
    pos = positive_mask(y, pos_label)
    f = K @ s
    return ProjectedMoments.from_scores(f, pos, s @ f, kernel_class_traces(K, pos), ridge)


def kernel_class_traces(K: np.ndarray, pos: np.ndarray) -> list[float]:
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
    pos = positive_mask(y, pos_label)
    traces = [float(np.sum(X[m].var(axis=0))) for m in (pos, ~pos)]
    return ProjectedMoments.from_scores(X @ w, pos, w @ w, traces, ridge)


def certificate(pm: ProjectedMoments, b: float, moments: Moments = "chebyshev") -> Certificate:
    """Worst-case false-negative / false-positive rates of ``wᵀφ − b`` (theorem 2.1).

    Parameters
    ----------
    pm
        Projected class moments (:func:`projected_moments`, :func:`linear_projected_moments`,
        :func:`~rlscore.core.classifiers.rls_certificate.rls_projected_moments`).
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
    e = check_targets(eta)
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
