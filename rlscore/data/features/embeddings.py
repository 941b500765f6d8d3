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


def _vector(cell, column: str, row: int) -> list:
    where = f"embedding column {column!r}, {rows_text([row])}"
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
    # type() first: a float or an int is a number, and the ABC check is slow on millions
    bad = next(
        (
            v
            for v in cell
            if type(v) is not float
            and type(v) is not int
            and (isinstance(v, bool) or not isinstance(v, Real))
        ),
        None,
    )
    if bad is not None:
        raise FeatureInputError(f"{where} holds {bad!r}, which is not a number")
    if not all(math.isfinite(float(v)) for v in cell):
        raise FeatureInputError(
            f"{where} holds NaN or an infinite value: every entry must be a finite number"
        )
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
    return np.asarray(vectors, dtype=np.float64)


def embedding_feature_names(column: str, d: int) -> list[str]:
    """``column[0]`` … ``column[d-1]``: the names of an embedding's feature columns."""
    return [f"{column}[{j}]" for j in range(d)]


__all__ = ["embedding_feature_names", "embedding_matrix"]
