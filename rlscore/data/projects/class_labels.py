"""The classes of a project and its true labels: read from a truth column, named by the user.

Class names come as a list or a dict renaming truth values (:func:`truth_and_classes`), or
typed as text on the Data page (:func:`parse_class_names`); the distinct values of a truth
column are paired with a list of names in the order of :func:`sorted_values`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.conventions.counted_words import counted
from rlscore.core.conventions.json_values import class_keys, plain_scalar
from rlscore.core.conventions.label_sets import (
    SEPARATOR,
    check_set_classes,
    check_set_items,
    is_label_set,
    parse_label_set,
    unpack_json_list,
)
from rlscore.data.items.columns import rows_text
from rlscore.data.projects.project import ProjectInputError

if TYPE_CHECKING:
    import pandas as pd


def truth_and_classes(
    df: pd.DataFrame,
    truth_column: str | None,
    class_names: list | dict | None,
    multi_label: bool = False,
) -> tuple[np.ndarray | None, list]:
    """The true labels (None without a truth column) and the classes of a project made from
    ``df`` (see :func:`~rlscore.data.projects.table_project.project_from_table`'s
    ``class_names``); a multi-label project's by :func:`label_set_truth_and_classes`, or from
    ``class_names`` without a truth column (required then); its classes must stand in a table
    cell's label set (:func:`~rlscore.core.conventions.label_sets.check_set_classes`)."""
    if multi_label:
        truth, classes = _label_set_truth(df, truth_column, class_names)
        try:
            check_set_classes(classes)
        except ValueError as exc:
            raise ProjectInputError(str(exc)) from None
        return truth, classes
    if truth_column is None:
        return None, [-1, 1] if class_names is None else _class_list(class_names)
    return _truth(df[truth_column], truth_column, class_names)


def _label_set_truth(
    df: pd.DataFrame, truth_column: str | None, class_names: list | dict | None
) -> tuple[np.ndarray | None, list]:
    if truth_column is not None:
        return label_set_truth_and_classes(df, truth_column, class_names)
    if not class_names:
        # the single-label default [-1, 1] is no list of classes to choose several of
        raise ProjectInputError(
            "a multi-label project needs its classes: name a truth column whose cells hold "
            "them, or give the class names"
        )
    return None, _class_list(class_names)


def label_set_truth_and_classes(
    df: pd.DataFrame, truth_column: str, class_names: list | dict | None
) -> tuple[np.ndarray, list]:
    """:func:`truth_and_classes` of a multi-label project: each cell of the truth column is a
    label set (:func:`~rlscore.core.conventions.label_sets.parse_label_set`: ``a|b`` text, a
    list, or a list as JSON text in a CSV cell; an empty cell is the empty set, a valid
    label). The classes are the distinct classes named in the cells, renamed by
    ``class_names`` as the values of a single-label column."""
    cells = df[truth_column].tolist()
    values = sorted_values(v for row in _by_cell(_cell_classes, cells, truth_column) for v in row)
    if len(values) < 2:
        raise ProjectInputError(
            f"truth column {truth_column!r} names fewer than 2 classes ({values!r}): a "
            "multi-label project needs at least 2; separate the classes of a cell by "
            f"{SEPARATOR!r}"
        )
    # refused naming the cell: e.g. a class named twice in it
    sets = _by_cell(lambda cell: parse_label_set(_plain_cell(cell), values), cells, truth_column)
    if class_names is None:
        truth = np.empty(len(sets), dtype=object)  # of tuples: np.asarray would make it 2-D
        truth[:] = sets
        return truth, values
    mapping = _class_name_of_value(values, class_names, truth_column)
    classes = _class_list([mapping[v] for v in values])
    truth = np.empty(len(sets), dtype=object)
    truth[:] = [tuple(plain_scalar(mapping[v]) for v in s) for s in sets]
    return truth, classes


def _by_cell(read, cells: list, column: str) -> list:
    """``read`` of each truth cell; a cell it refuses (``ValueError``) is refused naming the
    column, the row and the cell, so that the user can find and fix it."""
    out = []
    for row, cell in enumerate(cells):
        try:
            out.append(read(cell))
        except ValueError as exc:
            raise ProjectInputError(
                f"truth column {column!r}, {rows_text([row])}, cell {str(cell)!r}: {exc}"
            ) from None
    return out


def _cell_list(cell) -> list | None:
    """The items of a truth cell holding a list (or JSON text of one) as plain values, each
    checked to be a class (:func:`~rlscore.core.conventions.label_sets.check_set_items`);
    None for any other cell."""
    cell = unpack_json_list(cell)
    return [plain_scalar(v) for v in check_set_items(cell)] if is_label_set(cell) else None


def _plain_cell(cell):
    """A cell as :func:`parse_label_set` reads it: a list (or JSON text of one) as plain
    values."""
    items = _cell_list(cell)
    return cell if items is None else items


def _cell_classes(cell) -> list:
    """The classes a truth cell of a multi-label project names: a list's items (JSON text of
    a list read as the list), or the parts of ``a|b`` text (whole numbers as ints, as typed
    class names are read)."""
    items = _cell_list(cell)
    if items is not None:
        return items
    if cell is None or (isinstance(cell, float) and np.isnan(cell)):
        return []
    parts = [p.strip() for p in str(plain_scalar(cell)).split(SEPARATOR)]
    return [int(p) if re.fullmatch(r"[-+]?\d+", p) else p for p in parts if p]


def looks_multi_label(values) -> bool:
    """Whether the cells of a truth column look like label sets (a cell holding
    :data:`~rlscore.core.conventions.label_sets.SEPARATOR`, a list, or a list as JSON text,
    even one written wrong): the Data page's guess for its "Several labels per item" box."""
    return any(_looks_like_set(v) for v in values)


def _looks_like_set(cell) -> bool:
    """Whether one truth cell looks like a label set (:func:`looks_multi_label`)."""
    try:
        listed = is_label_set(unpack_json_list(cell))
    except ValueError:  # a list written wrong: the project refuses it, naming the cell
        return True
    return listed or (isinstance(cell, str) and SEPARATOR in cell)


def _class_list(class_names) -> list:
    """The class names given, as plain values with text stripped; refused unless at least 2
    distinct non-empty names."""
    if isinstance(class_names, dict):
        class_names = list(class_names.values())
    classes = [plain_scalar(c) for c in class_names]
    classes = [c.strip() if isinstance(c, str) else c for c in classes]
    if len(classes) < 2 or len(set(classes)) != len(classes) or "" in classes:
        raise ProjectInputError(
            f"class names must be at least 2 distinct non-empty names, got {class_names!r}"
        )
    return classes


def _truth(s: pd.Series, col: str, class_names) -> tuple[np.ndarray, list]:
    """The labels of truth column ``col`` (renamed by ``class_names`` if given) and the
    classes: refused with a missing label or a single class."""
    if s.isna().any():
        raise ProjectInputError(
            f"truth column {col!r} has missing labels in "
            f"{rows_text(np.flatnonzero(s.isna().to_numpy()))}: fill them in, or create the "
            "project without a truth column"
        )
    raw = [plain_scalar(v) for v in s.tolist()]
    values = sorted_values(raw)
    if len(values) < 2:
        raise ProjectInputError(
            f"truth column {col!r} has only one class ({values[0]!r}): a classifier needs at "
            "least 2 classes; choose another truth column or none"
        )
    if class_names is None:
        return np.asarray(raw, dtype=object), values
    mapping = _class_name_of_value(values, class_names, col)
    classes = _class_list([mapping[v] for v in values])
    return np.asarray([plain_scalar(mapping[v]) for v in raw], dtype=object), classes


def _class_name_of_value(values: list, class_names: list | dict, col: str) -> dict:
    """The class name of each distinct truth value: a dict's renaming, or the list's names
    in the order of ``values``; refused when a value has no name."""
    if isinstance(class_names, dict):
        # keys typed in a text box arrive as strings: matched to the values' text too
        mapping = class_keys(class_names, values)[0]
        unmapped = [v for v in values if v not in mapping]
        if unmapped:
            raise ProjectInputError(
                f"no class name given for truth values {unmapped} of column {col!r}"
            )
        return mapping
    names = list(class_names)
    if len(names) != len(values):
        raise ProjectInputError(
            f"{counted(len(names), 'class name')} for "
            f"{counted(len(values), 'distinct value')} {values} in truth "
            f"column {col!r}: give one name per value"
        )
    return dict(zip(values, names, strict=True))


def sorted_values(values) -> list:
    """Distinct values sorted, numbers before text (the order class names are given in);
    numpy scalars count as the Python values they hold."""
    plain = {v.item() if isinstance(v, np.generic) else v for v in values}
    return sorted(plain, key=lambda v: (isinstance(v, str), v))


def truth_values(df: pd.DataFrame, column: str, multi_label: bool = False) -> list:
    """The distinct values of a truth column, in the order
    :func:`~rlscore.data.projects.table_project.project_from_table` pairs them with a list of
    class names (missing values left out); ``multi_label``: the classes its label sets name."""
    if multi_label:
        return sorted_values(
            v for row in _by_cell(_cell_classes, df[column].tolist(), column) for v in row
        )
    return sorted_values(plain_scalar(v) for v in df[column].dropna().tolist())


def parse_class_names(text: str) -> list | None:
    """Class names typed as comma-separated text; whole numbers become ints; None if blank.

    >>> parse_class_names("-1, 1")
    [-1, 1]
    >>> parse_class_names(" cat,dog ")
    ['cat', 'dog']
    """
    parts = [p.strip() for p in (text or "").split(",")]
    if not any(parts):
        return None
    return [int(p) if re.fullmatch(r"[-+]?\d+", p) else p for p in parts]


__all__ = [
    "label_set_truth_and_classes",
    "looks_multi_label",
    "parse_class_names",
    "sorted_values",
    "truth_and_classes",
    "truth_values",
]
