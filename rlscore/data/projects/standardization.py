"""Standardising numeric features: when their scales call for it, and how, without overflow.

An RBF kernel sees squared distances, so a feature with a tenth of another's spread makes about
1 % of them, all but ignored, unless the columns are centred and scaled to unit variance first
(:func:`needs_scaling` decides, :func:`standardize_columns` does it);
:func:`~rlscore.data.projects.table_project.project_from_table` applies them to the numeric
feature columns of a table.

Beside features made from texts, images or an embedding, the standardised numeric columns are
weighted as one block (:func:`numeric_block_weight`), as multiple factor analysis weights its
blocks (Escofier & Pagès): the numeric block is scaled so that its strongest direction (the
variance of its first principal component, :func:`leading_variance`) equals that of the other
features together. No block then sets the main axis of the distances alone (unscaled, a row
counter from 0 to 120 beside text features of spread 0.25 decided every distance), while a
block with more independent directions still counts for more: one numeric column weighs as
much as the texts' strongest topic, ten uncorrelated ones as much as ten such topics, and ten
copies of one measurement as much as one. Giving the numeric block the other features' *total*
variance instead left the counter deciding most of the distances, since one column's distances
vary far more than those of twenty text dimensions (the figures: docs/python.md, "Numeric
columns beside texts, images or embeddings"). Within the numeric block every column counts
alike. A user who knows better scales the columns before uploading and chooses no
standardisation.
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
#: a feature block's strongest direction (:func:`leading_variance`) is estimated from at most
#: this many rows, drawn at random (seeded) from a larger pool
DIRECTION_SAMPLE = 20_000


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


def total_variance(X: np.ndarray) -> float:
    """The sum of the variances of the columns of ``X`` (computed without overflow, as
    :func:`column_spreads`, a few columns at a time: no copy of a large block): half the mean
    squared distance between two of its rows."""
    total = 0.0
    for j in range(0, X.shape[1], 8):
        spread = column_spreads(X[:, j : j + 8])
        with np.errstate(over="ignore"):
            total += float(np.sum(np.square(spread[np.isfinite(spread)])))
    return total


def leading_variance(blocks: list[np.ndarray]) -> float:
    """The variance of the first principal component of the ``blocks`` joined column-wise
    (the largest eigenvalue of their covariance, population form), from at most
    :data:`DIRECTION_SAMPLE` rows (a seeded sample beyond: the estimate of one eigenvalue needs
    no more), without overflow (the values divided by their largest magnitude first); 0 when
    nothing varies."""
    n = blocks[0].shape[0]
    rows = slice(None)
    if n > DIRECTION_SAMPLE:
        rows = np.sort(np.random.default_rng(0).choice(n, DIRECTION_SAMPLE, replace=False))
    X = np.column_stack([np.asarray(B, dtype=np.float64)[rows] for B in blocks])
    peak = float(np.max(np.abs(X))) if X.size else 0.0
    if not (np.isfinite(peak) and peak > 0):
        return 0.0
    U = X / peak
    U -= U.mean(axis=0)
    gram = U.T @ U if U.shape[1] <= U.shape[0] else U @ U.T  # the smaller side's
    top = float(np.linalg.eigvalsh(gram)[-1]) / U.shape[0]
    with np.errstate(over="ignore"):
        return max(top, 0.0) * peak * peak


def numeric_block_weight(numeric: np.ndarray, others: list[np.ndarray]) -> float:
    """The factor that gives the standardised ``numeric`` block the :func:`leading_variance`
    of the ``others`` feature blocks together (the rule of this module's docstring):
    ``sqrt(λ₁(others) / λ₁(numeric))``; 1 when either does not vary or the ratio is not
    finite (there is nothing to balance)."""
    own, target = leading_variance([numeric]), leading_variance(others)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        weight = np.sqrt(target / own) if own > 0 else np.nan
    return float(weight) if np.isfinite(weight) and weight > 0 else 1.0


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
    "DIRECTION_SAMPLE",
    "OVERFLOW_LIMIT",
    "SPREAD_RATIO",
    "column_spreads",
    "leading_variance",
    "needs_scaling",
    "numeric_block_weight",
    "standardize_columns",
    "total_variance",
]
