"""The Data page's upload form: the uploaded table read once, and what the uploader chooses to
make a project of it.

The form proposes (:mod:`rlscore.data.upload.proposal`) and the uploader decides: the project's
name (the file's stem until another is typed, :func:`project_name_input`), the id and
ground-truth columns, the items an annotator sees (text columns, one image column, context
columns), the features the learner uses (numeric columns, an embedding column, text features
and their settings), the class names, standardisation, and the fixes the table needs
(:func:`fix_choices`: offered only when it needs them). Each column serves one role: a column
taken by one role is not offered to the next. What is chosen comes back as
:class:`UploadChoices`; building the project from it is :mod:`rlscore.ui.forms.new_project`'s.
Names from the file are shown as text (:func:`rlscore.ui.shell.safe_text.md_text`), never as
Markdown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from rlscore.core.conventions.counted_words import counted
from rlscore.data import ProjectInputError, read_table
from rlscore.data.features.image_urls import image_urls_allowed
from rlscore.data.features.text import TextFeatureSettings
from rlscore.data.projects.class_labels import looks_multi_label, truth_values
from rlscore.data.upload.proposal import (
    ANALYZER_CHOICES,
    MISSING_FIXES,
    STANDARDIZE_CHOICES,
    categorical_columns,
    columns_with_missing_values,
    default_features,
    guess_embedding_column,
    guess_image_column,
    guess_text_columns,
    guess_truth_column,
    listed,
    mostly_numeric_notes,
    nested_column_notes,
)
from rlscore.ui.shell.safe_text import md_text

if TYPE_CHECKING:
    import pandas as pd
    from streamlit.runtime.uploaded_file_manager import UploadedFile

#: the options that stand for "no column" in the column choices
NO_ID = "(row number)"
NO_TRUTH = "(none)"
NO_IMAGE = "(no image column)"
NO_EMBEDDING = "(no embedding column)"
#: the text features' settings proposed on the form
DEFAULT_TEXT = TextFeatureSettings()


@dataclass(frozen=True)
class UploadChoices:
    """What the uploader chose on the form, as the widgets hold it.

    Attributes
    ----------
    name : str
        The project's name.
    id_column, truth_column : str or None
        The rows' ids (None: the row number) and the ground truth (None: no truth).
    text_columns, context_columns : list of str
        Items shown (texts also become features) and shown as they are.
    image_column, embedding_column : str or None
    features : list of str
        Numeric feature columns.
    text_inputs : (str, int, int) or None
        The text analyzer's shown name, the vocabulary size and the dimension as typed (None
        without text columns); checked when the project is built
        (:func:`rlscore.data.upload.proposal.text_settings`).
    names_text : str
        The class names as typed (comma-separated).
    standardize : bool or None
        None: decided from the data.
    missing_fix : str
        One of :data:`~rlscore.data.upload.proposal.MISSING_FIXES`.
    one_hot : list of str
        Categorical columns to one-hot encode.
    multi_label : bool
        "Several labels per item": a point's label is a set of classes (issue 38).
    """

    name: str
    id_column: str | None
    truth_column: str | None
    text_columns: list[str]
    image_column: str | None
    context_columns: list[str]
    embedding_column: str | None
    features: list[str]
    text_inputs: tuple[str, int, int] | None
    names_text: str
    standardize: bool | None
    missing_fix: str
    one_hot: list[str]
    multi_label: bool = False

    @property
    def chosen_columns(self) -> list[str]:
        """The columns whose values the project reads (:func:`read_columns`)."""
        return read_columns(self.features, self.text_columns, self.context_columns)


def upload_caption(name: str, df: pd.DataFrame) -> str:
    """The uploaded file's name and size, as the Data page captions its preview (Markdown)."""
    shape = f"{counted(df.shape[0], 'row')} × {counted(df.shape[1], 'column')}"
    return f"{md_text(name)}: {shape}"


def read_columns(
    features: Iterable[str], text_columns: Iterable[str], context_columns: Iterable[str]
) -> list[str]:
    """The columns whose values a project reads: the features, the texts and the context (the
    fixes of missing values apply to these)."""
    return [c for c in [*features, *text_columns, *context_columns] if c]


@st.cache_data(show_spinner=False, max_entries=4)
def load_table(data: bytes, filename: str) -> pd.DataFrame:
    """The table of an uploaded file (:func:`rlscore.data.read_table`), read once per file:
    every widget change reruns the page."""
    return read_table(data, filename)


def read_upload(upload: UploadedFile) -> pd.DataFrame | None:
    """The uploaded file's table, or None with the reason it cannot be read shown as an
    error.

    Parameters
    ----------
    upload : UploadedFile
        What ``st.file_uploader`` returned.

    Returns
    -------
    DataFrame or None
    """
    try:
        return load_table(upload.getvalue(), upload.name)
    except ProjectInputError as exc:
        st.error(md_text(exc))
        return None


def free_columns(columns: Iterable[str], taken: Iterable[str | None]) -> list[str]:
    """The ``columns`` no role has taken yet, in their order."""
    taken = set(taken)
    return [c for c in columns if c not in taken]


def _none_for(value: str, none_option: str) -> str | None:
    """A column choice's value, None for its "no column" option."""
    return None if value == none_option else value


def _guess_index(options: list[str], guess: str | None) -> int:
    """The option a widget starts at: the guess, else the first ("no column")."""
    return options.index(guess) if guess else 0


def upload_form(df: pd.DataFrame, upload: UploadedFile) -> UploadChoices:
    """The form's widgets for the table ``df`` of the file ``upload``, in the page's order.

    Parameters
    ----------
    df : DataFrame
        The uploaded table (:func:`read_upload`).
    upload : UploadedFile

    Returns
    -------
    UploadChoices
    """
    columns = [str(c) for c in df.columns]
    name = project_name_input(upload)
    id_column, truth_column = role_columns(df, columns)
    roles = (id_column, truth_column)
    multi_label = multi_label_input(df, truth_column)
    text_columns, image_column, context_columns = item_columns(df, columns, roles)
    items = {*roles, *text_columns, image_column}
    beside = bool(text_columns) or image_column is not None
    embedding_column, features = feature_columns(df, columns, items, beside)
    text_inputs = text_feature_inputs() if text_columns else None
    names_text = class_names_input(df, truth_column, multi_label)
    standardize = STANDARDIZE_CHOICES[
        st.radio(
            "Standardise numeric features (zero mean, unit variance)",
            list(STANDARDIZE_CHOICES),
            horizontal=True,
            key="standardize",
            help="Beside text, image or embedding features, 'automatic' and 'yes' also weight "
            "the numeric columns as one block against those features, so that neither decides "
            "every distance; 'no' keeps the values as uploaded.",
        )
    ]
    missing_fix, one_hot = fix_choices(
        df,
        read_columns(features, text_columns, context_columns),
        (*items, embedding_column, *context_columns),
    )
    return UploadChoices(
        name=name,
        id_column=id_column,
        truth_column=truth_column,
        text_columns=text_columns,
        image_column=image_column,
        context_columns=context_columns,
        embedding_column=embedding_column,
        features=features,
        text_inputs=text_inputs,
        names_text=names_text,
        standardize=standardize,
        missing_fix=missing_fix,
        one_hot=one_hot,
        multi_label=multi_label,
    )


def multi_label_input(df: pd.DataFrame, truth_column: str | None) -> bool:
    """The "Several labels per item" box (a label is a set of classes), ticked at first when
    the truth column's cells look like label sets (``a|b``, lists or JSON lists:
    :func:`~rlscore.data.projects.class_labels.looks_multi_label`); one box per truth column,
    so choosing another column guesses again."""
    guess = truth_column is not None and looks_multi_label(df[truth_column].dropna().tolist())
    return st.checkbox(
        "Several labels per item",
        value=guess,
        key=f"multi_label_{truth_column}",
        help="Multi-label: annotators choose every class that applies (none is a label too). "
        "In a truth column, separate the classes of a cell by | (news|sports) or write them "
        'as a JSON list (["news", "sports"]); an empty cell means none of them.',
    )


def project_name_input(upload: UploadedFile) -> str:
    """The project's name: the stem of each new file, until the uploader types another name
    (a change of another widget keeps the typed name)."""
    this_file = (upload.name, upload.size, getattr(upload, "file_id", ""))
    if st.session_state.get("project_name_for") != this_file:
        st.session_state["project_name_for"] = this_file
        st.session_state["project_name"] = Path(upload.name).stem
    return st.text_input("Project name", key="project_name")


def role_columns(df: pd.DataFrame, columns: list[str]) -> tuple[str | None, str | None]:
    """The id column and the ground-truth column, side by side; the truth proposed by
    :func:`~rlscore.data.upload.proposal.guess_truth_column`.

    Returns
    -------
    (str or None, str or None)
        The id column (None: the row number) and the truth column (None: no truth).
    """
    left, right = st.columns(2)
    id_column = left.selectbox("Id column", [NO_ID, *columns], key="id_column")
    truth_options = [NO_TRUTH, *columns]
    truth_column = right.selectbox(
        "Ground-truth column (optional: enables auto-labeling and validation error)",
        truth_options,
        index=_guess_index(truth_options, guess_truth_column(df)),
        key="truth_column",
    )
    return _none_for(id_column, NO_ID), _none_for(truth_column, NO_TRUTH)


def item_columns(
    df: pd.DataFrame, columns: list[str], roles: tuple[str | None, str | None]
) -> tuple[list[str], str | None, list[str]]:
    """What the annotator sees: text columns, one image column (paths under the server's
    image folder, or URLs where the server allows them) and context columns, each proposed
    among the columns the ``roles`` (id, truth) left.

    Returns
    -------
    (list of str, str or None, list of str)
        The text columns, the image column and the context columns.
    """
    st.subheader("Items: what the annotator sees")
    text_columns = st.multiselect(
        "Text columns (shown, and text features built from them)",
        free_columns(columns, roles),
        default=guess_text_columns(df, exclude=roles),
        key="text_columns",
    )
    image_options = [NO_IMAGE, *free_columns(columns, (*roles, *text_columns))]
    image_column = st.selectbox(
        "Image column (paths relative to the server's image folder"
        + (", or http(s) URLs)" if image_urls_allowed() else ")"),
        image_options,
        index=_guess_index(image_options, guess_image_column(df, exclude=(*roles, *text_columns))),
        key="image_column",
    )
    image_column = _none_for(image_column, NO_IMAGE)
    context_columns = st.multiselect(
        "Context columns (shown as they are)",
        free_columns(columns, {*roles, *text_columns, image_column}),
        key="context_columns",
    )
    return text_columns, image_column, context_columns


def feature_columns(
    df: pd.DataFrame, columns: list[str], items: set[str | None], item_features: bool = False
) -> tuple[str | None, list[str]]:
    """What the learner uses besides the texts: an embedding column and the feature columns
    (the numeric ones proposed, :func:`~rlscore.data.upload.proposal.default_features`: none
    when ``item_features`` — texts or images make features — or an embedding column is
    chosen), among the columns the ``items`` (and the id and truth) left; a column of numbers
    with a few text cells, not proposed, is named with those cells
    (:func:`~rlscore.data.upload.proposal.mostly_numeric_notes`).

    Returns
    -------
    (str or None, list of str)
        The embedding column and the feature columns.
    """
    st.subheader("Features: what the learner uses")
    embedding_options = [NO_EMBEDDING, *free_columns(columns, items)]
    embedding_column = st.selectbox(
        "Embedding column (one vector per row: a JSON list or a Parquet list)",
        embedding_options,
        index=_guess_index(embedding_options, guess_embedding_column(df, exclude=items)),
        key="embedding_column",
    )
    embedding_column = _none_for(embedding_column, NO_EMBEDDING)
    for note in nested_column_notes(df, exclude={*items, embedding_column}):
        st.caption(md_text(note))
    used = {*items, embedding_column}
    beside = item_features or embedding_column is not None
    features = st.multiselect(
        "Feature columns",
        free_columns(columns, used),
        default=default_features(df, exclude=used, beside_item_features=beside),
        key="features",
        help="Numeric columns the learner uses. Beside text, image or embedding features none "
        "is proposed; one chosen there is standardised and weighted against those features "
        "(unless standardisation is 'no').",
    )
    # a column of numbers with a stray text cell is not proposed: say so, unless chosen (the
    # project's refusal names the cell then)
    for note in mostly_numeric_notes(df, exclude={*used, *features}, beside_item_features=beside):
        st.caption(md_text(note))
    return embedding_column, features


def text_feature_inputs() -> tuple[str, int, int]:
    """The text features' settings as typed: the analyzer's shown name, the vocabulary size and
    the dimension (checked when the project is built)."""
    st.caption(
        "Text features: TF-IDF of the text columns reduced to a dense basis (truncated "
        "SVD); the variance it keeps is shown below once built."
    )
    a, b, c = st.columns(3)
    analyzer = a.selectbox("Text analyzer", list(ANALYZER_CHOICES), key="text_analyzer")
    vocabulary = b.number_input(
        "Vocabulary size", 1, 1_000_000, DEFAULT_TEXT.vocabulary_size, 1000,
        key="text_vocabulary",
    )  # fmt: skip
    dimension = c.number_input(
        "Dimension", 1, 1000, DEFAULT_TEXT.n_components, 10, key="text_dimension"
    )
    return analyzer, vocabulary, dimension


def class_names_input(df: pd.DataFrame, truth_column: str | None, multi_label: bool = False) -> str:
    """The class names as typed: display names of the truth column's values (listed in the
    label; a multi-label column's: the classes its sets name), or without a truth column the
    classes the annotators choose from."""
    if truth_column is not None:
        shown = md_text(listed(truth_values(df, truth_column, multi_label)))
        return st.text_input(
            f"Class names for the truth values {shown} (comma-separated, optional)",
            key="class_names",
        )
    return st.text_input(
        "Classes the annotators choose from (comma-separated)",
        value="-1, 1",
        key="class_names_free",
    )


def fix_choices(
    df: pd.DataFrame, chosen: list[str], not_encoded: Iterable[str | None]
) -> tuple[str, list[str]]:
    """The fixes the table needs, offered only then: what to do with the missing values of the
    ``chosen`` columns, and which categorical columns (none of ``not_encoded``, the columns
    another role took) to one-hot encode.

    Returns
    -------
    (str, list of str)
        The missing-value fix (the first of
        :data:`~rlscore.data.upload.proposal.MISSING_FIXES`, "keep", when none is needed) and
        the columns to one-hot encode.
    """
    with_missing = columns_with_missing_values(df, chosen)
    categorical = categorical_columns(df, exclude=tuple(not_encoded))
    missing_fix, one_hot = MISSING_FIXES[0], []
    if with_missing or categorical:
        st.subheader("Fixes")
    if with_missing:
        missing_fix = st.radio(
            f"Missing values in {md_text(listed(with_missing))}",
            MISSING_FIXES,
            horizontal=True,
            key="missing_fix",
        )
    if categorical:
        one_hot = st.multiselect(
            "One-hot encode categorical columns (one 0/1 feature per category)",
            categorical,
            key="one_hot",
        )
    return missing_fix, one_hot


__all__ = [
    "DEFAULT_TEXT",
    "NO_EMBEDDING",
    "NO_ID",
    "NO_IMAGE",
    "NO_TRUTH",
    "UploadChoices",
    "class_names_input",
    "feature_columns",
    "fix_choices",
    "free_columns",
    "item_columns",
    "load_table",
    "multi_label_input",
    "project_name_input",
    "read_columns",
    "read_upload",
    "role_columns",
    "text_feature_inputs",
    "upload_form",
]
