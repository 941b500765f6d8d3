"""Treelets: an adaptive multi-scale orthonormal basis by Jacobi rotations (Sheng §2.2.4,
Algorithm 2; Lee, Nadler & Wasserman, *Treelets — an adaptive multi-scale basis for sparse
unordered data*, Ann. Appl. Stat. 2(2):435–471, 2008), the front end of T-BDLDA
(:mod:`rlscore.core.classifiers.bdlda`).

Each level decorrelates the two most similar *sum variables* by one Jacobi rotation (a local
PCA); BDLDA then runs on the coefficients ``x^(𝓛) = Bᵀx`` (eq. 2.9). Where the thesis is
silent or differs from Lee et al., and what this module does:

* the similarity is the *absolute* correlation ``|ρ_ij|`` (Lee et al.; the thesis prints
  ``argmax M̂`` — with signed correlations the ``K_{−ρ}`` blocks of §2.3.1 would never merge);
* after each rotation the coordinate of larger variance is the sum variable kept in δ (Lee et
  al.; the thesis keeps "α", the lower index);
* a level is one rotation, so a coefficient mixes at most 𝓛 + 1 original features (the thesis
  says 2^𝓛); the basis comes from the total sample covariance (unsupervised);
* ties (equal similarities) go to the lower index.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np

from rlscore.core.conventions.input_validation import check_matrix

__all__ = ["Treelets", "treelets"]


@dataclass(frozen=True)
class Treelets:
    """A treelet basis at level 𝓛 (Sheng Algorithm 2; Lee, Nadler & Wasserman 2008).

    Attributes
    ----------
    basis : ndarray (p, p)
        Orthonormal ``B^(𝓛)``; its *columns* are the basis vectors, ``x = B x^(𝓛)`` (eq. 2.9)
        and ``x^(𝓛) = Bᵀx``.
    covariance : ndarray (p, p)
        ``Σ^(𝓛) = BᵀΣ^(0)B``, the sample covariance of the coefficients.
    merges : ndarray (𝓛, 2) of int
        Per level, (sum variable kept in δ, difference variable removed from δ).
    angles : ndarray (𝓛,)
        The Jacobi angles ``θ_l``, ``|θ_l| ≤ π/4``.
    """

    basis: np.ndarray
    covariance: np.ndarray
    merges: np.ndarray
    angles: np.ndarray

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Treelet coefficients ``x^(𝓛) = Bᵀx`` of the rows of X, (n, p)."""
        return np.asarray(X, dtype=np.float64) @ self.basis


def _abs_correlation(Sigma: np.ndarray, rows: np.ndarray | slice) -> np.ndarray:
    """``|Σ_ij|/√(Σ_ii Σ_jj)`` for the given rows (0 where a variance is 0)."""
    v = np.diag(Sigma)
    with np.errstate(divide="ignore", invalid="ignore"):
        M = np.abs(Sigma[rows]) / np.sqrt(np.multiply.outer(v[rows], v))
    return np.nan_to_num(M, nan=0.0, posinf=0.0)


def _jacobi_angle(a: float, b: float, c: float) -> float:
    """θ with ``|θ| ≤ π/4`` zeroing the off-diagonal of ``JᵀΣJ``, ``Σ = [[a, c], [c, b]]``."""
    if a == b:
        return float(np.sign(c)) * np.pi / 4
    return 0.5 * float(np.arctan(2.0 * c / (a - b)))  # tan 2θ = 2c/(a − b)


def treelets(X: np.ndarray, level: int) -> Treelets:
    """Treelet basis of the columns of X after ``level`` Jacobi rotations (Sheng Algorithm 2).

    Each level merges the two *sum variables* of largest absolute correlation (Lee, Nadler &
    Wasserman 2008): a Jacobi rotation ``J(α, β, θ)`` decorrelates them (a local PCA),
    ``Σ ← JᵀΣJ``, ``B ← BJ``; the rotated coordinate of larger variance stays a sum variable,
    the other (the difference variable) leaves δ. O(p²) memory, O(p²) time per level.

    Parameters
    ----------
    X
        (n, p) data, n ≥ 2.
    level
        Number of rotations 𝓛, ``0 ≤ level ≤ p − 1``.

    Returns
    -------
    Treelets
    """
    X = check_matrix(X, "X", min_samples=2)
    n, p = X.shape
    if isinstance(level, bool) or not isinstance(level, Integral) or not 0 <= level <= p - 1:
        raise ValueError(f"level must be an integer in [0, p − 1] = [0, {p - 1}], got {level!r}")
    Xc = X - X.mean(axis=0)
    Sigma = Xc.T @ Xc / (n - 1)
    B = np.eye(p)
    M = _abs_correlation(Sigma, slice(None))
    np.fill_diagonal(M, -np.inf)
    merges = np.empty((level, 2), dtype=np.intp)
    angles = np.empty(level)
    for lev in range(level):
        i, j = np.unravel_index(np.argmax(M), M.shape)
        alpha, beta = (int(i), int(j)) if i < j else (int(j), int(i))
        theta = _jacobi_angle(Sigma[alpha, alpha], Sigma[beta, beta], Sigma[alpha, beta])
        cs, sn = np.cos(theta), np.sin(theta)
        R = np.array([[cs, -sn], [sn, cs]])
        pair = [alpha, beta]
        Sigma[:, pair] = Sigma[:, pair] @ R
        Sigma[pair, :] = R.T @ Sigma[pair, :]
        Sigma[alpha, beta] = Sigma[beta, alpha] = 0.0  # exactly, not up to rounding
        B[:, pair] = B[:, pair] @ R
        keep, drop = (alpha, beta) if Sigma[alpha, alpha] >= Sigma[beta, beta] else (beta, alpha)
        merges[lev] = keep, drop
        angles[lev] = theta
        # only the two rotated coordinates change similarity; the difference variable leaves δ
        active = np.isfinite(M[keep]) | (np.arange(p) == keep)
        active[drop] = False
        row = np.where(active, _abs_correlation(Sigma, keep), -np.inf)
        row[keep] = -np.inf
        M[keep, :] = M[:, keep] = row
        M[drop, :] = M[:, drop] = -np.inf
    return Treelets(basis=B, covariance=Sigma, merges=merges, angles=angles)
