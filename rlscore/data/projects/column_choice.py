"""Which columns of a table a project takes, in which role, checked against the table.

A column is a numeric feature, the ids, the truth, a text, the image paths, an embedding or
context shown as it is; :func:`choose_columns` refuses a choice the table cannot honour (a
column it lacks, a column in two roles, too few rows) before any feature is built.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from os import PathLike
from typing import TYPE_CHECKING

from rlscore.data.features.image_urls import image_urls_allowed
from rlscore.data.projects.project import ProjectInputError

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class ColumnChoice:
    """The columns of a table a project takes, by role (names as text)."""

    feature_columns: list[str]
    id_column: str | None
    truth_column: str | None
    text_columns: list[str]
    image_column: str | None
    embedding_column: str | None
    context_columns: list[str]


def check_duplicate_columns(columns: list[str], name: str) -> None:
    """Refuse column names given twice; ``name`` names the table (or list) in the message."""
    dup = [c for c, k in Counter(columns).items() if k > 1]
    if dup:
        listed = ", ".join(
            f"{c!r} (columns {', '.join(str(i + 1) for i, x in enumerate(columns) if x == c)})"
            for c in dup
        )
        raise ProjectInputError(
            f"'{name}' has duplicate column names: {listed}: give every column a distinct name"
        )


def with_text_column_names(df: pd.DataFrame | None) -> pd.DataFrame:
    """A copy of ``df`` whose column names are text (a header of numbers reads as ints);
    refused without columns or with a name given twice."""
    if df is None or df.shape[1] == 0:
        raise ProjectInputError("the table has no columns: upload a file with a header row")
    columns = [str(c) for c in df.columns]
    check_duplicate_columns(columns, "the table")
    df = df.copy()
    df.columns = columns
    return df


def choose_columns(
    df: pd.DataFrame,
    feature_columns: list[str] | None,
    id_column: str | None,
    truth_column: str | None,
    text_columns: list[str] | None,
    image_column: str | None,
    image_root: str | PathLike | None,
    embedding_column: str | None,
    context_columns: list[str] | None,
) -> ColumnChoice:
    """The columns of ``df`` (named as text, :func:`with_text_column_names`) in their roles,
    as :func:`~rlscore.data.projects.table_project.project_from_table` takes them: the
    feature columns defaulted, every column checked to be in the table and in one role only,
    the table checked to have at least 2 rows and image paths a root to be resolved in."""
    columns = list(df.columns)
    for role, col in (("id", id_column), ("truth", truth_column)):
        if col is not None and col not in columns:
            raise ProjectInputError(f"{role} column {col!r} is not in the table: {columns}")
    choice = ColumnChoice(
        feature_columns=[],  # filled in below: their default depends on the other roles
        id_column=id_column,
        truth_column=truth_column,
        text_columns=[str(c) for c in text_columns or []],
        image_column=image_column,
        embedding_column=embedding_column,
        context_columns=[str(c) for c in context_columns or []],
    )
    choice = replace(choice, feature_columns=_feature_columns(choice, feature_columns, columns))
    _check_one_role_each(choice)
    _check_rows(df.shape[0])
    if image_column is not None and image_root is None and not image_urls_allowed():
        raise ProjectInputError(
            f"image column {image_column!r} needs an image root: the folder its paths are "
            "relative to"
        )
    return choice


def _makes_features(choice: ColumnChoice) -> bool:
    """Whether features are made from items (texts, images) or an embedding column."""
    return (
        bool(choice.text_columns)
        or choice.image_column is not None
        or choice.embedding_column is not None
    )


def _feature_columns(
    choice: ColumnChoice, feature_columns: list[str] | None, columns: list[str]
) -> list[str]:
    """The numeric feature columns chosen or, by default, every column in no other role when
    no features are made from items, else none; refused when nothing would give features or
    a chosen column is not in the table."""
    made_features = _makes_features(choice)
    if feature_columns is None:
        skip = {choice.id_column, choice.truth_column, *choice.context_columns}
        feature_columns = [] if made_features else [c for c in columns if c not in skip]
    feature_columns = [str(c) for c in feature_columns]
    if not feature_columns and not made_features:
        raise ProjectInputError(
            "no feature columns chosen: choose at least one numeric column, or a text, image "
            "or embedding column to build features from"
        )
    check_duplicate_columns(feature_columns, "the feature columns")
    embedding = [choice.embedding_column] if choice.embedding_column else []
    missing = [c for c in [*feature_columns, *embedding] if c not in columns]
    if missing:
        raise ProjectInputError(f"feature columns {missing} are not in the table: {columns}")
    return feature_columns


def _check_one_role_each(choice: ColumnChoice) -> None:
    """Refuse an id or truth column also chosen as a feature, an item or the embedding."""
    for role, col in (("id", choice.id_column), ("truth", choice.truth_column)):
        if col is not None and col in choice.feature_columns:
            raise ProjectInputError(
                f"the {role} column {col!r} is also chosen as a feature: remove it from the "
                "features"
            )
        if col is not None and (
            col in choice.text_columns or col in (choice.image_column, choice.embedding_column)
        ):
            raise ProjectInputError(
                f"the {role} column {col!r} is also chosen as an item or embedding column: "
                "choose another column"
            )


def _check_rows(n: int) -> None:
    """Refuse a table of fewer than 2 data rows: a pool needs points to choose between."""
    if n == 0:
        raise ProjectInputError("the table has no data rows: add at least 2 rows")
    if n == 1:
        raise ProjectInputError(
            "the table has only one data row: a pool needs at least 2 points to label"
        )


__all__ = ["ColumnChoice", "check_duplicate_columns", "choose_columns", "with_text_column_names"]
