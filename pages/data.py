"""Data page: create a project from a CSV/Parquet upload, export labels, delete projects.

Layout and wiring only: the upload form (what the uploader chooses, proposed from the table) is
:mod:`rlscore.ui.forms.upload`; building, previewing and creating the project
:mod:`rlscore.ui.forms.new_project`, over :mod:`rlscore.data.upload` (proposals, fixes, preview)
and :func:`rlscore.data.project_from_table`; the table of projects is
:class:`rlscore.sessions.views.project_overview.ProjectOverview` (each run reads only new
events); export and deletion :mod:`rlscore.ui.forms.admin`. Names from the uploaded file and the
store (file, project, column and class names) are shown as text
(:func:`rlscore.ui.shell.safe_text.md_text`), never as Markdown.
"""

from __future__ import annotations

import functools

import pandas as pd
import streamlit as st

from rlscore.data.upload.proposal import MAX_PREVIEW_ROWS, text_feature_caption
from rlscore.sessions.views.project_overview import cluster_pool_text
from rlscore.storage import UnknownProjectError
from rlscore.ui.forms import admin
from rlscore.ui.forms.new_project import build_project, create_button, show_preview
from rlscore.ui.forms.upload import read_upload, upload_caption, upload_form
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import show_flash
from rlscore.ui.shell.navigation import end_page, enter_through_app
from rlscore.ui.shell.params import current_project, set_project, sync_address_bar
from rlscore.ui.shell.roles import gate, visible_projects
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.sidebar import annotator_input, announce_project_choice
from rlscore.ui.shell.store import get_overview, get_store

enter_through_app(__file__)

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
    help="CSV: UTF-8, Windows-1252 or Latin-1, separated by commas, semicolons or tabs, with a "
    "header row.",
)
df = None if upload is None else read_upload(upload)
if df is not None:
    with report_errors(f"Preparing a project from '{md_text(upload.name)}'"):
        st.caption(upload_caption(upload.name, df))
        st.dataframe(df.head(MAX_PREVIEW_ROWS), hide_index=True)
        choices = upload_form(df, upload)
        project = build_project(df, choices, source=upload.name)
        if project is not None:
            show_preview(project)
        create_button(store, project, user)

# -- existing projects ---------------------------------------------------------------------
st.header("Projects")
overview = get_overview()
# reads only the events committed since the last run; lists only what this user may read
visible = set(visible_projects(store))
rows = [r for r in overview.rows() if r["project"] in visible]
st.dataframe(pd.DataFrame(rows), hide_index=True)

if rows:
    names = [r["project"] for r in rows]
    # the tab's project (the link's ?project= on a fresh tab): export and delete act on the
    # project the other pages show, and a choice here is the tab's choice for them too
    tab_project = current_project()
    announce_project_choice(tab_project)  # a refused ?project= is said here, not a page later
    show_flash()
    st.session_state["chosen"] = tab_project if tab_project in names else names[0]
    sync_address_bar()
    # option labels are plain text: names are shown as typed
    chosen = st.selectbox(
        "Project",
        names,
        key="chosen",
        on_change=lambda: set_project(st.session_state["chosen"]),
    )
    try:
        project = store.load_project(chosen)
    except UnknownProjectError:
        st.info(f"Project '{md_text(chosen)}' was just deleted (in another tab).")
        end_page()
    described = text_feature_caption(project)
    if described is not None:
        st.caption(md_text(described))
    # a cluster-backed project's size and columns come from its meta: its pool stays put
    on_cluster = cluster_pool_text(project.n, project.meta)
    if on_cluster is not None:
        st.caption(md_text(on_cluster))
    n_labels = overview.n_labeled(chosen)
    st.subheader("Export labels")
    st.caption(admin.export_caption(project, n_labels))
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
    st.caption(admin.delete_caption(chosen, n_labels))
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
