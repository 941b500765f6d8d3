"""The numeric feature columns of a table as a matrix: every value checked, constant columns
dropped, standardised when asked or when the columns' scales call for it."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from rlscore.data.items.columns import cell_rows_text, rows_text
from rlscore.data.projects.project import ProjectInputError, warn_and_record
from rlscore.data.projects.standardization import (
    OVERFLOW_LIMIT,
    column_spreads,
    needs_scaling,
    standardize_columns,
)

if TYPE_CHECKING:
    import pandas as pd


class NumericFeatures(NamedTuple):
    """The numeric feature block of a project and how it was scaled."""

    X: np.ndarray
    #: the columns kept (constant ones dropped), one per column of ``X``
    names: list[str]
    #: per column: the mean subtracted and the scale divided by (0 and 1 when not scaled)
    mean: list[float]
    scale: list[float]
    standardized: bool


def numeric_features(
    df: pd.DataFrame,
    feature_columns: list[str],
    standardize: bool | None,
    meta: dict,
    *,
    beside_other_features: bool = False,
) -> NumericFeatures:
    """The numeric feature columns, constant ones dropped, standardised if asked or, with
    ``standardize=None``, if :func:`~rlscore.data.projects.standardization.needs_scaling`
    (safely) or if ``beside_other_features`` (text, image or embedding features are joined to
    them: the caller weighs the blocks and says so); what was fixed is warned about and kept
    in ``meta``."""
    X = np.column_stack([_numeric_column(df[c], c) for c in feature_columns])
    X, names = _drop_constant_columns(X, feature_columns, meta)
    peak = np.max(np.abs(X), axis=0)
    huge = peak > OVERFLOW_LIMIT
    if standardize is None:
        standardize = beside_other_features or _standardize_by_default(X, names, huge, meta)
    if huge.any() and not standardize:
        raise ProjectInputError(
            f"feature column(s) {_listed(names, huge)} hold values as large as "
            f"{peak[huge].max():.3g}: distances between points overflow; choose "
            "'Standardise', or rescale the column(s)"
        )
    if not standardize:
        return NumericFeatures(X, names, [0.0] * X.shape[1], [1.0] * X.shape[1], False)
    X, mean, scale = standardize_columns(X, names)
    if huge.any():
        warn_and_record(
            meta,
            f"feature column(s) {_listed(names, huge)} hold values as large as "
            f"{peak[huge].max():.3g}: they were divided by their largest magnitude before "
            "standardising, so the result is exact",
        )
    return NumericFeatures(X, names, mean.tolist(), scale.tolist(), True)


def _listed(names: list[str], chosen: np.ndarray) -> str:
    """The quoted names of the chosen columns, comma-separated."""
    return ", ".join(repr(c) for c, k in zip(names, chosen, strict=True) if k)


def _drop_constant_columns(
    X: np.ndarray, names: list[str], meta: dict
) -> tuple[np.ndarray, list[str]]:
    """``X`` without its constant columns (they carry no information and break
    standardisation), named in a warning and in ``meta["dropped"]``; all constant: refused."""
    with np.errstate(over="ignore", invalid="ignore"):
        constant = np.max(X, axis=0) == np.min(X, axis=0)
    if constant.all():
        raise ProjectInputError(
            f"every feature column is constant ({', '.join(names)}): the points "
            "cannot be told apart; choose columns whose values vary"
        )
    if not constant.any():
        return X, names
    warn_and_record(
        meta,
        f"constant feature column(s) {_listed(names, constant)} carry no information "
        "and were dropped",
    )
    meta["dropped"] = [c for c, k in zip(names, constant, strict=True) if k]
    return X[:, ~constant], [c for c, k in zip(names, constant, strict=True) if not k]


def _standardize_by_default(X: np.ndarray, names: list[str], huge: np.ndarray, meta: dict) -> bool:
    """Whether to standardise when the caller left it to the data
    (:func:`~rlscore.data.projects.standardization.needs_scaling`), with a warning naming the
    widest and the narrowest column when their spreads are the reason."""
    standardize = needs_scaling(X)
    if standardize and not huge.any():
        spread = column_spreads(X)
        wide, narrow = int(np.argmax(spread)), int(np.argmin(spread))
        warn_and_record(
            meta,
            f"the numeric features were standardised (zero mean, unit variance): their "
            f"spreads differ {spread[wide] / spread[narrow]:.3g}-fold "
            f"({names[wide]!r} against {names[narrow]!r}), so unscaled "
            f"{names[wide]!r} would decide every distance; the annotator still "
            "sees the values as uploaded",
        )
    return standardize


def non_numeric_cells(s: pd.Series) -> str | None:
    """Where column ``s`` holds a filled cell that is not a number: the first such cell and
    the rows of all (:func:`~rlscore.data.items.columns.cell_rows_text`: "'unknown' in row
    17"); None when every filled cell is a number (missing cells are another check's)."""
    import pandas as pd

    if s.dtype == bool or pd.api.types.is_numeric_dtype(s):
        return None
    bad = pd.to_numeric(s, errors="coerce").isna().to_numpy() & s.notna().to_numpy()
    if not bad.any():
        return None
    return cell_rows_text(s[bad].iloc[0], np.flatnonzero(bad))


def _numeric_column(s: pd.Series, col: str) -> np.ndarray:
    """The values of feature column ``col`` as floats, refused (naming the rows) when one is
    not a number, missing or infinite."""
    import pandas as pd

    where = non_numeric_cells(s)
    if where is not None:
        raise ProjectInputError(
            f"feature column {col!r} is not numeric ({where}): remove it from the feature "
            "columns, or encode it as numbers"
        )
    if s.dtype == bool:
        s = s.astype(float)
    x = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64)
    if np.isnan(x).any():
        raise ProjectInputError(
            f"feature column {col!r} has missing values (NaN) in "
            f"{rows_text(np.flatnonzero(np.isnan(x)))} (data rows, header excluded): fill them "
            "in or delete those rows"
        )
    if np.isinf(x).any():
        raise ProjectInputError(
            f"feature column {col!r} has infinite values in "
            f"{rows_text(np.flatnonzero(np.isinf(x)))} (data rows, header excluded): replace "
            "them with finite numbers or delete those rows"
        )
    return x


__all__ = ["NumericFeatures", "non_numeric_cells", "numeric_features"]
