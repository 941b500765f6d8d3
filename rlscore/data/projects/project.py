"""Labeling projects: a pool of points to label, read from a user's table or a bundled sample.

A :class:`Project` is what the store keeps and what a labeling session labels: the feature
matrix of the pool, one id per point, the classes to choose from and, when known, the true
labels (the oracle for auto-labeling and the validation error).

:func:`read_table` reads an uploaded CSV (encoding and delimiter are sniffed) or Parquet file;
:func:`project_from_table` turns chosen columns into a project. Both raise
:class:`ProjectInputError` with a message naming the problem and what to do about it.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.data.features import FeatureInputError, Progress
from rlscore.data.features.embeddings import embedding_feature_names, embedding_matrix
from rlscore.data.features.image_urls import image_urls_allowed
from rlscore.data.features.images import (
    DEFAULT_SIZE,
    check_images,
    image_pixel_features,
    pixel_feature_names,
)
from rlscore.data.features.text import TextFeatureSettings, build_text_features
from rlscore.data.items.columns import (
    ItemColumn,
    ItemInputError,
    check_item_columns,
    empty_text_rows,
    item_columns_from_table,
    item_texts,
    rows_text,
)

# pandas is imported by the functions that read a table: a page that only opens stored
# projects never pays its 0.4 s of import
if TYPE_CHECKING:
    import pandas as pd

#: encodings tried in order; latin-1 decodes any byte string, so it is the last resort
CSV_ENCODINGS = ("utf-8-sig", "latin-1")
CSV_DELIMITERS = (",", ";", "\t")
PARQUET_SUFFIXES = (".parquet", ".pq")
#: at most this many row numbers are listed in a message
_SHOWN = 5
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+(?:,\d+)?(?:[eE][-+]?\d+)?\s*$")


class ProjectInputError(ValueError):
    """A user-supplied table cannot become a project; the message says why and what to do."""


class ProjectInputWarning(UserWarning):
    """Something in the table was fixed automatically (e.g. constant features dropped)."""


class RowIds(Sequence):
    """The ids ``"0"``, ``"1"``, … ``str(n - 1)`` of a pool named by its row numbers, held as
    ``n`` alone: a pool of millions of rows (a cluster-backed project) would otherwise keep
    a string per row on the app server (about 60 bytes each).

    It reads as the list ``[str(i) for i in range(n)]`` (length, items, slices, ``index``,
    ``in``, equality with that list) and is stored as ``{"row_numbers": n}``
    (:func:`ids_to_json`, :func:`ids_from_json`).
    """

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = int(n)
        if self.n < 0:
            raise ValueError(f"a pool has no negative size, got {n}")

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [str(k) for k in range(self.n)[i]]
        return str(range(self.n)[i])  # IndexError / TypeError as a list's

    def __iter__(self):
        return (str(k) for k in range(self.n))

    def _row(self, value) -> int | None:
        text = value if isinstance(value, str) else None
        canonical = text is not None and text.isascii() and text.isdigit()
        if not canonical or (text.startswith("0") and text != "0"):
            return None  # only the canonical spelling of a row number is an id
        k = int(text)
        return k if k < self.n else None

    def __contains__(self, value) -> bool:
        return self._row(value) is not None

    def index(self, value, start: int = 0, stop: int | None = None) -> int:
        k = self._row(value)
        if k is None or k not in range(self.n)[start:stop]:
            raise ValueError(f"{value!r} is not in the ids")
        return k

    def count(self, value) -> int:
        return int(value in self)

    def __eq__(self, other) -> bool:
        if isinstance(other, RowIds):
            return self.n == other.n
        if isinstance(other, list | tuple):
            return len(other) == self.n and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"RowIds({self.n})"


def ids_to_json(ids: Sequence[str]) -> list[str] | dict:
    """What the store writes for a project's ids (JSON-serialisable): the list, or
    ``{"row_numbers": n}`` for :class:`RowIds`."""
    return {"row_numbers": ids.n} if isinstance(ids, RowIds) else list(ids)


def ids_from_json(value: list | dict) -> list[str] | RowIds:
    """The ids :func:`ids_to_json` wrote."""
    return RowIds(value["row_numbers"]) if isinstance(value, dict) else value


@dataclass
class Project:
    """A pool of points to label.

    Attributes
    ----------
    name : str
        Unique name in the store.
    X : ndarray (n, d)
        Features of the pool, float64 (standardised if ``meta["standardized"]``).
    feature_names : list of str
        One per column of ``X``.
    ids : list of str or RowIds
        One per point, unique; exported with the labels (:class:`RowIds`: the row numbers,
        without a string per row).
    truth : ndarray (n,) or None
        True labels when known (sample data, a truth column), values from ``classes``.
    classes : list
        The classes an annotator chooses from (ints or strings), at least 2.
    meta : dict
        ``description``, ``sigma``, ``lam``, ``image_shape``, ``standardized``, ``source``,
        ``warnings`` … (JSON-serialisable).
    uid : int or None
        Set by the store: changes when a project is deleted and created again under the
        same name, so a cached session can tell that its pool is gone.
    items : list of ItemColumn
        What the annotator sees of each point (:mod:`rlscore.data.items.columns`): text, image and
        context columns, kept as uploaded (never standardised). Empty for a project that is
        only its features.
    """

    name: str
    X: np.ndarray
    feature_names: list[str]
    ids: list[str]
    truth: np.ndarray | None
    classes: list
    meta: dict = field(default_factory=dict)
    uid: int | None = None
    items: list[ItemColumn] = field(default_factory=list)

    @property
    def n(self) -> int:
        """Number of points in the pool."""
        return int(self.X.shape[0])

    @property
    def class_names(self) -> dict[str, str]:
        """Readable class names the project gives (``meta["class_names"]``), keyed by ``str(c)``."""
        return dict((self.meta or {}).get("class_names") or {})

    def class_text(self, c) -> str:
        """The display text of class ``c``: its readable name if the project gives one."""
        return self.class_names.get(str(plain_scalar(c))) or str(plain_scalar(c))

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ProjectInputError("the project needs a name (a non-empty text)")
        self.name = self.name.strip()
        self.X = np.asarray(self.X, dtype=np.float64)
        n = self.X.shape[0]
        if self.X.ndim != 2:
            raise ProjectInputError(f"X must be 2-D (points × features), got shape {self.X.shape}")
        if len(self.feature_names) != self.X.shape[1]:
            raise ProjectInputError(
                f"{len(self.feature_names)} feature names for {self.X.shape[1]} feature columns"
            )
        self.feature_names = [str(f) for f in self.feature_names]
        if not isinstance(self.ids, RowIds):
            self.ids = [str(i) for i in self.ids]
        if len(self.ids) != n:
            raise ProjectInputError(f"{len(self.ids)} ids for {n} points")
        self.classes = [plain_scalar(c) for c in self.classes]
        if len(self.classes) < 2 or len(set(self.classes)) != len(self.classes):
            raise ProjectInputError(
                f"a project needs at least 2 distinct classes, got {self.classes!r}"
            )
        if self.truth is not None:
            truth = np.asarray([plain_scalar(t) for t in self.truth], dtype=object)
            if truth.shape != (n,):
                raise ProjectInputError(f"{truth.size} true labels for {n} points")
            unknown = set(truth.tolist()) - set(self.classes)
            if unknown:
                raise ProjectInputError(
                    f"true labels {sorted(map(str, unknown))} are not among the classes "
                    f"{self.classes!r}"
                )
            self.truth = truth
        try:
            self.items = check_item_columns(self.items, n)
        except ItemInputError as exc:
            raise ProjectInputError(str(exc)) from None

    @property
    def texts(self) -> list[str] | None:
        """The text item columns joined per point (what search reads), None without any."""
        return item_texts(self.items)


def _rows(mask: np.ndarray) -> str:
    """'rows 3, 7 and 9' style listing (1-based data rows, header excluded)."""
    return rows_text(np.flatnonzero(mask))


# -- reading files -------------------------------------------------------------------------


def _read_bytes(file_or_bytes) -> bytes:
    if isinstance(file_or_bytes, bytes | bytearray | memoryview):
        return bytes(file_or_bytes)
    if isinstance(file_or_bytes, str | PathLike):
        return Path(file_or_bytes).read_bytes()
    if hasattr(file_or_bytes, "getvalue"):  # Streamlit's UploadedFile, BytesIO
        return bytes(file_or_bytes.getvalue())
    if hasattr(file_or_bytes, "read"):
        data = file_or_bytes.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    raise TypeError(f"expected bytes, a path or a file object, got {type(file_or_bytes).__name__}")


def read_table(file_or_bytes: bytes | BinaryIO | str | PathLike, filename: str) -> pd.DataFrame:
    """Read an uploaded CSV or Parquet file into a DataFrame.

    CSV files may be UTF-8 (with or without a byte-order mark) or Latin-1, separated by
    commas, semicolons or tabs (sniffed from the first lines); with semicolons or tabs,
    decimal commas (``1,5``) are read as numbers. Files named ``*.parquet`` / ``*.pq`` are
    read as Parquet.

    Parameters
    ----------
    file_or_bytes
        The file's bytes, a binary file object (e.g. Streamlit's ``UploadedFile``) or a path.
    filename
        The original file name; its suffix chooses the format and it names the file in errors.

    Raises
    ------
    ProjectInputError
        Empty file, binary or UTF-16 file, unknown delimiter, ragged rows, duplicate column
        names, unreadable Parquet — each with what to do.
    """
    data = _read_bytes(file_or_bytes)
    name = filename or "the file"
    if not data.strip():
        raise ProjectInputError(f"'{name}' is empty: upload a file with a header row and data")
    if Path(name).suffix.lower() in PARQUET_SUFFIXES or data[:4] == b"PAR1":
        df = _read_parquet(data, name)
    else:
        df = _read_csv(data, name)
    _check_duplicate_columns([str(c) for c in df.columns], name)
    if df.shape[0] == 0:
        raise ProjectInputError(
            f"'{name}' has a header but no data rows: add at least 2 rows of data"
        )
    return df


def _read_parquet(data: bytes, name: str) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(io.BytesIO(data))
        _check_duplicate_columns(parquet.schema_arrow.names, name)
        table = parquet.read()
    except ProjectInputError:
        raise
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise ProjectInputError(
            f"'{name}' could not be read as Parquet ({exc}): upload a valid Parquet file "
            "or save the table as CSV"
        ) from None
    return table.to_pandas()


def _decode(data: bytes, name: str) -> tuple[str, str]:
    if data[:4] == b"PK\x03\x04":
        raise ProjectInputError(
            f"'{name}' is a ZIP archive (an Excel .xlsx workbook?), not CSV: export the sheet "
            "as CSV (UTF-8) or Parquet"
        )
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:4096]:
        raise ProjectInputError(
            f"'{name}' is not a UTF-8 or Latin-1 text file (it looks like UTF-16 or binary "
            "data): save it as CSV with UTF-8 encoding"
        )
    for encoding in CSV_ENCODINGS:
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte string")  # pragma: no cover


def _sniff_delimiter(text: str, name: str) -> str:
    lines = [ln for ln in text.splitlines()[:50] if ln.strip()]
    sample = "\n".join(lines)
    try:
        delimiter = csv.Sniffer().sniff(sample, delimiters="".join(CSV_DELIMITERS)).delimiter
    except csv.Error:
        delimiter = None
    if delimiter is None:
        # the candidate giving the same number (> 1) of fields on every line wins
        best, best_fields = None, 1
        for cand in CSV_DELIMITERS:
            try:
                counts = {len(row) for row in csv.reader(lines, delimiter=cand)}
            except csv.Error:  # a cell beyond the csv module's size limit: pandas reads it
                continue
            if len(counts) == 1 and (fields := counts.pop()) > best_fields:
                best, best_fields = cand, fields
        delimiter = best
    if delimiter is None:
        header = lines[0] if lines else ""
        if len(lines) > 1 and all(d not in header for d in CSV_DELIMITERS):
            # one column: legal, but only if no other separator is in sight
            other = next((c for c in "|: " if c in header), None)
            if other is None:
                return ","
            raise ProjectInputError(
                f"'{name}': could not find the column separator (the header {header[:60]!r} "
                f"seems to use {other!r}): separate the columns with commas, semicolons or tabs"
            )
        raise ProjectInputError(
            f"'{name}': the rows do not have the same number of columns for any of the "
            "separators comma, semicolon or tab: check that every row has one value per "
            "column and that text containing the separator is quoted"
        )
    return delimiter


def _utf8(cell: str) -> bool | None:
    """Whether a cell decoded as Latin-1 is UTF-8 text with non-ASCII characters (True),
    not UTF-8 at all (False), or plain ASCII (None: both encodings agree)."""
    if cell.isascii():
        return None
    try:
        cell.encode("latin-1").decode("utf-8")  # Latin-1 maps bytes 1:1: the cell's own bytes
    except UnicodeDecodeError:
        return False
    return True


def _check_one_encoding(df: pd.DataFrame, name: str) -> None:
    """Refuse a table whose text cells mix UTF-8 and another encoding (``df`` was read from
    the file decoded as Latin-1): read as one encoding, one of the two kinds of cells would
    show garbled characters, silently. The message names a column and the rows of each kind."""
    import pandas as pd

    utf8: tuple[str, int] | None = None
    other: dict[str, list[int]] = {}
    for column in df.columns:
        s = df[column]
        if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        for row, cell in enumerate(s.tolist()):
            kind = _utf8(cell) if isinstance(cell, str) else None
            if kind is True and utf8 is None:
                utf8 = (str(column), row)
            elif kind is False:
                other.setdefault(str(column), []).append(row)
    if utf8 is None or not other:
        return  # one encoding throughout (UTF-8 would have decoded): Latin-1 reads it right
    column, rows = next(iter(other.items()))
    more = len(other) - 1
    raise ProjectInputError(
        f"'{name}' mixes text encodings: column {column!r} is not UTF-8 in {rows_text(rows)}"
        + (f" (and {more} more column{'s' if more > 1 else ''})" if more else "")
        + f", while column {utf8[0]!r} is UTF-8 in {rows_text([utf8[1]])}: read as one "
        "encoding, the other's accented letters would be garbled; save the file as UTF-8 "
        "(a spreadsheet's 'CSV UTF-8') and upload it again"
    )


def _read_csv(data: bytes, name: str) -> pd.DataFrame:
    import pandas as pd

    text, encoding = _decode(data, name)
    delimiter = _sniff_delimiter(text, name)
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=delimiter), [])
    except csv.Error:  # a header cell beyond the csv module's size limit
        raise ProjectInputError(
            f"'{name}': the header row is too long to be column names: check that the first "
            "row holds the column names and that its quotes are closed"
        ) from None
    _check_duplicate_columns([h.strip() for h in header], name)
    try:
        df = pd.read_csv(io.StringIO(text), sep=delimiter, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise ProjectInputError(
            f"'{name}' is empty: upload a file with a header row and data"
        ) from None
    except pd.errors.ParserError as exc:
        raise ProjectInputError(
            f"'{name}' could not be parsed with the separator {delimiter!r} ({exc}): check that "
            "every row has one value per column"
        ) from None
    df.columns = [str(c).strip() for c in df.columns]
    if encoding == "latin-1":
        _check_one_encoding(df, name)
    if delimiter != ",":
        df = _convert_decimal_commas(df)
    return df


def _convert_decimal_commas(df: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    for col in df.columns:
        s = df[col]
        if s.dtype == object or pd.api.types.is_string_dtype(s):
            values = s.dropna().astype(str)
            if values.str.contains(",").any() and values.str.match(_DECIMAL_COMMA).all():
                df[col] = pd.to_numeric(s.str.replace(",", ".", regex=False))
    return df


def _check_duplicate_columns(columns: list[str], name: str) -> None:
    dup = [c for c, k in Counter(columns).items() if k > 1]
    if dup:
        listed = ", ".join(
            f"{c!r} (columns {', '.join(str(i + 1) for i, x in enumerate(columns) if x == c)})"
            for c in dup
        )
        raise ProjectInputError(
            f"'{name}' has duplicate column names: {listed}: give every column a distinct name"
        )


# -- building a project ----------------------------------------------------------------------


def project_from_table(
    df: pd.DataFrame,
    name: str,
    feature_columns: list[str] | None = None,
    id_column: str | None = None,
    truth_column: str | None = None,
    class_names: list | dict | None = None,
    standardize: bool | None = None,
    *,
    source: str | None = None,
    description: str = "",
    text_columns: list[str] | None = None,
    image_column: str | None = None,
    image_root: str | PathLike | None = None,
    embedding_column: str | None = None,
    context_columns: list[str] | None = None,
    text_settings: TextFeatureSettings | dict | None = None,
    image_size: tuple[int, int] = DEFAULT_SIZE,
    progress: Progress | None = None,
) -> Project:
    """Build a project from chosen columns of a table: its features and its items.

    The features (what the learner uses) are, in this order: the numeric ``feature_columns``, the
    vectors of ``embedding_column``, text features made from ``text_columns``
    (:func:`~rlscore.data.features.text.build_text_features`) and, for an image project without an
    embedding column, the images' downscaled grey pixels
    (:func:`~rlscore.data.features.images.image_pixel_features`). The items (what the annotator
    sees, :mod:`rlscore.data.items.columns`) are the text columns, the image column and the
    ``context_columns``, kept exactly as uploaded.

    Parameters
    ----------
    df
        The table (from :func:`read_table`).
    name
        Project name.
    feature_columns
        Numeric columns forming the features; default: every column except the id, truth and
        context columns when no text, image or embedding column is given, else none.
    id_column
        Column of unique point ids; default: the row number (0, 1, …).
    truth_column
        Column of true labels, if known (enables auto-labeling and the validation error).
    class_names
        Without a truth column: the classes to choose from (default ``[-1, 1]``). With one:
        a dict renaming truth values (``{0: "cat", 1: "dog"}``), or a list of names given to
        the sorted distinct truth values in order.
    standardize
        Centre each numeric feature column and scale it to unit variance (means and scales
        kept in meta; embeddings, text and pixel features are left as they are). Columns
        whose values would overflow are scaled safely (divided by their largest magnitude
        first). ``None`` (the default) decides from the data (:func:`needs_scaling`): the
        columns are standardised when their spreads differ more than :data:`SPREAD_RATIO`-fold
        or their values would overflow, with a :class:`ProjectInputWarning` saying so. The
        annotator is shown the values as uploaded either way
        (:func:`rlscore.data.items.columns.raw_feature_values`).
    source, description
        Recorded in ``meta``.
    text_columns
        Columns holding texts to show and to build text features from (joined per row).
    image_column
        Column of image paths relative to ``image_root``.
    image_root
        The folder image paths are resolved in (required with ``image_column``); paths
        leaving it are refused.
    embedding_column
        Column holding one vector per row (JSON list text, or lists in Parquet): the features
        of the items (for an image project, instead of the pixel fallback).
    context_columns
        Further columns shown to the annotator as they are (e.g. a title, a date).
    text_settings
        :class:`~rlscore.data.features.text.TextFeatureSettings` or its dict form.
    image_size
        (width, height) of the pixel fallback's images.
    progress
        ``progress(fraction, message)`` while features are built (texts, images).

    Constant numeric features are dropped with a :class:`ProjectInputWarning` (they carry no
    information and break standardisation); the dropped names are in ``meta["dropped"]``.
    Rows with empty texts are named in a warning (their text features are zero).

    Raises
    ------
    ProjectInputError
        Naming the problem: unknown or duplicate columns, non-numeric feature, NaN or
        infinite values (with row numbers), values whose scale overflows the kernel without
        standardisation, fewer than 2 rows, only constant features, missing or duplicate ids,
        missing truth, a single class, bad class names; bad text, image or embedding cells
        (naming the column and the row).
    """
    if df is None or df.shape[1] == 0:
        raise ProjectInputError("the table has no columns: upload a file with a header row")
    columns = [str(c) for c in df.columns]
    _check_duplicate_columns(columns, "the table")
    df = df.copy()
    df.columns = columns
    for role, col in (("id", id_column), ("truth", truth_column)):
        if col is not None and col not in columns:
            raise ProjectInputError(f"{role} column {col!r} is not in the table: {columns}")
    text_columns = [str(c) for c in text_columns or []]
    context_columns = [str(c) for c in context_columns or []]
    made_features = bool(text_columns) or image_column is not None or embedding_column is not None
    if feature_columns is None:
        skip = {id_column, truth_column, *context_columns}
        feature_columns = [] if made_features else [c for c in columns if c not in skip]
    feature_columns = [str(c) for c in feature_columns]
    if not feature_columns and not made_features:
        raise ProjectInputError(
            "no feature columns chosen: choose at least one numeric column, or a text, image "
            "or embedding column to build features from"
        )
    _check_duplicate_columns(feature_columns, "the feature columns")
    missing = [
        c
        for c in [*feature_columns, *([embedding_column] if embedding_column else [])]
        if c not in columns
    ]
    if missing:
        raise ProjectInputError(f"feature columns {missing} are not in the table: {columns}")
    for role, col in (("id", id_column), ("truth", truth_column)):
        if col is not None and col in feature_columns:
            raise ProjectInputError(
                f"the {role} column {col!r} is also chosen as a feature: remove it from the "
                "features"
            )
        if col is not None and (col in text_columns or col in (image_column, embedding_column)):
            raise ProjectInputError(
                f"the {role} column {col!r} is also chosen as an item or embedding column: "
                "choose another column"
            )
    n = df.shape[0]
    if n == 0:
        raise ProjectInputError("the table has no data rows: add at least 2 rows")
    if n == 1:
        raise ProjectInputError(
            "the table has only one data row: a pool needs at least 2 points to label"
        )
    if image_column is not None and image_root is None and not image_urls_allowed():
        raise ProjectInputError(
            f"image column {image_column!r} needs an image root: the folder its paths are "
            "relative to"
        )

    meta: dict = {"description": description, "source": source, "warnings": []}
    try:
        items = item_columns_from_table(df, text_columns, image_column, context_columns)
        blocks, names = _feature_blocks(
            df, feature_columns, standardize, meta, items, embedding_column, image_root,
            text_settings, image_size, progress,
        )  # fmt: skip
    except (ItemInputError, FeatureInputError) as exc:
        raise ProjectInputError(str(exc)) from None
    X = np.column_stack(blocks)

    ids = _ids(df[id_column], id_column) if id_column is not None else [str(i) for i in range(n)]
    if truth_column is None:
        classes = [-1, 1] if class_names is None else _class_list(class_names)
        truth = None
    else:
        truth, classes = _truth(df[truth_column], truth_column, class_names)
    meta["truth_column"], meta["id_column"] = truth_column, id_column
    return Project(
        name=name,
        X=X,
        feature_names=names,
        ids=ids,
        truth=truth,
        classes=classes,
        meta=meta,
        items=items,
    )


def _warn(meta: dict, msg: str) -> None:
    warnings.warn(msg, ProjectInputWarning, stacklevel=3)
    meta["warnings"].append(msg)


def _feature_blocks(
    df, feature_columns, standardize, meta, items, embedding_column, image_root,
    text_settings, image_size, progress,
) -> tuple[list[np.ndarray], list[str]]:  # fmt: skip
    """The feature matrix's column blocks and names (see :func:`project_from_table`)."""
    blocks: list[np.ndarray] = []
    names: list[str] = []
    # mean and scale of every feature column (0 and 1 where nothing was scaled), so the
    # values as uploaded can be recovered (rlscore.data.items.columns.raw_feature_values)
    mean: list[float] = []
    scale: list[float] = []
    if feature_columns:
        X, feature_columns = _numeric_block(df, feature_columns, standardize, meta)
        blocks.append(X)
        names += feature_columns
        mean += meta.pop("_mean")
        scale += meta.pop("_scale")

    def add(block: np.ndarray, block_names: list[str]) -> None:
        blocks.append(block)
        names.extend(block_names)
        mean.extend([0.0] * block.shape[1])
        scale.extend([1.0] * block.shape[1])

    if embedding_column is not None:
        E = embedding_matrix(df[embedding_column], embedding_column)
        add(E, embedding_feature_names(embedding_column, E.shape[1]))
        meta["embedding_column"] = embedding_column
    texts = item_texts(items)
    if texts is not None:
        for c in items:
            empty = empty_text_rows(c) if c.kind == "text" else []
            if len(empty):
                _warn(
                    meta,
                    f"text column {c.name!r} is empty in {rows_text(empty)}: "
                    + ("these rows get no text features" if len(items) == 1 else "shown empty"),
                )
        settings = (
            text_settings
            if isinstance(text_settings, TextFeatureSettings)
            else TextFeatureSettings.from_dict(text_settings)
        )
        try:
            tf = build_text_features(texts, settings, progress)
        except FeatureInputError as exc:  # say which columns the texts came from
            names = ", ".join(repr(c.name) for c in items if c.kind == "text")
            raise FeatureInputError(f"text column(s) {names}: {exc}") from None
        add(tf.X, tf.feature_names)
        meta["text_features"] = tf.summary()
    image = next((c for c in items if c.kind == "image"), None)
    if image is not None:
        meta["image_root"] = None if image_root is None else str(image_root)
        if embedding_column is None:
            size = (int(image_size[0]), int(image_size[1]))
            P = image_pixel_features(
                image.values, image_root, column=image.name, size=size, progress=progress
            )
            add(P, pixel_feature_names(size))
            meta["image_features"] = {"kind": "grey pixels", "size": list(size)}
            meta["image_shape"] = [size[1], size[0]]
        else:  # the images are checked even when the embedding gives the features
            check_images(image.values, image_root, column=image.name, progress=progress)
            meta["image_features"] = {"kind": "embedding", "column": embedding_column}
    if not blocks:  # pragma: no cover - project_from_table refuses this case earlier
        raise ProjectInputError("no features: choose a numeric, text, image or embedding column")
    standardize = bool(meta.pop("_standardized", False))
    meta["standardized"] = standardize
    if standardize:
        meta["feature_mean"], meta["feature_scale"] = mean, scale
    return blocks, names


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


def _numeric_block(
    df: pd.DataFrame, feature_columns: list[str], standardize: bool | None, meta: dict
) -> tuple[np.ndarray, list[str]]:
    """The numeric feature columns, constant ones dropped, standardised if asked or, with
    ``standardize=None``, if :func:`needs_scaling` (safely)."""
    X = np.column_stack([_numeric_feature(df[c], c) for c in feature_columns])
    with np.errstate(over="ignore", invalid="ignore"):
        constant = np.max(X, axis=0) == np.min(X, axis=0)
    if constant.all():
        raise ProjectInputError(
            f"every feature column is constant ({', '.join(feature_columns)}): the points "
            "cannot be told apart; choose columns whose values vary"
        )
    if constant.any():
        dropped = [c for c, k in zip(feature_columns, constant, strict=True) if k]
        _warn(
            meta,
            f"constant feature column(s) {', '.join(map(repr, dropped))} carry no information "
            "and were dropped",
        )
        meta["dropped"] = dropped
        X = X[:, ~constant]
        feature_columns = [c for c, k in zip(feature_columns, constant, strict=True) if not k]
    peak = np.max(np.abs(X), axis=0)
    huge = peak > OVERFLOW_LIMIT
    if standardize is None:
        standardize = needs_scaling(X)
        if standardize and not huge.any():
            spread = column_spreads(X)
            wide, narrow = int(np.argmax(spread)), int(np.argmin(spread))
            _warn(
                meta,
                f"the numeric features were standardised (zero mean, unit variance): their "
                f"spreads differ {spread[wide] / spread[narrow]:.3g}-fold "
                f"({feature_columns[wide]!r} against {feature_columns[narrow]!r}), so unscaled "
                f"{feature_columns[wide]!r} would decide every distance; the annotator still "
                "sees the values as uploaded",
            )
    meta["_standardized"] = bool(standardize)
    if huge.any() and not standardize:
        cols = [c for c, k in zip(feature_columns, huge, strict=True) if k]
        raise ProjectInputError(
            f"feature column(s) {', '.join(map(repr, cols))} hold values as large as "
            f"{peak[huge].max():.3g}: distances between points overflow; choose "
            "'Standardise', or rescale the column(s)"
        )
    if not standardize:
        meta["_mean"], meta["_scale"] = [0.0] * X.shape[1], [1.0] * X.shape[1]
        return X, feature_columns
    X, mean, scale = standardize_columns(X, feature_columns)
    if huge.any():
        cols = [c for c, k in zip(feature_columns, huge, strict=True) if k]
        _warn(
            meta,
            f"feature column(s) {', '.join(map(repr, cols))} hold values as large as "
            f"{peak[huge].max():.3g}: they were divided by their largest magnitude before "
            "standardising, so the result is exact",
        )
    meta["_mean"], meta["_scale"] = mean.tolist(), scale.tolist()
    return X, feature_columns


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


def _numeric_feature(s: pd.Series, col: str) -> np.ndarray:
    import pandas as pd

    if s.dtype == bool:
        s = s.astype(float)
    values = pd.to_numeric(s, errors="coerce")
    bad = values.isna().to_numpy() & s.notna().to_numpy()
    if bad.any():
        example = s[bad].iloc[0]
        if isinstance(example, str) and len(example) > 40:  # a 10 MB cell stays out of it
            example = example[:40] + "…"
        raise ProjectInputError(
            f"feature column {col!r} is not numeric ({example!r} in {_rows(bad)}): remove it "
            "from the feature columns, or encode it as numbers"
        )
    x = values.to_numpy(dtype=np.float64)
    if np.isnan(x).any():
        raise ProjectInputError(
            f"feature column {col!r} has missing values (NaN) in {_rows(np.isnan(x))} "
            "(data rows, header excluded): fill them in or delete those rows"
        )
    if np.isinf(x).any():
        raise ProjectInputError(
            f"feature column {col!r} has infinite values in {_rows(np.isinf(x))} "
            "(data rows, header excluded): replace them with finite numbers or delete those rows"
        )
    return x


def _ids(s: pd.Series, col: str) -> list[str]:
    if s.isna().any():
        raise ProjectInputError(
            f"id column {col!r} is empty in {_rows(s.isna().to_numpy())}: every point needs an id"
        )
    ids = [str(plain_scalar(v)) for v in s.tolist()]
    dup = [i for i, k in Counter(ids).items() if k > 1]
    if dup:
        raise ProjectInputError(
            f"id column {col!r} has duplicate ids ({', '.join(map(repr, dup[:_SHOWN]))}): ids "
            "must be unique; choose another id column or none (row numbers are used)"
        )
    return ids


def _class_list(class_names) -> list:
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
    if s.isna().any():
        raise ProjectInputError(
            f"truth column {col!r} has missing labels in {_rows(s.isna().to_numpy())}: fill "
            "them in, or create the project without a truth column"
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
    if isinstance(class_names, dict):
        mapping = {plain_scalar(k): v for k, v in class_names.items()}
        # keys typed in a text box arrive as strings: match them to the values' text too
        mapping.update(
            {k: mapping[str(k)] for k in values if k not in mapping and str(k) in mapping}
        )
        unmapped = [v for v in values if v not in mapping]
        if unmapped:
            raise ProjectInputError(
                f"no class name given for truth values {unmapped} of column {col!r}"
            )
    else:
        names = list(class_names)
        if len(names) != len(values):
            raise ProjectInputError(
                f"{len(names)} class names for {len(values)} distinct values {values} in truth "
                f"column {col!r}: give one name per value"
            )
        mapping = dict(zip(values, names, strict=True))
    classes = _class_list([mapping[v] for v in values])
    return np.asarray([plain_scalar(mapping[v]) for v in raw], dtype=object), classes


def sorted_values(values) -> list:
    """Distinct values sorted, numbers before text (the order class names are given in);
    numpy scalars count as the Python values they hold."""
    plain = {v.item() if isinstance(v, np.generic) else v for v in values}
    return sorted(plain, key=lambda v: (isinstance(v, str), v))


def truth_values(df: pd.DataFrame, column: str) -> list:
    """The distinct values of a truth column, in the order :func:`project_from_table` pairs
    them with a list of class names (missing values left out)."""
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
    "Project",
    "ProjectInputError",
    "ProjectInputWarning",
    "RowIds",
    "ids_from_json",
    "ids_to_json",
    "parse_class_names",
    "project_from_table",
    "read_table",
    "SPREAD_RATIO",
    "column_spreads",
    "needs_scaling",
    "sorted_values",
    "standardize_columns",
    "truth_values",
]
