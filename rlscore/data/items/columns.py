"""Items: what the annotator sees of a point, kept apart from the learner's features.

A project's features ``X`` are what the learner uses (numbers, maybe standardised, maybe
made from the items); its *items* are the columns shown to a person deciding a label: a
text, an image (a path under the project's image root) or context values (any column the
uploader chose to show, kept exactly as uploaded, never standardised). Each column is an
:class:`ItemColumn` with a *kind* from :data:`ITEM_KINDS`; a project holds a list of them
(``Project.items``), empty for a purely numeric project.

:func:`item_columns_from_table` checks the chosen columns of a table and builds the list;
:func:`item_values` gives what the annotator sees of one point, and :func:`raw_feature_values`
the feature values as uploaded (standardisation undone) for projects without items.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.conventions.json_values import plain_scalar

# pandas is imported by the functions that read a table's columns: a page that only opens
# stored projects never pays its 0.4 s of import
if TYPE_CHECKING:
    import pandas as pd

#: what an item column holds: a text to read, an image to look at, or values shown as context
ITEM_KINDS = ("text", "image", "context")
#: a text cell longer than this (characters) is refused: no one reads 100 000 characters to
#: label an item, and a 10 MB cell usually means a broken CSV quote
MAX_TEXT_CHARS = 100_000
#: a text column whose non-empty cells are at least this share plain numbers is refused as a
#: text column (it is a numeric feature or an id)
MAX_NUMERIC_SHARE = 0.9
#: cells looked at to estimate that share
NUMERIC_PROBE = 2000
#: at most this many row numbers are listed in a message
_SHOWN = 5


class ItemInputError(ValueError):
    """A column cannot be shown as an item; the message names the column and the rows."""


#: the file's row (0-based) of each row of the table being checked, while :func:`file_rows`
#: says so; None: the table's rows are the file's
_FILE_ROWS: ContextVar[np.ndarray | None] = ContextVar("file_rows", default=None)


@contextmanager
def file_rows(rows: Sequence[int]) -> Iterator[None]:
    """Within, :func:`rows_text` names row ``i`` of the table as the file's row ``rows[i]``:
    a table whose rows a fix dropped (:func:`~rlscore.data.upload.table_fixes.drop_missing_rows`
    keeps the file's row numbers as its index) is checked with its rows renumbered from 0, and
    its messages still name the rows of the user's file."""
    token = _FILE_ROWS.set(np.asarray(rows, dtype=np.int64))
    try:
        yield
    finally:
        _FILE_ROWS.reset(token)


def rows_text(rows) -> str:
    """'row 3' / 'rows 3, 7 and 2 more' for 0-based row indexes (shown 1-based, header
    excluded, as in a spreadsheet's data rows; the file's rows within :func:`file_rows`)."""
    in_file = _FILE_ROWS.get()
    rows = [int(r if in_file is None else in_file[int(r)]) + 1 for r in rows]
    shown = ", ".join(str(r) for r in rows[:_SHOWN])
    more = f" and {len(rows) - _SHOWN} more" if len(rows) > _SHOWN else ""
    return f"row{'s' if len(rows) > 1 else ''} {shown}{more}"


def cell_rows_text(cell, rows) -> str:
    """A cell and the rows holding such cells, for a message: "'unknown' in row 17; also rows
    20, 21" (rows 0-based, shown as :func:`rows_text` does; ``cell`` is in the first of them,
    listed alone so that it is not read as the value of every row). Text is cut at 40
    characters: a 10 MB cell stays out of the message."""
    if isinstance(cell, str) and len(cell) > 40:
        cell = cell[:40] + "…"
    others = f"; also {rows_text(rows[1:])}" if len(rows) > 1 else ""
    return f"{cell!r} in {rows_text(rows[:1])}{others}"


@dataclass(frozen=True)
class ItemColumn:
    """One column of what the annotator sees.

    Attributes
    ----------
    name : str
        The column's name in the uploaded table.
    kind : str
        One of :data:`ITEM_KINDS`.
    values : list
        One value per point: text for ``text`` and ``image`` (the image's path relative to
        the project's image root), plain scalars or None for ``context``.
    """

    name: str
    kind: str
    values: list

    def __post_init__(self) -> None:
        if self.kind not in ITEM_KINDS:
            raise ItemInputError(
                f"item column {self.name!r} has kind {self.kind!r}: choose one of {ITEM_KINDS}"
            )

    def to_dict(self) -> dict:
        """JSON-serialisable form (what the store keeps)."""
        return {"name": self.name, "kind": self.kind, "values": list(self.values)}

    @classmethod
    def from_dict(cls, d: dict) -> ItemColumn:
        """Inverse of :meth:`to_dict`."""
        return cls(name=str(d["name"]), kind=str(d["kind"]), values=list(d["values"]))


def check_item_columns(items: list[ItemColumn], n: int) -> list[ItemColumn]:
    """``items`` if every column has ``n`` values and a distinct name, else
    :class:`ItemInputError`."""
    items = [c if isinstance(c, ItemColumn) else ItemColumn.from_dict(c) for c in items or []]
    names = [c.name for c in items]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise ItemInputError(f"item columns {dup} are chosen twice: choose each column once")
    for c in items:
        if len(c.values) != n:
            raise ItemInputError(
                f"item column {c.name!r} has {len(c.values)} values for {n} points"
            )
    return items


def _cell_text(v) -> str:
    """A cell as the text shown: missing cells are empty, whole floats lose their ``.0``."""
    if type(v) is str:  # the usual case, first
        return v
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    v = plain_scalar(v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def text_column(s: pd.Series, column: str) -> ItemColumn:
    """A text item column from a table column, checked.

    Missing cells become empty texts. Refused with :class:`ItemInputError` naming the column
    and rows: cells longer than :data:`MAX_TEXT_CHARS`, a column that is empty everywhere,
    a column whose cells are (at least :data:`MAX_NUMERIC_SHARE`) plain numbers.
    """
    import pandas as pd

    texts = [_cell_text(v) for v in s.tolist()]
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    too_long = np.flatnonzero(lengths > MAX_TEXT_CHARS)
    if too_long.size:
        raise ItemInputError(
            f"text column {column!r} has cells longer than {MAX_TEXT_CHARS:,} characters in "
            f"{rows_text(too_long)} (the longest: {int(lengths.max()):,}): shorten them, or "
            "check the file for an unclosed quote that swallowed many rows"
        )
    filled = [t for t in texts if t.strip()]
    if not filled:
        raise ItemInputError(
            f"text column {column!r} is empty in every row: choose a column holding the texts"
        )
    # the share of numbers, estimated on evenly spaced cells (a heuristic: exact is not needed)
    step = max(1, len(filled) // NUMERIC_PROBE)
    numeric = pd.to_numeric(pd.Series(filled[::step]), errors="coerce").notna().mean()
    if numeric >= MAX_NUMERIC_SHARE:
        rows = np.flatnonzero(pd.to_numeric(pd.Series(texts), errors="coerce").notna())
        raise ItemInputError(
            f"text column {column!r} holds numbers in {numeric:.0%} of its filled rows "
            f"({rows_text(rows)}): use it as a numeric feature or a context column, not as a text"
        )
    return ItemColumn(name=column, kind="text", values=texts)


def empty_text_rows(column: ItemColumn) -> np.ndarray:
    """0-based rows whose text is empty or blank (they get all-zero text features)."""
    return np.flatnonzero([not str(t).strip() for t in column.values])


def context_column(s: pd.Series, column: str) -> ItemColumn:
    """A context item column: the values exactly as uploaded (plain scalars, None if missing);
    text longer than :data:`MAX_TEXT_CHARS` is refused, naming the rows."""
    import pandas as pd

    values = [None if pd.isna(v) else plain_scalar(v) for v in s.tolist()]
    too_long = [i for i, v in enumerate(values) if isinstance(v, str) and len(v) > MAX_TEXT_CHARS]
    if too_long:
        raise ItemInputError(
            f"context column {column!r} has cells longer than {MAX_TEXT_CHARS:,} characters in "
            f"{rows_text(too_long)}: shorten them, or check the file for an unclosed quote"
        )
    return ItemColumn(name=column, kind="context", values=values)


def image_column(s: pd.Series, column: str) -> ItemColumn:
    """An image item column: each cell a path under the project's image root (checked and
    opened by :mod:`rlscore.data.features.images`); empty cells are refused."""
    paths = [_cell_text(v).strip() for v in s.tolist()]
    empty = [i for i, p in enumerate(paths) if not p]
    if empty:
        raise ItemInputError(
            f"image column {column!r} is empty in {rows_text(empty)}: every row needs the path "
            "of its image"
        )
    return ItemColumn(name=column, kind="image", values=paths)


def item_columns_from_table(
    df: pd.DataFrame,
    text_columns: list[str] | None = None,
    image_column_name: str | None = None,
    context_columns: list[str] | None = None,
) -> list[ItemColumn]:
    """The item columns of a table: texts, then the image, then context, in the order given.

    Raises
    ------
    ItemInputError
        A column not in the table, chosen twice, or whose values cannot be shown as its kind.
    """
    columns = [str(c) for c in df.columns]
    chosen = [
        *((c, "text") for c in text_columns or []),
        *([(image_column_name, "image")] if image_column_name is not None else []),
        *((c, "context") for c in context_columns or []),
    ]
    missing = [c for c, _ in chosen if c not in columns]
    if missing:
        raise ItemInputError(f"item columns {missing} are not in the table: {columns}")
    build = {"text": text_column, "image": image_column, "context": context_column}
    items = [build[kind](df[c], c) for c, kind in chosen]
    return check_item_columns(items, df.shape[0])


def item_values(items: list[ItemColumn], point: int) -> list[tuple[str, str, object]]:
    """What the annotator sees of ``point``: ``(column, kind, value)`` per item column.

    Values are returned as stored (text as text, never interpreted as Markdown or HTML by
    this function; the UI shows them as plain text).
    """
    return [(c.name, c.kind, c.values[point]) for c in items]


def raw_feature_values(
    X: np.ndarray, feature_names: list[str], meta: dict, point: int
) -> dict[str, float]:
    """The feature values of ``point`` as uploaded: a standardised project's scaling undone
    (``meta["feature_mean"]``, ``meta["feature_scale"]``), so the annotator reads
    ``body_mass_g = 3750`` rather than ``-1.001``."""
    x = np.asarray(X[point], dtype=np.float64)
    if meta.get("standardized") and meta.get("feature_mean") is not None:
        x = x * np.asarray(meta["feature_scale"]) + np.asarray(meta["feature_mean"])
    return dict(zip(feature_names, x.tolist(), strict=True))


def item_texts(items: list[ItemColumn]) -> list[str] | None:
    """The text columns of a project joined per point (newline between columns), or None if
    it has none: what search and the text features read."""
    texts = [c.values for c in items if c.kind == "text"]
    if not texts:
        return None
    return ["\n".join(parts) for parts in zip(*texts, strict=True)]


__all__ = [
    "ITEM_KINDS",
    "MAX_NUMERIC_SHARE",
    "MAX_TEXT_CHARS",
    "ItemColumn",
    "ItemInputError",
    "cell_rows_text",
    "check_item_columns",
    "context_column",
    "empty_text_rows",
    "file_rows",
    "image_column",
    "item_columns_from_table",
    "item_texts",
    "item_values",
    "raw_feature_values",
    "rows_text",
    "text_column",
]
