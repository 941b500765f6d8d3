"""The Label page's note that the Review page's "Probably wrong" queue has new suspects.

A suspect is *new* to a user when it is in the queue now and was not when they last opened it
(:func:`~rlscore.sessions.views.label_issues.unseen_suspects`). The marker — the queue's points
when the user last opened it — is kept in the **session state**, per project and user, not in
the database: the store has no per-user place (a project's settings are the team's learner
settings, written by its owners; a reviewer's visit is not a setting and must not race with
them across servers). So a new browser session (a reload, another tab) starts without a
marker, and the note then counts every suspect, saying so.

The note is shown to whoever may decide reviews (a reviewer or an owner, or anyone in a
project without members: :func:`rlscore.ui.shell.roles.can`). It costs the Label page no fit
of its own in the usual case: it is drawn by the full page run only (a label reruns the
query panel's fragment, not the page), and the queue is remembered per log and settings
(:func:`~rlscore.sessions.views.label_issues.probably_wrong_queue`, shared with the Review
page), so the checker is refitted only when the labels changed since the last full run.
"""

from __future__ import annotations

import streamlit as st

from rlscore.core.conventions.counted_words import counted
from rlscore.data.projects.project import Project
from rlscore.sessions.team.overlap import Overlap
from rlscore.sessions.views.label_issues import (
    SuspectQueue,
    probably_wrong_queue,
    unseen_suspects,
)
from rlscore.ui.shell.roles import can
from rlscore.ui.shell.store import get_store


def _seen_key(project: Project, user: str) -> str:
    return f"suspects_seen::{project.uid}::{project.name}::{user}"


def mark_suspects_seen(project: Project, user: str | None, queue: SuspectQueue) -> None:
    """Remember that ``user`` opened ``queue`` now (the Review page, after drawing it)."""
    if user and queue.suspects is not None:
        st.session_state[_seen_key(project, user)] = {int(i) for i in queue.suspects["index"]}


def note_text(new: int, looked_before: bool) -> str | None:
    """The note for ``new`` suspects (None: nothing to say)."""
    if new == 0:
        return None
    labels = f"{counted(new, 'label')} {'looks' if new == 1 else 'look'}"
    since = " since you last looked" if looked_before else ""
    return f"{labels} wrong{since} — see Probably wrong on the Review page."


def suspects_note(project: Project, settings: dict, user: str | None) -> None:
    """Draw the note under the page's title when the queue has suspects new to ``user``
    (nothing for a user who may not decide reviews, or when there is nothing new)."""
    store = get_store()
    if not user or not can(store, project.name, user, "review"):
        return
    rule = Overlap.of_settings(settings).rule
    queue = probably_wrong_queue(project, store.events(project.name), settings, rule=rule)
    seen = st.session_state.get(_seen_key(project, user))
    text = note_text(len(unseen_suspects(queue, seen)), seen is not None)
    if text is not None:
        st.caption(text)


__all__ = ["mark_suspects_seen", "note_text", "suspects_note"]
