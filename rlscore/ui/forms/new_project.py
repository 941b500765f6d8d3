"""From the upload form's choices to a new project: built while a progress bar moves,
previewed, and created by whoever may create projects.

:func:`build_project` decides whether the table can become a project: the fixes chosen are
applied (:func:`rlscore.data.upload.proposal.apply_fixes`), then
:func:`rlscore.data.project_from_table` builds it; every reason it cannot (an unreadable
column, a missing image, an image column without the server's image folder, …) is shown as an
error, one line per refused row, and the project is None. :func:`create_button` creates it
for its owner (:func:`creation_owner`) once the user clicks. Names from the file and the store
are shown as text (:func:`rlscore.ui.shell.safe_text.md_text`), never as Markdown.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from rlscore.data import Project, ProjectInputError, project_from_table
from rlscore.data.features import FeatureInputError, Progress
from rlscore.data.features.image_urls import image_urls_allowed
from rlscore.data.features.images import IMAGE_ROOT_ENV, server_image_root
from rlscore.data.items.columns import ItemInputError, file_rows
from rlscore.data.projects.class_labels import parse_class_names
from rlscore.data.upload.proposal import (
    apply_fixes,
    class_listing,
    fixed_features,
    project_preview,
    text_feature_caption,
    text_settings,
)
from rlscore.data.upload.table_fixes import TableFixError
from rlscore.sessions.team import permissions
from rlscore.storage import LabelStore
from rlscore.ui.forms.upload import UploadChoices
from rlscore.ui.shell import auth
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.params import set_project
from rlscore.ui.shell.safe_text import md_text

if TYPE_CHECKING:
    import pandas as pd

#: the errors that say a table cannot become a project as chosen (shown, not raised)
REFUSALS = (ProjectInputError, FeatureInputError, ItemInputError, TableFixError)


@contextmanager
def feature_progress(start: str = "Building features…") -> Iterator[Progress]:
    """A progress bar (``st.progress``) for the duration of the ``with`` block, shown while a
    project's features are built (texts, images); removed once they are.

    Yields
    ------
    Progress
        ``progress(fraction, message)``: moves the bar to ``fraction`` (0–1, clipped) and
        shows ``message`` as text (the engine's callback, :data:`rlscore.data.features.Progress`).
    """
    slot = st.empty()
    bar = slot.progress(0.0, text=md_text(start))

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, float(fraction))), text=md_text(message))

    try:
        yield progress
    finally:
        slot.empty()


def image_root_for(image_column: str | None) -> Path | None:
    """The folder an image column's paths are relative to: the server's image folder.

    Parameters
    ----------
    image_column : str or None
        None: no image column, no folder.

    Returns
    -------
    Path or None
        None also when the server has no image folder but allows image URLs (the column then
        holds URLs).

    Raises
    ------
    ProjectInputError
        An image column on a server with neither an image folder nor image URLs: its paths
        point nowhere.
    """
    if image_column is None:
        return None
    image_root = server_image_root()
    if image_root is None and not image_urls_allowed():
        raise ProjectInputError(
            f"image column {image_column!r} needs the server's image folder: start "
            f"the server with {IMAGE_ROOT_ENV}=/path/to/images (the folder the paths "
            "are relative to)"
        )
    return image_root


def build_project(df: pd.DataFrame, choices: UploadChoices, source: str) -> Project | None:
    """The project the table ``df`` becomes with ``choices``, or None when it cannot.

    The notes of the fixes applied are shown as information; the reasons the table cannot
    become a project (:data:`REFUSALS`) as an error, one line per refused row when a message
    lists several. Warnings of the build are left to :func:`show_preview` (the project keeps
    them in ``meta["warnings"]``).

    Parameters
    ----------
    df : DataFrame
        The uploaded table.
    choices : UploadChoices
    source : str
        The uploaded file's name, kept in the project's meta.

    Returns
    -------
    Project or None
    """
    try:
        image_root = image_root_for(choices.image_column)
        settings = None if choices.text_inputs is None else text_settings(*choices.text_inputs)
        table, notes = apply_fixes(df, choices.missing_fix, choices.chosen_columns, choices.one_hot)
        for note in notes:
            st.info(md_text(note))
        # the rows a fix kept keep the file's numbers: the messages name the file's rows
        with warnings.catch_warnings(), feature_progress() as progress, file_rows(table.index):
            warnings.simplefilter("ignore")  # shown from meta["warnings"] by show_preview
            return project_from_table(
                table.reset_index(drop=True),
                choices.name,
                fixed_features(table, choices.features, choices.one_hot),
                id_column=choices.id_column,
                truth_column=choices.truth_column,
                class_names=parse_class_names(choices.names_text),
                standardize=choices.standardize,
                source=source,
                text_columns=choices.text_columns,
                image_column=choices.image_column,
                image_root=image_root,
                embedding_column=choices.embedding_column,
                context_columns=choices.context_columns,
                text_settings=settings,
                progress=progress,
                multi_label=choices.multi_label,
            )
    except REFUSALS as exc:
        # one line per refused row when a message lists several (each line plain text)
        st.error("  \n".join(md_text(line) for line in str(exc).splitlines()))
        return None


def show_preview(project: Project) -> None:
    """The built project before it is created: its warnings, its size and classes, what its
    text features keep, and its first rows."""
    for text in project.meta.get("warnings", []):
        st.warning(md_text(text))
    st.subheader("Preview")
    # a multi-label count is of the items whose set holds the class: they add up to more
    each = ", items with each" if project.multi_label and project.truth is not None else ""
    st.caption(
        f"{project.n} points × {len(project.feature_names)} features; "
        f"{len(project.classes)} classes{each}: {md_text(class_listing(project))}"
    )
    described = text_feature_caption(project)
    if described is not None:
        st.caption(md_text(described))
    st.dataframe(project_preview(project))


def creation_owner(user: str | None) -> str | None:
    """Who owns a project ``user`` creates: a signed-in creator; in local mode nobody, since a
    typed name proves nothing (the project stays open to every name)."""
    return user if auth.sign_in_configured() else None


def create_button(store: LabelStore, project: Project | None, user: str | None) -> None:
    """The "Create project" button: enabled when there is a project and ``user`` may create
    projects (else its help says who may); a click creates it and reruns the page with the new
    project chosen in the export section, or shows why it was not created."""
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
    if not clicked or project is None:
        return
    created = False
    with report_errors(f"Creating project '{md_text(project.name)}'"):
        permissions.create_project(store, project, creation_owner(user))
        created = True
    if created:
        set_project(project.name)  # the tab's project: the export section and the Label page
        flash(
            "success",
            f"Created project '{md_text(project.name)}' ({project.n} points): the Label page "
            "opens it.",
        )
        st.rerun()


__all__ = [
    "REFUSALS",
    "build_project",
    "create_button",
    "creation_owner",
    "feature_progress",
    "image_root_for",
    "show_preview",
]
