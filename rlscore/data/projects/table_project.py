"""Building a project from chosen columns of a table: its features, its items, ids and labels.

The features (what the learner uses) are, in this order: the numeric feature columns, the
vectors of the embedding column, text features made from the text columns
(:func:`~rlscore.data.features.text.build_text_features`) and, for an image project without an
embedding column, the images' downscaled grey pixels
(:func:`~rlscore.data.features.images.image_pixel_features`). The items (what the annotator
sees, :mod:`rlscore.data.items.columns`) are the text columns, the image column and the
context columns, kept exactly as uploaded.

Only the numeric feature columns are ever standardised (means and scales kept in meta;
embeddings, text and pixel features are left as they are); columns whose values would overflow
are scaled safely (divided by their largest magnitude first). By default
(``standardize=None``) the data decide
(:func:`~rlscore.data.projects.standardization.needs_scaling`): the columns are standardised
when their spreads differ more than
:data:`~rlscore.data.projects.standardization.SPREAD_RATIO`-fold or their values would
overflow, with a :class:`~rlscore.data.projects.project.ProjectInputWarning` saying so.
Beside text, image or embedding features they are always standardised (unless
``standardize=False``) and then weighted as one block: its strongest direction given the
variance of the other features' strongest direction
(:func:`~rlscore.data.projects.standardization.numeric_block_weight`, multiple factor
analysis's weighting), with a warning saying so and what share of the mean squared distance
the columns make, and made unscaled: otherwise a numeric column of spread 35 beside text
features of spread 0.25 decides every distance. ``standardize=False`` leaves every column as
uploaded. The annotator is shown the values as uploaded either way
(:func:`rlscore.data.items.columns.raw_feature_values`).

Constant numeric features are dropped with a
:class:`~rlscore.data.projects.project.ProjectInputWarning` (they carry no information and
break standardisation); the dropped names are in ``meta["dropped"]``. Rows with empty texts
are named in a warning (their text features are zero). Every warning is also kept in
``meta["warnings"]``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.data.features import FeatureInputError, Progress
from rlscore.data.features.embeddings import embedding_feature_names, embedding_matrix
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
    empty_text_rows,
    item_columns_from_table,
    item_texts,
    rows_text,
)
from rlscore.data.projects.class_labels import truth_and_classes
from rlscore.data.projects.column_choice import ColumnChoice, choose_columns, with_text_column_names
from rlscore.data.projects.numeric_features import numeric_features
from rlscore.data.projects.project import Project, ProjectInputError, warn_and_record
from rlscore.data.projects.standardization import numeric_block_weight, total_variance

# pandas is imported by the functions that read a table: a page that only opens stored
# projects never pays its 0.4 s of import
if TYPE_CHECKING:
    import pandas as pd

#: at most this many duplicate ids are listed in a message
_SHOWN_IDS = 5


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
    multi_label: bool = False,
) -> Project:
    """Build a project from chosen columns of a table: its features and its items (which
    features in which order, and what is fixed on the way: see this module's docstring).

    Parameters
    ----------
    df, name
        The table (from :func:`~rlscore.data.upload.table_reading.read_table`); the project's name.
    feature_columns
        Numeric columns forming the features; default: every column except the id, truth and
        context columns when no text, image or embedding column is given, else none.
    id_column
        Column of unique point ids; default: the row number (0, 1, …).
    truth_column, multi_label
        Column of true labels, if known (enables auto-labeling and the validation error);
        with ``multi_label``, of label sets (``a|b``: :mod:`rlscore.core.conventions.label_sets`).
    class_names
        Without a truth column: the classes to choose from (default ``[-1, 1]``). With one:
        a dict renaming truth values (``{0: "cat", 1: "dog"}``), or a list of names given to
        the sorted distinct truth values in order.
    standardize
        Standardise the numeric feature columns (True; beside text, image or embedding
        features, also weight them against those: see the module's docstring), leave them as
        they are (False), or let the data decide (None, the default; beside them, as True).
    source, description
        Recorded in ``meta``.
    text_columns
        Columns holding texts to show and to build text features from (joined per row).
    image_column, image_root
        Column of image paths, and the folder they are resolved in (required with
        ``image_column``); paths leaving it are refused.
    embedding_column
        Column holding one vector per row (JSON list text, or lists in Parquet): the features
        of the items (for an image project, instead of the pixel fallback).
    context_columns
        Further columns shown to the annotator as they are (e.g. a title, a date).
    text_settings, image_size
        :class:`~rlscore.data.features.text.TextFeatureSettings` (or its dict form) of the text
        features; (width, height) of the pixel fallback's images.
    progress
        ``progress(fraction, message)`` while features are built (texts, images).

    Raises
    ------
    ProjectInputError
        Naming the problem: unknown or duplicate columns, non-numeric feature, NaN or infinite
        values (with row numbers), values whose scale overflows the kernel unstandardised, fewer
        than 2 rows, only constant features, missing or duplicate ids, missing truth, a single
        class, bad class names (also of label sets); bad text, image or embedding cells.
    """
    df = with_text_column_names(df)
    columns = (feature_columns, id_column, truth_column, text_columns, image_column, image_root)
    chosen = choose_columns(df, *columns, embedding_column, context_columns)
    meta: dict = {"description": description, "source": source, "warnings": []}
    items, X, names = _items_and_features(
        df, chosen, standardize, meta, image_root, text_settings, image_size, progress
    )
    ids = _point_ids(df, id_column)
    truth, classes = truth_and_classes(df, truth_column, class_names, multi_label)
    meta["truth_column"], meta["id_column"] = truth_column, id_column
    return Project(name, X, names, ids, truth, classes, meta, items=items, multi_label=multi_label)


def _items_and_features(
    df: pd.DataFrame,
    chosen: ColumnChoice,
    standardize: bool | None,
    meta: dict,
    image_root: str | PathLike | None,
    text_settings: TextFeatureSettings | dict | None,
    image_size: tuple[int, int],
    progress: Progress | None,
) -> tuple[list[ItemColumn], np.ndarray, list[str]]:
    """The project's items, its feature matrix and the features' names; a bad item or
    feature cell is refused as a :class:`ProjectInputError` (its message names the cell)."""
    try:
        items = item_columns_from_table(
            df, chosen.text_columns, chosen.image_column, chosen.context_columns
        )
        X, names = _feature_matrix(
            df, chosen, standardize, meta, items, image_root, text_settings, image_size, progress
        )
    except (ItemInputError, FeatureInputError) as exc:
        raise ProjectInputError(str(exc)) from None
    return items, X, names


@dataclass
class _FeatureBlocks:
    """The feature matrix's column blocks as they are built, with each column's name and
    the mean and scale it was standardised with (0 and 1 where nothing was scaled), so the
    values as uploaded can be recovered (:func:`rlscore.data.items.columns.raw_feature_values`)."""

    blocks: list[np.ndarray] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    mean: list[float] = field(default_factory=list)
    scale: list[float] = field(default_factory=list)
    #: what each block after the numeric one is, as a message names it ("text", …)
    kinds: list[str] = field(default_factory=list)

    def add(self, block: np.ndarray, names: list[str], mean=None, scale=None, kind="") -> None:
        """Append ``block`` (unscaled unless ``mean`` and ``scale`` are given)."""
        self.blocks.append(block)
        self.names.extend(names)
        self.mean.extend([0.0] * block.shape[1] if mean is None else mean)
        self.scale.extend([1.0] * block.shape[1] if scale is None else scale)
        if kind:
            self.kinds.append(kind)


def _feature_matrix(
    df: pd.DataFrame,
    chosen: ColumnChoice,
    standardize: bool | None,
    meta: dict,
    items: list[ItemColumn],
    image_root: str | PathLike | None,
    text_settings: TextFeatureSettings | dict | None,
    image_size: tuple[int, int],
    progress: Progress | None,
) -> tuple[np.ndarray, list[str]]:
    """The feature matrix and its column names, in the order of the module's docstring; how
    each block was made is recorded in ``meta``."""
    built = _FeatureBlocks()
    standardized = False
    image = next((c for c in items if c.kind == "image"), None)
    texts = item_texts(items)
    if chosen.feature_columns:
        beside = chosen.embedding_column is not None or texts is not None or image is not None
        numeric = numeric_features(
            df, chosen.feature_columns, standardize, meta, beside_other_features=beside
        )
        built.add(numeric.X, numeric.names, numeric.mean, numeric.scale)
        standardized = numeric.standardized
    if chosen.embedding_column is not None:
        E = embedding_matrix(df[chosen.embedding_column], chosen.embedding_column)
        names = embedding_feature_names(chosen.embedding_column, E.shape[1])
        built.add(E, names, kind=f"embedding {chosen.embedding_column!r}")
        meta["embedding_column"] = chosen.embedding_column
    if texts is not None:
        built.add(*_text_features(texts, items, text_settings, progress, meta), kind="text")
    if image is not None:
        pixels = _image_features(
            image, chosen.embedding_column, image_root, image_size, progress, meta
        )
        if pixels is not None:
            built.add(*pixels, kind="image pixel")
    if not built.blocks:  # pragma: no cover - choose_columns refuses this case earlier
        raise ProjectInputError("no features: choose a numeric, text, image or embedding column")
    if standardized and built.kinds:
        _weigh_numeric_block(built, len(numeric.names), meta)
    meta["standardized"] = standardized
    if standardized:
        meta["feature_mean"], meta["feature_scale"] = built.mean, built.scale
    return np.column_stack(built.blocks), built.names


def _weigh_numeric_block(built: _FeatureBlocks, n_numeric: int, meta: dict) -> None:
    """Weight the standardised numeric block (``built.blocks[0]``, its first ``n_numeric``
    columns) against the other blocks
    (:func:`~rlscore.data.projects.standardization.numeric_block_weight`), its scales
    adjusted so the values as uploaded are still recovered; a warning says what was done and
    what share of the mean squared distance the columns make now, and made unscaled."""
    weight = numeric_block_weight(built.blocks[0], built.blocks[1:])
    built.blocks[0] = built.blocks[0] * weight
    built.scale[:n_numeric] = [s / weight for s in built.scale[:n_numeric]]
    others = sum(total_variance(B) for B in built.blocks[1:])
    columns = ", ".join(map(repr, built.names[:n_numeric]))
    kinds = " and ".join(built.kinds)
    if not others > 0:  # nothing to balance against (weight 1)
        warn_and_record(
            meta,
            f"numeric feature column(s) {columns} standardised (zero mean, unit variance): "
            f"the {kinds} features do not vary, so the numeric column(s) decide every distance",
        )
        return
    with np.errstate(over="ignore", invalid="ignore"):
        raw = float(np.sum(np.square(np.asarray(built.scale[:n_numeric]) * weight)))
        before = raw / (raw + others) if np.isfinite(raw) else 1.0
    now = n_numeric * weight**2 / (n_numeric * weight**2 + others)
    warn_and_record(
        meta,
        f"numeric feature column(s) {columns} standardised and weighted against the {kinds} "
        f"features (their strongest directions given the same variance): they make {now:.1%} "
        f"of the mean squared distance between two points, where unscaled they made "
        f"{before:.2%}; standardisation 'no' (standardize=False) keeps them as uploaded, and "
        "the annotator sees the values as uploaded either way",
    )


def _text_features(
    texts: list[str],
    items: list[ItemColumn],
    text_settings: TextFeatureSettings | dict | None,
    progress: Progress | None,
    meta: dict,
) -> tuple[np.ndarray, list[str]]:
    """Text features of the text items joined per point (``texts``), with a warning naming
    the rows of each text column that are empty; their summary is recorded in ``meta``."""
    for c in items:
        empty = empty_text_rows(c) if c.kind == "text" else []
        if len(empty):
            warn_and_record(
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
        listed = ", ".join(repr(c.name) for c in items if c.kind == "text")
        raise FeatureInputError(f"text column(s) {listed}: {exc}") from None
    meta["text_features"] = tf.summary()
    return tf.X, tf.feature_names


def _image_features(
    image: ItemColumn,
    embedding_column: str | None,
    image_root: str | PathLike | None,
    image_size: tuple[int, int],
    progress: Progress | None,
    meta: dict,
) -> tuple[np.ndarray, list[str]] | None:
    """The images' downscaled grey pixels and their names, or None when the embedding column
    gives the features (the images are checked all the same); recorded in ``meta``."""
    meta["image_root"] = None if image_root is None else str(image_root)
    if embedding_column is not None:
        check_images(image.values, image_root, column=image.name, progress=progress)
        meta["image_features"] = {"kind": "embedding", "column": embedding_column}
        return None
    size = (int(image_size[0]), int(image_size[1]))
    P = image_pixel_features(
        image.values, image_root, column=image.name, size=size, progress=progress
    )
    meta["image_features"] = {"kind": "grey pixels", "size": list(size)}
    meta["image_shape"] = [size[1], size[0]]
    return P, pixel_feature_names(size)


def _point_ids(df: pd.DataFrame, id_column: str | None) -> list[str]:
    """The id of every point: the id column's values as text or, without one, the row
    numbers; refused when an id is missing or given twice."""
    if id_column is None:
        return [str(i) for i in range(df.shape[0])]
    s = df[id_column]
    if s.isna().any():
        raise ProjectInputError(
            f"id column {id_column!r} is empty in "
            f"{rows_text(np.flatnonzero(s.isna().to_numpy()))}: every point needs an id"
        )
    ids = [str(plain_scalar(v)) for v in s.tolist()]
    dup = [i for i, k in Counter(ids).items() if k > 1]
    if dup:
        raise ProjectInputError(
            f"id column {id_column!r} has duplicate ids "
            f"({', '.join(map(repr, dup[:_SHOWN_IDS]))}): ids must be unique; choose another "
            "id column or none (row numbers are used)"
        )
    return ids


__all__ = ["project_from_table"]
