"""Data page: create a project from a CSV/Parquet upload, export labels, delete projects.

Layout and wiring only: reading, validation, storage and export live in
:mod:`rlscore.data.projects`, :mod:`rlscore.storage` and :mod:`rlscore.sessions`; the shared
wiring in :mod:`rlscore.ui`.
"""

from __future__ import annotations

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
from rlscore.sessions import LabelLog, export_labels
from rlscore.ui.flash import flash, show_flash
from rlscore.ui.store import get_store

NO_ID = "(row number)"
NO_TRUTH = "(none)"
TRUTH_GUESSES = ("label", "labels", "class", "kind", "category", "target", "y", "truth")
MAX_PREVIEW_ROWS = 200


@st.cache_data(show_spinner=False, max_entries=4)
def load_table(data: bytes, filename: str) -> pd.DataFrame:
    return read_table(data, filename)


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
        st.error(str(exc))
        df = None
    if df is not None:
        columns = [str(c) for c in df.columns]
        st.caption(f"{upload.name}: {df.shape[0]} rows × {df.shape[1]} columns")
        st.dataframe(df.head(MAX_PREVIEW_ROWS), hide_index=True)
        name = st.text_input("Project name", value=Path(upload.name).stem, key="project_name")
        left, right = st.columns(2)
        id_column = left.selectbox("Id column", [NO_ID, *columns], key="id_column")
        guess = next((c for c in columns if c.lower() in TRUTH_GUESSES), None)
        truth_options = [NO_TRUTH, *columns]
        truth_column = right.selectbox(
            "Ground-truth column (optional: enables auto-labeling and validation error)",
            truth_options,
            index=truth_options.index(guess) if guess else 0,
            key="truth_column",
        )
        id_column = None if id_column == NO_ID else id_column
        truth_column = None if truth_column == NO_TRUTH else truth_column
        numeric = [
            c
            for c in columns
            if c not in (id_column, truth_column) and pd.api.types.is_numeric_dtype(df[c])
        ]
        features = st.multiselect(
            "Feature columns",
            [c for c in columns if c not in (id_column, truth_column)],
            default=numeric,
            key="features",
        )
        if truth_column is not None:
            values = truth_values(df, truth_column)
            shown = ", ".join(map(str, values[:20])) + (" …" if len(values) > 20 else "")
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
            st.error(str(exc))
        if project is not None:
            for text in project.meta.get("warnings", []):
                st.warning(text)
            st.subheader("Preview")
            summary = f"{project.n} points × {len(project.feature_names)} features; classes " + (
                ", ".join(map(str, project.classes))
            )
            if project.truth is not None:
                counts = pd.Series(project.truth).value_counts()
                summary += " (" + ", ".join(f"{c}: {counts.get(c, 0)}" for c in project.classes)
                summary += ")"
            st.caption(summary)
            preview = pd.DataFrame(
                project.X[:MAX_PREVIEW_ROWS],
                columns=project.feature_names,
                index=project.ids[:MAX_PREVIEW_ROWS],
            )
            if project.truth is not None:
                preview["truth"] = project.truth[:MAX_PREVIEW_ROWS]
            st.dataframe(preview)
        if st.button("Create project", type="primary", disabled=project is None, key="create"):
            try:
                store.create_project(project)
            except ValueError as exc:
                st.error(str(exc))
            else:
                st.session_state["chosen"] = project.name  # show it in the export section
                flash(
                    "success",
                    f"Created project '{project.name}' ({project.n} points). Choose it in the "
                    "sidebar of the Label page.",
                )
                st.rerun()

# -- existing projects ---------------------------------------------------------------------
st.header("Projects")
summaries = store.project_summaries()
rows = []
for s in summaries:
    log = LabelLog(store.events(s["name"]))
    rows.append(
        {
            "project": s["name"],
            "points": s["n"],
            "features": s["d"],
            "classes": ", ".join(map(str, s["classes"])),
            "labeled": len(log.labels),
            "ground truth": "yes" if s["has_truth"] else "no",
            "source": s["meta"].get("source") or "",
        }
    )
st.dataframe(pd.DataFrame(rows), hide_index=True)

if summaries:
    chosen = st.selectbox("Project", [s["name"] for s in summaries], key="chosen")
    project = store.load_project(chosen)
    events = store.events(chosen)
    n_labels = len(LabelLog(events).labels)
    st.subheader("Export labels")
    st.caption(
        f"{n_labels} labeled points: point id, index, label, annotator, timestamp, seconds "
        "spent, strategy, kernel, σ, λ and the feature values."
    )
    formats = {"csv": "text/csv", "json": "application/json"}
    for column, (fmt, mime) in zip(st.columns(len(formats)), formats.items(), strict=True):
        column.download_button(
            f"Download labels ({fmt.upper()})",
            data=export_labels(project, events, fmt),
            file_name=f"{chosen}_labels.{fmt}",
            mime=mime,
            key=f"export_{fmt}",
        )

    st.subheader("Delete project")
    st.caption(
        f"Deletes '{chosen}' and its {n_labels} labels for every annotator; this cannot be "
        "undone: export the labels first."
    )
    confirm = st.text_input(f"Type '{chosen}' to confirm", key="confirm_delete")
    if st.button("Delete project", disabled=confirm != chosen, key="delete"):
        store.delete_project(chosen)
        flash("success", f"Deleted project '{chosen}'.")
        st.rerun()
