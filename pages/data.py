"""Data page: create a project from a CSV/Parquet upload, export labels, delete projects.

Layout and wiring only: reading, validation, storage and export live in
:mod:`rlscore.data.projects.project`, :mod:`rlscore.storage` and :mod:`rlscore.sessions`; the
columns proposed for an upload and its preview in :mod:`rlscore.data.upload.proposal`; the table of
projects is :class:`rlscore.sessions.views.project_overview.ProjectOverview` (each run reads only
new events); the shared wiring in :mod:`rlscore.ui`. The form chooses a project's items (text
columns, one image column under the server's ``$RLSCORE_IMAGE_ROOT``, context columns) and features
(numeric columns, an embedding column, text features and their settings), and offers the fixes of
:mod:`rlscore.data.upload.table_fixes` when the table needs them; the proposals, the fixes and the
text features' caption are :mod:`rlscore.data.upload.proposal`'s. Names from the uploaded file and
the store (file, project, column and class names) are shown as text
(:func:`rlscore.ui.shell.safe_text.md_text`), never as Markdown.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import pandas as pd
import streamlit as st

from rlscore.data.features import FeatureInputError
from rlscore.data.features.image_urls import image_urls_allowed
from rlscore.data.features.images import IMAGE_ROOT_ENV, server_image_root
from rlscore.data.features.text import TextFeatureSettings
from rlscore.data.items.columns import ItemInputError
from rlscore.data.projects.class_labels import parse_class_names, truth_values
from rlscore.data.projects.project import ProjectInputError
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.proposal import (
    ANALYZER_CHOICES,
    MAX_PREVIEW_ROWS,
    MISSING_FIXES,
    STANDARDIZE_CHOICES,
    apply_fixes,
    categorical_columns,
    class_listing,
    columns_with_missing_values,
    default_features,
    fixed_features,
    guess_image_column,
    guess_text_columns,
    guess_truth_column,
    listed,
    project_preview,
    text_feature_caption,
    text_settings,
)
from rlscore.data.upload.table_fixes import TableFixError
from rlscore.data.upload.table_reading import read_table
from rlscore.sessions.team import permissions
from rlscore.sessions.views.project_overview import cluster_pool_text
from rlscore.storage import UnknownProjectError
from rlscore.ui.forms import admin
from rlscore.ui.forms.upload import feature_progress
from rlscore.ui.shell import auth
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import flash, show_flash
from rlscore.ui.shell.navigation import enter_through_app
from rlscore.ui.shell.roles import gate
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.sidebar import annotator_input
from rlscore.ui.shell.store import get_overview, get_store

enter_through_app(__file__)

NO_ID = "(row number)"
NO_TRUTH = "(none)"
NO_IMAGE = "(no image column)"
NO_EMBEDDING = "(no embedding column)"
DEFAULT_TEXT = TextFeatureSettings()


@st.cache_data(show_spinner=False, max_entries=4)
def load_table(data: bytes, filename: str) -> pd.DataFrame:
    return read_table(data, filename)


user = annotator_input()
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
        # the name follows each new file (its stem) until the uploader types another one
        this_file = (upload.name, upload.size, getattr(upload, "file_id", ""))
        if st.session_state.get("project_name_for") != this_file:
            st.session_state["project_name_for"] = this_file
            st.session_state["project_name"] = Path(upload.name).stem
        name = st.text_input("Project name", key="project_name")
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
        roles = (id_column, truth_column)

        st.subheader("Items: what the annotator sees")
        text_columns = st.multiselect(
            "Text columns (shown, and text features built from them)",
            [c for c in columns if c not in roles],
            default=guess_text_columns(df, exclude=roles),
            key="text_columns",
        )
        image_guess = guess_image_column(df, exclude=(*roles, *text_columns))
        image_options = [NO_IMAGE, *(c for c in columns if c not in (*roles, *text_columns))]
        image_column = st.selectbox(
            "Image column (paths relative to the server's image folder"
            + (", or http(s) URLs)" if image_urls_allowed() else ")"),
            image_options,
            index=image_options.index(image_guess) if image_guess else 0,
            key="image_column",
        )
        image_column = None if image_column == NO_IMAGE else image_column
        items = {*roles, *text_columns, image_column}
        context_columns = st.multiselect(
            "Context columns (shown as they are)",
            [c for c in columns if c not in items],
            key="context_columns",
        )

        st.subheader("Features: what the learner uses")
        embedding_options = [NO_EMBEDDING, *(c for c in columns if c not in items)]
        embedding_column = st.selectbox(
            "Embedding column (one vector per row: a JSON list or a Parquet list)",
            embedding_options,
            key="embedding_column",
        )
        embedding_column = None if embedding_column == NO_EMBEDDING else embedding_column
        used = {*items, embedding_column}
        features = st.multiselect(
            "Feature columns",
            [c for c in columns if c not in used],
            default=default_features(df, exclude=used),
            key="features",
        )
        settings = None
        if text_columns:
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
        standardize = STANDARDIZE_CHOICES[
            st.radio(
                "Standardise numeric features (zero mean, unit variance)",
                list(STANDARDIZE_CHOICES),
                horizontal=True,
                key="standardize",
            )
        ]

        # fixes for real tables: offered only when the table needs them
        chosen_columns = [c for c in [*features, *text_columns, *context_columns] if c]
        with_missing = columns_with_missing_values(df, chosen_columns)
        categorical = categorical_columns(df, exclude=(*used, *text_columns, *context_columns))
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

        project = None
        try:
            image_root = server_image_root() if image_column is not None else None
            if image_column is not None and image_root is None and not image_urls_allowed():
                raise ProjectInputError(
                    f"image column {image_column!r} needs the server's image folder: start "
                    f"the server with {IMAGE_ROOT_ENV}=/path/to/images (the folder the paths "
                    "are relative to)"
                )
            if text_columns:
                settings = text_settings(analyzer, vocabulary, dimension)
            table, notes = apply_fixes(df, missing_fix, chosen_columns, one_hot)
            for note in notes:
                st.info(md_text(note))
            with warnings.catch_warnings(), feature_progress() as progress:
                warnings.simplefilter("ignore")  # shown from meta["warnings"] below
                project = project_from_table(
                    table,
                    name,
                    fixed_features(table, features, one_hot),
                    id_column=id_column,
                    truth_column=truth_column,
                    class_names=parse_class_names(names_text),
                    standardize=standardize,
                    source=upload.name,
                    text_columns=text_columns,
                    image_column=image_column,
                    image_root=image_root,
                    embedding_column=embedding_column,
                    context_columns=context_columns,
                    text_settings=settings,
                    progress=progress,
                )
        except (ProjectInputError, FeatureInputError, ItemInputError, TableFixError) as exc:
            # one line per refused row when a message lists several (each line plain text)
            st.error("  \n".join(md_text(line) for line in str(exc).splitlines()))
        if project is not None:
            for text in project.meta.get("warnings", []):
                st.warning(md_text(text))
            st.subheader("Preview")
            st.caption(
                f"{project.n} points × {len(project.feature_names)} features; "
                f"{len(project.classes)} classes: {md_text(class_listing(project))}"
            )
            described = text_feature_caption(project)
            if described is not None:
                st.caption(md_text(described))
            st.dataframe(project_preview(project))
        may_create = permissions.may_create_projects(user)
        only_listed = (
            f"This server lets only the users listed in {permissions.CREATORS_ENV} create "
            "projects (ask its administrator)."
        )
        clicked = st.button(
            "Create project",
            type="primary",
            disabled=project is None or not may_create,
            key="create",
            help=None if may_create else only_listed,
        )
        if clicked and project is not None:
            created = False
            with report_errors(f"Creating project '{md_text(project.name)}'"):
                # a signed-in creator owns the project; a typed name proves nothing, so in
                # local mode the project stays open to every name
                owner = user if auth.sign_in_configured() else None
                permissions.create_project(store, project, owner)
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
    described = text_feature_caption(project)
    if described is not None:
        st.caption(md_text(described))
    # a cluster-backed project's size and columns come from its meta: its pool stays put
    on_cluster = cluster_pool_text(project.n, project.meta)
    if on_cluster is not None:
        st.caption(md_text(on_cluster))
    n_labels = overview.n_labeled(chosen)
    st.subheader("Export labels")
    st.caption(
        f"{n_labels} labeled points: point id, index, the final label and how it was decided "
        "(latest label, majority or review), every annotator's own label, timestamp, seconds "
        "spent, strategy, kernel, σ, λ, the feature values and the accuracy estimate at "
        "export time. Each download is recorded in the project's audit (who, when, which "
        "format); the audit downloads beside it."
    )
    formats = {
        "csv": "text/csv",
        "json": "application/json",
        "jsonl": "application/jsonl",
        "parquet": "application/vnd.apache.parquet",
    }
    export_gate = gate(store, chosen, user, "export")
    for part in ("labels", "audit"):
        columns = st.columns(len(formats))
        for column, (fmt, mime) in zip(columns, formats.items(), strict=True):
            column.download_button(
                f"Download {part} ({fmt.upper()})",
                # built on click, not on every run of the page (four formats of every label)
                data=functools.partial(admin.export_file, chosen, user, fmt, part),
                file_name=f"{chosen}_{part}.{fmt}",
                mime=mime,
                key=f"export_{fmt}" if part == "labels" else f"export_{part}_{fmt}",
                # no rerun on click: a rerun draws the button again under a new file id and
                # revokes the old one, racing the browser's request for the file
                on_click="ignore",
                **export_gate,
            )

    st.subheader("Delete project")
    st.caption(
        f"Deletes '{md_text(chosen)}' and its {n_labels} labels for every annotator. It can "
        f"be restored with its labels on the Admin page for {admin.grace_days()} (then it is "
        "purged for good)."
    )
    delete_gate = gate(store, chosen, user, "delete")
    confirm = st.text_input(
        f"Type '{md_text(chosen)}' to confirm",
        key="confirm_delete",
        disabled=delete_gate["disabled"],
    )
    # the project is bound to the button: a click deletes the one on screen, even if the
    # list changed meanwhile (another tab deleted or created projects)
    st.button(
        "Delete project",
        disabled=confirm != chosen or delete_gate["disabled"],
        help=delete_gate["help"],
        key="delete",
        on_click=admin.delete_project,
        args=(chosen, user),
    )
