"""Reading a user's table: an uploaded CSV (encoding and delimiter sniffed) or Parquet file.

:func:`read_table` is the upload's first step; the table it returns becomes a project with
:func:`~rlscore.data.projects.table_project.project_from_table`. It raises
:class:`~rlscore.data.projects.project.ProjectInputError` with a message naming the problem
and what to do about it.

**Nested cells** — a Parquet list, array, struct or map column — become values every later
step can compare and hash (a numpy array in a cell cannot be: the Data page crashed on one): a
vector of numbers becomes a tuple of numbers (cheap: a 384-number embedding per row stays
numbers, not text), anything else JSON text, the form a CSV cell holds a list in
(``[0.1, -0.2, 0.3]``). A column of numeric vectors of one length is then proposed as the
embedding column (:func:`~rlscore.data.upload.proposal.guess_embedding_column`); any other
nested column can be shown as text or context, and is refused, named, as an embedding or a
feature.
"""

from __future__ import annotations

import csv
import io
import json
import re
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from rlscore.data.items.columns import cell_rows_text, rows_text
from rlscore.data.projects.column_choice import check_duplicate_columns
from rlscore.data.projects.project import ProjectInputError

# pandas is imported by the functions that read a table: a page that only opens stored
# projects never pays its 0.4 s of import
if TYPE_CHECKING:
    import pandas as pd

#: encodings tried in order. Windows-1252 (Excel's "CSV" on Windows) is Latin-1 but for
#: 0x80–0x9F, where it has “ ” € … and Latin-1 only invisible C1 control characters, so it
#: comes first; Latin-1 decodes any byte string (the five bytes cp1252 leaves undefined), so
#: it is the last resort
CSV_ENCODINGS = ("utf-8-sig", "cp1252", "latin-1")
CSV_DELIMITERS = (",", ";", "\t")
PARQUET_SUFFIXES = (".parquet", ".pq")
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+(?:,\d+)?(?:[eE][-+]?\d+)?\s*$")
#: the C1 control characters (U+0080–U+009F): invisible (drawn as boxes on a button), they mean
#: text decoded in the wrong encoding, never what the file's author wrote
_C1_CONTROLS = re.compile("[\x80-\x9f]")


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

    CSV files may be UTF-8 (with or without a byte-order mark), Windows-1252 or Latin-1
    (the first of :data:`CSV_ENCODINGS` that decodes the whole file), separated by
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
        Empty file, binary or UTF-16 file, unknown delimiter, ragged rows, an unclosed
        quote, duplicate column names, a CSV mixing encodings or holding C1 control
        characters, unreadable Parquet — each with what to do.
    """
    data = _read_bytes(file_or_bytes)
    name = filename or "the file"
    if not data.strip():
        raise ProjectInputError(f"'{name}' is empty: upload a file with a header row and data")
    if Path(name).suffix.lower() in PARQUET_SUFFIXES or data[:4] == b"PAR1":
        df = _read_parquet(data, name)
    else:
        df = _read_csv(data, name)
    check_duplicate_columns([str(c) for c in df.columns], name)
    if df.shape[0] == 0:
        raise ProjectInputError(
            f"'{name}' has a header but no data rows: add at least 2 rows of data"
        )
    return df


def _read_parquet(data: bytes, name: str) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(io.BytesIO(data))
        check_duplicate_columns(parquet.schema_arrow.names, name)
        table = parquet.read()
    except ProjectInputError:
        raise
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise ProjectInputError(
            f"'{name}' could not be read as Parquet ({exc}): upload a valid Parquet file "
            "or save the table as CSV"
        ) from None
    return hashable_nested(table.to_pandas())


def _plain(value):
    """A nested cell's value as plain Python (lists, dicts with text keys, numbers, text)."""
    import numpy as np

    if isinstance(value, np.ndarray) and value.dtype != object:
        return value.tolist()  # numbers (a vector): numpy's own conversion, fast
    if isinstance(value, np.ndarray | list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _nested(value) -> bool:
    import numpy as np

    return isinstance(value, np.ndarray | list | tuple | dict)


def _hashable_cell(value):
    """A nested cell as a tuple of numbers (a numeric vector) or JSON text; missing stays
    None; any other cell (a number or text in a column that also holds lists) as JSON text
    too, so the column holds one kind of value."""
    import numpy as np
    import pandas as pd

    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return tuple(value.tolist())
    if not _nested(value) and (value is None or bool(pd.isna(value))):
        return None
    # NaN inside a list stays NaN (the embedding refuses it, naming the row); anything JSON
    # cannot hold (bytes, dates) as its text
    return json.dumps(_plain(value), default=str, ensure_ascii=False)


def hashable_nested(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every column holding nested cells (lists, arrays, dicts) made hashable:
    numeric vectors as tuples, other cells as JSON text (:func:`_hashable_cell`); other
    columns unchanged."""
    import pandas as pd

    for column in df.columns:
        s = df[column]
        if s.dtype == object and any(_nested(v) for v in s.tolist()):
            # a Series of tuples stays one column of tuples
            df[column] = pd.Series([_hashable_cell(v) for v in s.tolist()], index=s.index,
                                   dtype=object)  # fmt: skip
    return df


def _decode(data: bytes, name: str) -> tuple[str, str]:
    if data[:4] == b"PK\x03\x04":
        raise ProjectInputError(
            f"'{name}' is a ZIP archive (an Excel .xlsx workbook?), not CSV: export the sheet "
            "as CSV (UTF-8) or Parquet"
        )
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:4096]:
        raise ProjectInputError(
            f"'{name}' is not a UTF-8, Windows-1252 or Latin-1 text file (it looks like "
            "UTF-16 or binary data): save it as CSV with UTF-8 encoding"
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
            f"separators comma, semicolon or tab ({_first_ragged_line(text, header)}): check "
            "that every row has one value per column and that text containing the separator "
            "is quoted"
        )
    return delimiter


#: the separators by name, for messages
_SEPARATOR_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


def _first_ragged_line(text: str, header: str) -> str:
    """Where a table without a consistent separator first goes wrong, read with the separator
    its header uses most (commas on a tie): "with commas the header has 3 columns but line 4
    has 5" (line numbers of the file, blank lines counted)."""
    sep = max(CSV_DELIMITERS, key=header.count)
    rows = csv.reader(io.StringIO(text), delimiter=sep)
    width = None
    try:
        for row in rows:
            if not row:
                continue
            if width is None:
                width = len(row)
            elif len(row) != width:
                return (
                    f"with {_SEPARATOR_NAMES[sep]} the header has {width} columns but line "
                    f"{rows.line_num} has {len(row)}"
                )
    except csv.Error as exc:  # a cell beyond the csv module's size limit
        return f"with {_SEPARATOR_NAMES[sep]} line {rows.line_num} cannot be read: {exc}"
    return f"with {_SEPARATOR_NAMES[sep]} every row has {width} columns"


def _utf8(cell: str, encoding: str) -> bool | None:
    """Whether a cell decoded as ``encoding`` (a one-byte encoding) is UTF-8 text with
    non-ASCII characters (True), not UTF-8 at all (False), or plain ASCII (None: both
    encodings agree)."""
    if cell.isascii():
        return None
    try:
        cell.encode(encoding).decode("utf-8")  # one byte per character: the cell's own bytes
    except UnicodeDecodeError:
        return False
    return True


def _check_one_encoding(df: pd.DataFrame, name: str, encoding: str) -> None:
    """Refuse a table whose text cells mix UTF-8 and another encoding (``df`` was read from
    the file decoded as ``encoding``, a one-byte encoding): read as one encoding, one of the
    two kinds of cells would show garbled characters, silently. The message names a column
    and the rows of each kind."""
    import pandas as pd

    utf8: tuple[str, int] | None = None
    other: dict[str, list[int]] = {}
    for column in df.columns:
        s = df[column]
        if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        for row, cell in enumerate(s.tolist()):
            kind = _utf8(cell, encoding) if isinstance(cell, str) else None
            if kind is True and utf8 is None:
                utf8 = (str(column), row)
            elif kind is False:
                other.setdefault(str(column), []).append(row)
    if utf8 is None or not other:
        return  # one encoding throughout (UTF-8 would have decoded): ``encoding`` reads it
    column, rows = next(iter(other.items()))
    more = len(other) - 1
    raise ProjectInputError(
        f"'{name}' mixes text encodings: column {column!r} is not UTF-8 in {rows_text(rows)}"
        + (f" (and {more} more column{'s' if more > 1 else ''})" if more else "")
        + f", while column {utf8[0]!r} is UTF-8 in {rows_text([utf8[1]])}: read as one "
        "encoding, the other's accented letters would be garbled; save the file as UTF-8 "
        "(a spreadsheet's 'CSV UTF-8') and upload it again"
    )


def _check_no_c1_controls(text: str, df: pd.DataFrame, name: str, encoding: str) -> None:
    """Refuse a table (read from ``text``, decoded as ``encoding``) whose column names or
    text cells hold a C1 control character (U+0080–U+009F): a class named by it shows an
    invisible character, or a box. Read as Latin-1, the file has a byte Windows-1252 leaves
    undefined (another encoding); read as UTF-8, its text was garbled before it was saved (a
    Windows-1252 “ or € converted as if it were Latin-1). The message names the column, the
    rows and a cell."""
    import pandas as pd

    if not _C1_CONTROLS.search(text):
        return  # the usual case: one scan of the text, no cell looked at
    if encoding == CSV_ENCODINGS[0]:
        advice = (
            "it is usually a Windows-1252 character (“ ” € …) converted to UTF-8 as if it "
            "were Latin-1: replace it in the file and upload it again"
        )
    else:
        advice = (
            "the file is probably in an encoding other than UTF-8, Windows-1252 or Latin-1: "
            "save it as UTF-8 (a spreadsheet's 'CSV UTF-8') and upload it again"
        )
    for column in df.columns:
        if found := _C1_CONTROLS.search(str(column)):
            raise ProjectInputError(
                f"'{name}': the column name {str(column)!r} holds the invisible control "
                f"character U+{ord(found.group()):04X}; {advice}"
            )
    for column in df.columns:
        s = df[column]
        if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        cells = s.tolist()
        rows = [r for r, v in enumerate(cells) if isinstance(v, str) and _C1_CONTROLS.search(v)]
        if rows:
            code = ord(_C1_CONTROLS.search(cells[rows[0]]).group())
            raise ProjectInputError(
                f"'{name}': column {str(column)!r} holds the invisible control character "
                f"U+{code:04X} ({cell_rows_text(cells[rows[0]], rows)}); {advice}"
            )


def _unclosed_quote_line(text: str, delimiter: str) -> int | None:
    """The line of the file (1-based, blank lines counted) where the record holding a quote
    that is never closed starts: the last record, as such a quote runs to the end of the
    file; None when the csv module reads no record."""
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    start = None
    while True:
        begin = reader.line_num + 1  # each record starts on the line after the previous one
        try:
            row = next(reader)
        except StopIteration:
            return start
        except csv.Error:  # the quoted rest beyond the csv module's cell size limit
            return begin
        if row:
            start = begin


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
    check_duplicate_columns([h.strip() for h in header], name)
    try:
        df = pd.read_csv(io.StringIO(text), sep=delimiter, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise ProjectInputError(
            f"'{name}' is empty: upload a file with a header row and data"
        ) from None
    except pd.errors.ParserError as exc:
        if "EOF inside string" in str(exc):
            # pandas' "row" counts records from 0, not the lines a user's editor shows
            line = _unclosed_quote_line(text, delimiter)
            where = "in the file" if line is None else f"on line {line}"
            raise ProjectInputError(
                f"'{name}': a quote opened {where} is never closed, so the rest of the file "
                "would be one cell: close it, or remove it if it is part of the text"
            ) from None
        raise ProjectInputError(
            f"'{name}' could not be parsed with the separator {delimiter!r} ({exc}): check that "
            "every row has one value per column"
        ) from None
    df.columns = [str(c).strip() for c in df.columns]
    if encoding != CSV_ENCODINGS[0]:
        _check_one_encoding(df, name, encoding)
    _check_no_c1_controls(text, df, name, encoding)
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


__all__ = ["CSV_DELIMITERS", "CSV_ENCODINGS", "PARQUET_SUFFIXES", "hashable_nested", "read_table"]
