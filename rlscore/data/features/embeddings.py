"""Uploaded embeddings as features: numeric columns, or one column holding a vector per row.

rlscore downloads no model. A user who has an embedding library can compute the vectors
outside rlscore and upload them next to the items, e.g. with sentence-transformers::

    df["embedding"] = [json.dumps(v.tolist()) for v in model.encode(df["text"].tolist())]
    df.to_csv("texts.csv", index=False)          # or df.to_parquet(...) with lists

and choose ``embedding`` as the embedding column. A CSV cell holds the vector as JSON list
text (``[0.1, -0.2, 0.3]``); a Parquet column may hold lists or arrays directly. Every row must
have a vector of the same length, made of finite numbers; any other cell is refused with a
message naming the column and the row.
"""

from __future__ import annotations

import json
import math
from numbers import Real
from typing import TYPE_CHECKING

import numpy as np

from rlscore.data.features import FeatureInputError
from rlscore.data.items.columns import rows_text

if TYPE_CHECKING:
    import pandas as pd


class _Where:
    """Where a cell is, in words — made only for a message (a column has many cells)."""

    def __init__(self, column: str, row: int):
        self.column, self.row = column, row

    def __format__(self, spec: str) -> str:
        return f"embedding column {self.column!r}, {rows_text([self.row])}"


def _vector(cell, column: str, row: int) -> list:
    where = _Where(column, row)
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        raise FeatureInputError(f"{where} is empty: every row needs its vector")
    if isinstance(cell, str):
        text = cell.strip()
        try:
            cell = json.loads(text)
        except json.JSONDecodeError:
            raise FeatureInputError(
                f"{where} is not a vector ({text[:40]!r}): write each vector as a JSON list of "
                "numbers such as [0.1, -0.2, 0.3]"
            ) from None
    if isinstance(cell, np.ndarray):
        cell = cell.tolist()
    if not isinstance(cell, list | tuple):
        raise FeatureInputError(
            f"{where} holds {cell!r}, not a list of numbers such as [0.1, -0.2, 0.3]"
        )
    if not cell:
        raise FeatureInputError(f"{where} is an empty list: every row needs its vector")
    # the types of a row at once (C speed): only a row holding something else is looked at
    # element by element, for the message
    if not set(map(type, cell)) <= {float, int}:
        bad = next((v for v in cell if isinstance(v, bool) or not isinstance(v, Real)), None)
        if bad is not None:
            raise FeatureInputError(f"{where} holds {bad!r}, which is not a number")
    return cell


def embedding_matrix(s: pd.Series, column: str) -> np.ndarray:
    """The vectors of one embedding column as an (n, d) float64 matrix.

    Raises
    ------
    FeatureInputError
        An empty cell, text that is not a JSON list, a non-number, NaN or infinity, or
        vectors of different lengths (ragged) — naming the column and the row.
    """
    vectors = [_vector(cell, column, row) for row, cell in enumerate(s.tolist())]
    lengths = np.array([len(v) for v in vectors])
    first = int(lengths[0])
    ragged = np.flatnonzero(lengths != first)
    if ragged.size:
        raise FeatureInputError(
            f"embedding column {column!r} has vectors of different lengths: {rows_text([0])} "
            f"has {first} numbers but {rows_text(ragged)} "
            f"{'has' if ragged.size == 1 else 'have'} {int(lengths[ragged[0]])}"
            f"{'' if ragged.size == 1 else ' (first of them)'}: every vector must have the "
            "same length"
        )
    try:
        X = np.asarray(vectors, dtype=np.float64)
    except OverflowError:  # an integer beyond any float: found row by row, for the message
        row = next(i for i, v in enumerate(vectors) if not _fits_float(v))
        raise FeatureInputError(
            f"embedding column {column!r}, {rows_text([row])} holds a number too large for a "
            "float: every entry must be a finite number"
        ) from None
    not_finite = np.flatnonzero(~np.isfinite(X).all(axis=1))
    if not_finite.size:
        raise FeatureInputError(
            f"embedding column {column!r}, {rows_text([int(not_finite[0])])} holds NaN or an "
            "infinite value: every entry must be a finite number"
        )
    return X


def _fits_float(vector: list) -> bool:
    try:
        np.asarray(vector, dtype=np.float64)
    except OverflowError:
        return False
    return True


def embedding_feature_names(column: str, d: int) -> list[str]:
    """``column[0]`` … ``column[d-1]``: the names of an embedding's feature columns."""
    return [f"{column}[{j}]" for j in range(d)]


__all__ = ["embedding_feature_names", "embedding_matrix"]
