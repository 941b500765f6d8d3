"""Standardising numeric features: when their scales call for it, and how, without overflow.

An RBF kernel sees squared distances, so a feature with a tenth of another's spread makes about
1 % of them, all but ignored, unless the columns are centred and scaled to unit variance first
(:func:`needs_scaling` decides, :func:`standardize_columns` does it);
:func:`~rlscore.data.projects.table_project.project_from_table` applies them to the numeric
feature columns of a table.
"""

from __future__ import annotations

import warnings

import numpy as np

from rlscore.data.projects.project import ProjectInputError

#: above this magnitude a feature's squared distances can overflow float64 (1e154² ≈ 1e308)
OVERFLOW_LIMIT = 1e150
#: numeric features whose standard deviations differ more than this factor are standardised
#: by default: a column with a tenth of another's spread makes about 1 % of the squared
#: distances the RBF kernel sees, so unscaled it would be all but ignored
SPREAD_RATIO = 10.0


def column_spreads(X: np.ndarray) -> np.ndarray:
    """The standard deviation of each column of ``X``, missing values (NaN) left out,
    computed without overflow (each column divided by its largest magnitude first); NaN for
    a column without values."""
    X = np.asarray(X, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: NaN is the answer
        peak = np.nanmax(np.abs(X), axis=0)
        safe = np.where(np.isfinite(peak) & (peak > 0), peak, 1.0)
        return np.nanstd(X / safe, axis=0) * safe


def needs_scaling(X: np.ndarray) -> bool:
    """Whether numeric features should be standardised before an RBF kernel sees them.

    True when the spreads of the varying columns (:func:`column_spreads`) differ more than
    :data:`SPREAD_RATIO`-fold (penguins: body mass in grams beside bill depth in millimetres),
    or a value exceeds :data:`OVERFLOW_LIMIT`; the default of :func:`project_from_table` and
    of the Data page. With a data-adaptive σ (the median distance) the overall scale does not
    matter, only the columns' scales relative to each other.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.size == 0:
        return False
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if np.nanmax(np.abs(X)) > OVERFLOW_LIMIT:
            return True
    spread = column_spreads(X)
    spread = spread[np.isfinite(spread) & (spread > 0)]
    return spread.size > 1 and float(spread.max()) > SPREAD_RATIO * float(spread.min())


def standardize_columns(
    X: np.ndarray, names: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre and scale each column of ``X`` to unit variance without overflow.

    Each column is first divided by its largest magnitude (exact for powers of two, and a
    relative error of one rounding otherwise), so the squares in the variance cannot overflow
    even for values near ±1e308; mean and scale are reported in the original units.

    Returns
    -------
    Z, mean, scale
        ``Z = (X − mean) / scale``.

    Raises
    ------
    ProjectInputError
        A column whose standardised values would not vary or would not be finite (named):
        standardisation never silently zeroes a column.
    """
    peak = np.max(np.abs(X), axis=0)
    peak[peak == 0] = 1.0
    unit = X / peak
    mu, sd = unit.mean(axis=0), unit.std(axis=0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        Z = (unit - mu) / sd
        mean, scale = mu * peak, sd * peak
    bad = ~(np.isfinite(Z).all(axis=0) & (sd > 0) & np.isfinite(scale))
    if bad.any():
        cols = [c for c, k in zip(names, bad, strict=True) if k]
        raise ProjectInputError(
            f"feature column(s) {', '.join(map(repr, cols))} cannot be standardised (their "
            "values do not vary measurably or their spread overflows): remove or rescale them"
        )
    return Z, mean, scale


__all__ = [
    "OVERFLOW_LIMIT",
    "SPREAD_RATIO",
    "column_spreads",
    "needs_scaling",
    "standardize_columns",
]
