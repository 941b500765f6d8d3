"""Fixes for real tables, offered when a table cannot become a project as it is.

Published tables (penguins: a string species, NaN in two rows, string island and sex) fail
:func:`~rlscore.data.projects.table_project.project_from_table` with a clear message; these
functions are the fixes the Data page offers next to it, each returning a new table (the upload
is never changed in place) and a sentence saying what was done:

* :func:`missing_value_rows` — which rows of the chosen columns have missing values;
* :func:`drop_missing_rows` — drop them;
* :func:`impute_missing` — fill numeric columns with the median (or mean) and text columns
  with the most frequent value (scikit-learn's :class:`~sklearn.impute.SimpleImputer`);
* :func:`one_hot_encode` — replace a categorical column by one 0/1 column per category
  (scikit-learn's :class:`~sklearn.preprocessing.OneHotEncoder`), missing values as their
  own category.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.conventions.counted_words import counted
from rlscore.data.items.columns import rows_text

# pandas is imported by the fixes themselves (they are given a DataFrame): importing this
# module from a page that only lists projects costs nothing
if TYPE_CHECKING:
    import pandas as pd

#: numeric imputation strategies offered
IMPUTE_STRATEGIES = ("median", "mean")
#: a column with more categories than this is not one-hot encoded (it is an id or a text)
MAX_CATEGORIES = 50


class TableFixError(ValueError):
    """A fix cannot be applied; the message says why."""


def _check_columns(df: pd.DataFrame, columns: list[str]) -> list[str]:
    columns = [str(c) for c in columns]
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise TableFixError(f"columns {missing} are not in the table: {list(df.columns)}")
    return columns


def missing_value_rows(df: pd.DataFrame, columns: list[str]) -> dict[str, np.ndarray]:
    """0-based rows with a missing value, per column of ``columns`` that has any."""
    columns = _check_columns(df, columns)
    found = {c: np.flatnonzero(df[c].isna().to_numpy()) for c in columns}
    return {c: rows for c, rows in found.items() if rows.size}


def _refuse_empty_columns(df: pd.DataFrame, columns: list[str]) -> None:
    """Refuse a fix of ``columns`` when one is empty in every row: no row keeps a value, no
    value fills it in; the column is better left out."""
    empty = [c for c in columns if len(df) and df[c].isna().all()]
    if empty:
        which = f"column {empty[0]!r} is" if len(empty) == 1 else f"columns {empty} are"
        raise TableFixError(
            f"{which} empty in every row: leave {'it' if len(empty) == 1 else 'them'} out of "
            "the chosen columns"
        )


def drop_missing_rows(df: pd.DataFrame, columns: list[str]) -> tuple[pd.DataFrame, str]:
    """The table without the rows that miss a value in ``columns``; the rows kept keep their
    index (the file's row numbers, which the messages about them name:
    :func:`~rlscore.data.items.columns.file_rows`)."""
    columns = _check_columns(df, columns)
    _refuse_empty_columns(df, columns)
    missing = df[columns].isna()
    bad = missing.any(axis=1).to_numpy()
    if bad.all():
        short = [c for c in columns if missing[c].any()]
        raise TableFixError(
            f"every row misses a value in {short}: dropping them would leave nothing"
        )
    kept = df.loc[~bad]
    note = (
        f"dropped {int(bad.sum())} {rows_text(np.flatnonzero(bad))} with missing values"
        if bad.any()
        else "no row has missing values"
    )
    return kept, note


def impute_missing(
    df: pd.DataFrame, columns: list[str], strategy: str = "median"
) -> tuple[pd.DataFrame, str]:
    """The table with missing values of ``columns`` filled in.

    Numeric columns get ``strategy`` (``"median"`` or ``"mean"``) of their values, other
    columns their most frequent value.
    """
    import pandas as pd

    if strategy not in IMPUTE_STRATEGIES:
        raise TableFixError(f"imputation must be one of {IMPUTE_STRATEGIES}, got {strategy!r}")
    columns = _check_columns(df, columns)
    _refuse_empty_columns(df, columns)  # nothing to impute from
    out = df.copy()
    notes = []
    for c in columns:
        s = out[c]
        k = int(s.isna().sum())
        if k == 0:
            continue
        numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
        rule = strategy if numeric else "most_frequent"
        values = s.to_numpy(dtype=np.float64 if numeric else object).reshape(-1, 1)
        infinite = np.flatnonzero(np.isinf(values[:, 0])) if numeric else []
        if len(infinite):  # a median or mean of infinities is no value to fill in
            raise TableFixError(
                f"column {c!r} holds an infinite value in {rows_text(infinite)}: fix or drop "
                "those rows before imputing its missing values"
            )
        if not numeric:
            values = np.where(pd.isna(values), None, values)
        # imported here: the app's pages import this module, few tables need a fix
        from sklearn.impute import SimpleImputer

        imputer = SimpleImputer(
            strategy=rule, missing_values=np.nan if numeric else None, keep_empty_features=True
        )
        filled = imputer.fit_transform(values).ravel()
        out[c] = filled if numeric else pd.Series(filled, index=s.index, dtype=object)
        shown = imputer.statistics_[0]
        notes.append(
            f"{c!r}: {counted(k, 'missing value')} set to the {rule.replace('_', ' ')} {shown!r}"
        )
    return out, "; ".join(notes) if notes else "no missing values in these columns"


def one_hot_encode(df: pd.DataFrame, column: str) -> tuple[pd.DataFrame, str]:
    """The table with ``column`` replaced by one 0/1 column per category, named
    ``column=category`` (missing values form the category ``column=missing``)."""
    import pandas as pd

    (column,) = _check_columns(df, [column])
    s = df[column]
    values = np.asarray(["missing" if pd.isna(v) else str(v) for v in s], dtype=object)
    categories = sorted(set(values.tolist()))
    if len(categories) > MAX_CATEGORIES:
        raise TableFixError(
            f"column {column!r} has {len(categories)} categories (more than {MAX_CATEGORIES}): "
            "it looks like an id or a text, not a category"
        )
    if len(categories) < 2:
        raise TableFixError(f"column {column!r} has a single category: it carries no information")
    from sklearn.preprocessing import OneHotEncoder  # here: see SimpleImputer above

    encoder = OneHotEncoder(categories=[categories], sparse_output=False, dtype=np.float64)
    onehot = encoder.fit_transform(values.reshape(-1, 1))
    names = [f"{column}={c}" for c in categories]
    taken = [n for n in names if n in df.columns]
    if taken:
        raise TableFixError(f"the table already has columns {taken}: rename them first")
    encoded = pd.DataFrame(onehot, columns=names, index=df.index)
    at = list(df.columns).index(column)
    out = pd.concat([df.iloc[:, :at], encoded, df.iloc[:, at + 1 :]], axis=1)
    return out, f"{column!r} replaced by {len(categories)} 0/1 columns: {', '.join(names)}"


__all__ = [
    "IMPUTE_STRATEGIES",
    "MAX_CATEGORIES",
    "TableFixError",
    "drop_missing_rows",
    "impute_missing",
    "missing_value_rows",
    "one_hot_encode",
]
