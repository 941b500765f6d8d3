"""Data page: create a project from a CSV/Parquet upload, export labels, delete projects.

Layout and wiring only: reading, validation, storage and export live in
:mod:`rlscore.data.projects`, :mod:`rlscore.storage` and :mod:`rlscore.sessions`; the columns
proposed for an upload and its preview in :mod:`rlscore.data.upload`; the table of projects is
:class:`rlscore.sessions.project_overview.ProjectOverview` (each run reads only new events);
the shared wiring in :mod:`rlscore.ui`. Names from the uploaded file and the store (file,
project, column and class names) are shown as text (:func:`rlscore.ui.text.md_text`), never
as Markdown.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import pandas as pd
import streamlit as st

from rlscore.data.projects import (
    ProjectInputError,
    parse_class_names,
    project_from_table,
    read_table,
    truth_values,
)
from rlscore.data.upload import (
    MAX_PREVIEW_ROWS,
    class_listing,
    default_features,
    guess_truth_column,
    listed,
    project_preview,
)
from rlscore.sessions import export_labels
from rlscore.storage import UnknownProjectError
from rlscore.ui.errors import report_errors
from rlscore.ui.flash import flash, show_flash
from rlscore.ui.navigation import enter_through_app
from rlscore.ui.store import get_overview, get_store
from rlscore.ui.text import md_text

enter_through_app("data")

NO_ID = "(row number)"
NO_TRUTH = "(none)"


@st.cache_data(show_spinner=False, max_entries=4)
def load_table(data: bytes, filename: str) -> pd.DataFrame:
    return read_table(data, filename)


def delete_project(name: str) -> None:
    """Callback of "Delete project": delete ``name``, the project shown when it was clicked.

    The project may have been deleted meanwhile (another tab); that is said, not raised.
    """
    if st.session_state.get("confirm_delete") != name:
        return  # not confirmed for this project (the button is disabled then)
    st.session_state["confirm_delete"] = ""
    try:
        get_store().delete_project(name)
    except UnknownProjectError:
        flash("info", f"Project '{md_text(name)}' was already deleted (in another tab).")
    else:
        flash("success", f"Deleted project '{md_text(name)}'.")


st.title("Data")
store = get_store()
show_flash()

# -- new project ---------------------------------------------------------------------------
st.header("New project")
upload = st.file_uploader(
    "CSV or Parquet file (one row per point)",
    type=["csv", "tsv", "txt", "parquet", "pq"],
    key="upload",
    help="CSV: UTF-8 or Latin-1, separated by commas, semicolons or tabs, with a header row.",
)
if upload is not None:
    try:
        df = load_table(upload.getvalue(), upload.name)
    except ProjectInputError as exc:
        st.error(md_text(exc))
        df = None
    if df is not None:
        columns = [str(c) for c in df.columns]
        st.caption(f"{md_text(upload.name)}: {df.shape[0]} rows × {df.shape[1]} columns")
        st.dataframe(df.head(MAX_PREVIEW_ROWS), hide_index=True)
        name = st.text_input("Project name", value=Path(upload.name).stem, key="project_name")
        left, right = st.columns(2)
        id_column = left.selectbox("Id column", [NO_ID, *columns], key="id_column")
        guess = guess_truth_column(df)
        truth_options = [NO_TRUTH, *columns]
        truth_column = right.selectbox(
            "Ground-truth column (optional: enables auto-labeling and validation error)",
            truth_options,
            index=truth_options.index(guess) if guess else 0,
            key="truth_column",
        )
        id_column = None if id_column == NO_ID else id_column
        truth_column = None if truth_column == NO_TRUTH else truth_column
        features = st.multiselect(
            "Feature columns",
            [c for c in columns if c not in (id_column, truth_column)],
            default=default_features(df, exclude=(id_column, truth_column)),
            key="features",
        )
        if truth_column is not None:
            shown = md_text(listed(truth_values(df, truth_column)))
            names_text = st.text_input(
                f"Class names for the truth values {shown} (comma-separated, optional)",
                key="class_names",
            )
        else:
            names_text = st.text_input(
                "Classes the annotators choose from (comma-separated)",
                value="-1, 1",
                key="class_names_free",
            )
        standardize = st.checkbox(
            "Standardise features (zero mean, unit variance)", key="standardize"
        )
        project = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # shown from meta["warnings"] below
                project = project_from_table(
                    df,
                    name,
                    features,
                    id_column=id_column,
                    truth_column=truth_column,
                    class_names=parse_class_names(names_text),
                    standardize=standardize,
                    source=upload.name,
                )
        except ProjectInputError as exc:
            st.error(md_text(exc))
        if project is not None:
            for text in project.meta.get("warnings", []):
                st.warning(md_text(text))
            st.subheader("Preview")
            st.caption(
                f"{project.n} points × {len(project.feature_names)} features; "
                f"{len(project.classes)} classes: {md_text(class_listing(project))}"
            )
            st.dataframe(project_preview(project))
        clicked = st.button(
            "Create project", type="primary", disabled=project is None, key="create"
        )
        if clicked and project is not None:
            created = False
            with report_errors(f"Creating project '{md_text(project.name)}'"):
                store.create_project(project)
                created = True
            if created:
                st.session_state["chosen"] = project.name  # show it in the export section
                flash(
                    "success",
                    f"Created project '{md_text(project.name)}' ({project.n} points). Choose "
                    "it in the sidebar of the Label page.",
                )
                st.rerun()

# -- existing projects ---------------------------------------------------------------------
st.header("Projects")
overview = get_overview()
rows = overview.rows()  # reads only the events committed since the last run
st.dataframe(pd.DataFrame(rows), hide_index=True)

if rows:
    # option labels are plain text: names are shown as typed
    chosen = st.selectbox("Project", [r["project"] for r in rows], key="chosen")
    try:
        project = store.load_project(chosen)
    except UnknownProjectError:
        st.info(f"Project '{md_text(chosen)}' was just deleted (in another tab).")
        st.stop()
    n_labels = overview.n_labeled(chosen)
    events = overview.events(chosen)  # the labels as counted above
    st.subheader("Export labels")
    st.caption(
        f"{n_labels} labeled points: point id, index, the final label and how it was decided "
        "(latest label, majority or review), every annotator's own label, timestamp, seconds "
        "spent, strategy, kernel, σ, λ and the feature values."
    )
    formats = {
        "csv": "text/csv",
        "json": "application/json",
        "jsonl": "application/jsonl",
        "parquet": "application/vnd.apache.parquet",
    }
    for column, (fmt, mime) in zip(st.columns(len(formats)), formats.items(), strict=True):
        column.download_button(
            f"Download labels ({fmt.upper()})",
            # built on click, not on every run of the page (four formats of every label)
            data=functools.partial(export_labels, project, events, fmt),
            file_name=f"{chosen}_labels.{fmt}",
            mime=mime,
            key=f"export_{fmt}",
        )

    st.subheader("Delete project")
    st.caption(
        f"Deletes '{md_text(chosen)}' and its {n_labels} labels for every annotator; this "
        "cannot be undone: export the labels first."
    )
    confirm = st.text_input(f"Type '{md_text(chosen)}' to confirm", key="confirm_delete")
    # the project is bound to the button: a click deletes the one on screen, even if the
    # list changed meanwhile (another tab deleted or created projects)
    st.button(
        "Delete project",
        disabled=confirm != chosen,
        key="delete",
        on_click=delete_project,
        args=(chosen,),
    )
