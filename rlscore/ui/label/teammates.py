"""Teammates' labels on an open page: a small fragment polls the database for new events.

Several app servers may share one database (PostgreSQL, or one SQLite file on one machine).
A page cannot be told by another server that something changed, so each open Label or Review
page runs :func:`follow_teammates`, a fragment that every :func:`poll_seconds` seconds reads
the project's newest event id (one indexed query) and, when someone else wrote an event newer
than what the page shows, runs the page again: a teammate's label appears within about one
poll interval, without reloading the browser page. The tab's own actions redraw what they
change themselves (a second run would race with that redraw). ``$RLSCORE_POLL_SECONDS``
sets the interval (default :data:`DEFAULT_POLL_SECONDS`; ``0`` turns polling off).

A teammate may label the very point the page shows (the query claimed for this annotator,
picked in their plot or labeled from Python): the run the poll asks for then draws the next
query, and :func:`note_taken_point` says why the point changed, so that a press a moment later
is not taken for a press on the old point.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

import streamlit as st

from rlscore.sessions.views.taken_point import taken_by, taken_text
from rlscore.storage import DatabaseUnavailableError, UnknownProjectError
from rlscore.ui.label.actions import pending_conflict
from rlscore.ui.shell.flash import flash, flash_pending
from rlscore.ui.shell.store import get_store

if TYPE_CHECKING:  # the Review page polls too, and draws no query panel
    from rlscore.sessions.actions.session import LabelingSession
    from rlscore.sessions.views.label_page import QueryPanelState

POLL_ENV = "RLSCORE_POLL_SECONDS"
DEFAULT_POLL_SECONDS = 1.0
_SHOWN = "shown_event_id"
#: (project, uid, point, seen, picked) of the query panel's last point in this tab
_ON_SCREEN = "panel_point_on_screen"


def poll_seconds() -> float | None:
    """The poll interval from ``$RLSCORE_POLL_SECONDS`` (None: polling off)."""
    raw = os.environ.get(POLL_ENV, "")
    try:
        seconds = float(raw) if raw.strip() else DEFAULT_POLL_SECONDS
    except ValueError:
        logging.getLogger("rlscore.ui").warning("ignoring %s=%r: not a number", POLL_ENV, raw)
        seconds = DEFAULT_POLL_SECONDS
    return seconds if seconds > 0 else None


def mark_shown_version(project: str, event_id: int) -> None:
    """Record that the page now shows ``project`` up to event ``event_id``."""
    st.session_state[_SHOWN] = (project, int(event_id))


def _changed_since_shown(annotator: str | None) -> bool:
    """Whether someone else wrote to the project after what the page shows. The tab's own
    actions redraw what they change themselves: a page run for them would only race with
    that redraw."""
    shown = st.session_state.get(_SHOWN)
    if shown is None:
        return False
    project, event_id = shown
    try:
        store = get_store()
        if store.last_event_id(project) <= event_id:
            return False
        return any(e.annotator != annotator for e in store.events(project, after_id=event_id))
    except Exception:  # a deleted project or a lost connection: the next page run says so
        return True


def follow_teammates(annotator: str | None) -> None:
    """Start the polling fragment on this page for the tab's ``annotator`` (nothing when
    polling is off)."""
    seconds = poll_seconds()
    if seconds is not None:
        _poll(seconds, annotator)


def _poll(seconds: float, annotator: str | None) -> None:
    @st.fragment(run_every=seconds)
    def poll() -> None:
        if _changed_since_shown(annotator):
            st.session_state.pop(_SHOWN, None)  # one page run per change
            st.rerun()

    poll()


def note_taken_point(session: LabelingSession, annotator: str, state: QueryPanelState) -> None:
    """Before the query panel draws ``state``: when its point replaces the one this tab
    showed because a teammate labeled, skipped or reviewed that one, queue the notice that
    says so (:func:`~rlscore.sessions.views.taken_point.taken_text`), bound to the new point
    as an action's notice is (:func:`~rlscore.ui.shell.flash.show_flash`).

    Only a change from one query to another of the same project counts: a project switched,
    a point picked in the plot or the way back from one are the tab's own doing. A notice of
    this tab's own action not shown yet comes first (a press refused because the teammate was
    first already says so, "Not saved: a teammate labeled it …"); whether a teammate took the
    point is the log's answer between the two views
    (:func:`~rlscore.sessions.views.taken_point.taken_by`), read only when the point changed.
    """
    drawn = (state.project, state.project_uid, state.target, state.seen, state.picked)
    before = st.session_state.get(_ON_SCREEN)
    if _taken_here(before, drawn) and not flash_pending():
        conflict = pending_conflict() or {}
        if (conflict.get("uid"), conflict.get("point")) != (before[1], before[2]):
            try:
                events = session.store.events(state.project, after_id=before[3])
            except (DatabaseUnavailableError, UnknownProjectError):
                events = []  # nothing is said that the log does not show
            taken = taken_by(before[2], annotator, [e for e in events if e.id <= state.seen])
            if taken is not None:
                flash("info", taken_text(taken, before[2], state.target is not None))
    # recorded last: a run stopped before this point asks again, and finds its notice queued
    st.session_state[_ON_SCREEN] = drawn


def _taken_here(before: tuple | None, drawn: tuple) -> bool:
    """Whether the panel's point may have changed under the tab: another point of the same
    project than the query it showed, and the new one is a query too (not picked)."""
    if before is None or before[:2] != drawn[:2] or before[2] is None:
        return False
    return before[2] != drawn[2] and not before[4] and not drawn[4]


__all__ = [
    "DEFAULT_POLL_SECONDS",
    "POLL_ENV",
    "follow_teammates",
    "mark_shown_version",
    "note_taken_point",
    "poll_seconds",
]
