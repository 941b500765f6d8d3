"""Input validation with messages that name the problem (scikit-learn style)."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np


def check_matrix(X, name: str = "X", *, min_samples: int = 1) -> np.ndarray:
    """Return ``X`` as a 2-D float64 array of finite values, or raise ``ValueError``.

    Parameters
    ----------
    X
        Array-like of shape (n, d).
    name
        Name used in error messages.
    min_samples
        Minimum number of rows.
    """
    try:
        A = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric: {exc}") from None
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (n_samples, n_features), got {A.ndim}-D with shape "
            f"{A.shape}; reshape a single feature with X.reshape(-1, 1)"
        )
    if A.shape[0] < min_samples:
        raise ValueError(f"{name} has {A.shape[0]} sample(s); at least {min_samples} are needed")
    if A.shape[1] == 0:
        raise ValueError(f"{name} has no features (0 columns)")
    bad = ~np.isfinite(A)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        shown = ", ".join(str(r) for r in rows[:5]) + (" …" if rows.size > 5 else "")
        kind = "NaN" if np.isnan(A[bad]).any() else "infinite values"
        raise ValueError(f"{name} contains {kind} in {rows.size} row(s) (rows {shown})")
    return A


def check_positive(value, name: str) -> float:
    """Return ``value`` as a finite float > 0, or raise ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, Real | np.number):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return v


def check_sample_weight(sample_weight, n: int) -> np.ndarray:
    """Return per-point weights as a (n,) float64 array of finite values ≥ 0, or raise.

    Parameters
    ----------
    sample_weight
        Array-like of n weights (a scalar is the same weight for every point).
    n
        Number of points.
    """
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sample_weight must be numeric: {exc}") from None
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise ValueError(f"sample_weight has shape {w.shape}; expected ({n},), one per point")
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinite values")
    if np.any(w < 0):
        raise ValueError(f"sample_weight must be ≥ 0, got {w[w < 0][:3].tolist()}")
    return w


def check_labels(y, n: int, name: str = "y") -> np.ndarray:
    """Return ``y`` as a 1-D array of length ``n`` without missing values."""
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} labels but X has {n} rows")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{name} contains missing labels (NaN)")
    if arr.dtype.kind == "O" and any(v is None for v in arr):
        raise ValueError(f"{name} contains missing labels (None)")
    return arr


def check_kernel_matrix(K) -> np.ndarray:
    """``K`` as a float64 (n, n) matrix of finite values, symmetric, n ≥ 2, or ``ValueError``.

    eigh and Cholesky read one triangle only: an asymmetric matrix would be silently
    symmetrised, hence the check.
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"the kernel matrix must be square (n, n), got shape {K.shape}")
    check_points(K, "the kernel matrix contains")
    if not np.allclose(K, K.T, rtol=1e-8, atol=1e-12 * max(1.0, float(np.abs(K).max()))):
        raise ValueError("the kernel matrix is not symmetric (K must equal K.T)")
    return K


def check_points(M: np.ndarray, what: str) -> int:
    """The number of points (rows) of ``M``: at least 2 for leave-one-out, all finite
    (``what`` names ``M`` with its verb for the message: "the features contain")."""
    n = M.shape[0]
    if n < 2:
        raise ValueError(f"leave-one-out needs at least 2 points, got n_samples = {n}")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{what} NaN or infinite values")
    return n
