"""An uploaded table before it becomes a project: the columns to propose, and its preview.

The Data page proposes a ground-truth column (:func:`guess_truth_column`: named like a label
column and holding few enough values to be classes) and the numeric columns as features
(:func:`default_features`; a column of numbers with a few text cells is not one, and
:func:`mostly_numeric_notes` says where those cells are) and, among the columns holding a
JSON list per row (a CSV's text or a Parquet list,
:mod:`rlscore.data.upload.table_reading`), the first of numeric vectors of one length as the
embedding (:func:`guess_embedding_column`); the other list columns are named by
:func:`nested_column_notes`. Once
:func:`rlscore.data.projects.table_project.project_from_table` has built the project,
:func:`class_listing` and :func:`project_preview` are what the page shows of it.
Texts returned here are plain: the page escapes them for Markdown.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from numbers import Real
from typing import TYPE_CHECKING

from rlscore.data.features.text import TextFeatureSettings
from rlscore.data.projects.numeric_features import non_numeric_cells
from rlscore.data.projects.project import Project
from rlscore.data.upload.table_fixes import (
    MAX_CATEGORIES,
    TableFixError,
    drop_missing_rows,
    impute_missing,
    one_hot_encode,
)

# pandas is imported by the functions that look at a table: the pages that only list projects
# never pay its 0.4 s of import
if TYPE_CHECKING:
    import pandas as pd

#: column names (lower case) that suggest the ground truth
TRUTH_GUESSES = (
    "label", "labels", "class", "kind", "category", "target", "y", "truth",
    "species", "type", "genre", "topic", "section", "sentiment", "outcome", "diagnosis",
)  # fmt: skip
#: column names (lower case) of dates and years: numeric, but not proposed as features (the
#: year a penguin was measured says nothing about its species)
NOT_FEATURES = ("year", "date", "month", "day", "timestamp")
#: a string column whose cells have at least this many characters (median) is proposed as a
#: text item column
MIN_TEXT_CHARS = 25
#: file endings of the image formats proposed as an image column
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff")
#: cells looked at to guess a column's kind (an estimate: the engine checks every cell)
PROBE_ROWS = 500
#: a string column with at least this share of numbers (probed) is numbers with some text
#: cells: no free text (:func:`looks_like_text`), and named when not proposed as a feature
#: (:func:`mostly_numeric_notes`)
MOSTLY_NUMERIC = 0.5
#: values listed in a label or caption (a truth column's values, a project's classes); a
#: column with more distinct values is not proposed as the truth
MAX_LISTED = 20
#: rows of a table or a project shown as a preview
MAX_PREVIEW_ROWS = 200
#: what the form offers for missing values (``impute *`` names the numeric strategy)
MISSING_FIXES = ("keep", "drop rows", "impute median", "impute mean")
#: the text analyzers offered on the form, by the name shown
ANALYZER_CHOICES = {"words": "word", "character n-grams": "char_wb"}
#: standardisation offered on the form, by the name shown: the first (the default) lets
#: project_from_table decide from the data
#: (rlscore.data.projects.standardization.needs_scaling)
STANDARDIZE_CHOICES = {
    "automatic (when the columns' spreads differ)": None,
    "yes": True,
    "no": False,
}


def listed(values: Sequence, limit: int = MAX_LISTED) -> str:
    """The first ``limit`` values, comma-separated, with " …" when there are more."""
    values = list(values)
    return ", ".join(map(str, values[:limit])) + (" …" if len(values) > limit else "")


def looks_like_truth(column: pd.Series) -> bool:
    """Whether a column holds few enough distinct values to be classes (a 200 000-row
    feature called ``y`` is not a truth column)."""
    return column.nunique() <= MAX_LISTED


def guess_truth_column(df: pd.DataFrame) -> str | None:
    """The first column named like a label column (:data:`TRUTH_GUESSES`, any case) whose
    values look like classes (:func:`looks_like_truth`), or None.

    >>> guess_truth_column(pd.DataFrame({"x": [0.1, 0.2], "Kind": ["a", "b"]}))
    'Kind'
    """
    return next(
        (str(c) for c in df.columns if str(c).lower() in TRUTH_GUESSES and looks_like_truth(df[c])),
        None,
    )


def default_features(
    df: pd.DataFrame, exclude: Iterable[str | None] = (), *, beside_item_features: bool = False
) -> list[str]:
    """The numeric columns of ``df`` except ``exclude`` (the id and truth columns), those
    named like a date or year (:data:`NOT_FEATURES`) and those empty in every row, in order:
    the features proposed for a new project.

    None when ``beside_item_features`` (a text, image or embedding column makes features), as
    :func:`~rlscore.data.projects.table_project.project_from_table` defaults: the numeric
    columns of such a table are mostly a row counter, a year or a count, which say nothing of
    the item, and beside the text features one of them decided every distance (explore18,
    finding 3). The uploader may still choose them (they are then weighted against the other
    features, :func:`~rlscore.data.projects.standardization.numeric_block_weight`)."""
    import pandas as pd

    if beside_item_features:
        return []
    skip = set(exclude)
    return [
        str(c)
        for c in df.columns
        if str(c) not in skip
        and str(c).lower() not in NOT_FEATURES
        and pd.api.types.is_numeric_dtype(df[c])
        and not pd.api.types.is_bool_dtype(df[c])
        and df[c].notna().any()  # an empty column (read as NaN numbers) is no feature
    ]


def mostly_numeric_notes(
    df: pd.DataFrame, exclude: Iterable[str | None] = (), *, beside_item_features: bool = False
) -> list[str]:
    """One sentence per column of ``df`` (except ``exclude``) that holds numbers in most
    cells (at least :data:`MOSTLY_NUMERIC` of those probed) but text in some:
    :func:`default_features` leaves it out, as it is no numeric column, and the sentence
    names its first text cell and their rows, as the project's refusal of it as a feature
    does (:func:`~rlscore.data.projects.numeric_features.non_numeric_cells`). Without it a
    typo (``unknown`` in an ``age`` column) lost the column without a word.

    No sentence when ``beside_item_features`` (no numeric column is proposed then), nor for
    columns named like a date (:data:`NOT_FEATURES`).

    >>> notes = mostly_numeric_notes(pd.DataFrame({"age": ["28", "unknown", "36", "40"]}))
    >>> notes[0].startswith("Column 'age' is not proposed as a feature: it is not numeric")
    True
    >>> "('unknown' in row 2)" in notes[0]
    True
    """
    import pandas as pd

    if beside_item_features:
        return []
    skip = set(exclude)
    notes = []
    # the text columns at once: a wide table's 3000 numeric columns are not looked at one by one
    for c in df.select_dtypes(include=["object", "string"]).columns:
        if str(c) in skip or str(c).lower() in NOT_FEATURES:
            continue
        cells = _probe(df[c])
        if cells.empty or pd.to_numeric(cells, errors="coerce").notna().mean() < MOSTLY_NUMERIC:
            continue
        where = non_numeric_cells(df[c])  # every cell: the probe may have missed the text
        if where is not None:
            notes.append(
                f"Column {str(c)!r} is not proposed as a feature: it is not numeric ({where}); "
                "correct the cells that are not numbers, or encode the column as numbers, to "
                "use it as one."
            )
    return notes


def _probe(column: pd.Series) -> pd.Series:
    """Up to :data:`PROBE_ROWS` evenly spaced non-missing cells of a string column, as text."""
    filled = column.dropna()
    step = max(1, len(filled) // PROBE_ROWS)
    return filled.iloc[::step].astype(str)


def _is_string_column(column: pd.Series) -> bool:
    import pandas as pd

    return pd.api.types.is_object_dtype(column) or pd.api.types.is_string_dtype(column)


def _json_cells(column: pd.Series) -> list | None:
    """The probed cells of a nested column — tuples of numbers, or JSON lists or objects as
    text (:mod:`rlscore.data.upload.table_reading`) — as lists and dicts, or None when one
    of them is neither (or the column holds none)."""
    if not _is_string_column(column):
        return None
    filled = column.dropna()
    cells = filled.iloc[:: max(1, len(filled) // PROBE_ROWS)].tolist()
    if not cells:
        return None
    values = []
    for cell in cells:
        if isinstance(cell, tuple):
            values.append(list(cell))
            continue
        text = str(cell).strip()
        if not text.startswith(("[", "{")):
            return None
        try:
            values.append(json.loads(text))
        except (ValueError, RecursionError):  # not JSON, or nested beyond the parser
            return None
    return values


def _is_vector(value) -> bool:
    if not isinstance(value, list) or not value:
        return False
    kinds = set(map(type, value))  # at C speed; the ABC check only for other number types
    return kinds <= {float, int} or all(
        isinstance(v, Real) and not isinstance(v, bool) for v in value
    )


def looks_like_vectors(column: pd.Series) -> bool:
    """Whether a column holds one numeric vector per row, all of one length (probed): an
    embedding column. Every cell is checked when the project is built
    (:func:`~rlscore.data.features.embeddings.embedding_matrix`).

    >>> looks_like_vectors(pd.Series(["[0.1, 0.2]", "[0.3, -1]"]))
    True
    """
    values = _json_cells(column)
    if not values or not all(_is_vector(v) for v in values):
        return False
    return len({len(v) for v in values}) == 1


def guess_embedding_column(df: pd.DataFrame, exclude: Iterable[str | None] = ()) -> str | None:
    """The first column of numeric vectors of one length (:func:`looks_like_vectors`),
    except ``exclude``: the embedding column proposed."""
    skip = set(exclude)
    return next(
        (str(c) for c in df.columns if str(c) not in skip and looks_like_vectors(df[c])), None
    )


def nested_column_notes(df: pd.DataFrame, exclude: Iterable[str | None] = ()) -> list[str]:
    """One sentence per column of lists or records (JSON) that are not numeric vectors of
    one length, except ``exclude``: why it is not proposed as the embedding, and what it can
    be instead."""
    skip = set(exclude)
    return [
        f"Column {str(c)!r} holds lists or records that are not numeric vectors of one "
        "length: it cannot be the embedding column or a feature; it can be shown as a text "
        "or context column."
        for c in df.columns
        if str(c) not in skip and _json_cells(df[c]) is not None and not looks_like_vectors(df[c])
    ]


def looks_like_text(column: pd.Series) -> bool:
    """Whether a column holds free text: strings (not numbers) whose median length is at
    least :data:`MIN_TEXT_CHARS` characters.

    >>> looks_like_text(pd.Series(["a short sentence of some words", "and another one here"]))
    True
    """
    import pandas as pd

    if not _is_string_column(column):
        return False
    if _json_cells(column) is not None:  # lists or records (vectors, tags) are not free text
        return False
    cells = _probe(column)
    if cells.empty or pd.to_numeric(cells, errors="coerce").notna().mean() >= MOSTLY_NUMERIC:
        return False
    if looks_like_image_paths(column):  # long paths or URLs of pictures are not free text
        return False
    return float(cells.str.len().median()) >= MIN_TEXT_CHARS


def looks_like_image_paths(column: pd.Series) -> bool:
    """Whether most cells of a string column end with an image file's suffix
    (:data:`IMAGE_SUFFIXES`, any case)."""
    if not _is_string_column(column):
        return False
    cells = _probe(column).str.strip().str.lower()
    return not cells.empty and bool(cells.str.endswith(IMAGE_SUFFIXES).mean() >= 0.9)


def guess_text_columns(df: pd.DataFrame, exclude: Iterable[str | None] = ()) -> list[str]:
    """The columns proposed as text items (:func:`looks_like_text`), except ``exclude``."""
    skip = set(exclude)
    return [str(c) for c in df.columns if str(c) not in skip and looks_like_text(df[c])]


def guess_image_column(df: pd.DataFrame, exclude: Iterable[str | None] = ()) -> str | None:
    """The first column that looks like image paths (:func:`looks_like_image_paths`)."""
    skip = set(exclude)
    return next(
        (str(c) for c in df.columns if str(c) not in skip and looks_like_image_paths(df[c])),
        None,
    )


def columns_with_missing_values(df: pd.DataFrame, columns: Iterable[str]) -> list[str]:
    """Those of ``columns`` with at least one missing value (fixes are offered for them)."""
    return [c for c in columns if c in df.columns and bool(df[c].isna().any())]


def categorical_columns(df: pd.DataFrame, exclude: Iterable[str | None] = ()) -> list[str]:
    """String columns with 2 to :data:`~rlscore.data.upload.table_fixes.MAX_CATEGORIES` distinct
    values, except ``exclude``: the columns one-hot encoding is offered for."""
    skip = set(exclude)
    return [
        str(c)
        for c in df.columns
        if str(c) not in skip
        and _is_string_column(df[c])
        and _json_cells(df[c]) is None  # lists are not categories (and cost to count)
        and 2 <= df[c].nunique(dropna=False) <= MAX_CATEGORIES
    ]


def apply_fixes(
    df: pd.DataFrame,
    missing: str,
    columns: list[str],
    one_hot: Sequence[str] = (),
) -> tuple[pd.DataFrame, list[str]]:
    """The table with the fixes chosen on the Data page applied, and the sentence of each.

    Parameters
    ----------
    df
        The uploaded table (not changed).
    missing
        What to do with missing values in ``columns``: one of :data:`MISSING_FIXES`.
    columns
        The columns whose missing values are fixed (the chosen features and items).
    one_hot
        Categorical columns to replace by 0/1 columns (after the missing-value fix).

    Returns
    -------
    (DataFrame, list of str)
        The fixed table, indexed by the file's rows (0-based data rows: the rows "drop rows"
        kept keep their numbers, for :func:`~rlscore.data.items.columns.file_rows`), and the
        sentences.

    Raises
    ------
    TableFixError
        A fix cannot be applied (the message says why).
    """
    if missing not in MISSING_FIXES:
        raise TableFixError(f"missing values: choose one of {MISSING_FIXES}, got {missing!r}")
    import pandas as pd

    if not df.index.equals(pd.RangeIndex(len(df))):  # a Parquet file may bring its own index
        df = df.reset_index(drop=True)  # the file's rows
    notes: list[str] = []
    if missing != "keep" and columns:
        if missing == "drop rows":
            df, note = drop_missing_rows(df, list(columns))
        else:
            df, note = impute_missing(df, list(columns), missing.removeprefix("impute "))
        notes.append(note)
    for column in one_hot:
        df, note = one_hot_encode(df, column)
        notes.append(note)
    return df, notes


def fixed_features(
    fixed: pd.DataFrame, features: Sequence[str], one_hot: Sequence[str]
) -> list[str]:
    """The feature columns once the fixes are applied: each one-hot encoded column (chosen
    as a feature or not) is replaced by its 0/1 columns in ``fixed``, the table
    :func:`apply_fixes` returned."""
    encoded = {c: [str(n) for n in fixed.columns if str(n).startswith(f"{c}=")] for c in one_hot}
    kept = [c for c in features if c not in encoded]
    return [*kept, *(n for names in encoded.values() for n in names if n not in kept)]


def text_settings(analyzer: str, vocabulary_size: int, n_components: int) -> TextFeatureSettings:
    """The text feature settings chosen on the form (``analyzer`` ``"words"`` or
    ``"character n-grams"``, as offered in :data:`ANALYZER_CHOICES`)."""
    return TextFeatureSettings(
        analyzer=ANALYZER_CHOICES[analyzer],
        vocabulary_size=int(vocabulary_size),
        n_components=int(n_components),
    )


def text_feature_caption(project: Project) -> str | None:
    """What the text features of a built project are: dimension and explained variance
    (plain text), None for a project without text features."""
    summary = project.meta.get("text_features")
    if not summary:
        return None
    variance = summary.get("explained_variance")
    shown = "" if variance is None else f", keeping {100 * float(variance):.1f} % of the variance"
    lo, hi = summary.get("ngram_range", (1, 1))
    unit = "word" if summary.get("analyzer") == "word" else "character"
    return (
        f"Text features: TF-IDF of {unit} {lo}–{hi}-grams ({summary.get('n_terms')} terms) "
        f"reduced to {summary.get('dimension')} dimensions{shown}."
    )


def class_listing(project: Project, limit: int = MAX_LISTED) -> str:
    """The project's classes, each with its number of points when the truth is known
    (``"cat: 2, dog: 2"``), at most ``limit`` of them.

    A multi-label project's count of a class is the number of points whose true label set
    holds it (a point counts once for each of its classes; one with the empty set for none):
    its truth holds sets, never a class itself."""
    import pandas as pd

    classes = project.classes[: limit + 1]  # listed() adds "…" past the limit
    if project.truth is not None:
        if project.multi_label:  # a label set holds each of its classes once
            counts = Counter(c for label_set in project.truth for c in label_set)
        else:
            counts = pd.Series(project.truth).value_counts()
        classes = [f"{c}: {counts.get(c, 0)}" for c in classes]
    return listed(classes, limit)


def project_preview(project: Project, rows: int = MAX_PREVIEW_ROWS) -> pd.DataFrame:
    """The first ``rows`` points of a project: features (as stored, standardised or not),
    indexed by the point ids, and the truth when known."""
    import pandas as pd

    preview = pd.DataFrame(
        project.X[:rows], columns=project.feature_names, index=project.ids[:rows]
    )
    if project.truth is not None:
        preview["truth"] = project.truth[:rows]
    return preview


__all__ = [
    "ANALYZER_CHOICES",
    "IMAGE_SUFFIXES",
    "MISSING_FIXES",
    "MOSTLY_NUMERIC",
    "NOT_FEATURES",
    "STANDARDIZE_CHOICES",
    "apply_fixes",
    "categorical_columns",
    "guess_embedding_column",
    "columns_with_missing_values",
    "guess_image_column",
    "guess_text_columns",
    "looks_like_image_paths",
    "looks_like_text",
    "looks_like_vectors",
    "mostly_numeric_notes",
    "nested_column_notes",
    "fixed_features",
    "text_feature_caption",
    "text_settings",
    "MAX_LISTED",
    "MAX_PREVIEW_ROWS",
    "TRUTH_GUESSES",
    "class_listing",
    "default_features",
    "guess_truth_column",
    "listed",
    "looks_like_truth",
    "project_preview",
]
